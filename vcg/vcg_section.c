/* vcg_section.c: serialise a vcg_graph as section 7 (see vcg_section.h). */
#include "vcg_section.h"

#include "../cats/format/cats_format.h"
#include "../cats/host/le.h"

/* The offsets below are written per field; pin them to the sizes. */
_Static_assert(32 + 8 == CATS_VCG_VERTEX_SIZE, "VCG vertex size");
_Static_assert(24 + 8 == CATS_VCG_EDGE_SIZE, "VCG edge size");

int vcg_section_write(const vcg_graph *g, cbuf *out)
{
   uint64_t size = CATS_VCG_HEADER_SIZE +
                   (uint64_t)g->nvertices * CATS_VCG_VERTEX_SIZE +
                   (uint64_t)g->nedges * CATS_VCG_EDGE_SIZE;
   if (size > UINT32_MAX || cbuf_reserve(out, (size_t)size) != 0)
      return -1;
   /* Room is reserved, so the records are filled in place. */
   uint8_t *p = out->data + out->len;
   cle_put32(p, g->word_size);
   cle_put32(p + 4, g->nvertices);
   cle_put32(p + 8, g->nedges);
   cle_put32(p + 12, 0);
   p += CATS_VCG_HEADER_SIZE;
   for (uint32_t i = 0; i < g->nvertices; i++, p += CATS_VCG_VERTEX_SIZE) {
      const vcg_vertex *v = &g->vertices[i];
      cle_put32(p, v->alloc);
      cle_put32(p + 4, v->flags);
      cle_put64(p + 8, v->offset);
      cle_put32(p + 16, v->size);
      cle_put32(p + 20, v->ctx);
      cle_put32(p + 24, v->loc);
      cle_put32(p + 28, v->versions);
      cle_put64(p + 32, v->weight);
   }
   for (uint32_t i = 0; i < g->nedges; i++, p += CATS_VCG_EDGE_SIZE) {
      const vcg_edge *e = &g->edges[i];
      cle_put32(p, e->src);
      cle_put32(p + 4, e->dst);
      cle_put32(p + 8, e->ctx);
      cle_put32(p + 12, 0);
      cle_put64(p + 16, e->uses);
      cle_put64(p + 24, e->versions);
   }
   out->len += (size_t)size;
   return 0;
}
