/* SPDX-License-Identifier: GPL-2.0-or-later */
/* part_metis.c: METIS graph and partitioning (part_metis.h). */
#include "part_metis.h"

#include "part_layout.h"

#include <metis.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct part_metis_graph {
   uint32_t ng;            /* groups of the part_graph */
   idx_t nv;               /* vertices given to METIS */
   idx_t *xadj, *adjncy, *adjwgt, *vwgt;
   idx_t *vsize;           /* bytes a vertex sends to each remote reader */
   uint64_t *adjw_orig;    /* unscaled uses, for the reported cut */
   uint32_t *to_group;     /* [nv] METIS vertex -> group */
   uint32_t *to_metis;     /* [ng] group -> METIS vertex or UINT32_MAX */
   uint8_t *singleton;     /* [ng] copy: singletons get no part */
   int connected;
};

#define PART_METIS_NONE UINT32_MAX
#define PART_METIS_SUM_MAX ((uint64_t)1 << 30)   /* METIS sums weights in idx_t */
/* One weight at most: METIS's refinement of a graph whose one edge
 * weighed 2^30 against 1 for the rest (a damaged trace, 4e9 uses) ran
 * for minutes. */
#define PART_METIS_WEIGHT_MAX ((uint64_t)1 << 24)

uint64_t part_metis_graph_edges(const part_metis_graph *m) { return (uint64_t)m->xadj[m->nv] / 2; }
int part_metis_graph_connected(const part_metis_graph *m) { return m->connected; }

/* The work estimate above which contiguity is not asked of METIS: a
 * dense graph (a matrix product's) estimates several times more and
 * takes minutes per rank count with it, a sparse one of millions of
 * edges (a particle code's) less and seconds (docs/BENCH.md). */
#define PART_METIS_DENSE_WORK 2e8

int part_metis_graph_dense(const part_metis_graph *m)
{
   double e = (double)part_metis_graph_edges(m);
   return m->nv > 0 && 4.0 * e * e / (double)m->nv > PART_METIS_DENSE_WORK;
}

int part_metis_best_methods(const part_metis_graph *m, int *methods)
{
   int n = 0;
   methods[n++] = PART_METIS_KWAY;
   if (!part_metis_graph_dense(m))
      methods[n++] = PART_METIS_VOLUME;
   methods[n++] = PART_METIS_RB;
   return n;
}

/* Divisor that brings `total` within METIS's range. */
static uint64_t scale_for(uint64_t total)
{
   return total <= PART_METIS_SUM_MAX ? 1 : (total + PART_METIS_SUM_MAX - 1) / PART_METIS_SUM_MAX;
}

static idx_t scaled(uint64_t w, uint64_t div, int keep_zero)
{
   uint64_t s = w / div;
   if (s == 0 && (w != 0 || !keep_zero))
      s = 1;
   return (idx_t)(s < PART_METIS_WEIGHT_MAX ? s : PART_METIS_WEIGHT_MAX);
}

static int is_connected(const part_metis_graph *m)
{
   if (m->nv <= 1)
      return 1;
   idx_t *stack = malloc((size_t)m->nv * sizeof *stack);
   uint8_t *seen = calloc((size_t)m->nv, 1);
   if (!stack || !seen) {
      free(stack), free(seen);
      return 0;
   }
   idx_t top = 0, reached = 1;
   stack[top++] = 0;
   seen[0] = 1;
   while (top) {
      idx_t v = stack[--top];
      for (idx_t i = m->xadj[v]; i < m->xadj[v + 1]; i++) {
         idx_t u = m->adjncy[i];
         if (!seen[u]) {
            seen[u] = 1;
            reached++;
            stack[top++] = u;
         }
      }
   }
   free(stack);
   free(seen);
   return reached == m->nv;
}

