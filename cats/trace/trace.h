/* SPDX-License-Identifier: GPL-2.0-or-later */
/* trace.h: read and validate .cats traces (docs/FORMAT.md).
 *
 * Two layers: the container layer checks the header, the section table and
 * each section's zlib stream and CRC-32; the decode layer parses the raw
 * section payloads into plain arrays and checks every cross reference. The
 * helper uses the decode layer alone to validate what the tool sent before
 * it writes anything, so a file it writes is always one this reader accepts.
 *
 * Every failure returns a trace_status and a one-line message without the file
 * name (callers prefix it). Nothing is read outside the input's bounds. */
#ifndef CATS_TRACE_TRACE_H
#define CATS_TRACE_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "cats/format/cats_format.h"

/* Return codes. Stable: tests and callers compare them. */
typedef enum trace_status {
   TRACE_OK = 0,
   TRACE_EIO,        /* the file could not be opened or read */
   TRACE_ENOMEM,     /* out of memory */
   TRACE_EMAGIC,     /* not a .cats trace (bad magic) */
   TRACE_EVERSION,   /* a .cats trace of an unsupported version */
   TRACE_ETRUNC,     /* the file ends before its header, table or a section */
   TRACE_ETABLE,     /* bad section table: offsets, sizes, flags, duplicates */
   TRACE_EZLIB,      /* a section's data does not inflate to its raw size */
   TRACE_ECRC,       /* a section's CRC-32 does not match its contents */
   TRACE_EMISSING,   /* a required section is absent */
   TRACE_ERECORD,    /* record counts or lengths do not fit the section size */
   TRACE_EREF,       /* a reference (string, loc, ctx, alloc id) out of range */
   TRACE_EVALUE      /* a field holds a value outside its enumeration */
} trace_status;

#define TRACE_ERRLEN 256   /* enough for every message this module writes */

/* Record sizes (the decoder checks at compile time that its field
 * offsets add up to them). */
#define TRACE_LOC_RECORD     CATS_LOC_SIZE
#define TRACE_CONTEXT_RECORD CATS_CONTEXT_SIZE
#define TRACE_ALLOC_RECORD   CATS_ALLOC_SIZE

/* One raw (uncompressed) section payload. */
typedef struct trace_section {
   uint32_t type;          /* enum cats_section */
   const uint8_t *data;    /* payload bytes (may be NULL when size is 0) */
   size_t size;            /* payload length */
} trace_section;

typedef struct trace_meta {
   uint32_t key;           /* string id */
   uint32_t value;         /* string id */
} trace_meta;

typedef struct trace_loc {
   uint64_t addr;          /* guest code address */
   uint32_t function;      /* string id */
   uint32_t file;          /* string id */
   uint32_t line;          /* 0 when unknown */
   uint32_t object;        /* string id */
   uint32_t inline_parent; /* loc id or CATS_NONE */
} trace_loc;

typedef struct trace_context {
   uint32_t parent;        /* ctx id < own id, or CATS_NONE for roots */
   uint8_t kind;           /* enum cats_ctx_kind */
   uint8_t flags;          /* CATS_CTXFLAG_* */
   uint32_t loc;           /* loc id or CATS_NONE */
   uint32_t name;          /* string id */
   uint64_t entries;
   uint64_t iterations;
   uint64_t max_iterations;
   uint64_t first_time;
   uint64_t last_time;
   uint32_t depth;         /* derived: number of ancestors */
} trace_context;

typedef struct trace_alloc {
   uint8_t kind;           /* enum cats_alloc_kind */
   uint8_t flags;          /* CATS_ALLOCFLAG_* */
   uint32_t name;          /* string id */
   uint32_t alloc_ctx;     /* ctx id, or CATS_NONE (globals) */
   uint32_t alloc_loc;     /* loc id or CATS_NONE */
   uint32_t free_ctx;      /* ctx id or CATS_NONE */
   uint32_t free_loc;      /* loc id or CATS_NONE */
   uint32_t realloc_from;  /* alloc id or CATS_NONE */
   uint64_t size;
   uint64_t count;
   uint64_t max_live;
   uint64_t first_alloc;
   uint64_t last_alloc;
   uint64_t first_free;
   uint64_t last_free;
   uint64_t base;
   uint64_t total_bytes;   /* sum of the sizes of all instances */
} trace_alloc;

