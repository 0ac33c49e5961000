/* SPDX-License-Identifier: GPL-2.0-or-later */
/* part_project.c: the projection driver (part_project.h). */
#include "part_project.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "part_layout.h"


void part_project_defaults(part_project_options *o)
{
   memset(o, 0, sizeof *o);
   static const uint32_t dflt[] = { 2, 4, 8, 16, 32, 64 };
   for (uint32_t i = 0; i < 6; i++)
      o->ranks[i] = dflt[i];
   o->nranks = 6;
   o->threshold = 0.9;
   o->metis.method = PART_METIS_BEST;
   o->metis.seed = 1;
   o->metis.ufactor = 30;
   o->metis.contig = PART_METIS_CONTIG_AUTO;
   o->metis.tries = 0;
   o->cost.alpha = 1e-6;     /* 1 us per message */
   o->cost.beta = 1e-10;     /* 10 GB/s */
   o->per = NULL;
}

int part_project_parse_ranks(const char *s, part_project_options *o, char *err, size_t errlen)
{
   uint32_t n = 0;
   const char *p = s;
   while (*p) {
      char *end;
      errno = 0;
      unsigned long v = strtoul(p, &end, 10);
      if (end == p || errno || v < 1 || v > PART_PROJECT_MAX_N ||
          (*end && *end != ',') || *p == '-' || *p == '+') {
         snprintf(err, errlen, "--ranks=%s: expected a comma-separated list "
                               "of rank counts between 1 and %u", s, PART_PROJECT_MAX_N);
         return -1;
      }
      if (n == PART_PROJECT_MAX_RANKS) {
         snprintf(err, errlen, "--ranks=%s: at most %d rank counts", s,
                  PART_PROJECT_MAX_RANKS);
         return -1;
      }
      o->ranks[n++] = (uint32_t)v;
      p = *end ? end + 1 : end;
      if (*end && !*p) {
         snprintf(err, errlen, "--ranks=%s: trailing comma", s);
         return -1;
      }
   }
   if (n == 0) {
      snprintf(err, errlen, "--ranks: empty list");
      return -1;
   }
   o->nranks = n;
   return 0;
}

static int parse_double(const char *s, double lo, double hi, double *out)
{
   char *end;
   errno = 0;
   double v = strtod(s, &end);
   if (end == s || *end || errno || !(v >= lo && v <= hi))
      return -1;
   *out = v;
   return 0;
}

