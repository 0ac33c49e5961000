/* Pair forces on a line of particles (value flow: a value that both
   lanes of a vector instruction read). fx and fy are adjacent, so gcc
   -O2 updates them as one pair of doubles, whose lanes both multiply
   the same 1/r^3; at -O0 they are two scalar updates. */
#include <math.h>
#include <stdio.h>

#define N 128
#define W 2

typedef struct {
   double x, y, fx, fy;
} Particle;

static Particle p[N];

__attribute__((noinline)) static void force(int i)
{
   int lo = i >= W ? i - W : 0, hi = i + W + 1 < N ? i + W + 1 : N;
   for (int j = lo; j < hi; j++) {
      if (j == i)
         continue;
      double dx = p[j].x - p[i].x, dy = p[j].y - p[i].y;
      double r2 = dx * dx + dy * dy + 1e-3;
      double inv = 1.0 / (r2 * sqrt(r2));
      p[i].fx += dx * inv;
      p[i].fy += dy * inv;
   }
}

int main(void)
{
   for (int i = 0; i < N; i++) {
      p[i].x = i % 7;
      p[i].y = i % 5;
   }
   for (int t = 0; t < 10; t++) {
      for (int i = 0; i < N; i++)
         force(i);
      for (int i = 0; i < N; i++) {
         p[i].x += 1e-6 * p[i].fx;
         p[i].y += 1e-6 * p[i].fy;
      }
   }
   printf("%g\n", p[N / 2].x);
   return 0;
}
/* SPDX-License-Identifier: GPL-2.0-or-later */
