/* SPDX-License-Identifier: GPL-2.0-or-later */
/* part_grid.c: structured decompositions (part_grid.h). */
#include "part_grid.h"
#include "part_region.h"
#include "part_mesh.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The dimensions one strided record shows, slowest first, in words: its
 * loop strides sorted, the smallest no wider than an access (the rows
 * are contiguous) or else taken as a row's, each the next one's
 * divisor; the slowest dimension is what remains of the container. 0
 * when it shows none. */
static uint32_t record_dims(const trace_event *e, uint32_t word, uint64_t words,
                            uint64_t dim[PART_GRID_MAXD])
{
   uint64_t s[CATS_MAX_DIMS];
   uint32_t n = 0;
   for (uint32_t d = 0; d < e->ndims && d < CATS_MAX_DIMS; d++) {
      if (e->extent[d] < 2 || e->stride[d] == 0)
         continue;
      uint64_t b = (uint64_t)(e->stride[d] < 0 ? -e->stride[d] : e->stride[d]);
      uint32_t k = n;
      while (k > 0 && s[k - 1] > b)
         k--;
      if (k > 0 && s[k - 1] == b)
         continue;
      memmove(&s[k + 1], &s[k], (n - k) * sizeof *s);
      s[k] = b;
      n++;
   }
   if (n == 0)
      return 0;
   if (s[0] > (e->size > word ? e->size : word)) {
      /* Only an outer stride: a row walked by one site of an unrolled
       * loop, or a column. The stride is the row, of 4 words or more
       * (not a red-black sweep's 2). Two strides wider than an access
       * are an unrolled vector loop's (32 bytes, then a row): no
       * dimension. */
      if (n > 1 || s[0] % word || s[0] / word < 4)
         return 0;
      memmove(&s[1], &s[0], n * sizeof *s);
      s[0] = word;
      n++;
   }
   /* s[1] / word words a row, s[2] / s[1] rows a plane. */
   uint32_t nd = 1;
   uint64_t inner = 1, fast[PART_GRID_MAXD - 1];
   for (uint32_t k = 1; k < n && nd < PART_GRID_MAXD; k++) {
      if (s[k] % word || (s[k] / word) % inner || s[k] / word / inner < 2)
         break;
      fast[nd - 1] = s[k] / word / inner;
      inner = s[k] / word;
      nd++;
   }
   uint64_t slow = (words + inner - 1) / inner;
   if (nd > 1 && slow < 2)
      nd--, inner /= fast[nd - 1], slow = (words + inner - 1) / inner;
   dim[0] = slow;
   for (uint32_t k = 1; k < nd; k++)
      dim[k] = fast[nd - 1 - k];
   return nd;
}

uint64_t part_grid_words(const trace_file *t, uint32_t a, uint32_t word)
{
   uint64_t w = t->allocs[a].size / word;
   return w ? w : 1;
}

/* A strided record of two or more dimensions, for the segments. */
typedef struct seg_item {
   uint32_t alloc, event;
   uint32_t nd;
   uint64_t lo, hi;      /* words it reaches */
   uint64_t slice;       /* words per index of its slowest dimension */
} seg_item;

/* Overlapping items: one array's walks (its interior by one loop, its
 * faces by others). */
typedef struct seg_cluster {
   uint64_t lo, hi;
   const seg_item *best;   /* most dimensions, then most accesses */
} seg_cluster;

static int seg_item_cmp(const void *pa, const void *pb)
{
   const seg_item *a = pa, *b = pb;
   if (a->alloc != b->alloc)
      return a->alloc < b->alloc ? -1 : 1;
   return a->lo < b->lo ? -1 : a->lo > b->lo;
}

static int seg_better(const trace_file *t, const seg_item *x, const seg_item *y)
{
   if (x->nd != y->nd)
      return x->nd > y->nd;
   return t->events[x->event].count > t->events[y->event].count;
}

/* Whether cluster c is a face of its neighbour d: fewer dimensions, and
 * less than one of d's slices away (a loop over the boundary plane of an
 * array whose interior d walks). */
static int seg_face_of(const seg_cluster *c, const seg_cluster *d)
{
   if (c->best->nd >= d->best->nd)
      return 0;
   uint64_t gap = c->lo > d->hi ? c->lo - d->hi : d->lo - c->hi;
   return gap < d->best->slice;
}

/* Append a segment; 0, or -1 when out of memory. */
static int push_segment(part_grid_info *gi, size_t *nseg, size_t *capseg, part_grid_seg sg)
{
   if (*nseg == *capseg) {
      size_t cap = *capseg ? 2 * *capseg : 16;
      part_grid_seg *grown = realloc(gi->seg, cap * sizeof *grown);
      if (!grown)
         return -1;
      gi->seg = grown, *capseg = cap;
   }
   gi->seg[(*nseg)++] = sg;
   return 0;
}

