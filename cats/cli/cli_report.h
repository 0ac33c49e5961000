/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cli_report.h: the analyses behind `cats report FILE` (cli_report.c).
 *
 * Each analysis reads a decoded trace and fills its part of an cli_report_data:
 * findings ranked, cut to the top N, with the number found before the cut.
 * The text and the JSON writer of cli_report.c print the same structure,
 * so the two forms always say the same thing.
 *
 *   cli_report_memory.c  1 peak footprint, 2 allocations inside loops,
 *                    3 short usage lifetimes, 4 buffer-sharing groups
 *   cli_report_access.c  5 stride-k and indirect access sites
 *   cli_report_deps.c    6 heaviest dependencies between code: bytes read
 *                    by the node that stored them and the one that read them
 *   cli_report_reuse.c   7 reuse distances: the place for them (not read
 *                    from traces yet)
 *
 * Scope: the peak footprint is the whole process's (as the tool measured
 * it). The other sections look only at the contexts the caller marks in
 * cli_report_options.in_scope: by default main and what runs below it and every
 * other thread, less the dynamic linker's lazy binding and the tool's
 * preload code (cli_report.c), so that start-up does not crowd out the
 * program.
 *
 * Times are the trace's logical times (one tick per access, allocation
 * and release; docs/FORMAT.md), not wall time. */
#ifndef CATS_CLI_CLI_REPORT_H
#define CATS_CLI_CLI_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "cats/trace/trace.h"

#define CLI_REPORT_TOP_DEFAULT 10
#define CLI_REPORT_TOP_MAX 1000000
#define CLI_REPORT_SHORT_DEFAULT 0.1   /* section 3: usage below 10 % of the life */

typedef struct cli_report_options {
   uint32_t top;               /* entries kept per section (>= 1) */
   double short_ratio;         /* section 3 threshold, in (0, 1] */
   uint64_t cache_lines;       /* section 7: the cache size in lines */
   const uint8_t *in_scope;    /* per context: 1 if sections 2-6 look at it */
   int all;                    /* every context is in scope (also takes
                                  what has no context) */
   const uint8_t *ours;        /* per ALLOCS record: the program's
                                  (cli_program.h); section 1 lists only
                                  these, and sums the others */
} cli_report_options;

/* 1. A container record live at the peak. */
typedef struct cli_report_live {
   uint32_t alloc;             /* ALLOCS id */
   uint64_t min, max;          /* instances live at the peak: bounds, equal
                                  when the folded record tells exactly */
} cli_report_live;

typedef struct cli_report_peak {
   int known;                  /* META holds peak_footprint and peak_time */
   uint64_t time, bytes;       /* the peak the tool measured */
   uint64_t exact_bytes;       /* sum of min x size over the records */
   uint64_t upper_bytes;       /* sum of max x size */
   uint32_t n, total;          /* records listed, the program's records live */
   uint32_t system;            /* other records live (libc, ld.so ...) */
   uint64_t system_bytes;      /* and their bytes, at most */
   cli_report_live *live;             /* by min x size, then max x size */
} cli_report_peak;

/* 2. An allocation record inside a loop. */
typedef struct cli_report_loop_alloc {
   uint32_t alloc;             /* ALLOCS id */
   uint32_t loop;              /* innermost enclosing loop (CONTEXTS id) */
   double bytes_per_iter;      /* total_bytes / that loop's iterations */
} cli_report_loop_alloc;

/* 3 and 4. A container's allocation and usage lifetimes. */
typedef struct cli_report_lifetime {
   uint32_t alloc;             /* ALLOCS id */
   uint64_t alloc_start;       /* first allocation */
   uint64_t alloc_end;         /* last release, or the end of the run */
   int used;                   /* some access touched it */
   uint64_t use_start;         /* first access (0 when unused) */
   uint64_t use_end;           /* last access (0 when unused) */
   double ratio;               /* usage / allocation lifetime */
   uint64_t idle;              /* size x (allocation - usage lifetime):
                                  the byte-time it held memory unused */
} cli_report_lifetime;