int part_project_set_option(part_project_options *o, const char *name, const char *value,
                            char *err, size_t errlen)
{
   double d;
   if (strcmp(name, "ranks") == 0)
      return part_project_parse_ranks(value, o, err, errlen);
   if (strcmp(name, "per") == 0) {
      if (!*value) {
         snprintf(err, errlen, "--per: expected a function, region, "
                               "FILE:LINE of a loop, or 'run'");
         return -1;
      }
      o->per = value;
      return 0;
   }
   if (strcmp(name, "singleton-threshold") == 0) {
      if (parse_double(value, 1e-9, 1.0, &d) != 0)
         goto bad;
      o->threshold = d;
      return 0;
   }
   if (strcmp(name, "partitioner") == 0) {
      static const char *const m[PART_METIS_NMETHODS] = { "kway", "rb", "best",
                                                  "volume" };
      for (int i = 0; i < PART_METIS_NMETHODS; i++)
         if (strcmp(value, m[i]) == 0) {
            o->metis.method = i;
            return 0;
         }
      goto bad;
   }
   if (strcmp(name, "decomposition") == 0) {
      static const char *const d[PART_DECOMP_N] = { "auto", "metis", "grid" };
      for (int i = 0; i < PART_DECOMP_N; i++)
         if (strcmp(value, d[i]) == 0) {
            o->decomp = i;
            return 0;
         }
      goto bad;
   }
   if (strcmp(name, "grid") == 0) {
      char one[64];
      const char *q = value;
      o->nnamed = 0;
      for (;;) {
         size_t len = strcspn(q, ",");
         if (len >= sizeof one || o->nnamed == PART_PROJECT_MAX_RANKS)
            goto bad;
         memcpy(one, q, len);
         one[len] = '\0';
         if (part_grid_parse(one, &o->named[o->nnamed], err, errlen) != 0)
            return -1;
         o->nnamed++;
         if (!q[len])
            return 0;
         q += len + 1;
      }
   }
   if (strcmp(name, "seed") == 0) {
      if (parse_double(value, 0, 2147483647.0, &d) != 0 || d != (int)d)
         goto bad;
      o->metis.seed = (int)d;
      return 0;
   }
   if (strcmp(name, "tries") == 0) {
      if (parse_double(value, 1, 100, &d) != 0 || d != (int)d)
         goto bad;
      o->metis.tries = (int)d;
      return 0;
   }
   if (strcmp(name, "imbalance") == 0) {
      if (parse_double(value, 1.001, 10.0, &d) != 0)
         goto bad;
      o->metis.ufactor = (int)((d - 1.0) * 1000 + 0.5);
      return 0;
   }
   if (strcmp(name, "contig") == 0) {
      static const char *const c[] = { "no", "yes", "auto" };
      for (int i = 0; i < 3; i++)
         if (strcmp(value, c[i]) == 0) {
            o->metis.contig = i;
            return 0;
         }
      goto bad;
   }
   if (strcmp(name, "alpha") == 0 || strcmp(name, "beta") == 0) {
      if (parse_double(value, 0, 1e3, &d) != 0)
         goto bad;
      *(name[0] == 'a' ? &o->cost.alpha : &o->cost.beta) = d;
      return 0;
   }
   return 1;
bad:
   snprintf(err, errlen, "--%s=%s: bad value", name, value);
   return -1;
}

static int list_singletons(const part_graph *g, const uint8_t *skind,
                           part_projection *p)
{
   uint32_t n = 0;
   for (uint32_t k = 0; k < g->ng; k++)
      n += skind[k] != PART_SINGLETON_NONE;
   p->slist = calloc(n ? n : 1, sizeof *p->slist);
   if (!p->slist)
      return -1;
   for (uint32_t v = 0; v < g->nv; v++) {
      uint32_t k = g->group[v];
      if (skind[k] == PART_SINGLETON_NONE)
         continue;
      /* Groups are numbered in order of their first member. */
      if (p->nslist && p->slist[p->nslist - 1].members &&
          g->group[p->slist[p->nslist - 1].vertex] >= k)
         continue;
      p->slist[p->nslist++] = (part_project_singleton){ v, g->members[k], skind[k],
                                              g->xadj[k + 1] - g->xadj[k],
                                              g->versions[k] };
   }
   return 0;
}

/* r->vertex_part from the groups' parts (--keep-parts). */
static int keep_vertex_parts(const trace_file *t, const part_graph *g, const uint32_t *part,
                             part_comm_result *r, char *err, size_t errlen)
{
   r->vertex_part = malloc((t->vcg.nvertices ? t->vcg.nvertices : 1) *
                           sizeof *r->vertex_part);
   if (!r->vertex_part) {
      part_comm_result_free(r);
      snprintf(err, errlen, "out of memory");
      return -1;
   }
   for (uint32_t v = 0; v < t->vcg.nvertices; v++)
      r->vertex_part[v] = part[g->group[v]];
   return 0;
}

/* One rank count by METIS: the chosen method, or each method keeping
 * the decomposition whose projected communication is smallest (the
 * partitioners minimise proxies of it; which proxy fits depends on the
 * graph: a stencil's cut is its volume, a matrix product's is not). */
