/* A 1-D three-point stencil over 100 time steps on heap arrays that are
   set up with memset (argv[1] = "memset") or with a loop: the same values,
   so the same communication, 8 bytes a halo value, however the arrays
   were first written. */
#include <stdlib.h>
#include <string.h>

#define N 64
#define T 100

__attribute__((noipa)) static void steps(double *u, double *v)
{
   for (int t = 0; t < T; t++) {
      for (int i = 1; i < N - 1; i++)
         v[i] = (u[i - 1] + u[i] + u[i + 1]) / 3 + 1;
      for (int i = 1; i < N - 1; i++)
         u[i] = v[i];
   }
}

int main(int argc, char **argv)
{
   double *u = malloc(N * sizeof *u), *v = malloc(N * sizeof *v);
   if (argc > 1 && strcmp(argv[1], "memset") == 0) {
      memset(u, 0, N * sizeof *u);
      memset(v, 0, N * sizeof *v);
   } else {
      for (int i = 0; i < N; i++)
         u[i] = v[i] = 0;
   }
   steps(u, v);
   int ok = v[5] > 0;
   free(u);
   free(v);
   return ok ? 0 : 1;
}
/* SPDX-License-Identifier: GPL-2.0-or-later */
