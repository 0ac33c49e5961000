/* Unstructured-mesh style: gather an element's node values into a small
   local array, compute, scatter to the element. The results depend on
   the gathered originals; the workspace is only a carrier. */
#define NODES 6
#define ELEMS 3
int conn[ELEMS][3] = { { 0, 1, 2 }, { 2, 3, 4 }, { 4, 5, 0 } };
double node[NODES], elem[ELEMS];

__attribute__((noipa)) static void init(int n)
{
   for (int i = 0; i < n; i++)
      node[i] = i;
}

__attribute__((noipa)) static void element(int e)
{
   double w[3];
   for (int j = 0; j < 3; j++)
      w[j] = node[conn[e][j]];
   for (int j = 0; j < 3; j++)
      w[j] = w[j] * 0.5;
   elem[e] = w[0] + w[1] + w[2];
}

int main(void)
{
   init(NODES);
   for (int e = 0; e < ELEMS; e++)
      element(e);
   return elem[1] == 4.5 ? 0 : 1;
}
/* SPDX-License-Identifier: GPL-2.0-or-later */