static uint64_t live_degree(const part_graph *g, const uint8_t *singleton,
                            uint32_t k)
{
   uint64_t d = 0;
   for (uint64_t i = g->xadj[k]; i < g->xadj[k + 1]; i++)
      d += !singleton[g->adj[i]];
   return d;
}

/* What a group sends to each rank that reads it: every version of its
 * largest member, once (the pruning of part_comm.c). A group nothing
 * reads sends nothing, so METIS's volume, which counts every remote
 * neighbour, charges only values that are read. */
static uint64_t send_size(const part_graph *g, uint32_t k)
{
   return (g->dir[k] & PART_GRAPH_OUT) ? (uint64_t)g->size[k] * g->versions[k] : 0;
}

/* Layout pairs as rows over METIS vertices (CSR in *x, *nb). */
static int pair_rows(const part_graph *g, const part_metis_graph *m,
                     const part_layout_pairs *pairs, idx_t **x, idx_t **nb)
{
   size_t n = pairs ? pairs->n : 0;
   *x = calloc((size_t)m->nv + 2, sizeof **x);
   *nb = malloc((2 * n + 1) * sizeof **nb);
   if (!*x || !*nb)
      return -1;
   idx_t *start = *x + 1;   /* start[v] counts, then fills, row v */
   for (int pass = 0; pass < 2; pass++) {
      for (size_t i = 0; i < n; i++) {
         uint32_t a = m->to_metis[g->group[pairs->a[i]]];
         uint32_t b = m->to_metis[g->group[pairs->b[i]]];
         if (a == PART_METIS_NONE || b == PART_METIS_NONE || a == b)
            continue;
         if (pass == 0) {
            start[a + 1]++;
            start[b + 1]++;
         } else {
            (*nb)[start[a]++] = (idx_t)b;
            (*nb)[start[b]++] = (idx_t)a;
         }
      }
      if (pass == 0)
         for (idx_t v = 0; v < m->nv; v++)
            start[v + 1] += start[v];
   }
   /* After the fill start[v] is where row v + 1 begins: (*x)[v] = row v. */
   (*x)[0] = 0;
   return 0;
}

