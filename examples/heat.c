/* heat.c: 2-D heat diffusion, the bundled example for cats.
 *
 * Two grids swap roles every time step; a scratch row is allocated inside
 * the time-step loop (an allocation in a loop, which cats reports), and
 * the boundary is read column-wise (a stride-k access). */
#include <stdio.h>
#include <stdlib.h>
#include "cats.h"

#define N 128
#define STEPS 20

static double boundary_flux(const double *u)
{
   double f = 0;
   for (int i = 0; i < N; i++)          /* column walk: stride N */
      f += u[i * N] + u[i * N + N - 1];
   return f;
}

int main(void)
{
   double *u = calloc(N * N, sizeof(double));
   double *v = calloc(N * N, sizeof(double));
   CATS_NAME_BLOCK(u, N * N * sizeof(double), "temperature");
   CATS_NAME_BLOCK(v, N * N * sizeof(double), "temperature_next");
   u[(N / 2) * N + N / 2] = 1000.0;
   double flux = 0;
   for (int t = 0; t < STEPS; t++) {
      CATS_REGION_BEGIN("timestep");
      double *row = malloc(N * sizeof(double));   /* reallocated each step */
      for (int i = 1; i < N - 1; i++) {
         for (int j = 1; j < N - 1; j++)
            row[j] = 0.25 * (u[(i - 1) * N + j] + u[(i + 1) * N + j]
                             + u[i * N + j - 1] + u[i * N + j + 1]);
         for (int j = 1; j < N - 1; j++)
            v[i * N + j] = row[j];
      }
      free(row);
      flux += boundary_flux(v);
      double *w = u; u = v; v = w;
      CATS_REGION_END("timestep");
   }
   printf("centre %.3f flux %.3f\n", u[(N / 2) * N + N / 2], flux);
   free(u);
   free(v);
   return 0;
}
