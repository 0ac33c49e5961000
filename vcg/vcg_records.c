/* SPDX-License-Identifier: GPL-2.0-or-later */
/* vcg_records.c: the distinct SOURCES records of each vertex (see
 * vcg_records.h). */
#include "vcg_records.h"

#include <stdlib.h>
#include <string.h>


/* Words of a record of nedges edges in the form `form` (0, or
 * VCG_RECORDS_WIDE or VCG_RECORDS_RUN). */
static size_t words_for(uint32_t nedges, uint32_t form)
{
   return VCG_RECORDS_HEAD + 1 +
          (form == VCG_RECORDS_RUN ? 0 : form == VCG_RECORDS_WIDE ? nedges - 1 : nedges / 2);
}

size_t vcg_records_len(const vcg_records_pool *p, uint32_t r)
{
   return words_for(vcg_records_nedges(vcg_records_n(p, r)),
                    p->w[r + VCG_RECORDS_N] & (VCG_RECORDS_WIDE | VCG_RECORDS_RUN));
}

/* Room for `words` more; the offset of the first, or VCG_RECORDS_NIL. */
static uint32_t reserve(vcg_records_pool *p, size_t words)
{
   size_t need = p->len + words;
   if (need >= VCG_RECORDS_NIL)
      return VCG_RECORDS_NIL;
   if (need > p->cap) {
      size_t nc = p->cap + p->cap / 2 + 256;
      if (nc < need)
         nc = need;
      if (nc >= VCG_RECORDS_NIL)
         nc = VCG_RECORDS_NIL - 1;
      uint32_t *w = realloc(p->w, nc * sizeof *w);
      if (!w)
         return VCG_RECORDS_NIL;
      p->w = w;
      p->cap = nc;
   }
   uint32_t r = (uint32_t)p->len;
   p->len = need;
   return r;
}

static void link_ring(vcg_records_pool *p, uint32_t r, uint32_t ring)
{
   uint32_t *h = vcg_records_at(p, r);
   if (ring == VCG_RECORDS_NIL) {
      h[VCG_RECORDS_RING] = r;
   } else {
      h[VCG_RECORDS_RING] = vcg_records_at(p, ring)[VCG_RECORDS_RING];
      vcg_records_at(p, ring)[VCG_RECORDS_RING] = r;
   }
}

uint32_t vcg_records_new(vcg_records_pool *p, uint32_t ring, const uint32_t *edges,
                         uint32_t n)
{
   uint32_t ne = vcg_records_nedges(n);
   int wide = 0, run = 1;
   for (uint32_t k = 1; k < ne && !wide; k++) {
      int64_t d = (int64_t)edges[k] - (int64_t)edges[0];
      wide = d < INT16_MIN || d > INT16_MAX;
      run = run && d == (int64_t)k;
   }
   uint32_t form = run ? VCG_RECORDS_RUN : wide ? VCG_RECORDS_WIDE : 0;
   uint32_t r = reserve(p, words_for(ne, form));
   if (r == VCG_RECORDS_NIL)
      return VCG_RECORDS_NIL;
   uint32_t *h = vcg_records_at(p, r);
   h[VCG_RECORDS_N] = n | form;
   h[VCG_RECORDS_HEAD] = edges[0];
   if (run) {
      /* edge k is edge 0 + k */
   } else if (wide) {
      memcpy(h + VCG_RECORDS_HEAD + 1, edges + 1, (ne - 1) * sizeof *edges);
   } else {
      uint32_t *packed = h + VCG_RECORDS_HEAD + 1;
      for (uint32_t k = 1; k < ne; k++) {
         uint32_t d = (uint16_t)(int16_t)(int32_t)(edges[k] - edges[0]);
         if ((k - 1) % 2)
            packed[(k - 1) / 2] |= d << 16;
         else
            packed[(k - 1) / 2] = d;
      }
   }
   link_ring(p, r, ring);
   return r;
}

uint32_t vcg_records_copy(vcg_records_pool *to, const vcg_records_pool *from, uint32_t r,
                          uint32_t ring)
{
   size_t words = vcg_records_len(from, r);
   uint32_t c = reserve(to, words);
   if (c == VCG_RECORDS_NIL)
      return VCG_RECORDS_NIL;
   memcpy(vcg_records_at(to, c), vcg_records_at(from, r), words * sizeof *to->w);
   link_ring(to, c, ring);
   return c;
}

void vcg_records_free(vcg_records_pool *p)
{
   free(p->w);
   *p = (vcg_records_pool)VCG_RECORDS_POOL_INIT;
}
