/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cats_format.h: constants of the .cats trace format (docs/FORMAT.md).
 *
 * Shared by the Valgrind tool (no libc) and the host programs, so it holds
 * only enumerations and sizes; each side serialises fields explicitly in
 * little-endian order instead of sharing C structs, which keeps the layout
 * independent of compiler padding. */
#ifndef CATS_FORMAT_H
#define CATS_FORMAT_H

#define CATS_MAGIC          "CATSTRC"     /* 8 bytes with the NUL */
#define CATS_MAGIC_LEN      8
#define CATS_VERSION        7
#define CATS_HEADER_SIZE    16
#define CATS_SECTION_ENTRY_SIZE 40
#define CATS_NONE           0xFFFFFFFFu

/* Section types. */
enum cats_section {
   CATS_SEC_STRINGS  = 1,
   CATS_SEC_META     = 2,
   CATS_SEC_LOCS     = 3,
   CATS_SEC_CONTEXTS = 4,
   CATS_SEC_ALLOCS   = 5,
   CATS_SEC_EVENTS   = 6,
   CATS_SEC_VCG      = 7,   /* value communication graph (docs/VCG.md) */
   CATS_SEC_PROJECT  = 8,   /* reserved for communication projections */
   CATS_SEC_REUSE    = 9,   /* reuse (stack) distance histograms */
   CATS_SEC_INDEX    = 10,  /* the load that feeds an access's address */
   CATS_SEC_DEPS     = 11,  /* which context's stores each load read */
   CATS_SEC_MAX      = 99
};

#define CATS_SECFLAG_ZLIB 1u

/* Record sizes in bytes (EVENTS records vary: FORMAT.md). */
#define CATS_LOC_SIZE      28
#define CATS_CONTEXT_SIZE  56
#define CATS_ALLOC_SIZE    112

/* Context node kinds. */
enum cats_ctx_kind {
   CATS_CTX_THREAD      = 0,
   CATS_CTX_FUNCTION    = 1,
   CATS_CTX_LOOP        = 2,
   CATS_CTX_CONDITIONAL = 3,
   CATS_CTX_REGION      = 4,
   CATS_CTX_SIGNAL      = 5
};
#define CATS_CTXFLAG_RECURSIVE 1u

/* Allocation kinds. */
enum cats_alloc_kind {
   CATS_ALLOC_MALLOC     = 0,
   CATS_ALLOC_CALLOC     = 1,
   CATS_ALLOC_REALLOC    = 2,
   CATS_ALLOC_MEMALIGN   = 3,
   CATS_ALLOC_NEW        = 4,
   CATS_ALLOC_NEW_ARRAY  = 5,
   CATS_ALLOC_MMAP       = 6,
   CATS_ALLOC_GLOBAL     = 7,
   CATS_ALLOC_STACK_VAR  = 8,
   CATS_ALLOC_STACK_FRAME = 9,
   CATS_ALLOC_CLIENT     = 10,
   CATS_ALLOC_KIND_COUNT = 11
};
#define CATS_ALLOCFLAG_LEAKED      1u
#define CATS_ALLOCFLAG_CONDITIONAL 2u

/* Access kinds and patterns. */
enum cats_access_kind { CATS_READ = 0, CATS_WRITE = 1 };
enum cats_pattern {
   CATS_PAT_CONSTANT  = 0,
   CATS_PAT_STRIDE1   = 1,
   CATS_PAT_STRIDEK   = 2,
   CATS_PAT_IRREGULAR = 3
};
#define CATS_EVFLAG_HELPER 1u

#define CATS_MAX_DIMS      3
#define CATS_MAX_DISTINCT  8
#define CATS_HIST_BUCKETS  16

