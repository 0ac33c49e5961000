/* Dense matrix multiply in i-k-j order: each step adds a row of b,
   scaled, to a row of c in memory (c[i][j] += a[i][k] * b[k][j], the
   axpy form of most HPC update loops), repeated. Every store of c makes
   a version whose sources differ from the one before, so the value
   flow sends a record per store (matmul.c's dot products send one per
   element). */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
   int n = 96, reps = argc > 1 ? atoi(argv[1]) : 1000;
   double *a = malloc((size_t)n * n * sizeof(double));
   double *b = malloc((size_t)n * n * sizeof(double));
   double *c = calloc((size_t)n * n, sizeof(double));
   for (int i = 0; i < n * n; i++) { a[i] = i % 7; b[i] = i % 5; }
   for (int r = 0; r < reps; r++)
      for (int i = 0; i < n; i++)
         for (int k = 0; k < n; k++) {
            double aik = a[i * n + k];
            for (int j = 0; j < n; j++)
               c[i * n + j] += aik * b[k * n + j];
         }
   printf("%g\n", c[n * n / 2]);
   free(a); free(b); free(c);
   return 0;
}
/* SPDX-License-Identifier: GPL-2.0-or-later */
