/* ib[i] = 3 * ia[i] on 4-byte ints: two elements per 8-byte word. */
#define N 8
int ia[N], ib[N];

__attribute__((noipa)) static void init(int n)
{
   for (int i = 0; i < n; i++)
      ia[i] = i + 1;
}

__attribute__((noipa)) static void triple(int n)
{
   for (int i = 0; i < n; i++)
      ib[i] = 3 * ia[i];
}

int main(void)
{
   init(N);
   triple(N);
   return ib[2] == 9 ? 0 : 1;
}
/* SPDX-License-Identifier: GPL-2.0-or-later */
