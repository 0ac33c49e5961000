/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A 2-D field that each step mixes with a permutation of its own rows,
   read through an index array: v[i][j] = (u[perm[i]][j] + u[i][j]) / 2.
   Its rows are 2-D and walked by loops, but half of the reads go
   through loaded indices: no process grid is the MPI code's, and the
   projection keeps METIS's parts of the values. */
#define N 64
#define T 5
static double u[N][N], v[N][N];
static int perm[N];

int main(void)
{
   for (int i = 0; i < N; i++) {
      perm[i] = (i * 37 + 11) % N;
      for (int j = 0; j < N; j++)
         u[i][j] = i + 0.5 * j;
   }
   for (int t = 0; t < T; t++) {
      for (int i = 0; i < N; i++)
         for (int j = 0; j < N; j++)
            v[i][j] = 0.5 * (u[perm[i]][j] + u[i][j]);
      for (int i = 0; i < N; i++)
         for (int j = 0; j < N; j++)
            u[i][j] = v[i][j] + 1.0;
   }
   return u[1][1] > 0 ? 0 : 1;
}
