/* vcg_records.c: the distinct SOURCES records of each vertex (see
 * vcg_records.h). */
#include "vcg_records.h"

#include <stdlib.h>
#include <string.h>

#include "../cats/host/le.h"

/* Records of one vertex compared before a repeat is taken for new: a
 * vertex whose sources never repeat must not cost a walk of all of them.
 * A record missed this way is stored twice, which costs memory only. */
#define VREC_RING_WALK 64

static int same(const vrec_pool *p, const vb_edge *e, uint32_t r,
                uint32_t ctx, uint32_t n, const uint8_t *ids)
{
   const uint32_t *h = vrec_at(p, r);
   if (h[VREC_CTX] != ctx || h[VREC_N] != n)
      return 0;
   const uint32_t *edges = h + VREC_HEAD;
   for (uint32_t k = 0; k < n; k++)
      if (e[edges[k]].src != cle_u32(ids + 4 * (size_t)k))
         return 0;
   return 1;
}

uint32_t vrec_find(const vrec_pool *p, const vb_edge *e, uint32_t open,
                   uint32_t ctx, uint32_t n, const uint8_t *ids)
{
   /* From the one after it, around to itself. */
   uint32_t r = open;
   for (int k = 0; k < VREC_RING_WALK; k++) {
      r = vrec_at(p, r)[VREC_RING];
      if (same(p, e, r, ctx, n, ids))
         return r;
      if (r == open)
         break;
   }
   return VREC_NIL;
}

uint32_t vrec_new(vrec_pool *p, uint32_t ring, uint32_t ctx, uint32_t n)
{
   size_t need = p->len + vrec_words(n);
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
   uint32_t *h = vrec_at(p, r);
   h[VREC_CTX] = ctx;
   h[VREC_N] = n;
   h[VREC_OWED] = 0;
   if (ring == VREC_NIL) {
      h[VREC_RING] = r;
   } else {
      h[VREC_RING] = vrec_at(p, ring)[VREC_RING];
      vrec_at(p, ring)[VREC_RING] = r;
   }
   return r;
}

void vrec_flush(vrec_pool *p, vb_edge *e)
{
   for (size_t r = 0; r < p->len;) {
      uint32_t *h = vrec_at(p, (uint32_t)r);
      uint32_t n = h[VREC_N], owed = h[VREC_OWED];
      if (owed) {
         const uint32_t *edges = vrec_edges(p, (uint32_t)r);
         for (uint32_t k = 0; k < vrec_nedges(n); k++)
            e[edges[k]].uses += owed;
         h[VREC_OWED] = 0;
      }
      r += vrec_words(n);
   }
}

uint32_t vrec_copy(vrec_pool *to, const vrec_pool *from, uint32_t r)
{
   const uint32_t *h = vrec_at(from, r);
   uint32_t c = vrec_new(to, VREC_NIL, h[VREC_CTX], h[VREC_N]);
   if (c == VREC_NIL)
      return VREC_NIL;
   uint32_t *d = vrec_at(to, c);
   d[VREC_OWED] = h[VREC_OWED];
   memcpy(d + VREC_HEAD, h + VREC_HEAD,
          (vrec_words(h[VREC_N]) - VREC_HEAD) * sizeof *d);
   return c;
}

void vrec_free(vrec_pool *p)
{
   free(p->w);
   *p = (vrec_pool)VREC_POOL_INIT;
}
