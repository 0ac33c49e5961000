/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A finite-element assembly's quadrature (the element loop of miniFE's
   diffusionMatrix_symm): for each of 8 hexahedra of a 2x2x2 mesh, its 8
   nodes' coordinates (24 words of coord) are gathered, and at each of 8
   Gauss points the Jacobian J (9 entries, each a sum over the nodes of
   a shape function derivative, a word of dshape, times a coordinate), its
   determinant, its inverse and the 8 shape functions' gradients give the
   36 entries of the symmetric element matrix (elem). Each entry of J is
   made from 16 words (8 of dshape, 8 of coord) and then read whole by the
   determinant, the inverse and the gradients. */
#include <stdio.h>

#define N  2
#define NN (N + 1)
#define NE (N * N * N)

static double dshape[8][8][3];
static double coord[3 * NN * NN * NN];
static double elem[NE * 36];

int main(void)
{
   for (int i = 0; i < NN * NN * NN; i++)
      for (int c = 0; c < 3; c++)
         coord[3 * i + c] = (c == 0 ? i % NN : c == 1 ? i / NN % NN : i / (NN * NN))
                            + 0.01 * (i % 5);
   for (int g = 0; g < 8; g++)
      for (int n = 0; n < 8; n++)
         for (int a = 0; a < 3; a++)
            dshape[g][n][a] = ((n >> a) & 1 ? 0.125 : -0.125) * (1 + 0.1 * g);
   for (int e = 0; e < NE; e++) {
      int ex = e % N, ey = e / N % N, ez = e / (N * N);
      double xe[8][3];
      for (int n = 0; n < 8; n++) {
         int node = ex + (n & 1) + NN * (ey + (n >> 1 & 1) + NN * (ez + (n >> 2 & 1)));
         for (int c = 0; c < 3; c++)
            xe[n][c] = coord[3 * node + c];
      }
      double ke[36] = { 0 };
      for (int g = 0; g < 8; g++) {
         double J[3][3] = { { 0 } };
         for (int n = 0; n < 8; n++)
            for (int a = 0; a < 3; a++)
               for (int b = 0; b < 3; b++)
                  J[a][b] += dshape[g][n][a] * xe[n][b];
         double det = J[0][0] * (J[1][1] * J[2][2] - J[1][2] * J[2][1])
                      - J[0][1] * (J[1][0] * J[2][2] - J[1][2] * J[2][0])
                      + J[0][2] * (J[1][0] * J[2][1] - J[1][1] * J[2][0]);
         double inv[3][3];
         for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++)
               inv[a][b] = (J[(b + 1) % 3][(a + 1) % 3] * J[(b + 2) % 3][(a + 2) % 3]
                            - J[(b + 1) % 3][(a + 2) % 3] * J[(b + 2) % 3][(a + 1) % 3]) / det;
         double grad[8][3];
         for (int n = 0; n < 8; n++)
            for (int a = 0; a < 3; a++)
               grad[n][a] = inv[a][0] * dshape[g][n][0] + inv[a][1] * dshape[g][n][1]
                            + inv[a][2] * dshape[g][n][2];
         int k = 0;
         for (int i = 0; i < 8; i++)
            for (int j = i; j < 8 && k < 36; j++, k++)
               ke[k] += det * (grad[i][0] * grad[j][0] + grad[i][1] * grad[j][1]
                               + grad[i][2] * grad[j][2]);
      }
      for (int k = 0; k < 36; k++)
         elem[36 * e + k] += ke[k];
   }
   double s = 0;
   for (int i = 0; i < NE * 36; i++)
      s += elem[i];
   printf("%.6f\n", s);
   return 0;
}
