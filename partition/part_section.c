/* SPDX-License-Identifier: GPL-2.0-or-later */
/* part_section.c: section 8 encode and decode (part_section.h).
 *
 *   u32 version, u32 nresults, u32 region ctx (or NONE), u32 flags
 *   (bit 0: region chosen automatically), u64 iterations, f64 threshold,
 *   f64 alpha, f64 beta, i32 seed, i32 ufactor, u32 method, u32 tries,
 *   u32 contig, u32 groups,
 *   (version 2:) u32 decomposition, u32 most dimensions of a regular array,
 *   u64 uses of array values per iteration, u64 of which of regular arrays,
 *   5 x u32 singletons per kind (none, broadcast, reduce, allreduce,
 *   replicated), f64 centroid degree, u32 name length, name bytes (how the
 *   region reads), u32 spec length, spec bytes (--per as given, "" when
 *   chosen automatically);
 *   per result: u32 n, u32 method (PART_PROJECT_GRID: a process grid),
 *   (version 2:) 3 x u32 grid factors (0 after the last; all 0 for METIS),
 *   u32 candidates, per candidate 3 x u32 grid factors and u64 bytes,
 *   f64 imbalance, u64 cut,
 *   3 x u64 collective calls, 3 x u64 collective bytes,
 *   n*n x u64 matrix, n*n x u64 rounds.
 * Doubles are stored as their IEEE-754 bits. */
#include "part_section.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cats/trace/le.h"

static uint64_t dbits(double d)
{
   uint64_t u;
   memcpy(&u, &d, sizeof u);
   return u;
}

static double bitsd(uint64_t u)
{
   double d;
   memcpy(&d, &u, sizeof d);
   return d;
}

int part_section_write(const part_projection *p, trace_buf *b)
{
   const part_project_options *o = &p->opts;
   size_t nlen = strlen(p->region.name);
   int bad = trace_buf_put32(b, PART_SECTION_VERSION) | trace_buf_put32(b, p->nresults) |
             trace_buf_put32(b, p->region.found ? p->region.ctx : CATS_NONE) |
             trace_buf_put32(b, p->region.automatic ? 1u : 0u) |
             trace_buf_put64(b, p->region.iterations) |
             trace_buf_put64(b, dbits(o->threshold)) |
             trace_buf_put64(b, dbits(o->cost.alpha)) |
             trace_buf_put64(b, dbits(o->cost.beta)) |
             trace_buf_put32(b, (uint32_t)o->metis.seed) |
             trace_buf_put32(b, (uint32_t)o->metis.ufactor) |
             trace_buf_put32(b, (uint32_t)o->metis.method) |
             trace_buf_put32(b, (uint32_t)o->metis.tries) |
             trace_buf_put32(b, (uint32_t)o->metis.contig) |
             trace_buf_put32(b, p->groups) |
             trace_buf_put32(b, (uint32_t)o->decomp) | trace_buf_put32(b, p->maxdims) |
             trace_buf_put64(b, p->array_uses) | trace_buf_put64(b, p->direct_uses);
   for (int k = 0; k < PART_SINGLETON_NKINDS; k++)
      bad |= trace_buf_put32(b, p->singletons.count[k]);
   size_t slen = strlen(p->per_spec);
   bad |= trace_buf_put64(b, dbits(p->singletons.centroid));
   bad |= trace_buf_put32(b, (uint32_t)nlen) | trace_buf_append(b, p->region.name, nlen);
   bad |= trace_buf_put32(b, (uint32_t)slen) | trace_buf_append(b, p->per_spec, slen);
   for (uint32_t i = 0; i < p->nresults && !bad; i++) {
      const part_comm_result *r = &p->results[i];
      bad |= trace_buf_put32(b, r->nranks) | trace_buf_put32(b, (uint32_t)r->method);
      for (int k = 0; k < PART_GRID_MAXD; k++)
         bad |= trace_buf_put32(b, r->grid.f[k]);
      bad |= trace_buf_put32(b, r->ncand);
      for (uint32_t c = 0; c < r->ncand; c++) {
         for (int k = 0; k < PART_GRID_MAXD; k++)
            bad |= trace_buf_put32(b, r->cand[c].f[k]);
         bad |= trace_buf_put64(b, r->cand_bytes[c]);
      }
      bad |= trace_buf_put64(b, dbits(r->imbalance)) | trace_buf_put64(b, r->cut);
      for (int t = 0; t < PART_COMM_NCOLL; t++)
         bad |= trace_buf_put64(b, r->coll_calls[t]);
      for (int t = 0; t < PART_COMM_NCOLL; t++)
         bad |= trace_buf_put64(b, r->coll_bytes[t]);
      size_t nn = (size_t)r->nranks * r->nranks;
      for (size_t k = 0; k < nn && !bad; k++)
         bad |= trace_buf_put64(b, r->matrix[k]);
      for (size_t k = 0; k < nn && !bad; k++)
         bad |= trace_buf_put64(b, r->rounds[k]);
   }
   return bad ? -1 : 0;
}

