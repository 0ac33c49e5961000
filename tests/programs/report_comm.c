/* c[i] = a[i] + b[i]: add's loop (line 18) reads the a and b that init's
   loop (line 10) stored (lines 11 and 12), 16 of each; main reads c[3].
   The value flow edges are a -> c and b -> c. noipa keeps the compiler
   from folding the kernel into constants. */
#define N 16
double a[N], b[N], c[N];

__attribute__((noipa)) static void init(int n)
{
   for (int i = 0; i < n; i++) {
      a[i] = i;                               /* line 11 */
      b[i] = 2 * i;                           /* line 12 */
   }
}

__attribute__((noipa)) static void add(int n)
{
   for (int i = 0; i < n; i++)                /* line 18 */
      c[i] = a[i] + b[i];
}

int main(void)
{
   init(N);
   add(N);
   return c[3] == 9 ? 0 : 1;
}
/* SPDX-License-Identifier: GPL-2.0-or-later */
