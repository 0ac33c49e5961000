/* SPDX-License-Identifier: GPL-2.0-or-later */
/* vcg_index.c: open-addressing hash index (see vcg_index.h). */
#include "vcg_index.h"

#include <stdlib.h>
#include <string.h>

#define VCG_INDEX_MIN 64u

int vcg_index_reserve(vcg_index *x, vcg_index_hash_fn hash, const void *ctx)
{
   uint64_t slots = x->slot ? (uint64_t)x->mask + 1 : 0;
   /* At most half full: a miss (a new list, which is most lookups on a
    * graph of register intermediates) then probes 2.5 slots on average,
    * each a cache miss into the pool, against 8.5 at 3/4 (TeaLeaf's
    * helper spent a third of its time probing). */
   if (x->slot && ((uint64_t)x->count + 1) * 2 <= slots)
      return 0;
   uint64_t ns = slots ? slots * 2 : VCG_INDEX_MIN;
   if (ns > ((uint64_t)1 << 32) || ns > SIZE_MAX / sizeof *x->slot)
      return -1;
   uint32_t *s = malloc((size_t)ns * sizeof *s);
   if (!s)
      return -1;
   memset(s, 0xFF, (size_t)ns * sizeof *s);   /* all VCG_INDEX_EMPTY */
   uint32_t mask = (uint32_t)(ns - 1);
   for (uint64_t k = 0; k < slots; k++) {
      uint32_t i = x->slot[k];
      if (i == VCG_INDEX_EMPTY)
         continue;
      uint32_t pos = (uint32_t)hash(ctx, i) & mask;
      while (s[pos] != VCG_INDEX_EMPTY)
         pos = (pos + 1) & mask;
      s[pos] = i;
   }
   free(x->slot);
   x->slot = s;
   x->mask = mask;
   return 0;
}

size_t vcg_index_bytes(const vcg_index *x)
{
   return x->slot ? ((size_t)x->mask + 1) * sizeof *x->slot : 0;
}

void vcg_index_free(vcg_index *x)
{
   free(x->slot);
   x->slot = NULL;
   x->mask = x->count = 0;
}
