/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Code without symbols: the test strips work's symbol and the debug
   info, as a stripped program or a library's static functions have
   none. work (unknown code) calls fill (a known function) 100 times and
   reads buf after each call: 100 x 4096 one-byte writes by fill, and
   100 x 4096 one-byte reads by work that belong to main's context, not
   to fill's, once fill has returned. */
#include <stdio.h>

static char buf[4096];

__attribute__((noinline)) void fill(char* p, int v)
{
   for (int j = 0; j < 4096; j++)
      p[j] = (char)v;
}

__attribute__((noinline)) static long work(char* p)
{
   long s = 0;
   for (int i = 0; i < 100; i++) {
      fill(p, i);
      for (int j = 0; j < 4096; j++)
         s += p[j];
   }
   return s;
}

int main(void)
{
   printf("%ld\n", work(buf));
   return 0;
}
