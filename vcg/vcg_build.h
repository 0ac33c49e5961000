/* SPDX-License-Identifier: GPL-2.0-or-later */
/* vcg_build.h: build the value communication graph from the tool's stream.
 *
 * The tool sends VF frames (type 104) while the guest runs, then one
 * VF_END frame (105); docs/VCG.md defines both. The builder ingests them
 * incrementally and keeps memory proportional to the program's distinct
 * computations, not to the stream or to the edges: one 36-byte record per
 * vertex, one 16-byte record per distinct (source list, context) of each
 * vertex, and each source list once (vcg_pattern.h: a list is named
 * relative to its vertex, so every element of a loop over an array
 * shares one); a record that leaves its ring (SOURCES_ALONE) keeps its
 * uses as edges, about 21 bytes each, so that a vertex whose lists never
 * repeat costs its distinct edges, not a list per record. A record counts the versions made from it, so a loop that
 * repeats one computation a million times costs nothing more, and a
 * repeated record is a STEP along the ring: its sources are not looked up.
 * Edges exist only when the graph is finished: each vertex's in-edges
 * are made from its records and written to section 7 at once
 * (vcg_finish_section), so no array of the graph's edges is ever held.
 *
 * The uses of a record are known only when the next record for the same
 * dst (or VF_END) opens: each dst keeps its open record, whose closing
 * settles them.
 *
 * Every input is checked: a malformed stream yields a status and a
 * one-line message, never a crash; after an error the builder refuses
 * further input. */
#ifndef VCG_BUILD_H
#define VCG_BUILD_H

#include <stddef.h>
#include <stdint.h>

#define VCG_ERRLEN 256
/* The longest VF record: SOURCES with n = 65535 sources, every field
 * and source in the longest LEB128 form of a 32-bit value (5 bytes). */
#define VCG_MAX_RECORD (1 + 4 * 5 + 5 * 65535)

typedef enum vcg_status {
   VCG_OK = 0,
   VCG_ENOMEM,   /* out of memory */
   VCG_EINPUT,   /* malformed VF or VF_END data */
   VCG_ESTATE    /* called out of order (VF after VF_END, ...) or after an
                    earlier error */
} vcg_status;

/* A vertex of the finished graph: the fields of a section 7 vertex. */
typedef struct vcg_vertex {
   uint32_t alloc;      /* allocation id of the trace, or CATS_NONE */
   uint32_t flags;      /* CATS_VCG_INPUT | _OUTPUT | _REGISTER */
   uint64_t offset;     /* byte offset in the allocation (0 for
                           register intermediates) */
   uint32_t size;       /* bytes */
   uint32_t ctx;        /* context of the first version, or CATS_NONE */
   uint32_t loc;        /* code location of the first creation, or NONE */
   uint32_t versions;   /* versions coalesced, >= 1 */
   uint64_t weight;     /* computation: sum of uses x max(1, n) */
} vcg_vertex;

/* An edge of a finished graph, unique per (src, dst, ctx). uses fit 32
 * bits: an edge's uses are disjoint version ranges of its dst, whose
 * count is a u32. */
typedef struct vcg_edge {
   uint32_t src, dst;   /* vertex indices */
   uint32_t ctx;        /* context of the sink's versions, or CATS_NONE */
   uint32_t uses;       /* versions of dst computed from src, >= 1 */
   uint32_t versions;   /* min(uses, versions of src) */
} vcg_edge;

/* The finished graph: vertices sorted as docs/VCG.md says (memory by
 * (alloc, offset, tool id), then register intermediates by (loc, tool
 * id)), edges sorted by (src, dst, ctx). */
typedef struct vcg_graph {
   uint32_t word_size;
   uint32_t nvertices;
   uint32_t nedges;
   vcg_vertex *vertices;
   vcg_edge *edges;
} vcg_graph;

typedef struct vcg_builder vcg_builder;

/* A new, empty builder; NULL if out of memory. */
vcg_builder *vcg_builder_new(void);
void vcg_builder_free(vcg_builder *b);

/* Ingest VF bytes. Whole records are consumed and *used says how many
 * bytes they took; a record cut at the end of p is left for the next call
 * (at most VCG_MAX_RECORD - 1 bytes), unless frame_end is set: records
 * never straddle frames, so then it is an error. */
vcg_status vcg_feed(vcg_builder *b, const uint8_t *p, size_t len,
                    int frame_end, size_t *used, char *err, size_t errlen);

/* Ingest the VF_END payload: word size, the tool -> trace allocation id
 * table, final versions and output flags. Closes every open record. */
vcg_status vcg_end(vcg_builder *b, const uint8_t *p, size_t len, char *err,
                   size_t errlen);

/* Produce the graph (after vcg_end) with its edges in (src, dst, ctx)
 * order. The builder is empty afterwards and only vcg_builder_free
 * remains. For tests and small graphs: it holds every edge. */
vcg_status vcg_finish(vcg_builder *b, vcg_graph *g, char *err,
                      size_t errlen);

struct trace_buf;
struct vcg_spill;
/* Append the graph's section 7 payload (vcg_section.h) to out as the
 * edges are made, one sink's at a time (after vcg_end); *nv and *ne get
 * its counts. With spill (NULL: none) the section's bytes go to its file
 * as they are made and come back to out once the builder is freed. The
 * builder is empty afterwards, as after vcg_finish. On VCG_ENOMEM out
 * holds a part of the section, which the caller drops. */
vcg_status vcg_finish_section(vcg_builder *b, struct trace_buf *out, struct vcg_spill *spill,
                              uint32_t *nv, uint32_t *ne, char *err, size_t errlen);

void vcg_graph_free(vcg_graph *g);

/* Bytes the builder holds now (arrays and tables, as allocated). */
size_t vcg_builder_bytes(const vcg_builder *b);

/* Stop the graph where the stream has reached (a memory limit): no more
 * VF data is fed, and VF_END then passes over the vertices the builder
 * never heard of. The graph keeps its records up to the cut; a vertex's
 * open record takes its versions up to the final count VF_END gives. */
void vcg_builder_cut(vcg_builder *b);

/* Counts so far: records ingested, vertices, records kept (distinct
 * (source list, context) of each vertex, and a ring's repeats). */
void vcg_builder_counts(const vcg_builder *b, uint64_t *records,
                        uint32_t *vertices, uint64_t *kept);

#endif /* VCG_BUILD_H */
