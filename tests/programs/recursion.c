/* Recursion: a deep direct recursion and a mutual one. */
#include <stdlib.h>

static int depth_sum(int *buf, int n)
{
   if (n == 0)
      return 0;
   buf[n % 16] += n;
   return buf[n % 16] + depth_sum(buf, n - 1);
}

static int odd(int n);
static int even(int n) { return n == 0 ? 1 : odd(n - 1); }
static int odd(int n) { return n == 0 ? 0 : even(n - 1); }

int main(void)
{
   int *buf = calloc(16, sizeof(int));
   int s = depth_sum(buf, 5000);
   s += even(100);
   free(buf);
   return s == 42;
}
/* SPDX-License-Identifier: GPL-2.0-or-later */
