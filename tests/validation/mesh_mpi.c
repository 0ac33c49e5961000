/* mesh_mpi.c: the unstructured-mesh kernel of mesh_serial.c, with nodes
 * partitioned geometrically in 2-D blocks on a px x py process grid
 * (MPI_Dims_create): rank (cx, cy) owns the nodes with gx in
 * [cx*M/px, (cx+1)*M/px) and gy in [cy*M/py, (cy+1)*M/py), M = NE+1.
 * It computes every element that touches one of its owned nodes (the
 * boundary elements are computed redundantly by both/all sides), so the
 * scatter-add into its owned nodes is complete locally; the other nodes
 * of those elements (a one-node ring around the block, including the
 * corner nodes of diagonal neighbours) are ghosts, refreshed from their
 * owners at the start of every step (point-to-point, only the needed
 * nodes; ghost.h). Local elements are processed in increasing global
 * element id, the serial order, so every owned node accumulates its
 * contributions in the same order as in the serial run.
 * Pair of mesh_serial.c. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include "params.h"
#include "checksum.h"
#include "ghost.h"

#define M MESH_M
#define NN MESH_NNODES
#define NEL MESH_NELEMS

__attribute__((noinline)) static void elements(int nel, const int *conn, const double *coef,
                                               const double *u, double *acc)
{
   for (int e = 0; e < nel; e++) {
      double w[4], r[4];
      for (int k = 0; k < 4; k++)
         w[k] = u[conn[4 * e + k]];
      mesh_element(w, coef[e], r);
      for (int k = 0; k < 4; k++)
         acc[conn[4 * e + k]] += r[k];
   }
}

__attribute__((noinline)) static void update(int nown, int nloc, double *u, double *acc,
                                             const double *minv)
{
   for (int a = 0; a < nown; a++)
      u[a] += MESH_DT * acc[a] * minv[a];
   for (int a = 0; a < nloc; a++)
      acc[a] = 0.0;
}

/* block decomposition of [0, M) into p parts: first index of part c */
static int lo(int c, int p)
{
   return (int)((long)c * M / p);
}