/* 4. Containers of one size that could share one buffer. */
typedef struct cli_report_share {
   uint64_t size;              /* bytes of each member */
   uint64_t saved;             /* (members - 1) x size */
   uint32_t n;                 /* members (>= 2) */
   cli_report_lifetime *members;      /* in order of first access */
} cli_report_share;

/* 5. A stride-k or indirect access site: event records merged over the
 * contexts that reach one instruction with the same pattern. */
typedef struct cli_report_site {
   uint32_t loc;               /* LOCS id of the access instruction */
   uint32_t alloc;             /* ALLOCS id of the container */
   uint32_t index;             /* container the address was computed
                                  from (section 10), or CATS_NONE */
   uint32_t index_loc;         /* the load that read it, or CATS_NONE */
   uint8_t kind;               /* CATS_READ / CATS_WRITE */
   uint8_t pattern;            /* CATS_PAT_STRIDEK or CATS_PAT_IRREGULAR */
   uint8_t dim;                /* stride-k: loop level of the stride, 0 the
                                  innermost */
   uint32_t size;              /* bytes per access */
   int64_t stride;             /* stride-k: the innermost varying stride */
   uint32_t loop;              /* stride-k: that loop (CONTEXTS id) or
                                  CATS_NONE; from the first record */
   uint64_t count;             /* accesses */
   uint32_t records;           /* event records merged */
} cli_report_site;

/* 6. Reads of values stored by one control-flow node and read by another
 * (trace section 11: the version actually read), merged by (the storing
 * context's source line, the reading context's, the container). */
typedef struct cli_report_dep {
   uint32_t from_loc;          /* canonical LOCS id of the storing context
                                  (loop header, function entry), or
                                  CATS_NONE */
   uint32_t to_loc;            /* same for the reading context */
   uint32_t from_ctx, to_ctx;  /* the heaviest such pair of contexts */
   uint32_t alloc;             /* ALLOCS id of the container read */
   uint64_t bytes, uses;       /* sums over the merged records */
   uint32_t records;           /* section 11 records merged */
} cli_report_dep;

typedef struct cli_report_data {
   cli_report_peak peak;
   cli_report_loop_alloc *loops;
   uint32_t nloops, loops_total;
   cli_report_lifetime *shorts;
   uint32_t nshorts, shorts_total;
   cli_report_share *shares;
   uint32_t nshares, shares_total;
   uint64_t shares_saved;      /* over all groups, listed or not */
   cli_report_site *sites;
   uint32_t nsites, sites_total;
   uint64_t sites_unrolled;    /* stride-k records left out: parts of an
                                  unrolled contiguous walk */
   int has_deps;               /* section 6 is empty without section 11 */
   cli_report_dep *deps;
   uint32_t ndeps, deps_total;
} cli_report_data;

/* The analyses. Each fills its fields of *r (zeroed by the caller) and
 * returns 0, or -1 when out of memory. */
int cli_report_memory(const trace_file *t, const cli_report_options *o, cli_report_data *r);
int cli_report_access(const trace_file *t, const cli_report_options *o, cli_report_data *r);
int cli_report_deps(const trace_file *t, const cli_report_options *o, cli_report_data *r);
void cli_report_free(cli_report_data *r);

/* 7. Reuse distances (trace section 9) per container and per access
 * site, most accesses first, with the misses of an LRU cache of
 * `cache_lines` 64-byte lines. */
void cli_report_reuse_text(FILE *fp, const trace_file *t, uint32_t top,
                           uint64_t cache_lines);
void cli_report_reuse_json(FILE *fp, const trace_file *t, uint32_t top,
                           uint64_t cache_lines);

/* Shared by the analyses. */

/* canon[loc] = one location id per printed source line: the smallest id
 * with the same file, line and function (a location without a file is
 * its own). *out is malloc'ed; returns -1 when out of memory. */
int cli_report_canon_locs(const trace_file *t, uint32_t **out);

#endif /* CATS_CLI_CLI_REPORT_H */
