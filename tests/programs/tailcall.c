/* A tail call at -O2: leaf() is reached by a jump from middle(), so its
   frame replaces middle's under main. */
#include <stdlib.h>

double *data;

__attribute__((noinline)) static double leaf(int i)
{
   data[i] += 1;                            /* line 9 */
   return data[i];
}

__attribute__((noinline)) static double middle(int i)
{
   data[i + 1] = 2;
   return leaf(i);                          /* a tail call at -O2 */
}

int main(void)
{
   data = calloc(16, sizeof(double));
   double s = 0;
   for (int i = 0; i < 8; i++)
      s += middle(i);
   free(data);
   return s < 0;
}
/* SPDX-License-Identifier: GPL-2.0-or-later */
