/* A sum reduction: s depends on every a[i], through a chain of
   intermediate values, never one vertex with N sources. */
#define N 1000
double a[N], s;

__attribute__((noipa)) static void init(int n)
{
   for (int i = 0; i < n; i++)
      a[i] = i;
}

__attribute__((noipa)) static void reduce(int n)
{
   double sum = 0;
   for (int i = 0; i < n; i++)
      sum += a[i];
   s = sum;
}

int main(void)
{
   init(N);
   reduce(N);
   return s == 499500.0 ? 0 : 1;
}
/* SPDX-License-Identifier: GPL-2.0-or-later */
