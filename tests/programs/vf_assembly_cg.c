/* A finite-element code's two phases: an assembly loop over elements
   (each element's stiffness from 256 quadrature points, added into the
   rows of its two nodes) that makes most of the run's values, then CG
   on the assembled 1-D operator, ITERS iterations of one matrix-vector
   product and two dot products. An MPI code communicates in every CG
   iteration; each element's values are made in one iteration of the
   assembly loop, so the time loop is the CG loop. */
#include <stdio.h>

#define N 2000                 /* nodes; N - 1 elements */
#define QP 256                 /* quadrature points per element */
#define ITERS 10

static double xs[N];            /* node coordinates */
static double qx[QP], qw[QP];   /* quadrature points and weights */
static double diag[N], off[N];  /* off[i]: entry (i, i + 1) = (i + 1, i) */
static double b[N], x[N], r[N], p[N], ap[N];

__attribute__((noipa)) static void assemble(void)
{
   for (int e = 0; e < N - 1; e++) {                 /* assembly loop */
      double h = xs[e + 1] - xs[e], k = 0;
      for (int q = 0; q < QP; q++)
         k += qw[q] * (1.0 + 0.1 * (xs[e] + qx[q] * h)) / h;
      diag[e] += k;
      diag[e + 1] += k;
      off[e] -= k;
   }
   for (int i = 0; i < N; i++)
      diag[i] += 1.0;                                /* keep it definite */
}

__attribute__((noipa)) static double dot(const double *u, const double *v)
{
   double s = 0;
   for (int i = 0; i < N; i++)
      s += u[i] * v[i];
   return s;
}

__attribute__((noipa)) static void matvec(const double *u, double *y)
{
   for (int i = 0; i < N; i++) {
      double s = diag[i] * u[i];
      if (i > 0)
         s += off[i - 1] * u[i - 1];
      if (i < N - 1)
         s += off[i] * u[i + 1];
      y[i] = s;
   }
}

int main(void)
{
   for (int i = 0; i < N; i++)
      xs[i] = (double)i / N;
   for (int q = 0; q < QP; q++) {
      qx[q] = (q + 0.5) / QP;
      qw[q] = 1.0 / QP;
   }
   assemble();
   for (int i = 0; i < N; i++) {
      b[i] = 1.0;
      r[i] = p[i] = b[i];
   }
   double rr = dot(r, r);
   for (int it = 0; it < ITERS; it++) {              /* CG loop */
      matvec(p, ap);
      double alpha = rr / dot(p, ap);
      for (int i = 0; i < N; i++) {
         x[i] += alpha * p[i];
         r[i] -= alpha * ap[i];
      }
      double rn = dot(r, r);
      for (int i = 0; i < N; i++)
         p[i] = r[i] + (rn / rr) * p[i];
      rr = rn;
   }
   printf("%.6f\n", x[N / 2]);
   return 0;
}
