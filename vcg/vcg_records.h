/* SPDX-License-Identifier: GPL-2.0-or-later */
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
 *   n       sources (low 16 bits); bit 31: its edges are wide; bit 30:
 *           its edges are consecutive
 *   edge 0  an edge index (n = 0: the constant's edge)
 *   edges   of sources 1..n-1: as i16 differences from edge 0, two to a
 *           word, or, wide, as u32 indices (a difference out of range),
 *           or, consecutive, none: edge k is edge 0 + k
 * A vertex's edges are mostly made together, in its first time step, so
 * its records' edges lie close to each other: half the words of u32
 * indices; and a vertex's first record made all its edges, in order: 12
 * bytes whatever its sources (NPB MG's pool: 1.45 GB of 2-byte
 * differences). The sources' ids and the record's context are not kept: while
 * the graph is built an edge's src is its source's tool id and its ctx
 * the record's. A record's offset in the pool is its name; compaction renames. */
#ifndef VCG_RECORDS_H
#define VCG_RECORDS_H

#include <stddef.h>
#include <stdint.h>

#include "vcg_build.h"

#define VCG_RECORDS_NIL 0xFFFFFFFFu

/* An edge while the graph is built (vcg_build.c): 16 bytes, the largest
 * array of a large graph. src is the source's tool id until the graph is
 * finished; dst is the builder's index of the sink. */
typedef struct vcg_build_edge {
   uint32_t src, dst, ctx;
   uint32_t uses;   /* so far */
} vcg_build_edge;

enum { VCG_RECORDS_RING, VCG_RECORDS_N, VCG_RECORDS_HEAD };
#define VCG_RECORDS_WIDE 0x80000000u
#define VCG_RECORDS_RUN  0x40000000u

typedef struct vcg_records_pool {
   uint32_t *w;
   size_t len, cap;   /* words used and allocated */
} vcg_records_pool;

#define VCG_RECORDS_POOL_INIT { NULL, 0, 0 }

static inline uint32_t *vcg_records_at(const vcg_records_pool *p, uint32_t r)
{
   return p->w + r;
}

/* Sources of record r. */
static inline uint32_t vcg_records_n(const vcg_records_pool *p, uint32_t r)
{
   return p->w[r + VCG_RECORDS_N] & 0xFFFFu;
}

/* Edges of a record with n sources: a constant (n = 0) has one. */
static inline uint32_t vcg_records_nedges(uint32_t n)
{
   return n ? n : 1;
}

/* Edge k of record r. */
static inline uint32_t vcg_records_edge(const vcg_records_pool *p, uint32_t r, uint32_t k)
{
   const uint32_t *h = p->w + r;
   if (k == 0)
      return h[VCG_RECORDS_HEAD];
   if (h[VCG_RECORDS_N] & VCG_RECORDS_RUN)
      return h[VCG_RECORDS_HEAD] + k;
   if (h[VCG_RECORDS_N] & VCG_RECORDS_WIDE)
      return h[VCG_RECORDS_HEAD + k];
   uint32_t word = h[VCG_RECORDS_HEAD + 1 + (k - 1) / 2];
   int16_t d = (int16_t)(uint16_t)((k - 1) % 2 ? word >> 16 : word);
   return h[VCG_RECORDS_HEAD] + (uint32_t)(int32_t)d;
}

/* Words of record r. */
size_t vcg_records_len(const vcg_records_pool *p, uint32_t r);

/* A new record with n sources and the edges edges[0..max(n, 1)) in the
 * ring of `ring` (VCG_RECORDS_NIL: a ring of its own). VCG_RECORDS_NIL if out of memory
 * or if the pool would pass 2^32 words. */
uint32_t vcg_records_new(vcg_records_pool *p, uint32_t ring, const uint32_t *edges,
                         uint32_t n);

/* Copy record r of `from` to `to`, after record `ring` of `to` in its
 * ring (VCG_RECORDS_NIL: a ring of its own); its new name, or VCG_RECORDS_NIL if out
 * of memory. */
uint32_t vcg_records_copy(vcg_records_pool *to, const vcg_records_pool *from, uint32_t r,
                          uint32_t ring);

void vcg_records_free(vcg_records_pool *p);

#endif /* VCG_RECORDS_H */
