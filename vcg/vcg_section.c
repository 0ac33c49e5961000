/* SPDX-License-Identifier: GPL-2.0-or-later */
/* vcg_section.c: serialise a vcg_graph as section 7 (see vcg_section.h). */
#include "vcg_section.h"

#include "cats/format/cats_format.h"
#include "cats/trace/le.h"

#include <stdlib.h>
#include <string.h>

/* The offsets below are written per field; pin them to the sizes. */
_Static_assert(32 + 8 == CATS_VCG_VERTEX_SIZE, "VCG vertex size");
_Static_assert(16 + 4 == CATS_VCG_EDGE_SIZE, "VCG edge size");
/* vcg_section_take converts edges into records in place. */
_Static_assert(sizeof(vcg_edge) <= CATS_VCG_EDGE_SIZE, "edge grows");

uint64_t vcg_section_size(const vcg_graph *g)
{
   return CATS_VCG_HEADER_SIZE +
          (uint64_t)g->nvertices * CATS_VCG_VERTEX_SIZE +
          (uint64_t)g->nedges * CATS_VCG_EDGE_SIZE;
}

static void put_edge(uint8_t *p, const vcg_edge *e)
{
   le_put32(p, e->src);
   le_put32(p + 4, e->dst);
   le_put32(p + 8, e->ctx);
   le_put32(p + 12, e->uses);
   le_put32(p + 16, e->versions);
}

/* The header and vertices at p. */
static void put_head(uint8_t *p, const vcg_graph *g)
{
   le_put32(p, g->word_size);
   le_put32(p + 4, g->nvertices);
   le_put32(p + 8, g->nedges);
   le_put32(p + 12, 0);
   p += CATS_VCG_HEADER_SIZE;
   for (uint32_t i = 0; i < g->nvertices; i++, p += CATS_VCG_VERTEX_SIZE) {
      const vcg_vertex *v = &g->vertices[i];
      le_put32(p, v->alloc);
      le_put32(p + 4, v->flags);
      le_put64(p + 8, v->offset);
      le_put32(p + 16, v->size);
      le_put32(p + 20, v->ctx);
      le_put32(p + 24, v->loc);
      le_put32(p + 28, v->versions);
      le_put64(p + 32, v->weight);
   }
}

int vcg_section_write(const vcg_graph *g, trace_buf *out)
{
   uint64_t size = vcg_section_size(g);
   if (trace_buf_reserve(out, (size_t)size) != 0)
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

int vcg_section_take(vcg_graph *g, trace_buf *out)
{
   uint64_t size = vcg_section_size(g);
   if (out->len != 0)
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
   trace_buf_free(out);
   out->data = buf;
   out->len = out->cap = (size_t)size;
   g->edges = NULL;
   g->nedges = 0;
   return 0;
}
