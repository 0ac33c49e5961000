/* SPDX-License-Identifier: GPL-2.0-or-later */
/* trace_decode_reuse.c: decode sections 9 (REUSE) and 10 (INDEX).
 *
 * Layouts are in docs/FORMAT.md. REUSE holds sparse histograms: each
 * record names an event (or alloc), a mask of its non-zero counts and
 * those counts; the decoder checks the header values, that ids are in
 * range and strictly ascending, that masks name only known buckets and
 * that no stored count is 0, and expands the records into one dense
 * histogram per event and per alloc. INDEX holds (access loc, index-load
 * loc) pairs sorted by access loc; the decoder maps them onto the events
 * and names the container each index load reads. */
#include "trace_int.h"

#include <stdlib.h>
#include <string.h>

#include "le.h"

#define REUSE_RECORD_HEAD 12   /* u32 id, u64 mask */

static int is_pow2(uint32_t x)
{
   return x != 0 && (x & (x - 1)) == 0;
}

/* One list of sparse records at *pos: `what` ("event" or "alloc") names
 * them in messages, limit is the number of ids. out NULL: checked only. */
static trace_status parse_hists(const trace_section *s, size_t *pos,
                                const char *what, uint32_t limit,
                                trace_reuse_hist *out, char *err, size_t errlen)
{
   if (s->size - *pos < 4)
      return trace_fail(err, errlen, TRACE_ERECORD,
                        "REUSE: section ends before the %s count", what);
   uint32_t n = le_u32(s->data + *pos);
   *pos += 4;
   if ((uint64_t)n * REUSE_RECORD_HEAD > s->size - *pos)
      return trace_fail(err, errlen, TRACE_ERECORD,
                        "REUSE: %u %s records cannot fit in the %zu bytes "
                        "left", n, what, s->size - *pos);
   uint32_t prev = 0;
   for (uint32_t i = 0; i < n; i++) {
      if (s->size - *pos < REUSE_RECORD_HEAD)
         return trace_fail(err, errlen, TRACE_ERECORD,
                           "REUSE: %s record %u runs past the section", what,
                           i);
      const uint8_t *p = s->data + *pos;
      uint32_t id = le_u32(p);
      uint64_t mask = le_u64(p + 4);
      *pos += REUSE_RECORD_HEAD;
      if (id >= limit)
         return trace_fail(err, errlen, TRACE_EREF,
                           "REUSE: %s record %u: %s %u out of range (%u)",
                           what, i, what, id, limit);
      if (i > 0 && id <= prev)
         return trace_fail(err, errlen, TRACE_EVALUE,
                           "REUSE: %s record %u: %s %u not after %u", what, i,
                           what, id, prev);
      prev = id;
      if (mask == 0 || (mask >> CATS_REUSE_MASK_BITS) != 0)
         return trace_fail(err, errlen, TRACE_EVALUE,
                           "REUSE: %s record %u: bad bucket mask 0x%llx", what,
                           i, (unsigned long long)mask);
      unsigned nv = (unsigned)__builtin_popcountll(mask);
      if ((uint64_t)nv * 8 > s->size - *pos)
         return trace_fail(err, errlen, TRACE_ERECORD,
                           "REUSE: %s record %u: %u counts run past the "
                           "section", what, i, nv);
      trace_reuse_hist *h = out ? &out[id] : NULL;
      for (unsigned bit = 0; bit < CATS_REUSE_MASK_BITS; bit++) {
         if (!(mask >> bit & 1))
            continue;
         uint64_t v = le_u64(s->data + *pos);
         *pos += 8;
         if (v == 0)
            return trace_fail(err, errlen, TRACE_EVALUE,
                              "REUSE: %s record %u: a stored count is 0",
                              what, i);
         if (!h)
            continue;
         if (bit == 0)
            h->cold = v;
         else
            h->bucket[bit - 1] = v;
      }
   }
   return TRACE_OK;
}

/* The META value of `key` as a number: -1 when absent, -2 when not a
 * decimal number. The tool records there which optional sections it
 * wrote, so that one lost to a damaged table type is noticed. */
