/* SPDX-License-Identifier: GPL-2.0-or-later */
/* part_grid_assign.c: a process grid's ranks for the groups (part_grid.h).
 *
 * A projection tries some thirty grids on one graph. What decides a
 * group's rank depends on the grid only through its number of factors
 * (an array of fewer dimensions is placed otherwise): the vertex that
 * decides an array's group, the units of memory that no loop walks, and
 * which neighbour each other unit follows in each pass of owner
 * computes (the one it exchanges most uses with among those placed
 * before the pass: which are placed does not depend on the grid, only
 * where). So these are found once per number of factors, and a grid
 * costs a rank per array group and a copy per pass for the others. */
#include "part_grid.h"

#include <stdlib.h>
#include <string.h>

/* The factors of grid g that split (g's dimensions). */
static uint32_t grid_dims(const part_grid *g)
{
   uint32_t k = 0;
   while (k < PART_GRID_MAXD && g->f[k])
      k++;
   return k;
}

/* The rank of word w of an array of shape sh under grid g of k
 * dimensions (grid_dims) and n ranks. */
static uint32_t rank_of(const part_grid_shape *sh, const part_grid *g, uint32_t k, uint32_t n,
                        uint64_t w)
{
   uint64_t words = 1;
   for (uint32_t d = 0; d < sh->ndims; d++)
      words *= sh->dim[d];
   if (w >= words)
      w = words - 1;
   if (sh->ndims < k)
      return (uint32_t)(w * n / words);
   uint64_t idx[PART_GRID_MAXD];
   for (uint32_t d = sh->ndims; d-- > 0;) {
      idx[d] = w % sh->dim[d];
      w /= sh->dim[d];
   }
   uint32_t r = 0;
   for (uint32_t d = 0; d < k; d++)
      r = r * g->f[d] + (uint32_t)(idx[d] * g->f[d] / sh->dim[d]);
   return r;
}

/* The segment of container a that holds its word w: the last one that
 * starts at or before w, else the first; UINT32_MAX for a container of
 * one array. */
static uint32_t seg_at(const part_grid_info *gi, uint32_t a, uint64_t w)
{
   if (!gi->seg_first || gi->seg_first[a] == gi->seg_first[a + 1])
      return UINT32_MAX;
   uint32_t lo = gi->seg_first[a], hi = gi->seg_first[a + 1];
   while (hi - lo > 1) {
      uint32_t mid = lo + (hi - lo) / 2;
      if (gi->seg[mid].start <= w)
         lo = mid;
      else
         hi = mid;
   }
   return lo;
}

/* The shape of word *w of container a, and *w as a word of its array;
 * *unshaped when no walk of its own gave the shape. */
static const part_grid_shape *shape_at(const part_grid_info *gi, uint32_t a, uint64_t *w,
                                       int *unshaped)
{
   uint32_t s = seg_at(gi, a, *w);
   *unshaped = 0;
   if (s == UINT32_MAX)
      return &gi->shape[a];
   *w = *w > gi->seg[s].origin ? *w - gi->seg[s].origin : 0;
   *unshaped = gi->seg[s].unshaped;
   return &gi->seg[s].shape;
}

static uint32_t word_size(const part_grid_groups *gg)
{
   return gg->t->vcg.word_size ? gg->t->vcg.word_size : 8;
}

int part_grid_groups_init(part_grid_groups *gg, const trace_file *t, const part_graph *g,
                          const part_grid_info *gi, const uint8_t *skind)
{
   memset(gg, 0, sizeof *gg);
   gg->t = t;
   gg->g = g;
   gg->gi = gi;
   gg->skind = skind;
   size_t ng = g->ng ? g->ng : 1;
   gg->to = malloc(ng * sizeof *gg->to);
   if (!gg->to)
      return -1;
   return 0;
}

void part_grid_groups_free(part_grid_groups *gg)
{
   for (int d = 0; d < PART_GRID_MAXD; d++) {
      part_grid_follow *f = &gg->follow[d];
      free(f->kind);
      free(f->rep);
      free(f->unit);
      free(f->others);
      free(f->lead);
      free(f->change);
   }
   free(gg->to);
   memset(gg, 0, sizeof *gg);
}

