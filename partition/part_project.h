/* SPDX-License-Identifier: GPL-2.0-or-later */
/* part_project.h: the communication projection of a trace for a list of
 * rank counts (paper 003, §4.2): groups, singletons, one METIS partition
 * per rank count, communication per iteration of the chosen region.
 *
 * Deterministic: the same trace and options give the same bytes. */
#ifndef CATS_PARTITION_PART_PROJECT_H
#define CATS_PARTITION_PART_PROJECT_H

#include <stddef.h>
#include <stdint.h>

#include "cats/trace/trace.h"
#include "part_comm.h"
#include "part_grid.h"
#include "part_metis.h"
#include "part_region.h"
#include "part_singleton.h"

#define PART_PROJECT_MAX_RANKS 64          /* rank counts in one projection */
#define PART_PROJECT_MAX_N     (1u << 16)  /* largest rank count */

/* Which decomposition a rank count gets (docs/PROJECTION.md). */
enum part_project_decomp {
   PART_DECOMP_AUTO = 0,   /* the cheapest grid when the arrays are regular,
                              else METIS's parts */
   PART_DECOMP_METIS,      /* METIS's parts */
   PART_DECOMP_GRID,       /* the cheapest grid */
   PART_DECOMP_N
};

/* part_comm_result.method of a structured decomposition. */
#define PART_PROJECT_GRID PART_METIS_NMETHODS

typedef struct part_project_options {
   uint32_t ranks[PART_PROJECT_MAX_RANKS];
   uint32_t nranks;
   double threshold;       /* singleton score threshold (0.9) */
   part_metis_options metis;
   part_comm_cost cost;
   const char *per;        /* NULL automatic, "run", a name or FILE:LINE */
   int keep_parts;         /* fill part_comm_result.vertex_part */
   int decomp;             /* enum part_project_decomp */
   part_grid named[PART_PROJECT_MAX_RANKS];   /* --grid: the grid of its
                                                 rank count */
   uint32_t nnamed;
} part_project_options;

typedef struct part_project_singleton {
   uint32_t vertex;        /* first member (VCG vertex index) */
   uint32_t members;       /* vertices in its group */
   uint32_t kind;          /* enum part_singleton_kind */
   uint64_t degree;        /* neighbouring groups */
   uint64_t versions;      /* most versions of a member */
} part_project_singleton;

typedef struct part_projection {
   part_project_options opts;        /* as used; opts.per points to per_spec */
   char per_spec[PART_REGION_NAMELEN];  /* --per as given; "" for automatic */
   part_region region;       /* scope; region.scope freed by part_project_free */
   part_singleton_summary singletons;
   part_project_singleton *slist;    /* the singletons (not stored in section 8) */
   uint32_t nslist;
   uint32_t groups;        /* groups in the graph */
   /* The arrays' shapes (part_grid.h): uses of array values in scope,
    * of which of regular arrays, and their most dimensions. */
   uint64_t array_uses, direct_uses;
   uint32_t maxdims;
   uint32_t nresults;
   part_comm_result results[PART_PROJECT_MAX_RANKS];
} part_projection;

void part_project_defaults(part_project_options *o);

/* Parse "2,4,8" into o->ranks. -1 with a message on a bad list. */
int part_project_parse_ranks(const char *s, part_project_options *o, char *err, size_t errlen);

/* Set one option by name, as the tool and `cats project` spell it:
 * ranks=LIST, per=NAME|FILE:LINE|run, singleton-threshold=X (0..1],
 * partitioner=kway|rb|best, decomposition=auto|metis|grid, grid=AxB[,...],
 * seed=N, tries=N (1-100), imbalance=X (allowed load ratio,
 * >= 1.001), contig=yes|no|auto, alpha=SECONDS, beta=SECONDS_PER_BYTE.
 * Returns 1 when the name is not a projection option, 0 when set, -1 with
 * a message for a bad value. `per` keeps a pointer to value. */
int part_project_set_option(part_project_options *o, const char *name, const char *value,
                            char *err, size_t errlen);

/* -1 with a message: no VCG in the trace, unknown --per, out of memory,
 * METIS failure. */
int part_project(const trace_file *t, const part_project_options *o, part_projection *p,
                 char *err, size_t errlen);
void part_project_free(part_projection *p);

#endif /* CATS_PARTITION_PART_PROJECT_H */
