/* An always-inline helper: at -O2 its accesses carry an inlined frame
   whose call site is in main. */
#include <stdlib.h>

static inline __attribute__((always_inline)) void scale(double *v, int n, double f)
{
   for (int i = 0; i < n; i++)
      v[i] *= f;                            /* line 8 */
}

int main(int argc, char **argv)
{
   (void)argv;
   double *v = malloc(256 * sizeof(double));
   for (int i = 0; i < 256; i++)
      v[i] = i;
   scale(v, 256, argc + 1.0);               /* line 17 */
   double r = v[7];
   free(v);
   return r < 0;
}
/* SPDX-License-Identifier: GPL-2.0-or-later */
