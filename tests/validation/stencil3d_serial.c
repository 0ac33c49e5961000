/* stencil3d_serial.c: 3-D 7-point Jacobi stencil on an n^3 interior with
 * a fixed boundary, T steps, two grids swapped by pointer. Each step is
 * one cats region. Pair of stencil3d_mpi.c. */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include "cats.h"
#include "params.h"
#include "checksum.h"

#define N ST_N
#define W (N + 2)
#define IDX(i, j, k) (((i) * W + (j)) * W + (k))

__attribute__((noinline)) static void init(double *u, double *v)
{
   for (int i = 0; i < W; i++)
      for (int j = 0; j < W; j++)
         for (int k = 0; k < W; k++)
            u[IDX(i, j, k)] = v[IDX(i, j, k)] = st_init(i, j, k, N);
}

__attribute__((noinline)) static void step(const double *u, double *v)
{
   for (int i = 1; i <= N; i++)
      for (int j = 1; j <= N; j++)
         for (int k = 1; k <= N; k++)
            v[IDX(i, j, k)] = u[IDX(i, j, k)] +
                              ST_ALPHA * (u[IDX(i - 1, j, k)] + u[IDX(i + 1, j, k)] +
                                          u[IDX(i, j - 1, k)] + u[IDX(i, j + 1, k)] +
                                          u[IDX(i, j, k - 1)] + u[IDX(i, j, k + 1)] -
                                          6.0 * u[IDX(i, j, k)]);
}

int main(void)
{
   double *u = malloc(sizeof(double) * W * W * W);
   double *v = malloc(sizeof(double) * W * W * W);
   CATS_NAME_BLOCK(u, sizeof(double) * W * W * W, "u");
   CATS_NAME_BLOCK(v, sizeof(double) * W * W * W, "v");
   init(u, v);
   for (int t = 0; t < ST_T; t++) {
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
         for (int k = 1; k <= N; k++)
            chk_point(&ck, ((long)(i - 1) * N + (j - 1)) * N + (k - 1), u[IDX(i, j, k)]);
   chk_result(&ck, r);
   printf("stencil3d n=%d steps=%d checksum %.10e %.10e %.10e\n", N, ST_T, r[0], r[1],
          r[2]);
   free(u);
   free(v);
   return 0;
}
/* SPDX-License-Identifier: GPL-2.0-or-later */
