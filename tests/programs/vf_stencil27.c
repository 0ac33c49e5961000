/* SPDX-License-Identifier: GPL-2.0-or-later */
/* T Jacobi steps of a 27-point stencil on a 16^3 interior with a fixed
   boundary (18^3 points). An MPI code on a 2x2x2 process grid gives each
   rank an 8^3 block and sends, per step, each of its 3 face neighbours
   8 x 8 values, each of its 3 edge neighbours 8 and its corner
   neighbour 1: 217 doubles a rank, 8 x 217 x 8 = 13,888 bytes among 56
   pairs of ranks. */
#define N 18
#define T 4
static double u[N][N][N], v[N][N][N];

__attribute__((noipa)) static void init(void)
{
   for (int i = 0; i < N; i++)
      for (int j = 0; j < N; j++)
         for (int k = 0; k < N; k++)
            u[i][j][k] = v[i][j][k] = (i * 7 + j * 3 + k) % 11;
}

__attribute__((noipa)) static void sweep(double (*p)[N][N], double (*q)[N][N])
{
   for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < N - 1; j++)
         for (int k = 1; k < N - 1; k++) {
            double s = 0;
            for (int di = -1; di <= 1; di++)
               for (int dj = -1; dj <= 1; dj++)
                  for (int dk = -1; dk <= 1; dk++)
                     s += p[i + di][j + dj][k + dk];
            q[i][j][k] = s / 27;
         }
}

int main(void)
{
   init();
   for (int t = 0; t < T; t++) {
      if (t % 2 == 0)
         sweep(u, v);
      else
         sweep(v, u);
   }
   return u[5][5][5] > -1 ? 0 : 1;
}
