/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cli_report_reuse.c: section 7 of `cats report`: reuse (LRU stack) distances
 * at cache-line granularity (trace section 9) per container and per
 * access site, with the cold and capacity misses of a fully associative
 * LRU cache of a given size (paper 001, §V.E-F; trace_reuse_misses). */
#include <stdlib.h>

#include "cli.h"
#include "cats/trace/json_out.h"
#include "cli_report.h"

static double total_of(const trace_reuse_hist *h)
{
   double n = (double)h->cold;
   for (int b = 0; b < TRACE_REUSE_BUCKETS; b++)
      n += (double)h->bucket[b];
   return n;
}

typedef struct ranked {
   uint32_t id;
   double total;
} ranked;

static int by_total(const void *a, const void *b)
{
   double x = ((const ranked *)a)->total, y = ((const ranked *)b)->total;
   return (x < y) - (x > y);
}

/* The ids of the n histograms with accesses, most accesses first. */
static ranked *rank(const trace_reuse_hist *h, uint32_t n, uint32_t *out)
{
   ranked *r = malloc((n ? n : 1) * sizeof *r);
   *out = 0;
   if (!r)
      return NULL;
   for (uint32_t i = 0; i < n; i++) {
      double tot = total_of(&h[i]);
      if (tot > 0)
         r[(*out)++] = (ranked){ i, tot };
   }
   qsort(r, *out, sizeof *r, by_total);
   return r;
}

/* Median distance bucket bound, as "<2^b lines" text; cold accesses are
 * infinitely far. */
static void median_text(const trace_reuse_hist *h, char *buf, size_t n)
{
   double half = total_of(h) / 2, acc = 0;
   for (int b = 0; b < TRACE_REUSE_BUCKETS; b++) {
      acc += (double)h->bucket[b];
      if (acc >= half && acc > 0) {
         snprintf(buf, n, b == 0 ? "0" : "<%llu", 1ull << b);
         return;
      }
   }
   snprintf(buf, n, "cold");
}

static void text_one(FILE *fp, const trace_file *t, const trace_reuse_hist *h,
                     const char *what, uint64_t lines)
{
   trace_misses m = trace_reuse_misses(h, lines);
   char med[32];
   median_text(h, med, sizeof med);
   fprintf(fp, "      %-40s accesses %.0f  median distance %s lines  cold "
               "%.0f  capacity %.0f (%.1f%% miss)\n",
           what, m.accesses, med, m.cold, m.capacity,
           m.accesses > 0 ? 100 * (m.cold + m.capacity) / m.accesses : 0.0);
   (void)t;
}

void cli_report_reuse_text(FILE *fp, const trace_file *t, uint32_t top,
                           uint64_t cache_lines)
{
   fputs("\n7. reuse distances (64-byte lines", fp);
   if (!t->has_reuse) {
      fputs(")\n   the trace has none (recorded with --reuse-distance=no)\n",
            fp);
      return;
   }
   fprintf(fp, ", sampling 1 in %u; misses of a %llu-line LRU cache)\n",
           t->reuse.sampling, (unsigned long long)cache_lines);
   uint32_t na, ne;
   ranked *ra = rank(t->reuse.allocs, t->nallocs, &na);
   ranked *re = rank(t->reuse.events, t->nevents, &ne);
   fputs("   per container:\n", fp);
   for (uint32_t i = 0; ra && i < na && i < top; i++) {
      char name[160];
      cli_text_buf(name, sizeof name, trace_str(t, t->allocs[ra[i].id].name));
      text_one(fp, t, &t->reuse.allocs[ra[i].id], name, cache_lines);
   }
   fputs("   per access site:\n", fp);
   for (uint32_t i = 0; re && i < ne && i < top; i++) {
      const trace_event *e = &t->events[re[i].id];
      char loc[128], what[200], name[64];
      cli_loc_str(t, e->loc, loc, sizeof loc);
      cli_text_buf(name, sizeof name, trace_str(t, t->allocs[e->alloc].name));
      snprintf(what, sizeof what, "%s %s %s", loc,
               e->kind == CATS_WRITE ? "write" : "read", name);
      text_one(fp, t, &t->reuse.events[re[i].id], what, cache_lines);
   }
   free(ra);
   free(re);
}

static void json_list(FILE *fp, const trace_file *t, const trace_reuse_hist *h,
                      uint32_t n, int events, uint32_t top,
                      uint64_t cache_lines)
{
   uint32_t k;
   ranked *r = rank(h, n, &k);
   fputs("[", fp);
   for (uint32_t i = 0; r && i < k && i < top; i++) {
      const trace_reuse_hist *x = &h[r[i].id];
      trace_misses m = trace_reuse_misses(x, cache_lines);
      fprintf(fp, "%s{\"%s\": %u", i ? ", " : "", events ? "event" : "alloc",
              r[i].id);
      if (!events) {
         fputs(", \"name\": ", fp);
         json_out_string(fp, trace_str(t, t->allocs[r[i].id].name));
      }
      fprintf(fp, ", \"cold\": %llu, \"buckets\": [",
              (unsigned long long)x->cold);
      for (int b = 0; b < TRACE_REUSE_BUCKETS; b++)
         fprintf(fp, "%s%llu", b ? ", " : "", (unsigned long long)x->bucket[b]);
      fprintf(fp, "], \"cold_misses\": %.17g, \"capacity_misses\": %.17g}",
              m.cold, m.capacity);
   }
   fputs("]", fp);
   free(r);
}

void cli_report_reuse_json(FILE *fp, const trace_file *t, uint32_t top,
                           uint64_t cache_lines)
{
   if (!t->has_reuse) {
      fputs("null", fp);
      return;
   }
   fprintf(fp, "{\"line_size\": %u, \"sampling\": %u, \"cache_lines\": %llu, "
               "\"containers\": ",
           t->reuse.line_size, t->reuse.sampling,
           (unsigned long long)cache_lines);
   json_list(fp, t, t->reuse.allocs, t->nallocs, 0, top, cache_lines);
   fputs(", \"sites\": ", fp);
   json_list(fp, t, t->reuse.events, t->nevents, 1, top, cache_lines);
   fputs("}", fp);
}
