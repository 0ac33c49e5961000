/* SPDX-License-Identifier: GPL-2.0-or-later */
/* trace_decode_vcg.c: decode section 7, the value communication graph.
 *
 * Layout and meaning are in docs/VCG.md. Besides sizes and references
 * (allocs, contexts and locs may be NONE; edge ends must be vertices) the
 * decoder checks what consumers rely on: known flags, versions >= 1, the
 * vertex order, edges sorted by (src, dst, ctx) without duplicates, and
 * 1 <= versions <= uses on every edge. */
#include "trace_int.h"

#include <stdlib.h>

#include "le.h"

_Static_assert(32 + 8 == TRACE_VCG_VERTEX_RECORD, "VCG vertex size");
_Static_assert(16 + 4 == TRACE_VCG_EDGE_RECORD, "VCG edge size");

/* id must be below limit (or NONE when none_ok). */
static trace_status check_ref(uint32_t id, uint32_t limit, int none_ok,
                              const char *what, uint32_t i, const char *field,
                              char *err, size_t errlen)
{
   if ((none_ok && id == CATS_NONE) || id < limit)
      return TRACE_OK;
   return trace_fail(err, errlen, TRACE_EREF, "%s %u: %s %u out of range (%u)",
                     what, i, field, id, limit);
}

/* Memory vertices by (alloc, offset), then register intermediates by
 * loc (their tool id, the last key, is not in the file). */
static int vertex_before(const trace_vcg_vertex *a, const trace_vcg_vertex *b)
{
   int ra = (a->flags & CATS_VCG_REGISTER) != 0;
   int rb = (b->flags & CATS_VCG_REGISTER) != 0;
   if (ra != rb)
      return ra < rb;
   if (ra)
      return a->loc <= b->loc;
   return a->alloc != b->alloc ? a->alloc < b->alloc
                               : a->offset <= b->offset;
}

/* Vertex i into *v; q is vertex i - 1 (NULL for the first). */
static trace_status parse_vertex(trace_file *t, const uint8_t *p, uint32_t i,
                                 trace_vcg_vertex *v, const trace_vcg_vertex *q,
                                 char *err, size_t errlen)
{
   v->alloc = le_u32(p);
   v->flags = le_u32(p + 4);
   v->offset = le_u64(p + 8);
   v->size = le_u32(p + 16);
   v->ctx = le_u32(p + 20);
   v->loc = le_u32(p + 24);
   v->versions = le_u32(p + 28);
   v->weight = le_u64(p + 32);
   trace_status st;
   if ((st = check_ref(v->alloc, t->nallocs, 1, "VCG vertex", i, "alloc",
                       err, errlen)) != TRACE_OK ||
       (st = check_ref(v->ctx, t->ncontexts, 1, "VCG vertex", i, "ctx", err,
                       errlen)) != TRACE_OK ||
       (st = check_ref(v->loc, t->nlocs, 1, "VCG vertex", i, "loc", err,
                       errlen)) != TRACE_OK)
      return st;
   if (v->flags & ~CATS_VCG_FLAGS)
      return trace_fail(err, errlen, TRACE_EVALUE,
                        "VCG vertex %u: unknown flags 0x%x", i, v->flags);
   if ((v->flags & CATS_VCG_REGISTER) &&
       ((v->flags & CATS_VCG_INPUT) || v->alloc != CATS_NONE))
      return trace_fail(err, errlen, TRACE_EVALUE,
                        "VCG vertex %u: a register intermediate that is an "
                        "input or in an allocation", i);
   if (v->versions == 0)
      return trace_fail(err, errlen, TRACE_EVALUE, "VCG vertex %u: no versions",
                        i);
   if (q && !vertex_before(q, v))
      return trace_fail(err, errlen, TRACE_EVALUE, "VCG vertex %u: out of order",
                        i);
   return TRACE_OK;
}

/* Edge i into *e; q is edge i - 1 (NULL for the first). */
static trace_status parse_edge(trace_file *t, const uint8_t *p, uint32_t i,
                               trace_vcg_edge *e, const trace_vcg_edge *q,
                               char *err, size_t errlen)
{
   const trace_vcg *g = &t->vcg;
   e->src = le_u32(p);
   e->dst = le_u32(p + 4);
   e->ctx = le_u32(p + 8);
   e->uses = le_u32(p + 12);
   e->versions = le_u32(p + 16);
   trace_status st;
   if ((st = check_ref(e->src, g->nvertices, 0, "VCG edge", i, "src", err,
                       errlen)) != TRACE_OK ||
       (st = check_ref(e->dst, g->nvertices, 0, "VCG edge", i, "dst", err,
                       errlen)) != TRACE_OK ||
       (st = check_ref(e->ctx, t->ncontexts, 1, "VCG edge", i, "ctx", err,
                       errlen)) != TRACE_OK)
      return st;
   if (e->uses == 0 || e->versions == 0 || e->versions > e->uses)
      return trace_fail(err, errlen, TRACE_EVALUE,
                        "VCG edge %u: uses %llu, versions %llu (need 1 <= "
                        "versions <= uses)", i, (unsigned long long)e->uses,
                        (unsigned long long)e->versions);
   if (q) {
      int after = q->src != e->src   ? q->src < e->src
                  : q->dst != e->dst ? q->dst < e->dst
                                     : q->ctx < e->ctx;
      if (!after)
         return trace_fail(err, errlen, TRACE_EVALUE,
                           "VCG edge %u: not after edge %u in (src, dst, ctx) "
                           "order", i, i - 1);
   }
   return TRACE_OK;
}

