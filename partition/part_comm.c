/* SPDX-License-Identifier: GPL-2.0-or-later */
/* part_comm.c: Algorithm 4 and the alpha-beta estimate (part_comm.h). */
#include "part_comm.h"
#include "part_region.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "part_singleton.h"

uint64_t part_comm_coll_bytes(int type, uint64_t s, uint32_t n)
{
   uint64_t others = n > 1 ? n - 1 : 0;
   return type == PART_COMM_ALLREDUCE ? 2 * s * others : s * others;
}

const char *part_comm_coll_name(int type)
{
   static const char *const names[PART_COMM_NCOLL] = { "broadcast", "reduce",
                                                "allreduce" };
   return type >= 0 && type < PART_COMM_NCOLL ? names[type] : "?";
}

static int coll_of_kind(int kind)
{
   return kind == PART_SINGLETON_BROADCAST ? PART_COMM_BROADCAST
          : kind == PART_SINGLETON_REDUCE  ? PART_COMM_REDUCE
                               : PART_COMM_ALLREDUCE;
}

/* Which vertices get a version computed in the scope. Data that the
 * scope only reads (coefficients, a mesh's geometry, a matrix) is set up
 * before the time loop, and an MPI code sets up its part and its ghost
 * copies there too, outside the region it measures. */
static uint8_t *written_in(const trace_vcg *vcg, const uint8_t *scope)
{
   uint8_t *w = calloc(vcg->nvertices ? vcg->nvertices : 1, 1);
   if (!w)
      return NULL;
   for (uint32_t e = 0; e < vcg->nedges; e++) {
      if (part_edge_in_scope(&vcg->edges[e], scope))
         w[vcg->edges[e].dst] = 1;
   }
   return w;
}

/* feeds[v]: the singleton group v is an input of, reads[v]: the one v
 * reads (the first found, UINT32_MAX for none). A reduction's reader
 * gets its result through the tool's source set, which keeps the last
 * few elements beside the chain until the set is named: the first
 * reader also reads those elements directly. In the MPI code they went
 * into the collective, so such an edge moves nothing. */
static int singleton_ends(const trace_vcg *vcg, const part_graph *g, const uint8_t *skind,
                          const uint8_t *scope, uint32_t **feeds, uint32_t **reads)
{
   size_t nv = vcg->nvertices ? vcg->nvertices : 1;
   *feeds = malloc(nv * sizeof **feeds);
   *reads = malloc(nv * sizeof **reads);
   if (!*feeds || !*reads)
      return -1;
   memset(*feeds, 0xff, nv * sizeof **feeds);
   memset(*reads, 0xff, nv * sizeof **reads);
   for (uint32_t e = 0; e < vcg->nedges; e++) {
      const trace_vcg_edge *ed = &vcg->edges[e];
      uint32_t gs = g->group[ed->src], gd = g->group[ed->dst];
      if (gs == gd || !part_edge_in_scope(ed, scope))
         continue;
      if (skind[gd] && (*feeds)[ed->src] == UINT32_MAX)
         (*feeds)[ed->src] = gd;
      if (skind[gs] && (*reads)[ed->dst] == UINT32_MAX)
         (*reads)[ed->dst] = gs;
   }
   return 0;
}

/* Grow *buf of *cap elements of size sz to hold one more than n. */
static int grow(void **buf, size_t *cap, size_t n, size_t sz)
{
   if (n + 1 < *cap)
      return 0;
   size_t ncap = *cap ? 2 * *cap : 1024;
   void *b = realloc(*buf, ncap * sz);
   if (!b)
      return -1;
   *buf = b;
   *cap = ncap;
   return 0;
}

/* The edges come by source: a new source opens a run. */
static int plan_add(part_comm_plan *p, size_t *cap, size_t *scap, uint32_t src, uint32_t gs,
                    uint32_t gd, uint32_t versions)
{
   if (p->nsources == 0 || p->sources[p->nsources - 1].src != src) {
      if (grow((void **)&p->sources, scap, p->nsources, sizeof *p->sources) != 0)
         return -1;
      p->sources[p->nsources++] = (part_comm_source){ src, gs, p->nedges };
   }
   if (grow((void **)&p->edges, cap, p->nedges, sizeof *p->edges) != 0)
      return -1;
   p->edges[p->nedges++] = (part_comm_edge){ gd, versions };
   return 0;
}

/* The edges that move their source's value when their groups lie on
 * different ranks, in the order of the graph (by source); and which
 * singletons' calls count. */
