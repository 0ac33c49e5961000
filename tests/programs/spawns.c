/* Runs a shell command with system(): the forked child only execs. */
#include <stdlib.h>

int main(void)
{
   double *a = malloc(10 * sizeof(double));
   for (int i = 0; i < 10; i++)
      a[i] = i;
   int r = system("true");
   free(a);
   return r;
}
/* SPDX-License-Identifier: GPL-2.0-or-later */
