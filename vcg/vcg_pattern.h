/* SPDX-License-Identifier: GPL-2.0-or-later */
/* vcg_pattern.h: the source lists of the builder's records, each kept once.
 *
 * A record names its sources relative to its vertex (source id - vertex
 * id, modulo 2^32). The tool derives ids from addresses, so every element
 * of a loop over an array, a stencil's sweep or a vector update, has the
 * same list: it is kept once however many vertices' records name it, and
 * a record costs its 16 bytes, not an edge per source (docs/VCG.md,
 * "Memory"). A list is sorted before it is kept, so the same sources in
 * another order are one list, and a source named twice lies beside
 * itself. An irregular record (an indirect access) has a list of its own:
 * 4 bytes a source and about 12 a list (its length and an index slot at
 * most half full). A register intermediate's list is shared too: the
 * tool numbers them as it makes them, so the links of a stencil's sums
 * made along a row lie at the same distances from their sources (NPB
 * MG's 5.5 M lists of about 20 sources: 167 M words of lists before,
 * 52 M words after). */
#ifndef VCG_PATTERN_H
#define VCG_PATTERN_H

#include <stddef.h>
#include <stdint.h>

#include "vcg_index.h"

typedef struct vcg_pattern_pool {
   uint32_t *w;         /* lists: n, then n differences */
   size_t len, cap;     /* words used and allocated */
   vcg_index index;     /* list names (their offsets in w) by content */
   uint32_t last;       /* the list added or found last */
} vcg_pattern_pool;

#define VCG_PATTERN_POOL_INIT { NULL, 0, 0, VCG_INDEX_INIT, 0 }

typedef enum vcg_pattern_status {
   VCG_PATTERN_OK = 0,
   VCG_PATTERN_ENOMEM,   /* out of memory, or 2^32 words of lists */
   VCG_PATTERN_TWICE     /* d names a difference twice (*name is it) */
} vcg_pattern_status;

/* The name of the list d[0..n) (sorted in place), kept if new. */
vcg_pattern_status vcg_pattern_intern(vcg_pattern_pool *p, uint32_t *d, uint32_t n,
                                      uint32_t *name);

/* List `list` of `from` (sorted, each difference once) kept in `to`, as
 * vcg_pattern_intern would. */
vcg_pattern_status vcg_pattern_copy(vcg_pattern_pool *to, const vcg_pattern_pool *from,
                                    uint32_t list, uint32_t *name);

/* The list `name`: its length in [0], its differences after. */
static inline const uint32_t *vcg_pattern_at(const vcg_pattern_pool *p, uint32_t name)
{
   return p->w + name;
}

size_t vcg_pattern_bytes(const vcg_pattern_pool *p);
void vcg_pattern_free(vcg_pattern_pool *p);

#endif /* VCG_PATTERN_H */
