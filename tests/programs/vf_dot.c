/* Dot products summed in registers, the loops whose accumulators the
   tool logs (--vf-loop-log): a small matrix product (vectorised over j
   at -O2), a reduction walking down an array, and a gather that reads
   one element twice, so that the log's fast path stops part way. */
#define N 40
double a[N * N], b[N * N], c[N * N], x[4 * N], down_sum, gather_sum;
int col[4 * N];

__attribute__((noipa)) static void init(void)
{
   for (int i = 0; i < N * N; i++) {
      a[i] = i % 7;
      b[i] = i % 5;
   }
   for (int i = 0; i < 4 * N; i++) {
      x[i] = i;
      col[i] = i == 3 * N ? 17 : i;   /* x[17] read twice */
   }
}

__attribute__((noipa)) static void matmul(void)
{
   for (int i = 0; i < N; i++)
      for (int j = 0; j < N; j++) {
         double s = 0;
         for (int k = 0; k < N; k++)
            s += a[i * N + k] * b[k * N + j];
         c[i * N + j] = s;
      }
}

__attribute__((noipa)) static void reduce_down(void)
{
   double s = 0;
   for (int i = 4 * N - 1; i >= 0; i--)
      s += x[i];
   down_sum = s;
}

__attribute__((noipa)) static void gather(void)
{
   double s = 0;
   for (int k = 0; k < 4 * N; k++)
      s += x[col[k]];
   gather_sum = s;
}

int main(void)
{
   init();
   for (int step = 0; step < 3; step++) {
      matmul();
      reduce_down();
      gather();
   }
   return c[N + 1] >= 0 && down_sum > 0 && gather_sum > 0 ? 0 : 1;
}
/* SPDX-License-Identifier: GPL-2.0-or-later */
