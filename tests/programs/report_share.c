/* Buffer sharing: a and b (4096 bytes each) are allocated together but
   used one after the other, so they could share one buffer; c, of the
   same size, is used before a and after b; w has another size; d and e
   are never live at the same time (the allocator already reuses). */
#include <stdlib.h>

#define N 512

__attribute__((noipa)) static void fill(double *p, int n, double v)
{
   for (int i = 0; i < n; i++)
      p[i] = v + i;
}

__attribute__((noipa)) static double total(const double *p, int n)
{
   double s = 0;
   for (int i = 0; i < n; i++)
      s += p[i];
   return s;
}

int main(void)
{
   double *a = malloc(N * sizeof(double));    /* line 25 */
   double *b = malloc(N * sizeof(double));    /* line 26 */
   double *c = malloc(N * sizeof(double));    /* line 27 */
   double *w = malloc(2 * N * sizeof(double));   /* line 28 */
   fill(c, N, 0);
   fill(w, 2 * N, 0);
   fill(a, N, 1);                             /* phase 1: a only */
   double s = total(a, N);
   fill(b, N, 2);                             /* phase 2: b only */
   s += total(b, N);
   s += total(c, N) + total(w, 2 * N);
   free(a);
   free(b);
   free(c);
   free(w);
   double *d = malloc(N * sizeof(double));    /* line 40 */
   fill(d, N, 3);
   s += total(d, N);
   free(d);
   double *e = malloc(N * sizeof(double));    /* line 44 */
   fill(e, N, 4);
   s += total(e, N);
   free(e);
   return s < 0;
}
/* SPDX-License-Identifier: GPL-2.0-or-later */
