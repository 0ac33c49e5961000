/* SPDX-License-Identifier: GPL-2.0-or-later */
/* part_graph.c: groups and the undirected group graph (part_graph.h). */
#include "part_graph.h"
#include "part_region.h"

#include <stdlib.h>
#include <string.h>

static int is_register(const trace_vcg *vcg, uint32_t v)
{
   return (vcg->vertices[v].flags & CATS_VCG_REGISTER) != 0;
}

/* A chain of intermediates whose every edge leaves for one memory vertex
 * computes that value (c[i][j] = a row times a column): it joins it, so
 * the value and its computation are one vertex to the partitioner. A
 * chain read by several values (a norm) stays on its own. */
static void adopt_chains(const trace_vcg *vcg, const uint8_t *scope,
                         uint32_t *group)
{
   const uint32_t none = UINT32_MAX, many = UINT32_MAX - 1;
   uint32_t *to = malloc((vcg->nvertices ? vcg->nvertices : 1) * sizeof *to);
   if (!to)
      return;   /* only a coarser view is lost */
   for (uint32_t v = 0; v < vcg->nvertices; v++)
      to[v] = none;
   for (uint32_t e = 0; e < vcg->nedges; e++) {
      const trace_vcg_edge *ed = &vcg->edges[e];
      if (!part_edge_in_scope(ed, scope) || !is_register(vcg, ed->src))
         continue;
      uint32_t a = part_graph_uf_find(group, ed->src);
      uint32_t d = is_register(vcg, ed->dst) ? part_graph_uf_find(group, ed->dst)
                                              : ed->dst;
      if (d == a)
         continue;
      uint32_t want = is_register(vcg, ed->dst) ? many : d;
      to[a] = to[a] == none || to[a] == want ? want : many;
   }
   for (uint32_t v = 0; v < vcg->nvertices; v++) {
      if (to[v] >= many)
         continue;
      part_graph_uf_union(group, v, to[v]);
   }
   free(to);
}

/* vertex -> dense group id; returns the group count. */
static uint32_t make_groups(const trace_vcg *vcg, const uint8_t *scope,
                            uint32_t *group)
{
   for (uint32_t v = 0; v < vcg->nvertices; v++)
      group[v] = v;
   for (uint32_t e = 0; e < vcg->nedges; e++) {
      const trace_vcg_edge *ed = &vcg->edges[e];
      if (ed->src == ed->dst || !part_edge_in_scope(ed, scope) ||
          !is_register(vcg, ed->src) ||
          !is_register(vcg, ed->dst) ||
          vcg->vertices[ed->src].loc != vcg->vertices[ed->dst].loc)
         continue;
      part_graph_uf_union(group, ed->src, ed->dst);
   }
   adopt_chains(vcg, scope, group);
   /* Roots are the smallest member: first point every vertex at its root
    * (still valid parent pointers), then number the roots in vertex order;
    * a root is numbered before any other member. */
   for (uint32_t v = 0; v < vcg->nvertices; v++)
      group[v] = part_graph_uf_find(group, v);
   uint32_t ng = 0;
   for (uint32_t v = 0; v < vcg->nvertices; v++)
      group[v] = group[v] == v ? ng++ : group[group[v]];
   return ng;
}

static int alloc_groups(part_graph *g)
{
   size_t n = g->ng ? g->ng : 1;
   g->xadj = calloc(n + 1, sizeof *g->xadj);
   g->dir = calloc(n, 1);
   g->weight = calloc(n, sizeof *g->weight);
   g->size = calloc(n, sizeof *g->size);
   g->versions = calloc(n, sizeof *g->versions);
   g->calls = calloc(n, sizeof *g->calls);
   g->members = calloc(n, sizeof *g->members);
   g->written = calloc(n, 1);
   return g->xadj && g->dir && g->weight && g->size && g->versions &&
                g->calls && g->members && g->written
             ? 0
             : -1;
}

