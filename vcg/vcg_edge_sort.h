/* SPDX-License-Identifier: GPL-2.0-or-later */
/* vcg_edge_sort.h: sorting a finished graph's edges.
 *
 * At the end of a run the guest waits while the helper orders the edges,
 * millions of them in a large graph, so the sort is parallel. */
#ifndef VCG_EDGE_SORT_H
#define VCG_EDGE_SORT_H

#include <stddef.h>
#include <stdint.h>

#include "vcg_build.h"

/* Edges above this many are sorted on two threads. */
#define VCG_EDGE_SORT_PARALLEL_ABOVE (1u << 20)

/* Sort e[0..n), edges between nv vertices with unique (src, dst, ctx),
 * by (src, dst, ctx), in place. */
void vcg_edge_sort(vcg_edge *e, size_t n, uint32_t nv);

#endif /* VCG_EDGE_SORT_H */
