/* Computes new values until the file argv[1] exists (the test kills the
 * helper, then creates it), then as many more, so that the tool streams
 * value flow to a helper that is gone; prints the sum. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
   enum { N = 4096 };
   double *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b);
   long rounds = 0;
   for (int i = 0; i < N; i++)
      a[i] = i, b[i] = 0;
   while (access(argv[1], F_OK) != 0 && rounds < 200000) {
      for (int i = 0; i < N; i++)
         b[i] = a[i] * 0.5 + b[(i + 7) % N] + rounds;
      rounds++;
   }
   for (long r = 0; r < 200; r++)
      for (int i = 0; i < N; i++)
         a[i] = b[i] + a[(i * 13) % N] * 0.25 + r;
   printf("done %d\n", argc);
   free(a);
   free(b);
   return 0;
}
/* SPDX-License-Identifier: GPL-2.0-or-later */
