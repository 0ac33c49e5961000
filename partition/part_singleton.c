/* SPDX-License-Identifier: GPL-2.0-or-later */
/* part_singleton.c: Algorithm 3 (part_singleton.h). */
#include "part_singleton.h"

#include <stdlib.h>
#include <string.h>

double part_singleton_score(double degree, double centroid, uint32_t connected)
{
   if (degree <= 0)
      return 0.0;
   double d = degree;
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
   /* A value a condition reads (a norm tested for convergence) is read
    * by every rank, which must all take the branch alike. */
   for (uint32_t v = 0; v < vcg->nvertices; v++)
      if ((vcg->vertices[v].flags & CATS_VCG_CONTROL) && kind[g->group[v]])
         kind[g->group[v]] |= READ << 3;
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

/* One neighbour's share of an iteration: an edge used in every iteration
 * of the region counts 1, one used once in ten iterations 0.1. A vertex
 * coalesces its versions, so its edges over a whole run are the union of
 * many iterations' neighbours (an atom slot that holds other atoms after
 * a re-sort, a buffer that alternates): this is its degree in one. */
static double per_iteration(uint64_t uses, uint64_t iterations)
{
   return uses >= iterations ? 1.0 : (double)uses / (double)iterations;
}

static int cmp_double(const void *a, const void *b)
{
   double x = *(const double *)a, y = *(const double *)b;
   return (x > y) - (x < y);
}

/* The median of v[0..n), n > 0, which it sorts. */
static double median_of(double *v, uint64_t n)
{
   qsort(v, n, sizeof *v, cmp_double);
   return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Each group's array: the container of its first member, or for register
 * intermediates the code location that made them (a site's values are
 * its array). 0 groups without either. Returns the number of arrays. */
static uint32_t arrays_of(const part_graph *g, const trace_vcg *vcg, uint32_t *arr)
{
   uint32_t maxa = 0, maxl = 0;
   for (uint32_t v = 0; v < vcg->nvertices; v++) {
      const trace_vcg_vertex *x = &vcg->vertices[v];
      if (x->alloc != CATS_NONE && x->alloc >= maxa)
         maxa = x->alloc + 1;
      if (x->loc != CATS_NONE && x->loc >= maxl)
         maxl = x->loc + 1;
   }
   uint32_t *ids = malloc(((size_t)maxa + maxl + 1) * sizeof *ids);
   if (!ids)
      return 0;
   memset(ids, 0xff, ((size_t)maxa + maxl + 1) * sizeof *ids);
   uint32_t n = 1;
   for (uint32_t k = 0; k < g->ng; k++)
      arr[k] = UINT32_MAX;
   for (uint32_t v = 0; v < vcg->nvertices; v++) {
      uint32_t k = g->group[v];
      if (arr[k] != UINT32_MAX)
         continue;
      const trace_vcg_vertex *x = &vcg->vertices[v];
      size_t key = (x->flags & CATS_VCG_REGISTER) && x->loc != CATS_NONE ? maxa + x->loc
                   : x->alloc != CATS_NONE                                 ? x->alloc
                                                                           : (size_t)maxa + maxl;
      if (ids[key] == UINT32_MAX)
         ids[key] = key == (size_t)maxa + maxl ? 0 : n++;
      arr[k] = ids[key];
   }
   free(ids);
   return n;
}

/* The typical degree of each array of at least PART_SINGLETON_ARRAY
 * connected groups (the median of its members' degrees), 0 for smaller
 * arrays. */
static int array_medians(const part_graph *g, const uint32_t *arr, uint32_t narr,
                         const double *pd, double *median)
{
   uint64_t *start = calloc((size_t)narr + 1, sizeof *start);
   double *vals = malloc((g->ng ? g->ng : 1) * sizeof *vals);
   if (!start || !vals) {
      free(start), free(vals);
      return -1;
   }
   for (uint32_t k = 0; k < g->ng; k++)
      if (g->xadj[k + 1] > g->xadj[k])
         start[arr[k] + 1]++;
   for (uint32_t a = 0; a < narr; a++)
      start[a + 1] += start[a];
   for (uint32_t k = 0; k < g->ng; k++)
      if (g->xadj[k + 1] > g->xadj[k])
         vals[start[arr[k]]++] = pd[k];
   for (uint32_t a = narr; a > 0; a--)   /* back to each array's first slot */
      start[a] = start[a - 1];
   start[0] = 0;
   for (uint32_t a = 0; a < narr; a++) {
      uint64_t n = start[a + 1] - start[a];
      median[a] = 0;
      if (a == 0 || n < PART_SINGLETON_ARRAY)   /* 0: groups of no array */
         continue;
      median[a] = median_of(vals + start[a], n);
   }
   free(start), free(vals);
   return 0;
}

/* A reduction's tail. The tool hands a reduction's result on as a source
 * set: its chain and the last few elements not yet linked into it. Every
 * reader of the result then reads those elements too (r[n-4..n-1] beside
 * r.r, in every p[i] = r[i] + beta p[i]), so they have the result's degree
 * without being what all ranks need: in the MPI code they went into the
 * collective. A memory group marked a singleton keeps the mark only if
 * its degree counts it without the neighbours that also touch a
 * register singleton (a chain) next to it; else it is that chain's tail
 * (tail[k], for part_comm.c: its edges to the chain's readers move
 * nothing). */
static int drop_tails(const part_graph *g, const trace_vcg *vcg, uint64_t iterations,
                      const double *typical, uint32_t connected, double threshold,
                      uint8_t *kind, uint32_t *tail)
{
   uint8_t *memory = calloc(g->ng ? g->ng : 1, 1);
   if (!memory)
      return -1;
   for (uint32_t v = 0; v < vcg->nvertices; v++)
      if (!(vcg->vertices[v].flags & CATS_VCG_REGISTER))
         memory[g->group[v]] = 1;
   for (uint32_t k = 0; k < g->ng; k++) {
      if (!kind[k] || !memory[k])
         continue;
      uint32_t chains[8], nc = 0;
      for (uint64_t i = g->xadj[k]; i < g->xadj[k + 1] && nc < 8; i++) {
         uint32_t s = g->adj[i];
         if (kind[s] && !memory[s])
            chains[nc++] = s;
      }
      if (nc == 0)
         continue;
      double d = 0;
      for (uint64_t i = g->xadj[k]; i < g->xadj[k + 1]; i++) {
         uint32_t j = g->adj[i], c;
         for (c = 0; c < nc && j != chains[c] && !part_graph_adjacent(g, j, chains[c]); c++)
            ;
         if (c == nc)
            d += per_iteration(g->adjw[i], iterations);
      }
      if (part_singleton_score(d, typical[k], connected) < threshold) {
         kind[k] = PART_SINGLETON_NONE;
         tail[k] = chains[0];
      }
   }
   free(memory);
   return 0;
}

int part_singleton_detect(const part_graph *g, const trace_vcg *vcg, double threshold,
                          uint64_t iterations, uint8_t *kind, uint32_t *tail,
                          part_singleton_summary *sum)
{
   memset(sum, 0, sizeof *sum);
   memset(kind, PART_SINGLETON_NONE, g->ng);
   memset(tail, 0xff, (size_t)g->ng * sizeof *tail);
   if (iterations == 0)
      iterations = 1;
   size_t ng = g->ng ? g->ng : 1;
   double *pd = malloc(ng * sizeof *pd), *deg = malloc(ng * sizeof *deg);
   uint32_t *arr = malloc(ng * sizeof *arr);
   if (!pd || !deg || !arr) {
      free(pd), free(deg), free(arr);
      return -1;
   }
   for (uint32_t k = 0; k < g->ng; k++) {
      pd[k] = 0;
      for (uint64_t i = g->xadj[k]; i < g->xadj[k + 1]; i++)
         pd[k] += per_iteration(g->adjw[i], iterations);
   }
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
         int linked = g->xadj[k + 1] > g->xadj[k];
         if (linked && pass == 0)
            connected++;
         if (linked && (pass == 1 || (g->dir[k] & PART_GRAPH_IN))) {
            deg[n++] = pd[k];
            total += pd[k];
         }
      }
   }
   sum->connected = connected;
   int rc = 0;
   if (n >= 3) {   /* else nothing to stand out from */
      double median = median_of(deg, n);
      double mean = total / n;
      sum->centroid = mean < median ? mean : median;
      uint32_t narr = arrays_of(g, vcg, arr);
      double *amed = malloc((narr ? narr : 1) * sizeof *amed);
      if (!narr || !amed || array_medians(g, arr, narr, pd, amed) != 0) {
         rc = -1;
      } else {
         /* A singleton stands out from its own array as well as from the
          * whole graph: a force reads a few hundred positions and a row of
          * a 27-point matrix 54 values, but so does every other element of
          * its array, and they are spread over the ranks by the partition.
          * A time step, a norm or a sum has no array of peers (a scalar, a
          * site that makes one chain). */
         for (uint32_t k = 0; k < g->ng; k++) {
            deg[k] = amed[arr[k]] > sum->centroid ? amed[arr[k]] : sum->centroid;
            kind[k] = part_singleton_score(pd[k], deg[k], connected) >= threshold;
         }
         if (drop_tails(g, vcg, iterations, deg, connected, threshold, kind, tail) != 0)
            rc = -1;
         else
            classify(g, vcg, kind);
      }
      free(amed);
   }
   for (uint32_t k = 0; k < g->ng; k++)
      sum->count[kind[k]]++;
   free(pd), free(deg), free(arr);
   return rc;
}

const char *part_singleton_kind_name(int kind)
{
   static const char *const names[PART_SINGLETON_NKINDS] = { "none", "broadcast",
                                                 "reduce", "allreduce",
                                                 "replicated" };
   return kind >= 0 && kind < PART_SINGLETON_NKINDS ? names[kind] : "?";
}
