/* SPDX-License-Identifier: GPL-2.0-or-later */
/* vcg_section.c: serialise a vcg_graph as section 7 (see vcg_section.h). */
#include "vcg_section.h"

#include "cats/format/cats_format.h"
#include "cats/trace/le.h"
#include "cats/trace/var.h"

#include <stdlib.h>
#include <string.h>

/* The most bytes of one packed record: eight uvars of a vertex. */
#define VCG_SECTION_MAX_RECORD (8 * VAR_MAX_BYTES)

/* Vertex v after q (NULL for the first) at p; returns the byte after it.
 * NONE (alloc, ctx, loc) is written as 0, any other id as id + 1. */
static uint8_t *put_vertex(uint8_t *p, const vcg_vertex *v, const vcg_vertex *q)
{
   p = var_put_u(p, v->flags);
   p = var_put_u(p, (uint32_t)(v->alloc + 1u));
   /* Memory vertices are sorted by (alloc, offset): the offset from the
    * one before in the same allocation (a word size for an array). */
   p = var_put_u(p, q && CATS_VCG_OFFSET_FROM_PREVIOUS(v->flags, v->alloc, q->flags, q->alloc)
                       ? v->offset - q->offset : v->offset);
   p = var_put_u(p, v->size);
   p = var_put_u(p, (uint32_t)(v->ctx + 1u));
   p = var_put_u(p, (uint32_t)(v->loc + 1u));
   p = var_put_u(p, v->versions);
   return var_put_u(p, v->weight);
}

/* Edge e after q (NULL for the first) at p; returns the byte after it.
 * Edges are sorted by (src, dst, ctx): src from the edge before; dst from
 * the edge before when the src is the same, else from src (a stencil's
 * few distances); ctx from the edge before. */
static uint8_t *put_edge(uint8_t *p, const vcg_edge *e, const vcg_edge *q)
{
   uint32_t qsrc = q ? q->src : 0, qctx = q ? q->ctx + 1u : 0;
   p = var_put_u(p, e->src - qsrc);
   if (q && q->src == e->src)
      p = var_put_u(p, e->dst - q->dst);
   else
      p = var_put_s(p, (int64_t)e->dst - (int64_t)e->src);
   p = var_put_s(p, (int64_t)(uint32_t)(e->ctx + 1u) - (int64_t)qctx);
   p = var_put_u(p, e->uses);
   return var_put_u(p, e->uses - e->versions);
}

static void put_head(uint8_t *p, const vcg_graph *g)
{
   le_put32(p, g->word_size);
   le_put32(p + 4, g->nvertices);
   le_put32(p + 8, g->nedges);
   le_put32(p + 12, 0);   /* reserved */
}

/* Vertices [0, n) at p, or only counted when p is NULL; the bytes. */
static size_t pack_vertices(const vcg_vertex *v, uint32_t n, uint8_t *p)
{
   size_t len = 0;
   for (uint32_t i = 0; i < n; i++) {
      uint8_t rec[VCG_SECTION_MAX_RECORD];
      uint8_t *to = p ? p + len : rec;
      len += (size_t)(put_vertex(to, &v[i], i ? &v[i - 1] : NULL) - to);
   }
   return len;
}

/* Edges [from, n) after `last` (none when has_last is 0) at p, or only
 * counted when p is NULL; the bytes. */
static size_t pack_edges(const vcg_edge *e, uint32_t from, uint32_t n, vcg_edge last,
                         int has_last, uint8_t *p)
{
   size_t len = 0;
   for (uint32_t i = from; i < n; i++) {
      uint8_t rec[VCG_SECTION_MAX_RECORD];
      uint8_t *to = p ? p + len : rec;
      len += (size_t)(put_edge(to, &e[i], has_last ? &last : NULL) - to);
      last = e[i];
      has_last = 1;
   }
   return len;
}

uint64_t vcg_section_size(const vcg_graph *g)
{
   const vcg_edge none = { 0 };
   return CATS_VCG_HEADER_SIZE + (uint64_t)pack_vertices(g->vertices, g->nvertices, NULL) +
          (uint64_t)pack_edges(g->edges, 0, g->nedges, none, 0, NULL);
}

