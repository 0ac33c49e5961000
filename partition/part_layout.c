/* SPDX-License-Identifier: GPL-2.0-or-later */
/* part_layout.c: data-layout affinity pairs (part_layout.h). */
#include "part_layout.h"
#include "part_region.h"

#include <stdlib.h>
#include <string.h>

/* (alloc, word) -> vertex, open addressing. */
typedef struct part_layout_map {
   uint64_t *key;          /* alloc << 40 | word, or UINT64_MAX */
   uint32_t *val;
   size_t mask;
} part_layout_map;

static uint64_t key_of(uint32_t alloc, uint64_t word)
{
   return (uint64_t)alloc << 40 | (word & ((1ull << 40) - 1));
}

static size_t slot_of(const part_layout_map *m, uint64_t k)
{
   return (size_t)((k * 0x9E3779B97F4A7C15ull) >> 20) & m->mask;
}

static int map_init(part_layout_map *m, size_t n)
{
   size_t cap = 16;
   while (cap < 2 * n)
      cap *= 2;
   m->mask = cap - 1;
   m->key = malloc(cap * sizeof *m->key);
   m->val = malloc(cap * sizeof *m->val);
   if (!m->key || !m->val)
      return -1;
   memset(m->key, 0xff, cap * sizeof *m->key);
   return 0;
}

static void map_put(part_layout_map *m, uint64_t k, uint32_t v)
{
   size_t s = slot_of(m, k);
   while (m->key[s] != UINT64_MAX && m->key[s] != k)
      s = (s + 1) & m->mask;
   m->key[s] = k;
   m->val[s] = v;
}

static uint32_t map_get(const part_layout_map *m, uint64_t k)
{
   for (size_t s = slot_of(m, k); m->key[s] != UINT64_MAX;
        s = (s + 1) & m->mask)
      if (m->key[s] == k)
         return m->val[s];
   return UINT32_MAX;
}

/* Distinct word strides of the strided writes of each container whose
 * words exchange no values; the mean uses of an edge into *weight. */
static uint64_t *container_strides(const trace_file *t, const uint8_t *scope,
                                   uint32_t word, uint64_t *weight)
{
   const trace_vcg *g = &t->vcg;
   size_t na = t->nallocs ? t->nallocs : 1;
   uint64_t *st = calloc(na * PART_LAYOUT_MAX_STRIDES, sizeof *st);
   uint8_t *linked = calloc(na, 1);
   if (!st || !linked) {
      free(st), free(linked);
      return NULL;
   }
   uint64_t uses = 0, edges = 0;
   for (uint32_t e = 0; e < g->nedges; e++) {
      const trace_vcg_edge *ed = &g->edges[e];
      if (!part_edge_in_scope(ed, scope))
         continue;
      uses += ed->uses;
      edges++;
      uint32_t a = g->vertices[ed->src].alloc, b = g->vertices[ed->dst].alloc;
      if (a != CATS_NONE && a == b)
         linked[a] = 1;
   }
   *weight = edges ? (uses + edges / 2) / edges : 1;
   if (*weight == 0)
      *weight = 1;
   for (uint32_t i = 0; i < t->nevents; i++) {
      const trace_event *e = &t->events[i];
      if (e->kind != CATS_WRITE || linked[e->alloc] ||
          (e->pattern != CATS_PAT_STRIDE1 && e->pattern != CATS_PAT_STRIDEK))
         continue;
      uint64_t *s = &st[(size_t)e->alloc * PART_LAYOUT_MAX_STRIDES];
      /* A vector store covers neighbouring words itself. */
      for (int d = e->size > word ? -1 : 0; d < (int)e->ndims; d++) {
         int64_t b = d < 0 ? (int64_t)word
                           : e->stride[d] < 0 ? -e->stride[d] : e->stride[d];
         if (b == 0 || b % word)
            continue;
         uint64_t w = (uint64_t)b / word;
         int k = 0;
         while (k < PART_LAYOUT_MAX_STRIDES && s[k] && s[k] != w)
            k++;
         if (k < PART_LAYOUT_MAX_STRIDES)
            s[k] = w;
      }
   }
   free(linked);
   return st;
}

static int push(part_layout_pairs *p, size_t *cap, uint32_t a, uint32_t b)
{
   if (p->n == *cap) {
      size_t nc = *cap * 2;
      uint32_t *na = realloc(p->a, nc * sizeof *na);
      if (!na)
         return -1;
      p->a = na;
      uint32_t *nb = realloc(p->b, nc * sizeof *nb);
      if (!nb)
         return -1;
      p->b = nb;
      *cap = nc;
   }
   p->a[p->n] = a;
   p->b[p->n++] = b;
   return 0;
}

int part_layout_build(const trace_file *t, const uint8_t *scope, part_layout_pairs *out)
{
   memset(out, 0, sizeof *out);
   const trace_vcg *g = &t->vcg;
   uint32_t word = g->word_size ? g->word_size : 8;
   part_layout_map m = { 0 };
   size_t cap = 64;
   uint64_t *st = container_strides(t, scope, word, &out->weight);
   out->a = malloc(cap * sizeof *out->a);
   out->b = malloc(cap * sizeof *out->b);
   int rc = -1;
   if (!st || !out->a || !out->b || map_init(&m, g->nvertices) != 0)
      goto done;
   for (uint32_t v = 0; v < g->nvertices; v++)
      if (g->vertices[v].alloc != CATS_NONE)
         map_put(&m, key_of(g->vertices[v].alloc,
                            g->vertices[v].offset / word), v);
   for (uint32_t v = 0; v < g->nvertices; v++) {
      const trace_vcg_vertex *x = &g->vertices[v];
      if (x->alloc == CATS_NONE)
         continue;
      const uint64_t *s = &st[(size_t)x->alloc * PART_LAYOUT_MAX_STRIDES];
      for (int k = 0; k < PART_LAYOUT_MAX_STRIDES && s[k]; k++) {
         uint32_t w = map_get(&m, key_of(x->alloc, x->offset / word + s[k]));
         if (w != UINT32_MAX && w != v && push(out, &cap, v, w) != 0)
            goto done;
      }
   }
   rc = 0;
done:
   free(st);
   free(m.key);
   free(m.val);
   if (rc != 0)
      part_layout_free(out);
   return rc;
}

void part_layout_free(part_layout_pairs *p)
{
   free(p->a);
   free(p->b);
   memset(p, 0, sizeof *p);
}