part_metis_graph *part_metis_graph_build(const part_graph *g, const uint8_t *singleton,
                                         const part_layout_pairs *pairs)
{
   part_metis_graph *m = calloc(1, sizeof *m);
   if (!m)
      return NULL;
   m->ng = g->ng;
   size_t ng = g->ng ? g->ng : 1;
   m->to_metis = malloc(ng * sizeof *m->to_metis);
   m->to_group = malloc(ng * sizeof *m->to_group);
   m->singleton = malloc(ng);
   m->xadj = malloc((ng + 1) * sizeof *m->xadj);
   m->vwgt = malloc(ng * sizeof *m->vwgt);
   m->vsize = malloc(ng * sizeof *m->vsize);
   if (!m->to_metis || !m->to_group || !m->singleton || !m->xadj ||
       !m->vwgt || !m->vsize)
      goto oom;
   memcpy(m->singleton, singleton, g->ng);
   uint64_t nadj = 0, wsum = 0, esum = 0, ssum = 0;
   for (uint32_t k = 0; k < g->ng; k++) {
      m->to_metis[k] = PART_METIS_NONE;
      if (singleton[k])
         continue;
      uint64_t d = live_degree(g, singleton, k);
      if (d == 0)
         continue;
      m->to_metis[k] = (uint32_t)m->nv;
      m->to_group[m->nv++] = k;
      nadj += d;
      wsum += g->weight[k];
      ssum += send_size(g, k) * d;
      for (uint64_t i = g->xadj[k]; i < g->xadj[k + 1]; i++)
         if (!singleton[g->adj[i]])
            esum += g->adjw[i];
   }
   idx_t *px = NULL, *pnb = NULL;
   uint64_t pw = pairs ? pairs->weight : 0;
   uint64_t *mark = malloc(((size_t)m->nv + 1) * sizeof *mark);
   if (!mark || pair_rows(g, m, pairs, &px, &pnb) != 0) {
      free(px), free(pnb), free(mark);
      goto oom;
   }
   nadj += (uint64_t)px[m->nv];
   esum += (uint64_t)px[m->nv] * pw;
   m->adjncy = malloc((nadj ? nadj : 1) * sizeof *m->adjncy);
   m->adjwgt = malloc((nadj ? nadj : 1) * sizeof *m->adjwgt);
   m->adjw_orig = malloc((nadj ? nadj : 1) * sizeof *m->adjw_orig);
   if (nadj > (uint64_t)INT32_MAX || !m->adjncy || !m->adjwgt ||
       !m->adjw_orig) {
      free(px), free(pnb), free(mark);
      goto oom;
   }
   for (idx_t v = 0; v < m->nv; v++)
      mark[v] = UINT64_MAX;
   uint64_t vdiv = scale_for(wsum), ediv = scale_for(esum);
   uint64_t sdiv = scale_for(ssum);
   int all_zero = wsum == 0;
   idx_t pos = 0;
   for (idx_t v = 0; v < m->nv; v++) {
      uint32_t k = m->to_group[v];
      m->xadj[v] = pos;
      m->vwgt[v] = all_zero ? 1 : scaled(g->weight[k], vdiv, 1);
      m->vsize[v] = scaled(send_size(g, k), sdiv, 1);
      idx_t start = pos;
      for (uint64_t i = g->xadj[k]; i < g->xadj[k + 1]; i++) {
         uint32_t nb = g->adj[i];
         if (singleton[nb])
            continue;
         mark[m->to_metis[nb]] = (uint64_t)pos;
         m->adjncy[pos] = (idx_t)m->to_metis[nb];
         m->adjwgt[pos] = scaled(g->adjw[i], ediv, 0);
         m->adjw_orig[pos++] = g->adjw[i];
      }
      /* A layout pair adds weight to the value-flow edge it doubles, or
       * makes an edge that carries no communication (adjw_orig 0). */
      for (idx_t i = px[v]; i < px[v + 1]; i++) {
         idx_t nb = pnb[i];
         if (mark[nb] == UINT64_MAX || mark[nb] < (uint64_t)start) {
            mark[nb] = (uint64_t)pos;
            m->adjncy[pos] = nb;
            m->adjwgt[pos] = 0;
            m->adjw_orig[pos++] = 0;
         }
         m->adjwgt[mark[nb]] += scaled(pw, ediv, 0);
      }
   }
   m->xadj[m->nv] = pos;
   free(px);
   free(pnb);
   free(mark);
   m->connected = is_connected(m);
   return m;
oom:
   part_metis_graph_free(m);
   return NULL;
}

void part_metis_graph_free(part_metis_graph *m)
{
   if (!m)
      return;
   free(m->xadj);
   free(m->adjncy);
   free(m->adjwgt);
   free(m->adjw_orig);
   free(m->vwgt);
   free(m->vsize);
   free(m->to_group);
   free(m->to_metis);
   free(m->singleton);
   free(m);
}

static uint64_t cut_of(const part_metis_graph *m, const idx_t *p)
{
   uint64_t cut = 0;
   for (idx_t v = 0; v < m->nv; v++)
      for (idx_t i = m->xadj[v]; i < m->xadj[v + 1]; i++)
         if (p[m->adjncy[i]] != p[v])
            cut += m->adjw_orig[i];
   return cut / 2;
}

/* METIS keeps the best of `tries` partitionings. Small graphs get several
 * (a few percent less cut for little time); a graph of millions of edges
 * gets one, so six rank counts still take seconds. */
static idx_t tries_for(const part_metis_graph *m, int tries)
{
   if (tries > 0)
      return tries;
   idx_t edges = m->xadj[m->nv] / 2;
   idx_t t = edges > 0 ? (idx_t)(4000000 / edges) : 8;
   return t < 1 ? 1 : t > 8 ? 8 : t;
}