/* Each group's kind and deciding vertex for grids of k factors: the
 * first member in an array of k or more dimensions decides an array's
 * block; failing one, the last member decides whether it is other
 * memory or an unshaped array's word. */
static void find_kinds(const part_grid_groups *gg, uint32_t k, part_grid_follow *f)
{
   const trace_vcg *vcg = &gg->t->vcg;
   const part_grid_info *gi = gg->gi;
   uint32_t word = word_size(gg);
   for (uint32_t v = 0; v < vcg->nvertices; v++) {
      const trace_vcg_vertex *x = &vcg->vertices[v];
      uint32_t q = gg->g->group[v];
      if (x->alloc == CATS_NONE || x->alloc >= gi->nallocs || f->kind[q] == PART_GRID_BLOCK)
         continue;
      if (!gi->shape[x->alloc].blocked) {
         f->kind[q] = PART_GRID_OTHER;
         continue;
      }
      uint64_t w = x->offset / word;
      int unshaped;
      const part_grid_shape *sh = shape_at(gi, x->alloc, &w, &unshaped);
      /* An array of fewer dimensions than the grid (a CSR matrix's
       * values beside its mesh's vectors) goes with its values too. */
      f->kind[q] = unshaped || sh->ndims < k ? PART_GRID_FALLBACK : PART_GRID_BLOCK;
      f->rep[q] = v;
   }
}

/* Memory that no loop walks, with the memory of that kind it exchanges
 * values with, is one unit (a library's state, a GOT entry and the link
 * map it is resolved from). */
static void find_units(const part_graph *g, part_grid_follow *f)
{
   for (uint32_t q = 0; q < g->ng; q++)
      f->unit[q] = q;
   for (uint32_t q = 0; q < g->ng; q++)
      for (uint64_t i = g->xadj[q]; f->kind[q] == PART_GRID_OTHER && i < g->xadj[q + 1]; i++)
         if (f->kind[g->adj[i]] == PART_GRID_OTHER)
            part_graph_uf_union(f->unit, q, g->adj[i]);
   for (uint32_t q = 0; q < g->ng; q++)
      f->unit[q] = part_graph_uf_find(f->unit, q);
}

/* Whom each unit follows in each pass of owner computes: a unit goes
 * where the value outside it that it exchanges most uses with is, among
 * the values placed before the pass; chains of such units take a few
 * passes. A singleton is on every rank, and pulls nothing (a cell's
 * candidate for a minimum goes with its cell, not with the minimum).
 * lead[u] is the first pass's choice; the later passes' changes of it
 * are change[first[p] .. first[p] + nchange[p]) for pass p + 1. */