int part_comm_plan_build(part_comm_plan *p, const trace_vcg *vcg, const part_graph *g,
                         const uint8_t *skind, const uint32_t *tail, const uint8_t *scope,
                         int setup_outside)
{
   memset(p, 0, sizeof *p);
   p->vcg = vcg;
   p->g = g;
   p->skind = skind;
   setup_outside = setup_outside && scope;
   uint8_t *written = setup_outside ? written_in(vcg, scope) : NULL;
   uint32_t *feeds = NULL, *reads = NULL;
   p->coll_counts = malloc(g->ng ? g->ng : 1);
   size_t cap = 0, scap = 0;
   int rc = -1;
   if ((setup_outside && !written) || !p->coll_counts ||
       singleton_ends(vcg, g, skind, scope, &feeds, &reads) != 0)
      goto out;
   /* One dependency per (source, sink): the graph splits it by the
    * contexts that made the sink's versions (a first time step that the
    * compiler peeled off the loop, the same call from two places), and
    * those are disjoint versions of the sink, so their counts add up. */
   for (uint32_t e = 0, next; e < vcg->nedges; e = next) {
      const trace_vcg_edge *ed = &vcg->edges[e];
      uint32_t src = ed->src, dst = ed->dst, gs = g->group[src], gd = g->group[dst];
      uint64_t uses = 0, versions = 0;
      for (next = e; next < vcg->nedges && vcg->edges[next].src == src &&
                     vcg->edges[next].dst == dst; next++) {
         const trace_vcg_edge *x = &vcg->edges[next];
         if (part_edge_in_scope(x, scope)) {
            uses += x->uses;
            versions += x->versions;
         }
      }
      if (uses == 0 || skind[gs] || gd == gs || skind[gd])
         continue;
      /* Read-only data read once is initial state, exchanged in the
       * first step; read again and again it is set-up data. */
      if (written && !written[src] && uses > 1)
         continue;
      if (feeds[src] != UINT32_MAX && feeds[src] == reads[dst])
         continue;
      if (tail && tail[gs] != UINT32_MAX && part_graph_adjacent(g, gd, tail[gs]))
         continue;   /* a reduction's tail, read beside its result */
      if (versions > vcg->vertices[src].versions)
         versions = vcg->vertices[src].versions;
      if (plan_add(p, &cap, &scap, src, gs, gd, (uint32_t)versions) != 0)
         goto out;
   }
   if (grow((void **)&p->sources, &scap, p->nsources, sizeof *p->sources) != 0)
      goto out;
   p->sources[p->nsources].first = p->nedges;   /* the end of the last run */
   /* A singleton is in scope when one of its members was created there. */
   memset(p->coll_counts, scope ? 0 : 1, g->ng ? g->ng : 1);
   if (scope) {
      for (uint32_t v = 0; v < vcg->nvertices; v++) {
         if (part_ctx_in_scope(vcg->vertices[v].ctx, scope))
            p->coll_counts[g->group[v]] = 1;
      }
      for (uint32_t k = 0; k < g->ng; k++)
         p->coll_counts[k] = p->coll_counts[k] && g->written[k];
   }
   rc = 0;
out:
   free(written);
   free(feeds);
   free(reads);
   if (rc != 0)
      part_comm_plan_free(p);
   return rc;
}

void part_comm_plan_free(part_comm_plan *p)
{
   free(p->edges);
   free(p->sources);
   free(p->coll_counts);
   p->edges = NULL;
   p->sources = NULL;
   p->nsources = 0;
   p->coll_counts = NULL;
   p->nedges = 0;
}

/* Point-to-point for decompositions part[0 .. m) at once: one pass over
 * the plan's edges, which come by source (a source's edges stay in
 * cache while each decomposition reads them); per source the most
 * versions each remote rank consumed. */
static int p2p(const part_comm_plan *p, const uint32_t *const *part, uint32_t m, uint32_t n,
               part_comm_result *r)
{
   uint64_t *best = calloc(n, sizeof *best);
   uint32_t *touched = malloc(n * sizeof *touched);
   if (!best || !touched) {
      free(best), free(touched);
      return -1;
   }
   for (size_t s = 0; s < p->nsources; s++) {
      uint64_t size = p->vcg->vertices[p->sources[s].src].size;
      for (uint32_t c = 0; c < m; c++) {
         const uint32_t *pc = part[c];
         uint32_t ps = pc[p->sources[s].gs], nt = 0;
         for (uint64_t e = p->sources[s].first; e < p->sources[s + 1].first; e++) {
            uint32_t pd = pc[p->edges[e].gd];
            if (pd == ps)
               continue;
            if (!best[pd])
               touched[nt++] = pd;
            if (p->edges[e].versions > best[pd])
               best[pd] = p->edges[e].versions;
         }
         for (uint32_t i = 0; i < nt; i++) {
            uint32_t pd = touched[i];
            size_t ij = (size_t)ps * n + pd;
            r[c].matrix[ij] += best[pd] * size;
            if (best[pd] > r[c].rounds[ij])
               r[c].rounds[ij] = best[pd];
            best[pd] = 0;
         }
      }
   }
   free(best);
   free(touched);
   return 0;
}

