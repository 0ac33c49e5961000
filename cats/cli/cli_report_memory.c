/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cli_report_memory.c: sections 1-4 of `cats report`: the peak footprint,
 * allocations inside loops, short usage lifetimes and buffer-sharing
 * opportunities, from the ALLOCS records and the access times of the
 * EVENTS records.
 *
 * What the folded records give exactly, and what they only bound
 * --------------------------------------------------------------
 * An ALLOCS record folds every instance of one (kind, context, site,
 * size, name): it keeps the count, the largest number live at once
 * (max_live) and the times of the first and last allocation and release,
 * not the times of each instance.
 *
 *  - A record with one instance is exact: it is live at time T iff
 *    first_alloc <= T < first_free (or it was never released). The tool
 *    moves the peak when an allocation makes it, at that allocation's
 *    time, and a release at time F lowers the footprint at F.
 *  - A record with several instances is exact at T outside the spans of
 *    its allocations and releases: none live before first_alloc, all
 *    `count` live from last_alloc to first_free, none after last_free
 *    unless some leaked. Inside those spans only bounds follow: at least
 *    (surely allocated - possibly released), at most min(max_live,
 *    possibly allocated - surely released). Such a record is printed as
 *    "a-b live" and the two bounds are summed apart: their difference is
 *    the part of the peak that is an estimate.
 *  - Sizes are exact: a record holds instances of one size.
 *  - Lifetimes (sections 3 and 4) of a one-instance record are exact. For
 *    a record with several instances the allocation lifetime runs from its
 *    first allocation to its last release and the usage lifetime from the
 *    first to the last access of any instance (an EVENTS record names the
 *    ALLOCS record, not the instance), so the ratio describes the record as
 *    a whole; section 4 therefore groups one-instance records only.
 *  - Bytes per iteration (section 2) is total_bytes (exact) over the
 *    iterations of the loop's context node (exact): the average, which is
 *    each iteration's share when every iteration allocates alike.
 *
 * The tool's footprint counts heap blocks, mmaps and globals (a global
 * from its first access on); stack frames and stack arrays are not in it,
 * and neither are client-named blocks (names on memory counted already). */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_report.h"

/* Heap blocks and mappings: what the program allocates and releases. */
static int is_heap(uint8_t kind)
{
   return kind <= CATS_ALLOC_NEW_ARRAY || kind == CATS_ALLOC_MMAP;
}

static int in_footprint(uint8_t kind)
{
   return is_heap(kind) || kind == CATS_ALLOC_GLOBAL;
}

static int cmp_u64_desc(uint64_t a, uint64_t b)
{
   return (a < b) - (a > b);
}

static int cmp_u32(uint32_t a, uint32_t b)
{
   return (a > b) - (a < b);
}

/* ------------------------------------------------------------------ */
/* 1. Peak footprint                                                  */
/* ------------------------------------------------------------------ */

/* Bounds on the instances of record a live at time T (see the top). */
static void live_at(const trace_alloc *a, uint64_t T, uint64_t *lo,
                    uint64_t *hi)
{
   uint64_t n = a->count;
   *lo = *hi = 0;
   if (n == 0 || T < a->first_alloc)
      return;
   uint64_t born_lo = T >= a->last_alloc ? n : 1;
   uint64_t born_hi = T >= a->last_alloc ? n : n - 1;
   uint64_t died_lo = 0, died_hi = 0;
   if (a->first_free != 0 && T >= a->first_free) {
      /* Releases in all: every instance, or all but the leaked ones. */
      int leaked = (a->flags & CATS_ALLOCFLAG_LEAKED) != 0;
      uint64_t all_lo = leaked ? 1 : n, all_hi = leaked ? n - 1 : n;
      if (all_hi < all_lo)
         all_lo = all_hi;
      if (T >= a->last_free) {
         died_lo = all_lo;
         died_hi = all_hi;
      } else {
         died_lo = 1;   /* the first release; the last one is later */
         died_hi = all_hi > 0 ? all_hi - 1 : 0;
      }
   }
   if (died_hi > born_hi)
      died_hi = born_hi;
   *hi = born_hi > died_lo ? born_hi - died_lo : 0;
   if (*hi > a->max_live)
      *hi = a->max_live;
   *lo = born_lo > died_hi ? born_lo - died_hi : 0;
   if (*lo > *hi)
      *lo = *hi;
}