typedef struct rd {
   const uint8_t *p;
   size_t left;
   int short_;
} rd;

static const uint8_t *take(rd *r, size_t n)
{
   if (r->short_ || r->left < n) {
      r->short_ = 1;
      return NULL;
   }
   const uint8_t *p = r->p;
   r->p += n;
   r->left -= n;
   return p;
}

static uint32_t g32(rd *r)
{
   const uint8_t *p = take(r, 4);
   return p ? le_u32(p) : 0;
}

static uint64_t g64(rd *r)
{
   const uint8_t *p = take(r, 8);
   return p ? le_u64(p) : 0;
}

static int fail(part_projection *p, char *err, size_t errlen, const char *what)
{
   snprintf(err, errlen, "section 8 (PROJECT): %s", what);
   part_project_free(p);
   return -1;
}

/* A stored grid: factors of 1..n, none after a 0, of product n. */
static int grid_ok(const part_grid *g, uint32_t n)
{
   for (int k = 1; k < PART_GRID_MAXD; k++)
      if (g->f[k] && !g->f[k - 1])
         return 0;
   for (int k = 0; k < PART_GRID_MAXD; k++)
      if (g->f[k] > n)
         return 0;
   return g->f[0] && part_grid_ranks(g) == n;
}

int part_section_read(const uint8_t *data, size_t len, part_projection *p, char *err,
                      size_t errlen)
{
   memset(p, 0, sizeof *p);
   rd r = { data, len, 0 };
   part_project_options *o = &p->opts;
   uint32_t version = g32(&r);
   /* Version 1 (before structured decompositions) is read as METIS's. */
   if (!r.short_ && version != PART_SECTION_VERSION && version != 1)
      return fail(p, err, errlen, "unsupported version");
   uint32_t nres = g32(&r);
   uint32_t ctx = g32(&r), flags = g32(&r);
   p->region.iterations = g64(&r);
   o->threshold = bitsd(g64(&r));
   o->cost.alpha = bitsd(g64(&r));
   o->cost.beta = bitsd(g64(&r));
   o->metis.seed = (int)g32(&r);
   o->metis.ufactor = (int)g32(&r);
   o->metis.method = (int)g32(&r);
   o->metis.tries = (int)g32(&r);
   o->metis.contig = (int)g32(&r);
   p->groups = g32(&r);
   if (version >= 2) {
      o->decomp = (int)g32(&r);
      p->maxdims = g32(&r);
      p->array_uses = g64(&r);
      p->direct_uses = g64(&r);
   }
   for (int k = 0; k < PART_SINGLETON_NKINDS; k++)
      p->singletons.count[k] = g32(&r);
   p->singletons.centroid = bitsd(g64(&r));
   uint32_t nlen = g32(&r);
   if (r.short_)
      return fail(p, err, errlen, "truncated header");
   if (nres > PART_PROJECT_MAX_RANKS || flags > 1 || nlen >= PART_REGION_NAMELEN ||
       o->metis.method < 0 || o->metis.method >= PART_METIS_NMETHODS ||
       (unsigned)o->decomp >= PART_DECOMP_N || p->maxdims > PART_GRID_MAXD ||
       p->direct_uses > p->array_uses ||
       o->metis.tries < 0 || o->metis.tries > 100 ||
       (unsigned)o->metis.contig > PART_METIS_CONTIG_AUTO || !(o->threshold > 0 && o->threshold <= 1))
      return fail(p, err, errlen, "bad header");
   const uint8_t *name = take(&r, nlen);
   if (!name)
      return fail(p, err, errlen, "truncated region name");
   memcpy(p->region.name, name, nlen);
   p->region.name[nlen] = '\0';
   uint32_t slen = g32(&r);
   const uint8_t *spec = r.short_ || slen >= PART_REGION_NAMELEN ? NULL : take(&r, slen);
   if (!spec)
      return fail(p, err, errlen, "bad or truncated --per");
   memcpy(p->per_spec, spec, slen);
   p->per_spec[slen] = '\0';
   o->per = (flags & 1) ? NULL : p->per_spec;
   p->region.found = ctx != CATS_NONE;
   p->region.ctx = ctx;
   p->region.automatic = (int)(flags & 1);
   o->nranks = nres;
   for (uint32_t i = 0; i < nres; i++) {
      part_comm_result *res = &p->results[i];
      uint32_t n = g32(&r);
      uint32_t method = g32(&r);
      part_grid grid = { { 0, 0, 0 } };
      uint32_t ncand = 0;
      if (version >= 2) {
         for (int k = 0; k < PART_GRID_MAXD; k++)
            grid.f[k] = g32(&r);
         ncand = g32(&r);
         if (ncand > PART_GRID_MAX_CANDIDATES + 1)
            return fail(p, err, errlen, "bad result candidates");
         for (uint32_t c = 0; c < ncand; c++) {
            for (int k = 0; k < PART_GRID_MAXD; k++)
               res->cand[c].f[k] = g32(&r);
            res->cand_bytes[c] = g64(&r);
            if (res->cand[c].f[0] && !grid_ok(&res->cand[c], n))
               return fail(p, err, errlen, "bad result candidates");
         }
      }
      res->ncand = ncand;
      int is_grid = method == PART_PROJECT_GRID;
      if (r.short_ || n < 1 || n > PART_PROJECT_MAX_N || method > PART_PROJECT_GRID ||
          method == PART_METIS_BEST || (is_grid ? !grid_ok(&grid, n) : grid.f[0] != 0))
         return fail(p, err, errlen, "bad or truncated result");
      size_t nn = (size_t)n * n;
      if (r.left < 8 * (2 + 2 * PART_COMM_NCOLL) + 16 * nn)
         return fail(p, err, errlen, "truncated result");
      res->nranks = n;
      o->ranks[i] = n;
      res->method = (int)method;
      res->grid = grid;
      res->imbalance = bitsd(g64(&r));
      res->cut = g64(&r);
      for (int t = 0; t < PART_COMM_NCOLL; t++)
         res->coll_calls[t] = g64(&r);
      for (int t = 0; t < PART_COMM_NCOLL; t++)
         res->coll_bytes[t] = g64(&r);
      res->matrix = malloc(nn * sizeof *res->matrix);
      res->rounds = malloc(nn * sizeof *res->rounds);
      p->nresults = i + 1;
      if (!res->matrix || !res->rounds)
         return fail(p, err, errlen, "out of memory");
      for (size_t k = 0; k < nn; k++)
         res->matrix[k] = g64(&r);
      for (size_t k = 0; k < nn; k++)
         res->rounds[k] = g64(&r);
      for (uint32_t d = 0; d < n; d++)
         if (res->matrix[(size_t)d * n + d])
            return fail(p, err, errlen, "a rank sends to itself");
      part_comm_totals(res, &o->cost);
   }
   if (r.left)
      return fail(p, err, errlen, "trailing bytes");
   return 0;
}
