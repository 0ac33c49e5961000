/* Two threads each compute half of c[i] = a[i] + b[i]; main then sums
   c into s. One graph, with every edge from both halves. */
#include <pthread.h>
#define N 64
double a[N], b[N], c[N], s;

static void* half(void* arg)
{
   int lo = *(int*)arg;
   for (int i = lo; i < lo + N / 2; i++)
      c[i] = a[i] + b[i];
   return NULL;
}

__attribute__((noipa)) static void init(int n)
{
   for (int i = 0; i < n; i++) {
      a[i] = i;
      b[i] = 1;
   }
}

int main(void)
{
   init(N);
   pthread_t t[2];
   int lo[2] = { 0, N / 2 };
   for (int k = 0; k < 2; k++)
      pthread_create(&t[k], NULL, half, &lo[k]);
   for (int k = 0; k < 2; k++)
      pthread_join(t[k], NULL);
   for (int i = 0; i < N; i++)
      s += c[i];
   return s == N * (N - 1) / 2 + N ? 0 : 1;
}
/* SPDX-License-Identifier: GPL-2.0-or-later */
