/* Tries to exec what cannot run (a missing file, as execvp and shells do
   along PATH, then a directory), then goes on: the trace must hold the
   whole run, not end at the first try. */
#include <stdlib.h>
#include <unistd.h>

int main(void)
{
   double *a = malloc(50 * sizeof(double));
   for (int i = 0; i < 50; i++)
      a[i] = i;                             /* line 11 */
   execl("/nonexistent/cats-test", "x", (char *)NULL);
   execl("/tmp", "x", (char *)NULL);
   for (int i = 0; i < 30; i++)
      a[i] += 1;                            /* line 15 */
   free(a);
   return 0;
}
/* SPDX-License-Identifier: GPL-2.0-or-later */
