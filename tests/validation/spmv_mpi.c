/* spmv_mpi.c: iterated CSR SpMV x_{k+1} = SCALE * A x_k with a 1-D
 * row-block decomposition: rank p owns rows and vector entries
 * [p*n/P, (p+1)*n/P). Setup (outside the measured region) finds the
 * off-block columns its rows reference and tells their owners; every
 * iteration then exchanges exactly those x entries point-to-point
 * (ghost.h) and multiplies the local rows. Pair of spmv_serial.c. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include "params.h"
#include "checksum.h"
#include "ghost.h"

__attribute__((noinline)) static void spmv(int nloc, const int *rowptr, const int *col,
                                           const double *val, const double *x, double *y)
{
   for (int i = 0; i < nloc; i++) {
      double s = 0.0;
      for (int p = rowptr[i]; p < rowptr[i + 1]; p++)
         s += val[p] * x[col[p]];
      y[i] = SPMV_SCALE * s;
   }
}

int main(int argc, char **argv)
{
   MPI_Init(&argc, &argv);
   int P, rank;
   MPI_Comm_size(MPI_COMM_WORLD, &P);
   MPI_Comm_rank(MPI_COMM_WORLD, &rank);
   const int nx = SPMV_NX, n = nx * nx;
   if (n % P) {
      if (rank == 0)
         fprintf(stderr, "spmv: n=%d not divisible by %d\n", n, P);
      MPI_Abort(MPI_COMM_WORLD, 1);
   }
   const int nloc = n / P, r0 = rank * nloc, r1 = r0 + nloc;

   /* local rows, same entry order as the serial build, global columns */
   int *rowptr = malloc(sizeof(int) * (nloc + 1));
   int *col = malloc(sizeof(int) * nloc * (5 + SPMV_LR));
   double *val = malloc(sizeof(double) * nloc * (5 + SPMV_LR));
   uint64_t s = SPMV_SEED;
   for (long k = 0; k < (long)r0 * SPMV_LR; k++)   /* skip earlier rows' draws */
      s = spmv_lcg(s);
   int nz = 0;
   for (int i = r0; i < r1; i++) {
      int gx = i % nx, gy = i / nx;
      rowptr[i - r0] = nz;
      if (gy > 0) { col[nz] = i - nx; val[nz++] = -1.0; }
      if (gx > 0) { col[nz] = i - 1; val[nz++] = -1.0; }
      col[nz] = i; val[nz++] = 4.0;
      if (gx < nx - 1) { col[nz] = i + 1; val[nz++] = -1.0; }
      if (gy < nx - 1) { col[nz] = i + nx; val[nz++] = -1.0; }
      for (int r = 0; r < SPMV_LR; r++) {
         s = spmv_lcg(s);
         col[nz] = spmv_lr_col(s, n);
         val[nz++] = spmv_lr_val(s);
      }
   }
   rowptr[nloc] = nz;

   /* ghosts: referenced off-block columns, ascending (so grouped by owner) */
   char *need = calloc(n, 1);
   for (int p = 0; p < nz; p++)
      if (col[p] < r0 || col[p] >= r1)
         need[col[p]] = 1;
   int nghost = 0;
   for (int c = 0; c < n; c++)
      nghost += need[c];
   int *ghost_gid = malloc(sizeof(int) * (nghost + 1));
   int *ghost_owner = malloc(sizeof(int) * (nghost + 1));
   int *g2l = malloc(sizeof(int) * n);
   for (int c = 0, k = 0; c < n; c++) {
      if (c >= r0 && c < r1)
         g2l[c] = c - r0;
      else if (need[c]) {
         ghost_gid[k] = c;
         ghost_owner[k] = c / nloc;
         g2l[c] = nloc + k++;
      } else
         g2l[c] = -1;
   }
   for (int p = 0; p < nz; p++)
      col[p] = g2l[col[p]];
   ghost_plan gp;
   ghost_plan_build(&gp, MPI_COMM_WORLD, nloc, nghost, ghost_gid, ghost_owner, g2l);

   double *x = malloc(sizeof(double) * (nloc + nghost));
   double *y = malloc(sizeof(double) * (nloc + nghost));
   for (int i = 0; i < nloc; i++)
      x[i] = spmv_x0(r0 + i);

   for (int it = 0; it < SPMV_ITERS; it++) {
      MPI_Pcontrol(1);
      ghost_exchange(&gp, x, MPI_COMM_WORLD);
      spmv(nloc, rowptr, col, val, x, y);
      double *t = x;
      x = y;
      y = t;
      MPI_Pcontrol(0);
   }

   long bytes, msgs;
   ghost_plan_totals(&gp, MPI_COMM_WORLD, &bytes, &msgs);
   int nnz;
   MPI_Reduce(&nz, &nnz, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
   chk_t ck;
   double glob[3];
   chk_init(&ck);
   for (int i = 0; i < nloc; i++)
      chk_point(&ck, r0 + i, x[i]);
   chk_reduce(&ck, MPI_COMM_WORLD);
   chk_result(&ck, glob);
   if (rank == 0) {
      printf("plan rows_per_rank=%d bytes_per_iter=%ld msgs_per_iter=%ld\n", nloc,
             bytes, msgs);
      printf("spmv n=%d nnz=%d iters=%d checksum %.10e %.10e %.10e\n", n, nnz,
             SPMV_ITERS, glob[0], glob[1], glob[2]);
   }
   ghost_plan_free(&gp);
   free(need);
   free(ghost_gid);
   free(ghost_owner);
   free(g2l);
   free(rowptr);
   free(col);
   free(val);
   free(x);
   free(y);
   MPI_Finalize();
   return 0;
}
/* SPDX-License-Identifier: GPL-2.0-or-later */
