/* heat.c: 2-D heat diffusion, the bundled example for cats.
 *
 * Two grids swap roles every time step (a 5-point stencil: what an MPI
 * version exchanges as halos); a scratch column is allocated inside the
 * time-step loop (an allocation in a loop, which cats reports) and filled
 * by a column walk (a stride-k access); the boundary flux summed from it
 * every step is a sum read after the loop (one reduce, at the end). */
#include <stdio.h>
#include <stdlib.h>
#include "cats.h"

#define N 128
#define STEPS 20

static double boundary_flux(const double *u)
{
   double *col = malloc(2 * N * sizeof(double));   /* reallocated each step */
   for (int i = 0; i < N; i++) {          /* column walk: stride N */
      col[i] = u[i * N];
      col[N + i] = u[i * N + N - 1];
   }
   double f = 0;
   for (int i = 0; i < 2 * N; i++)
      f += col[i];
   free(col);
   return f;
}

int main(void)
{
   double *u = calloc(N * N, sizeof(double));
   double *v = calloc(N * N, sizeof(double));
   CATS_NAME_BLOCK(u, N * N * sizeof(double), "temperature");
   CATS_NAME_BLOCK(v, N * N * sizeof(double), "temperature_next");
   for (int i = 0; i < N; i++)
      u[i * N] = v[i * N] = 100.0;        /* a hot left wall */
   double flux = 0;
   for (int t = 0; t < STEPS; t++) {
      CATS_REGION_BEGIN("timestep");
      for (int i = 1; i < N - 1; i++)
         for (int j = 1; j < N - 1; j++)
            v[i * N + j] = u[i * N + j] +
                           0.2 * (u[(i - 1) * N + j] + u[(i + 1) * N + j] +
                                  u[i * N + j - 1] + u[i * N + j + 1] -
                                  4 * u[i * N + j]);
      flux += boundary_flux(v);
      double *w = u; u = v; v = w;
      CATS_REGION_END("timestep");
   }
   printf("near the wall %.6f, flux %.3f\n", u[(N / 2) * N + 3], flux);
   free(u);
   free(v);
   return 0;
}
/* SPDX-License-Identifier: GPL-2.0-or-later */
