/* SPDX-License-Identifier: GPL-2.0-or-later */
/* part_mesh.h: the grid behind a 1-D array, read from its values.
 *
 * A structured mesh stored as a vector (a finite-element code's nodal
 * values, multiplied by a CSR matrix through its column indices; a grid
 * flattened into one loop) shows one dimension in its access records,
 * but its values show the grid: each value of the product is made from
 * the input's values at index distances 1, nx and nx * ny (and their
 * sums, for a 27-point operator). Those distances, clustered, are the
 * strides of the grid, slowest dimension last; the array's length over
 * the widest stride is its slowest dimension (docs/PROJECTION.md). */
#ifndef CATS_PARTITION_PART_MESH_H
#define CATS_PARTITION_PART_MESH_H

#include <stdint.h>

#include "cats/trace/trace.h"
#include "part_grid.h"

/* Gives every array of gi whose values in scope (NULL: anywhere) are
 * made from values of an array of its length at such distances the
 * grid's shape, where that grid has more dimensions than its records
 * showed, or other rows (a vector loop's two 16-byte stores 32 bytes
 * apart taken for rows of four words), and the same shape to every other
 * array of that length walked in scope whose records disagree with it
 * the same way (the solver's other vectors); the first count as regular. A
 * register intermediate (a link of a row's sum) stands for the memory
 * value its chain ends in. 0, or -1 when out of memory. */
int part_mesh_shapes(const trace_file *t, const uint8_t *scope, part_grid_info *gi);

/* The strides of a grid from the distances seen between a value and
 * its sources: dist[0..n) distinct and ascending, count[i] how often
 * dist[i] was seen, `other` how many more were seen at distances not
 * listed. Distances seen less than once in a hundred are noise, but may
 * be at most a tenth of all. Fills stride[0..k), fastest
 * first (stride[0] = 1), and returns k (2 or 3), or 0 when the distances
 * are not a grid's. Exposed for the unit tests. */
uint32_t part_mesh_strides(const uint64_t *dist, const uint64_t *count, uint32_t n,
                           uint64_t other, uint64_t stride[PART_GRID_MAXD]);

#endif /* CATS_PARTITION_PART_MESH_H */
