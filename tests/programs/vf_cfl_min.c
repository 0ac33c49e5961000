/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A time step as hydro codes take it: the minimum over all cells of
   three candidate steps, each computed from a five-point neighbourhood
   and a coefficient, then used by every cell's update. The three
   candidates' sources (18) fill a source set before they meet the
   running minimum, so the reduction's chain has links without a
   predecessor along the way, one or more per cell. The MPI version
   makes one MPI_Allreduce(MIN) per step (and sends the 2-cell halos of
   u, v and w). */
#include <math.h>
#include <stdio.h>

#define N 2000
#define STEPS 10
static double u[N], v[N], w[N], cu[N], cv[N], cw[N];

int main(void)
{
   for (int i = 0; i < N; i++) {
      u[i] = 1.0 + (i % 17);
      v[i] = 2.0 + (i % 13);
      w[i] = 3.0 + (i % 11);
      cu[i] = 1.0 + (i % 5);
      cv[i] = 1.0 + (i % 7);
      cw[i] = 1.0 + (i % 3);
   }
   double total = 0;
   for (int step = 0; step < STEPS; step++) {
      double dt = 1e30;
      for (int i = 2; i < N - 2; i++) {
         double a = 1.0 / ((u[i - 2] + u[i - 1] + u[i] + u[i + 1] + u[i + 2]) * cu[i]);
         double b = 1.0 / ((v[i - 2] + v[i - 1] + v[i] + v[i + 1] + v[i + 2]) * cv[i]);
         double c = 1.0 / ((w[i - 2] + w[i - 1] + w[i] + w[i + 1] + w[i + 2]) * cw[i]);
         dt = fmin(dt, fmin(a, fmin(b, c)));
      }
      for (int i = 2; i < N - 2; i++) {
         u[i] += dt * cu[i];
         v[i] += dt * cv[i];
         w[i] += dt * cw[i];
      }
      total += dt;
   }
   printf("%g\n", total);
   return 0;
}
