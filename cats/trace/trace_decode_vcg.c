/* SPDX-License-Identifier: GPL-2.0-or-later */
/* trace_decode_vcg.c: decode section 7, the value communication graph.
 *
 * Layout in docs/FORMAT.md (each record a few variable-length numbers
 * relative to the one before), meaning in docs/VCG.md. Besides sizes and
 * references (allocs, contexts and locs may be NONE; edge ends must be
 * vertices) the decoder checks what consumers rely on: known flags,
 * versions >= 1, the vertex order, edges sorted by (dst, src, ctx)
 * without duplicates, and 1 <= versions <= uses on every edge. The file
 * has the edges in (dst, src, ctx) order, as the helper makes them;
 * readers get them in (src, dst, ctx) order (trace.h). */
#include "trace_int.h"

#include <stdlib.h>
#include <string.h>

#include "le.h"
#include "var.h"

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

/* Vertex i as decoded; q is vertex i - 1 (NULL for the first). */
static trace_status check_vertex(trace_file *t, uint32_t i, const trace_vcg_vertex *v,
                                 const trace_vcg_vertex *q, char *err, size_t errlen)
{
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

/* Edge i as decoded; q is edge i - 1 (NULL for the first). */
static trace_status check_edge(trace_file *t, uint32_t i, const trace_vcg_edge *e,
                               const trace_vcg_edge *q, char *err, size_t errlen)
{
   const trace_vcg *g = &t->vcg;
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
      int after = q->dst != e->dst   ? q->dst < e->dst
                  : q->src != e->src ? q->src < e->src
                                     : q->ctx < e->ctx;
      if (!after)
         return trace_fail(err, errlen, TRACE_EVALUE,
                           "VCG edge %u: not after edge %u in (dst, src, ctx) "
                           "order", i, i - 1);
   }
   return TRACE_OK;
}

/* A number that ended the payload early or does not fit its field. */
static trace_status bad_var(int r, const char *what, uint32_t i, const char *field,
                            char *err, size_t errlen)
{
   return trace_fail(err, errlen, TRACE_ERECORD, "%s %u: %s %s", what, i, field,
                     r == -1 ? "cut short by the section's end" : "out of range");
}

/* An id written as id + 1, 0 for NONE. */
static uint32_t id_of(uint32_t x)
{
   return x - 1u;
}

/* Vertex i after q (NULL for the first) from in. */
static trace_status packed_vertex(var_in *in, uint32_t i, trace_vcg_vertex *v,
                                  const trace_vcg_vertex *q, char *err, size_t errlen)
{
   static const char *const field[] = { "flags", "alloc", "offset", "size", "ctx",
                                        "loc", "versions", "weight" };
   uint32_t alloc1 = 0, ctx1 = 0, loc1 = 0;
   uint64_t off = 0;
   int r, k = 0;
   if ((r = var_get_u32(in, &v->flags)) || (k++, r = var_get_u32(in, &alloc1)) ||
       (k++, r = var_get_u(in, &off)) || (k++, r = var_get_u32(in, &v->size)) ||
       (k++, r = var_get_u32(in, &ctx1)) || (k++, r = var_get_u32(in, &loc1)) ||
       (k++, r = var_get_u32(in, &v->versions)) || (k++, r = var_get_u(in, &v->weight)))
      return bad_var(r, "VCG vertex", i, field[k], err, errlen);
   v->alloc = id_of(alloc1);
   v->ctx = id_of(ctx1);
   v->loc = id_of(loc1);
   if (q && CATS_VCG_OFFSET_FROM_PREVIOUS(v->flags, v->alloc, q->flags, q->alloc)) {
      if (off > UINT64_MAX - q->offset)
         return bad_var(-2, "VCG vertex", i, "offset", err, errlen);
      off += q->offset;
   }
   v->offset = off;
   return TRACE_OK;
}

