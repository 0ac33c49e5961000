/* SPDX-License-Identifier: GPL-2.0-or-later */
/* part_graph.h: the value communication graph as the partitioner sees it.
 *
 * The directed, per-context VCG of a trace becomes an undirected graph of
 * *groups*. A group is one vertex, except that register intermediates made
 * at the same code location and linked by an edge form one group: the tool
 * caps source sets, so a reduction arrives as a chain of intermediates,
 * and only the whole chain is the one value the paper's singleton
 * detection expects (a norm with an edge from every element). */
#ifndef CATS_PARTITION_PART_GRAPH_H
#define CATS_PARTITION_PART_GRAPH_H

#include <stdint.h>

#include "cats/trace/trace.h"

#define PART_GRAPH_IN  1u   /* a group with an edge from another group */
#define PART_GRAPH_OUT 2u   /* a group with an edge to another group */

typedef struct part_graph {
   uint32_t nv;            /* VCG vertices */
   uint32_t ng;            /* groups */
   uint32_t *group;        /* [nv] vertex -> group */
   /* Undirected adjacency between distinct groups (CSR, rows unsorted). */
   uint64_t *xadj;         /* [ng + 1] */
   uint32_t *adj;          /* [xadj[ng]] neighbour groups */
   uint64_t *adjw;         /* [xadj[ng]] uses summed over both directions */
   uint8_t *dir;           /* [ng] PART_GRAPH_IN | PART_GRAPH_OUT */
   uint64_t *weight;       /* [ng] computation of the members */
   uint32_t *size;         /* [ng] bytes of the largest member */
   uint64_t *versions;     /* [ng] most versions of a member */
   uint64_t *calls;        /* [ng] times the group's value was made: a
                              reduction chain's starts' versions summed */
   uint32_t *members;      /* [ng] member count */
   uint8_t *written;       /* [ng] 1 when a member was ever written */
   const uint8_t *scope;   /* borrowed: contexts whose edges count, or NULL */
} part_graph;

/* Union-find over up[] (up[x] == x for a root), with path halving. */
static inline uint32_t part_graph_uf_find(uint32_t *up, uint32_t x)
{
   while (up[x] != x) {
      up[x] = up[up[x]];
      x = up[x];
   }
   return x;
}

/* Join the sets of a and b; the smaller root stays the root. */
static inline void part_graph_uf_union(uint32_t *up, uint32_t a, uint32_t b)
{
   a = part_graph_uf_find(up, a);
   b = part_graph_uf_find(up, b);
   if (a != b)
      up[a > b ? a : b] = a < b ? a : b;
}

/* Whether a VCG edge is part of g (made in its scope). */
static inline int part_graph_counts(const part_graph *g, const trace_vcg_edge *e)
{
   return !g->scope || (e->ctx != CATS_NONE && g->scope[e->ctx]);
}

/* Build from a trace's VCG. With scope non-NULL only the edges made in a
 * context with scope[ctx] set count: the values of the loop a projection
 * is taken per iteration of, without the start-up code's. 0, or -1 when
 * out of memory. */
int part_graph_build(const trace_vcg *vcg, const uint8_t *scope, part_graph *g);

/* Bound each group's calls in g's scope by the times its values' loops
 * were entered. A minimum whose inner candidates are made at its own
 * line (m = MIN(m, MIN(a, b))) starts a chain at every candidate, and
 * each start counted as a call: CloverLeaf's time-step minimum gave
 * 33,710 allreduce calls a step. The reduction ends once per entry of
 * the outermost loop (or function) in which its links were made; a
 * link made in the scope's own body, once per iteration of the scope.
 * 0, or -1 when out of memory (g unchanged). */
int part_graph_bound_calls(part_graph *g, const trace_file *t);

/* What a group is to the collectives (part_graph_settle_calls). */
enum { PART_GRAPH_LOCAL = 0, PART_GRAPH_COLLECTIVE = 1, PART_GRAPH_REDUCTION = 2 };

/* The calls of the collective groups (role[k] set; the others' calls are
 * not used): part_graph_bound_calls, then a reduction taken in partial
 * sums (an unrolled or vectorised loop's s0 .. s3, added after the loop)
 * is one collective: a reduction group whose values in g's scope go only
 * into one other reduction group, made in the same loops, counts no
 * calls of its own. 0, or -1 when out of memory. */
int part_graph_settle_calls(part_graph *g, const trace_file *t, const uint8_t *role);
void part_graph_free(part_graph *g);

/* Is group b one of group a's neighbours? A scan of a's row. */
int part_graph_adjacent(const part_graph *g, uint32_t a, uint32_t b);

#endif /* CATS_PARTITION_PART_GRAPH_H */
