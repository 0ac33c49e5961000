/* A signal handler that touches memory: its accesses sit under a signal
   frame, and main's loop goes on afterwards. */
#include <signal.h>
#include <stdlib.h>

static double *hits;

static void on_usr1(int sig)
{
   for (int i = 0; i < 4; i++)
      hits[i] += sig;                       /* line 11 */
}

int main(void)
{
   hits = calloc(8, sizeof(double));
   signal(SIGUSR1, on_usr1);
   for (int k = 0; k < 3; k++) {
      raise(SIGUSR1);
      hits[4 + k] = k;                      /* line 20 */
   }
   double r = hits[0];
   free(hits);
   return r < 0;
}
/* SPDX-License-Identifier: GPL-2.0-or-later */
