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

#define VIM_NONE 0xFFFFFFFFu
#define VIM_PAGE_BITS 10

typedef struct vim_map {
   uint32_t **page;    /* 2^(32 - VIM_PAGE_BITS) entries, NULL = empty */
   size_t pages;       /* pages allocated */
   uint32_t *used;     /* their indices in page[], so that freeing the
                          map does not read its 32 MiB of entries */
   size_t cap_used;
} vim_map;

#define VIM_INIT { NULL, 0, NULL, 0 }

/* The index stored for id, or VIM_NONE. */
static inline uint32_t vim_get(const vim_map *m, uint32_t id)
{
   if (!m->page)
      return VIM_NONE;
   const uint32_t *p = m->page[id >> VIM_PAGE_BITS];
   return p ? p[id & ((1u << VIM_PAGE_BITS) - 1)] : VIM_NONE;
}

/* Store index i (not VIM_NONE) for id. 0, or -1 if out of memory. */
int vim_set(vim_map *m, uint32_t id, uint32_t i);
size_t vim_bytes(const vim_map *m);
void vim_free(vim_map *m);

#endif /* VCG_IDMAP_H */
