/* SPDX-License-Identifier: GPL-2.0-or-later */
/* part_grid.h: structured decompositions, the blocks MPI programmers
 * write (docs/PROJECTION.md).
 *
 * Each container's index space is read from the trace: the strides of
 * its strided access records (affine over up to three loop levels) give
 * its row length and plane size in words, so a C array [nz][ny][nx] or
 * a Fortran array (nx, ny, nz) is three dimensions, slowest first. A
 * container whose records of two or more dimensions walk disjoint ranges
 * holds several arrays (a common block, a multigrid code's levels in one
 * allocation): each range, up to the next, is an array of its own, with
 * the shape its records show. A
 * process grid of up to three factors (g0 x g1 x g2 = ranks) then splits
 * the slowest dimensions of every array into blocks at the same
 * proportional boundaries (owner computes: element (i, j) of two arrays
 * of one shape lands on one rank; arrays of a cell and of a vertex grid,
 * one element longer, nearly so). A 1-D array whose values show a grid
 * (part_mesh.h: a mesh's vectors multiplied through a CSR matrix) has
 * that grid's shape. An array of fewer dimensions than the grid has
 * factors (the CSR matrix's values) goes where its values' neighbours
 * are, in ranks linear blocks where it has none. A value that is no
 * array's (a register intermediate) goes to the rank of the neighbour it
 * exchanges most uses with, a singleton (on every rank) aside, as does a
 * value of a container that no loop walks in scope (a scalar, a
 * library's state), and, word by word, a value of a container's words
 * that no walk of two or more dimensions reached (levels of a multigrid
 * array whose one record walked them all in turn: the values they are
 * computed from and read by show where they are). */
#ifndef CATS_PARTITION_PART_GRID_H
#define CATS_PARTITION_PART_GRID_H

#include <stddef.h>
#include <stdint.h>

#include "cats/trace/trace.h"
#include "part_graph.h"

#define PART_GRID_MAXD 3          /* grid factors and array dimensions */
#define PART_GRID_MAX_CANDIDATES 16

/* A process grid: factors for an array's slowest, next and fastest
 * dimension; 0 ends a grid of fewer factors ({8,0,0} is 1-D). */
typedef struct part_grid {
   uint32_t f[PART_GRID_MAXD];
} part_grid;

typedef struct part_grid_shape {
   uint8_t ndims;              /* 1..3 */
   uint8_t regular;            /* accessed mostly not through loaded
                                  indices */
   uint8_t blocked;            /* walked by a loop in scope (a strided
                                  record): an array to cut into blocks;
                                  the others (scalars, a library's data)
                                  go with their values' neighbours */
   uint64_t dim[PART_GRID_MAXD];   /* words per dimension, slowest first */
} part_grid_shape;

/* One of several arrays that share a container (a Fortran common block,
 * a multigrid code's levels in one allocation): the words from `start`
 * to the next segment's, word `origin` its index 0. */
typedef struct part_grid_seg {
   uint64_t start, origin;
   part_grid_shape shape;
   uint8_t unshaped;   /* words no walk of two or more dimensions reached */
} part_grid_seg;

typedef struct part_grid_info {
   uint32_t nallocs;
   part_grid_shape *shape;     /* [nallocs] */
   uint32_t maxdims;           /* most dimensions of a regular array read
                                  or written in scope */
   uint64_t array_uses;        /* uses in scope of values read from arrays */
   uint64_t direct_uses;       /* of which from regular arrays */
   /* Containers that hold several arrays: container a's segments are
    * seg[seg_first[a] .. seg_first[a + 1]), by start, none for a
    * container of one array; seg_first NULL: no container has any. */
   uint32_t *seg_first;        /* [nallocs + 1] */
   part_grid_seg *seg;
} part_grid_info;

/* Words of container a of t, at least 1 (word: the graph's word size). */
uint64_t part_grid_words(const trace_file *t, uint32_t a, uint32_t word);

