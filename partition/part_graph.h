/* part_graph.h: the value communication graph as the partitioner sees it.
 *
 * The directed, per-context VCG of a trace becomes an undirected graph of
 * *groups*. A group is one vertex, except that register intermediates made
 * at the same code location and linked by an edge form one group: the tool
 * caps source sets, so a reduction arrives as a chain of intermediates,
 * and only the whole chain is the one value the paper's singleton
 * detection expects (a norm with an edge from every element). */
#ifndef CATS_PART_GRAPH_H
#define CATS_PART_GRAPH_H

#include <stdint.h>

#include "../cats/host/trace_read.h"

#define PG_IN  1u   /* a group with an edge from another group */
#define PG_OUT 2u   /* a group with an edge to another group */

typedef struct pg_graph {
   uint32_t nv;            /* VCG vertices */
   uint32_t ng;            /* groups */
   uint32_t *group;        /* [nv] vertex -> group */
   /* Undirected adjacency between distinct groups (CSR, rows unsorted). */
   uint64_t *xadj;         /* [ng + 1] */
   uint32_t *adj;          /* [xadj[ng]] neighbour groups */
   uint64_t *adjw;         /* [xadj[ng]] uses summed over both directions */
   uint8_t *dir;           /* [ng] PG_IN | PG_OUT */
   uint64_t *weight;       /* [ng] computation of the members */
   uint32_t *size;         /* [ng] bytes of the largest member */
   uint64_t *versions;     /* [ng] most versions of a member */
   uint32_t *members;      /* [ng] member count */
   uint8_t *written;       /* [ng] 1 when a member was ever written */
   const uint8_t *scope;   /* borrowed: contexts whose edges count, or NULL */
} pg_graph;

/* Whether a VCG edge is part of g (made in its scope). */
static inline int pg_counts(const pg_graph *g, const ctr_vcg_edge *e)
{
   return !g->scope || (e->ctx != CATS_NONE && g->scope[e->ctx]);
}

/* Build from a trace's VCG. With scope non-NULL only the edges made in a
 * context with scope[ctx] set count: the values of the loop a projection
 * is taken per iteration of, without the start-up code's. 0, or -1 when
 * out of memory. */
int pg_build(const ctr_vcg *vcg, const uint8_t *scope, pg_graph *g);
void pg_free(pg_graph *g);

#endif /* CATS_PART_GRAPH_H */
