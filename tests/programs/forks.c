/* Forks a child that computes and exits without exec; the parent waits
 * for it: both write a trace. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void)
{
   double *a = malloc(100 * sizeof(double));
   for (int i = 0; i < 100; i++)
      a[i] = i * 0.5;
   pid_t pid = fork();
   if (pid == 0) {
      for (int i = 1; i < 100; i++)
         a[i] += a[i - 1];
      printf("child %.1f\n", a[99]);
      return 0;
   }
   int st;
   waitpid(pid, &st, 0);
   printf("parent %.1f\n", a[99]);
   free(a);
   return 0;
}
/* SPDX-License-Identifier: GPL-2.0-or-later */