static int project_metis(const trace_file *t, const part_graph *g,
                         const part_comm_plan *plan, const part_metis_graph *m,
                         const part_project_options *o, uint32_t n, uint32_t *part,
                         part_comm_result *best, char *err, size_t errlen)
{
   int methods[3] = { o->metis.method };
   int nmethods = o->metis.method == PART_METIS_BEST ? part_metis_best_methods(m, methods)
                                             : 1;
   memset(best, 0, sizeof *best);
   for (int i = 0; i < nmethods; i++) {
      part_metis_options mo = o->metis;
      mo.method = methods[i];
      part_metis_result mr;
      part_comm_result r;
      if (part_metis_partition(m, n, &mo, part, &mr, err, errlen) != 0)
         return -1;
      if (part_comm_compute(plan, part, n, &o->cost, &r) != 0) {
         snprintf(err, errlen, "out of memory projecting %u ranks", n);
         return -1;
      }
      r.cut = mr.cut;
      r.method = mr.method;
      r.dealt = mr.dealt;
      if (i > 0 && r.p2p_bytes + r.coll_total >=
                      best->p2p_bytes + best->coll_total) {
         part_comm_result_free(&r);
         continue;
      }
      if (o->keep_parts && keep_vertex_parts(t, g, part, &r, err, errlen) != 0)
         return -1;
      part_comm_result_free(best);
      *best = r;
   }
   return 0;
}

/* One rank count by a process grid. */
static int project_grid(const trace_file *t, const part_graph *g,
                        const part_comm_plan *plan, part_grid_groups *gg,
                        const part_grid *grid, const part_project_options *o,
                        uint32_t n, uint32_t *part, part_comm_result *r,
                        char *err, size_t errlen)
{
   if (part_grid_assign(gg, grid, n, part) != 0 ||
       part_comm_compute(plan, part, n, &o->cost, r) != 0) {
      snprintf(err, errlen, "out of memory projecting %u ranks", n);
      return -1;
   }
   r->method = PART_PROJECT_GRID;
   r->grid = *grid;
   if (o->keep_parts && keep_vertex_parts(t, g, part, r, err, errlen) != 0)
      return -1;
   return 0;
}

static uint64_t total_bytes(const part_comm_result *r)
{
   return r->p2p_bytes + r->coll_total;
}

/* The grid candidates for n ranks, all projected in one pass over the
 * plan (parts[c] holds candidate c's decomposition; missing arrays are
 * allocated); the cheapest, the first of equals, into *best, and every
 * candidate's bytes into tried and bytes. */
static int project_candidates(const trace_file *t, const part_graph *g,
                              const part_comm_plan *plan, part_grid_groups *gg,
                              const part_project_options *o, uint32_t n, uint32_t **parts,
                              part_grid *tried, uint64_t *bytes, uint32_t *ntried,
                              part_comm_result *best, char *err, size_t errlen)
{
   part_grid cand[PART_GRID_MAX_CANDIDATES];
   part_comm_result r[PART_GRID_MAX_CANDIDATES];
   uint32_t nc = part_grid_candidates(n, gg->gi->maxdims, cand, PART_GRID_MAX_CANDIDATES);
   *ntried = 0;
   for (uint32_t c = 0; c < nc; c++)
      if ((!parts[c] && !(parts[c] = malloc((g->ng ? g->ng : 1) * sizeof *parts[c]))) ||
          part_grid_assign(gg, &cand[c], n, parts[c]) != 0 ||
          (c + 1 == nc && part_comm_compute_many(plan, (const uint32_t *const *)parts, nc, n,
                                                 &o->cost, r) != 0)) {
         snprintf(err, errlen, "out of memory projecting %u ranks", n);
         return -1;
      }
   uint32_t chosen = 0;
   for (uint32_t c = 0; c < nc; c++) {
      r[c].method = PART_PROJECT_GRID;
      r[c].grid = cand[c];
      tried[c] = cand[c];
      bytes[c] = total_bytes(&r[c]);
      if (bytes[c] < bytes[chosen])
         chosen = c;
   }
   *ntried = nc;
   for (uint32_t c = 0; c < nc; c++)
      if (c != chosen)
         part_comm_result_free(&r[c]);
   if (nc == 0)
      return 0;
   *best = r[chosen];
   if (o->keep_parts && keep_vertex_parts(t, g, parts[chosen], best, err, errlen) != 0)
      return -1;
   return 0;
}

