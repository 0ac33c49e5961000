/* Writes an array, then replaces itself with /bin/true: the trace of what
   ran before the exec must still be written. */
#include <stdlib.h>
#include <unistd.h>

int main(void)
{
   double *a = malloc(50 * sizeof(double));
   for (int i = 0; i < 50; i++)
      a[i] = i;                             /* line 10 */
   execl("/bin/true", "true", (char *)NULL);
   return 1;
}
/* SPDX-License-Identifier: GPL-2.0-or-later */
