/* A CSR sparse matrix-vector product with 4 entries per row: y[i] +=
   val[k] * x[col[k]] reads val and col contiguously and x indirectly. */
#include <stdlib.h>

#define ROWS 500
#define NNZ 4

int main(void)
{
   int *rowptr = malloc((ROWS + 1) * sizeof(int));
   int *col = malloc(ROWS * NNZ * sizeof(int));
   double *val = malloc(ROWS * NNZ * sizeof(double));
   double *x = malloc(ROWS * sizeof(double));          /* line 13 */
   double *y = malloc(ROWS * sizeof(double));
   unsigned r = 12345;
   for (int i = 0; i < ROWS; i++) {
      x[i] = i;
      y[i] = 0;
      rowptr[i] = i * NNZ;
      for (int k = 0; k < NNZ; k++) {
         r = r * 1103515245u + 12345u;
         col[i * NNZ + k] = (int)((r >> 8) % ROWS);
         val[i * NNZ + k] = 1.0 / (k + 1);
      }
   }
   rowptr[ROWS] = ROWS * NNZ;
   for (int i = 0; i < ROWS; i++)
      for (int k = rowptr[i]; k < rowptr[i + 1]; k++)
         y[i] += val[k] * x[col[k]];           /* line 29 */
   double s = y[0] + y[ROWS - 1];
   free(y);
   free(x);
   free(val);
   free(col);
   free(rowptr);
   return s < 0;
}
/* SPDX-License-Identifier: GPL-2.0-or-later */
