/* heat2d_serial.c: 2-D heat diffusion, 5-point Jacobi update on an n x n
 * interior with a fixed boundary, T steps, two grids swapped by pointer.
 * Each step is one cats region. Pair of heat2d_mpi.c. */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include "cats.h"
#include "params.h"
#include "checksum.h"

#define N HEAT_N
#define W (N + 2)               /* row length including the boundary */

__attribute__((noinline)) static void init(double *u, double *v)
{
   for (int i = 0; i < W; i++)
      for (int j = 0; j < W; j++)
         u[i * W + j] = v[i * W + j] = heat_init(i, j, N);
}

__attribute__((noinline)) static void step(const double *u, double *v)
{
   for (int i = 1; i <= N; i++)
      for (int j = 1; j <= N; j++)
         v[i * W + j] = u[i * W + j] +
                        HEAT_ALPHA * (u[(i - 1) * W + j] + u[(i + 1) * W + j] +
                                      u[i * W + j - 1] + u[i * W + j + 1] -
                                      4.0 * u[i * W + j]);
}

int main(void)
{
   double *u = malloc(sizeof(double) * W * W);
   double *v = malloc(sizeof(double) * W * W);
   CATS_NAME_BLOCK(u, sizeof(double) * W * W, "u");
   CATS_NAME_BLOCK(v, sizeof(double) * W * W, "v");
   init(u, v);
   for (int t = 0; t < HEAT_T; t++) {
      CATS_REGION_BEGIN("step");
      step(u, v);
      double *tmp = u;
      u = v;
      v = tmp;
      CATS_REGION_END("step");
   }
   chk_t ck;
   double r[3];
   chk_init(&ck);
   for (int i = 1; i <= N; i++)
      for (int j = 1; j <= N; j++)
         chk_point(&ck, (long)(i - 1) * N + (j - 1), u[i * W + j]);
   chk_result(&ck, r);
   printf("heat2d n=%d steps=%d checksum %.10e %.10e %.10e\n", N, HEAT_T, r[0], r[1],
          r[2]);
   free(u);
   free(v);
   return 0;
}
/* SPDX-License-Identifier: GPL-2.0-or-later */
