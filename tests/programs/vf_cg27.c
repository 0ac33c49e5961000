/* Conjugate gradient on the 27-point operator of an n^3 grid stored as
   CSR, as HPCCG builds and solves it: A p through the column indices,
   two dot products and three vector updates per iteration. An MPI code
   that splits the rows into z-slabs (HPCCG) sends each neighbour one
   plane of p (n * n doubles) per iteration and makes two allreduces
   (test_project.py). */
#include <stdio.h>
#include <stdlib.h>

#define N 16
#define ROWS (N * N * N)

static int *rowptr, *col;
static double *val, *x, *r, *p, *ap;

static void build(void)
{
   rowptr = malloc((ROWS + 1) * sizeof *rowptr);
   col = malloc(ROWS * 27 * sizeof *col);
   val = malloc(ROWS * 27 * sizeof *val);
   int k = 0;
   for (int iz = 0; iz < N; iz++)
      for (int iy = 0; iy < N; iy++)
         for (int ix = 0; ix < N; ix++) {
            int row = (iz * N + iy) * N + ix;
            rowptr[row] = k;
            for (int dz = -1; dz <= 1; dz++)
               for (int dy = -1; dy <= 1; dy++)
                  for (int dx = -1; dx <= 1; dx++) {
                     int jx = ix + dx, jy = iy + dy, jz = iz + dz;
                     if (jx < 0 || jy < 0 || jz < 0 || jx >= N || jy >= N || jz >= N)
                        continue;
                     col[k] = (jz * N + jy) * N + jx;
                     val[k++] = col[k] == row ? 27.0 : -1.0;
                  }
         }
   rowptr[ROWS] = k;
}

__attribute__((noinline)) static void matvec(const double *in, double *out)
{
   for (int i = 0; i < ROWS; i++) {
      double s = 0;
      for (int k = rowptr[i]; k < rowptr[i + 1]; k++)
         s += val[k] * in[col[k]];
      out[i] = s;
   }
}

__attribute__((noinline)) static double dot(const double *a, const double *b)
{
   double s = 0;
   for (int i = 0; i < ROWS; i++)
      s += a[i] * b[i];
   return s;
}

int main(int argc, char **argv)
{
   int iters = argc > 1 ? atoi(argv[1]) : 20;
   build();
   x = calloc(ROWS, sizeof *x);
   r = malloc(ROWS * sizeof *r);
   p = malloc(ROWS * sizeof *p);
   ap = malloc(ROWS * sizeof *ap);
   for (int i = 0; i < ROWS; i++)
      r[i] = p[i] = 1.0 + i % 3;
   double rr = dot(r, r);
   for (int it = 0; it < iters; it++) {
      matvec(p, ap);
      double alpha = rr / dot(p, ap);
      for (int i = 0; i < ROWS; i++) {
         x[i] += alpha * p[i];
         r[i] -= alpha * ap[i];
      }
      double rr_new = dot(r, r);
      double beta = rr_new / rr;
      rr = rr_new;
      for (int i = 0; i < ROWS; i++)
         p[i] = r[i] + beta * p[i];
   }
   printf("%d\n", x[7] != 0);
   return 0;
}
