/* A 1-D three-point stencil over 20 time steps on heap arrays that are
   set up with memset (argv[1] = "memset"), with calloc ("calloc") or
   with a loop: the same values, so the same communication, 8 bytes a
   halo value, however the arrays were first written. The arrays are
   64 KiB: glibc's memset stores such a block a byte at a time under
   Valgrind (rep stosb), and a word's size was its first store's. */
#include <stdlib.h>
#include <string.h>

#define N 8192
#define T 20

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
   int zeroed = argc > 1 && strcmp(argv[1], "calloc") == 0;
   double *u = zeroed ? calloc(N, sizeof *u) : malloc(N * sizeof *u);
   double *v = zeroed ? calloc(N, sizeof *v) : malloc(N * sizeof *v);
   if (!zeroed && argc > 1 && strcmp(argv[1], "memset") == 0) {
      memset(u, 0, N * sizeof *u);
      memset(v, 0, N * sizeof *v);
   } else if (!zeroed) {
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
