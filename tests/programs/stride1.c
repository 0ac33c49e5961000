/* a[i] = i over a million doubles: one write record with stride 8. */
#include <stdlib.h>

#define N 1000000

int main(void)
{
   double *a = malloc(N * sizeof(double));
   for (int i = 0; i < N; i++)
      a[i] = i;                               /* line 10 */
   double s = a[N / 2];
   free(a);
   return s < 0;
}
/* SPDX-License-Identifier: GPL-2.0-or-later */