/* The edges as the file has them, one at a time: a repeated group (one
 * byte) is the group before it, of at most CATS_VCG_REPEAT_MAX edges,
 * moved to a new dst. */
typedef struct vcg_edges_in {
   var_in in;
   uint32_t nv;
   uint32_t i;                  /* edges read */
   trace_vcg_edge last;         /* edge i - 1 */
   /* The group before and this one, each while it has at most
    * CATS_VCG_REPEAT_MAX edges (a count above it: longer). */
   trace_vcg_edge prev[CATS_VCG_REPEAT_MAX], cur[CATS_VCG_REPEAT_MAX];
   uint32_t nprev, ncur;
   uint32_t pending, at;        /* edges of a repeat still to come */
   uint32_t rdst;               /* and their dst */
   int64_t shift;               /* and how far their sources move */
} vcg_edges_in;

/* A new dst's group begins: this one becomes the group before. */
static void start_group(vcg_edges_in *r)
{
   r->nprev = r->ncur;
   if (r->ncur <= CATS_VCG_REPEAT_MAX)
      memcpy(r->prev, r->cur, (size_t)r->ncur * sizeof *r->cur);
   r->ncur = 0;
}

static void add_to_group(vcg_edges_in *r, const trace_vcg_edge *e)
{
   if (r->ncur < CATS_VCG_REPEAT_MAX)
      r->cur[r->ncur] = *e;
   if (r->ncur <= CATS_VCG_REPEAT_MAX)
      r->ncur++;
}

/* The next edge of a repeated group. */
static trace_status repeated_edge(vcg_edges_in *r, trace_vcg_edge *e, char *err,
                                  size_t errlen)
{
   const trace_vcg_edge *p = &r->prev[r->at++];
   int64_t src = (int64_t)p->src + r->shift;
   if (src < 0 || src >= (int64_t)r->nv)
      return trace_fail(err, errlen, TRACE_EREF, "VCG edge %u: src out of range (%u)",
                        r->i, r->nv);
   *e = *p;
   e->src = (uint32_t)src;
   e->dst = r->rdst;
   r->pending--;
   return TRACE_OK;
}

