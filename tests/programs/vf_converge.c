/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Jacobi smoothing of a 1-D rod until the residual norm is small, with an
   energy summed at every sweep and printed once, after the loop. An MPI
   version allreduces the squared residual at every sweep (every rank
   tests it to leave the loop alike) and reduces the energy once, at the
   end: nothing reads it while the loop runs. The sweep count is fixed by
   the data: 40 sweeps of 4,096 points. */
#include <math.h>
#include <stdio.h>

#define N 4096

static double u[N], v[N];

int main(void)
{
   for (int i = 0; i < N; i++)
      u[i] = (i % 64) < 32 ? 1.0 : 0.0;
   double energy = 0, norm = INFINITY;
   int it = 0;
   while (norm > 1e-3 && it < 40) {
      double r2 = 0;
      for (int i = 1; i < N - 1; i++) {
         v[i] = 0.5 * u[i] + 0.25 * (u[i - 1] + u[i + 1]);
         r2 += (v[i] - u[i]) * (v[i] - u[i]);
      }
      double e = 0;
      for (int i = 1; i < N - 1; i++) {
         u[i] = v[i];
         e += u[i] * u[i];
      }
      energy += e;
      norm = sqrt(r2);
      it++;
   }
   printf("%d sweeps, energy %.6f, norm %.3g\n", it, energy, norm);
   return 0;
}
