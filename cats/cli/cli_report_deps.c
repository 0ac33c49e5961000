/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cli_report_deps.c: section 6 of `cats report`: the heaviest dependencies
 * between code, from trace section 11 (docs/FORMAT.md): bytes read in a
 * container by one control-flow node (a loop or a function entry) of
 * values whose last store was made by another, or by itself in an earlier
 * iteration. The version actually read decides, so a time step's sweep
 * depends on itself, a halo copy on the sweep, and start-up code has no
 * edge into a kernel that overwrote its values. Were the two nodes' work
 * on different ranks, these are the bytes that would move: the
 * communication a decomposition must pay for, by the code that causes it.
 *
 * Records are merged by (the storing context's source line, the reading
 * context's, the container), lines as cli_report_canon_locs makes them,
 * so one loop reached through several call paths is one row; each row
 * names its heaviest pair of contexts. Stack frames (a loop's own
 * counter, a function's arguments at -O0) are left out, as in `cats
 * view`. A record is in scope when its reading context is. */
#include <stdlib.h>

#include "cli.h"
#include "cli_report.h"

/* By row key, then heaviest record first. */
static int cmp_key(const void *pa, const void *pb)
{
   const cli_report_dep *a = pa, *b = pb;
   if (a->from_loc != b->from_loc)
      return a->from_loc < b->from_loc ? -1 : 1;
   if (a->to_loc != b->to_loc)
      return a->to_loc < b->to_loc ? -1 : 1;
   if (a->alloc != b->alloc)
      return a->alloc < b->alloc ? -1 : 1;
   if (a->bytes != b->bytes)
      return a->bytes > b->bytes ? -1 : 1;
   return (a->from_ctx > b->from_ctx) - (a->from_ctx < b->from_ctx);
}

static int cmp_row(const void *pa, const void *pb)
{
   const cli_report_dep *a = pa, *b = pb;
   if (a->bytes != b->bytes)
      return a->bytes > b->bytes ? -1 : 1;
   return cmp_key(pa, pb);
}

static uint32_t ctx_line(const trace_file *t, const uint32_t *canon,
                         uint32_t ctx)
{
   uint32_t loc = t->contexts[ctx].loc;
   return loc == CATS_NONE ? CATS_NONE : canon[loc];
}

int cli_report_deps(const trace_file *t, const cli_report_options *o,
                    cli_report_data *r)
{
   r->has_deps = t->has_deps;
   if (!t->has_deps)
      return 0;
   cli_report_dep *it = malloc(((size_t)t->ndeps + 1) * sizeof *it);
   uint32_t *canon = NULL;
   if (!it || cli_report_canon_locs(t, &canon) != 0) {
      free(it);
      return -1;
   }
   uint32_t n = 0;
   for (uint32_t i = 0; i < t->ndeps; i++) {
      const trace_dep *d = &t->deps[i];
      if (!o->all && !o->in_scope[d->to])
         continue;
      if (t->allocs[d->alloc].kind == CATS_ALLOC_STACK_FRAME)
         continue;
      it[n++] = (cli_report_dep){ ctx_line(t, canon, d->from),
                                  ctx_line(t, canon, d->to), d->from, d->to,
                                  d->alloc, d->bytes, d->uses, 1 };
   }
   free(canon);
   qsort(it, n, sizeof *it, cmp_key);
   /* Merge in place: a row keeps its first (heaviest) record's contexts. */
   uint32_t m = 0;
   for (uint32_t i = 0, j; i < n; i = j) {
      cli_report_dep row = it[i];
      for (j = i + 1; j < n && it[j].from_loc == row.from_loc &&
                      it[j].to_loc == row.to_loc && it[j].alloc == row.alloc;
           j++) {
         row.bytes = cli_add_sat(row.bytes, it[j].bytes);
         row.uses = cli_add_sat(row.uses, it[j].uses);
         row.records++;
      }
      it[m++] = row;
   }
   qsort(it, m, sizeof *it, cmp_row);
   r->deps = it;
   r->deps_total = m;
   r->ndeps = m < o->top ? m : o->top;
   return 0;
}
