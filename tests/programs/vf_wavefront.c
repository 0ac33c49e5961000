/* A wavefront (pipelined) sweep: a[i][j] from a[i-1][j] and a[i][j-1],
   repeated. The MPI code gives each rank a block of columns and, for
   every row, sends the rank on its right its last value: one 8-byte
   message per row and boundary per sweep (test_project.py). At -O3 gcc
   keeps a[i][j-1] in a register instead of loading it. */
#include <stdio.h>
#include <stdlib.h>

#define N 256

int main(int argc, char **argv)
{
   int steps = argc > 1 ? atoi(argv[1]) : 10;
   double *a = malloc(N * N * sizeof *a);
   for (int i = 0; i < N * N; i++)
      a[i] = i % 7;
   for (int t = 0; t < steps; t++)
      for (int i = 1; i < N; i++)
         for (int j = 1; j < N; j++)
            a[i * N + j] = 0.5 * (a[(i - 1) * N + j] + a[i * N + j - 1]);
   printf("%d\n", a[N * N - 1] != 0);
   return 0;
}