/* Tool <-> writer protocol frame types. */
enum cats_frame {
   CATS_FRAME_LOOPS_QUERY  = 100,
   CATS_FRAME_LOOPS_ANSWER = 101,
   CATS_FRAME_STACKVARS_QUERY  = 102,
   CATS_FRAME_STACKVARS_ANSWER = 103,
   CATS_FRAME_VF           = 104,   /* value-flow records (docs/VCG.md) */
   CATS_FRAME_VF_END       = 105,   /* final versions, alloc id table */
   CATS_FRAME_COMMIT       = 200,
   CATS_FRAME_COMMITTED    = 201,
   CATS_FRAME_WRITTEN      = 202    /* the trace is in place; a projection
                                       follows before COMMITTED */
};
#define CATS_FRAME_HEADER_SIZE 16
/* LOOPS answer: region table entry, then range entry (docs/FORMAT.md). */
#define CATS_REGION_ENTRY_SIZE 24
#define CATS_RANGE_ENTRY_SIZE  24

/* Value communication graph (docs/VCG.md): section 7 record sizes and
 * vertex flags, the record tags of VF frames and their vertex kinds. */
#define CATS_VCG_HEADER_SIZE 16
/* The fewest bytes of a record: a vertex's eight numbers, one byte each;
 * a repeated group of edges takes one byte for at most
 * CATS_VCG_REPEAT_MAX edges (docs/FORMAT.md). */
#define CATS_VCG_VERTEX_MIN  8
#define CATS_VCG_REPEAT_MAX  1024
#define CATS_VCG_INPUT    1u   /* read before it was ever written */
#define CATS_VCG_OUTPUT   2u   /* last version live at exit */
#define CATS_VCG_REGISTER 4u   /* register intermediate, not memory */
#define CATS_VCG_CONTROL  8u   /* read by a condition (a floating-point
                                  comparison) */
#define CATS_VCG_FLAGS    15u  /* all known flags */
/* Whether a packed vertex's offset is written from the vertex before's:
 * both memory vertices of one allocation (sorted by offset). */
#define CATS_VCG_OFFSET_FROM_PREVIOUS(vflags, valloc, qflags, qalloc)                    \
   (!((vflags) & CATS_VCG_REGISTER) && !((qflags) & CATS_VCG_REGISTER) &&               \
    (valloc) == (qalloc))
enum cats_vf_tag {
   CATS_VF_VERTEX        = 1,
   CATS_VF_SOURCES       = 2,
   CATS_VF_SOURCES_ALONE = 3,   /* a new record that starts a new ring */
   CATS_VF_STEP          = 4    /* versions that follow the ring */
};
/* Records in a ring that STEP may walk (docs/VCG.md). */
#define CATS_VF_RING_MAX 256
enum cats_vf_kind {
   CATS_VF_MEMORY       = 0,
   CATS_VF_MEMORY_INPUT = 1,
   CATS_VF_REGISTER     = 2
};
#define CATS_VF_MAX_SOURCES 65535   /* n is a u16 */
#define CATS_VF_END_OUTPUT  1u      /* VF_END vertex flag: an output */
#define CATS_VF_END_CONTROL 2u      /* VF_END vertex flag: read by a
                                       condition */

/* Reuse distances (section 9): per histogram a cold count and log2
 * buckets of the LRU stack distance d in cache lines: bucket 0 holds
 * d = 0, bucket b (1 <= b < 32) holds 2^(b-1) <= d < 2^b and bucket 32
 * d >= 2^31. A record's mask has bit 0 for cold and bit 1 + b for
 * bucket b. */
#define CATS_REUSE_BUCKETS    33
#define CATS_REUSE_MASK_BITS  (1 + CATS_REUSE_BUCKETS)
#define CATS_REUSE_HEADER_SIZE 12    /* line size, sampling, buckets */
#define CATS_REUSE_LINE_SIZE  64
#define CATS_REUSE_MAX_SAMPLING 1024
#define CATS_INDEX_PAIR_SIZE  8      /* section 10: access loc, index loc */
#define CATS_DEP_RECORD_SIZE  32     /* section 11: from, to, alloc, 0,
                                        u64 uses, u64 bytes */

#endif /* CATS_FORMAT_H */