static void group_attributes(const trace_vcg *vcg, part_graph *g)
{
   for (uint32_t v = 0; v < vcg->nvertices; v++) {
      const trace_vcg_vertex *vx = &vcg->vertices[v];
      uint32_t k = g->group[v];
      g->weight[k] += vx->weight;
      if (vx->size > g->size[k])
         g->size[k] = vx->size;
      if (vx->versions > g->versions[k])
         g->versions[k] = vx->versions;
      g->members[k]++;
      if (!(vx->flags & CATS_VCG_INPUT) || vx->versions > 1)
         g->written[k] = 1;
   }
}

/* How often each group's value was made in scope. A reduction arrives
 * as a chain of intermediates, and one made at the same site from data at
 * two addresses (a buffer that alternates between two blocks from step to
 * step) as two chains, each made every other step: the most versions of
 * a member counts half the reductions. Each chain starts at a member
 * without a predecessor in the group, once per reduction, so the calls
 * are the starts' versions summed; a group that is a cycle (a running
 * sum) has no start and counts its most versions. A start's versions in
 * scope are the most uses of its in-edges in scope: a dot product of r
 * with itself made once before the time steps and at every step is one
 * chain, whose set-up version is not a call of the steps. */
static int group_calls(const trace_vcg *vcg, const uint8_t *scope, part_graph *g)
{
   uint8_t *follows = calloc(vcg->nvertices ? vcg->nvertices : 1, 1);
   uint32_t *made = calloc(vcg->nvertices ? vcg->nvertices : 1, sizeof *made);
   uint8_t *fed = calloc(vcg->nvertices ? vcg->nvertices : 1, 1);
   if (!follows || !made || !fed) {
      free(follows);
      free(made);
      free(fed);
      return -1;
   }
   for (uint32_t e = 0; e < vcg->nedges; e++) {
      const trace_vcg_edge *ed = &vcg->edges[e];
      if (ed->src != ed->dst && g->group[ed->src] == g->group[ed->dst])
         follows[ed->dst] = 1;
      fed[ed->dst] = 1;
      if (part_edge_in_scope(ed, scope) && ed->uses > made[ed->dst])
         made[ed->dst] = ed->uses;
   }
   for (uint32_t v = 0; v < vcg->nvertices; v++)
      if (!follows[v])
         g->calls[g->group[v]] += scope && fed[v] ? made[v] : vcg->vertices[v].versions;
   for (uint32_t k = 0; k < g->ng; k++)
      if (g->calls[k] == 0)
         g->calls[k] = g->versions[k];
   free(follows);
   free(made);
   free(fed);
   return 0;
}

/* Undirected rows: every inter-group edge lands in both rows, then each row
 * is merged with a position marker (O(E), no sort of the whole edge list). */
