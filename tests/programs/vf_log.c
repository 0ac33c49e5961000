/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A scalar computed once per iteration from the same reduction and
 * logged to the next element of an array (a solver's step sizes kept
 * for later, as CG codes keep them for eigenvalue estimates), then read
 * by every element of two vectors. tests/test_vcg.py. */
#include <stdio.h>
#include <stdlib.h>

#define N 1000

static double x[N], p[N], r[N];

__attribute__((noinline)) static double dot(const double *a, const double *b)
{
   double s = 0;
   for (int i = 0; i < N; i++)
      s += a[i] * b[i];
   return s;
}

__attribute__((noinline)) static void axpy(double *y, double a, const double *v)
{
   for (int i = 0; i < N; i++)
      y[i] += a * v[i];
}

int main(int argc, char **argv)
{
   int iters = argc > 1 ? atoi(argv[1]) : 4;
   double *alphas = malloc((size_t)iters * sizeof *alphas);
   if (!alphas)
      return 1;
   for (int i = 0; i < N; i++) {
      r[i] = 1.0 / (i + 1);
      p[i] = r[i];
   }
   double old = dot(r, r);
   for (int it = 0; it < iters; it++) {
      double rr = dot(r, p);
      double alpha = rr / old;
      alphas[it] = alpha;
      axpy(x, alpha, p);
      axpy(r, -alpha, p);
      old = rr;
   }
   double s = 0;
   for (int it = 0; it < iters; it++)
      s += alphas[it];
   printf("%g %g\n", x[N / 2], s);
   free(alphas);
   return 0;
}
