/* CSR sparse matrix-vector multiply with a banded random pattern. */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
   int n = 20000, nnz_row = 9, reps = argc > 1 ? atoi(argv[1]) : 1800;
   int *rowptr = malloc((n + 1) * sizeof(int));
   int *col = malloc((size_t)n * nnz_row * sizeof(int));
   double *val = malloc((size_t)n * nnz_row * sizeof(double));
   double *x = malloc(n * sizeof(double)), *y = malloc(n * sizeof(double));
   unsigned r = 1;
   for (int i = 0; i <= n; i++) rowptr[i] = i * nnz_row;
   for (int i = 0; i < n; i++) {
      x[i] = 1.0 / (i + 1);
      for (int k = 0; k < nnz_row; k++) {
         r = r * 1103515245u + 12345u;
         int j = i + (int)((r >> 8) % 2001) - 1000;
         col[i * nnz_row + k] = j < 0 ? 0 : (j >= n ? n - 1 : j);
         val[i * nnz_row + k] = 1.0;
      }
   }
   for (int t = 0; t < reps; t++)
      for (int i = 0; i < n; i++) {
         double s = 0;
         for (int k = rowptr[i]; k < rowptr[i + 1]; k++)
            s += val[k] * x[col[k]];
         y[i] = s;
      }
   printf("%g\n", y[n / 2]);
   free(rowptr); free(col); free(val); free(x); free(y);
   return 0;
}
/* SPDX-License-Identifier: GPL-2.0-or-later */
