/* Naive dense matrix multiply (i-k-j order). */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
   int n = argc > 1 ? atoi(argv[1]) : 640;
   double *a = malloc((size_t)n * n * sizeof(double));
   double *b = malloc((size_t)n * n * sizeof(double));
   double *c = calloc((size_t)n * n, sizeof(double));
   for (int i = 0; i < n * n; i++) { a[i] = i % 7; b[i] = i % 5; }
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
