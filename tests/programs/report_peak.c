/* Peak footprint: a (1 MiB) and b (512 KiB) are live together; b is
   freed before c (256 KiB) is allocated, so the peak is b's allocation
   and holds a, b, the four p blocks (one record, all live) and one of
   the q blocks (a record whose instances straddle the peak). */
#include <stdlib.h>

int main(void)
{
   char *p[4], *b = NULL;
   char *a = malloc(1 << 20);                 /* line 10 */
   a[0] = 1;
   for (int k = 0; k < 4; k++)
      p[k] = malloc(1000);                    /* line 13 */
   for (int k = 0; k < 3; k++) {
      char *q = malloc(100);                  /* line 15 */
      q[0] = (char)k;
      if (k == 1)
         b = malloc(1 << 19);                 /* line 18: the peak */
      free(q);
   }
   b[0] = 2;
   for (int k = 0; k < 4; k++)
      free(p[k]);
   free(b);
   char *c = malloc(1 << 18);                 /* line 25 */
   c[0] = 3;
   int r = a[0] + c[0] == 4 ? 0 : 1;
   free(c);
   free(a);
   return r;
}
/* SPDX-License-Identifier: GPL-2.0-or-later */
