/* params.h: problem sizes and deterministic data formulas shared by the
 * serial and MPI versions of the validation kernels, so both compute
 * exactly the same thing. Every size can be overridden with -D. */
#ifndef VALIDATION_PARAMS_H
#define VALIDATION_PARAMS_H

#include <stdint.h>

/* ---- matmul: C = A x B, n x n doubles, one multiply ---------------- */
#ifndef MATMUL_N
#define MATMUL_N 48             /* divisible by the grid dims for N=2,4,8 */
#endif
static inline double matmul_a(int i, int j)
{
   return ((i * 7 + j * 3) % 17) * 0.125 - 1.0;
}
static inline double matmul_b(int i, int j)
{
   return ((i * 5 + j * 11) % 13) * 0.25 - 1.5;
}

/* ---- spmv: x <- SCALE * A x, A = 5-point Laplacian on an NX x NX grid
 *      plus SPMV_LR pseudo-random long-range entries per row ---------- */
#ifndef SPMV_NX
#define SPMV_NX 64              /* n = NX*NX = 4096 rows */
#endif
#ifndef SPMV_LR
#define SPMV_LR 2               /* long-range entries per row */
#endif
#ifndef SPMV_ITERS
#define SPMV_ITERS 10
#endif
#define SPMV_SCALE 0.1          /* Gershgorin: |row| <= 8.5, so |x| shrinks */

/* The fixed LCG (Knuth's MMIX constants); one stream over all rows in
 * order, SPMV_LR draws per row. */
#define SPMV_SEED 0x2545F4914F6CDD1DULL
static inline uint64_t spmv_lcg(uint64_t s)
{
   return s * 6364136223846793005ULL + 1442695040888963407ULL;
}
static inline int spmv_lr_col(uint64_t s, int n)
{
   return (int)((s >> 33) % (uint64_t)n);
}
static inline double spmv_lr_val(uint64_t s)
{
   return (double)((s >> 20) & 1023) / 4096.0;   /* in [0, 0.25) */
}
static inline double spmv_x0(int i)
{
   return ((i * 37) % 101) / 100.0 - 0.3;
}

/* ---- heat2d: n x n interior, fixed boundary, T Jacobi steps --------- */
#ifndef HEAT_N
#define HEAT_N 64
#endif
#ifndef HEAT_T
#define HEAT_T 20
#endif
#define HEAT_ALPHA 0.2
/* value of grid point (i, j), 0 <= i, j <= n+1; boundary and interior */
static inline double heat_init(int i, int j, int n)
{
   if (i == 0)
      return 1.0;
   if (i == n + 1)
      return 0.25 * (j % 4);
   if (j == 0 || j == n + 1)
      return 0.5;
   return ((i * 3 + j * 5) % 11) * 0.1;
}

/* ---- stencil3d: n^3 interior, fixed boundary, T Jacobi steps -------- */
#ifndef ST_N
#define ST_N 20
#endif
#ifndef ST_T
#define ST_T 10
#endif
#define ST_ALPHA 0.1
static inline double st_init(int i, int j, int k, int n)
{
   if (i == 0 || j == 0 || k == 0)
      return 1.0;
   if (i == n + 1 || j == n + 1 || k == n + 1)
      return 0.0;
   return ((i * 3 + j * 5 + k * 7) % 13) * 0.05;
}

/* ---- mesh: NE x NE quadrilaterals, (NE+1)^2 nodes, T steps ----------
 * Node (gx, gy) gets id (gy*M + gx) * MESH_NPERM mod M^2 and element
 * (ex, ey) id (ey*NE + ex) * MESH_EPERM mod NE^2, both bijections, so
 * the arrays are indexed in a scrambled but deterministic order. */
#ifndef MESH_NE
#define MESH_NE 40              /* keep (NE+1)^2 and NE^2 coprime with */
#endif                          /* MESH_NPERM / MESH_EPERM below */
#ifndef MESH_T
#define MESH_T 10
#endif
#define MESH_M (MESH_NE + 1)
#define MESH_NNODES (MESH_M * MESH_M)
#define MESH_NELEMS (MESH_NE * MESH_NE)
#define MESH_NPERM 1013         /* prime, coprime with 41^2 */
#define MESH_EPERM 1021         /* prime, coprime with 40^2 */
#define MESH_DT 0.5
static inline int mesh_node_id(int gx, int gy)
{
   return (int)(((long)(gy * MESH_M + gx) * MESH_NPERM) % MESH_NNODES);
}
static inline int mesh_elem_id(int ex, int ey)
{
   return (int)(((long)(ey * MESH_NE + ex) * MESH_EPERM) % MESH_NELEMS);
}
static inline double mesh_u0(int gx, int gy)
{
   return ((gx * 7 + gy * 3) % 10) * 0.1 + (gx == 0 ? 1.0 : 0.0);
}
static inline double mesh_coef(int ex, int ey)
{
   return 0.5 + ((ex * 3 + ey * 7) % 5) * 0.1;
}
/* 1 / (number of elements touching node (gx, gy)): lumped mass */
static inline double mesh_minv(int gx, int gy)
{
   int cx = (gx == 0 || gx == MESH_M - 1) ? 1 : 2;
   int cy = (gy == 0 || gy == MESH_M - 1) ? 1 : 2;
   return 1.0 / (cx * cy);
}
/* The element kernel on a gathered workspace: w = nodal values, r =
 * contributions to scatter-add. Shared so both versions round alike. */
static inline void mesh_element(const double *w, double c, double *r)
{
   double m = 0.25 * (w[0] + w[1] + w[2] + w[3]);
   for (int k = 0; k < 4; k++)
      r[k] = c * (m - w[k]) + 0.05 * c * (w[(k + 2) & 3] - w[k]);
}

/* ---- solver: Jacobi for -laplace(u) = f on the unit square, n x n
 *      interior, zero boundary, residual 2-norm every iteration ------- */
#ifndef SOLVER_N
#define SOLVER_N 64
#endif
#ifndef SOLVER_MAXITER
#define SOLVER_MAXITER 20
#endif
#ifndef SOLVER_TOL
#define SOLVER_TOL 1e-30        /* never reached: always MAXITER sweeps */
#endif
/* h^2 f(x, y) at interior point (i, j), 1 <= i, j <= n */
static inline double solver_h2f(int i, int j, int n)
{
   double h = 1.0 / (n + 1), x = j * h, y = i * h;
   return h * h * 2.0 * (x * (1.0 - x) + y * (1.0 - y));
}

#endif /* VALIDATION_PARAMS_H */
/* SPDX-License-Identifier: GPL-2.0-or-later */
