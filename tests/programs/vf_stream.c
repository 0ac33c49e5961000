/* A streaming kernel: a[i] = b[i] + 3 c[i] over N doubles, REPS times,
   after a set-up loop that writes all three arrays. */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
   int n = argc > 1 ? atoi(argv[1]) : 1000000;
   int reps = argc > 2 ? atoi(argv[2]) : 3;
   double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b),
          *c = malloc(n * sizeof *c);
   for (int i = 0; i < n; i++) {
      a[i] = 0;
      b[i] = i;
      c[i] = 2 * i;
   }
   for (int r = 0; r < reps; r++)
      for (int i = 0; i < n; i++)
         a[i] = b[i] + 3.0 * c[i];
   printf("%g\n", a[n / 2]);
   free(a);
   free(b);
   free(c);
   return 0;
}
/* SPDX-License-Identifier: GPL-2.0-or-later */
