/* A column-wise walk of a row-major matrix: the inner loop moves by a
   whole row (stride-k), the outer by one element. */
#include <stdlib.h>

#define ROWS 200
#define COLS 300

int main(void)
{
   double *m = malloc(ROWS * COLS * sizeof(double));
   for (int i = 0; i < ROWS * COLS; i++)
      m[i] = i;
   double s = 0;
   for (int j = 0; j < COLS; j++)
      for (int i = 0; i < ROWS; i++)
         s += m[i * COLS + j];                /* line 16 */
   free(m);
   return s < 0;
}
/* SPDX-License-Identifier: GPL-2.0-or-later */
