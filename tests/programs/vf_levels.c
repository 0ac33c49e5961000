/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Two grid levels in one array, as a multigrid code keeps them (NPB MG's
   common block): a fine N x N level in a and b, a coarse M x M level in c
   and d, one after the other in mem. Each of T steps smooths the fine
   level twice (b from a, a from b: 5-point averages of the interior),
   restricts it to c, smooths the coarse level twice, and adds c back to
   the fine points it came from.

   An MPI code splits the rows of every level in P blocks (fine rows
   [r N/P, (r+1) N/P) and coarse rows [r M/P, (r+1) M/P) on rank r, so
   restriction and prolongation stay on their rank) and, per sweep,
   sends each neighbour its boundary row's interior values: per step,
   with P = 2, 4 x (N-2) + 4 x (M-2) doubles. On a 2 x 2 grid of blocks
   each rank sends its two neighbours half a row and half a column per
   sweep: 8 x (N-2) + 8 x (M-2) doubles among 8 pairs. */
#define N 64
#define M 32
#define T 4
static double mem[2 * N * N + 2 * M * M];
#define A(i, j) mem[(i) * N + (j)]
#define B(i, j) mem[N * N + (i) * N + (j)]
#define C(i, j) mem[2 * N * N + (i) * M + (j)]
#define D(i, j) mem[2 * N * N + M * M + (i) * M + (j)]

__attribute__((noipa)) static void init(void)
{
   for (int i = 0; i < N; i++)
      for (int j = 0; j < N; j++)
         A(i, j) = (i * 7 + j * 3) % 11;
   for (int i = 0; i < N; i++)
      for (int j = 0; j < N; j++)
         B(i, j) = 0;
   for (int i = 0; i < M; i++)
      for (int j = 0; j < M; j++)
         C(i, j) = 0;
   for (int i = 0; i < M; i++)
      for (int j = 0; j < M; j++)
         D(i, j) = 0;
}

__attribute__((noipa)) static void smooth_fine(void)
{
   for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < N - 1; j++)
         B(i, j) = 0.25 * (A(i - 1, j) + A(i + 1, j) + A(i, j - 1) + A(i, j + 1));
   for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < N - 1; j++)
         A(i, j) = 0.25 * (B(i - 1, j) + B(i + 1, j) + B(i, j - 1) + B(i, j + 1));
}

__attribute__((noipa)) static void smooth_coarse(void)
{
   for (int i = 1; i < M - 1; i++)
      for (int j = 1; j < M - 1; j++)
         D(i, j) = 0.25 * (C(i - 1, j) + C(i + 1, j) + C(i, j - 1) + C(i, j + 1));
   for (int i = 1; i < M - 1; i++)
      for (int j = 1; j < M - 1; j++)
         C(i, j) = 0.25 * (D(i - 1, j) + D(i + 1, j) + D(i, j - 1) + D(i, j + 1));
}

__attribute__((noipa)) static void restrict_fine(void)
{
   for (int i = 0; i < M; i++)
      for (int j = 0; j < M; j++)
         C(i, j) = 0.5 * A(2 * i, 2 * j);
}

__attribute__((noipa)) static void prolong(void)
{
   for (int i = 1; i < M - 1; i++)
      for (int j = 1; j < M - 1; j++)
         A(2 * i, 2 * j) += C(i, j);
}

int main(void)
{
   init();
   for (int t = 0; t < T; t++) {
      smooth_fine();
      restrict_fine();
      smooth_coarse();
      prolong();
   }
   return A(5, 5) > -1 ? 0 : 1;
}