/* One rank count: the grid named for it; else every candidate grid,
 * keeping the cheapest, and METIS's parts, and of these the one the
 * decomposition option asks for (docs/PROJECTION.md). */
static int project_one(const trace_file *t, const part_graph *g,
                       const part_comm_plan *plan, const part_metis_graph *m,
                       part_grid_groups *gg, const part_project_options *o,
                       uint32_t n, uint32_t **parts, part_comm_result *best, char *err,
                       size_t errlen)
{
   memset(best, 0, sizeof *best);
   for (uint32_t i = 0; i < o->nnamed; i++)
      if (part_grid_ranks(&o->named[i]) == n) {
         if (project_grid(t, g, plan, gg, &o->named[i], o, n, parts[0], best, err,
                          errlen) != 0)
            return -1;
         best->ncand = 1;
         best->cand[0] = o->named[i];
         best->cand_bytes[0] = total_bytes(best);
         return 0;
      }
   part_comm_result grid = { 0 };
   part_grid tried[PART_GRID_MAX_CANDIDATES + 1];
   uint64_t bytes[PART_GRID_MAX_CANDIDATES + 1];
   uint32_t ntried = 0;
   if (o->decomp != PART_DECOMP_METIS &&
       project_candidates(t, g, plan, gg, o, n, parts, tried, bytes, &ntried, &grid, err,
                          errlen) != 0)
      return -1;
   int use_grid = ntried > 0 && (o->decomp == PART_DECOMP_GRID || part_grid_regular(gg->gi));
   if (use_grid) {
      *best = grid;
   } else {
      part_comm_result_free(&grid);
      if (project_metis(t, g, plan, m, o, n, parts[0], best, err, errlen) != 0)
         return -1;
      tried[ntried] = (part_grid){ { 0, 0, 0 } };
      bytes[ntried++] = total_bytes(best);
   }
   best->ncand = ntried;
   memcpy(best->cand, tried, ntried * sizeof *tried);
   memcpy(best->cand_bytes, bytes, ntried * sizeof *bytes);
   return 0;
}

/* The collective calls of the singletons (part_graph_settle_calls). */
static int settle_calls(part_graph *g, const trace_file *t, const uint8_t *skind)
{
   uint8_t *role = malloc(g->ng ? g->ng : 1);
   if (!role)
      return -1;
   for (uint32_t k = 0; k < g->ng; k++)
      role[k] = skind[k] == PART_SINGLETON_REDUCE || skind[k] == PART_SINGLETON_ALLREDUCE
                   ? PART_GRAPH_REDUCTION
                   : skind[k] ? PART_GRAPH_COLLECTIVE : PART_GRAPH_LOCAL;
   int rc = part_graph_settle_calls(g, t, role);
   free(role);
   return rc;
}

/* Whether a rank count of o takes METIS's parts (project_one): one not
 * named by --grid, unless a grid is asked for or the arrays are regular. */
static int metis_needed(const part_project_options *o, const part_grid_info *gi)
{
   if (o->decomp == PART_DECOMP_GRID ||
       (o->decomp == PART_DECOMP_AUTO && part_grid_regular(gi)))
      return 0;
   for (uint32_t i = 0; i < o->nranks; i++) {
      uint32_t k = 0;
      while (k < o->nnamed && part_grid_ranks(&o->named[k]) != o->ranks[i])
         k++;
      if (k == o->nnamed)
         return 1;
   }
   return 0;
}

