/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A time step's minimum taken at two code sites per cell (a CFL
   condition over two directions, as hydro codes compute dt), then used
   by every cell of the next update: one value per step, which the MPI
   version makes with one MPI_Allreduce(MIN) per step. The reduction's
   links alternate between the two sites, as each adds one source per
   cell. A stencil update between the steps gives the cells their
   neighbours. */
#include <stdio.h>

#define N 4000
#define STEPS 12
static double u[N], v[N], cx[N], cy[N];

int main(void)
{
   for (int i = 0; i < N; i++) {
      u[i] = 1.0 + (i % 17);
      cx[i] = 1.0 + (i % 5);
      cy[i] = 2.0 + (i % 3);
   }
   double total = 0;
   for (int step = 0; step < STEPS; step++) {
      double dt = 1e30;
      for (int i = 0; i < N; i++) {
         double dx = 0.5 / (cx[i] * u[i]);
         if (dx < dt)
            dt = dx;
         double dy = 0.5 / (cy[i] * u[i]);
         if (dy < dt)
            dt = dy;
      }
      for (int i = 1; i < N - 1; i++)
         v[i] = u[i] + dt * (u[i - 1] - 2 * u[i] + u[i + 1]);
      for (int i = 1; i < N - 1; i++)
         u[i] = v[i];
      total += dt;
   }
   printf("%g\n", total);
   return 0;
}
