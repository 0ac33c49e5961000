/* A malloc/free pair in a 10-iteration loop: one allocation record with
   count 10 under the loop. */
#include <stdlib.h>

int main(void)
{
   double sum = 0;
   for (int k = 0; k < 10; k++) {
      double *p = malloc(80);                 /* line 9 */
      for (int i = 0; i < 10; i++)
         p[i] = i + k;
      sum += p[3];
      free(p);
   }
   return sum > 1e9;
}
/* SPDX-License-Identifier: GPL-2.0-or-later */