static int build_rows(const trace_vcg *vcg, const uint8_t *scope, part_graph *g)
{
   uint64_t *deg = g->xadj;
   for (uint32_t e = 0; e < vcg->nedges; e++) {
      uint32_t a = g->group[vcg->edges[e].src];
      uint32_t b = g->group[vcg->edges[e].dst];
      if (a == b || !part_edge_in_scope(&vcg->edges[e], scope))
         continue;
      deg[a + 1]++;
      deg[b + 1]++;
      g->dir[a] |= PART_GRAPH_OUT;
      g->dir[b] |= PART_GRAPH_IN;
   }
   for (uint32_t k = 0; k < g->ng; k++)
      deg[k + 1] += deg[k];
   uint64_t total = deg[g->ng];
   uint32_t *adj = malloc((total ? total : 1) * sizeof *adj);
   uint64_t *w = malloc((total ? total : 1) * sizeof *w);
   uint64_t *fill = malloc(((size_t)g->ng + 1) * sizeof *fill);
   uint64_t *mark = malloc(((size_t)g->ng + 1) * sizeof *mark);
   if (!adj || !w || !fill || !mark) {
      free(adj), free(w), free(fill), free(mark);
      return -1;
   }
   memcpy(fill, deg, ((size_t)g->ng + 1) * sizeof *fill);
   /* Each edge lands in its sink's row, far from the last one's: the
    * edges are taken a batch at a time, their rows' places fetched
    * together before they are written. */
   enum { BATCH = 64 };
   uint32_t ba[BATCH], bb[BATCH];
   uint64_t bu[BATCH];
   for (uint32_t e = 0; e < vcg->nedges;) {
      uint32_t nb = 0;
      for (; e < vcg->nedges && nb < BATCH; e++) {
         uint32_t a = g->group[vcg->edges[e].src];
         uint32_t b = g->group[vcg->edges[e].dst];
         if (a == b || !part_edge_in_scope(&vcg->edges[e], scope))
            continue;
         __builtin_prefetch(&fill[b], 1);
         ba[nb] = a, bb[nb] = b, bu[nb++] = vcg->edges[e].uses;
      }
      for (uint32_t i = 0; i < nb; i++) {
         __builtin_prefetch(&adj[fill[bb[i]]], 1);
         __builtin_prefetch(&w[fill[bb[i]]], 1);
      }
      for (uint32_t i = 0; i < nb; i++) {
         uint32_t a = ba[i], b = bb[i];
         adj[fill[a]] = b, w[fill[a]++] = bu[i];
         adj[fill[b]] = a, w[fill[b]++] = bu[i];
      }
   }
   /* Merge duplicates row by row, compacting in place. */
   for (uint32_t k = 0; k < g->ng; k++)
      mark[k] = UINT64_MAX;
   uint64_t out = 0;
   for (uint32_t k = 0; k < g->ng; k++) {
      uint64_t start = out, lo = deg[k], hi = deg[k + 1];
      for (uint64_t i = lo; i < hi; i++) {
         uint32_t nb = adj[i];
         if (mark[nb] != UINT64_MAX && mark[nb] >= start) {
            w[mark[nb]] += w[i];
            continue;
         }
         mark[nb] = out;
         adj[out] = nb;
         w[out++] = w[i];
      }
      deg[k] = start;
   }
   deg[g->ng] = out;
   free(fill);
   free(mark);
   /* Give back what the merge freed (the same pair made in several
    * contexts, or by several members of a group): the phases after this
    * one are the projection's peak. */
   uint32_t *adj_fit = realloc(adj, (out ? out : 1) * sizeof *adj);
   uint64_t *w_fit = realloc(w, (out ? out : 1) * sizeof *w);
   g->adj = adj_fit ? adj_fit : adj;
   g->adjw = w_fit ? w_fit : w;
   return 0;
}

int part_graph_build(const trace_vcg *vcg, const uint8_t *scope, part_graph *g)
{
   memset(g, 0, sizeof *g);
   g->nv = vcg->nvertices;
   g->scope = scope;
   g->group = malloc((g->nv ? g->nv : 1) * sizeof *g->group);
   if (!g->group)
      return -1;
   g->ng = make_groups(vcg, scope, g->group);
   if (alloc_groups(g) != 0 || build_rows(vcg, scope, g) != 0) {
      part_graph_free(g);
      return -1;
   }
   group_attributes(vcg, g);
   if (group_calls(vcg, scope, g) != 0) {
      part_graph_free(g);
      return -1;
   }
   return 0;
}

/* The unit of context c: the nearest loop, function or marked region at
 * or above it (a conditional is part of its loop's iteration). */
static uint32_t *context_units(const trace_file *t)
{
   uint32_t *unit = malloc((t->ncontexts ? t->ncontexts : 1) * sizeof *unit);
   if (!unit)
      return NULL;
   for (uint32_t c = 0; c < t->ncontexts; c++) {
      const trace_context *x = &t->contexts[c];
      int own = x->kind != CATS_CTX_CONDITIONAL || x->parent == CATS_NONE;
      unit[c] = own ? c : unit[x->parent];   /* parents have smaller ids */
   }
   return unit;
}

static int cmp_pair(const void *a, const void *b)
{
   const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
   return (x > y) - (x < y);
}

/* Whether in-scope context c is where the scope starts (the loop or
 * function a projection is per iteration of). */