static void collectives(const part_comm_plan *p, uint32_t n, part_comm_result *r)
{
   const part_graph *g = p->g;
   for (uint32_t k = 0; k < g->ng; k++) {
      uint8_t kind = p->skind[k];
      /* A reduction that nothing reads in the region, not even a
       * condition, is needed only after it: an MPI code reduces it
       * once, at the end, not per iteration. */
      if (!kind || kind == PART_SINGLETON_REPLICATED || kind == PART_SINGLETON_REDUCE ||
          !p->coll_counts[k])
         continue;
      int t = coll_of_kind(kind);
      r->coll_calls[t] += g->calls[k];
      r->coll_bytes[t] += g->calls[k] * part_comm_coll_bytes(t, g->size[k], n);
   }
}

void part_comm_totals(part_comm_result *r, const part_comm_cost *cost)
{
   uint32_t n = r->nranks;
   r->p2p_bytes = r->coll_total = r->max_rank_bytes = 0;
   r->max_neighbours = 0;
   double worst = 0, nbsum = 0;
   for (uint32_t i = 0; i < n; i++) {
      uint64_t sent = 0;
      uint32_t nb = 0;
      double t = 0;
      for (uint32_t j = 0; j < n; j++) {
         uint64_t b = r->matrix[(size_t)i * n + j];
         sent += b;
         t += (double)r->rounds[(size_t)i * n + j] * cost->alpha +
              (double)b * cost->beta;
         nb += j != i && (b || r->matrix[(size_t)j * n + i]);
      }
      r->p2p_bytes += sent;
      if (sent > r->max_rank_bytes)
         r->max_rank_bytes = sent;
      if (nb > r->max_neighbours)
         r->max_neighbours = nb;
      nbsum += nb;
      if (t > worst)
         worst = t;
   }
   r->avg_neighbours = n ? nbsum / n : 0;
   double steps = n > 1 ? ceil(log2((double)n)) : 0;
   double coll = 0;
   for (int t = 0; t < PART_COMM_NCOLL; t++) {
      r->coll_total += r->coll_bytes[t];
      /* Tree algorithms: log2(n) stages, an allreduce is two trees. */
      double trees = t == PART_COMM_ALLREDUCE ? 2 : 1;
      double payload = r->coll_calls[t] && n > 1
                          ? (double)r->coll_bytes[t] /
                               (double)part_comm_coll_bytes(t, 1, n)
                          : 0;
      coll += trees * steps *
              ((double)r->coll_calls[t] * cost->alpha + payload * cost->beta);
   }
   r->time_estimate = worst + coll;
}

static void imbalance(const part_graph *g, const uint8_t *skind,
                      const uint32_t *part, part_comm_result *r)
{
   uint32_t n = r->nranks;
   double *w = calloc(n, sizeof *w), total = 0;
   if (w) {
      for (uint32_t k = 0; k < g->ng; k++)
         if (!skind[k] && part[k] < n) {
            w[part[k]] += (double)g->weight[k];
            total += (double)g->weight[k];
         }
      double mx = 0;
      for (uint32_t i = 0; i < n; i++)
         mx = w[i] > mx ? w[i] : mx;
      r->imbalance = total > 0 ? mx / (total / n) : 1.0;
      free(w);
   }
}

int part_comm_compute_many(const part_comm_plan *p, const uint32_t *const *part, uint32_t m,
                           uint32_t n, const part_comm_cost *cost, part_comm_result *r)
{
   int rc = 0;
   for (uint32_t c = 0; c < m; c++) {
      memset(&r[c], 0, sizeof r[c]);
      r[c].nranks = n;
      r[c].matrix = calloc((size_t)n * n, sizeof *r[c].matrix);
      r[c].rounds = calloc((size_t)n * n, sizeof *r[c].rounds);
      if (!r[c].matrix || !r[c].rounds)
         rc = -1;
   }
   if (rc == 0)
      rc = p2p(p, part, m, n, r);
   for (uint32_t c = 0; c < m; c++) {
      if (rc != 0) {
         part_comm_result_free(&r[c]);
         continue;
      }
      collectives(p, n, &r[c]);
      part_comm_totals(&r[c], cost);
      imbalance(p->g, p->skind, part[c], &r[c]);
   }
   return rc;
}

int part_comm_compute(const part_comm_plan *p, const uint32_t *part, uint32_t n,
                      const part_comm_cost *cost, part_comm_result *r)
{
   return part_comm_compute_many(p, &part, 1, n, cost, r);
}

void part_comm_result_free(part_comm_result *r)
{
   free(r->matrix);
   free(r->rounds);
   free(r->vertex_part);
   r->matrix = r->rounds = NULL;
   r->vertex_part = NULL;
}
