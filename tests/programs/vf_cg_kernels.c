/* SPDX-License-Identifier: GPL-2.0-or-later */
/* T time steps, each K iterations of conjugate gradients on a 1-D
   Laplace system, written as a driver loop calling kernels, the
   scalars passed by reference as a Fortran code passes them: each dot
   product is made in a kernel, alpha and beta are stored in the
   driver's iteration body and read by the update kernels. An MPI code
   makes, per step, one MPI_Allreduce for the first r.r and two per
   iteration (p.Ap and the new r.r): 1 + 2K calls of one double. */
#define N 2048
#define T 5
#define K 8
static double x[N], r[N], p[N], ap[N], b[N];

__attribute__((noipa)) static void init(void)
{
   for (int i = 0; i < N; i++) {
      x[i] = 0;
      r[i] = b[i];
      p[i] = b[i];
   }
}

__attribute__((noipa)) static void dot(const double *u, const double *v, double *out)
{
   double s = 0;
   for (int i = 0; i < N; i++)
      s += u[i] * v[i];
   *out = s;
}

__attribute__((noipa)) static void apply(void)
{
   for (int i = 0; i < N; i++)
      ap[i] = 2 * p[i] - (i > 0 ? p[i - 1] : 0) - (i < N - 1 ? p[i + 1] : 0);
}

__attribute__((noipa)) static void update_xr(const double *alpha)
{
   for (int i = 0; i < N; i++) {
      x[i] += *alpha * p[i];
      r[i] -= *alpha * ap[i];
   }
}

__attribute__((noipa)) static void update_p(const double *beta)
{
   for (int i = 0; i < N; i++)
      p[i] = r[i] + *beta * p[i];
}

int main(void)
{
   for (int i = 0; i < N; i++)
      b[i] = 1.0 + (double)(i % 5) / N;
   for (int t = 0; t < T; t++) {
      double rr, pap, rr_new, alpha, beta;
      init();
      dot(r, r, &rr);
      for (int k = 0; k < K; k++) {
         apply();
         dot(p, ap, &pap);
         alpha = rr / pap;
         update_xr(&alpha);
         dot(r, r, &rr_new);
         beta = rr_new / rr;
         rr = rr_new;
         update_p(&beta);
      }
      for (int i = 0; i < N; i++)
         b[i] = b[i] + 0.001 * x[i];
   }
   return x[0] > 0 ? 0 : 1;
}
