/* CSR-style gather: y[i] += x[col[k]] depends on the x elements that col
   names, not on col (an address) nor on rowptr. */
#define ROWS 4
int rowptr[ROWS + 1] = { 0, 2, 3, 6, 7 };
int col[7] = { 1, 5, 0, 2, 3, 7, 6 };
double x[8], y[ROWS];

__attribute__((noipa)) static void init(int n)
{
   for (int j = 0; j < n; j++)
      x[j] = j + 1;
}

__attribute__((noipa)) static void spmv(int rows)
{
   for (int i = 0; i < rows; i++) {
      double sum = 0;
      for (int k = rowptr[i]; k < rowptr[i + 1]; k++)
         sum += x[col[k]];
      y[i] += sum;
   }
}

int main(void)
{
   init(8);
   spmv(ROWS);
   return y[2] == 3 + 4 + 8 ? 0 : 1;
}
/* SPDX-License-Identifier: GPL-2.0-or-later */
