/* SPDX-License-Identifier: GPL-2.0-or-later */
/* trace_class.c: the access class of each EVENTS record (trace_class.h). */
#include "trace_class.h"

#include <stdlib.h>

#include "trace_int.h"

int trace_class_varying_dim(const trace_event *e)
{
   for (int k = 0; k < e->ndims && k < CATS_MAX_DIMS; k++)
      if (e->stride[k] != 0)
         return k;
   return -1;
}

int64_t trace_class_stride(const trace_event *e)
{
   int k = trace_class_varying_dim(e);
   return k < 0 ? 0 : e->stride[k];
}

/* The order of records that may be parts of one walk: same context,
 * container, kind, loop level and stride compare equal. */
static int cmp_walk(const trace_event *a, const trace_event *b)
{
   if (a->ctx != b->ctx)
      return a->ctx < b->ctx ? -1 : 1;
   if (a->alloc != b->alloc)
      return a->alloc < b->alloc ? -1 : 1;
   if (a->kind != b->kind)
      return a->kind < b->kind ? -1 : 1;
   int da = trace_class_varying_dim(a), db = trace_class_varying_dim(b);
   if (da != db)
      return da < db ? -1 : 1;
   int64_t sa = trace_class_stride(a), sb = trace_class_stride(b);
   return (sa > sb) - (sa < sb);
}

/* qsort has no context argument. */
static const trace_event *sort_events;

static int cmp_sibling(const void *pa, const void *pb)
{
   uint32_t ia = *(const uint32_t *)pa, ib = *(const uint32_t *)pb;
   int c = cmp_walk(&sort_events[ia], &sort_events[ib]);
   return c ? c : (ia > ib) - (ia < ib);
}

typedef struct span {
   uint64_t lo, hi;
} span;

static int cmp_span(const void *pa, const void *pb)
{
   const span *a = pa, *b = pb;
   return (a->lo > b->lo) - (a->lo < b->lo);
}

/* Do the records ev[0..n) (one stride) touch every byte of one stride
 * period between them? buf has room for 2n spans. */
static int covers_period(const trace_event *events, const uint32_t *ev,
                         uint32_t n, span *buf)
{
   int64_t st = trace_class_stride(&events[ev[0]]);
   uint64_t s = st < 0 ? (uint64_t)0 - (uint64_t)st : (uint64_t)st;
   if (s == 0)
      return 0;
   uint32_t k = 0;
   for (uint32_t i = 0; i < n; i++) {
      const trace_event *e = &events[ev[i]];
      /* base mod s in unsigned arithmetic: s may be 2^63 (a stride of
       * INT64_MIN), which no signed add or remainder can take. */
      uint64_t mag = e->base < 0 ? (uint64_t)0 - (uint64_t)e->base : (uint64_t)e->base;
      uint64_t q = mag % s;
      uint64_t r = e->base < 0 && q != 0 ? s - q : q;
      if (e->size >= s)
         return 1;
      if (r + e->size <= s) {
         buf[k++] = (span){ r, r + e->size };
      } else {   /* wraps into the next period */
         buf[k++] = (span){ r, s };
         buf[k++] = (span){ 0, r + e->size - s };
      }
   }
   qsort(buf, k, sizeof *buf, cmp_span);
   uint64_t reach = 0;
   for (uint32_t i = 0; i < k && buf[i].lo <= reach; i++)
      if (buf[i].hi > reach)
         reach = buf[i].hi;
   return reach >= s;
}

trace_status trace_class_events(trace_file *t, char *err, size_t errlen)
{
   uint32_t n = 0;
   for (uint32_t i = 0; i < t->nevents; i++) {
      t->events[i].cls = t->events[i].pattern;
      n += t->events[i].pattern == CATS_PAT_STRIDEK;
   }
   if (n < 2)
      return TRACE_OK;
   uint32_t *ev = malloc((size_t)n * sizeof *ev);
   span *buf = malloc((size_t)n * 2 * sizeof *buf);
   if (!ev || !buf) {
      free(ev);
      free(buf);
      return trace_fail(err, errlen, TRACE_ENOMEM,
                        "out of memory (classes of %u records)", t->nevents);
   }
   n = 0;
   for (uint32_t i = 0; i < t->nevents; i++)
      if (t->events[i].pattern == CATS_PAT_STRIDEK)
         ev[n++] = i;
   sort_events = t->events;
   qsort(ev, n, sizeof *ev, cmp_sibling);
   for (uint32_t i = 0, j; i < n; i = j) {
      for (j = i + 1; j < n && cmp_walk(&t->events[ev[i]], &t->events[ev[j]]) == 0; j++)
         ;
      if (j - i >= 2 && covers_period(t->events, ev + i, j - i, buf))
         for (uint32_t k = i; k < j; k++)
            t->events[ev[k]].cls = CATS_PAT_STRIDE1;
   }
   free(ev);
   free(buf);
   return TRACE_OK;
}
