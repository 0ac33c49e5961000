/* SPDX-License-Identifier: GPL-2.0-or-later */
/* T steps of a transpose, B(j,i) += A(i,j), then A(i,j) += 1, on 64 x 64
   doubles. The MPI code (as the Parallel Research Kernels write it)
   distributes A and B in the same row blocks, so every step moves the
   (P-1)/P of A whose transposed place is another rank's:
   8 x 64 x 64 x (P-1)/P bytes. */
#define N 64
#define T 6
static double a[N][N], b[N][N];

__attribute__((noipa)) static void init(void)
{
   for (int i = 0; i < N; i++)
      for (int j = 0; j < N; j++) {
         a[i][j] = i * N + j;
         b[i][j] = 0;
      }
}

__attribute__((noipa)) static void step(void)
{
   for (int i = 0; i < N; i++)
      for (int j = 0; j < N; j++) {
         b[j][i] += a[i][j];
         a[i][j] += 1.0;
      }
}

int main(void)
{
   init();
   for (int t = 0; t < T; t++)
      step();
   return b[1][2] > 0 ? 0 : 1;
}
