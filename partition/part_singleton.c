/* SPDX-License-Identifier: GPL-2.0-or-later */
/* part_singleton.c: Algorithm 3 (part_singleton.h). */
#include "part_singleton.h"

#include <stdlib.h>
#include <string.h>

static int cmp_u64(const void *a, const void *b)
{
   uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
   return (x > y) - (x < y);
}

double part_singleton_score(uint64_t degree, double centroid, uint32_t connected)
{
   if (degree == 0)
      return 0.0;
   double d = (double)degree;
   double distance = d > centroid ? 1.0 - centroid / d : 0.0;
   double density = connected > 1 ? d / (double)(connected - 1) : 0.0;
   return distance > density ? distance : density;
}

/* Kinds from the directed edges between singletons and the rest. */
static void classify(const part_graph *g, const trace_vcg *vcg, uint8_t *kind)
{
   /* Any reader of a singleton needs it on every rank: the rest is spread
    * over all ranks and other singletons are replicated on all of them. */
   enum { FROM_REST = 1, READ = 2, FROM_SINGLETON = 4 };
   for (uint32_t e = 0; e < vcg->nedges; e++) {
      uint32_t a = g->group[vcg->edges[e].src];
      uint32_t b = g->group[vcg->edges[e].dst];
      if (a == b || !part_graph_counts(g, &vcg->edges[e]))
         continue;
      if (kind[b])
         kind[b] |= kind[a] ? FROM_SINGLETON << 3 : FROM_REST << 3;
      if (kind[a])
         kind[a] |= READ << 3;
   }
   for (uint32_t k = 0; k < g->ng; k++) {
      if (!kind[k])
         continue;
      unsigned f = kind[k] >> 3;
      kind[k] = (f & FROM_REST) ? ((f & READ) ? PART_SINGLETON_ALLREDUCE : PART_SINGLETON_REDUCE)
                : (f & FROM_SINGLETON) ? PART_SINGLETON_REPLICATED
                : (f & READ) ? PART_SINGLETON_BROADCAST
                             : PART_SINGLETON_REPLICATED;
   }
}

int part_singleton_detect(const part_graph *g, const trace_vcg *vcg, double threshold,
                          uint8_t *kind, part_singleton_summary *sum)
{
   memset(sum, 0, sizeof *sum);
   memset(kind, PART_SINGLETON_NONE, g->ng);
   uint64_t *deg = malloc((g->ng ? g->ng : 1) * sizeof *deg);
   if (!deg)
      return -1;
   /* The degree cluster is that of computed values (groups with an
    * incoming edge): read-only inputs such as matrix coefficients, each
    * read once, would otherwise pull the centroid to 1 and make every
    * value read ten times a singleton. Fewer than three: all of them. */
   uint32_t n = 0, connected = 0;
   double total = 0;
   for (int pass = 0; pass < 2 && n < 3; pass++) {
      n = 0;
      total = 0;
      for (uint32_t k = 0; k < g->ng; k++) {
         uint64_t d = g->xadj[k + 1] - g->xadj[k];
         if (d && pass == 0)
            connected++;
         if (d && (pass == 1 || (g->dir[k] & PART_GRAPH_IN))) {
            deg[n++] = d;
            total += (double)d;
         }
      }
   }
   sum->connected = connected;
   if (n < 3) {   /* nothing to stand out from */
      free(deg);
      sum->count[PART_SINGLETON_NONE] = g->ng;
      return 0;
   }
   qsort(deg, n, sizeof *deg, cmp_u64);
   double median = n % 2 ? (double)deg[n / 2]
                         : ((double)deg[n / 2 - 1] + (double)deg[n / 2]) / 2;
   double mean = total / n;
   sum->centroid = mean < median ? mean : median;
   free(deg);
   for (uint32_t k = 0; k < g->ng; k++) {
      uint64_t d = g->xadj[k + 1] - g->xadj[k];
      kind[k] = part_singleton_score(d, sum->centroid, connected) >= threshold;
   }
   classify(g, vcg, kind);
   for (uint32_t k = 0; k < g->ng; k++)
      sum->count[kind[k]]++;
   return 0;
}

const char *part_singleton_kind_name(int kind)
{
   static const char *const names[PART_SINGLETON_NKINDS] = { "none", "broadcast",
                                                 "reduce", "allreduce",
                                                 "replicated" };
   return kind >= 0 && kind < PART_SINGLETON_NKINDS ? names[kind] : "?";
}
