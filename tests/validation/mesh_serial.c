/* mesh_serial.c: an unstructured-mesh kernel on a 2-D quadrilateral mesh
 * of NE x NE elements and (NE+1)^2 nodes, stored as element->node
 * connectivity with nodes and elements numbered in a scrambled (but
 * deterministic) order, so every access is indirect. Per time step:
 * for each element gather its 4 nodal values into a workspace, compute
 * the element contributions and scatter-add them into an accumulator;
 * then update every node from the accumulator. Each step is one cats
 * region. Pair of mesh_mpi.c. */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include "cats.h"
#include "params.h"
#include "checksum.h"

#define NN MESH_NNODES
#define NEL MESH_NELEMS

__attribute__((noinline)) static void build(int *conn, double *coef, double *u,
                                            double *minv, double *acc)
{
   for (int ey = 0; ey < MESH_NE; ey++)
      for (int ex = 0; ex < MESH_NE; ex++) {
         int e = mesh_elem_id(ex, ey);
         conn[4 * e + 0] = mesh_node_id(ex, ey);       /* counter-clockwise */
         conn[4 * e + 1] = mesh_node_id(ex + 1, ey);
         conn[4 * e + 2] = mesh_node_id(ex + 1, ey + 1);
         conn[4 * e + 3] = mesh_node_id(ex, ey + 1);
         coef[e] = mesh_coef(ex, ey);
      }
   for (int gy = 0; gy < MESH_M; gy++)
      for (int gx = 0; gx < MESH_M; gx++) {
         int a = mesh_node_id(gx, gy);
         u[a] = mesh_u0(gx, gy);
         minv[a] = mesh_minv(gx, gy);
         acc[a] = 0.0;
      }
}

__attribute__((noinline)) static void elements(int nel, const int *conn, const double *coef,
                                               const double *u, double *acc)
{
   for (int e = 0; e < nel; e++) {
      double w[4], r[4];
      for (int k = 0; k < 4; k++)
         w[k] = u[conn[4 * e + k]];               /* gather */
      mesh_element(w, coef[e], r);
      for (int k = 0; k < 4; k++)
         acc[conn[4 * e + k]] += r[k];            /* scatter-add */
   }
}

__attribute__((noinline)) static void update(int nn, double *u, double *acc,
                                             const double *minv)
{
   for (int a = 0; a < nn; a++) {
      u[a] += MESH_DT * acc[a] * minv[a];
      acc[a] = 0.0;
   }
}

int main(void)
{
   int *conn = malloc(sizeof(int) * 4 * NEL);
   double *coef = malloc(sizeof(double) * NEL);
   double *u = malloc(sizeof(double) * NN);
   double *minv = malloc(sizeof(double) * NN);
   double *acc = malloc(sizeof(double) * NN);
   CATS_NAME_BLOCK(conn, sizeof(int) * 4 * NEL, "conn");
   CATS_NAME_BLOCK(coef, sizeof(double) * NEL, "coef");
   CATS_NAME_BLOCK(u, sizeof(double) * NN, "u");
   CATS_NAME_BLOCK(minv, sizeof(double) * NN, "minv");
   CATS_NAME_BLOCK(acc, sizeof(double) * NN, "acc");
   build(conn, coef, u, minv, acc);
   for (int t = 0; t < MESH_T; t++) {
      CATS_REGION_BEGIN("step");
      elements(NEL, conn, coef, u, acc);
      update(NN, u, acc, minv);
      CATS_REGION_END("step");
   }
   chk_t ck;
   double r[3];
   chk_init(&ck);
   for (int gy = 0; gy < MESH_M; gy++)          /* geometric index */
      for (int gx = 0; gx < MESH_M; gx++)
         chk_point(&ck, (long)gy * MESH_M + gx, u[mesh_node_id(gx, gy)]);
   chk_result(&ck, r);
   printf("mesh elems=%d nodes=%d steps=%d checksum %.10e %.10e %.10e\n", NEL, NN,
          MESH_T, r[0], r[1], r[2]);
   free(conn);
   free(coef);
   free(u);
   free(minv);
   free(acc);
   return 0;
}
/* SPDX-License-Identifier: GPL-2.0-or-later */
