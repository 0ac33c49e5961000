/* A 1-D three-point stencil for argv[1] time steps. */
#include <stdlib.h>

#define N 4096

static void step(const double *in, double *out)
{
   for (int i = 1; i < N - 1; i++)
      out[i] = (in[i - 1] + in[i] + in[i + 1]) / 3.0;
}

int main(int argc, char **argv)
{
   int steps = argc > 1 ? atoi(argv[1]) : 10;
   double *a = calloc(N, sizeof(double));
   double *b = calloc(N, sizeof(double));
   a[N / 2] = 1.0;
   for (int t = 0; t < steps; t++) {
      step(a, b);
      double *tmp = a; a = b; b = tmp;
   }
   double r = a[N / 2];
   free(a);
   free(b);
   return r < 0;
}
/* SPDX-License-Identifier: GPL-2.0-or-later */
