/* SPDX-License-Identifier: GPL-2.0-or-later */
/* T time steps, each solving a 1-D Laplace system by K iterations of
   conjugate gradients, the iterations written out in the step loop's
   own body: the dot products are loops of their own, alpha and beta
   are computed in the CG loop's body. An MPI code makes, per step, one
   MPI_Allreduce for the first r.r and two per iteration (p.Ap and the
   new r.r): 1 + 2K calls of one double. */
#define N 2048
#define T 5
#define K 8
static double x[N], r[N], p[N], ap[N], b[N];

int main(void)
{
   for (int i = 0; i < N; i++)
      b[i] = 1.0 + (double)(i % 5) / N;
   for (int t = 0; t < T; t++) {
      for (int i = 0; i < N; i++) {
         x[i] = 0;
         r[i] = b[i];
         p[i] = b[i];
      }
      double rr = 0;
      for (int i = 0; i < N; i++)
         rr += r[i] * r[i];
      for (int k = 0; k < K; k++) {
         for (int i = 0; i < N; i++)
            ap[i] = 2 * p[i] - (i > 0 ? p[i - 1] : 0) - (i < N - 1 ? p[i + 1] : 0);
         double pap = 0;
         for (int i = 0; i < N; i++)
            pap += p[i] * ap[i];
         double alpha = rr / pap;
         for (int i = 0; i < N; i++) {
            x[i] += alpha * p[i];
            r[i] -= alpha * ap[i];
         }
         double rr_new = 0;
         for (int i = 0; i < N; i++)
            rr_new += r[i] * r[i];
         double beta = rr_new / rr;
         rr = rr_new;
         for (int i = 0; i < N; i++)
            p[i] = r[i] + beta * p[i];
      }
      for (int i = 0; i < N; i++)
         b[i] = b[i] + 0.001 * x[i];
   }
   return x[0] > 0 ? 0 : 1;
}