static const trace_file *sort_trace;   /* qsort has no context argument */

static int cmp_live(const void *pa, const void *pb)
{
   const cli_report_live *a = pa, *b = pb;
   uint64_t sa = sort_trace->allocs[a->alloc].size;
   uint64_t sb = sort_trace->allocs[b->alloc].size;
   int c = cmp_u64_desc(cli_mul_sat(a->min, sa),
                        cli_mul_sat(b->min, sb));
   if (!c)
      c = cmp_u64_desc(cli_mul_sat(a->max, sa),
                       cli_mul_sat(b->max, sb));
   return c ? c : cmp_u32(a->alloc, b->alloc);
}

static int meta_u64(const trace_file *t, const char *key, uint64_t *v)
{
   const char *s = trace_meta_get(t, key);
   if (!s || *s < '0' || *s > '9')
      return -1;
   char *end;
   unsigned long long x = strtoull(s, &end, 10);
   if (*end)
      return -1;
   *v = x;
   return 0;
}

static int peak(const trace_file *t, const cli_report_options *o, cli_report_peak *p)
{
   if (meta_u64(t, "peak_time", &p->time) != 0 ||
       meta_u64(t, "peak_footprint", &p->bytes) != 0)
      return 0;   /* not measured: the section says so */
   p->known = 1;
   p->live = malloc(((size_t)t->nallocs + 1) * sizeof *p->live);
   if (!p->live)
      return -1;
   for (uint32_t i = 0; i < t->nallocs; i++) {
      const trace_alloc *a = &t->allocs[i];
      uint64_t lo, hi;
      if (!in_footprint(a->kind) || a->size == 0)
         continue;
      live_at(a, p->time, &lo, &hi);
      if (hi == 0)
         continue;
      if (o->ours && !o->ours[i]) {
         p->system++;
         p->system_bytes = cli_add_sat(p->system_bytes,
                                              cli_mul_sat(hi, a->size));
         continue;
      }
      p->exact_bytes = cli_add_sat(p->exact_bytes, cli_mul_sat(lo,
                                                                   a->size));
      p->upper_bytes = cli_add_sat(p->upper_bytes, cli_mul_sat(hi,
                                                                   a->size));
      p->live[p->total++] = (cli_report_live){ i, lo, hi };
   }
   sort_trace = t;
   qsort(p->live, p->total, sizeof *p->live, cmp_live);
   p->n = p->total < o->top ? p->total : o->top;
   return 0;
}

/* ------------------------------------------------------------------ */
/* 2. Allocations inside loops                                        */
/* ------------------------------------------------------------------ */

/* The innermost loop around context c that is in scope and repeats (a
 * loop that never ran a second iteration repeats nothing: the loop of
 * __libc_start_main around main, say), or CATS_NONE. */
static uint32_t enclosing_loop(const trace_file *t, const uint8_t *in_scope,
                               uint32_t c)
{
   for (; c != CATS_NONE && in_scope[c]; c = t->contexts[c].parent) {
      const trace_context *x = &t->contexts[c];
      if (x->kind == CATS_CTX_LOOP && x->max_iterations > 1)
         return c;
   }
   return CATS_NONE;
}

static int cmp_loop_alloc(const void *pa, const void *pb)
{
   const cli_report_loop_alloc *a = pa, *b = pb;
   const trace_alloc *x = &sort_trace->allocs[a->alloc];
   const trace_alloc *y = &sort_trace->allocs[b->alloc];
   int c = cmp_u64_desc(x->count, y->count);
   if (!c)
      c = cmp_u64_desc(x->total_bytes, y->total_bytes);
   return c ? c : cmp_u32(a->alloc, b->alloc);
}

