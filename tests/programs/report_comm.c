/* Value flow of c[i] = a[i] + b[i]: every c element is computed from one
   a and one b element, so the communication edges are a -> c and b -> c,
   from the stores of init (lines 11 and 12) to the loop of add (line 18).
   noipa keeps the compiler from folding the kernel into constants. */
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