int main(int argc, char **argv)
{
   MPI_Init(&argc, &argv);
   int P, rank;
   MPI_Comm_size(MPI_COMM_WORLD, &P);
   int dims[2] = {0, 0}, periods[2] = {0, 0}, coords[2];
   MPI_Dims_create(P, 2, dims);
   MPI_Comm cart;
   MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
   MPI_Comm_rank(cart, &rank);
   MPI_Cart_coords(cart, rank, 2, coords);
   const int x0 = lo(coords[0], dims[0]), x1 = lo(coords[0] + 1, dims[0]);
   const int y0 = lo(coords[1], dims[1]), y1 = lo(coords[1] + 1, dims[1]);

   /* geometry of every node id (setup only; the mesh is generated) */
   int *ngx = malloc(sizeof(int) * NN), *ngy = malloc(sizeof(int) * NN);
   int *owner = malloc(sizeof(int) * NN), *g2l = malloc(sizeof(int) * NN);
   int *cxof = malloc(sizeof(int) * M), *cyof = malloc(sizeof(int) * M);
   for (int c = 0; c < dims[0]; c++)
      for (int g = lo(c, dims[0]); g < lo(c + 1, dims[0]); g++)
         cxof[g] = c;
   for (int c = 0; c < dims[1]; c++)
      for (int g = lo(c, dims[1]); g < lo(c + 1, dims[1]); g++)
         cyof[g] = c;
   for (int gy = 0; gy < M; gy++)
      for (int gx = 0; gx < M; gx++) {
         int a = mesh_node_id(gx, gy), cc[2] = {cxof[gx], cyof[gy]};
         ngx[a] = gx;
         ngy[a] = gy;
         MPI_Cart_rank(cart, cc, &owner[a]);
         g2l[a] = -1;
      }
   int *eex = malloc(sizeof(int) * NEL), *eey = malloc(sizeof(int) * NEL);
   for (int ey = 0; ey < MESH_NE; ey++)
      for (int ex = 0; ex < MESH_NE; ex++) {
         eex[mesh_elem_id(ex, ey)] = ex;
         eey[mesh_elem_id(ex, ey)] = ey;
      }

   /* owned nodes in ascending global id */
   int nown = 0;
   for (int a = 0; a < NN; a++)
      if (owner[a] == rank)
         g2l[a] = nown++;
   int *own_gid = malloc(sizeof(int) * nown);
   for (int a = 0; a < NN; a++)
      if (owner[a] == rank)
         own_gid[g2l[a]] = a;

   /* local elements: touching an owned node, in ascending global id */
   int nel = 0;
   int *lel = malloc(sizeof(int) * NEL);
   for (int e = 0; e < NEL; e++) {
      int ex = eex[e], ey = eey[e];
      if (ex + 1 >= x0 && ex < x1 && ey + 1 >= y0 && ey < y1)
         lel[nel++] = e;
   }

   /* ghosts: the other nodes of local elements, grouped by owner rank */
   char *isghost = calloc(NN, 1);
   int nghost = 0;
   for (int l = 0; l < nel; l++) {
      int ex = eex[lel[l]], ey = eey[lel[l]];
      for (int dy = 0; dy < 2; dy++)
         for (int dx = 0; dx < 2; dx++) {
            int a = mesh_node_id(ex + dx, ey + dy);
            if (owner[a] != rank && !isghost[a]) {
               isghost[a] = 1;
               nghost++;
            }
         }
   }
   int *ghost_gid = malloc(sizeof(int) * (nghost + 1));
   int *ghost_owner = malloc(sizeof(int) * (nghost + 1));
   int k = 0;
   for (int q = 0; q < P; q++)
      for (int a = 0; a < NN; a++)
         if (isghost[a] && owner[a] == q) {
            ghost_gid[k] = a;
            ghost_owner[k] = q;
            g2l[a] = nown + k++;
         }
   const int nloc = nown + nghost;

   int *conn = malloc(sizeof(int) * 4 * (nel + 1));
   double *coef = malloc(sizeof(double) * (nel + 1));
   for (int l = 0; l < nel; l++) {
      int ex = eex[lel[l]], ey = eey[lel[l]];
      conn[4 * l + 0] = g2l[mesh_node_id(ex, ey)];
      conn[4 * l + 1] = g2l[mesh_node_id(ex + 1, ey)];
      conn[4 * l + 2] = g2l[mesh_node_id(ex + 1, ey + 1)];
      conn[4 * l + 3] = g2l[mesh_node_id(ex, ey + 1)];
      coef[l] = mesh_coef(ex, ey);
   }
   double *u = malloc(sizeof(double) * nloc), *acc = malloc(sizeof(double) * nloc);
   double *minv = malloc(sizeof(double) * (nown + 1));
   for (int a = 0; a < nloc; a++) {
      int g = a < nown ? own_gid[a] : ghost_gid[a - nown];
      u[a] = mesh_u0(ngx[g], ngy[g]);
      acc[a] = 0.0;
      if (a < nown)
         minv[a] = mesh_minv(ngx[g], ngy[g]);
   }
   ghost_plan gp;
   ghost_plan_build(&gp, cart, nown, nghost, ghost_gid, ghost_owner, g2l);

   for (int t = 0; t < MESH_T; t++) {
      MPI_Pcontrol(1);
      ghost_exchange(&gp, u, cart);
      elements(nel, conn, coef, u, acc);
      update(nown, nloc, u, acc, minv);
      MPI_Pcontrol(0);
   }

   long bytes, msgs;
   ghost_plan_totals(&gp, cart, &bytes, &msgs);
   chk_t ck;
   double glob[3];
   chk_init(&ck);
   for (int a = 0; a < nown; a++)
      chk_point(&ck, (long)ngy[own_gid[a]] * M + ngx[own_gid[a]], u[a]);
   chk_reduce(&ck, cart);
   chk_result(&ck, glob);
   if (rank == 0) {
      printf("plan grid=%dx%d bytes_per_iter=%ld msgs_per_iter=%ld\n", dims[0], dims[1],
             bytes, msgs);
      printf("mesh elems=%d nodes=%d steps=%d checksum %.10e %.10e %.10e\n", NEL, NN,
             MESH_T, glob[0], glob[1], glob[2]);
   }
   ghost_plan_free(&gp);
   free(ngx); free(ngy); free(owner); free(g2l); free(cxof); free(cyof);
   free(eex); free(eey); free(own_gid); free(lel); free(isghost);
   free(ghost_gid); free(ghost_owner); free(conn); free(coef);
   free(u); free(acc); free(minv);
   MPI_Comm_free(&cart);
   MPI_Finalize();
   return 0;
}
/* SPDX-License-Identifier: GPL-2.0-or-later */