static int in_loops(const trace_file *t, const cli_report_options *o, cli_report_data *r)
{
   r->loops = malloc(((size_t)t->nallocs + 1) * sizeof *r->loops);
   if (!r->loops)
      return -1;
   for (uint32_t i = 0; i < t->nallocs; i++) {
      const trace_alloc *a = &t->allocs[i];
      if (!is_heap(a->kind) || a->alloc_ctx == CATS_NONE)
         continue;
      uint32_t loop = enclosing_loop(t, o->in_scope, a->alloc_ctx);
      if (loop == CATS_NONE)
         continue;
      double it = (double)t->contexts[loop].iterations;
      r->loops[r->loops_total++] =
         (cli_report_loop_alloc){ i, loop, (double)a->total_bytes / it };
   }
   sort_trace = t;
   qsort(r->loops, r->loops_total, sizeof *r->loops, cmp_loop_alloc);
   r->nloops = r->loops_total < o->top ? r->loops_total : o->top;
   return 0;
}

/* ------------------------------------------------------------------ */
/* 3. Short usage lifetimes                                           */
/* ------------------------------------------------------------------ */

/* The end of the run: META time_end, or the latest time the trace holds
 * (an instance never released lives until then). */
static uint64_t run_end(const trace_file *t)
{
   uint64_t end = 0;
   meta_u64(t, "time_end", &end);
   for (uint32_t i = 0; i < t->ncontexts; i++)
      if (t->contexts[i].last_time > end)
         end = t->contexts[i].last_time;
   for (uint32_t i = 0; i < t->nevents; i++)
      if (t->events[i].last_time > end)
         end = t->events[i].last_time;
   for (uint32_t i = 0; i < t->nallocs; i++)
      if (t->allocs[i].last_free > end)
         end = t->allocs[i].last_free;
   return end;
}

/* Lifetimes of the containers sections 3 and 4 consider: heap blocks,
 * mappings and stack arrays allocated in scope. Globals live until the
 * end by nature and stack frames hold spills and scalars, not buffers.
 * Returns the number, or -1 when out of memory. */
static int64_t lifetimes(const trace_file *t, const cli_report_options *o,
                         cli_report_lifetime **out)
{
   cli_report_lifetime *lt = malloc(((size_t)t->nallocs + 1) * sizeof *lt);
   uint32_t *slot = malloc(((size_t)t->nallocs + 1) * sizeof *slot);
   if (!lt || !slot) {
      free(lt);
      free(slot);
      return -1;
   }
   uint64_t end = run_end(t);
   uint32_t n = 0;
   for (uint32_t i = 0; i < t->nallocs; i++) {
      const trace_alloc *a = &t->allocs[i];
      slot[i] = CATS_NONE;
      if (!(is_heap(a->kind) || a->kind == CATS_ALLOC_STACK_VAR) ||
          a->alloc_ctx == CATS_NONE || !o->in_scope[a->alloc_ctx] ||
          a->count == 0)
         continue;
      int open = (a->flags & CATS_ALLOCFLAG_LEAKED) || a->last_free == 0;
      slot[i] = n;
      lt[n++] = (cli_report_lifetime){ .alloc = i, .alloc_start = a->first_alloc,
                                .alloc_end = open ? end : a->last_free };
   }
   /* Usage: every access of the container counts, wherever it ran. */
   for (uint32_t i = 0; i < t->nevents; i++) {
      const trace_event *e = &t->events[i];
      if (slot[e->alloc] == CATS_NONE)
         continue;
      cli_report_lifetime *l = &lt[slot[e->alloc]];
      if (!l->used || e->first_time < l->use_start)
         l->use_start = e->first_time;
      if (!l->used || e->last_time > l->use_end)
         l->use_end = e->last_time;
      l->used = 1;
   }
   free(slot);
   for (uint32_t i = 0; i < n; i++) {
      cli_report_lifetime *l = &lt[i];
      uint64_t life = l->alloc_end > l->alloc_start
                         ? l->alloc_end - l->alloc_start : 0;
      uint64_t use = l->used ? l->use_end - l->use_start : 0;
      if (use > life)
         use = life;
      l->ratio = life ? (double)use / (double)life : 1.0;
      l->idle = cli_mul_sat(t->allocs[l->alloc].size, life - use);
   }
   *out = lt;
   return n;
}

