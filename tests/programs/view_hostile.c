/* Names that would end or reopen the page's data element if they were
   written into it unescaped (tests/test_view.py): a named block and a
   region whose names hold "</script>", "<!--<script>" and markup. */
#include <stdlib.h>
#include "cats.h"

#define EVIL "</script><script>window.pwned=1</script><!--<script>"
#define EVIL_REGION "</SCRIPT ><img src=x onerror=\"window.pwned=2\">"

int main(void)
{
   double *p = malloc(64 * sizeof(double));
   CATS_NAME_BLOCK(p, 64 * sizeof(double), EVIL);
   CATS_REGION_BEGIN(EVIL_REGION);
   for (int i = 0; i < 64; i++)
      p[i] = i;
   CATS_REGION_END(EVIL_REGION);
   double s = p[7];
   free(p);
   return s == 7 ? 0 : 1;
}
/* SPDX-License-Identifier: GPL-2.0-or-later */
