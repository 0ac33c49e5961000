/* SPDX-License-Identifier: GPL-2.0-or-later */
/* T steps of an explicit update whose time step is the minimum over
   all cells of a per-cell limit, taken chunk by chunk (a minimum per
   chunk, then the minimum of the chunks'), as codes that process
   their mesh in chunks take it. An MPI code makes one MPI_Allreduce
   (MIN) of one double per step. */
#define N 4096
#define CHUNK 64
#define T 10
static double u[N], c[N];

__attribute__((noipa)) static double step_limit(void)
{
   double dtmin = 1e30;
   for (int k = 0; k < N; k += CHUNK) {
      double local = 1e30;
      for (int i = k; i < k + CHUNK; i++) {
         double dt = 0.5 / (c[i] + u[i] * u[i]);
         if (dt < local)
            local = dt;
      }
      if (local < dtmin)
         dtmin = local;
   }
   return dtmin;
}

int main(void)
{
   for (int i = 0; i < N; i++) {
      u[i] = 1.0 + (double)(i % 7) / N;
      c[i] = 2.0 + (double)(i % 5) / N;
   }
   for (int t = 0; t < T; t++) {
      double dt = step_limit();
      for (int i = 0; i < N; i++)
         u[i] = u[i] - dt * u[i] * 0.01;
   }
   return u[0] > 0 ? 0 : 1;
}
