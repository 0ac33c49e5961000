/* stencil3d_mpi.c: 3-D 7-point Jacobi stencil on a px x py x pz
 * Cartesian process grid (MPI_Dims_create + MPI_Cart_create,
 * non-periodic). Each rank owns an (n/px) x (n/py) x (n/pz) block with a
 * one-point halo and, every step, exchanges one face (packed) with each
 * of its up to six face neighbours, then updates its block. Halo points
 * on the physical boundary hold the fixed boundary values.
 * Pair of stencil3d_serial.c. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include "params.h"
#include "checksum.h"

#define N ST_N

static int L[3];                /* local interior extents */
#define IDX(i, j, k) (((i) * (L[1] + 2) + (j)) * (L[2] + 2) + (k))

/* Copy the face of the block at layer `layer` of dimension d (interior
   points only) to/from buf. */
static void face(double *u, int d, int layer, double *buf, int unpack)
{
   int a = (d + 1) % 3, b = (d + 2) % 3, n = 0, x[3];
   if (a > b) { int t = a; a = b; b = t; }
   x[d] = layer;
   for (x[a] = 1; x[a] <= L[a]; x[a]++)
      for (x[b] = 1; x[b] <= L[b]; x[b]++, n++) {
         if (unpack)
            u[IDX(x[0], x[1], x[2])] = buf[n];
         else
            buf[n] = u[IDX(x[0], x[1], x[2])];
      }
}

typedef struct {
   MPI_Comm comm;
   int nb[3][2];                /* [dim][0: lower, 1: upper] neighbour */
   double *sbuf[3][2], *rbuf[3][2];
} halo_t;

static void halo_exchange(halo_t *h, double *u)
{
   MPI_Request req[12];
   int nr = 0;
   for (int d = 0; d < 3; d++) {
      int cnt = L[(d + 1) % 3] * L[(d + 2) % 3];
      for (int s = 0; s < 2; s++)
         if (h->nb[d][s] != MPI_PROC_NULL)  /* tag: dim, travel direction */
            MPI_Irecv(h->rbuf[d][s], cnt, MPI_DOUBLE, h->nb[d][s], 2 * d + (1 - s),
                      h->comm, &req[nr++]);
   }
   for (int d = 0; d < 3; d++) {
      int cnt = L[(d + 1) % 3] * L[(d + 2) % 3];
      for (int s = 0; s < 2; s++)
         if (h->nb[d][s] != MPI_PROC_NULL) {
            face(u, d, s ? L[d] : 1, h->sbuf[d][s], 0);
            MPI_Isend(h->sbuf[d][s], cnt, MPI_DOUBLE, h->nb[d][s], 2 * d + s, h->comm,
                      &req[nr++]);
         }
   }
   MPI_Waitall(nr, req, MPI_STATUSES_IGNORE);
   for (int d = 0; d < 3; d++)
      for (int s = 0; s < 2; s++)
         if (h->nb[d][s] != MPI_PROC_NULL)
            face(u, d, s ? L[d] + 1 : 0, h->rbuf[d][s], 1);
}

__attribute__((noinline)) static void step(const double *u, double *v)
{
   for (int i = 1; i <= L[0]; i++)
      for (int j = 1; j <= L[1]; j++)
         for (int k = 1; k <= L[2]; k++)
            v[IDX(i, j, k)] = u[IDX(i, j, k)] +
                              ST_ALPHA * (u[IDX(i - 1, j, k)] + u[IDX(i + 1, j, k)] +
                                          u[IDX(i, j - 1, k)] + u[IDX(i, j + 1, k)] +
                                          u[IDX(i, j, k - 1)] + u[IDX(i, j, k + 1)] -
                                          6.0 * u[IDX(i, j, k)]);
}

int main(int argc, char **argv)
{
   MPI_Init(&argc, &argv);
   int P, rank;
   MPI_Comm_size(MPI_COMM_WORLD, &P);
   int dims[3] = {0, 0, 0}, periods[3] = {0, 0, 0}, coords[3], o[3];
   MPI_Dims_create(P, 3, dims);
   for (int d = 0; d < 3; d++)
      if (N % dims[d]) {
         fprintf(stderr, "stencil3d: n=%d not divisible by dims %d\n", N, dims[d]);
         MPI_Abort(MPI_COMM_WORLD, 1);
      }
   halo_t h;
   MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, 0, &h.comm);
   MPI_Comm_rank(h.comm, &rank);
   MPI_Cart_coords(h.comm, rank, 3, coords);
   for (int d = 0; d < 3; d++) {
      MPI_Cart_shift(h.comm, d, 1, &h.nb[d][0], &h.nb[d][1]);
      L[d] = N / dims[d];
      o[d] = coords[d] * L[d];
   }
   for (int d = 0; d < 3; d++)
      for (int s = 0; s < 2; s++) {
         int cnt = L[(d + 1) % 3] * L[(d + 2) % 3];
         h.sbuf[d][s] = malloc(sizeof(double) * cnt);
         h.rbuf[d][s] = malloc(sizeof(double) * cnt);
      }
   const size_t vol = (size_t)(L[0] + 2) * (L[1] + 2) * (L[2] + 2);
   double *u = malloc(sizeof(double) * vol), *v = malloc(sizeof(double) * vol);
   for (int i = 0; i < L[0] + 2; i++)
      for (int j = 0; j < L[1] + 2; j++)
         for (int k = 0; k < L[2] + 2; k++)
            u[IDX(i, j, k)] = v[IDX(i, j, k)] = st_init(o[0] + i, o[1] + j, o[2] + k, N);

   for (int t = 0; t < ST_T; t++) {
      MPI_Pcontrol(1);
      halo_exchange(&h, u);
      step(u, v);
      double *tmp = u;
      u = v;
      v = tmp;
      MPI_Pcontrol(0);
   }

   long plan[2] = {0, 0}, tot[2];   /* bytes and messages per step */
   for (int d = 0; d < 3; d++)
      for (int s = 0; s < 2; s++)
         if (h.nb[d][s] != MPI_PROC_NULL) {
            plan[0] += 8L * L[(d + 1) % 3] * L[(d + 2) % 3];
            plan[1]++;
         }
   MPI_Reduce(plan, tot, 2, MPI_LONG, MPI_SUM, 0, h.comm);
   chk_t ck;
   double glob[3];
   chk_init(&ck);
   for (int i = 1; i <= L[0]; i++)
      for (int j = 1; j <= L[1]; j++)
         for (int k = 1; k <= L[2]; k++)
            chk_point(&ck, ((long)(o[0] + i - 1) * N + (o[1] + j - 1)) * N + (o[2] + k - 1),
                      u[IDX(i, j, k)]);
   chk_reduce(&ck, h.comm);
   chk_result(&ck, glob);
   if (rank == 0) {
      printf("plan grid=%dx%dx%d bytes_per_iter=%ld msgs_per_iter=%ld\n", dims[0],
             dims[1], dims[2], tot[0], tot[1]);
      printf("stencil3d n=%d steps=%d checksum %.10e %.10e %.10e\n", N, ST_T, glob[0],
             glob[1], glob[2]);
   }
   for (int d = 0; d < 3; d++)
      for (int s = 0; s < 2; s++) {
         free(h.sbuf[d][s]);
         free(h.rbuf[d][s]);
      }
   free(u);
   free(v);
   MPI_Comm_free(&h.comm);
   MPI_Finalize();
   return 0;
}
/* SPDX-License-Identifier: GPL-2.0-or-later */