int part_project(const trace_file *t, const part_project_options *o, part_projection *p,
                 char *err, size_t errlen)
{
   memset(p, 0, sizeof *p);
   p->opts = *o;
   snprintf(p->per_spec, sizeof p->per_spec, "%s", o->per ? o->per : "");
   p->opts.per = o->per ? p->per_spec : NULL;
   if (!t->has_vcg) {
      char why[512];
      snprintf(err, errlen, "%s", trace_no_graph_reason(t, why, sizeof why));
      return -1;
   }
   if (part_region_select(t, o->per, &p->region, err, errlen) != 0)
      return -1;
   part_graph g;
   if (part_graph_build(&t->vcg, p->region.scope, &g) != 0) {
      snprintf(err, errlen, "out of memory building the graph");
      part_project_free(p);
      return -1;
   }
   int rc = -1;
   uint8_t *skind = malloc(g.ng ? g.ng : 1);
   uint32_t *parts[PART_GRID_MAX_CANDIDATES] = { NULL };   /* [ng] each */
   parts[0] = malloc((g.ng ? g.ng : 1) * sizeof *parts[0]);
   uint32_t *tail = malloc((g.ng ? g.ng : 1) * sizeof *tail);
   part_metis_graph *m = NULL;
   part_layout_pairs pairs = { 0 };
   part_grid_info gi = { 0 };
   part_grid_groups gg = { 0 };
   part_comm_plan plan = { 0 };
   if (!skind || !parts[0] || !tail ||
       part_singleton_detect(&g, &t->vcg, o->threshold, p->region.iterations, skind,
                             tail, &p->singletons) != 0 ||
       settle_calls(&g, t, skind) != 0) {
      snprintf(err, errlen, "out of memory building the graph");
      goto out;
   }
   p->groups = g.ng;
   if (list_singletons(&g, skind, p) != 0) {
      snprintf(err, errlen, "out of memory building the graph");
      goto out;
   }
   if (part_grid_analyse(t, p->region.scope, &gi) != 0) {
      snprintf(err, errlen, "out of memory reading the arrays' shapes");
      goto out;
   }
   p->array_uses = gi.array_uses;
   p->direct_uses = gi.direct_uses;
   p->maxdims = gi.maxdims;
   for (uint32_t i = 0; i < o->nnamed; i++) {
      uint32_t r = part_grid_ranks(&o->named[i]), k = 0;
      while (k < o->nranks && o->ranks[k] != r)
         k++;
      if (k == o->nranks) {
         char name[64];
         part_grid_format(&o->named[i], name, sizeof name);
         snprintf(err, errlen, "--grid=%s is a grid of %u ranks, which --ranks does "
                               "not list", name, r);
         goto out;
      }
   }
   /* METIS's graph, as large as the groups' adjacency, only when a rank
    * count takes METIS's parts. */
   if (metis_needed(o, &gi) &&
       (part_layout_build(t, p->region.scope, &pairs) != 0 ||
        !(m = part_metis_graph_build(&g, skind, &pairs)))) {
      snprintf(err, errlen, "out of memory building the graph");
      goto out;
   }
   /* A region entered many times is a time loop; one entered once is the
    * whole computation, whose inputs must be distributed in it. */
   if (part_comm_plan_build(&plan, &t->vcg, &g, skind, tail, p->region.scope,
                            p->region.iterations > 1) != 0) {
      snprintf(err, errlen, "out of memory building the graph");
      goto out;
   }
   if (part_grid_groups_init(&gg, t, &g, &gi, skind) != 0) {
      snprintf(err, errlen, "out of memory building the graph");
      goto out;
   }
   for (uint32_t i = 0; i < o->nranks; i++) {
      if (project_one(t, &g, &plan, m, &gg, o, o->ranks[i], parts,
                      &p->results[i], err, errlen) != 0)
         goto out;
      p->nresults = i + 1;
   }
   rc = 0;
out:
   part_comm_plan_free(&plan);
   part_grid_groups_free(&gg);
   part_grid_info_free(&gi);
   part_metis_graph_free(m);
   part_layout_free(&pairs);
   free(skind);
   for (uint32_t c = 0; c < PART_GRID_MAX_CANDIDATES; c++)
      free(parts[c]);
   free(tail);
   part_graph_free(&g);
   if (rc != 0)
      part_project_free(p);
   return rc;
}

void part_project_free(part_projection *p)
{
   for (uint32_t i = 0; i < p->nresults; i++)
      part_comm_result_free(&p->results[i]);
   p->nresults = 0;
   free(p->slist);
   p->slist = NULL;
   p->nslist = 0;
   part_region_free(&p->region);
}