/* Segments of container a from its clusters c[0..nc) (in order). A
 * cluster that is a face of a neighbour goes with it. Each array is then
 * whole slices centred on its walks (an interior walk lacks its halo),
 * and its segment starts there, or one slice before when it was widened
 * and no array is there (its first face). Words past an array's end
 * that no walk of two or more dimensions reached (levels that one record
 * walked in turn) are an unshaped segment: part_grid_assign places them
 * by their values' neighbours. Nothing when fewer than two arrays
 * remain. 0, or -1 when out of memory. */
static int add_segments(const trace_file *t, part_grid_info *gi, uint32_t word, uint32_t a,
                        seg_cluster *c, size_t nc, size_t *nseg, size_t *capseg)
{
   size_t m = 0;
   for (size_t k = 0; k < nc; k++)
      if (!(k > 0 && seg_face_of(&c[k], &c[k - 1])) &&
          !(k + 1 < nc && seg_face_of(&c[k], &c[k + 1])))
         c[m++] = c[k];
   if (m < 2)
      return 0;
   uint64_t words = part_grid_words(t, a, word), prev_end = 0;
   for (size_t k = 0; k <= m; k++) {
      uint64_t slice = 0, lo = words, start = words, whole = 0, span = 0;
      if (k < m) {
         slice = c[k].best->slice, span = c[k].hi - c[k].lo + 1;
         whole = (span + slice - 1) / slice * slice;
         uint64_t pad = (whole - span) / 2;
         lo = c[k].lo - (pad < c[k].lo - prev_end ? pad : c[k].lo - prev_end);
         start = k == 0 ? 0 : lo;
         if (k > 0 && whole > span)
            start = lo - (slice < lo - prev_end ? slice : lo - prev_end);
      }
      if (k > 0 && start > prev_end) {
         part_grid_seg gap = { prev_end, prev_end, gi->shape[a], 1 };
         gap.shape.ndims = 1;
         gap.shape.dim[0] = start - gap.origin;
         if (push_segment(gi, nseg, capseg, gap) != 0)
            return -1;
      }
      if (k == m)
         break;
      part_grid_seg sg = { start, lo, gi->shape[a], 0 };
      uint64_t len = whole < words - lo ? whole : words - lo;
      uint32_t nd = record_dims(&t->events[c[k].best->event], word, len, sg.shape.dim);
      sg.shape.ndims = (uint8_t)(nd ? nd : 1);
      if (!nd)
         sg.shape.dim[0] = len;
      if (push_segment(gi, nseg, capseg, sg) != 0)
         return -1;
      prev_end = lo + len;
      if (k + 1 < m && prev_end > c[k + 1].lo)
         prev_end = c[k + 1].lo;
   }
   return 0;
}

/* The segments of every container whose records of two or more
 * dimensions fall into disjoint ranges of words (part_grid.h). 0, or -1
 * when out of memory. */
static int find_segments(const trace_file *t, part_grid_info *gi, uint32_t word)
{
   seg_item *it = NULL;
   seg_cluster *cl = NULL;
   size_t n = 0, cap = 0, nseg = 0, capseg = 0;
   int rc = -1;
   gi->seg_first = calloc((size_t)t->nallocs + 1, sizeof *gi->seg_first);
   if (!gi->seg_first)
      return -1;
   for (uint32_t i = 0; i < t->nevents; i++) {
      const trace_event *e = &t->events[i];
      if (e->alloc >= t->nallocs || e->min_offset < 0 || e->max_offset < e->min_offset ||
          (e->pattern != CATS_PAT_STRIDE1 && e->pattern != CATS_PAT_STRIDEK))
         continue;
      uint64_t words = part_grid_words(t, e->alloc, word), dim[PART_GRID_MAXD];
      uint32_t nd = record_dims(e, word, words, dim);
      if (nd < 2)
         continue;
      if (n == cap) {
         size_t nc = cap ? 2 * cap : 256;
         seg_item *grown = realloc(it, nc * sizeof *grown);
         if (!grown)
            goto out;
         it = grown, cap = nc;
      }
      uint64_t lo = (uint64_t)e->min_offset / word, hi = (uint64_t)e->max_offset / word;
      uint64_t slice = 1;
      for (uint32_t d = 1; d < nd; d++)
         slice *= dim[d];
      it[n++] = (seg_item){ e->alloc, i, nd, lo < words ? lo : words - 1,
                            hi < words ? hi : words - 1, slice };
   }
   if (n > 1)
      qsort(it, n, sizeof *it, seg_item_cmp);
   cl = malloc((n ? n : 1) * sizeof *cl);
   if (!cl)
      goto out;
   for (size_t i = 0; i < n;) {
      uint32_t a = it[i].alloc;
      size_t nc = 0, j = i;
      for (; j < n && it[j].alloc == a; j++) {
         if (nc > 0 && it[j].lo <= cl[nc - 1].hi) {
            seg_cluster *c = &cl[nc - 1];
            if (it[j].hi > c->hi)
               c->hi = it[j].hi;
            if (seg_better(t, &it[j], c->best))
               c->best = &it[j];
         } else {
            cl[nc++] = (seg_cluster){ it[j].lo, it[j].hi, &it[j] };
         }
      }
      if (nc >= 2 && add_segments(t, gi, word, a, cl, nc, &nseg, &capseg) != 0)
         goto out;
      gi->seg_first[a + 1] = (uint32_t)nseg;
      i = j;
   }
   /* Containers without segments start where the one before ended. */
   for (uint32_t a = 0; a < t->nallocs; a++)
      if (gi->seg_first[a + 1] < gi->seg_first[a])
         gi->seg_first[a + 1] = gi->seg_first[a];
   rc = 0;
out:
   free(it);
   free(cl);
   return rc;
}

