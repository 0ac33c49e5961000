/* vcg_records.h: the distinct SOURCES records of each vertex.
 *
 * A time step repeats the records of the step before: a vertex gets the
 * same sources in the same order, one record per change of sources (a
 * force accumulated over 16 neighbours gets 16 records per step). The
 * builder keeps each distinct record once, with the edges it names and the
 * uses it owes them, in a ring per vertex in the order they were first
 * made, each after the one it followed: the record that follows the open
 * one now is most often the next in the ring. A repeated record is
 * recognised by comparing its ids with that one's (then the ring's): no
 * lookup of its sources, no hash probe of its edges. The uses reach the
 * edges when the pool is flushed (at VF_END, and before it is compacted).
 *
 * A record is a run of u32 words in one pool:
 *   ring    the next record of the same vertex (a circular list)
 *   ctx     the context of its versions
 *   n       sources
 *   owed    uses owed to each of its edges, modulo 2^32: the sum over
 *           its openings of (closing version - opening version)
 *   edges   max(n, 1) edge indices, source k's edge k (n = 0: the
 *           constant's edge)
 * The sources' ids are not kept: while the graph is built an edge's src
 * is its source's tool id, so a record is compared through its edges,
 * which its vertex's first time step appended together.
 * A record's offset in the pool is its name; compaction renames. */
#ifndef VCG_RECORDS_H
#define VCG_RECORDS_H

#include <stddef.h>
#include <stdint.h>

#include "vcg_build.h"

#define VREC_NIL 0xFFFFFFFFu

/* An edge while the graph is built (vcg_build.c): 16 bytes, the largest
 * array of a large graph. src is the source's tool id until the graph is
 * finished; dst is the builder's index of the sink. */
typedef struct vb_edge {
   uint32_t src, dst, ctx;
   uint32_t uses;   /* so far, modulo 2^32 as docs/VCG.md allows */
} vb_edge;

enum { VREC_RING, VREC_CTX, VREC_N, VREC_OWED, VREC_HEAD };

typedef struct vrec_pool {
   uint32_t *w;
   size_t len, cap;   /* words used and allocated */
} vrec_pool;

#define VREC_POOL_INIT { NULL, 0, 0 }

static inline uint32_t *vrec_at(const vrec_pool *p, uint32_t r)
{
   return p->w + r;
}

static inline uint32_t *vrec_edges(const vrec_pool *p, uint32_t r)
{
   return p->w + r + VREC_HEAD;
}

/* Edges of a record with n sources: a constant (n = 0) has one. */
static inline uint32_t vrec_nedges(uint32_t n)
{
   return n ? n : 1;
}

static inline size_t vrec_words(uint32_t n)
{
   return VREC_HEAD + (size_t)vrec_nedges(n);
}

/* The record of `open`'s vertex with context ctx and the n sources ids
 * (little-endian u32s, as sent; e the edges, whose src is a tool id):
 * the ring from the one after `open` round to `open`, 64 records at
 * most. VREC_NIL if there is none. */
uint32_t vrec_find(const vrec_pool *p, const vb_edge *e, uint32_t open,
                   uint32_t ctx, uint32_t n, const uint8_t *ids);

/* A new record with n sources in the ring of `ring` (VREC_NIL: a ring of
 * its own), its edges for the caller to fill. VREC_NIL if out of
 * memory or if the pool would pass 2^32 words. */
uint32_t vrec_new(vrec_pool *p, uint32_t ring, uint32_t ctx, uint32_t n);

/* Add each record's owed uses to its edges and clear them. */
void vrec_flush(vrec_pool *p, vb_edge *e);

/* Copy record r of `from` to `to` as a ring of its own with no
 * successor; its new name, or VREC_NIL if out of memory. */
uint32_t vrec_copy(vrec_pool *to, const vrec_pool *from, uint32_t r);

void vrec_free(vrec_pool *p);

#endif /* VCG_RECORDS_H */