typedef struct trace_event {
   uint32_t ctx;           /* ctx id */
   uint32_t loc;           /* loc id */
   uint32_t alloc;         /* alloc id */
   uint8_t kind;           /* enum cats_access_kind */
   uint8_t pattern;        /* enum cats_pattern, as the tool recorded it */
   uint8_t ndims;          /* 0..CATS_MAX_DIMS */
   uint8_t flags;          /* CATS_EVFLAG_* */
   uint8_t cls;            /* enum cats_pattern: the access class that
                              every command counts (trace_class.h) */
   uint32_t size;          /* bytes per access */
   uint32_t ndistinct;     /* 0..CATS_MAX_DISTINCT */
   uint64_t count;
   uint64_t first_time;
   uint64_t last_time;
   int64_t base;
   int64_t stride[CATS_MAX_DIMS];
   uint64_t extent[CATS_MAX_DIMS];
   int64_t min_offset;
   int64_t max_offset;
   int64_t distinct[CATS_MAX_DISTINCT];
   uint32_t hist[CATS_HIST_BUCKETS];
} trace_event;

/* An event as the decoders of sections 9 and 10 need it. */
typedef struct trace_event_key {
   uint64_t count;
   uint32_t loc, alloc;
   uint8_t kind;
} trace_event_key;

/* Section 7, the value communication graph (docs/VCG.md). */
typedef struct trace_vcg_vertex {
   uint32_t alloc;         /* alloc id or CATS_NONE */
   uint32_t flags;         /* CATS_VCG_INPUT | _OUTPUT | _REGISTER */
   uint64_t offset;        /* byte offset in the allocation */
   uint32_t size;          /* bytes */
   uint32_t ctx;           /* ctx id or CATS_NONE */
   uint32_t loc;           /* loc id or CATS_NONE */
   uint32_t versions;      /* >= 1 */
   uint64_t weight;        /* computation */
} trace_vcg_vertex;

/* 20 bytes, as in the section: a large graph's edges are most of what a
 * reader holds (uses and versions are u32 in the format). */
typedef struct trace_vcg_edge {
   uint32_t src, dst;      /* vertex indices */
   uint32_t ctx;           /* ctx id or CATS_NONE */
   uint32_t uses;          /* >= 1 */
   uint32_t versions;      /* 1..uses */
} trace_vcg_edge;

typedef struct trace_vcg {
   uint32_t word_size;     /* bytes per memory vertex (a power of two) */
   uint32_t nvertices;
   trace_vcg_vertex *vertices;
   uint32_t nedges;
   trace_vcg_edge *edges;    /* sorted by (src, dst, ctx), unique (the
                                file has them by dst) */
} trace_vcg;

/* Section 9, reuse (LRU stack) distances at cache-line granularity
 * (docs/FORMAT.md). The distance of an access is the number of distinct
 * lines touched since the previous access to its line. Counts are
 * estimates of all accesses: with sampling N the tool tracked one line in
 * N, scaled each tracked distance by N and counted each tracked access N
 * times, so a histogram's total is close to, not equal to, the record's
 * access count (equal when N is 1). */
#define TRACE_REUSE_BUCKETS CATS_REUSE_BUCKETS
typedef struct trace_reuse_hist {
   uint64_t cold;          /* first accesses to a line (infinite distance) */
   uint64_t bucket[TRACE_REUSE_BUCKETS];   /* [0]: distance 0; [b]: 2^(b-1)
                              <= d < 2^b; [32]: d >= 2^31 */
} trace_reuse_hist;

typedef struct trace_reuse {
   uint32_t line_size;     /* bytes per cache line (64) */
   uint32_t sampling;      /* N: one line in N tracked (1 = exact) */
   trace_reuse_hist *events; /* one per event (all zero when none sampled) */
   trace_reuse_hist *allocs; /* one per alloc: the sum of its events' */
} trace_reuse;

/* Estimated misses of a fully associative LRU cache (trace_reuse_misses). */
typedef struct trace_misses {
   double accesses;        /* the histogram's total */
   double cold;            /* first accesses to a line */
   double capacity;        /* reuses at a distance of at least the cache */
} trace_misses;

/* Section 11: reads, in context `to` and container `alloc`, of words
 * whose last store was made in context `from` (docs/FORMAT.md). */
typedef struct trace_dep {
   uint32_t from, to, alloc;
   uint64_t uses;          /* loads, >= 1 */
   uint64_t bytes;         /* their bytes, >= uses */
} trace_dep;

/* A decoded trace. All ids are indices into these arrays and have been
 * checked, so consumers may index without further tests. */