/* Shapes of every container of t, and how regular the arrays read in
 * scope (NULL: anywhere) are. 0, or -1 when out of memory. */
int part_grid_analyse(const trace_file *t, const uint8_t *scope, part_grid_info *gi);
void part_grid_info_free(part_grid_info *gi);

/* Whether the arrays are regular enough for a structured decomposition
 * to be the default: they have two or three dimensions (METIS's parts of
 * a 1-D array's values are blocks too, and a CSR matrix's arrays, 1-D,
 * are no grid), and at most a quarter of the uses in scope read values
 * of arrays accessed through loaded indices (a CSR product's x[col[k]],
 * a particle code's neighbour lists). */
int part_grid_regular(const part_grid_info *gi);

/* The grids for n ranks over up to maxdims dimensions: the 1-D split;
 * for two and three dimensions every order of the most balanced
 * factorisation (MPI_Dims_create's) and the split of one dimension.
 * Returns how many were written to out (at most cap). */
uint32_t part_grid_candidates(uint32_t n, uint32_t maxdims, part_grid *out, uint32_t cap);

/* Parse "2x4" or "2x2x2" (factors slowest dimension first). -1 with a
 * message on a bad grid. */
int part_grid_parse(const char *s, part_grid *g, char *err, size_t errlen);

/* "2x4", or "" for no grid. */
void part_grid_format(const part_grid *g, char *buf, size_t len);

/* Ranks of the grid: the product of its factors (0 for no grid). */
uint32_t part_grid_ranks(const part_grid *g);

/* What a group is to grids of some number of factors. */
enum {
   PART_GRID_NONE = 0,      /* no memory vertex: goes with its neighbours */
   PART_GRID_BLOCK = 1,     /* an array's block: its rep decides its rank */
   PART_GRID_OTHER = 2,     /* memory no loop walks in scope */
   PART_GRID_FALLBACK = 3   /* an unshaped array's word: its rep decides
                               its rank when its neighbours do not */
};

#define PART_GRID_PASSES 4   /* of owner computes: chains of register values */

typedef struct part_grid_change {
   uint32_t unit, was, lead;
} part_grid_change;

/* The groups as grids of one number of factors see them
 * (part_grid_assign.c). */
typedef struct part_grid_follow {
   int ready;
   uint8_t *kind;              /* [ng] */
   uint32_t *rep;              /* [ng] the vertex that decides */
   uint32_t *unit;             /* [ng] memory that moves as one */
   uint32_t *others;           /* the groups not of kind BLOCK */
   uint32_t nothers;
   uint32_t *lead;             /* [ng] the group a unit follows */
   part_grid_change *change;   /* the leads' changes in later passes */
   size_t nchanges, first[PART_GRID_PASSES - 1], nchange[PART_GRID_PASSES - 1];
} part_grid_follow;

/* What assigning groups to grids needs, found once per graph and number
 * of grid factors; it points to t, g, gi and skind (each group's
 * part_singleton_kind: a singleton, on every rank, pulls no value to its
 * rank), which must outlive it. */
typedef struct part_grid_groups {
   const trace_file *t;
   const part_graph *g;
   const part_grid_info *gi;
   const uint8_t *skind;
   part_grid_follow follow[PART_GRID_MAXD];
   uint32_t *to;               /* [ng] scratch */
} part_grid_groups;

/* 0, or -1 when out of memory. */
int part_grid_groups_init(part_grid_groups *gg, const trace_file *t, const part_graph *g,
                          const part_grid_info *gi, const uint8_t *skind);
void part_grid_groups_free(part_grid_groups *gg);

/* part[k] for every group of the graph by the grid (n = its ranks). 0,
 * or -1 when out of memory. */
int part_grid_assign(part_grid_groups *gg, const part_grid *grid, uint32_t n, uint32_t *part);

#endif /* CATS_PARTITION_PART_GRID_H */
