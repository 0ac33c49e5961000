/* SPDX-License-Identifier: GPL-2.0-or-later */
/* vcg_section.h: the finished graph as the payload of section 7 (VCG).
 *
 * The layout is docs/FORMAT.md's packed encoding: a 16-byte header, then
 * each vertex and each edge as a few variable-length numbers relative to
 * the record before. A stencil's edges repeat the same differences, so
 * the payload is a third of fixed records' and compresses to a tenth of
 * theirs (docs/BENCH.md). */
#ifndef VCG_SECTION_H
#define VCG_SECTION_H

#include "cats/trace/trace_buf.h"
#include "vcg_build.h"

/* Append the section payload for g to out. 0, or -1 if out of memory
 * (out is then left with what was appended so far; the caller frees it). */
int vcg_section_write(const vcg_graph *g, trace_buf *out);

/* The section payload for g made over g's own edge array (so that the
 * helper's peak is the graph, not the graph and its section): out (empty)
 * takes it, and g keeps its vertices only. 0, or -1 if out of memory:
 * out is unchanged, and g's edges are gone (a graph whose packed edges
 * outgrow their 20-byte records needs memory for the rest). */
int vcg_section_take(vcg_graph *g, trace_buf *out);

/* The bytes of g's section 7 (64 bits: a section's size has no limit
 * but memory, docs/FORMAT.md). */
uint64_t vcg_section_size(const vcg_graph *g);

#endif /* VCG_SECTION_H */
