/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A routine called once per row, in a loop, with a row buffer of its own
   on the stack (2 KiB, over --vf-stack-array-min), as a Fortran code's
   routines have: t[j] = a[i-1][j] + a[i+1][j], then b[i][j] = t[j] / 2.
   The buffer lives for one call: b[i][j]'s values come from a's, and t
   holds none. main's own array keep, which lives for the run, holds
   values: keep[j] = 2 b[1][j]. */
#define N 40
#define M 256
double a[N][M], b[N][M];

__attribute__((noipa)) static void init(void)
{
   for (int i = 0; i < N; i++)
      for (int j = 0; j < M; j++)
         a[i][j] = i + j;
}

__attribute__((noipa)) static void row(int i)
{
   double t[M];
   for (int j = 0; j < M; j++)
      t[j] = a[i - 1][j] + a[i + 1][j];
   for (int j = 0; j < M; j++)
      b[i][j] = 0.5 * t[j];
}

__attribute__((noipa)) static double total(const double *v)
{
   double s = 0;
   for (int j = 0; j < M; j++)
      s += v[j];
   return s;
}

int main(void)
{
   double keep[M];
   init();
   for (int i = 1; i < N - 1; i++)
      row(i);
   for (int j = 0; j < M; j++)
      keep[j] = 2 * b[1][j];
   return total(keep) > 0 ? 0 : 1;
}
