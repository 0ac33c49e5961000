/* SPDX-License-Identifier: GPL-2.0-or-later */
/* part_layout.h: data-layout affinity for the partitioner.
 *
 * A well-written MPI code distributes each array in blocks of its index
 * space. When the elements of an array never exchange values directly,
 * the value-flow graph does not show that shape: the elements of C in
 * C = A x B meet only through rows of A and columns of B, the inputs A and
 * B not at all, and METIS then spreads every row and column over all
 * ranks, which sends all of A and B everywhere. For such containers the
 * partitioner also sees an edge between two words when a write loop steps
 * from one to the other (+stride for every loop dimension of a strided
 * write record), weighing as much as an average value-flow edge.
 * Communication is still counted from value-flow edges only. */
#ifndef CATS_PARTITION_PART_LAYOUT_H
#define CATS_PARTITION_PART_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "cats/trace/trace.h"

#define PART_LAYOUT_MAX_STRIDES 4   /* per container */

typedef struct part_layout_pairs {
   uint32_t *a, *b;        /* VCG vertex indices */
   size_t n;
   uint64_t weight;        /* uses one pair weighs */
} part_layout_pairs;

/* The neighbour pairs of memory vertices of containers without value-flow
 * edges among their own words (in scope, when scope is not NULL). 0, or -1
 * when out of memory. */
int part_layout_build(const trace_file *t, const uint8_t *scope, part_layout_pairs *out);
void part_layout_free(part_layout_pairs *p);

#endif /* CATS_PARTITION_PART_LAYOUT_H */
