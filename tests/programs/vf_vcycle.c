/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Three grid levels in one array, as NPB MG keeps them: a fine N x N
   level (a, smoothed into b and back each step), then levels 1 and 2 of
   N/2 and N/4 points a side. One routine restricts level k-1 to level k
   and one adds level k back into level k-1, each called in a loop over
   the levels, so one access record walks levels of different sizes in
   turn and shows no shape of either: the coarse words are placed by the
   values they are made from and read by (owner computes), which puts
   level k's row I with level k-1's row 2I.

   An MPI code with each level's rows in P blocks sends, per step, only
   the fine smoothing's halo: 4 x (N-2) doubles with P = 2 (restriction
   and prolongation stay on their rank). Cut in linear blocks instead,
   the coarse levels together put some of level 1's rows on the wrong
   rank. */
#define N 64
#define T 4
static double mem[2 * N * N + (N / 2) * (N / 2) + (N / 4) * (N / 4)];
#define A(i, j) mem[(i) * N + (j)]
#define B(i, j) mem[N * N + (i) * N + (j)]

/* Level k: 0 is a, 1 and 2 the coarse levels after b. */
static double* level(int k)
{
   if (k == 0)
      return mem;
   return k == 1 ? mem + 2 * N * N : mem + 2 * N * N + (N / 2) * (N / 2);
}

__attribute__((noipa)) static void init(void)
{
   for (int i = 0; i < N; i++)
      for (int j = 0; j < N; j++)
         A(i, j) = (i * 7 + j * 3) % 11;
   for (int i = 0; i < N; i++)
      for (int j = 0; j < N; j++)
         B(i, j) = 0;
}

__attribute__((noipa)) static void smooth(void)
{
   for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < N - 1; j++)
         B(i, j) = 0.25 * (A(i - 1, j) + A(i + 1, j) + A(i, j - 1) + A(i, j + 1));
   for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < N - 1; j++)
         A(i, j) = 0.25 * (B(i - 1, j) + B(i + 1, j) + B(i, j - 1) + B(i, j + 1));
}

/* Level k (n points a side) from level k-1 (2n). */
__attribute__((noipa)) static void restrict_level(int k, int n)
{
   double *c = level(k), *f = level(k - 1);
   for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++)
         c[i * n + j] = 0.5 * f[(2 * i) * (2 * n) + 2 * j];
}

__attribute__((noipa)) static void prolong_level(int k, int n)
{
   double *c = level(k), *f = level(k - 1);
   for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++)
         f[(2 * i) * (2 * n) + 2 * j] += c[i * n + j];
}

int main(int argc, char **argv)
{
   (void)argv;
   int levels = 2 + (argc > 5);   /* 2, unknown to the compiler */
   init();
   for (int t = 0; t < T; t++) {
      smooth();
      for (int k = 1; k <= levels; k++)
         restrict_level(k, N >> k);
      for (int k = levels; k >= 1; k--)
         prolong_level(k, N >> k);
   }
   return A(5, 5) > -1 ? 0 : 1;
}
