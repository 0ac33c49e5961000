/* matmul_mpi.c: dense C = A x B with SUMMA on a pr x pc process grid
 * (MPI_Dims_create; with -DMATMUL_ROWS a P x 1 grid: row blocks of A and
 * C, each rank broadcasting its row block of B to all, the textbook 1-D
 * algorithm). A, B and C are all distributed in (n/pr) x (n/pc)
 * blocks; rank (r, c) owns block (r, c) of each. The k dimension is
 * walked in panels of width w = gcd(n/pr, n/pc): the owner column of
 * A(:, panel) broadcasts its (n/pr) x w piece along the row communicator,
 * the owner row of B(panel, :) broadcasts its w x (n/pc) piece along the
 * column communicator, and every rank accumulates C += Apanel x Bpanel.
 *
 * Compiled with -DUSE_P2P the broadcasts are replaced by flat
 * point-to-point sends from the panel owner to every other member of the
 * row/column (same volume, exactly countable per rank pair).
 *
 * The whole multiply is one MPI_Pcontrol(1)..(0) region ("iteration"). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include "params.h"
#include "checksum.h"

static int gcd(int a, int b)
{
   while (b) {
      int t = a % b;
      a = b;
      b = t;
   }
   return a;
}

/* Broadcast buf (count doubles) from root within comm. */
static void panel_bcast(double *buf, int count, int root, MPI_Comm comm)
{
   int size, me;
   MPI_Comm_size(comm, &size);
   if (size == 1)
      return;                   /* nothing to send in a 1-wide grid */
#ifdef USE_P2P
   MPI_Comm_rank(comm, &me);
   if (me == root) {
      for (int q = 0; q < size; q++)
         if (q != root)
            MPI_Send(buf, count, MPI_DOUBLE, q, 7, comm);
   } else {
      MPI_Recv(buf, count, MPI_DOUBLE, root, 7, comm, MPI_STATUS_IGNORE);
   }
#else
   (void)me;
   MPI_Bcast(buf, count, MPI_DOUBLE, root, comm);
#endif
}

__attribute__((noinline)) static void local_gemm(const double *ap, const double *bp,
                                                 double *c, int mb, int nb, int w)
{
   for (int i = 0; i < mb; i++)
      for (int j = 0; j < nb; j++) {
         double s = c[i * nb + j];
         for (int k = 0; k < w; k++)
            s += ap[i * w + k] * bp[k * nb + j];
         c[i * nb + j] = s;
      }
}

int main(int argc, char **argv)
{
   MPI_Init(&argc, &argv);
   int P, rank;
   MPI_Comm_size(MPI_COMM_WORLD, &P);
   MPI_Comm_rank(MPI_COMM_WORLD, &rank);
   const int n = MATMUL_N;

   int dims[2] = {0, 0}, periods[2] = {0, 0}, coords[2];
#ifdef MATMUL_ROWS
   dims[0] = P;
   dims[1] = 1;
#else
   MPI_Dims_create(P, 2, dims);
#endif
   const int pr = dims[0], pc = dims[1];
   if (n % pr || n % pc) {
      if (rank == 0)
         fprintf(stderr, "matmul: n=%d not divisible by grid %dx%d\n", n, pr, pc);
      MPI_Abort(MPI_COMM_WORLD, 1);
   }
   MPI_Comm cart, rowc, colc;
   MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
   MPI_Cart_coords(cart, rank, 2, coords);
   const int myr = coords[0], myc = coords[1];
   int keep_row[2] = {0, 1}, keep_col[2] = {1, 0};
   MPI_Cart_sub(cart, keep_row, &rowc);  /* same row, rank = column index */
   MPI_Cart_sub(cart, keep_col, &colc);  /* same column, rank = row index */

   const int mb = n / pr, nb = n / pc, w = gcd(mb, nb);
   double *a = malloc(sizeof(double) * mb * nb);
   double *b = malloc(sizeof(double) * mb * nb);
   double *c = calloc((size_t)mb * nb, sizeof(double));
   double *ap = malloc(sizeof(double) * mb * w);
   double *bp = malloc(sizeof(double) * w * nb);
   for (int i = 0; i < mb; i++)
      for (int j = 0; j < nb; j++) {
         a[i * nb + j] = matmul_a(myr * mb + i, myc * nb + j);
         b[i * nb + j] = matmul_b(myr * mb + i, myc * nb + j);
      }

   MPI_Pcontrol(1);
   for (int k0 = 0; k0 < n; k0 += w) {
      int aroot = k0 / nb, aoff = k0 % nb;  /* owner column of A(:, k0..) */
      int broot = k0 / mb, boff = k0 % mb;  /* owner row of B(k0.., :) */
      if (myc == aroot)
         for (int i = 0; i < mb; i++)
            for (int k = 0; k < w; k++)
               ap[i * w + k] = a[i * nb + aoff + k];
      if (myr == broot)
         for (int k = 0; k < w; k++)
            for (int j = 0; j < nb; j++)
               bp[k * nb + j] = b[(boff + k) * nb + j];
      panel_bcast(ap, mb * w, aroot, rowc);
      panel_bcast(bp, w * nb, broot, colc);
      local_gemm(ap, bp, c, mb, nb, w);
   }
   MPI_Pcontrol(0);

   /* what this plan sends in the region, summed over all ranks */
   long plan[2] = {0, 0};       /* bytes, messages (as flat p2p) */
   if (myc == 0 && pc > 1) {    /* one rank per row accounts for the row */
      plan[0] += 8L * mb * n * (pc - 1);
      plan[1] += (long)(n / w) * (pc - 1);
   }
   if (myr == 0 && pr > 1) {
      plan[0] += 8L * nb * n * (pr - 1);
      plan[1] += (long)(n / w) * (pr - 1);
   }
   long tot[2];
   MPI_Reduce(plan, tot, 2, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);

   chk_t ck;
   double glob[3];
   chk_init(&ck);
   for (int i = 0; i < mb; i++)
      for (int j = 0; j < nb; j++)
         chk_point(&ck, (long)(myr * mb + i) * n + myc * nb + j, c[i * nb + j]);
   chk_reduce(&ck, MPI_COMM_WORLD);
   chk_result(&ck, glob);
   if (rank == 0) {
#ifdef USE_P2P
      const char *how = "p2p";
#else
      const char *how = "bcast";
#endif
      printf("plan grid=%dx%d panel=%d mode=%s bytes_per_iter=%ld msgs_per_iter=%ld\n",
             pr, pc, w, how, tot[0], tot[1]);
      printf("matmul n=%d checksum %.10e %.10e %.10e\n", n, glob[0], glob[1], glob[2]);
   }
   free(a);
   free(b);
   free(c);
   free(ap);
   free(bp);
   MPI_Comm_free(&rowc);
   MPI_Comm_free(&colc);
   MPI_Comm_free(&cart);
   MPI_Finalize();
   return 0;
}
/* SPDX-License-Identifier: GPL-2.0-or-later */
