/* realloc growth: each block comes from the previous one. */
#include <stdlib.h>

int main(void)
{
   size_t n = 16;
   double *a = malloc(n * sizeof(double));      /* line 7 */
   for (int round = 0; round < 4; round++) {
      for (size_t i = 0; i < n; i++)
         a[i] = (double)i;
      n *= 2;
      a = realloc(a, n * sizeof(double));       /* line 12 */
   }
   free(a);
   return 0;
}
/* SPDX-License-Identifier: GPL-2.0-or-later */
