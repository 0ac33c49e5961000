/* A row-major 200 x 300 matrix written row by row (stride-1) and summed
   column by column (stride-k: 300 doubles, 2400 bytes, per step of the
   inner loop). */
#include <stdlib.h>

#define ROWS 200
#define COLS 300

int main(void)
{
   double *m = malloc(ROWS * COLS * sizeof(double));   /* line 11 */
   for (int i = 0; i < ROWS; i++)
      for (int j = 0; j < COLS; j++)
         m[i * COLS + j] = i + j;             /* line 14 */
   double s = 0;
   for (int j = 0; j < COLS; j++)
      for (int i = 0; i < ROWS; i++)
         s += m[i * COLS + j];                /* line 18 */
   free(m);
   return s < 0;
}
/* SPDX-License-Identifier: GPL-2.0-or-later */
