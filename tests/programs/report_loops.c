/* Allocations inside loops: 48 bytes in a 4 x 25 nest (100 allocations,
   48 bytes per iteration of the inner loop), 100 bytes on every other
   iteration of a 10-iteration loop (5 allocations, 50 bytes per
   iteration), and one allocation outside any loop. */
#include <stdlib.h>

int main(void)
{
   long sum = 0;
   for (int i = 0; i < 4; i++)
      for (int j = 0; j < 25; j++) {
         char *p = malloc(48);                /* line 12 */
         p[0] = (char)j;
         sum += p[0];
         free(p);
      }
   for (int k = 0; k < 10; k++)
      if (k % 2 == 0) {
         char *q = malloc(100);               /* line 19 */
         q[0] = (char)k;
         sum += q[0];
         free(q);
      }
   char *once = malloc(1000);                 /* line 24 */
   once[0] = 1;
   sum += once[0];
   free(once);
   return sum == 0;
}
/* SPDX-License-Identifier: GPL-2.0-or-later */
