/* SPDX-License-Identifier: GPL-2.0-or-later */
/* part_comm.h: communication of a value decomposition (paper 003,
 * Algorithm 4), owner computes.
 *
 * Every VCG edge whose ends lie on different ranks moves its source's
 * value to the sink's rank. Redundant transfers are pruned: a source
 * vertex reaches a rank once per version, so the bytes from source v to
 * rank r are size(v) x the most distinct versions of v any sink on r
 * consumed. Singletons move by collectives instead (the bytes-moved model
 * of docs/COMM-JSON.md). */
#ifndef CATS_PARTITION_PART_COMM_H
#define CATS_PARTITION_PART_COMM_H

#include <stdint.h>

#include "cats/trace/trace.h"
#include "part_graph.h"
#include "part_grid.h"

enum part_comm_coll { PART_COMM_BROADCAST = 0, PART_COMM_REDUCE, PART_COMM_ALLREDUCE, PART_COMM_NCOLL };

typedef struct part_comm_cost {
   double alpha;           /* seconds per message */
   double beta;            /* seconds per byte */
} part_comm_cost;

typedef struct part_comm_result {
   uint32_t nranks;
   uint64_t *matrix;       /* [n*n] bytes rank i sends to rank j */
   uint64_t *rounds;       /* [n*n] messages i->j: most versions of one value */
   uint64_t coll_calls[PART_COMM_NCOLL];
   uint64_t coll_bytes[PART_COMM_NCOLL];
   uint64_t p2p_bytes;
   uint64_t coll_total;
   uint64_t max_rank_bytes;   /* most bytes one rank sends point-to-point */
   uint32_t max_neighbours;   /* most ranks one rank exchanges with */
   double avg_neighbours;
   double time_estimate;      /* alpha-beta model, seconds */
   double imbalance;          /* heaviest rank's computation / average */
   uint64_t cut;              /* partitioner's edge cut (uses) */
   int method;                /* enum part_metis_method used */
   uint32_t dealt;            /* values dealt round-robin (part_metis_result) */
   part_grid grid;            /* the process grid of a structured
                                 decomposition; all 0 for METIS's parts */
   /* The decompositions tried and their bytes (point-to-point and
    * collective), the chosen one among them; f all 0 is METIS's. Not
    * kept in section 8. */
   uint32_t ncand;
   part_grid cand[PART_GRID_MAX_CANDIDATES + 1];
   uint64_t cand_bytes[PART_GRID_MAX_CANDIDATES + 1];
   uint32_t *vertex_part;     /* [nvertices] rank of each VCG vertex (kept
                                 on request; UINT32_MAX for singletons) */
} part_comm_result;

/* Bytes one collective call of `type` with per-rank payload `s` moves
 * among n ranks (docs/COMM-JSON.md). */
uint64_t part_comm_coll_bytes(int type, uint64_t s, uint32_t n);
const char *part_comm_coll_name(int type);

/* What the communication of any decomposition of g's groups needs of
 * the graph, found once per projection: the edges that move their
 * source's value when their groups lie on different ranks, and the
 * singletons whose collective calls count. skind[g] is the
 * part_singleton_kind of each group; tail[g] (or NULL) the chain whose
 * tail it is (part_singleton.h): its edges to the chain's readers move
 * nothing. With scope non-NULL only edges
 * whose context is in scope count, and only singletons written in
 * scope. With setup_outside as well, values the scope only reads (never
 * computes: coefficients, a mesh's geometry) and reads more than once
 * move nothing: a time loop's code sets them up with their ghost copies
 * before the loop, outside the iterations it is measured per. The plan
 * points to vcg, g and skind, which must outlive it. 0, or -1 out of
 * memory. */
typedef struct part_comm_edge {
   uint32_t gd;            /* the sink's group */
   uint32_t versions;      /* of the sink made from the source */
} part_comm_edge;

/* A source vertex and its edges, edges[first .. the next source's). */
typedef struct part_comm_source {
   uint32_t src;           /* VCG vertex */
   uint32_t gs;            /* its group */
   uint64_t first;
} part_comm_source;

typedef struct part_comm_plan {
   const trace_vcg *vcg;
   const part_graph *g;
   const uint8_t *skind;
   part_comm_source *sources;   /* [nsources + 1], by vertex; the last
                                   one's first is nedges */
   size_t nsources;
   part_comm_edge *edges;
   size_t nedges;
   uint8_t *coll_counts;   /* [ng] 1: a singleton whose calls count */
} part_comm_plan;

int part_comm_plan_build(part_comm_plan *p, const trace_vcg *vcg, const part_graph *g,
                         const uint8_t *skind, const uint32_t *tail, const uint8_t *scope,
                         int setup_outside);
void part_comm_plan_free(part_comm_plan *p);

/* Fill r (allocating its matrices) for the decomposition part[] of the
 * plan's groups over n ranks. 0, or -1 out of memory. */
int part_comm_compute(const part_comm_plan *p, const uint32_t *part, uint32_t n,
                      const part_comm_cost *cost, part_comm_result *r);
/* part_comm_compute for m decompositions part[0 .. m) of the same rank
 * count at once into r[0 .. m): the plan's edges are read once. */
int part_comm_compute_many(const part_comm_plan *p, const uint32_t *const *part, uint32_t m,
                           uint32_t n, const part_comm_cost *cost, part_comm_result *r);
void part_comm_result_free(part_comm_result *r);

/* Recompute the totals, neighbours and time estimate from the matrices
 * and collectives (a projection read back from a trace). */
void part_comm_totals(part_comm_result *r, const part_comm_cost *cost);

#endif /* CATS_PARTITION_PART_COMM_H */
