/* Two threads update the halves of an array that lives on main's stack,
   described by jobs on main's stack too (as OpenMP shares a parallel
   region's variables with its workers). */
#include <pthread.h>
#include <stdio.h>

#define N 1000
struct job { double *grid; long lo, hi; };

static void *worker(void *arg)
{
   struct job *j = arg;
   for (long i = j->lo; i < j->hi; i++)
      j->grid[i] = 2 * j->grid[i] + 1;      /* line 14 */
   return NULL;
}

int main(void)
{
   double grid[N];
   struct job jobs[2] = { { grid, 0, N / 2 }, { grid, N / 2, N } };
   pthread_t th[2];
   for (int i = 0; i < N; i++)
      grid[i] = i * 0.5;
   for (int t = 0; t < 2; t++)
      pthread_create(&th[t], NULL, worker, &jobs[t]);
   for (int t = 0; t < 2; t++)
      pthread_join(th[t], NULL);
   printf("%g\n", grid[N - 1]);
   return 0;
}
/* SPDX-License-Identifier: GPL-2.0-or-later */
