/* Writes an array, then dies of SIGSEGV: the trace must still be there. */
#include <stdlib.h>

int main(void)
{
   double *a = malloc(100 * sizeof(double));
   for (int i = 0; i < 100; i++)
      a[i] = i;                               /* line 8 */
   volatile int *bad = (int *)16;
   *bad = 1;
   return (int)a[5];
}
/* SPDX-License-Identifier: GPL-2.0-or-later */
