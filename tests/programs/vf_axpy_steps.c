/* c[i][j] += a[i][k] * b[k][j] in i-k-j order, repeated argv[1] times:
   each element of c gets N versions per repetition, each with other
   sources than the one before, and the same N in every repetition. */
#include <stdlib.h>

#define N 8
double a[N][N], b[N][N], c[N][N];

__attribute__((noipa)) static void init(void)
{
   for (int i = 0; i < N; i++)
      for (int k = 0; k < N; k++) {
         a[i][k] = i + 2 * k;
         b[i][k] = 3 * i - k;
      }
}

__attribute__((noipa)) static void multiply(void)
{
   for (int i = 0; i < N; i++)
      for (int k = 0; k < N; k++)
         for (int j = 0; j < N; j++)
            c[i][j] += a[i][k] * b[k][j];
}

int main(int argc, char **argv)
{
   int reps = argc > 1 ? atoi(argv[1]) : 1;
   init();
   for (int r = 0; r < reps; r++)
      multiply();
   return c[1][2] != 0 ? 0 : 1;
}
/* SPDX-License-Identifier: GPL-2.0-or-later */
