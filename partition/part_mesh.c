/* SPDX-License-Identifier: GPL-2.0-or-later */
/* part_mesh.c: the grid behind a 1-D array (part_mesh.h). */
#include "part_mesh.h"
#include "part_region.h"

#include <stdlib.h>
#include <string.h>

/* Distinct distances kept per array: a 27-point operator has 13; one
 * with more is no stencil, and the rest count as noise. */
#define MESH_MAXDIST 64

typedef struct mesh_hist {
   uint32_t n;
   uint64_t dist[MESH_MAXDIST], count[MESH_MAXDIST];
   uint64_t other;           /* distances that did not fit */
} mesh_hist;

uint32_t part_mesh_strides(const uint64_t *dist, const uint64_t *count, uint32_t n,
                           uint64_t other, uint64_t stride[PART_GRID_MAXD])
{
   uint64_t total = other, kept = 0, d[MESH_MAXDIST];
   uint32_t m = 0;
   for (uint32_t i = 0; i < n; i++)
      total += count[i];
   for (uint32_t i = 0; i < n && m < MESH_MAXDIST; i++)
      if (count[i] * 100 >= total) {
         d[m++] = dist[i];
         kept += count[i];
      }
   if (total == 0 || (total - kept) * 10 > total || m == 0 || d[0] != 1)
      return 0;
   uint32_t k = 0;
   uint64_t span = 1;    /* the widest distance the strides so far make */
   stride[k++] = 1;
   for (uint32_t i = 1; i < m;) {
      /* A cluster: the next stride give or take the ones below it (40,
       * 41, 42 for 41 of a 27-point operator); its median is the stride. */
      uint32_t j = i + 1;
      while (j < m && d[j] - d[j - 1] <= 2 * span)
         j++;
      uint64_t s = d[i + (j - i - 1) / 2];
      for (uint32_t c = i; c < j; c++)
         if (d[c] + span < s || d[c] > s + span)
            return 0;
      if (k == PART_GRID_MAXD || s % stride[k - 1] || s / stride[k - 1] < 2)
         return 0;
      stride[k++] = s;
      span += s;
      i = j;
   }
   return k >= 2 ? k : 0;
}

static int is_memory(const trace_file *t, uint32_t v)
{
   uint32_t a = t->vcg.vertices[v].alloc;
   return a != CATS_NONE && a < t->nallocs;
}

/* anchor[v]: for a register intermediate (a link of a row's sum), the
 * memory value its chain ends in; UINT32_MAX when none is found. Edges
 * run from a chain's links to later ones, so passes from the last edge
 * back settle a chain in one. */
static uint32_t *anchors(const trace_file *t, const uint8_t *scope)
{
   const trace_vcg *g = &t->vcg;
   uint32_t *anchor = malloc((g->nvertices ? g->nvertices : 1) * sizeof *anchor);
   if (!anchor)
      return NULL;
   for (uint32_t v = 0; v < g->nvertices; v++)
      anchor[v] = is_memory(t, v) ? v : UINT32_MAX;
   for (int pass = 0, changed = 1; changed && pass < 4; pass++) {
      changed = 0;
      for (uint32_t e = g->nedges; e-- > 0;) {
         const trace_vcg_edge *ed = &g->edges[e];
         if (anchor[ed->src] == UINT32_MAX && anchor[ed->dst] != UINT32_MAX &&
             part_edge_in_scope(ed, scope)) {
            anchor[ed->src] = anchor[ed->dst];
            changed = 1;
         }
      }
   }
   return anchor;
}

static void hist_add(mesh_hist *h, uint64_t dist)
{
   for (uint32_t i = 0; i < h->n; i++)
      if (h->dist[i] == dist) {
         h->count[i]++;
         return;
      }
   if (h->n == MESH_MAXDIST) {
      h->other++;
      return;
   }
   /* Kept ascending. */
   uint32_t i = h->n++;
   while (i > 0 && h->dist[i - 1] > dist) {
      h->dist[i] = h->dist[i - 1];
      h->count[i] = h->count[i - 1];
      i--;
   }
   h->dist[i] = dist;
   h->count[i] = 1;
}

