/* Only the middle loop runs with instrumentation on (run with
   --instr-atstart=no). */
#include <stdlib.h>
#include "cats.h"

int main(void)
{
   double *a = malloc(100 * sizeof(double));
   for (int i = 0; i < 100; i++)
      a[i] = i;                             /* line 10: not recorded */
   CATS_START_INSTRUMENTATION;
   for (int i = 0; i < 100; i++)
      a[i] *= 2;                            /* line 13: recorded */
   CATS_STOP_INSTRUMENTATION;
   for (int i = 0; i < 100; i++)
      a[i] += 1;                            /* line 16: not recorded */
   double r = a[3];
   free(a);
   return r < 0;
}
/* SPDX-License-Identifier: GPL-2.0-or-later */
