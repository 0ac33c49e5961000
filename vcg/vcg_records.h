/* vcg_records.h: the distinct SOURCES records of each vertex.
 *
 * A time step repeats the records of the step before: a vertex gets the
 * same sources in the same order, one record per change of sources (a
 * force accumulated over 16 neighbours gets 16 records per step). The
 * builder keeps each distinct record once, as the edges it names, in a
 * ring per vertex in the order they were first made, each after the one
 * it followed. The tool keeps the same ring as signatures, and says
 * which record a version opens by how far along the ring it is (STEP,
 * docs/VCG.md): no record is looked up by its sources. When the next
 * record of its vertex opens, the record's edges get the versions it
 * made as uses.
 *
 * A record is a run of u32 words in one pool:
 *   ring    the next record of the same vertex (a circular list)
 *   n       sources (low 16 bits); bit 31: its edges are wide
 *   edge 0  an edge index (n = 0: the constant's edge)
 *   edges   of sources 1..n-1: as i16 differences from edge 0, two to a
 *           word, or, wide, as u32 indices (a difference out of range)
 * A vertex's edges are mostly made together, in its first time step, so
 * its records' edges lie close to each other: half the words of u32
 * indices. The sources' ids and the record's context are not kept: while
 * the graph is built an edge's src is its source's tool id and its ctx
 * the record's. A record's offset in the pool is its name; compaction renames. */
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
   uint32_t uses;   /* so far */
} vb_edge;

enum { VREC_RING, VREC_N, VREC_HEAD };
#define VREC_WIDE 0x80000000u

typedef struct vrec_pool {
   uint32_t *w;
   size_t len, cap;   /* words used and allocated */
} vrec_pool;

#define VREC_POOL_INIT { NULL, 0, 0 }

static inline uint32_t *vrec_at(const vrec_pool *p, uint32_t r)
{
   return p->w + r;
}

/* Sources of record r. */
static inline uint32_t vrec_n(const vrec_pool *p, uint32_t r)
{
   return p->w[r + VREC_N] & 0xFFFFu;
}

/* Edges of a record with n sources: a constant (n = 0) has one. */
static inline uint32_t vrec_nedges(uint32_t n)
{
   return n ? n : 1;
}

/* Edge k of record r. */
static inline uint32_t vrec_edge(const vrec_pool *p, uint32_t r, uint32_t k)
{
   const uint32_t *h = p->w + r;
   if (k == 0)
      return h[VREC_HEAD];
   if (h[VREC_N] & VREC_WIDE)
      return h[VREC_HEAD + k];
   uint32_t word = h[VREC_HEAD + 1 + (k - 1) / 2];
   int16_t d = (int16_t)(uint16_t)((k - 1) % 2 ? word >> 16 : word);
   return h[VREC_HEAD] + (uint32_t)(int32_t)d;
}

/* Words of record r. */
size_t vrec_len(const vrec_pool *p, uint32_t r);

/* A new record with n sources and the edges edges[0..max(n, 1)) in the
 * ring of `ring` (VREC_NIL: a ring of its own). VREC_NIL if out of memory
 * or if the pool would pass 2^32 words. */
uint32_t vrec_new(vrec_pool *p, uint32_t ring, const uint32_t *edges,
                  uint32_t n);

/* Copy record r of `from` to `to`, after record `ring` of `to` in its
 * ring (VREC_NIL: a ring of its own); its new name, or VREC_NIL if out
 * of memory. */
uint32_t vrec_copy(vrec_pool *to, const vrec_pool *from, uint32_t r,
                   uint32_t ring);

void vrec_free(vrec_pool *p);

#endif /* VCG_RECORDS_H */
