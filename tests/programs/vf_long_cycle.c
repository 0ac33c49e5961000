/* s[j] += x[k] * (j + 1) for k = 0..299, repeated argv[1] times: each
   s[j] gets 300 versions per repetition with different sources, more
   than a ring of records holds (256), so every version is a record. */
#include <stdlib.h>

#define K 300
double x[K];
volatile double s[2];   /* in memory at every update, also at -O2 */

__attribute__((noipa)) static void init(void)
{
   for (int k = 0; k < K; k++)
      x[k] = k % 7 + 1;
}

__attribute__((noipa)) static void accumulate(void)
{
   for (int k = 0; k < K; k++)
      for (int j = 0; j < 2; j++)
         s[j] += x[k] * (j + 1);
}

int main(int argc, char **argv)
{
   int reps = argc > 1 ? atoi(argv[1]) : 1;
   init();
   for (int r = 0; r < reps; r++)
      accumulate();
   return s[1] > 0 ? 0 : 1;
}
/* SPDX-License-Identifier: GPL-2.0-or-later */