trace_status trace_decode_reuse(trace_file *t, const trace_section *s, int keep,
                                char *err, size_t errlen)
{
   long long meta = trace_meta_number(t, "reuse_sampling");
   if (!s && meta != -1)
      return trace_fail(err, errlen, TRACE_EMISSING,
                        "META reuse_sampling is set but section 9 (REUSE) is "
                        "missing");
   if (!s)
      return TRACE_OK;
   if (s->size < CATS_REUSE_HEADER_SIZE)
      return trace_fail(err, errlen, TRACE_ERECORD,
                        "REUSE: %zu bytes, too short for its header", s->size);
   trace_reuse *r = &t->reuse;
   uint32_t buckets = le_u32(s->data + 8);
   r->line_size = le_u32(s->data);
   r->sampling = le_u32(s->data + 4);
   if (!is_pow2(r->line_size))
      return trace_fail(err, errlen, TRACE_EVALUE,
                        "REUSE: line size %u is not a power of two",
                        r->line_size);
   if (!is_pow2(r->sampling) || r->sampling > CATS_REUSE_MAX_SAMPLING)
      return trace_fail(err, errlen, TRACE_EVALUE,
                        "REUSE: sampling %u is not a power of two up to %d",
                        r->sampling, CATS_REUSE_MAX_SAMPLING);
   if (buckets != CATS_REUSE_BUCKETS)
      return trace_fail(err, errlen, TRACE_EVALUE,
                        "REUSE: %u buckets, this reader knows %d", buckets,
                        CATS_REUSE_BUCKETS);
   if (meta != -1 && meta != (long long)r->sampling)
      return trace_fail(err, errlen, TRACE_EVALUE,
                        "REUSE: sampling %u, but META reuse_sampling is %s",
                        r->sampling, trace_meta_get(t, "reuse_sampling"));
   /* A dense histogram is 272 bytes: an event each would be 451 MB for
      python3 starting up, only to check the section before writing it. */
   if (keep) {
      r->events = calloc(t->nevents ? t->nevents : 1, sizeof *r->events);
      r->allocs = calloc(t->nallocs ? t->nallocs : 1, sizeof *r->allocs);
      if (!r->events || !r->allocs)
         return trace_fail(err, errlen, TRACE_ENOMEM, "out of memory (REUSE)");
   }
   size_t pos = CATS_REUSE_HEADER_SIZE;
   trace_status st = parse_hists(s, &pos, "event", t->nevents, r->events, err,
                                 errlen);
   if (st == TRACE_OK)
      st = parse_hists(s, &pos, "alloc", t->nallocs, r->allocs, err, errlen);
   if (st == TRACE_OK && pos != s->size)
      st = trace_fail(err, errlen, TRACE_ERECORD,
                      "REUSE: %zu trailing bytes after the records",
                      s->size - pos);
   if (st == TRACE_OK)
      t->has_reuse = keep;
   return st;
}

/* Events of an index load: by (loc, alloc), to sum per container. */
typedef struct idx_ev {
   uint32_t loc, alloc;
   uint64_t count;
} idx_ev;

static int cmp_idx_ev(const void *a, const void *b)
{
   const idx_ev *x = a, *y = b;
   if (x->loc != y->loc)
      return x->loc < y->loc ? -1 : 1;
   return (x->alloc > y->alloc) - (x->alloc < y->alloc);
}

/* best[loc]: the container the read events at loc access most, over
 * the locs marked in is_index; stack frames do not count (a value loaded
 * from the frame is a spilled or scalar local, not an index array).
 * Ties go to the smaller alloc id. */
static trace_status index_containers(const trace_file *t, const uint8_t *is_index,
                                     uint32_t *best, char *err, size_t errlen)
{
   idx_ev *v = malloc(((size_t)t->nevents + 1) * sizeof *v);
   uint64_t *best_count = calloc((size_t)t->nlocs + 1, sizeof *best_count);
   if (!v || !best_count) {
      free(v);
      free(best_count);
      return trace_fail(err, errlen, TRACE_ENOMEM, "out of memory (INDEX)");
   }
   size_t n = 0;
   for (uint32_t i = 0; i < t->nevents; i++) {
      const trace_event_key *e = &t->event_keys[i];
      if (e->kind == CATS_READ && is_index[e->loc] &&
          t->allocs[e->alloc].kind != CATS_ALLOC_STACK_FRAME)
         v[n++] = (idx_ev){ e->loc, e->alloc, e->count };
   }
   qsort(v, n, sizeof *v, cmp_idx_ev);
   for (size_t i = 0; i < n;) {
      size_t j = i;
      uint64_t sum = 0;
      for (; j < n && v[j].loc == v[i].loc && v[j].alloc == v[i].alloc; j++)
         sum += v[j].count;
      uint32_t loc = v[i].loc;
      if (best[loc] == CATS_NONE || sum > best_count[loc]) {
         best[loc] = v[i].alloc;
         best_count[loc] = sum;
      }
      i = j;
   }
   free(v);
   free(best_count);
   return TRACE_OK;
}

