/* part_metis.h: value decomposition with METIS (paper 003, §4.2.2).
 *
 * The graph METIS sees holds the groups that are neither singletons nor
 * isolated: vertex weights are computation, edge weights are uses, both
 * scaled down together when their sums would overflow METIS's 32-bit
 * integers. Isolated groups carry no communication and are dealt round
 * robin. */
#ifndef CATS_PART_METIS_H
#define CATS_PART_METIS_H

#include <stddef.h>
#include <stdint.h>

#include "part_graph.h"

enum pm_method {
   PM_KWAY = 0,    /* multilevel k-way, minimising the edge cut */
   PM_RB,          /* multilevel recursive bisection */
   PM_BEST,        /* every method; the projection keeps the one whose
                      communication is smallest (part_project.c) */
   PM_VOLUME,      /* k-way minimising METIS's communication volume */
   PM_NMETHODS
};

/* Whether METIS is asked for contiguous parts (only ever when the graph
 * is connected): auto asks unless the graph is dense (pm_graph_dense). */
enum pm_contig { PM_CONTIG_NO = 0, PM_CONTIG_YES, PM_CONTIG_AUTO };

typedef struct pm_options {
   int method;             /* enum pm_method */
   int seed;               /* METIS_OPTION_SEED: same seed, same parts */
   int ufactor;            /* allowed imbalance in 1/1000 (30 = 3%) */
   int contig;             /* enum pm_contig */
   int tries;              /* partitionings to keep the best of; 0: by size */
} pm_options;

typedef struct pm_graph pm_graph;

/* Build METIS's CSR from the group graph minus singletons (kind != 0),
 * plus the layout pairs (part_layout.h; may be NULL) between groups that
 * have value-flow edges. NULL when out of memory. */
struct pl_pairs;
pm_graph *pm_graph_build(const pg_graph *g, const uint8_t *singleton,
                         const struct pl_pairs *pairs);
void pm_graph_free(pm_graph *m);

/* Vertices and undirected edges METIS is given. */
uint32_t pm_graph_vertices(const pm_graph *m);
uint64_t pm_graph_edges(const pm_graph *m);
int pm_graph_connected(const pm_graph *m);

/* Whether the graph is so dense that METIS's contiguity enforcement and
 * its volume objective, whose refinement walks each moved vertex's
 * neighbours' neighbours, would take minutes: a dense matrix product's
 * graph, where every element of a row meets every element of a column.
 * The work is estimated as V * d^2 = 4E^2/V for average degree d. */
int pm_graph_dense(const pm_graph *m);

/* The methods PM_BEST tries, into methods[3]; returns how many: k-way,
 * k-way volume (not for a dense graph) and recursive bisection. */
int pm_best_methods(const pm_graph *m, int *methods);

typedef struct pm_result {
   uint64_t cut;           /* edge cut in original uses */
   int method;             /* the method whose parts were kept */
   int contiguous;         /* contiguity was asked for and given */
} pm_result;

/* part[k] for every group k of the pg_graph the pm_graph was built from
 * (singletons get UINT32_MAX), by o->method (not PM_BEST). 0 on success;
 * -1 with a message. */
int pm_partition(const pm_graph *m, uint32_t nparts, const pm_options *o,
                 uint32_t *part, pm_result *res, char *err, size_t errlen);

#endif /* CATS_PART_METIS_H */