static int find_leads(const part_grid_groups *gg, part_grid_follow *f)
{
   const part_graph *g = gg->g;
   size_t ng = g->ng ? g->ng : 1;
   uint8_t *placed = malloc(ng);
   uint64_t *most = malloc(ng * sizeof *most);
   uint32_t *lead = malloc(ng * sizeof *lead);
   f->lead = malloc(ng * sizeof *f->lead);
   int rc = -1;
   if (!placed || !most || !lead || !f->lead)
      goto out;
   f->nothers = 0;
   for (uint32_t q = 0; q < g->ng; q++) {
      placed[q] = f->kind[q] == PART_GRID_BLOCK;
      f->nothers += !placed[q];
   }
   f->others = malloc((f->nothers ? f->nothers : 1) * sizeof *f->others);
   if (!f->others)
      goto out;
   for (uint32_t q = 0, i = 0; q < g->ng; q++)
      if (!placed[q])
         f->others[i++] = q;
   size_t cap = 0;
   for (int pass = 0; pass < PART_GRID_PASSES; pass++) {
      for (uint32_t i = 0; i < f->nothers; i++) {
         uint32_t u = f->unit[f->others[i]];
         most[u] = 0;
         lead[u] = UINT32_MAX;
      }
      for (uint32_t i = 0; i < f->nothers; i++) {
         uint32_t q = f->others[i], u = f->unit[q];
         for (uint64_t j = g->xadj[q]; j < g->xadj[q + 1]; j++) {
            uint32_t nb = g->adj[j];
            if (placed[nb] && !gg->skind[nb] && f->unit[nb] != u && g->adjw[j] > most[u]) {
               most[u] = g->adjw[j];
               lead[u] = nb;
            }
         }
      }
      if (pass > 0)
         f->first[pass - 1] = f->nchanges;
      for (uint32_t i = 0; i < f->nothers; i++) {
         uint32_t q = f->others[i], u = f->unit[q];
         if (pass == 0) {
            f->lead[u] = lead[u];
         } else if (lead[u] != f->lead[u] && u == q) {   /* once per unit: its root */
            if (f->nchanges == cap) {
               size_t ncap = cap ? 2 * cap : 1024;
               part_grid_change *c = realloc(f->change, ncap * sizeof *c);
               if (!c)
                  goto out;
               f->change = c;
               cap = ncap;
            }
            f->change[f->nchanges++] = (part_grid_change){ u, f->lead[u], lead[u] };
            f->lead[u] = lead[u];
         }
         if (lead[u] != UINT32_MAX)
            placed[q] = 1;
      }
      if (pass > 0)
         f->nchange[pass - 1] = f->nchanges - f->first[pass - 1];
   }
   /* f->lead is the last pass's: the first pass's is restored. */
   for (size_t c = f->nchanges; c-- > 0;)
      f->lead[f->change[c].unit] = f->change[c].was;
   rc = 0;
out:
   free(placed);
   free(most);
   free(lead);
   return rc;
}

static int find_follow(part_grid_groups *gg, uint32_t k)
{
   part_grid_follow *f = &gg->follow[k - 1];
   size_t ng = gg->g->ng ? gg->g->ng : 1;
   f->kind = calloc(ng, 1);
   f->rep = malloc(ng * sizeof *f->rep);
   f->unit = malloc(ng * sizeof *f->unit);
   if (!f->kind || !f->rep || !f->unit)
      return -1;
   find_kinds(gg, k, f);
   find_units(gg->g, f);
   if (find_leads(gg, f) != 0)
      return -1;
   f->ready = 1;
   return 0;
}

/* The rank of group q's deciding vertex under the grid. */
static uint32_t rep_rank(const part_grid_groups *gg, const part_grid_follow *f, uint32_t q,
                         const part_grid *grid, uint32_t k, uint32_t n)
{
   const trace_vcg_vertex *x = &gg->t->vcg.vertices[f->rep[q]];
   uint64_t w = x->offset / word_size(gg);
   int unshaped;
   const part_grid_shape *sh = shape_at(gg->gi, x->alloc, &w, &unshaped);
   return rank_of(sh, grid, k, n, w);
}

/* Array groups come in the order of their words (vertices are by
 * container and offset): a walk keeps the index of the last one's word
 * in its array and steps it on to the next word without the divisions
 * of rank_of. */
typedef struct grid_walk {
   uint32_t alloc;             /* CATS_NONE before the first */
   unsigned shift;             /* log2 of the graph's word size */
   uint64_t cw, end;           /* container word, and where its array ends */
   const part_grid_shape *sh;
   uint64_t w, words;          /* word of the array, and its words */
   uint64_t idx[PART_GRID_MAXD];
} grid_walk;

/* The rank of array group q's deciding vertex (of an array of k or more
 * dimensions): rank_of's, by stepping the walk where it can. */
