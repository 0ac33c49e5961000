/* SPDX-License-Identifier: GPL-2.0-or-later */
/* T steps of a panel-by-panel matrix product, C = A B, after which A
   becomes C / 64: A changes every step, B is read-only. SUMMA on a
   q x q process grid (P = q^2) holds A, B and C in the same 2-D blocks;
   in each step every rank receives the q - 1 blocks of A of its process
   row that it does not hold, (q - 1) N^2 8 bytes in all, and B's blocks
   once, before the first step (they never change). */
#define N 32
#define NB 8
#define T 4
static double a[N][N], b[N][N], c[N][N];

__attribute__((noipa)) static void init(void)
{
   for (int i = 0; i < N; i++)
      for (int j = 0; j < N; j++) {
         a[i][j] = (i + 2 * j) % 7;
         b[i][j] = (3 * i + j) % 5;
      }
}

__attribute__((noipa)) static void step(void)
{
   for (int i = 0; i < N; i++)
      for (int j = 0; j < N; j++)
         c[i][j] = 0;
   for (int kb = 0; kb < N; kb += NB)
      for (int i = 0; i < N; i++)
         for (int j = 0; j < N; j++) {
            double s = c[i][j];
            for (int k = kb; k < kb + NB; k++)
               s += a[i][k] * b[k][j];
            c[i][j] = s;
         }
   for (int i = 0; i < N; i++)
      for (int j = 0; j < N; j++)
         a[i][j] = c[i][j] / 64;
}

int main(void)
{
   init();
   for (int t = 0; t < T; t++)
      step();
   return a[1][2] >= 0 ? 0 : 1;
}
