/* A rep-prefixed string instruction is a loop of one instruction: each
   repetition is an iteration, and its accesses are stride-1. */
#include <stdlib.h>

int main(void)
{
   unsigned char *buf = malloc(1000);
   void *dst = buf;
   unsigned long n = 1000;
   __asm__ volatile("rep stosb"                  /* line 10 */
                    : "+D"(dst), "+c"(n)
                    : "a"(7)
                    : "memory");
   int r = buf[999];
   free(buf);
   return r != 7;
}
/* SPDX-License-Identifier: GPL-2.0-or-later */
