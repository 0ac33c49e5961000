/* vcg_section.h: the finished graph as the payload of section 7 (VCG).
 *
 * The layout is docs/VCG.md's: a 16-byte header, 40-byte vertices and
 * 32-byte edges, all little-endian, written field by field. */
#ifndef VCG_SECTION_H
#define VCG_SECTION_H

#include "../cats/host/buf.h"
#include "vcg_build.h"

/* Append the section payload for g to out. 0, or -1 if out of memory or
 * the payload would exceed the 4 GiB section limit (out is then left
 * with what was appended so far; the caller frees it). */
int vcg_section_write(const vcg_graph *g, cbuf *out);

#endif /* VCG_SECTION_H */
