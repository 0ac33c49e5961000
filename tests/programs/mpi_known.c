/* mpi_known.c: known MPI traffic on exactly 4 ranks for libcats-mpi
 * (tests/test_mpi.py). "mpi_known region" marks 10 time steps with
 * MPI_Pcontrol(1)/(0); "mpi_known whole" makes the same calls without any
 * MPI_Pcontrol. The bytes of every step are in the comments; r is the
 * MPI_COMM_WORLD rank, "r+k" means (r+k) mod 4.
 *
 * The Cartesian step prints "cart RECEIVER SENDER" (world ranks taken
 * from the message itself), since MPI may reorder the ranks. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 4

static void fail(const char *what)
{
   fprintf(stderr, "mpi_known: %s\n", what);
   MPI_Abort(MPI_COMM_WORLD, 2);
}

int main(int argc, char **argv)
{
   MPI_Init(&argc, &argv);
   int r, n;
   MPI_Comm_rank(MPI_COMM_WORLD, &r);
   MPI_Comm_size(MPI_COMM_WORLD, &n);
   if (n != N || argc != 2 ||
       (strcmp(argv[1], "region") != 0 && strcmp(argv[1], "whole") != 0))
      fail("usage: mpirun -np 4 mpi_known region|whole");
   const int marked = strcmp(argv[1], "region") == 0;
   const int next = (r + 1) % N, prev = (r + N - 1) % N;
   double d[1000] = { 0 };
   int k[1000] = { 0 };
   MPI_Status st;

   /* 1. ring, r -> r+1: 100 doubles = 800 */
   if (r % 2 == 0) {
      MPI_Send(d, 100, MPI_DOUBLE, next, 1, MPI_COMM_WORLD);
      MPI_Recv(d + 100, 100, MPI_DOUBLE, prev, 1, MPI_COMM_WORLD, &st);
   } else {
      MPI_Recv(d + 100, 100, MPI_DOUBLE, prev, 1, MPI_COMM_WORLD, &st);
      MPI_Send(d, 100, MPI_DOUBLE, next, 1, MPI_COMM_WORLD);
   }

   /* 2. nonblocking exchange, r -> r+2: 10 ints = 40 */
   MPI_Request rq[2];
   MPI_Irecv(k + 10, 10, MPI_INT, r ^ 2, 2, MPI_COMM_WORLD, &rq[0]);
   MPI_Isend(k, 10, MPI_INT, r ^ 2, 2, MPI_COMM_WORLD, &rq[1]);
   MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);

   /* 3. send modes; every receive is posted before a barrier so the
    * ready sends are legal. r -> r+1: Ssend 1 + Bsend 2 + Rsend 3 ints =
    * 24; r -> r+3: Issend 1 + Ibsend 2 + Irsend 3 doubles = 48 */
   static char bsend_buf[4096];
   MPI_Buffer_attach(bsend_buf, sizeof bsend_buf);
   MPI_Request sm[9];
   MPI_Irecv(k + 100, 1, MPI_INT, prev, 31, MPI_COMM_WORLD, &sm[0]);
   MPI_Irecv(k + 110, 2, MPI_INT, prev, 32, MPI_COMM_WORLD, &sm[1]);
   MPI_Irecv(k + 120, 3, MPI_INT, prev, 33, MPI_COMM_WORLD, &sm[2]);
   MPI_Irecv(d + 300, 1, MPI_DOUBLE, next, 34, MPI_COMM_WORLD, &sm[3]);
   MPI_Irecv(d + 310, 2, MPI_DOUBLE, next, 35, MPI_COMM_WORLD, &sm[4]);
   MPI_Irecv(d + 320, 3, MPI_DOUBLE, next, 36, MPI_COMM_WORLD, &sm[5]);
   MPI_Barrier(MPI_COMM_WORLD);                             /* barrier 1 */
   MPI_Issend(d, 1, MPI_DOUBLE, prev, 34, MPI_COMM_WORLD, &sm[6]);
   MPI_Ibsend(d, 2, MPI_DOUBLE, prev, 35, MPI_COMM_WORLD, &sm[7]);
   MPI_Irsend(d, 3, MPI_DOUBLE, prev, 36, MPI_COMM_WORLD, &sm[8]);
   MPI_Ssend(k, 1, MPI_INT, next, 31, MPI_COMM_WORLD);
   MPI_Bsend(k, 2, MPI_INT, next, 32, MPI_COMM_WORLD);
   MPI_Rsend(k, 3, MPI_INT, next, 33, MPI_COMM_WORLD);
   MPI_Waitall(9, sm, MPI_STATUSES_IGNORE);
   void *detached;
   int dsize;
   MPI_Buffer_detach(&detached, &dsize);

   /* 4. not communication: MPI_PROC_NULL and self */
   MPI_Send(k, 1000, MPI_INT, MPI_PROC_NULL, 4, MPI_COMM_WORLD);
   MPI_Sendrecv(k, 500, MPI_INT, r, 4, k + 500, 500, MPI_INT, r, 4,
                MPI_COMM_WORLD, &st);

   /* 5. Sendrecv_replace, r -> r^1: 7 ints = 28 */
   MPI_Sendrecv_replace(k, 7, MPI_INT, r ^ 1, 5, r ^ 1, 5, MPI_COMM_WORLD, &st);

   /* 6. Cartesian ring over a split (reversed ranks) and a dup of it, with
    * reorder: 5 doubles = 40 to the world rank of the cart neighbour */
   MPI_Comm rev, cart, cartdup;
   MPI_Comm_split(MPI_COMM_WORLD, 0, N - 1 - r, &rev);
   int dims[1] = { N }, periods[1] = { 1 };
   MPI_Cart_create(rev, 1, dims, periods, 1, &cart);
   MPI_Comm_dup(cart, &cartdup);
   int src, dst;
   MPI_Cart_shift(cartdup, 0, 1, &src, &dst);
   double cbuf[5] = { (double)r }, cin[5];
   MPI_Sendrecv(cbuf, 5, MPI_DOUBLE, dst, 6, cin, 5, MPI_DOUBLE, src, 6,
                cartdup, &st);
   printf("cart %d %d\n", r, (int)cin[0]);
   fflush(stdout);

   /* 7. one broadcast of 3 ints from rank 1: 12 * 3 = 36 */
   MPI_Bcast(k, 3, MPI_INT, 1, MPI_COMM_WORLD);

   /* 8. persistent send r -> r+3 of 4 doubles (32), started once here */
   MPI_Request ps[2];
   MPI_Recv_init(d + 400, 4, MPI_DOUBLE, next, 8, MPI_COMM_WORLD, &ps[0]);
   MPI_Send_init(d, 4, MPI_DOUBLE, prev, 8, MPI_COMM_WORLD, &ps[1]);
   MPI_Start(&ps[0]);
   MPI_Start(&ps[1]);
   MPI_Waitall(2, ps, MPI_STATUSES_IGNORE);

   /* 9. the region: 10 steps of Startall (r -> r+3: 32) and one allreduce
    * of 1 double (2 * 8 * 3 = 48) */
   for (int step = 0; step < 10; step++) {
      if (marked)
         MPI_Pcontrol(1);
      double x = r, y;
      MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
      if (y != 6.0)
         fail("allreduce");
      MPI_Startall(2, ps);
      MPI_Waitall(2, ps, MPI_STATUSES_IGNORE);
      if (marked)
         MPI_Pcontrol(0);
   }
   MPI_Request_free(&ps[0]);
   MPI_Request_free(&ps[1]);

   /* 10. collectives outside the region */
   MPI_Barrier(MPI_COMM_WORLD);                             /* barrier 2 */
   MPI_Reduce(d, d + 10, 2, MPI_DOUBLE, MPI_SUM, 2, MPI_COMM_WORLD); /* 16*3 */
   MPI_Allgather(k, 1, MPI_INT, k + 10, 1, MPI_INT, MPI_COMM_WORLD); /* 4*4*3 */
   MPI_Alltoall(k, 2, MPI_INT, k + 20, 2, MPI_INT, MPI_COMM_WORLD);  /* 8*4*3 */
   MPI_Gather(k, 1, MPI_INT, k + 30, 1, MPI_INT, 0, MPI_COMM_WORLD); /* 4*3 */
   MPI_Scatter(k, 1, MPI_INT, k + 40, 1, MPI_INT, 3, MPI_COMM_WORLD);/* 4*3 */

   /* v variants: rank j contributes j+1 ints */
   int cnt[N], dsp[N], a2a_s[N], a2a_r[N], a2a_sd[N], a2a_rd[N];
   for (int j = 0, o = 0; j < N; o += j + 1, j++) {
      cnt[j] = j + 1;
      dsp[j] = o;
   }
   /* Gatherv to 0 with the root in place: (2 + 3 + 4) * 4 = 36 */
   MPI_Gatherv(r == 0 ? MPI_IN_PLACE : (void *)k, r + 1, MPI_INT, k + 50, cnt,
               dsp, MPI_INT, 0, MPI_COMM_WORLD);
   /* Scatterv from 0: (2 + 3 + 4) * 4 = 36 */
   MPI_Scatterv(k, cnt, dsp, MPI_INT, k + 60, r + 1, MPI_INT, 0,
                MPI_COMM_WORLD);
   /* Allgatherv: each j's j+1 ints to 3 others: 10 * 4 * 3 = 120 */
   MPI_Allgatherv(k, r + 1, MPI_INT, k + 70, cnt, dsp, MPI_INT,
                  MPI_COMM_WORLD);
   /* Alltoallv: i sends i+j+1 ints to j: 4 * sum over i != j = 4 * 48 */
   for (int j = 0, so = 0, ro = 0; j < N; j++) {
      a2a_s[j] = r + j + 1;
      a2a_r[j] = j + r + 1;
      a2a_sd[j] = so;
      a2a_rd[j] = ro;
      so += a2a_s[j];
      ro += a2a_r[j];
   }
   MPI_Alltoallv(k, a2a_s, a2a_sd, MPI_INT, k + 100, a2a_r, a2a_rd, MPI_INT,
                 MPI_COMM_WORLD);
   /* Reduce_scatter_block 1 int each: 4*4*3 = 48;
    * Reduce_scatter with counts 1,2,1,2: 6 * 4 * 3 = 72 */
   int rs[N] = { 1, 2, 1, 2 };
   MPI_Reduce_scatter_block(k, k + 200, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
   MPI_Reduce_scatter(k, k + 200, rs, MPI_INT, MPI_SUM, MPI_COMM_WORLD);

   /* allreduce in place on two halves: 2 calls of 2 * 8 * 1 = 16 */
   MPI_Comm half;
   MPI_Comm_split(MPI_COMM_WORLD, r / 2, r, &half);
   double hx = 1.0;
   MPI_Allreduce(MPI_IN_PLACE, &hx, 1, MPI_DOUBLE, MPI_SUM, half);
   if (hx != 2.0)
      fail("allreduce on half");

   /* nonblocking: Ibcast 2 doubles (16*3 = 48), Iallreduce 1 int
    * (2*4*3 = 24), Ireduce 1 double (8*3 = 24), Iallgather 1 double
    * (8*4*3 = 96), Ibarrier (barrier 3) */
   MPI_Request nb[5];
   MPI_Ibcast(d, 2, MPI_DOUBLE, 0, MPI_COMM_WORLD, &nb[0]);
   MPI_Iallreduce(k, k + 300, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &nb[1]);
   MPI_Ireduce(d + 500, d + 510, 1, MPI_DOUBLE, MPI_SUM, 1, MPI_COMM_WORLD,
               &nb[2]);
   MPI_Iallgather(d + 520, 1, MPI_DOUBLE, d + 530, 1, MPI_DOUBLE,
                  MPI_COMM_WORLD, &nb[3]);
   MPI_Ibarrier(MPI_COMM_WORLD, &nb[4]);
   MPI_Waitall(5, nb, MPI_STATUSES_IGNORE);

   MPI_Comm_free(&half);
   MPI_Comm_free(&cartdup);
   MPI_Comm_free(&cart);
   MPI_Comm_free(&rev);
   MPI_Finalize();
   return 0;
}
/* SPDX-License-Identifier: GPL-2.0-or-later */
