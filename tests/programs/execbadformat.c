/* Execs a file that looks runnable (a regular file with an execute bit)
   but is not a program, so execve fails after the tool wrote the trace;
   the guest then goes on, traced no further, and must finish normally. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

int main(void)
{
   double *a = malloc(50 * sizeof(double));
   for (int i = 0; i < 50; i++)
      a[i] = i;                             /* line 14 */
   char path[] = "/tmp/cats-test-notaprogram-XXXXXX";
   int fd = mkstemp(path);
   if (fd < 0 || write(fd, "\x01\x02\x03\x04", 4) != 4 || fchmod(fd, 0700) != 0)
      return 2;
   close(fd);
   execl(path, "x", (char *)NULL);
   unlink(path);
   double s = 0;
   for (int i = 0; i < 50; i++)
      s += a[i] * 2;                        /* line 24 */
   printf("%g\n", s);
   free(a);
   return 0;
}
/* SPDX-License-Identifier: GPL-2.0-or-later */