static int scope_root(const trace_file *t, const uint8_t *scope, uint32_t c)
{
   uint32_t p = t->contexts[c].parent;
   return p == CATS_NONE || !scope[p];
}

/* Times unit u ran a reduction: an entry of a unit inside the scope, an
 * iteration of the scope's own loop. */
static uint64_t unit_runs(const trace_file *t, const uint8_t *scope, uint32_t u)
{
   const trace_context *x = &t->contexts[u];
   return scope_root(t, scope, u) && x->kind == CATS_CTX_LOOP ? x->iterations
                                                               : x->entries;
}

/* The sorted, unique (group << 32 | unit) pairs of the in-scope in-edges
 * of g's groups with role[group] set (every group if role is NULL); NULL
 * when out of memory. */
static uint64_t *group_units(const part_graph *g, const trace_file *t, const uint8_t *role,
                             size_t *np)
{
   const trace_vcg *vcg = &t->vcg;
   uint32_t *unit = context_units(t);
   /* Grown as found: with role, a few groups' edges of the graph's. */
   size_t cap = role ? 1024 : (size_t)vcg->nedges + 1;
   uint64_t *pairs = malloc(cap * sizeof *pairs);
   if (!unit || !pairs) {
      free(unit), free(pairs);
      return NULL;
   }
   size_t n = 0;
   for (uint32_t e = 0; e < vcg->nedges; e++) {
      const trace_vcg_edge *ed = &vcg->edges[e];
      uint32_t k = g->group[ed->dst];
      if (!part_edge_in_scope(ed, g->scope) || (role && !role[k]))
         continue;
      if (n == cap) {
         uint64_t *more = realloc(pairs, 2 * cap * sizeof *pairs);
         if (!more) {
            free(unit), free(pairs);
            return NULL;
         }
         pairs = more;
         cap *= 2;
      }
      pairs[n++] = (uint64_t)k << 32 | unit[ed->ctx];
   }
   free(unit);
   qsort(pairs, n, sizeof *pairs, cmp_pair);
   size_t u = 0;
   for (size_t i = 0; i < n; i++)
      if (u == 0 || pairs[i] != pairs[u - 1])
         pairs[u++] = pairs[i];
   *np = u;
   return pairs;
}

/* part_graph_bound_calls over the groups that pairs[0..n) name. */
static int bound_calls(part_graph *g, const trace_file *t, const uint64_t *pairs, size_t n)
{
   const uint8_t *scope = g->scope;
   uint32_t *mark = calloc(t->ncontexts ? t->ncontexts : 1, sizeof *mark);
   if (!mark)
      return -1;
   for (size_t i = 0; i < n;) {
      uint32_t k = (uint32_t)(pairs[i] >> 32);
      size_t j = i;
      for (; j < n && pairs[j] >> 32 == k; j++)
         mark[(uint32_t)pairs[j]] = k + 1;
      /* A unit inside another of the group's units is part of its runs
       * (a row loop inside the loop over rows). */
      uint64_t runs = 0, root_runs = 0;
      int bounded = 1;
      for (size_t m = i; m < j; m++) {
         uint32_t u = (uint32_t)pairs[m];
         if (!scope[u]) {
            bounded = 0;   /* a link made above the scope: no bound */
            break;
         }
         if (scope_root(t, scope, u)) {
            root_runs += unit_runs(t, scope, u);
            continue;
         }
         int inside = 0;
         for (uint32_t a = t->contexts[u].parent;
              a != CATS_NONE && !scope_root(t, scope, a) && !inside;
              a = t->contexts[a].parent)
            inside = mark[a] == k + 1;
         if (!inside)
            runs += unit_runs(t, scope, u);
      }
      /* Links made in the scope's own body after reductions in its loops
       * (alpha = rr / dot(p, Ap)) finish those reductions. */
      if (runs == 0)
         runs = root_runs;
      if (bounded && runs > 0 && runs < g->calls[k])
         g->calls[k] = runs;
      for (size_t m = i; m < j; m++)
         mark[(uint32_t)pairs[m]] = 0;
      i = j;
   }
   free(mark);
   return 0;
}

