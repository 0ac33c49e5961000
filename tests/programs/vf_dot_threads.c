/* Two threads each sum a long dot product in a register while the other
   runs: the scheduler switches threads in the middle of the loops, whose
   accumulators' unions are logged (--vf-loop-log) and made before each
   switch. Each c[t] is the end of a chain of its own. */
#include <pthread.h>
#define N 200000
double a[2][N], b[2][N], c[2];

static void* dot(void* arg)
{
   int t = *(int*)arg;
   double s = 0;
   for (int k = 0; k < N; k++)
      s += a[t][k] * b[t][k];
   c[t] = s;
   return NULL;
}

__attribute__((noipa)) static void init(void)
{
   for (int t = 0; t < 2; t++)
      for (int k = 0; k < N; k++) {
         a[t][k] = k % 3;
         b[t][k] = 1;
      }
}

int main(void)
{
   init();
   pthread_t th[2];
   int id[2] = { 0, 1 };
   for (int t = 0; t < 2; t++)
      pthread_create(&th[t], NULL, dot, &id[t]);
   for (int t = 0; t < 2; t++)
      pthread_join(th[t], NULL);
   return c[0] == c[1] ? 0 : 1;
}
/* SPDX-License-Identifier: GPL-2.0-or-later */
