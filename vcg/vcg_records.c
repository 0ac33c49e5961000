/* vcg_records.c: the distinct SOURCES records of each vertex (see
 * vcg_records.h). */
#include "vcg_records.h"

#include <stdlib.h>
#include <string.h>


static size_t words_for(uint32_t nedges, int wide)
{
   return VREC_HEAD + 1 + (wide ? nedges - 1 : nedges / 2);
}

size_t vrec_len(const vrec_pool *p, uint32_t r)
{
   return words_for(vrec_nedges(vrec_n(p, r)),
                    (p->w[r + VREC_N] & VREC_WIDE) != 0);
}

/* Room for `words` more; the offset of the first, or VREC_NIL. */
static uint32_t reserve(vrec_pool *p, size_t words)
{
   size_t need = p->len + words;
   if (need >= VREC_NIL)
      return VREC_NIL;
   if (need > p->cap) {
      size_t nc = p->cap + p->cap / 2 + 256;
      if (nc < need)
         nc = need;
      if (nc >= VREC_NIL)
         nc = VREC_NIL - 1;
      uint32_t *w = realloc(p->w, nc * sizeof *w);
      if (!w)
         return VREC_NIL;
      p->w = w;
      p->cap = nc;
   }
   uint32_t r = (uint32_t)p->len;
   p->len = need;
   return r;
}

static void link_ring(vrec_pool *p, uint32_t r, uint32_t ring)
{
   uint32_t *h = vrec_at(p, r);
   if (ring == VREC_NIL) {
      h[VREC_RING] = r;
   } else {
      h[VREC_RING] = vrec_at(p, ring)[VREC_RING];
      vrec_at(p, ring)[VREC_RING] = r;
   }
}

uint32_t vrec_new(vrec_pool *p, uint32_t ring, const uint32_t *edges,
                  uint32_t n)
{
   uint32_t ne = vrec_nedges(n);
   int wide = 0;
   for (uint32_t k = 1; k < ne && !wide; k++) {
      int64_t d = (int64_t)edges[k] - (int64_t)edges[0];
      wide = d < INT16_MIN || d > INT16_MAX;
   }
   uint32_t r = reserve(p, words_for(ne, wide));
   if (r == VREC_NIL)
      return VREC_NIL;
   uint32_t *h = vrec_at(p, r);
   h[VREC_N] = n | (wide ? VREC_WIDE : 0);
   h[VREC_HEAD] = edges[0];
   if (wide) {
      memcpy(h + VREC_HEAD + 1, edges + 1, (ne - 1) * sizeof *edges);
   } else {
      uint32_t *packed = h + VREC_HEAD + 1;
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

uint32_t vrec_copy(vrec_pool *to, const vrec_pool *from, uint32_t r,
                   uint32_t ring)
{
   size_t words = vrec_len(from, r);
   uint32_t c = reserve(to, words);
   if (c == VREC_NIL)
      return VREC_NIL;
   memcpy(vrec_at(to, c), vrec_at(from, r), words * sizeof *to->w);
   link_ring(to, c, ring);
   return c;
}

void vrec_free(vrec_pool *p)
{
   free(p->w);
   *p = (vrec_pool)VREC_POOL_INIT;
}
