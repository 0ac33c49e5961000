/* STREAM triad: a[i] = b[i] + s*c[i], repeated. */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
   int n = 200000, reps = argc > 1 ? atoi(argv[1]) : 1500;
   double *a = malloc(n * sizeof(double)), *b = malloc(n * sizeof(double)),
          *c = malloc(n * sizeof(double));
   for (int i = 0; i < n; i++) { b[i] = i; c[i] = 2 * i; }
   for (int r = 0; r < reps; r++)
      for (int i = 0; i < n; i++)
         a[i] = b[i] + 3.0 * c[i];
   printf("%g\n", a[n / 2]);
   free(a); free(b); free(c);
   return 0;
}
/* SPDX-License-Identifier: GPL-2.0-or-later */
