/* spmv_serial.c: iterated CSR sparse matrix-vector product
 * x_{k+1} = SCALE * A x_k. A is the 5-point Laplacian of an NX x NX grid
 * (n = NX^2 rows) plus SPMV_LR long-range entries per row drawn from a
 * fixed LCG. Each iteration is one cats region. Pair of spmv_mpi.c. */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include "cats.h"
#include "params.h"
#include "checksum.h"

/* Build the CSR matrix; row i: south, west, diagonal, east, north (those
   inside the grid), then the long-range entries. Returns nnz. */
__attribute__((noinline)) static int build(int *rowptr, int *col, double *val)
{
   const int nx = SPMV_NX, n = nx * nx;
   uint64_t s = SPMV_SEED;
   int nz = 0;
   for (int i = 0; i < n; i++) {
      int gx = i % nx, gy = i / nx;
      rowptr[i] = nz;
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
   rowptr[n] = nz;
   return nz;
}

__attribute__((noinline)) static void spmv(int n, const int *rowptr, const int *col,
                                           const double *val, const double *x, double *y)
{
   for (int i = 0; i < n; i++) {
      double s = 0.0;
      for (int p = rowptr[i]; p < rowptr[i + 1]; p++)
         s += val[p] * x[col[p]];
      y[i] = SPMV_SCALE * s;
   }
}

int main(void)
{
   const int n = SPMV_NX * SPMV_NX, maxnz = n * (5 + SPMV_LR);
   int *rowptr = malloc(sizeof(int) * (n + 1));
   int *col = malloc(sizeof(int) * maxnz);
   double *val = malloc(sizeof(double) * maxnz);
   double *x = malloc(sizeof(double) * n);
   double *y = malloc(sizeof(double) * n);
   CATS_NAME_BLOCK(rowptr, sizeof(int) * (n + 1), "rowptr");
   CATS_NAME_BLOCK(col, sizeof(int) * maxnz, "col");
   CATS_NAME_BLOCK(val, sizeof(double) * maxnz, "val");
   CATS_NAME_BLOCK(x, sizeof(double) * n, "x");
   CATS_NAME_BLOCK(y, sizeof(double) * n, "y");
   int nnz = build(rowptr, col, val);
   for (int i = 0; i < n; i++)
      x[i] = spmv_x0(i);

   for (int it = 0; it < SPMV_ITERS; it++) {
      CATS_REGION_BEGIN("step");
      spmv(n, rowptr, col, val, x, y);
      double *t = x;
      x = y;
      y = t;
      CATS_REGION_END("step");
   }

   chk_t ck;
   double r[3];
   chk_init(&ck);
   for (int i = 0; i < n; i++)
      chk_point(&ck, i, x[i]);
   chk_result(&ck, r);
   printf("spmv n=%d nnz=%d iters=%d checksum %.10e %.10e %.10e\n", n, nnz,
          SPMV_ITERS, r[0], r[1], r[2]);
   free(rowptr);
   free(col);
   free(val);
   free(x);
   free(y);
   return 0;
}
/* SPDX-License-Identifier: GPL-2.0-or-later */
