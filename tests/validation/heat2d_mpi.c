/* heat2d_mpi.c: 2-D heat diffusion on a px x py Cartesian process grid
 * (MPI_Dims_create + MPI_Cart_create, non-periodic). Rank (cx, cy) owns
 * rows [cx*n/px, (cx+1)*n/px) and columns [cy*n/py, (cy+1)*n/py) of the
 * interior, stored with a one-point halo. Every step it exchanges one
 * boundary row with each up/down neighbour and one boundary column
 * (packed) with each left/right neighbour, then updates its block.
 * Halo points on the physical boundary hold the fixed boundary values.
 * Pair of heat2d_serial.c. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include "params.h"
#include "checksum.h"

#define N HEAT_N

typedef struct {
   MPI_Comm comm;
   int up, down, left, right;   /* MPI_PROC_NULL at the physical boundary */
   int nx, ny, w;               /* local rows, columns, row length ny+2 */
   double *sbuf, *rbuf;         /* column packing: [left | right] */
} halo_t;

/* Exchange the one-point halo of u; neighbours that do not exist are
   skipped, so no message (not even an empty one) goes to MPI_PROC_NULL. */
static void halo_exchange(halo_t *h, double *u)
{
   MPI_Request req[8];
   int nr = 0, nx = h->nx, ny = h->ny, w = h->w;
   /* receives: row 0 from up, row nx+1 from down, columns into rbuf */
   if (h->up != MPI_PROC_NULL)
      MPI_Irecv(&u[0 * w + 1], ny, MPI_DOUBLE, h->up, 1, h->comm, &req[nr++]);
   if (h->down != MPI_PROC_NULL)
      MPI_Irecv(&u[(nx + 1) * w + 1], ny, MPI_DOUBLE, h->down, 0, h->comm, &req[nr++]);
   if (h->left != MPI_PROC_NULL)
      MPI_Irecv(h->rbuf, nx, MPI_DOUBLE, h->left, 3, h->comm, &req[nr++]);
   if (h->right != MPI_PROC_NULL)
      MPI_Irecv(h->rbuf + nx, nx, MPI_DOUBLE, h->right, 2, h->comm, &req[nr++]);
   /* sends: tag = direction of travel (0 up, 1 down, 2 left, 3 right) */
   if (h->up != MPI_PROC_NULL)
      MPI_Isend(&u[1 * w + 1], ny, MPI_DOUBLE, h->up, 0, h->comm, &req[nr++]);
   if (h->down != MPI_PROC_NULL)
      MPI_Isend(&u[nx * w + 1], ny, MPI_DOUBLE, h->down, 1, h->comm, &req[nr++]);
   if (h->left != MPI_PROC_NULL) {
      for (int i = 0; i < nx; i++)
         h->sbuf[i] = u[(i + 1) * w + 1];
      MPI_Isend(h->sbuf, nx, MPI_DOUBLE, h->left, 2, h->comm, &req[nr++]);
   }
   if (h->right != MPI_PROC_NULL) {
      for (int i = 0; i < nx; i++)
         h->sbuf[nx + i] = u[(i + 1) * w + ny];
      MPI_Isend(h->sbuf + nx, nx, MPI_DOUBLE, h->right, 3, h->comm, &req[nr++]);
   }
   MPI_Waitall(nr, req, MPI_STATUSES_IGNORE);
   if (h->left != MPI_PROC_NULL)
      for (int i = 0; i < nx; i++)
         u[(i + 1) * w + 0] = h->rbuf[i];
   if (h->right != MPI_PROC_NULL)
      for (int i = 0; i < nx; i++)
         u[(i + 1) * w + ny + 1] = h->rbuf[nx + i];
}

__attribute__((noinline)) static void step(const double *u, double *v, int nx, int ny)
{
   const int w = ny + 2;
   for (int i = 1; i <= nx; i++)
      for (int j = 1; j <= ny; j++)
         v[i * w + j] = u[i * w + j] +
                        HEAT_ALPHA * (u[(i - 1) * w + j] + u[(i + 1) * w + j] +
                                      u[i * w + j - 1] + u[i * w + j + 1] -
                                      4.0 * u[i * w + j]);
}

int main(int argc, char **argv)
{
   MPI_Init(&argc, &argv);
   int P, rank;
   MPI_Comm_size(MPI_COMM_WORLD, &P);
   int dims[2] = {0, 0}, periods[2] = {0, 0}, coords[2];
   MPI_Dims_create(P, 2, dims);
   if (N % dims[0] || N % dims[1]) {
      fprintf(stderr, "heat2d: n=%d not divisible by grid %dx%d\n", N, dims[0], dims[1]);
      MPI_Abort(MPI_COMM_WORLD, 1);
   }
   halo_t h;
   MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &h.comm);
   MPI_Comm_rank(h.comm, &rank);
   MPI_Cart_coords(h.comm, rank, 2, coords);
   MPI_Cart_shift(h.comm, 0, 1, &h.up, &h.down);
   MPI_Cart_shift(h.comm, 1, 1, &h.left, &h.right);
   h.nx = N / dims[0];
   h.ny = N / dims[1];
   h.w = h.ny + 2;
   h.sbuf = malloc(sizeof(double) * 2 * h.nx);
   h.rbuf = malloc(sizeof(double) * 2 * h.nx);
   const int nx = h.nx, ny = h.ny, w = h.w, i0 = coords[0] * nx, j0 = coords[1] * ny;

   /* local block with halo; global point of local (i, j) is (i0+i, j0+j) */
   double *u = malloc(sizeof(double) * (nx + 2) * w);
   double *v = malloc(sizeof(double) * (nx + 2) * w);
   for (int i = 0; i < nx + 2; i++)
      for (int j = 0; j < w; j++)
         u[i * w + j] = v[i * w + j] = heat_init(i0 + i, j0 + j, N);

   for (int t = 0; t < HEAT_T; t++) {
      MPI_Pcontrol(1);
      halo_exchange(&h, u);
      step(u, v, nx, ny);
      double *tmp = u;
      u = v;
      v = tmp;
      MPI_Pcontrol(0);
   }

   long plan[2] = {0, 0}, tot[2];   /* bytes and messages per step */
   if (h.up != MPI_PROC_NULL) { plan[0] += 8L * ny; plan[1]++; }
   if (h.down != MPI_PROC_NULL) { plan[0] += 8L * ny; plan[1]++; }
   if (h.left != MPI_PROC_NULL) { plan[0] += 8L * nx; plan[1]++; }
   if (h.right != MPI_PROC_NULL) { plan[0] += 8L * nx; plan[1]++; }
   MPI_Reduce(plan, tot, 2, MPI_LONG, MPI_SUM, 0, h.comm);
   chk_t ck;
   double glob[3];
   chk_init(&ck);
   for (int i = 1; i <= nx; i++)
      for (int j = 1; j <= ny; j++)
         chk_point(&ck, (long)(i0 + i - 1) * N + (j0 + j - 1), u[i * w + j]);
   chk_reduce(&ck, h.comm);
   chk_result(&ck, glob);
   if (rank == 0) {
      printf("plan grid=%dx%d bytes_per_iter=%ld msgs_per_iter=%ld\n", dims[0], dims[1],
             tot[0], tot[1]);
      printf("heat2d n=%d steps=%d checksum %.10e %.10e %.10e\n", N, HEAT_T, glob[0],
             glob[1], glob[2]);
   }
   free(u);
   free(v);
   free(h.sbuf);
   free(h.rbuf);
   MPI_Comm_free(&h.comm);
   MPI_Finalize();
   return 0;
}
/* SPDX-License-Identifier: GPL-2.0-or-later */