/* The next edge (r->i) into *e; the caller then sets r->last. */
static trace_status packed_edge(vcg_edges_in *r, trace_vcg_edge *e, char *err,
                                size_t errlen)
{
   uint32_t i = r->i, nv = r->nv;
   const trace_vcg_edge *q = i ? &r->last : NULL;
   if (r->pending)
      return repeated_edge(r, e, err, errlen);
   uint64_t x = 0, dsrc = 0, back = 0;
   int64_t ssrc = 0, dctx = 0;
   int r2;
   var_in *in = &r->in;
   if ((r2 = var_get_u(in, &x)) != 0)
      return bad_var(r2, "VCG edge", i, "dst", err, errlen);
   uint64_t qdst = q ? q->dst : 0, ddst = x >> 1;
   if (ddst >= nv - qdst)
      return trace_fail(err, errlen, TRACE_EREF, "VCG edge %u: dst out of range (%u)", i, nv);
   uint64_t dst = qdst + ddst, src;
   if (!q || ddst != 0)
      start_group(r);
   if (x & 1) {
      if (!q || ddst == 0 || r->nprev == 0 || r->nprev > CATS_VCG_REPEAT_MAX)
         return trace_fail(err, errlen, TRACE_EVALUE,
                           "VCG edge %u: repeats no group of 1 to %d edges before "
                           "another dst", i, CATS_VCG_REPEAT_MAX);
      r->pending = r->nprev;
      r->at = 0;
      r->rdst = (uint32_t)dst;
      r->shift = (int64_t)dst - (int64_t)r->prev[0].dst;
      return repeated_edge(r, e, err, errlen);
   }
   if (q && ddst == 0) {
      if ((r2 = var_get_u(in, &dsrc)) != 0)
         return bad_var(r2, "VCG edge", i, "src", err, errlen);
      if (dsrc >= nv - (uint64_t)q->src)
         return trace_fail(err, errlen, TRACE_EREF, "VCG edge %u: src out of range (%u)", i, nv);
      src = q->src + dsrc;
   } else {
      if ((r2 = var_get_s(in, &ssrc)) != 0)
         return bad_var(r2, "VCG edge", i, "src", err, errlen);
      if (ssrc < -(int64_t)dst || ssrc >= (int64_t)nv - (int64_t)dst)
         return trace_fail(err, errlen, TRACE_EREF, "VCG edge %u: src out of range (%u)", i, nv);
      src = (uint64_t)((int64_t)dst + ssrc);
   }
   if ((r2 = var_get_s(in, &dctx)) != 0)
      return bad_var(r2, "VCG edge", i, "ctx", err, errlen);
   int64_t qctx1 = q ? (int64_t)(uint32_t)(q->ctx + 1u) : 0;
   if (dctx < -qctx1 || dctx > (int64_t)UINT32_MAX - qctx1)
      return bad_var(-2, "VCG edge", i, "ctx", err, errlen);
   uint32_t ctx1 = (uint32_t)(qctx1 + dctx);
   if ((r2 = var_get_u32(in, &e->uses)) != 0)
      return bad_var(r2, "VCG edge", i, "uses", err, errlen);
   if ((r2 = var_get_u(in, &back)) != 0)
      return bad_var(r2, "VCG edge", i, "versions", err, errlen);
   e->src = (uint32_t)src;
   e->dst = (uint32_t)dst;
   e->ctx = id_of(ctx1);
   /* versions = uses - back; 0 (back = uses) and below fail the check. */
   e->versions = back >= e->uses ? 0 : e->uses - (uint32_t)back;
   return TRACE_OK;
}

/* Edge r->i read and checked: the next one follows it. */
static void edge_done(vcg_edges_in *r, const trace_vcg_edge *e)
{
   add_to_group(r, e);
   r->last = *e;
   r->i++;
}

