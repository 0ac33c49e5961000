/* SPDX-License-Identifier: GPL-2.0-or-later */
/* vcg_index.h: an open-addressing hash index over an array.
 *
 * The graph builder keeps its source lists in a pool and finds them by
 * content through this index (vcg_pattern.h): a power-of-two table of u32 array
 * indices with linear probing. The table holds no keys, only indices, so
 * it costs 4 bytes per slot (8 to 16 bytes per entry between 1/2
 * and 1/4 full); the caller hashes its keys and compares them against its own
 * array. */
#ifndef VCG_INDEX_H
#define VCG_INDEX_H

#include <stddef.h>
#include <stdint.h>

#define VCG_INDEX_EMPTY 0xFFFFFFFFu

typedef struct vcg_index {
   uint32_t *slot;     /* array index per slot, VCG_INDEX_EMPTY if free */
   uint32_t mask;      /* slots - 1 (slots is a power of two) */
   uint32_t count;     /* entries */
} vcg_index;

#define VCG_INDEX_INIT { NULL, 0, 0 }

/* Hash of entry i of the caller's array (used when the table grows). */
typedef uint64_t (*vcg_index_hash_fn)(const void *ctx, uint32_t i);

/* Make room for one more entry, rehashing through hash(ctx, i) when the
 * table would be more than half full. 0, or -1 if out of memory (the index
 * is unchanged). */
int vcg_index_reserve(vcg_index *x, vcg_index_hash_fn hash, const void *ctx);

/* The first slot of the probe sequence for hash h; probe on with
 * vcg_index_next. */
static inline uint32_t vcg_index_first(const vcg_index *x, uint64_t h)
{
   return (uint32_t)h & x->mask;
}

static inline uint32_t vcg_index_next(const vcg_index *x, uint32_t pos)
{
   return (pos + 1) & x->mask;
}

/* Store array index i in the free slot pos (found by probing). */
static inline void vcg_index_put(vcg_index *x, uint32_t pos, uint32_t i)
{
   x->slot[pos] = i;
   x->count++;
}

size_t vcg_index_bytes(const vcg_index *x);
void vcg_index_free(vcg_index *x);

/* A 64-bit mixer (the splitmix64 finaliser): sparse or sequential ids
 * spread over the whole table. */
static inline uint64_t vcg_mix64(uint64_t z)
{
   z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
   z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
   return z ^ (z >> 31);
}

#endif /* VCG_INDEX_H */
