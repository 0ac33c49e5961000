/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A 2-D Jacobi sweep over an N x N grid kept in 1-D arrays and walked by
   one loop over all points (as generated or C++ codes flatten their
   grids): b[i] from a[i - 1], a[i + 1], a[i - N] and a[i + N] for the
   interior points, then a from b the same way. The records show one
   dimension; the values show rows of N. An MPI code on P x Q blocks of
   rows and columns sends each neighbour the interior values of its
   boundary row or column before each sweep (test_project.py). */
#include <stdio.h>
#include <stdlib.h>

#define N 64

__attribute__((noinline)) static void sweep(const double *in, double *out)
{
   for (int i = N; i < N * N - N; i++) {
      int j = i % N;
      if (j == 0 || j == N - 1)
         continue;
      out[i] = 0.25 * (in[i - 1] + in[i + 1] + in[i - N] + in[i + N]);
   }
}

int main(int argc, char **argv)
{
   int steps = argc > 1 ? atoi(argv[1]) : 10;
   double *a = malloc(N * N * sizeof *a), *b = malloc(N * N * sizeof *b);
   for (int i = 0; i < N * N; i++)
      {
         a[i] = (i * 7) % 13;
         b[i] = 0;
      }
   for (int s = 0; s < steps; s++) {
      sweep(a, b);
      sweep(b, a);
   }
   printf("%g\n", a[N + 1]);
   return 0;
}
