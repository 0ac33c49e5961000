/* SPDX-License-Identifier: GPL-2.0-or-later */
/* vcg_build.h: build the value communication graph from the tool's stream.
 *
 * The tool sends VF frames (type 104) while the guest runs, then one
 * VF_END frame (105); docs/VCG.md defines both. The builder ingests them
 * incrementally and keeps memory proportional to the graph, not to the
 * stream: one 36-byte record per vertex, one 16-byte record per distinct
 * (src, dst, ctx) edge (arrays grow by a quarter), each vertex's ring of
 * records (vcg_records.h: 16 bytes and 2 per further source; when they
 * pass 32 bytes per edge, rings of up to 256 records are kept and of
 * longer ones the open record), and a 4-byte hash slot (tables at most
 * 3/4 full) per edge of the vertices with many records, in a table per
 * vertex (16 bytes and a map entry each); the others' edges are found
 * among their records. A record adds its uses to the
 * edges it names, so a loop that repeats one computation a million times
 * costs nothing more, and a repeated record is a STEP along the ring:
 * its sources and edges are not looked up.
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

/* Produce the graph (after vcg_end). The builder's storage moves into g,
 * so the builder is empty afterwards and only vcg_builder_free remains. */
vcg_status vcg_finish(vcg_builder *b, vcg_graph *g, char *err,
                      size_t errlen);

void vcg_graph_free(vcg_graph *g);

/* Bytes the builder holds now (arrays and tables, as allocated). */
size_t vcg_builder_bytes(const vcg_builder *b);

/* Stop the graph where the stream has reached (a memory limit): no more
 * VF data is fed, and VF_END then passes over the vertices the builder
 * never heard of. The graph keeps its records up to the cut; a vertex's
 * open record takes its versions up to the final count VF_END gives. */
void vcg_builder_cut(vcg_builder *b);

/* Counts so far: records ingested, vertices, distinct edges (including
 * one per (dst, ctx) that had constant records, dropped at the end). */
void vcg_builder_counts(const vcg_builder *b, uint64_t *records,
                        uint32_t *vertices, uint32_t *edges);

#endif /* VCG_BUILD_H */
