/* A data-dependent branch inside a loop selects between two code
   regions (the divergence pattern): the guarded accesses sit under a
   conditional scope inside the loop. */
#include <stdlib.h>

#define N 1000

int main(void)
{
   int *flag = malloc(N * sizeof(int));
   double *pos = calloc(N, sizeof(double));
   double *neg = calloc(N, sizeof(double));
   unsigned r = 7;
   for (int i = 0; i < N; i++) {
      r = r * 1103515245u + 12345u;
      flag[i] = (r >> 16) & 1;
   }
   int npos = 0;
   for (int i = 0; i < N; i++) {
      if (flag[i]) {
         pos[i] = i;                        /* line 21 */
         npos++;
      } else {
         neg[i] = -i;                       /* line 24 */
      }
   }
   free(flag);
   free(pos);
   free(neg);
   return npos == 12345;
}
/* SPDX-License-Identifier: GPL-2.0-or-later */
