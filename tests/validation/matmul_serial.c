/* matmul_serial.c: dense C = A x B (double, n x n), the whole multiply
 * wrapped once in a cats region. Pair of matmul_mpi.c. */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include "cats.h"
#include "params.h"
#include "checksum.h"

__attribute__((noinline)) static void init(double *a, double *b, int n)
{
   for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++) {
         a[i * n + j] = matmul_a(i, j);
         b[i * n + j] = matmul_b(i, j);
      }
}

/* dot-product form: every C(i,j) accumulates over k = 0..n-1 in order,
   which is also the order the SUMMA panels accumulate it in */
__attribute__((noinline)) static void matmul(const double *a, const double *b,
                                             double *c, int n)
{
   for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++) {
         double s = 0.0;
         for (int k = 0; k < n; k++)
            s += a[i * n + k] * b[k * n + j];
         c[i * n + j] = s;
      }
}

int main(void)
{
   const int n = MATMUL_N;
   double *a = malloc(sizeof(double) * n * n);
   double *b = malloc(sizeof(double) * n * n);
   double *c = malloc(sizeof(double) * n * n);
   CATS_NAME_BLOCK(a, sizeof(double) * n * n, "A");
   CATS_NAME_BLOCK(b, sizeof(double) * n * n, "B");
   CATS_NAME_BLOCK(c, sizeof(double) * n * n, "C");
   init(a, b, n);

   CATS_REGION_BEGIN("step");
   matmul(a, b, c, n);
   CATS_REGION_END("step");

   chk_t ck;
   double r[3];
   chk_init(&ck);
   for (long g = 0; g < (long)n * n; g++)
      chk_point(&ck, g, c[g]);
   chk_result(&ck, r);
   printf("matmul n=%d checksum %.10e %.10e %.10e\n", n, r[0], r[1], r[2]);
   free(a);
   free(b);
   free(c);
   return 0;
}
/* SPDX-License-Identifier: GPL-2.0-or-later */
