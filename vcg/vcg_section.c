/* SPDX-License-Identifier: GPL-2.0-or-later */
/* vcg_section.c: serialise a graph as section 7 (see vcg_section.h). */
#include "vcg_section.h"

#include "cats/format/cats_format.h"
#include "cats/trace/le.h"
#include "cats/trace/var.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
 * Edges are sorted by (dst, src, ctx): dst from the edge before (twice
 * the step, its low bit 0: not a repeat); src from the edge before when
 * the dst is the same, else from dst (a stencil's few distances); ctx
 * from the edge before. */
static uint8_t *put_edge(uint8_t *p, const vcg_edge *e, const vcg_edge *q)
{
   uint32_t qdst = q ? q->dst : 0, qctx = q ? q->ctx + 1u : 0;
   p = var_put_u(p, 2 * (uint64_t)(e->dst - qdst));
   if (q && q->dst == e->dst)
      p = var_put_u(p, e->src - q->src);
   else
      p = var_put_s(p, (int64_t)e->src - (int64_t)e->dst);
   p = var_put_s(p, (int64_t)(uint32_t)(e->ctx + 1u) - (int64_t)qctx);
   p = var_put_u(p, e->uses);
   return var_put_u(p, e->uses - e->versions);
}

/* Whether e[0..n) is the group before moved to e's dst. */
static int repeats(const vcg_pack *k, const vcg_edge *e, uint32_t n)
{
   if (!k->has_prev || n != k->nprev || n == 0)
      return 0;
   int64_t shift = (int64_t)e[0].dst - (int64_t)k->prev[0].dst;
   for (uint32_t j = 0; j < n; j++) {
      const vcg_edge *q = &k->prev[j];
      if ((int64_t)e[j].src - (int64_t)q->src != shift || e[j].ctx != q->ctx ||
          e[j].uses != q->uses || e[j].versions != q->versions)
         return 0;
   }
   return 1;
}

/* The section in out so far goes to the spill file. A write that fails
 * leaves it in out, and stops spilling. */
static void spill_out(vcg_pack *k)
{
   vcg_spill *sp = k->spill;
   const uint8_t *p = k->out->data + k->start;
   size_t n = k->out->len - k->start;
   while (n > 0) {
      ssize_t w = write(sp->fd, p, n);
      if (w < 0 && errno == EINTR)
         continue;
      if (w <= 0) {
         sp->err = w < 0 ? errno : ENOSPC;
         break;
      }
      p += w;
      n -= (size_t)w;
      sp->bytes += (uint64_t)w;
   }
   /* What was written is gone from out; the rest stays. */
   memmove(k->out->data + k->start, p, n);
   k->out->len = k->start + n;
}

/* Room for one record at the end of k's output (or a scratch record when
 * only counting); NULL if out of memory. */
static uint8_t *room(vcg_pack *k, uint8_t *scratch)
{
   if (!k->out)
      return scratch;
   if (k->spill && k->spill->fd >= 0 && !k->spill->err &&
       k->out->len - k->start >= k->spill->at)
      spill_out(k);
   if (trace_buf_reserve(k->out, VCG_SECTION_MAX_RECORD) != 0)
      return NULL;
   return k->out->data + k->out->len;
}

static void advance(vcg_pack *k, const uint8_t *from, const uint8_t *to)
{
   k->bytes += (uint64_t)(to - from);
   if (k->out)
      k->out->len += (size_t)(to - from);
}

int vcg_pack_begin(vcg_pack *k, trace_buf *out, vcg_spill *spill, uint32_t word_size)
{
   memset(k, 0, sizeof *k);
   k->out = out;
   k->spill = spill;
   k->bytes = CATS_VCG_HEADER_SIZE;
   if (!out)
      return 0;
   k->start = out->len;
   if (trace_buf_reserve(out, CATS_VCG_HEADER_SIZE) != 0)
      return -1;
   uint8_t *p = out->data + out->len;
   le_put32(p, word_size);
   le_put32(p + 4, 0);
   le_put32(p + 8, 0);
   le_put32(p + 12, 0);   /* reserved */
   out->len += CATS_VCG_HEADER_SIZE;
   return 0;
}

int vcg_pack_vertex(vcg_pack *k, const vcg_vertex *v)
{
   uint8_t scratch[VCG_SECTION_MAX_RECORD], *p = room(k, scratch);
   if (!p)
      return -1;
   advance(k, p, put_vertex(p, v, k->nv ? &k->lastv : NULL));
   k->lastv = *v;
   k->nv++;
   return 0;
}

static int pack_edge(vcg_pack *k, const vcg_edge *e)
{
   uint8_t scratch[VCG_SECTION_MAX_RECORD], *p = room(k, scratch);
   if (!p)
      return -1;
   advance(k, p, put_edge(p, e, k->ne ? &k->laste : NULL));
   k->laste = *e;
   k->ne++;
   return 0;
}

int vcg_pack_group(vcg_pack *k, const vcg_edge *e, uint32_t n)
{
   if (n == 0)
      return 0;
   if ((uint64_t)k->ne + n > UINT32_MAX)
      return -1;
   if (repeats(k, e, n)) {
      /* The dst's step from the edge before, its low bit 1. */
      uint8_t scratch[VCG_SECTION_MAX_RECORD], *p = room(k, scratch);
      if (!p)
         return -1;
      advance(k, p, var_put_u(p, 2 * (uint64_t)(e[0].dst - k->laste.dst) + 1));
      k->laste = e[n - 1];
      k->ne += n;
   } else {
      for (uint32_t j = 0; j < n; j++)
         if (pack_edge(k, &e[j]) != 0)
            return -1;
   }
   k->has_prev = n <= CATS_VCG_REPEAT_MAX;
   if (k->has_prev) {
      memcpy(k->prev, e, (size_t)n * sizeof *e);
      k->nprev = n;
   }
   return 0;
}

int vcg_pack_end(vcg_pack *k)
{
   if (!k->out)
      return 0;
   vcg_spill *sp = k->spill;
   if (sp && sp->bytes) {
      /* The file holds the section's start; out holds what came after. */
      size_t tail = k->out->len - k->start;
      if (sp->bytes > SIZE_MAX - k->out->len ||
          trace_buf_reserve(k->out, (size_t)sp->bytes) != 0) {
         sp->err = ENOMEM;
         return -1;
      }
      uint8_t *at = k->out->data + k->start;
      memmove(at + sp->bytes, at, tail);
      for (uint64_t got = 0; got < sp->bytes;) {
         ssize_t r = pread(sp->fd, at + got, (size_t)(sp->bytes - got), (off_t)got);
         if (r < 0 && errno == EINTR)
            continue;
         if (r <= 0) {
            sp->err = r < 0 ? errno : EIO;
            return -1;
         }
         got += (uint64_t)r;
      }
      k->out->len += (size_t)sp->bytes;
   }
   le_put32(k->out->data + k->start + 4, k->nv);
   le_put32(k->out->data + k->start + 8, k->ne);
   return 0;
}

/* g's edges in (dst, src, ctx) order: a stable counting sort by dst of
 * edges sorted by (src, dst, ctx). NULL if out of memory. */
static uint32_t *dst_order(const vcg_graph *g)
{
   uint32_t *start = calloc((size_t)g->nvertices + 1, sizeof *start);
   uint32_t *order = malloc(((size_t)g->nedges + 1) * sizeof *order);
   if (!start || !order) {
      free(start);
      free(order);
      return NULL;
   }
   for (uint32_t i = 0; i < g->nedges; i++)
      start[g->edges[i].dst + 1]++;
   for (uint32_t v = 0; v < g->nvertices; v++)
      start[v + 1] += start[v];
   for (uint32_t i = 0; i < g->nedges; i++)
      order[start[g->edges[i].dst]++] = i;
   free(start);
   return order;
}

/* Packs g into out (NULL: counts); the bytes, or UINT64_MAX if out of
 * memory. */
static uint64_t pack_graph(const vcg_graph *g, trace_buf *out)
{
   uint32_t *order = dst_order(g);
   vcg_pack k;
   int bad = !order || vcg_pack_begin(&k, out, NULL, g->word_size) != 0;
   for (uint32_t i = 0; !bad && i < g->nvertices; i++)
      bad = vcg_pack_vertex(&k, &g->vertices[i]) != 0;
   /* Each dst's edges gathered into a group. */
   vcg_edge *group = malloc(((size_t)g->nedges + 1) * sizeof *group);
   bad = bad || !group;
   for (uint32_t i = 0, n = 0; !bad && i < g->nedges; i++) {
      group[n++] = g->edges[order[i]];
      if (i + 1 == g->nedges || g->edges[order[i + 1]].dst != group[0].dst) {
         bad = vcg_pack_group(&k, group, n) != 0;
         n = 0;
      }
   }
   free(group);
   free(order);
   if (bad)
      return UINT64_MAX;
   (void)vcg_pack_end(&k);   /* nothing spilled: cannot fail */
   return k.bytes;
}

uint64_t vcg_section_size(const vcg_graph *g)
{
   return pack_graph(g, NULL);
}

int vcg_section_write(const vcg_graph *g, trace_buf *out)
{
   return pack_graph(g, out) == UINT64_MAX ? -1 : 0;
}
