/* SPDX-License-Identifier: GPL-2.0-or-later */
/* vcg_section.h: the finished graph as the payload of section 7 (VCG).
 *
 * The layout is docs/FORMAT.md's packed encoding: a 16-byte header, then
 * each vertex and each edge as a few variable-length numbers relative to
 * the record before. Edges are in (dst, src, ctx) order, the order in
 * which the builder makes them from each vertex's records, so the helper
 * writes the section as it goes and never holds the graph's edges
 * (vcg_build.h). A stencil's edges repeat the same differences, so the
 * payload is a third of fixed records' and compresses to a tenth of
 * theirs (docs/BENCH.md). */
#ifndef VCG_SECTION_H
#define VCG_SECTION_H

#include "cats/format/cats_format.h"
#include "cats/trace/trace_buf.h"
#include "vcg_build.h"

/* A section being written: the header, then vertices in graph order, then
 * each vertex's in-edges (a group) in dst order. With out NULL, bytes are
 * only counted. A group that is the group before it moved by the
 * distance between their sinks (every element of a loop over an array:
 * its sources at the same distances, the same context, uses and
 * versions) is written as one byte (docs/FORMAT.md). */
/* A file that takes a section's bytes as they are packed, so that the
 * section does not stand in memory beside the builder that makes it: a
 * large graph's section is as large as a third of its builder (NPB MG
 * 128^3: 737 MB beside 1.6 GB). The caller reads them back once the
 * builder is freed (vcg_pack_end). */
typedef struct vcg_spill {
   int fd;              /* an unlinked temporary file, or -1: none */
   size_t at;           /* bytes kept in memory before they go to it */
   uint64_t bytes;      /* bytes that went to it */
   int err;             /* errno of a write or read that failed; the
                           section then stays in memory from there on */
} vcg_spill;

typedef struct vcg_pack {
   trace_buf *out;
   vcg_spill *spill;    /* NULL: the section stays in out */
   size_t start;        /* the header's offset in out */
   uint64_t bytes;      /* written (or counted) so far */
   uint32_t nv, ne;     /* vertices and edges so far */
   vcg_vertex lastv;
   vcg_edge laste;
   /* The group before, if it has at most CATS_VCG_REPEAT_MAX edges. */
   vcg_edge prev[CATS_VCG_REPEAT_MAX];
   uint32_t nprev;
   int has_prev;
} vcg_pack;

/* Each returns 0, or -1 if out of memory (out then holds a part of the
 * section, which the caller drops). */
int vcg_pack_begin(vcg_pack *k, trace_buf *out, vcg_spill *spill, uint32_t word_size);
int vcg_pack_vertex(vcg_pack *k, const vcg_vertex *v);
/* The in-edges e[0..n) of one vertex, after those of every vertex
 * before it, sorted by (src, ctx), each with its dst. -1 also when the
 * edges would pass 2^32 - 1. */
int vcg_pack_group(vcg_pack *k, const vcg_edge *e, uint32_t n);
/* Brings the bytes that went to the spill file back to out and puts the
 * counts in the header: 0, or -1 if out of memory or the file cannot be
 * read (spill->err says which; out then holds a part of the section). */
int vcg_pack_end(vcg_pack *k);

/* Append the section payload for g (its edges in (src, dst, ctx) order,
 * as vcg_finish gives them) to out. 0, or -1 if out of memory (out is
 * then left with what was appended so far; the caller frees it). */
int vcg_section_write(const vcg_graph *g, trace_buf *out);

/* The bytes of g's section 7 (64 bits: a section's size has no limit
 * but memory, docs/FORMAT.md); UINT64_MAX if out of memory. */
uint64_t vcg_section_size(const vcg_graph *g);

#endif /* VCG_SECTION_H */
