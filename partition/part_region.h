/* SPDX-License-Identifier: GPL-2.0-or-later */
/* part_region.h: what "per iteration" means for a projection.
 *
 * An MPI code's traffic is compared per time step, so a projection is
 * reported per iteration of a loop, function or region: the one the user
 * names (--per=NAME for a function or CATS region, --per=FILE:LINE for a
 * loop), or else the outermost region marked with CATS_REGION_BEGIN
 * that holds most of the work, failing that the time loop: of the loops
 * that repeat and re-make their values in many of their iterations, the
 * one with the most work (docs/PROJECTION.md). Its scope is the contexts
 * below it; without one, the program's contexts (trace_scope.h). */
#ifndef CATS_PARTITION_PART_REGION_H
#define CATS_PARTITION_PART_REGION_H

#include <stddef.h>
#include <stdint.h>

#include "cats/trace/trace.h"

#define PART_REGION_NAMELEN 256

typedef struct part_region {
   int found;              /* 0: whole run */
   int automatic;          /* chosen by the work heuristic */
   uint32_t ctx;           /* first matching context */
   uint32_t nmatched;      /* contexts matched (call paths) */
   uint64_t iterations;    /* summed over the matched contexts */
   char name[PART_REGION_NAMELEN];  /* "loop heat.c:42", "function step", ... */
   uint8_t *scope;         /* [ncontexts] 1 inside; NULL for every context
                              (a whole run without a main) */
} part_region;

/* per: NULL for the automatic choice, "run" for the whole run, else a
 * name or FILE:LINE. -1 with a message when a named region is not in the
 * trace or memory runs out. */
int part_region_select(const trace_file *t, const char *per, part_region *r, char *err,
                       size_t errlen);
void part_region_free(part_region *r);

/* Whether context ctx is in a scope (NULL: every context; CATS_NONE is
 * in none but that), and so an edge made there. */
static inline int part_ctx_in_scope(uint32_t ctx, const uint8_t *scope)
{
   return !scope || (ctx != CATS_NONE && scope[ctx]);
}

static inline int part_edge_in_scope(const trace_vcg_edge *e, const uint8_t *scope)
{
   return part_ctx_in_scope(e->ctx, scope);
}

#endif /* CATS_PARTITION_PART_REGION_H */
