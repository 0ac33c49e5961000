/* SPDX-License-Identifier: GPL-2.0-or-later */
/* trace_decode_deps.c: decode section 11 (DEPS): per (context that
 * stored, context that read, container read) the loads and their bytes.
 * The layout is in docs/FORMAT.md; META dep_records says the section was
 * written, so one lost to a damaged table is found. */
#include "trace_int.h"

#include <stdlib.h>

#include "le.h"

static int key_after(const trace_dep *a, const trace_dep *b)
{
   if (a->from != b->from)
      return a->from > b->from;
   if (a->to != b->to)
      return a->to > b->to;
   return a->alloc > b->alloc;
}

trace_status trace_decode_deps(trace_file *t, const trace_section *s,
                               char *err, size_t errlen)
{
   uint32_t n;
   trace_status cst = trace_counted_section(t, s, "dep_records", CATS_SEC_DEPS,
                                            "records", CATS_DEP_RECORD_SIZE, 1, &n,
                                            err, errlen);
   if (cst != TRACE_OK || !s)
      return cst;
   trace_dep *d = malloc((n ? n : 1) * sizeof *d);
   if (!d)
      return trace_fail(err, errlen, TRACE_ENOMEM, "out of memory (DEPS)");
   for (uint32_t i = 0; i < n; i++) {
      const uint8_t *p = s->data + 4 + (size_t)i * CATS_DEP_RECORD_SIZE;
      trace_dep r = { le_u32(p), le_u32(p + 4), le_u32(p + 8),
                      le_u64(p + 16), le_u64(p + 24) };
      trace_status st = TRACE_OK;
      if (r.from >= t->ncontexts || r.to >= t->ncontexts)
         st = trace_fail(err, errlen, TRACE_EREF,
                         "DEPS: record %u: context %u out of range (%u)", i,
                         r.from >= t->ncontexts ? r.from : r.to, t->ncontexts);
      else if (r.alloc >= t->nallocs)
         st = trace_fail(err, errlen, TRACE_EREF,
                         "DEPS: record %u: allocation %u out of range (%u)",
                         i, r.alloc, t->nallocs);
      else if (le_u32(p + 12) != 0)
         st = trace_fail(err, errlen, TRACE_EVALUE,
                         "DEPS: record %u: reserved field is not 0", i);
      else if (r.uses == 0 || r.bytes < r.uses)
         st = trace_fail(err, errlen, TRACE_EVALUE,
                         "DEPS: record %u: %llu uses of %llu bytes", i,
                         (unsigned long long)r.uses,
                         (unsigned long long)r.bytes);
      else if (i > 0 && !key_after(&r, &d[i - 1]))
         st = trace_fail(err, errlen, TRACE_EVALUE,
                         "DEPS: record %u is not after the previous one", i);
      if (st != TRACE_OK) {
         free(d);
         return st;
      }
      d[i] = r;
   }
   t->deps = d;
   t->ndeps = n;
   t->has_deps = 1;
   return TRACE_OK;
}