int part_graph_bound_calls(part_graph *g, const trace_file *t)
{
   if (!g->scope || g->ng == 0)
      return 0;
   size_t n = 0;
   uint64_t *pairs = group_units(g, t, NULL, &n);
   int rc = pairs ? bound_calls(g, t, pairs, n) : -1;
   free(pairs);
   return rc;
}

static int has_pair(const uint64_t *pairs, size_t n, uint64_t key)
{
   return bsearch(&key, pairs, n, sizeof *pairs, cmp_pair) != NULL;
}

/* The first of the sorted pairs whose group is k (n if none). */
static size_t first_pair(const uint64_t *pairs, size_t n, uint32_t k)
{
   size_t lo = 0, hi = n;
   while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      if (pairs[mid] >> 32 < k)
         lo = mid + 1;
      else
         hi = mid;
   }
   return lo;
}

#define PART_GRAPH_PARTIAL_DEPTH 64

/* A partial reduction feeds only another reduction made in its loops:
 * it counts no calls of its own. */
static int merge_partials(part_graph *g, const trace_file *t, const uint8_t *role,
                          const uint64_t *pairs, size_t n)
{
   const trace_vcg *vcg = &t->vcg;
   const uint32_t none = UINT32_MAX, many = UINT32_MAX - 1;
   uint32_t *into = malloc((size_t)g->ng * sizeof *into);
   if (!into)
      return -1;
   for (uint32_t k = 0; k < g->ng; k++)
      into[k] = none;
   for (uint32_t e = 0; e < vcg->nedges; e++) {
      const trace_vcg_edge *ed = &vcg->edges[e];
      uint32_t a = g->group[ed->src], b = g->group[ed->dst];
      if (a == b || !part_edge_in_scope(ed, g->scope))
         continue;
      into[a] = into[a] == none || into[a] == b ? b : many;
   }
   for (uint32_t k = 0; k < g->ng; k++) {
      uint32_t h = into[k];
      int partial = role[k] == PART_GRAPH_REDUCTION && h < many &&
                    role[h] == PART_GRAPH_REDUCTION;
      size_t i = partial ? first_pair(pairs, n, k) : n;
      for (; partial && i < n && pairs[i] >> 32 == k; i++)
         partial = has_pair(pairs, n, (uint64_t)h << 32 | (uint32_t)pairs[i]);
      if (!partial)
         into[k] = none;
   }
   /* Each partial whose line of partials ends at a reduction that is not
    * one counts no call of its own (a cycle of partials, or a line longer
    * than any sum of sums, keeps its calls). */
   for (uint32_t k = 0; k < g->ng; k++) {
      uint32_t h = k, steps = 0;
      while (into[h] != none && steps++ < PART_GRAPH_PARTIAL_DEPTH)
         h = into[h];
      if (h != k && into[h] == none)
         g->calls[k] = 0;
   }
   free(into);
   return 0;
}

int part_graph_settle_calls(part_graph *g, const trace_file *t, const uint8_t *role)
{
   if (!g->scope || g->ng == 0)
      return 0;
   size_t n = 0;
   uint64_t *pairs = group_units(g, t, role, &n);
   int rc = !pairs || bound_calls(g, t, pairs, n) != 0 ||
                  merge_partials(g, t, role, pairs, n) != 0
               ? -1
               : 0;
   free(pairs);
   return rc;
}

void part_graph_free(part_graph *g)
{
   free(g->group);
   free(g->xadj);
   free(g->adj);
   free(g->adjw);
   free(g->dir);
   free(g->weight);
   free(g->size);
   free(g->versions);
   free(g->calls);
   free(g->members);
   free(g->written);
   memset(g, 0, sizeof *g);
}

int part_graph_adjacent(const part_graph *g, uint32_t a, uint32_t b)
{
   for (uint64_t i = g->xadj[a]; i < g->xadj[a + 1]; i++)
      if (g->adj[i] == b)
         return 1;
   return 0;
}
