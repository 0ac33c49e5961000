/* Walks whose access classes are known from their addresses
   (test_access.py): a row written two elements per iteration by two
   store instructions (each stride 16 alone, together contiguous, so
   stride-1), a read of every fourth element (stride-k, 32 bytes) and a
   read through an index array that holds 0, 1, 2 ... (stride-1 by its
   addresses, indexed through idx). */
#include <stdio.h>
#include <stdlib.h>

#define N 4096

int main(void)
{
   double *a = malloc(N * sizeof *a);
   double *b = malloc(N * sizeof *b);
   int *idx = malloc(N * sizeof *idx);
   for (int i = 0; i < N; i++) {
      b[i] = i;
      idx[i] = i;
   }
   double s = 0;
   for (int r = 0; r < 10; r++) {
      for (int i = 0; i < N; i += 2) {
         a[i] = r;          /* WALK_A0 */
         a[i + 1] = r + 1;  /* WALK_A1 */
      }
      for (int i = 0; i < N; i += 4)
         s += b[i];         /* WALK_STRIDED */
      for (int i = 0; i < N; i++)
         s += b[idx[i]];    /* WALK_INDEXED */
   }
   printf("%g\n", s + a[5]);
   return 0;
}
