/* SPDX-License-Identifier: GPL-2.0-or-later */
/* T steps of a vector scaled by its norm, the sum of squares taken in
   four partial sums, as an unrolled or vectorised loop takes it; the
   partial sums meet once per step. An MPI code makes one MPI_Allreduce
   of one double per step and sends nothing else. */
#define N 4096
#define T 10
static double u[N];

__attribute__((noipa)) static double norm2(void)
{
   double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
   for (int i = 0; i < N; i += 4) {
      s0 += u[i] * u[i];
      s1 += u[i + 1] * u[i + 1];
      s2 += u[i + 2] * u[i + 2];
      s3 += u[i + 3] * u[i + 3];
   }
   return (s0 + s1) + (s2 + s3);
}

int main(void)
{
   for (int i = 0; i < N; i++)
      u[i] = 1.0 + (double)(i % 7) / N;
   for (int t = 0; t < T; t++) {
      double s = norm2();
      for (int i = 0; i < N; i++)
         u[i] = u[i] / s + 0.5;
   }
   return u[0] > 0 ? 0 : 1;
}
