/* Four threads, each writing its own slice of a shared array. */
#include <pthread.h>
#include <stdlib.h>

#define N 4000
static double *shared;

static void *worker(void *arg)
{
   long t = (long)arg;
   for (int i = 0; i < N / 4; i++)
      shared[t * (N / 4) + i] = t;           /* line 12 */
   return NULL;
}

int main(void)
{
   pthread_t th[4];
   shared = malloc(N * sizeof(double));
   for (long t = 0; t < 4; t++)
      pthread_create(&th[t], NULL, worker, (void *)t);
   for (int t = 0; t < 4; t++)
      pthread_join(th[t], NULL);
   free(shared);
   return 0;
}
/* SPDX-License-Identifier: GPL-2.0-or-later */
