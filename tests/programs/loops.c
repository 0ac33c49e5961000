/* Three source loops, one nested, for -O0 against -O2. */
#include <stdlib.h>

#define N 1000

double A[N];
double B[N];

int main(int argc, char **argv)
{
   (void)argv;
   double *c = malloc(N * sizeof(double));
   for (int i = 0; i < N; i++)                /* loop 1: line 13 */
      A[i] = i * 0.5 + argc;
   for (int t = 0; t < 5; t++)                /* loop 2: line 15 */
      for (int i = 0; i < N; i++)             /* loop 3: line 16 */
         B[i] = A[i] * t + B[i];
   for (int i = 0; i < N; i++)
      c[i] = A[i] + B[i];                     /* loop 4: line 18 */
   double s = c[N - 1];
   free(c);
   return s < 0;
}
/* SPDX-License-Identifier: GPL-2.0-or-later */
