/* SPDX-License-Identifier: GPL-2.0-or-later */
/* part_singleton.h: singleton detection (paper 003, Algorithm 3).
 *
 * A singleton is a value nearly everything reads (a parameter, a time
 * step) or that nearly everything feeds (a norm, an error). An SPMD code
 * keeps a copy on every rank and moves it with a collective, so it leaves
 * the graph before partitioning. */
#ifndef CATS_PARTITION_PART_SINGLETON_H
#define CATS_PARTITION_PART_SINGLETON_H

#include <stdint.h>

#include "part_graph.h"

/* A singleton's collective follows its edges. Computed from values that
 * are not singletons (spread over the ranks) and read by anything: an
 * allreduce; read by nothing: a reduce. Not computed from such values:
 * a broadcast when it is an input or made from constants, and nothing
 * when it is computed from other singletons, which every rank holds
 * already (a norm taken of an allreduced sum). */
enum part_singleton_kind {
   PART_SINGLETON_NONE = 0,
   PART_SINGLETON_BROADCAST,   /* read by many, made from nothing the ranks hold */
   PART_SINGLETON_REDUCE,      /* computed from many, read by none */
   PART_SINGLETON_ALLREDUCE,   /* computed from many and read by many */
   PART_SINGLETON_REPLICATED,  /* computed on every rank from other singletons */
   PART_SINGLETON_NKINDS
};

typedef struct part_singleton_summary {
   double centroid;        /* min(mean, median) degree of computed groups */
   uint32_t connected;     /* groups with at least one neighbour */
   uint32_t count[PART_SINGLETON_NKINDS];  /* groups per part_singleton_kind */
} part_singleton_summary;

/* Arrays of at least this many connected groups have a typical degree of
 * their own that a singleton must stand out from. */
#define PART_SINGLETON_ARRAY 16

/* Fill kind[g] for every group (PART_SINGLETON_NONE for most) of g, built from vcg.
 * Degrees are per iteration of the region (iterations, 0 taken as 1): a
 * neighbour counts uses / iterations, at most 1. The centroid is taken
 * over computed groups (with an incoming edge), or over all connected
 * groups when there are none: unused constants or coefficients each read
 * once would pull it towards 0 or 1 and make every value read a few times
 * a singleton. A group's array is its container, or for register
 * intermediates the code location that made them; the distance score is
 * taken from the larger of the centroid and the median degree of the
 * group's array when that has at least PART_SINGLETON_ARRAY groups. A
 * reduction's tail (the last elements that every reader of its result
 * reads beside its chain) is not a singleton: tail[g] is its chain's
 * group, UINT32_MAX for every other group. 0, or -1 out of memory. */
int part_singleton_detect(const part_graph *g, const trace_vcg *vcg, double threshold,
                          uint64_t iterations, uint8_t *kind, uint32_t *tail,
                          part_singleton_summary *sum);

/* The score of one group given the centroid and connected count: the
 * larger of the distance score 1 - centroid/d and the density score
 * d / (connected - 1). Exposed for the tests. */
double part_singleton_score(double degree, double centroid, uint32_t connected);

const char *part_singleton_kind_name(int kind);

#endif /* CATS_PARTITION_PART_SINGLETON_H */
