/* part_project.h: the communication projection of a trace for a list of
 * rank counts (paper 003, §4.2): groups, singletons, one METIS partition
 * per rank count, communication per iteration of the chosen region.
 *
 * Deterministic: the same trace and options give the same bytes. */
#ifndef CATS_PART_PROJECT_H
#define CATS_PART_PROJECT_H

#include <stddef.h>
#include <stdint.h>

#include "../cats/host/trace_read.h"
#include "part_comm.h"
#include "part_metis.h"
#include "part_region.h"
#include "part_singleton.h"

#define PP_MAX_RANKS 64          /* rank counts in one projection */
#define PP_MAX_N     (1u << 16)  /* largest rank count */

typedef struct pp_options {
   uint32_t ranks[PP_MAX_RANKS];
   uint32_t nranks;
   double threshold;       /* singleton score threshold (0.9) */
   pm_options metis;
   pc_cost cost;
   const char *per;        /* NULL automatic, "run", a name or FILE:LINE */
   int keep_parts;         /* fill pc_result.vertex_part */
} pp_options;

typedef struct pp_singleton {
   uint32_t vertex;        /* first member (VCG vertex index) */
   uint32_t members;       /* vertices in its group */
   uint32_t kind;          /* enum ps_kind */
   uint64_t degree;        /* neighbouring groups */
   uint64_t versions;      /* most versions of a member */
} pp_singleton;

typedef struct pp_projection {
   pp_options opts;        /* as used; opts.per points to per_spec */
   char per_spec[PR_NAMELEN];  /* --per as given; "" for automatic */
   pr_region region;       /* scope; region.scope freed by pp_free */
   ps_summary singletons;
   pp_singleton *slist;    /* the singletons (not stored in section 8) */
   uint32_t nslist;
   uint32_t groups;        /* groups in the graph */
   uint32_t metis_vertices;
   uint64_t metis_edges;
   int connected;
   uint32_t nresults;
   pc_result results[PP_MAX_RANKS];
} pp_projection;

void pp_defaults(pp_options *o);

/* Parse "2,4,8" into o->ranks. -1 with a message on a bad list. */
int pp_parse_ranks(const char *s, pp_options *o, char *err, size_t errlen);

/* Set one option by name, as the tool and `cats project` spell it:
 * ranks=LIST, per=NAME|FILE:LINE|run, singleton-threshold=X (0..1],
 * partitioner=kway|rb|best, seed=N, tries=N (1-100), imbalance=X (allowed load ratio,
 * >= 1.001), contig=yes|no|auto, alpha=SECONDS, beta=SECONDS_PER_BYTE.
 * Returns 1 when the name is not a projection option, 0 when set, -1 with
 * a message for a bad value. `per` keeps a pointer to value. */
int pp_set_option(pp_options *o, const char *name, const char *value,
                  char *err, size_t errlen);

/* -1 with a message: no VCG in the trace, unknown --per, out of memory,
 * METIS failure. */
int pp_project(const ctr_trace *t, const pp_options *o, pp_projection *p,
               char *err, size_t errlen);
void pp_free(pp_projection *p);

#endif /* CATS_PART_PROJECT_H */
