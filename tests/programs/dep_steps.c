/* Dependencies from the version read (tests/test_deps.py): which loop
   stored the values each loop reads.

   two_loops: a is initialised by its own loop, then every step L1 makes
   b from a and L2 makes a from b. L1 reads the initialisation's a in the
   first step only and L2's a in the others; L2 reads L1's b in every
   step.

   halo: a radius-2 stencil over a line of N cells with H = 2 periodic
   ghost cells on each side, u and v swapped each step. The halo loop
   copies interior cells into the ghosts, the sweep reads ghosts and
   interior and writes v, which is the next step's u: the sweep depends
   on itself across steps and on the halo copy, the halo copy on the
   sweep (or, in the first step, on the initialisation). */
#include <stdio.h>

#define N 1000
#define S 5
#define H 2

double a[N], b[N];
double u0[N + 2 * H], u1[N + 2 * H];

__attribute__((noipa)) static void two_loops(void)
{
   for (int i = 0; i < N; i++)             /* init */
      a[i] = i;
   for (int s = 0; s < S; s++) {
      for (int i = 0; i < N; i++)          /* L1 */
         b[i] = 2 * a[i];
      for (int i = 0; i < N; i++)          /* L2 */
         a[i] = b[i] + 1;
   }
}

__attribute__((noipa)) static void halo(void)
{
   double *u = u0, *v = u1;
   for (int i = H; i < N + H; i++)         /* stencil init */
      u[i] = i;
   for (int s = 0; s < S; s++) {
      for (int h = 0; h < H; h++) {        /* halo copy */
         u[h] = u[N + h];
         u[N + H + h] = u[H + h];
      }
      for (int i = H; i < N + H; i++)      /* sweep */
         v[i] = (u[i - 2] + u[i - 1] + u[i] + u[i + 1] + u[i + 2]) / 5;
      double *t = u;
      u = v;
      v = t;
   }
}

int main(void)
{
   two_loops();
   halo();
   printf("%g %g\n", a[N / 2], u0[N / 2] + u1[N / 2]);
   return 0;
}
