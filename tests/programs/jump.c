/* longjmp out of a nested call chain, then normal calls again. */
#include <setjmp.h>
#include <stdlib.h>

static jmp_buf env;
static double *data;

static void inner(int k)
{
   data[k] = k;
   if (k == 3)
      longjmp(env, 1);
}

static void middle(int k) { inner(k); data[k + 1] = 0; }

static void after(void)
{
   for (int i = 0; i < 8; i++)
      data[i] += 1;                           /* line 20 */
}

int main(void)
{
   data = calloc(16, sizeof(double));
   for (int k = 0; k < 5; k++) {
      if (setjmp(env) == 0)
         middle(k);
   }
   after();
   free(data);
   return 0;
}
/* SPDX-License-Identifier: GPL-2.0-or-later */
