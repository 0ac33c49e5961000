/* A global and a stack array, named as in the source, plus a block named
   by a client request and a region. */
#include <stdlib.h>
#include "cats.h"

double grid[256];
static int counters[32];

static double work(double *scratch, int n)
{
   for (int i = 0; i < n; i++)
      scratch[i] = grid[i] * 2;
   return scratch[n - 1];
}

int main(void)
{
   double local_buf[64];
   for (int i = 0; i < 256; i++)
      grid[i] = i;
   for (int i = 0; i < 64; i++)
      local_buf[i] = grid[i];
   double *field = malloc(512 * sizeof(double));
   CATS_NAME_BLOCK(field, 512 * sizeof(double), "pressure");
   for (int step = 0; step < 3; step++) {
      CATS_REGION_BEGIN("timestep");
      for (int i = 0; i < 512; i++)
         field[i] = local_buf[i % 64] + step;
      counters[step]++;
      CATS_REGION_END("timestep");
   }
   double r = work(local_buf, 64);
   free(field);
   return r < 0;
}
/* SPDX-License-Identifier: GPL-2.0-or-later */