static int run_metis(const part_metis_graph *m, int method, idx_t nparts,
                     const part_metis_options *o, int contig, idx_t *p)
{
   idx_t opts[METIS_NOPTIONS];
   METIS_SetDefaultOptions(opts);
   opts[METIS_OPTION_NUMBERING] = 0;
   opts[METIS_OPTION_SEED] = o->seed;
   opts[METIS_OPTION_UFACTOR] = o->ufactor;
   opts[METIS_OPTION_NCUTS] = tries_for(m, o->tries);
   if (method != PART_METIS_RB) {
      opts[METIS_OPTION_CONTIG] = contig;
      opts[METIS_OPTION_OBJTYPE] = method == PART_METIS_VOLUME ? METIS_OBJTYPE_VOL
                                                       : METIS_OBJTYPE_CUT;
   }
   idx_t ncon = 1, nv = m->nv, objval = 0;
   int rc = method != PART_METIS_RB
               ? METIS_PartGraphKway(&nv, &ncon, m->xadj, m->adjncy, m->vwgt,
                                     method == PART_METIS_VOLUME ? m->vsize : NULL,
                                     m->adjwgt, &nparts, NULL, NULL, opts,
                                     &objval, p)
               : METIS_PartGraphRecursive(&nv, &ncon, m->xadj, m->adjncy,
                                          m->vwgt, NULL, m->adjwgt, &nparts,
                                          NULL, NULL, opts, &objval, p);
   return rc;
}

/* METIS's error, named: a graph it refuses is a bug of ours, its memory
 * the machine's limit. */
static const char *metis_error(int rc)
{
   switch (rc) {
   case METIS_ERROR_INPUT:  return "METIS refused its input";
   case METIS_ERROR_MEMORY: return "METIS ran out of memory";
   default:                 return "METIS failed";
   }
}

int part_metis_partition(const part_metis_graph *m, uint32_t nparts, const part_metis_options *o,
                         uint32_t *part, part_metis_result *res, char *err, size_t errlen)
{
   memset(res, 0, sizeof *res);
   res->method = o->method;
   idx_t *p = calloc(m->nv ? (size_t)m->nv : 1, sizeof *p);
   if (!p) {
      snprintf(err, errlen, "out of memory partitioning for %u ranks", nparts);
      return -1;
   }
   /* METIS needs more vertices than parts; below that there is nothing to
    * decide (and nothing worth communicating). */
   if (nparts > 1 && (uint32_t)m->nv > nparts) {
      int asked = o->contig == PART_METIS_CONTIG_YES ||
                  (o->contig == PART_METIS_CONTIG_AUTO && !part_metis_graph_dense(m));
      int contig = asked && m->connected && o->method != PART_METIS_RB;
      int rc = run_metis(m, o->method, (idx_t)nparts, o, contig, p);
      if (rc != METIS_OK) {
         free(p);
         snprintf(err, errlen, "%s (error %d) partitioning %u values into %u "
                               "parts", metis_error(rc), rc, (unsigned)m->nv, nparts);
         return -1;
      }
      res->contiguous = contig;
   } else {
      /* Said in the projection's report (part_report_table). */
      res->dealt = nparts > 1 ? (uint32_t)m->nv : 0;
      for (idx_t v = 0; v < m->nv; v++)
         p[v] = (idx_t)((uint32_t)v % (nparts ? nparts : 1));
   }
   res->cut = nparts > 1 ? cut_of(m, p) : 0;
   uint32_t rr = 0;
   for (uint32_t k = 0; k < m->ng; k++) {
      if (m->singleton[k])
         part[k] = PART_METIS_NONE;
      else if (m->to_metis[k] != PART_METIS_NONE)
         part[k] = (uint32_t)p[m->to_metis[k]];
      else
         part[k] = rr++ % (nparts ? nparts : 1);
   }
   free(p);
   return 0;
}
