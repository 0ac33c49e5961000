/* vf_redzone.c: sets kept in a leaf function's red zone across the
 * collection of the tool's set table. leaf() calls nothing, so at -O0
 * its locals live in the 128 bytes below its stack pointer; w[] holds
 * values computed from a[0..7] while the loop makes enough new sets
 * (stored in t[]) to have the table collected several times. out is
 * computed from a[0..7], and from nothing else. */
#include <stdio.h>

#define M 50000

double a[M + 3], out;

__attribute__((noinline)) static double leaf(void)
{
   volatile double w[4], t[8];
   w[0] = a[0] * a[1];
   w[1] = a[2] * a[3];
   w[2] = a[4] * a[5];
   w[3] = a[6] * a[7];
   for (int i = 8; i < M; i++)
      t[i % 8] = a[i] * a[i + 1] + a[i + 2];
   return w[0] + w[1] + w[2] + w[3];
}

int main(void)
{
   for (int i = 0; i < M + 3; i++)
      a[i] = i % 5;
   out = leaf();
   printf("%g\n", out);
   return 0;
}
/* SPDX-License-Identifier: GPL-2.0-or-later */