typedef struct trace_file {
   uint32_t nstrings;
   const char **strings;   /* NUL-terminated copies (a string holding a NUL
                              byte is cut there; string_len has the length) */
   uint32_t *string_len;
   uint32_t nmeta;
   trace_meta *meta;
   uint32_t nlocs;
   trace_loc *locs;
   uint32_t ncontexts;
   trace_context *contexts;
   uint32_t nallocs;
   trace_alloc *allocs;
   uint32_t nevents;
   trace_event *events;      /* not kept by a check (trace_check) */
   trace_event_key *event_keys;   /* what the REUSE and INDEX decoders use */
   int has_vcg;            /* section 7 was present (optional) */
   trace_vcg vcg;            /* empty unless has_vcg */
   int has_projection;     /* section 8 was present (optional) */
   uint8_t *projection;    /* its raw payload (partition/part_section.h) */
   size_t projection_len;
   int has_reuse;          /* section 9 was present (optional) */
   trace_reuse reuse;        /* arrays NULL unless has_reuse */
   int has_index;          /* section 10 was present (optional) */
   uint32_t *index_loc;    /* per event: loc of the load its address was
                              computed from (section 10), or CATS_NONE;
                              never NULL (all NONE without section 10) */
   uint32_t *index_alloc;  /* per event: the container that load reads,
                              the alloc with the most accesses of the read
                              events at index_loc, stack frames (spills,
                              scalar locals) excepted; CATS_NONE if none.
                              Never NULL */
   int has_deps;           /* section 11 was present (optional: value flow) */
   uint32_t ndeps;
   trace_dep *deps;        /* sorted by (from, to, alloc), unique */
   char *string_blob;      /* storage behind strings[] */
} trace_file;

/* Open and fully validate the trace at `path`. On success *out owns a trace
 * to release with trace_free. On failure *out is NULL and err holds a message
 * (err may be NULL). */
trace_status trace_open(const char *path, trace_file **out, char *err,
                        size_t errlen);

/* The same, but the value communication graph (section 7) is only
 * checked, not kept: has_vcg is 0. For the commands that do not use it
 * (stat, dump, export), which then need no memory for it. */
trace_status trace_open_without_graph(const char *path, trace_file **out,
                                      char *err, size_t errlen);

/* Same for a trace held in memory (the tests use it for truncation). */
trace_status trace_open_mem(const void *buf, size_t len, trace_file **out,
                            char *err, size_t errlen);

/* Decode and validate raw section payloads (no container). Unknown types
 * are skipped; a type given twice is an error. Sections 1-6 are required,
 * sections 7 (VCG), 8 (PROJECT, kept raw), 9 (REUSE), 10 (INDEX) and
 * 11 (DEPS) are optional. */
trace_status trace_decode(const trace_section *secs, size_t n, trace_file **out,
                          char *err, size_t errlen);

/* trace_decode with section 7 checked, not kept (trace_open_without_graph). */
trace_status trace_decode_without_graph(const trace_section *secs, size_t n,
                                        trace_file **out, char *err,
                                        size_t errlen);

/* Validate raw section payloads as trace_decode does, without keeping the
 * decoded trace: the helper checks a trace before writing it without
 * holding a second copy of its graph or of its events. */
trace_status trace_check(const trace_section *secs, size_t n, char *err,
                         size_t errlen);

void trace_free(trace_file *t);

/* String by id; "" for CATS_NONE or an id out of range. */
const char *trace_str(const trace_file *t, uint32_t id);

/* Value of the first META entry with this key, or NULL. */
const char *trace_meta_get(const trace_file *t, const char *key);

/* Why a trace has no value communication graph, as a sentence for a
 * message: left out at the end of the run (META vcg_left_out, written by
 * the helper with its reason), not asked for (META value_flow "no"), or
 * neither said (a trace of an older version). Writes into buf. */
const char *trace_no_graph_reason(const trace_file *t, char *buf, size_t len);

/* Cold and capacity misses of a fully associative LRU cache of `lines`
 * cache lines, estimated from a reuse histogram: an access misses when
 * it is cold or its distance is at least `lines`. Exact (given the
 * histogram) when `lines` is 0 or a power of two up to 2^31, since those
 * are bucket bounds. Between two powers of two the bucket that holds
 * `lines` is taken as spread uniformly over its range [2^(b-1), 2^b), so
 * the fraction (2^b - lines) / 2^(b-1) of it counts as misses: a linear
 * interpolation between the exact values at the bounds. Beyond 2^31
 * lines the last (open) bucket still counts as misses. */
trace_misses trace_reuse_misses(const trace_reuse_hist *h, uint64_t lines);

/* Name of a section type ("STRINGS", ...) or "unknown". */
const char *trace_section_name(uint32_t type);

#endif /* CATS_TRACE_TRACE_H */
