/* 2-D heat diffusion on a 34x34 grid (32x32 interior, fixed boundary),
   a 5-point stencil with the centre term, T steps swapping two grids.
   Split in two, each half sends one 32-value row per step: 2 x 32 x 8 =
   512 bytes per step. */
#define N 34
#define T 10
double a[N * N], b[N * N];

__attribute__((noipa)) static void init(void)
{
   for (int i = 0; i < N * N; i++)
      a[i] = (i % 11) * 0.25;
   for (int i = 0; i < N * N; i++)
      b[i] = a[i];
}

__attribute__((noipa)) static void step(const double *u, double *v)
{
   for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < N - 1; j++)
         v[i * N + j] = u[i * N + j] + 0.1 * (u[(i - 1) * N + j] + u[(i + 1) * N + j]
                                              + u[i * N + j - 1] + u[i * N + j + 1]
                                              - 4 * u[i * N + j]);
}

int main(void)
{
   init();
   double *u = a, *v = b;
   for (int t = 0; t < T; t++) {
      step(u, v);
      double *w = u;
      u = v;
      v = w;
   }
   return u[N + 1] > -1 ? 0 : 1;
}
/* SPDX-License-Identifier: GPL-2.0-or-later */
