/* One access site that reads the same offset several times outside any
   loop, then others: its record's folding state is made only when the
   offset first moves, and must count the accesses before. */
#include <stdio.h>

static volatile double g[4];

__attribute__((noinline)) static double get(int i)
{
   return g[i];   /* line 10 */
}

int main(void)
{
   double s = get(0);
   s += get(0);
   s += get(0);
   s += get(2);
   s += get(2);
   s += get(1);
   printf("%g\n", s);
   return 0;
}
/* SPDX-License-Identifier: GPL-2.0-or-later */
