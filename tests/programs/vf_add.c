/* c[i] = a[i] + b[i]: each c[i] is computed from exactly a[i] and b[i].
   noipa keeps the compiler from folding the kernel into constants. */
#define N 16
double a[N], b[N], c[N];

__attribute__((noipa)) static void init(int n)
{
   for (int i = 0; i < n; i++) {
      a[i] = i;
      b[i] = 2 * i;
   }
}

__attribute__((noipa)) static void add(int n)
{
   for (int i = 0; i < n; i++)
      c[i] = a[i] + b[i];
}

int main(void)
{
   init(N);
   add(N);
   return c[3] == 9 ? 0 : 1;
}
/* SPDX-License-Identifier: GPL-2.0-or-later */
