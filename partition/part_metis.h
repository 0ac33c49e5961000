/* SPDX-License-Identifier: GPL-2.0-or-later */
/* part_metis.h: value decomposition with METIS (paper 003, §4.2.2).
 *
 * The graph METIS sees holds the groups that are neither singletons nor
 * isolated: vertex weights are computation, edge weights are uses, both
 * scaled down together when their sums would overflow METIS's 32-bit
 * integers. Isolated groups carry no communication and are dealt round
 * robin. */
#ifndef CATS_PARTITION_PART_METIS_H
#define CATS_PARTITION_PART_METIS_H

#include <stddef.h>
#include <stdint.h>

#include "part_graph.h"

enum part_metis_method {
   PART_METIS_KWAY = 0,    /* multilevel k-way, minimising the edge cut */
   PART_METIS_RB,          /* multilevel recursive bisection */
   PART_METIS_BEST,        /* every method; the projection keeps the one whose
                      communication is smallest (part_project.c) */
   PART_METIS_VOLUME,      /* k-way minimising METIS's communication volume */
   PART_METIS_NMETHODS
};

/* Whether METIS is asked for contiguous parts (only ever when the graph
 * is connected): auto asks unless the graph is dense (part_metis_graph_dense). */
enum part_metis_contig { PART_METIS_CONTIG_NO = 0, PART_METIS_CONTIG_YES, PART_METIS_CONTIG_AUTO };

typedef struct part_metis_options {
   int method;             /* enum part_metis_method */
   int seed;               /* METIS_OPTION_SEED: same seed, same parts */
   int ufactor;            /* allowed imbalance in 1/1000 (30 = 3%) */
   int contig;             /* enum part_metis_contig */
   int tries;              /* partitionings to keep the best of; 0: by size */
} part_metis_options;

typedef struct part_metis_graph part_metis_graph;

/* Build METIS's CSR from the group graph minus singletons (kind != 0),
 * plus the layout pairs (part_layout.h; may be NULL) between groups that
 * have value-flow edges. NULL when out of memory. */
struct part_layout_pairs;
part_metis_graph *part_metis_graph_build(const part_graph *g, const uint8_t *singleton,
                                         const struct part_layout_pairs *pairs);
void part_metis_graph_free(part_metis_graph *m);

/* Vertices and undirected edges METIS is given. */
uint64_t part_metis_graph_edges(const part_metis_graph *m);
int part_metis_graph_connected(const part_metis_graph *m);

/* Whether the graph is so dense that METIS's contiguity enforcement and
 * its volume objective, whose refinement walks each moved vertex's
 * neighbours' neighbours, would take minutes: a dense matrix product's
 * graph, where every element of a row meets every element of a column.
 * The work is estimated as V * d^2 = 4E^2/V for average degree d. */
int part_metis_graph_dense(const part_metis_graph *m);

/* The methods PART_METIS_BEST tries, into methods[3]; returns how many: k-way,
 * k-way volume (not for a dense graph) and recursive bisection. */
int part_metis_best_methods(const part_metis_graph *m, int *methods);

typedef struct part_metis_result {
   uint64_t cut;           /* edge cut in original uses */
   int method;             /* the method whose parts were kept */
   int contiguous;         /* contiguity was asked for and given */
   uint32_t dealt;         /* values dealt round-robin because there were
                              no more of them than parts (METIS needs
                              more); 0 when METIS partitioned */
} part_metis_result;

/* part[k] for every group k of the part_graph the part_metis_graph was built from
 * (singletons get UINT32_MAX), by o->method (not PART_METIS_BEST). 0 on success;
 * -1 with a message. */
int part_metis_partition(const part_metis_graph *m, uint32_t nparts, const part_metis_options *o,
                         uint32_t *part, part_metis_result *res, char *err, size_t errlen);

#endif /* CATS_PARTITION_PART_METIS_H */