/* The payload at p, which has room for vcg_section_size(g) bytes. */
static void put_section(uint8_t *p, const vcg_graph *g)
{
   const vcg_edge none = { 0 };
   put_head(p, g);
   p += CATS_VCG_HEADER_SIZE;
   p += pack_vertices(g->vertices, g->nvertices, p);
   pack_edges(g->edges, 0, g->nedges, none, 0, p);
}

int vcg_section_write(const vcg_graph *g, trace_buf *out)
{
   uint64_t size = vcg_section_size(g);
   if (size > SIZE_MAX || trace_buf_reserve(out, (size_t)size) != 0)
      return -1;
   put_section(out->data + out->len, g);
   out->len += (size_t)size;
   return 0;
}

/* The packed edges written over the graph's own edge array, front to
 * back: an edge is read before its bytes are overwritten, and its packed
 * form (6 bytes for a stencil's) is written only where it ends before the
 * next edge starts. An edge that would pass it (packed edges longer than
 * 20 bytes so far, which a real graph never has) ends the pass. Returns
 * the bytes written; *done is the edges packed, *last the last of them. */
static size_t pack_edges_over(vcg_graph *g, uint32_t *done, vcg_edge *last)
{
   uint8_t *base = (uint8_t *)g->edges;
   size_t w = 0;
   uint32_t i;
   for (i = 0; i < g->nedges; i++) {
      vcg_edge e = g->edges[i];
      uint8_t rec[VCG_SECTION_MAX_RECORD];
      size_t len = (size_t)(put_edge(rec, &e, i ? last : NULL) - rec);
      if (w + len > (size_t)(i + 1) * sizeof(vcg_edge))
         break;
      memcpy(base + w, rec, len);
      w += len;
      *last = e;
   }
   *done = i;
   return w;
}

int vcg_section_take(vcg_graph *g, trace_buf *out)
{
   if (out->len != 0)
      return -1;
   /* The header and vertices apart (a tenth of the section), then the
    * edges over their own array: the peak is the graph, never the graph
    * and its section. */
   vcg_graph vonly = { g->word_size, g->nvertices, 0, g->vertices, NULL };
   trace_buf head = TRACE_BUF_INIT;
   if (vcg_section_write(&vonly, &head) != 0) {
      trace_buf_free(&head);
      return -1;
   }
   le_put32(head.data + 8, g->nedges);
   uint32_t n = g->nedges, done = 0;
   vcg_edge last = { 0 };
   size_t w = n ? pack_edges_over(g, &done, &last) : 0;
   /* Edges that did not fit, still whole after the packed ones. */
   size_t tlen = pack_edges(g->edges, done, n, last, done > 0, NULL);
   uint8_t *tail = tlen ? malloc(tlen) : NULL;
   if (tail)
      pack_edges(g->edges, done, n, last, done > 0, tail);
   size_t total = head.len + w + tlen, have = (size_t)n * sizeof(vcg_edge);
   uint8_t *buf = (uint8_t *)g->edges;
   uint8_t *grown = total > have ? realloc(buf, total) : buf;
   if ((tlen && !tail) || !grown) {
      free(tail);
      trace_buf_free(&head);
      free(g->edges);   /* partly overwritten: the graph is lost */
      g->edges = NULL;
      g->nedges = 0;
      return -1;
   }
   buf = grown;
   memmove(buf + head.len, buf, w);
   memcpy(buf, head.data, head.len);
   if (tlen)
      memcpy(buf + head.len + w, tail, tlen);
   free(tail);
   trace_buf_free(&head);
   size_t cap = total > have ? total : have;
   if (total < have) {
      uint8_t *shrunk = realloc(buf, total);
      if (shrunk) {
         buf = shrunk;
         cap = total;
      }
   }
   trace_buf_free(out);
   out->data = buf;
   out->len = total;
   out->cap = cap;
   g->edges = NULL;
   g->nedges = 0;
   return 0;
}
