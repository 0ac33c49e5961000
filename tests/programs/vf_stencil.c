/* A 1-D three-point stencil over T time steps, copied back each step:
   v[i] is recomputed T times from the values at i-1, i and i+1. */
#define N 32
#define T 100
double u[N], v[N];

__attribute__((noipa)) static void init(int n)
{
   for (int i = 0; i < n; i++)
      u[i] = i;
}

__attribute__((noipa)) static void steps(int n, int t_end)
{
   for (int t = 0; t < t_end; t++) {
      for (int i = 1; i < n - 1; i++)
         v[i] = (u[i - 1] + u[i] + u[i + 1]) / 3;
      for (int i = 1; i < n - 1; i++)
         u[i] = v[i];
   }
}

int main(void)
{
   init(N);
   steps(N, T);
   return v[5] > 0 ? 0 : 1;
}
/* SPDX-License-Identifier: GPL-2.0-or-later */