int part_grid_analyse(const trace_file *t, const uint8_t *scope, part_grid_info *gi)
{
   memset(gi, 0, sizeof *gi);
   const trace_vcg *g = &t->vcg;
   uint32_t word = g->word_size ? g->word_size : 8;
   size_t na = t->nallocs ? t->nallocs : 1;
   gi->nallocs = t->nallocs;
   gi->shape = calloc(na, sizeof *gi->shape);
   uint64_t *best = calloc(na, sizeof *best);       /* count of the record */
   uint64_t *all = calloc(na, sizeof *all), *irr = calloc(na, sizeof *irr);
   int rc = -1;
   if (!gi->shape || !best || !all || !irr)
      goto out;
   for (uint32_t a = 0; a < t->nallocs; a++) {
      gi->shape[a].ndims = 1;
      gi->shape[a].dim[0] = part_grid_words(t, a, word);
   }
   for (uint32_t i = 0; i < t->nevents; i++) {
      const trace_event *e = &t->events[i];
      if (e->alloc >= t->nallocs)
         continue;
      part_grid_shape *sh = &gi->shape[e->alloc];
      if (part_ctx_in_scope(e->ctx, scope)) {
         all[e->alloc] += e->count;
         /* Indirect: an address computed from a loaded index (x[col[k]]).
          * A loop nest deeper than the record's three levels (a stencil's
          * offsets looped over) is irregular too, but not indirect. */
         if (e->pattern == CATS_PAT_IRREGULAR && t->index_alloc[i] != CATS_NONE)
            irr[e->alloc] += e->count;
      }
      if (e->pattern != CATS_PAT_STRIDE1 && e->pattern != CATS_PAT_STRIDEK)
         continue;
      if (part_ctx_in_scope(e->ctx, scope))
         sh->blocked = 1;
      uint64_t dim[PART_GRID_MAXD];
      uint32_t nd = record_dims(e, word, part_grid_words(t, e->alloc, word), dim);
      if (nd < 2 || nd < sh->ndims || (nd == sh->ndims && e->count <= best[e->alloc]))
         continue;
      best[e->alloc] = e->count;
      sh->ndims = (uint8_t)nd;
      memcpy(sh->dim, dim, sizeof dim);
   }
   /* An array is regular when at most a tenth of its accesses in scope
    * are indirect (an index array's gathers, a neighbour list's). */
   for (uint32_t a = 0; a < t->nallocs; a++)
      gi->shape[a].regular = all[a] == 0 || irr[a] * 10 <= all[a];
   if (part_mesh_shapes(t, scope, gi) != 0)
      goto out;
   for (uint32_t e = 0; e < g->nedges; e++) {
      const trace_vcg_edge *ed = &g->edges[e];
      uint32_t a = g->vertices[ed->src].alloc;
      if (!part_edge_in_scope(ed, scope) || a == CATS_NONE || a >= t->nallocs)
         continue;
      gi->array_uses += ed->uses;
      if (!gi->shape[a].regular)
         continue;
      gi->direct_uses += ed->uses;
      if (gi->shape[a].ndims > gi->maxdims)
         gi->maxdims = gi->shape[a].ndims;
   }
   if (gi->maxdims == 0)
      gi->maxdims = 1;
   if (find_segments(t, gi, word) != 0)
      goto out;
   rc = 0;
out:
   free(best), free(all), free(irr);
   if (rc != 0)
      part_grid_info_free(gi);
   return rc;
}

