/* SPDX-License-Identifier: GPL-2.0-or-later */
/* part_region.h: what "per iteration" means for a projection.
 *
 * An MPI code's traffic is compared per time step, so a projection is
 * reported per iteration of a loop, function or region: the one the user
 * names (--per=NAME for a function or CATS region, --per=FILE:LINE for a
 * loop), or else the outermost region marked with CATS_REGION_BEGIN,
 * failing that the outermost loop, that repeats and holds most of the
 * work. Its scope is the contexts below it. */
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
   double work_share;      /* fraction of all uses inside the scope */
   char name[PART_REGION_NAMELEN];  /* "loop heat.c:42", "function step", ... */
   uint8_t *scope;         /* [ncontexts] 1 inside, NULL for the whole run */
} part_region;

/* per: NULL for the automatic choice, "run" for the whole run, else a
 * name or FILE:LINE. -1 with a message when a named region is not in the
 * trace or memory runs out. */
int part_region_select(const trace_file *t, const char *per, part_region *r, char *err,
                       size_t errlen);
void part_region_free(part_region *r);

#endif /* CATS_PARTITION_PART_REGION_H */
