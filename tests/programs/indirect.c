/* An indirect gather x[idx[i]]: idx is read stride-1, x irregularly. */
#include <stdlib.h>

#define N 1000

int main(void)
{
   double *x = malloc(N * sizeof(double));
   int *idx = malloc(N * sizeof(int));
   unsigned r = 12345;
   for (int i = 0; i < N; i++) {
      x[i] = i;
      r = r * 1103515245u + 12345u;
      idx[i] = (int)((r >> 8) % N);
   }
   double s = 0;
   for (int i = 0; i < N; i++)
      s += x[idx[i]];                         /* line 18 */
   free(idx);
   free(x);
   return s < 0;
}
/* SPDX-License-Identifier: GPL-2.0-or-later */
