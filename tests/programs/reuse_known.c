/* Known line sequences for exact reuse distances (64-byte lines, run
   with --reuse-sampling=1 and built with -O2, so that the loops touch no
   stack memory between the accesses; the reads are volatile so that no
   load is hoisted out of its loop):
     walk:  4 lines x 8 doubles read in order, 10 passes: per line 1 cold,
            7 at distance 0 per pass and 1 at distance 3 per later pass;
     pair:  lines A B A B ...: distance 1 after the first of each;
     ring5, ring9, big: 5, 9 and 3000 lines, one read each, round-robin:
            distance 4, 8 and 2999 after the first pass (the tool keeps
            its 8 latest lines in a list and the rest in a tree that is
            renumbered as it fills: these cross both). */
#include <stdio.h>

#define PASSES 10
#define BIG 3000

double walk[32] __attribute__((aligned(64))) = { 1 };
double pair[16] __attribute__((aligned(64))) = { 1 };
double ring5[5 * 8] __attribute__((aligned(64))) = { 1 };
double ring9[9 * 8] __attribute__((aligned(64))) = { 1 };
double big[BIG * 8] __attribute__((aligned(64))) = { 1 };

__attribute__((noinline)) static double do_walk(const volatile double *a)
{
   double s = 0;
   for (int p = 0; p < PASSES; p++)
      for (int i = 0; i < 32; i++)
         s += a[i];
   return s;
}

__attribute__((noinline)) static double do_pair(const volatile double *a)
{
   double s = 0;
   for (int p = 0; p < PASSES; p++) {
      s += a[0];
      s += a[8];
   }
   return s;
}

__attribute__((noinline)) static double do_ring(const volatile double *a,
                                                int lines)
{
   double s = 0;
   for (int p = 0; p < PASSES; p++)
      for (int i = 0; i < lines * 8; i += 8)
         s += a[i];
   return s;
}

int main(void)
{
   double s = do_walk(walk) + do_pair(pair) + do_ring(ring5, 5)
              + do_ring(ring9, 9) + do_ring(big, BIG);
   printf("%g\n", s);
   return 0;
}
/* SPDX-License-Identifier: GPL-2.0-or-later */
