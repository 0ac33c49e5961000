/* SPDX-License-Identifier: GPL-2.0-or-later */
/* vcg_idmap.h: a map from the tool's u32 vertex ids to graph indices.
 *
 * The tool derives vertex ids from addresses (a chunk's sequence number
 * and the word in it), so ids come in dense runs: a two-level page table
 * finds them with two dependent loads and neighbouring ids share cache
 * lines, where a hash table would scatter every lookup. */
#ifndef VCG_IDMAP_H
#define VCG_IDMAP_H

#include <stddef.h>
#include <stdint.h>

#define VCG_IDMAP_NONE 0xFFFFFFFFu
#define VCG_IDMAP_PAGE_BITS 10

typedef struct vcg_idmap {
   uint32_t **page;    /* 2^(32 - VCG_IDMAP_PAGE_BITS) entries, NULL = empty */
   size_t pages;       /* pages allocated */
   uint32_t *used;     /* their indices in page[], so that freeing the
                          map does not read its 32 MiB of entries */
   size_t cap_used;
} vcg_idmap;

#define VCG_IDMAP_INIT { NULL, 0, NULL, 0 }

/* The index stored for id, or VCG_IDMAP_NONE. */
static inline uint32_t vcg_idmap_get(const vcg_idmap *m, uint32_t id)
{
   if (!m->page)
      return VCG_IDMAP_NONE;
   const uint32_t *p = m->page[id >> VCG_IDMAP_PAGE_BITS];
   return p ? p[id & ((1u << VCG_IDMAP_PAGE_BITS) - 1)] : VCG_IDMAP_NONE;
}

/* Store index i (not VCG_IDMAP_NONE) for id. 0, or -1 if out of memory. */
int vcg_idmap_set(vcg_idmap *m, uint32_t id, uint32_t i);
size_t vcg_idmap_bytes(const vcg_idmap *m);
void vcg_idmap_free(vcg_idmap *m);

#endif /* VCG_IDMAP_H */
