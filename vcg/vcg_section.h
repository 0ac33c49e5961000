/* SPDX-License-Identifier: GPL-2.0-or-later */
/* vcg_section.h: the finished graph as the payload of section 7 (VCG).
 *
 * The layout is docs/VCG.md's: a 16-byte header, 40-byte vertices and
 * 20-byte edges, all little-endian, written field by field. */
#ifndef VCG_SECTION_H
#define VCG_SECTION_H

#include "cats/trace/trace_buf.h"
#include "vcg_build.h"

/* Append the section payload for g to out. 0, or -1 if out of memory
 * (out is then left with what was appended so far; the caller frees it). */
int vcg_section_write(const vcg_graph *g, trace_buf *out);

/* The section payload for g made in g's own edge array, which is grown to
 * hold it: out (empty) takes the payload and g keeps its vertices only.
 * The helper's peak is then the section, not the section and the edges.
 * 0, or -1 if out of memory (g and out are then unchanged). */
int vcg_section_take(vcg_graph *g, trace_buf *out);

/* The bytes of g's section 7 (64 bits: a section's size has no limit
 * but memory, docs/FORMAT.md). */
uint64_t vcg_section_size(const vcg_graph *g);

#endif /* VCG_SECTION_H */
