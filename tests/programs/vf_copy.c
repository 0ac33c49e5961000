/* b[i] = a[i] copies (no new value); c[i] = 2 * b[i] then depends on the
   value of a[i]. A function's return value and memcpy carry values too. */
#include <string.h>
#define N 8
double a[N], b[N], c[N], d[N], e[N];

__attribute__((noipa)) static void init(int n)
{
   for (int i = 0; i < n; i++)
      a[i] = i + 1;
}

__attribute__((noipa)) static double twice(double x)
{
   return 2 * x;
}

__attribute__((noipa)) static void kernels(int n)
{
   for (int i = 0; i < n; i++)
      b[i] = a[i];
   for (int i = 0; i < n; i++)
      c[i] = 2 * b[i];
   memcpy(d, a, n * sizeof(double));
   for (int i = 0; i < n; i++)
      e[i] = twice(d[i]);
}

int main(void)
{
   init(N);
   kernels(N);
   return c[1] == 4 && e[2] == 6 ? 0 : 1;
}
/* SPDX-License-Identifier: GPL-2.0-or-later */
