/* The viewer's known trace (tests/test_view.py): three heap containers of
   known sizes (one allocated in a loop) and a conditional one, a loop
   nest, a stride-k column walk, a CSR-like indirect gather, a producer
   loop whose values a consumer nest reads (a dependency between the two
   loops), and a 1-D stencil over time steps whose projection (--ranks)
   exchanges values. */
#include <stdlib.h>

#define N 1000          /* a: N doubles, 8000 bytes */
#define R 16            /* m: R x C doubles, 4096 bytes */
#define C 32
#define T 5             /* tmp: 64 bytes, allocated T times */
#define ROWS 4

int rowptr[ROWS + 1] = { 0, 2, 3, 6, 7 };
int col[7] = { 1, 5, 0, 2, 3, 7, 6 };
double x[8], y[ROWS];
#define S 64            /* the stencil's line */
#define STEPS 20
double u[S], v[S];

__attribute__((noipa)) static void produce(double *a, int n)
{
   for (int i = 0; i < n; i++)            /* the producer loop */
      a[i] = i * 0.5;
}

__attribute__((noipa)) static void consume(const double *a, double *m)
{
   for (int i = 0; i < R; i++)            /* the loop nest */
      for (int j = 0; j < C; j++)
         m[i * C + j] = a[i * C + j] + 1.0;
}

__attribute__((noipa)) static double colsum(const double *m)
{
   double s = 0;
   for (int j = 0; j < C; j++)            /* a stride-k walk */
      for (int i = 0; i < R; i++)
         s += m[i * C + j];
   return s;
}

__attribute__((noipa)) static void spmv(int rows)
{
   for (int i = 0; i < rows; i++) {       /* a CSR gather */
      double sum = 0;
      for (int k = rowptr[i]; k < rowptr[i + 1]; k++)
         sum += x[col[k]];
      y[i] += sum;
   }
}

__attribute__((noipa)) static void stencil(void)
{
   for (int i = 0; i < S; i++)
      u[i] = i;
   for (int t = 0; t < STEPS; t++) {
      for (int i = 1; i < S - 1; i++)
         v[i] = (u[i - 1] + u[i] + u[i + 1]) / 3;
      for (int i = 1; i < S - 1; i++)
         u[i] = v[i];
   }
}

int main(void)
{
   double *a = malloc(N * sizeof(double));
   double *m = malloc(R * C * sizeof(double));
   produce(a, N);
   consume(a, m);
   for (int j = 0; j < 8; j++)
      x[j] = j + 1;
   double s = 0;
   int *flags = NULL;
   for (int t = 0; t < T; t++) {          /* malloc in a loop */
      double *tmp = malloc(8 * sizeof(double));
      for (int k = 0; k < 8; k++)
         tmp[k] = x[k] * t;
      s += tmp[3];
      free(tmp);
      if (t == 3) {                       /* a conditional allocation */
         flags = malloc(100);
         flags[0] = t;
      } else {
         s += 1;
      }
   }
   s += colsum(m);
   spmv(ROWS);
   stencil();
   free(flags);
   free(m);
   free(a);
   return s > 0 && y[2] == 3 + 4 + 8 && v[5] > 0 ? 0 : 1;
}
/* SPDX-License-Identifier: GPL-2.0-or-later */