trace_status trace_decode_vcg(trace_file *t, const trace_section *s, int keep_graph,
                              char *err, size_t errlen)
{
   trace_vcg *g = &t->vcg;
   if (s->size < CATS_VCG_HEADER_SIZE)
      return trace_fail(err, errlen, TRACE_ERECORD,
                        "VCG: %zu bytes, too short for its header", s->size);
   uint32_t word = le_u32(s->data), nv = le_u32(s->data + 4);
   uint32_t ne = le_u32(s->data + 8), reserved = le_u32(s->data + 12);
   /* Packed records take at least a byte a number, and a byte stands for
    * at most CATS_VCG_REPEAT_MAX edges: counts that the section cannot
    * hold are refused before anything is allocated. */
   uint64_t need = CATS_VCG_HEADER_SIZE + (uint64_t)nv * CATS_VCG_VERTEX_MIN +
                   ((uint64_t)ne + CATS_VCG_REPEAT_MAX - 1) / CATS_VCG_REPEAT_MAX;
   if (need > s->size)
      return trace_fail(err, errlen, TRACE_ERECORD,
                        "VCG: %u vertices and %u edges need at least %llu bytes, "
                        "the section has %zu", nv, ne, (unsigned long long)need, s->size);
   if (reserved != 0)
      return trace_fail(err, errlen, TRACE_EVALUE, "VCG: reserved word is %u, not 0",
                        reserved);
   if (word == 0 || (word & (word - 1)) != 0)
      return trace_fail(err, errlen, TRACE_EVALUE,
                        "VCG: word size %u is not a power of two", word);
   /* Checking needs only the vertex or edge before (and the group of
    * edges before); the edges are allocated once they have been read. */
   trace_vcg_vertex vwindow[2];
   if (keep_graph) {
      g->vertices = calloc(nv ? nv : 1, sizeof *g->vertices);
      if (!g->vertices)
         return trace_fail(err, errlen, TRACE_ENOMEM, "out of memory (VCG)");
   }
   g->word_size = word;
   g->nvertices = nv;
   g->nedges = ne;
   t->has_vcg = 1;
   var_in in = { s->data + CATS_VCG_HEADER_SIZE, s->data + s->size };
   for (uint32_t i = 0; i < nv; i++) {
      trace_vcg_vertex *v = keep_graph ? &g->vertices[i] : &vwindow[i & 1];
      const trace_vcg_vertex *q = i == 0       ? NULL
                                : keep_graph ? &g->vertices[i - 1]
                                             : &vwindow[(i - 1) & 1];
      trace_status st = packed_vertex(&in, i, v, q, err, errlen);
      if (st == TRACE_OK)
         st = check_vertex(t, i, v, q, err, errlen);
      if (st != TRACE_OK)
         return st;
   }
   /* The edges are checked in the file's (dst, src, ctx) order while
    * each src's are counted, then decoded again into (src, dst, ctx)
    * order: a counting sort, stable, so each src's edges keep their
    * (dst, ctx) order. */
   vcg_edges_in *r = malloc(sizeof *r);
   uint32_t *start = keep_graph ? calloc((size_t)nv + 1, sizeof *start) : NULL;
   if (!r || (keep_graph && !start)) {
      free(r);
      free(start);
      return trace_fail(err, errlen, TRACE_ENOMEM, "out of memory (VCG)");
   }
   const vcg_edges_in first = { .in = in, .nv = nv };
   *r = first;
   trace_status st = TRACE_OK;
   for (uint32_t i = 0; st == TRACE_OK && i < ne; i++) {
      trace_vcg_edge e;
      st = packed_edge(r, &e, err, errlen);
      if (st == TRACE_OK)
         st = check_edge(t, i, &e, i ? &r->last : NULL, err, errlen);
      if (st == TRACE_OK) {
         edge_done(r, &e);
         if (start && e.src + 1u < nv)
            start[e.src + 1]++;
      }
   }
   if (st == TRACE_OK && r->pending)
      st = trace_fail(err, errlen, TRACE_ERECORD,
                      "VCG: a repeated group of edges passes the %u edges", ne);
   if (st == TRACE_OK && r->in.p != r->in.end)
      st = trace_fail(err, errlen, TRACE_ERECORD, "VCG: %zu bytes after the last edge",
                      (size_t)(r->in.end - r->in.p));
   if (st == TRACE_OK && keep_graph &&
       !(g->edges = malloc(((size_t)ne + 1) * sizeof *g->edges)))
      st = trace_fail(err, errlen, TRACE_ENOMEM, "out of memory (VCG)");
   if (st != TRACE_OK || !keep_graph) {
      free(r);
      free(start);
      return st;
   }
   for (uint32_t v = 1; v < nv; v++)
      start[v] += start[v - 1];
   *r = first;
   /* The scatter is a cache miss an edge: a batch is decoded, then its
    * places are fetched together. */
   enum { BATCH = 64 };
   trace_vcg_edge batch[BATCH];
   uint32_t slot[BATCH];
   for (uint32_t i = 0; i < ne;) {
      uint32_t nb = ne - i < BATCH ? ne - i : BATCH;
      for (uint32_t b = 0; b < nb; b++) {
         packed_edge(r, &batch[b], err, errlen);   /* checked above */
         edge_done(r, &batch[b]);
         __builtin_prefetch(&start[batch[b].src], 1);
      }
      for (uint32_t b = 0; b < nb; b++) {
         slot[b] = start[batch[b].src]++;
         __builtin_prefetch(&g->edges[slot[b]], 1);
      }
      for (uint32_t b = 0; b < nb; b++)
         g->edges[slot[b]] = batch[b];
      i += nb;
   }
   free(r);
   free(start);
   return TRACE_OK;
}
