/* 2-D 5-point Jacobi heat diffusion. */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
   int n = 256, steps = argc > 1 ? atoi(argv[1]) : 4480;
   double *u = calloc((size_t)n * n, sizeof(double));
   double *v = calloc((size_t)n * n, sizeof(double));
   u[(n / 2) * n + n / 2] = 1e6;
   for (int t = 0; t < steps; t++) {
      for (int i = 1; i < n - 1; i++)
         for (int j = 1; j < n - 1; j++)
            v[i * n + j] = 0.25 * (u[(i - 1) * n + j] + u[(i + 1) * n + j]
                                   + u[i * n + j - 1] + u[i * n + j + 1]);
      double *w = u; u = v; v = w;
   }
   printf("%g\n", u[(n / 2) * n + n / 2]);
   free(u); free(v);
   return 0;
}
/* SPDX-License-Identifier: GPL-2.0-or-later */
