/* vcg_section.c: serialise a vcg_graph as section 7 (see vcg_section.h). */
#include "vcg_section.h"

#include "../cats/format/cats_format.h"
#include "../cats/host/le.h"

#include <stdlib.h>
#include <string.h>

/* The offsets below are written per field; pin them to the sizes. */
_Static_assert(32 + 8 == CATS_VCG_VERTEX_SIZE, "VCG vertex size");
_Static_assert(16 + 4 == CATS_VCG_EDGE_SIZE, "VCG edge size");
/* vcg_section_take converts edges into records in place. */
_Static_assert(sizeof(vcg_edge) <= CATS_VCG_EDGE_SIZE, "edge grows");

static uint64_t section_size(const vcg_graph *g)
{
   return CATS_VCG_HEADER_SIZE +
          (uint64_t)g->nvertices * CATS_VCG_VERTEX_SIZE +
          (uint64_t)g->nedges * CATS_VCG_EDGE_SIZE;
}

static void put_edge(uint8_t *p, const vcg_edge *e)
{
   cle_put32(p, e->src);
   cle_put32(p + 4, e->dst);
   cle_put32(p + 8, e->ctx);
   cle_put32(p + 12, e->uses);
   cle_put32(p + 16, e->versions);
}

/* The header and vertices at p. */
static void put_head(uint8_t *p, const vcg_graph *g)
{
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
}

int vcg_section_write(const vcg_graph *g, cbuf *out)
{
   uint64_t size = section_size(g);
   if (size > UINT32_MAX || cbuf_reserve(out, (size_t)size) != 0)
      return -1;
   /* Room is reserved, so the records are filled in place. */
   uint8_t *p = out->data + out->len;
   put_head(p, g);
   p += CATS_VCG_HEADER_SIZE + (size_t)g->nvertices * CATS_VCG_VERTEX_SIZE;
   for (uint32_t i = 0; i < g->nedges; i++, p += CATS_VCG_EDGE_SIZE)
      put_edge(p, &g->edges[i]);
   out->len += (size_t)size;
   return 0;
}

int vcg_section_take(vcg_graph *g, cbuf *out)
{
   uint64_t size = section_size(g);
   if (size > UINT32_MAX || out->len != 0)
      return -1;
   uint8_t *buf = realloc(g->edges, (size_t)size);
   if (!buf)
      return -1;
   g->edges = (vcg_edge *)buf;
   /* From the last edge down: record i (at base + 20 i) starts after
    * edge i - 1 (which ends at 20 i), and edge i is read before record i
    * is written. The header and vertices then overwrite edges already
    * moved. The array grows only by the header and the vertices. */
   size_t base = CATS_VCG_HEADER_SIZE +
                 (size_t)g->nvertices * CATS_VCG_VERTEX_SIZE;
   for (uint32_t i = g->nedges; i-- > 0;) {
      vcg_edge e;
      memcpy(&e, buf + (size_t)i * sizeof e, sizeof e);
      put_edge(buf + base + (size_t)i * CATS_VCG_EDGE_SIZE, &e);
   }
   put_head(buf, g);
   cbuf_free(out);
   out->data = buf;
   out->len = out->cap = (size_t)size;
   g->edges = NULL;
   g->nedges = 0;
   return 0;
}