/* The shape of a grid of `len` words with the given strides, or 0. */
static int grid_shape(uint64_t len, const uint64_t *stride, uint32_t k, part_grid_shape *sh)
{
   if (len % stride[k - 1] || len / stride[k - 1] < 2)
      return 0;
   memset(sh, 0, sizeof *sh);
   sh->ndims = (uint8_t)k;
   sh->regular = 1;
   sh->blocked = 1;
   sh->dim[0] = len / stride[k - 1];
   for (uint32_t d = 1; d < k; d++)
      sh->dim[d] = stride[k - d] / stride[k - d - 1];
   return 1;
}

/* Whether the values' grid m replaces the records' shape r: it has more
 * dimensions, or as many but other rows (a vector loop's 32-byte stride
 * taken for a row of four words). */
static int better(const part_grid_shape *m, const part_grid_shape *r)
{
   if (m->ndims != r->ndims)
      return m->ndims > r->ndims;
   for (uint32_t d = 1; d < m->ndims; d++)
      if (m->dim[d] != r->dim[d])
         return 1;
   return 0;
}

int part_mesh_shapes(const trace_file *t, const uint8_t *scope, part_grid_info *gi)
{
   const trace_vcg *g = &t->vcg;
   uint32_t word = g->word_size ? g->word_size : 8;
   if (!t->has_vcg || g->nedges == 0 || t->nallocs == 0)
      return 0;
   uint32_t *anchor = anchors(t, scope);
   uint32_t *slot = malloc(t->nallocs * sizeof *slot);
   mesh_hist *h = NULL;
   uint32_t nh = 0, caph = 0;
   int rc = -1;
   if (!anchor || !slot)
      goto out;
   for (uint32_t a = 0; a < t->nallocs; a++)
      slot[a] = UINT32_MAX;
   for (uint32_t e = 0; e < g->nedges; e++) {
      const trace_vcg_edge *ed = &g->edges[e];
      if (!is_memory(t, ed->src) || !part_edge_in_scope(ed, scope))
         continue;
      const trace_vcg_vertex *s = &g->vertices[ed->src];
      if (gi->shape[s->alloc].ndims >= PART_GRID_MAXD)
         continue;   /* before the sink's anchor, a cache miss */
      uint32_t to = anchor[ed->dst];
      if (to == UINT32_MAX)
         continue;
      const trace_vcg_vertex *d = &g->vertices[to];
      uint64_t len = part_grid_words(t, s->alloc, word);
      if (len < 4 || part_grid_words(t, d->alloc, word) != len)
         continue;
      uint64_t i = s->offset / word, j = d->offset / word;
      if (i == j)
         continue;
      if (slot[s->alloc] == UINT32_MAX) {
         if (nh == caph) {
            uint32_t cap = caph ? 2 * caph : 8;
            mesh_hist *nhs = realloc(h, cap * sizeof *h);
            if (!nhs)
               goto out;
            h = nhs;
            caph = cap;
         }
         memset(&h[nh], 0, sizeof *h);
         slot[s->alloc] = nh++;
      }
      hist_add(&h[slot[s->alloc]], i > j ? i - j : j - i);
   }
   /* slot[a] becomes 1 + the stride count of the mesh found for a, 0
    * for none. */
   for (uint32_t a = 0; a < t->nallocs; a++) {
      uint32_t k = 0;
      uint64_t stride[PART_GRID_MAXD];
      part_grid_shape sh;
      if (slot[a] != UINT32_MAX) {
         mesh_hist *m = &h[slot[a]];
         k = part_mesh_strides(m->dist, m->count, m->n, m->other, stride);
         if (k == 0 || !grid_shape(part_grid_words(t, a, word), stride, k, &sh) ||
             !better(&sh, &gi->shape[a]))
            k = 0;
      }
      if (k)
         gi->shape[a] = sh;
      slot[a] = k ? k + 1 : 0;
   }
   /* The other vectors of a mesh's length that loops walk in scope (the
    * solver's r, x and A p) are blocks of the same grid. */
   for (uint32_t a = 0; a < t->nallocs; a++) {
      if (slot[a] == 0)
         continue;
      uint64_t len = part_grid_words(t, a, word);
      for (uint32_t b = 0; b < t->nallocs; b++) {
         part_grid_shape *o = &gi->shape[b];
         if (slot[b] == 0 && better(&gi->shape[a], o) && o->blocked &&
             part_grid_words(t, b, word) == len) {
            uint8_t regular = o->regular;
            *o = gi->shape[a];
            o->regular = regular;
         }
      }
   }
   rc = 0;
out:
   free(anchor);
   free(slot);
   free(h);
   return rc;
}