static uint32_t walk_rank(const part_grid_groups *gg, const part_grid_follow *f, uint32_t q,
                          const part_grid *grid, uint32_t k, grid_walk *wk)
{
   const trace_vcg_vertex *x = &gg->t->vcg.vertices[f->rep[q]];
   uint64_t cw = x->offset >> wk->shift;
   const part_grid_shape *sh = wk->sh;
   if (x->alloc == wk->alloc && cw == wk->cw + 1 && cw < wk->end && wk->w + 1 < wk->words) {
      wk->cw = cw;
      wk->w++;
      for (uint32_t d = sh->ndims; d-- > 0;) {   /* carry */
         if (++wk->idx[d] < sh->dim[d])
            break;
         wk->idx[d] = 0;
      }
   } else {
      const part_grid_info *gi = gg->gi;
      uint32_t a = x->alloc;
      uint64_t w = cw;
      uint32_t sg = seg_at(gi, a, cw);
      wk->end = UINT64_MAX;
      if (sg == UINT32_MAX) {
         sh = wk->sh = &gi->shape[a];
      } else {   /* shape_at's segment, and where the next one starts */
         if (sg + 1 < gi->seg_first[a + 1])
            wk->end = gi->seg[sg + 1].start;
         sh = wk->sh = &gi->seg[sg].shape;
         w = cw > gi->seg[sg].origin ? cw - gi->seg[sg].origin : 0;
         if (cw < gi->seg[sg].origin)
            wk->end = cw;   /* words before the origin are all word 0: no step */
      }
      wk->alloc = a;
      wk->cw = cw;
      wk->words = 1;
      for (uint32_t d = 0; d < sh->ndims; d++)
         wk->words *= sh->dim[d];
      if (w >= wk->words) {
         w = wk->words - 1;   /* as rank_of: past the end is the last word */
         wk->alloc = CATS_NONE;
      }
      wk->w = w;
      for (uint32_t d = sh->ndims; d-- > 0;) {
         wk->idx[d] = w % sh->dim[d];
         w /= sh->dim[d];
      }
   }
   uint32_t r = 0;
   for (uint32_t d = 0; d < k; d++)
      r = r * grid->f[d] + (uint32_t)(wk->idx[d] * grid->f[d] / sh->dim[d]);
   return r;
}

int part_grid_assign(part_grid_groups *gg, const part_grid *grid, uint32_t n, uint32_t *part)
{
   const part_graph *g = gg->g;
   uint32_t k = grid_dims(grid);
   if (k == 0)
      k = 1;   /* not a grid: part_grid_parse and the candidates give a factor */
   part_grid_follow *f = &gg->follow[k - 1];
   if (!f->ready && find_follow(gg, k) != 0)
      return -1;
   uint32_t *to = gg->to;
   grid_walk wk = { .alloc = CATS_NONE };
   while ((1u << wk.shift) < word_size(gg))   /* a power of two (the decoder checks) */
      wk.shift++;
   for (uint32_t q = 0; q < g->ng; q++)
      part[q] = f->kind[q] == PART_GRID_BLOCK ? walk_rank(gg, f, q, grid, k, &wk) : UINT32_MAX;
   /* Each pass takes the places its leads had before it (Jacobi). f->lead
    * is moved pass by pass to each pass's leads and back. */
   size_t applied = 0;
   for (int pass = 0; pass < PART_GRID_PASSES; pass++) {
      if (pass > 0)
         for (; applied < f->first[pass - 1] + f->nchange[pass - 1]; applied++)
            f->lead[f->change[applied].unit] = f->change[applied].lead;
      for (uint32_t i = 0; i < f->nothers; i++) {
         uint32_t u = f->unit[f->others[i]];
         to[u] = f->lead[u] == UINT32_MAX ? UINT32_MAX : part[f->lead[u]];
      }
      for (uint32_t i = 0; i < f->nothers; i++) {
         uint32_t q = f->others[i];
         if (to[f->unit[q]] != UINT32_MAX)
            part[q] = to[f->unit[q]];
      }
   }
   while (applied-- > 0)
      f->lead[f->change[applied].unit] = f->change[applied].was;
   for (uint32_t i = 0; i < f->nothers; i++) {
      uint32_t q = f->others[i];
      if (part[q] == UINT32_MAX)
         part[q] = f->kind[q] == PART_GRID_FALLBACK ? rep_rank(gg, f, q, grid, k, n)
                                                    : f->unit[q] % n;
   }
   return 0;
}
