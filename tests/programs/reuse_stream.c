/* Streaming: a[i] = i over 2^20 doubles (8 MiB, 131072 lines), then
   PASSES read sweeps. At -O2 the loops touch nothing but a, so between
   two accesses to a line every other line of a is touched once: each
   sweep's first access to a line has distance (lines of a) - 1, the
   others distance 0. The address of a is printed: which lines the
   sampling hash picks depends on it. */
#include <stdio.h>
#include <stdlib.h>

#define N (1 << 20)
#define PASSES 4

int main(void)
{
   double *a = malloc(N * sizeof(double));
   for (int i = 0; i < N; i++)
      a[i] = i;                               /* line 17 */
   double s = 0;
   for (int p = 0; p < PASSES; p++)
      for (int i = 0; i < N; i++)
         s += a[i];                           /* line 21 */
   printf("%p %g\n", (void *)a, s);   /* the test needs a's lines */
   free(a);
   return 0;
}
/* SPDX-License-Identifier: GPL-2.0-or-later */
