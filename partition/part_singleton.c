/* part_singleton.c: Algorithm 3 (part_singleton.h). */
#include "part_singleton.h"

#include <stdlib.h>
#include <string.h>

static int cmp_u64(const void *a, const void *b)
{
   uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
   return (x > y) - (x < y);
}

double ps_score(uint64_t degree, double centroid, uint32_t connected)
{
   if (degree == 0)
      return 0.0;
   double d = (double)degree;
   double distance = d > centroid ? 1.0 - centroid / d : 0.0;
   double density = connected > 1 ? d / (double)(connected - 1) : 0.0;
   return distance > density ? distance : density;
}

int ps_detect(const pg_graph *g, double threshold, uint8_t *kind,
              ps_summary *sum)
{
   memset(sum, 0, sizeof *sum);
   memset(kind, PS_NONE, g->ng);
   uint64_t *deg = malloc((g->ng ? g->ng : 1) * sizeof *deg);
   if (!deg)
      return -1;
   uint32_t n = 0;
   double total = 0;
   for (uint32_t k = 0; k < g->ng; k++) {
      uint64_t d = g->xadj[k + 1] - g->xadj[k];
      if (d) {
         deg[n++] = d;
         total += (double)d;
      }
   }
   sum->connected = n;
   if (n < 3) {   /* nothing to stand out from */
      free(deg);
      sum->count[PS_NONE] = g->ng;
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
      if (ps_score(d, sum->centroid, n) >= threshold) {
         int in = (g->dir[k] & PG_IN) != 0, out = (g->dir[k] & PG_OUT) != 0;
         kind[k] = in && out ? PS_ALLREDUCE : in ? PS_REDUCE : PS_BROADCAST;
      }
      sum->count[kind[k]]++;
   }
   return 0;
}

const char *ps_kind_name(int kind)
{
   static const char *const names[] = { "none", "broadcast", "reduce",
                                        "allreduce" };
   return kind >= 0 && kind < 4 ? names[kind] : "?";
}
