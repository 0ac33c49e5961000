/* Dense matrix multiply (i-j-k order: a dot product per element, summed
   in a register), repeated. */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
   int n = 96, reps = argc > 1 ? atoi(argv[1]) : 600;
   double *a = malloc((size_t)n * n * sizeof(double));
   double *b = malloc((size_t)n * n * sizeof(double));
   double *c = malloc((size_t)n * n * sizeof(double));
   for (int i = 0; i < n * n; i++) { a[i] = i % 7; b[i] = i % 5; }
   for (int r = 0; r < reps; r++)
      for (int i = 0; i < n; i++)
         for (int j = 0; j < n; j++) {
            double s = 0;
            for (int k = 0; k < n; k++)
               s += a[i * n + k] * b[k * n + j];
            c[i * n + j] = s;
         }
   printf("%g\n", c[n * n / 2]);
   free(a); free(b); free(c);
   return 0;
}
/* SPDX-License-Identifier: GPL-2.0-or-later */
