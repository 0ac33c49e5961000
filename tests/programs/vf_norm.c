/* T steps of y = alpha x + y followed by x = y / norm(y): alpha is read
   by every element (a broadcast singleton), the sum of squares is
   computed from every element and read (an allreduce), and the norm is
   computed from that sum alone (replicated on every rank). */
#include <math.h>

#define N 400
#define T 10
double x[N], y[N];
double alpha;

__attribute__((noipa)) static void init(int n, double a)
{
   alpha = a;
   for (int i = 0; i < n; i++) {
      x[i] = 1.0 + i % 5;
      y[i] = 0.5 * (i % 3);
   }
}

__attribute__((noipa)) static void steps(int n, int t_end)
{
   for (int t = 0; t < t_end; t++) {
      for (int i = 0; i < n; i++)
         y[i] = alpha * x[i] + y[i];
      double s = 0;
      for (int i = 0; i < n; i++)
         s += y[i] * y[i];
      double norm = sqrt(s);
      for (int i = 0; i < n; i++)
         x[i] = y[i] / norm;
   }
}

int main(int argc, char **argv)
{
   init(N, argc > 5 ? 0.25 : 0.5);
   steps(N, T);
   return x[3] > 0 ? 0 : 1;
}
/* SPDX-License-Identifier: GPL-2.0-or-later */
