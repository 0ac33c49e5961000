/* A running sum that never restarts: s += a[j] for ITERS iterations, j
   walking a[0..1000) in order ("periodic") or in the order of a
   xorshift generator ("random", an order that never repeats). The
   value-flow graph must not grow with ITERS. */
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
   long iters = argc > 1 ? atol(argv[1]) : 1000000;
   int random = argc > 2 && strcmp(argv[2], "random") == 0;
   int n = 1000;
   double *a = malloc(n * sizeof *a);
   for (int i = 0; i < n; i++)
      a[i] = i * 0.5;
   double s = 0;
   unsigned long x = 88172645463325252UL;
   for (long i = 0; i < iters; i++) {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      s += a[random ? (long)(x % n) : i % n];
   }
   free(a);
   /* No printf of s: its digits would make more values at 100 times
      the iterations. */
   return s > 0 ? 0 : 1;
}
/* SPDX-License-Identifier: GPL-2.0-or-later */
