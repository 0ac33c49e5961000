/* Writes to a pipe whose reading end is closed: the program's own
 * SIGPIPE, which must still end it as it would natively. */
#include <stdio.h>
#include <unistd.h>

int main(void)
{
   int fd[2];
   if (pipe(fd) != 0)
      return 2;
   close(fd[0]);
   double x = 1.5;
   write(fd[1], &x, sizeof x);
   puts("not reached");
   return 0;
}
/* SPDX-License-Identifier: GPL-2.0-or-later */
