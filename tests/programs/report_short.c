/* A short usage lifetime: t is allocated first and freed last but only
   used by the 64-iteration loop at the start; work is used from right
   after that loop to just before its release, most of its life. */
#include <stdlib.h>

#define T 64
#define W 1000
#define REPS 20

int main(void)
{
   double *t = malloc(T * sizeof(double));    /* line 12 */
   double *work = malloc(W * sizeof(double)); /* line 13 */
   for (int i = 0; i < T; i++)
      t[i] = i;
   double s = t[T - 1];
   for (int i = 0; i < W; i++)
      work[i] = s;
   for (int r = 0; r < REPS; r++)
      for (int i = 0; i < W; i++)
         work[i] += i;
   s += work[W - 1];
   free(work);
   free(t);
   return s < 0;
}
/* SPDX-License-Identifier: GPL-2.0-or-later */
