/* vf_dot_after_many.c: a solver's dot product after other code made many
 * register intermediates. Phase 1 sums, 60,000 times, 128 words picked
 * from 8,192 in an order that never repeats, into one scalar: its chain
 * links never repeat either (over 400,000 of them, far more than the
 * words that hold values), so that site is bounded by the data and goes
 * on in its last link. Phase 2 takes the same dot product of two
 * 4,096-element vectors 10 times: its chain must still get its own links
 * (each made 10 times), not go on in one link. */
#include <stdio.h>

#define N 60000
#define W 128
#define M 8192
#define V 4096
#define REPS 10

static double a[M], s, x[V], y[V], d[REPS];

__attribute__((noinline)) static double dot(const double *p, const double *q)
{
   double r = 0;
   for (int k = 0; k < V; k++)
      r += p[k] * q[k];   /* line 23 */
   return r;
}

int main(void)
{
   for (int i = 0; i < M; i++)
      a[i] = i % 7;
   unsigned h = 1;
   for (int i = 0; i < N; i++) {
      double t = 0;
      for (int j = 0; j < W; j++) {
         h = h * 1103515245u + 12345u;
         t += a[(h >> 8) % M];
      }
      s += t;
   }
   for (int k = 0; k < V; k++) {
      x[k] = k % 3;
      y[k] = k % 5;
   }
   for (int t = 0; t < REPS; t++)
      d[t] = dot(x, y);
   printf("%g %g\n", s, d[REPS - 1]);
   return 0;
}
/* SPDX-License-Identifier: GPL-2.0-or-later */
