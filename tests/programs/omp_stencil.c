/* An OpenMP three-point stencil over two arrays on main's stack, as HPC
   codes share a parallel region's arrays from the master's frame: the
   workers' accesses belong to a and b, and the graph is one graph. */
#include <stdio.h>

#define N 512

int main(void)
{
   double a[N], b[N];
   for (int i = 0; i < N; i++) {
      a[i] = i * 0.5;
      b[i] = 0;
   }
   for (int t = 0; t < 4; t++) {
#pragma omp parallel for schedule(static)
      for (int i = 1; i < N - 1; i++)
         b[i] = 0.25 * (a[i - 1] + 2 * a[i] + a[i + 1]);   /* line 18 */
#pragma omp parallel for schedule(static)
      for (int i = 1; i < N - 1; i++)
         a[i] = b[i];                                        /* line 21 */
   }
   printf("%g\n", a[N / 2]);
   return 0;
}
/* SPDX-License-Identifier: GPL-2.0-or-later */