trace_status trace_decode_index(trace_file *t, const trace_section *s, char *err,
                                size_t errlen)
{
   size_t ne = t->nevents ? t->nevents : 1;
   t->index_loc = malloc(ne * sizeof *t->index_loc);
   t->index_alloc = malloc(ne * sizeof *t->index_alloc);
   if (!t->index_loc || !t->index_alloc)
      return trace_fail(err, errlen, TRACE_ENOMEM, "out of memory (INDEX)");
   for (uint32_t i = 0; i < t->nevents; i++)
      t->index_loc[i] = t->index_alloc[i] = CATS_NONE;
   uint32_t n;
   trace_status cst = trace_counted_section(t, s, "index_pairs", CATS_SEC_INDEX,
                                            "pairs", CATS_INDEX_PAIR_SIZE, 0, &n,
                                            err, errlen);
   if (cst != TRACE_OK || !s)
      return cst;
   /* by_loc[access loc]: its index loc. */
   uint32_t *by_loc = malloc(((size_t)t->nlocs + 1) * sizeof *by_loc);
   uint32_t *best = malloc(((size_t)t->nlocs + 1) * sizeof *best);
   uint8_t *is_index = calloc((size_t)t->nlocs + 1, 1);
   trace_status st = TRACE_OK;
   if (!by_loc || !best || !is_index)
      st = trace_fail(err, errlen, TRACE_ENOMEM, "out of memory (INDEX)");
   for (uint32_t l = 0; st == TRACE_OK && l < t->nlocs; l++)
      by_loc[l] = best[l] = CATS_NONE;
   for (uint32_t i = 0; st == TRACE_OK && i < n; i++) {
      const uint8_t *p = s->data + 4 + (size_t)i * CATS_INDEX_PAIR_SIZE;
      uint32_t acc = le_u32(p), idx = le_u32(p + 4);
      if (acc >= t->nlocs || idx >= t->nlocs)
         st = trace_fail(err, errlen, TRACE_EREF,
                         "INDEX: pair %u: loc %u out of range (%u)", i,
                         acc >= t->nlocs ? acc : idx, t->nlocs);
      else if (i > 0 && acc <= le_u32(p - CATS_INDEX_PAIR_SIZE))
         st = trace_fail(err, errlen, TRACE_EVALUE,
                         "INDEX: pair %u: access loc %u not after the "
                         "previous pair's", i, acc);
      else {
         by_loc[acc] = idx;
         is_index[idx] = 1;
      }
   }
   if (st == TRACE_OK)
      st = index_containers(t, is_index, best, err, errlen);
   if (st == TRACE_OK) {
      for (uint32_t i = 0; i < t->nevents; i++) {
         uint32_t idx = by_loc[t->event_keys[i].loc];
         t->index_loc[i] = idx;
         t->index_alloc[i] = idx == CATS_NONE ? CATS_NONE : best[idx];
      }
      t->has_index = 1;
   }
   free(by_loc);
   free(best);
   free(is_index);
   return st;
}

trace_misses trace_reuse_misses(const trace_reuse_hist *h, uint64_t lines)
{
   trace_misses m = { 0, (double)h->cold, 0 };
   m.accesses = (double)h->cold;
   for (unsigned b = 0; b < TRACE_REUSE_BUCKETS; b++) {
      double c = (double)h->bucket[b];
      m.accesses += c;
      if (c == 0)
         continue;
      uint64_t lo = b == 0 ? 0 : 1ULL << (b - 1);   /* bucket [lo, hi) */
      uint64_t hi = 1ULL << b;
      if (lo >= lines || b == TRACE_REUSE_BUCKETS - 1)
         m.capacity += c;                 /* every distance >= lines */
      else if (hi > lines)                /* lo < lines < hi */
         m.capacity += c * (double)(hi - lines) / (double)(hi - lo);
   }
   return m;
}