/* Whether the vertices and edges can be decoded where they are stored:
 * each record is its struct, little-endian, and both arrays are
 * aligned. */
static int fits_in_place(const uint8_t *vertices, const uint8_t *edges)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
   return sizeof(trace_vcg_vertex) == TRACE_VCG_VERTEX_RECORD &&
          __builtin_offsetof(trace_vcg_vertex, weight) == 32 &&
          sizeof(trace_vcg_edge) == TRACE_VCG_EDGE_RECORD &&
          (uintptr_t)vertices % _Alignof(trace_vcg_vertex) == 0 &&
          (uintptr_t)edges % _Alignof(trace_vcg_edge) == 0;
#else
   (void)vertices;
   (void)edges;
   return 0;
#endif
}

trace_status trace_decode_vcg(trace_file *t, const trace_section *s, int keep_graph,
                              uint8_t *block, char *err, size_t errlen)
{
   trace_vcg *g = &t->vcg;
   if (s->size < CATS_VCG_HEADER_SIZE)
      return trace_fail(err, errlen, TRACE_ERECORD,
                        "VCG: %zu bytes, too short for its header", s->size);
   uint32_t word = le_u32(s->data), nv = le_u32(s->data + 4);
   uint32_t ne = le_u32(s->data + 8);
   /* s->data + 12: reserved */
   uint64_t need = CATS_VCG_HEADER_SIZE +
                   (uint64_t)nv * TRACE_VCG_VERTEX_RECORD +
                   (uint64_t)ne * TRACE_VCG_EDGE_RECORD;
   if (need != s->size)
      return trace_fail(err, errlen, TRACE_ERECORD,
                        "VCG: %u vertices and %u edges need %llu bytes, the "
                        "section has %zu", nv, ne, (unsigned long long)need,
                        s->size);
   if (word == 0 || (word & (word - 1)) != 0)
      return trace_fail(err, errlen, TRACE_EVALUE,
                        "VCG: word size %u is not a power of two", word);
   /* Checking needs only the vertex or edge before. */
   trace_vcg_vertex vwindow[2];
   trace_vcg_edge window[2];
   if (keep_graph) {
      uint8_t *vs = block ? block + CATS_VCG_HEADER_SIZE : NULL;
      uint8_t *es = vs ? vs + (size_t)nv * TRACE_VCG_VERTEX_RECORD : NULL;
      t->vcg_in_block = vs && nv > 0 && ne > 0 && fits_in_place(vs, es);
      if (t->vcg_in_block) {
         g->vertices = (trace_vcg_vertex *)(void *)vs;
         g->edges = (trace_vcg_edge *)(void *)es;
      } else {
         g->vertices = calloc(nv ? nv : 1, sizeof *g->vertices);
         g->edges = calloc(ne ? ne : 1, sizeof *g->edges);
      }
      if (!g->vertices || !g->edges)
         return trace_fail(err, errlen, TRACE_ENOMEM, "out of memory (VCG)");
   }
   g->word_size = word;
   g->nvertices = nv;
   g->nedges = ne;
   t->has_vcg = 1;
   const uint8_t *p = s->data + CATS_VCG_HEADER_SIZE;
   for (uint32_t i = 0; i < nv; i++, p += TRACE_VCG_VERTEX_RECORD) {
      trace_vcg_vertex *v = keep_graph ? &g->vertices[i] : &vwindow[i & 1];
      const trace_vcg_vertex *q = i == 0       ? NULL
                                : keep_graph ? &g->vertices[i - 1]
                                             : &vwindow[(i - 1) & 1];
      trace_status st = parse_vertex(t, p, i, v, q, err, errlen);
      if (st != TRACE_OK)
         return st;
   }
   for (uint32_t i = 0; i < ne; i++, p += TRACE_VCG_EDGE_RECORD) {
      trace_vcg_edge *e = keep_graph ? &g->edges[i] : &window[i & 1];
      const trace_vcg_edge *q = i == 0        ? NULL
                              : keep_graph ? &g->edges[i - 1]
                                           : &window[(i - 1) & 1];
      trace_status st = parse_edge(t, p, i, e, q, err, errlen);
      if (st != TRACE_OK)
         return st;
   }
   return TRACE_OK;
}