static int cmp_short(const void *pa, const void *pb)
{
   const cli_report_lifetime *a = pa, *b = pb;
   int c = cmp_u64_desc(a->idle, b->idle);
   if (!c)
      c = (a->ratio > b->ratio) - (a->ratio < b->ratio);
   return c ? c : cmp_u32(a->alloc, b->alloc);
}

/* Containers whose usage lifetime is below o->short_ratio of their
 * allocation lifetime (one that is never accessed has ratio 0), by the
 * memory they hold unused, size x (allocation - usage lifetime). */
static int shorts(const cli_report_options *o, const cli_report_lifetime *lt, uint32_t n,
                  cli_report_data *r)
{
   r->shorts = malloc(((size_t)n + 1) * sizeof *r->shorts);
   if (!r->shorts)
      return -1;
   for (uint32_t i = 0; i < n; i++)
      if (lt[i].alloc_end > lt[i].alloc_start &&
          lt[i].ratio < o->short_ratio)
         r->shorts[r->shorts_total++] = lt[i];
   qsort(r->shorts, r->shorts_total, sizeof *r->shorts, cmp_short);
   r->nshorts = r->shorts_total < o->top ? r->shorts_total : o->top;
   return 0;
}

/* ------------------------------------------------------------------ */
/* 4. Buffer sharing                                                  */
/* ------------------------------------------------------------------ */

/* Containers of the same size whose usage lifetimes [first access, last
 * access] do not overlap can take turns in one buffer. Sharing saves
 * memory only if they are allocated at the same time: two blocks whose
 * allocation lifetimes are disjoint already take turns in the allocator.
 * So a group is a set of one-instance containers of one size whose usage
 * lifetimes are pairwise disjoint and whose allocation lifetimes all
 * overlap (intervals that overlap pairwise share a common time, when all
 * members are live and one buffer can replace them: (n - 1) x size saved).
 *
 * Per size, a greedy interval colouring: containers in order of first
 * access each join the first group (in order of creation) whose last
 * member's usage ended before this one's began and whose common
 * allocation window still overlaps this one's allocation lifetime; if
 * none fits, it opens a group. Without the window condition this is the
 * classic interval partitioning and uses the fewest buffers; with it the
 * greedy choice may miss a better grouping, never reports a wrong one.
 * Cost: O(n log n) to sort plus O(n x groups) per size. */

typedef struct share_group {
   uint64_t last_use;          /* usage end of the latest member */
   uint64_t win_lo, win_hi;    /* common allocation window [lo, hi) */
   uint32_t n;                 /* members */
} share_group;

static int cmp_candidate(const void *pa, const void *pb)
{
   const cli_report_lifetime *a = pa, *b = pb;
   uint64_t sa = sort_trace->allocs[a->alloc].size;
   uint64_t sb = sort_trace->allocs[b->alloc].size;
   if (sa != sb)
      return sa < sb ? -1 : 1;
   if (a->use_start != b->use_start)
      return a->use_start < b->use_start ? -1 : 1;
   return cmp_u32(a->alloc, b->alloc);
}

static int cmp_share(const void *pa, const void *pb)
{
   const cli_report_share *a = pa, *b = pb;
   int c = cmp_u64_desc(a->saved, b->saved);
   if (!c)
      c = cmp_u64_desc(a->size, b->size);
   return c ? c : cmp_u32(a->members[0].alloc, b->members[0].alloc);
}