void part_grid_info_free(part_grid_info *gi)
{
   free(gi->shape);
   free(gi->seg_first);
   free(gi->seg);
   memset(gi, 0, sizeof *gi);
}

int part_grid_regular(const part_grid_info *gi)
{
   return gi->array_uses > 0 && gi->maxdims >= 2 &&
          4 * (gi->array_uses - gi->direct_uses) <= gi->array_uses;
}

uint32_t part_grid_ranks(const part_grid *g)
{
   uint64_t r = 0;
   for (int k = 0; k < PART_GRID_MAXD && g->f[k]; k++) {
      r = k ? r * g->f[k] : g->f[k];
      if (r > UINT32_MAX)
         return UINT32_MAX;
   }
   return (uint32_t)r;
}

/* Trailing factors of 1 split nothing: {8,1,0} is {8,0,0}. */
static void normalise(part_grid *g)
{
   for (int k = PART_GRID_MAXD - 1; k > 0; k--)
      if (g->f[k] == 1 || g->f[k] == 0)
         g->f[k] = 0;
      else
         break;
}

/* MPI_Dims_create's factorisation of n into k factors, largest first. */
static void balanced(uint32_t n, uint32_t k, uint32_t *f)
{
   for (uint32_t i = 0; i < k; i++)
      f[i] = 1;
   uint32_t primes[32], np = 0;
   for (uint32_t p = 2; n > 1 && np < 32;) {
      if (n % p == 0) {
         primes[np++] = p;
         n /= p;
      } else {
         p = p * p > n ? n : p + 1;
      }
   }
   for (uint32_t i = np; i-- > 0;) {
      uint32_t m = 0;
      for (uint32_t j = 1; j < k; j++)
         if (f[j] < f[m])
            m = j;
      f[m] *= primes[i];
   }
   for (uint32_t i = 0; i < k; i++)   /* descending */
      for (uint32_t j = i + 1; j < k; j++)
         if (f[j] > f[i]) {
            uint32_t x = f[i];
            f[i] = f[j];
            f[j] = x;
         }
}

static uint32_t add(part_grid *out, uint32_t n, uint32_t cap, part_grid g)
{
   normalise(&g);
   for (uint32_t i = 0; i < n; i++)
      if (memcmp(&out[i], &g, sizeof g) == 0)
         return n;
   if (n < cap)
      out[n++] = g;
   return n;
}

uint32_t part_grid_candidates(uint32_t n, uint32_t maxdims, part_grid *out, uint32_t cap)
{
   uint32_t c = 0;
   c = add(out, c, cap, (part_grid){ { n, 0, 0 } });
   if (maxdims >= 2) {
      uint32_t f[2];
      balanced(n, 2, f);
      c = add(out, c, cap, (part_grid){ { f[0], f[1], 0 } });
      c = add(out, c, cap, (part_grid){ { f[1], f[0], 0 } });
      c = add(out, c, cap, (part_grid){ { 1, n, 0 } });
   }
   if (maxdims >= 3) {
      uint32_t f[3];
      static const int perm[6][3] = { { 0, 1, 2 }, { 0, 2, 1 }, { 1, 0, 2 },
                                      { 1, 2, 0 }, { 2, 0, 1 }, { 2, 1, 0 } };
      balanced(n, 3, f);
      for (int p = 0; p < 6; p++)
         c = add(out, c, cap, (part_grid){ { f[perm[p][0]], f[perm[p][1]], f[perm[p][2]] } });
      c = add(out, c, cap, (part_grid){ { 1, 1, n } });
   }
   return c;
}

int part_grid_parse(const char *s, part_grid *g, char *err, size_t errlen)
{
   memset(g, 0, sizeof *g);
   const char *p = s;
   int k = 0;
   for (;;) {
      char *end;
      unsigned long v = (*p >= '0' && *p <= '9') ? strtoul(p, &end, 10) : 0;
      if (v < 1 || v > 65536 || k == PART_GRID_MAXD)
         break;
      g->f[k++] = (uint32_t)v;
      if (*end == '\0') {
         uint64_t r = 1;
         for (int i = 0; i < k; i++)
            r *= g->f[i];
         if (r <= 65536)
            return 0;
         break;
      }
      if (*end != 'x')
         break;
      p = end + 1;
   }
   snprintf(err, errlen, "--grid=%s: expected up to three factors such as 4, 2x4 or "
                         "2x2x2 (slowest dimension first, at most 65536 ranks)", s);
   return -1;
}

void part_grid_format(const part_grid *g, char *buf, size_t len)
{
   size_t o = 0;
   buf[0] = '\0';
   for (int k = 0; k < PART_GRID_MAXD && g->f[k] && o < len; k++)
      o += (size_t)snprintf(buf + o, len - o, "%s%u", k ? "x" : "", g->f[k]);
}
