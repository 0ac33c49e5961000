/* SPDX-License-Identifier: GPL-2.0-or-later */
/* vcg_sort.h: stable radix sort of (u64 key, u32 value) pairs.
 *
 * The graph's millions of vertices and edges are ordered at the end of a
 * run while the guest waits; a comparison sort moving 40-byte records was
 * the largest part of that wait. Sorting keys with their record index and
 * permuting once is linear. */
#ifndef VCG_SORT_H
#define VCG_SORT_H

#include <stddef.h>
#include <stdint.h>

/* Sort key[0..n) ascending, carrying val along; equal keys keep their
 * order. 0, or -1 if out of memory (the arrays are then unchanged). */
int vcg_sort(uint64_t *key, uint32_t *val, size_t n);

#endif /* VCG_SORT_H */