/* Colour cand[0..n) (one size, by first access); colour[i] receives the
 * group of cand[i]. Returns the number of groups. */
static uint32_t colour_size(const cli_report_lifetime *cand, uint32_t n,
                           uint32_t *colour, share_group *g)
{
   uint32_t ng = 0;
   for (uint32_t i = 0; i < n; i++) {
      const cli_report_lifetime *x = &cand[i];
      uint32_t k = 0;
      for (; k < ng; k++) {
         uint64_t lo = g[k].win_lo > x->alloc_start ? g[k].win_lo
                                                    : x->alloc_start;
         uint64_t hi = g[k].win_hi < x->alloc_end ? g[k].win_hi
                                                  : x->alloc_end;
         if (g[k].last_use < x->use_start && lo < hi) {
            g[k].win_lo = lo;
            g[k].win_hi = hi;
            break;
         }
      }
      if (k == ng)
         g[ng++] = (share_group){ 0, x->alloc_start, x->alloc_end, 0 };
      g[k].last_use = x->use_end;
      g[k].n++;
      colour[i] = k;
   }
   return ng;
}

static int sharing(const trace_file *t, const cli_report_options *o,
                   const cli_report_lifetime *lt, uint32_t nlt, cli_report_data *r)
{
   cli_report_lifetime *cand = malloc(((size_t)nlt + 1) * sizeof *cand);
   uint32_t *colour = malloc(((size_t)nlt + 1) * sizeof *colour);
   share_group *g = malloc(((size_t)nlt + 1) * sizeof *g);
   /* At most nlt / 2 groups have two members or more. */
   r->shares = malloc(((size_t)nlt / 2 + 1) * sizeof *r->shares);
   int rc = -1;
   if (!cand || !colour || !g || !r->shares)
      goto out;
   uint32_t n = 0;
   for (uint32_t i = 0; i < nlt; i++) {
      const trace_alloc *a = &t->allocs[lt[i].alloc];
      if (a->count == 1 && a->size > 0 && lt[i].used &&
          lt[i].alloc_end > lt[i].alloc_start)
         cand[n++] = lt[i];
   }
   sort_trace = t;
   qsort(cand, n, sizeof *cand, cmp_candidate);
   for (uint32_t s = 0, e; s < n; s = e) {
      uint64_t size = t->allocs[cand[s].alloc].size;
      for (e = s; e < n && t->allocs[cand[e].alloc].size == size; e++)
         ;
      uint32_t ng = colour_size(cand + s, e - s, colour + s, g);
      for (uint32_t k = 0; k < ng; k++) {
         if (g[k].n < 2)
            continue;
         cli_report_share *sh = &r->shares[r->shares_total];
         sh->members = malloc(g[k].n * sizeof *sh->members);
         if (!sh->members)
            goto out;
         r->shares_total++;
         sh->size = size;
         sh->n = 0;
         for (uint32_t i = s; i < e; i++)
            if (colour[i] == k)
               sh->members[sh->n++] = cand[i];
         sh->saved = cli_mul_sat(size, sh->n - 1);
         r->shares_saved = cli_add_sat(r->shares_saved, sh->saved);
      }
   }
   qsort(r->shares, r->shares_total, sizeof *r->shares, cmp_share);
   r->nshares = r->shares_total < o->top ? r->shares_total : o->top;
   rc = 0;
out:
   free(cand);
   free(colour);
   free(g);
   return rc;
}

int cli_report_memory(const trace_file *t, const cli_report_options *o, cli_report_data *r)
{
   if (peak(t, o, &r->peak) != 0 || in_loops(t, o, r) != 0)
      return -1;
   cli_report_lifetime *lt;
   int64_t n = lifetimes(t, o, &lt);
   if (n < 0)
      return -1;
   int rc = shorts(o, lt, (uint32_t)n, r) != 0 ||
            sharing(t, o, lt, (uint32_t)n, r) != 0 ? -1 : 0;
   free(lt);
   return rc;
}
