/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cli_report_access.c: section 5 of `cats report`: stride-k and indirect
 * access sites, the two classes of the C.A.T.S. data-access statistics
 * that point at a data layout at odds with the loops around it.
 *
 * An EVENTS record is one (context, instruction, container, kind, size);
 * the same source line reached through several call paths, or compiled
 * to several instructions, gives several records. A site merges them by
 * (source line, container, kind, size, pattern, stride): counts add up,
 * and the loop named for a stride is that of the first record. Exact:
 * the counts, the pattern and, for stride-k, the stride of the innermost
 * loop level that moves the offset (docs/FORMAT.md: stride-1 when that
 * stride equals the access size).
 *
 * A record's class is the one every command counts (trace_class.h):
 * the stride-k records of an unrolled or vectorised loop that together
 * walk a row contiguously are stride-1, not listed here, and counted.
 *
 * When the trace has section 10 (INDEX) a site also names the container
 * its address was computed from: `col` for x[col[k]]. */
#include <stdlib.h>
#include <string.h>

#include "cats/trace/trace_class.h"
#include "cli.h"
#include "cli_report.h"

/* The container an access took its address from (section 10, INDEX:
 * the load its address was computed from, and the container that load
 * reads), or CATS_NONE when the trace does not say. */
static uint32_t index_container(const trace_file *t, uint32_t event)
{
   return t->has_index && t->index_alloc ? t->index_alloc[event] : CATS_NONE;
}

static uint32_t index_site(const trace_file *t, uint32_t event)
{
   return t->has_index && t->index_loc ? t->index_loc[event] : CATS_NONE;
}

/* ------------------------------------------------------------------ */
/* Source lines                                                       */
/* ------------------------------------------------------------------ */

static const trace_file *sort_trace;   /* qsort has no context argument */

static int cmp_loc_line(const void *pa, const void *pb)
{
   const trace_loc *a = &sort_trace->locs[*(const uint32_t *)pa];
   const trace_loc *b = &sort_trace->locs[*(const uint32_t *)pb];
   int c = strcmp(trace_str(sort_trace, a->file), trace_str(sort_trace, b->file));
   if (!c)
      c = (a->line > b->line) - (a->line < b->line);
   if (!c)
      c = strcmp(trace_str(sort_trace, a->function),
                 trace_str(sort_trace, b->function));
   if (!c)
      c = (*(const uint32_t *)pa > *(const uint32_t *)pb) -
          (*(const uint32_t *)pa < *(const uint32_t *)pb);
   return c;
}

int cli_report_canon_locs(const trace_file *t, uint32_t **out)
{
   uint32_t *canon = malloc(((size_t)t->nlocs + 1) * sizeof *canon);
   uint32_t *ids = malloc(((size_t)t->nlocs + 1) * sizeof *ids);
   if (!canon || !ids) {
      free(canon);
      free(ids);
      return -1;
   }
   for (uint32_t i = 0; i < t->nlocs; i++)
      canon[i] = ids[i] = i;
   sort_trace = t;
   qsort(ids, t->nlocs, sizeof *ids, cmp_loc_line);
   for (uint32_t j = 1; j < t->nlocs; j++) {
      const trace_loc *a = &t->locs[ids[j - 1]], *b = &t->locs[ids[j]];
      /* Without a file a location prints as its address: keep it. */
      if (!trace_str(t, b->file)[0] || a->line != b->line ||
          strcmp(trace_str(t, a->file), trace_str(t, b->file)) != 0 ||
          strcmp(trace_str(t, a->function), trace_str(t, b->function)) != 0)
         continue;
      canon[ids[j]] = canon[ids[j - 1]];
   }
   free(ids);
   *out = canon;
   return 0;
}

/* ------------------------------------------------------------------ */
/* Strides                                                            */
/* ------------------------------------------------------------------ */

/* The k-th loop around context c (0 the innermost), as the tool counts
 * the dimensions of a pattern: the innermost loops of the thread's stack,
 * across function frames. CATS_NONE if there are fewer. */
static uint32_t loop_at(const trace_file *t, uint32_t c, int k)
{
   for (; c != CATS_NONE; c = t->contexts[c].parent)
      if (t->contexts[c].kind == CATS_CTX_LOOP && k-- == 0)
         return c;
   return CATS_NONE;
}

