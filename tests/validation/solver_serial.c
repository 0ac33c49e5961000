/* solver_serial.c: Jacobi iteration for -laplace(u) = f on the unit
 * square (n x n interior, zero Dirichlet boundary, 5-point stencil).
 * Every iteration computes the residual r = h^2 f + laplace_h(u) of the
 * current iterate, its 2-norm (a reduction), and the Jacobi update
 * u_new = u + r/4; the loop stops when the norm drops below the
 * tolerance or after MAXITER iterations (the tolerance is chosen so
 * that it always runs MAXITER). Each iteration is one cats region.
 * Pair of solver_mpi.c. */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include "cats.h"
#include "params.h"
#include "checksum.h"

#define N SOLVER_N
#define W (N + 2)

__attribute__((noinline)) static void init(double *u, double *v, double *h2f)
{
   for (int i = 0; i < W; i++)
      for (int j = 0; j < W; j++) {
         u[i * W + j] = v[i * W + j] = 0.0;
         h2f[i * W + j] = (i >= 1 && i <= N && j >= 1 && j <= N) ? solver_h2f(i, j, N) : 0.0;
      }
}

/* one Jacobi sweep u -> v; returns the squared residual norm of u */
__attribute__((noinline)) static double sweep(const double *u, double *v, const double *h2f)
{
   double rr = 0.0;
   for (int i = 1; i <= N; i++)
      for (int j = 1; j <= N; j++) {
         double r = h2f[i * W + j] + u[(i - 1) * W + j] + u[(i + 1) * W + j] +
                    u[i * W + j - 1] + u[i * W + j + 1] - 4.0 * u[i * W + j];
         v[i * W + j] = u[i * W + j] + 0.25 * r;
         rr += r * r;
      }
   return rr;
}

int main(void)
{
   double *u = malloc(sizeof(double) * W * W);
   double *v = malloc(sizeof(double) * W * W);
   double *h2f = malloc(sizeof(double) * W * W);
   CATS_NAME_BLOCK(u, sizeof(double) * W * W, "u");
   CATS_NAME_BLOCK(v, sizeof(double) * W * W, "u_new");
   CATS_NAME_BLOCK(h2f, sizeof(double) * W * W, "h2f");
   init(u, v, h2f);
   int it = 0;
   double norm = INFINITY;
   while (it < SOLVER_MAXITER) {
      CATS_REGION_BEGIN("step");
      norm = sqrt(sweep(u, v, h2f));
      double *tmp = u;
      u = v;
      v = tmp;
      it++;
      CATS_REGION_END("step");
      if (norm < SOLVER_TOL)
         break;
   }
   chk_t ck;
   double r[3];
   chk_init(&ck);
   for (int i = 1; i <= N; i++)
      for (int j = 1; j <= N; j++)
         chk_point(&ck, (long)(i - 1) * N + (j - 1), u[i * W + j]);
   chk_result(&ck, r);
   /* the residual norm is an ordinary (order-dependent) sum: 7 digits */
   printf("solver n=%d iters=%d checksum %.10e %.10e %.10e resid %.6e\n", N, it, r[0],
          r[1], r[2], norm);
   free(u);
   free(v);
   free(h2f);
   return 0;
}
/* SPDX-License-Identifier: GPL-2.0-or-later */
