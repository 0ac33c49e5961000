/* A CSR sparse matrix-vector multiply, y = A x, with the arrays as
   globals so that their containers carry their names: the x access's
   address is computed from the value read from col (its index
   container); the stride-1 loop that fills x has none. */
#include <stdio.h>

#define N 200
#define PER_ROW 5

int rowptr[N + 1];
int col[N * PER_ROW];
double val[N * PER_ROW];
double x[N];
double y[N];

int main(void)
{
   unsigned r = 12345;
   for (int i = 0; i < N; i++)
      x[i] = i;                               /* line 20 */
   for (int i = 0; i < N; i++) {
      rowptr[i] = i * PER_ROW;
      for (int j = 0; j < PER_ROW; j++) {
         r = r * 1103515245u + 12345u;
         col[i * PER_ROW + j] = (int)((r >> 8) % N);
         val[i * PER_ROW + j] = 1.0 / (1 + j);
      }
   }
   rowptr[N] = N * PER_ROW;
   for (int i = 0; i < N; i++) {
      double s = 0;
      for (int k = rowptr[i]; k < rowptr[i + 1]; k++)
         s += val[k] * x[col[k]];             /* line 33 */
      y[i] = s;
   }
   printf("%g\n", y[N / 2]);
   return 0;
}
/* SPDX-License-Identifier: GPL-2.0-or-later */