/* ------------------------------------------------------------------ */
/* Sites                                                              */
/* ------------------------------------------------------------------ */

/* Order of merging: the identity of a site. */
static int cmp_identity(const void *pa, const void *pb)
{
   const cli_report_site *a = pa, *b = pb;
   if (a->loc != b->loc)
      return a->loc < b->loc ? -1 : 1;
   if (a->alloc != b->alloc)
      return a->alloc < b->alloc ? -1 : 1;
   if (a->kind != b->kind)
      return a->kind < b->kind ? -1 : 1;
   if (a->size != b->size)
      return a->size < b->size ? -1 : 1;
   if (a->pattern != b->pattern)
      return a->pattern < b->pattern ? -1 : 1;
   if (a->stride != b->stride)
      return a->stride < b->stride ? -1 : 1;
   if (a->dim != b->dim)
      return a->dim < b->dim ? -1 : 1;
   /* Keep the records of one site in trace order: the first names the
    * loop. */
   return (a->records > b->records) - (a->records < b->records);
}

static int same_site(const cli_report_site *a, const cli_report_site *b)
{
   return a->loc == b->loc && a->alloc == b->alloc && a->kind == b->kind &&
          a->size == b->size && a->pattern == b->pattern &&
          a->stride == b->stride && a->dim == b->dim;
}

/* Ranking: most accesses first. */
static int cmp_rank(const void *pa, const void *pb)
{
   const cli_report_site *a = pa, *b = pb;
   if (a->count != b->count)
      return a->count > b->count ? -1 : 1;
   return cmp_identity(pa, pb);
}

int cli_report_access(const trace_file *t, const cli_report_options *o, cli_report_data *r)
{
   cli_report_site *s = malloc(((size_t)t->nevents + 1) * sizeof *s);
   uint32_t *canon = NULL;
   if (!s || cli_report_canon_locs(t, &canon) != 0) {
      free(s);
      return -1;
   }
   uint32_t n = 0;
   uint64_t nunrolled = 0;
   for (uint32_t i = 0; i < t->nevents; i++) {
      const trace_event *e = &t->events[i];
      if (!o->in_scope[e->ctx])
         continue;
      nunrolled += e->pattern == CATS_PAT_STRIDEK && e->cls == CATS_PAT_STRIDE1;
      if ((o->ours && e->alloc < t->nallocs && !o->ours[e->alloc]) ||
          (e->cls != CATS_PAT_STRIDEK && e->cls != CATS_PAT_IRREGULAR))
         continue;
      int k = e->cls == CATS_PAT_STRIDEK ? trace_class_varying_dim(e) : -1;
      uint32_t iloc = index_site(t, i);
      /* records holds the event id until the merge counts records. */
      s[n++] = (cli_report_site){
         .loc = canon[e->loc], .alloc = e->alloc,
         .index = index_container(t, i),
         .index_loc = iloc == CATS_NONE ? CATS_NONE : canon[iloc],
         .kind = e->kind, .pattern = e->cls,
         .dim = (uint8_t)(k < 0 ? 0 : k), .size = e->size,
         .stride = k < 0 ? 0 : e->stride[k],
         .loop = k < 0 ? CATS_NONE : loop_at(t, e->ctx, k),
         .count = e->count, .records = i };
   }
   free(canon);
   qsort(s, n, sizeof *s, cmp_identity);
   uint32_t m = 0;
   for (uint32_t i = 0; i < n; i++) {
      if (m > 0 && same_site(&s[m - 1], &s[i])) {
         s[m - 1].count = cli_add_sat(s[m - 1].count, s[i].count);
         s[m - 1].records++;
         if (s[m - 1].index == CATS_NONE) {
            s[m - 1].index = s[i].index;
            s[m - 1].index_loc = s[i].index_loc;
         }
         continue;
      }
      s[m] = s[i];
      s[m++].records = 1;
   }
   qsort(s, m, sizeof *s, cmp_rank);
   r->sites = s;
   r->sites_total = m;
   r->nsites = m < o->top ? m : o->top;
   r->sites_unrolled = nunrolled;
   return 0;
}
