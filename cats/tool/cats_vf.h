/* SPDX-License-Identifier: GPL-2.0-or-later */
/*--------------------------------------------------------------------*/
/*--- cats: value-flow shadow memory, inline part.        cats_vf.h ---*/
/*--------------------------------------------------------------------*/
/* The lookup of a word's provenance is on the path of every load and
   store, so its common case is inline; cats_vf_shadow.c has the rest. */
#ifndef CATS_VF_H
#define CATS_VF_H

#include "libvex_guest_amd64.h"

/* Guest state that carries program data: the integer registers but the
   stack pointer, and the vector registers; in units of 8 bytes. */
#define VF_N_UNITS (sizeof(VexGuestAMD64State) / 8)
#define VF_OFF(f) ((Int)__builtin_offsetof(VexGuestAMD64State, f))
static inline Bool CATS_(vf_data_reg)(Int off)
{
   if (off >= VF_OFF(guest_RAX) && off < VF_OFF(guest_R15) + 8)
      return off < VF_OFF(guest_RSP) || off >= VF_OFF(guest_RSP) + 8;
   return off >= VF_OFF(guest_YMM0) && off < VF_OFF(guest_YMM16) + 32;
}

/* Registers that only update themselves (cats_vf_scan.c): self[t] =
   VF_SELF_UPDATE for each GET temporary t of the superblock that reads
   one. */
void CATS_(vf_find_self_updates)(IRSB* sbIn, UChar* self);
/* Per GET temporary: bit 0 a self-updating register read
   (vf_find_self_updates); VF_PASS_LANE << l, lane l of a vector read
   that comes back unchanged or dies (vf_find_passthrough_lanes). */
#define VF_SELF_UPDATE 1
#define VF_PASS_LANE   2
void CATS_(vf_find_passthrough_lanes)(IRSB* sbIn, UChar* self);
/* Accumulators of a loop (cats_vf_acc.c): per GET temporary, bit l
   for lane l of a register that a superblock jumping back to itself
   reads only to add to it and write back; returns how many, with the
   guest-state bytes [lo, hi) of their units. */
UInt CATS_(vf_find_accumulators)(IRSB* sbIn, Addr start, const UChar* self,
                                 UChar* acc, Int* lo, Int* hi);
/* Whether a jump of kind jk to dst goes back to the superblock's first
   instruction, at start: the next run of a loop. */
static inline Bool CATS_(vf_jumps_back)(IRJumpKind jk, const IRConst* dst,
                                        Addr start)
{
   return jk == Ijk_Boring && dst != NULL && dst->tag == Ico_U64
          && (Addr)dst->Ico.U64 == start;
}

/* Such a loop's accumulator lanes, logged instead of unioned: each run
   of the superblock appends one entry of 'nunits' words, a lane's
   slots 0 and 1 as its PUT would write them, and the unions are made
   from the log (CATS_(vf_acc_replay)) in the order the runs would have
   made them, before the loop is left and when the log is full. */
#define VF_ACC_UNITS 4
typedef struct {
   UInt    nunits;                 /* words per entry, in PUT order */
   UInt    order[VF_ACC_UNITS];    /* entry words in the order of their
                                      unions (the GETs') */
   UWord   at[VF_ACC_UNITS];       /* per word: its unit's offset in
                                      the first shadow area */
   VfSite* site[VF_ACC_UNITS];     /* and its GET's union site */
   UWord   area;                   /* the second area is 'area' further */
   UInt    skip;                   /* replays left that do not try to
                                      append (the last try failed) */
} VfAccLoop;

#define VF_ACC_LOG_WORDS 1024
extern ULong* const CATS_(vf_acc_log);   /* VF_ACC_LOG_WORDS, and
                                              VF_ACC_UNITS before */
extern ULong*     CATS_(vf_acc_cursor);   /* the next entry */
extern VfAccLoop* CATS_(vf_acc_owner);    /* the loop logging */
/* Makes the logged unions (at an exit, or the log being full). */
void CATS_(vf_acc_flush)(UChar* gst, VfAccLoop* loop);
/* (The same outside the superblock: cats_tool.h.) A fatal signal's
   end of the run drops the runs logged. */
void CATS_(vf_acc_drop)(void);
/* Marks the sets that log entries hold, for the collection. */
void CATS_(vf_acc_mark)(void (*mark)(UInt p));
void CATS_(vf_acc_stats)(void);
/* Replays n runs of 'loop' from the entries e on the shadow state at
   gst (cats_vf_sets.c). */
void CATS_(vf_acc_replay)(UChar* gst, VfAccLoop* loop, ULong* e, UInt n);

/* The operands of an operation or a helper call, and its operator
   (Iop_INVALID for a call); 0 operands for any other expression
   (cats_vf_scan.c). */
#define VF_MAX_EXPR_ARGS 16
UInt CATS_(vf_expr_args)(IRExpr* e, IRExpr** out, IROp* op);
/* Drops the writes to the shadow areas (at 'shadow' bytes, two of
   them) that are written again before anything reads them
   (cats_vf_deadput.c). */
void CATS_(vf_drop_dead_puts)(IRSB* sb, Int shadow);
/* Operations on lane 0 that copy the other lanes of their vector; that
   move data across lanes; that copy their argument (cats_vf_instr.c). */
Bool CATS_(vf_is_lowest_lane)(IROp op);
Bool CATS_(vf_is_cross_lane)(IROp op);
Bool CATS_(vf_is_copy_unop)(IROp op);

#define VF_SM_BITS 16                     /* a secondary map: 64 KiB */
#define VF_SM_SPAN ((Addr)1 << VF_SM_BITS)
#define VF_PM_SIZE ((UWord)1 << 22)       /* primary: below 2^38 */

typedef struct {
   Addr  base;
   UInt  seq;        /* 0 until the chunk's first vertex */
   UInt* vs;         /* per word: version, source signature */
   UInt* sig0;       /* per word: the signature of its first record once
                        its sources changed, or 0; NULL until a word of
                        the chunk changed its sources (cats_vf_hist.c) */
   UInt* wctx;       /* per word: 1 + the context of its last store, or
                        0; NULL until the chunk's first store
                        (cats_vf_deps.c) */
   UInt  p[0];       /* provenance per word: in the map, so that a
                        lookup is two dependent loads, not three */
} VfSecMap;

extern VfSecMap** CATS_(vf_primary);
extern UInt       CATS_(vf_wshift);   /* log2 of the word size */
VfSecMap* CATS_(vf_map_slow)(Addr a);
void CATS_(vf_copy_range)(Addr dst, Addr src, SizeT len);
/* Gives a chunk its sequence number and version table. */
void CATS_(vf_map_vertices)(VfSecMap* m);

static inline VfSecMap* CATS_(vf_map)(Addr a)
{
   UWord chunk = a >> VF_SM_BITS;
   if (LIKELY(chunk < VF_PM_SIZE)) {
      VfSecMap* m = CATS_(vf_primary)[chunk];
      if (LIKELY(m != NULL))
         return m;
   }
   return CATS_(vf_map_slow)(a);
}

/* The index of the word at 'a' in its secondary map, words of 1 << sh
   bytes. */
static inline UInt CATS_(vf_word)(Addr a, UInt sh)
{
   return (UInt)((a & (VF_SM_SPAN - 1)) >> sh);
}

/* The provenance slot of the word at 'a', words of 1 << sh bytes (the
   hooks pass a constant: one compiled copy per granularity). */
static inline UInt* CATS_(vf_p_slot_sh)(Addr a, UInt sh)
{
   VfSecMap* m = CATS_(vf_map)(a);
   return &m->p[CATS_(vf_word)(a, sh)];
}

static inline UInt* CATS_(vf_p_slot)(Addr a)
{
   return CATS_(vf_p_slot_sh)(a, CATS_(vf_wshift));
}

/*------------------------------------------------------------*/
/*--- Dependencies between contexts (cats_vf_deps.c)       ---*/
/*------------------------------------------------------------*/

/* Which context's stores each load read: a store marks its words with
   the current context, a load counts a read of the record it goes into
   (its context and container) from the marking context, one use per
   word (per 8-byte lane of a vector load). A site counts its reads
   while both stay the same; a change passes the count on to the table
   (out of line). */
void CATS_(vf_dep_switch)(Site* s, Event* e, UInt from, UInt bytes);
void CATS_(vf_dep_forget)(Site* s);
void CATS_(vf_map_wctx)(VfSecMap* m);

static inline void CATS_(vf_dep_wrote)(VfSecMap* m, UInt w)
{
   if (UNLIKELY(m->wctx == NULL))
      CATS_(vf_map_wctx)(m);
   m->wctx[w] = CATS_(cur_ctx) + 1;   /* CATS_NONE: 0 */
}

static inline void CATS_(vf_dep_read)(Site* s, Event* e, const VfSecMap* m,
                                      UInt w, UInt bytes)
{
   UInt from = m->wctx != NULL ? m->wctx[w] : 0;
   if (from == 0 || e == NULL)
      return;   /* an input, or not in a container */
   if (LIKELY(from == s->dep_from && e == s->dep_ev)) {
      s->dep_n++;
      s->dep_bytes += bytes;
      return;
   }
   CATS_(vf_dep_switch)(s, e, from, bytes);
}

/*------------------------------------------------------------*/
/*--- Source sets and version signatures                   ---*/
/*------------------------------------------------------------*/

/* A set is a node of at most VF_SET_CAP distinct sources and a count:
   P names the node and how many of its first sources are the set's (a
   view). A node only grows. The newest view of a node (its count is the
   node's fill) extends in place when there is room, so an accumulator
   (s += x, one union per iteration) writes its new sources and nothing
   else, and older views still see their prefix. A set's hash is
   computed from its sources where it is needed (a stored version, a
   reduction's link), not kept up to date by every union. Membership is
   a scan of the whole node, four sources per vector compare, masked to
   the view: no branch depends on where a source is. */
#define VF_VIEW_BITS 4
typedef struct {
   UInt  m[VF_SET_CAP + 1];   /* unordered; first, for vector loads; a
                                 spare slot for accumulate() */
   UInt  fill;
} VfSet;

extern VfSet* CATS_(vf_sets);

/* A set's P: its node, and how many of the node's sources it has. */
static inline UInt CATS_(vf_set_node)(UInt p)
{
   return (p & ~VF_SET_BIT) >> VF_VIEW_BITS;
}

static inline UInt CATS_(vf_set_count)(UInt p)
{
   return (p & ((1u << VF_VIEW_BITS) - 1)) + 1;
}

static inline UInt CATS_(vf_set_p)(UInt node, UInt count)
{
   return VF_SET_BIT | (node << VF_VIEW_BITS) | (count - 1);
}

static inline ULong CATS_(vf_mix)(UInt x)
{
   ULong h = x * 0x9E3779B97F4A7C15ULL;
   return h ^ (h >> 29);
}

/* What sources m[0..n) add to a set's hash. */
static inline ULong CATS_(vf_mix_sum)(const UInt* m, UInt n)
{
   ULong h0 = 0, h1 = 0;   /* two at a time: a link hashes 16 */
   UInt k;
   for (k = 0; k + 1 < n; k += 2) {
      h0 += CATS_(vf_mix)(m[k]);
      h1 += CATS_(vf_mix)(m[k + 1]);
   }
   if (k < n)
      h0 += CATS_(vf_mix)(m[k]);
   return h0 + h1;
}

/* A hash of a set of sources that does not depend on their order
   (sets are unordered): a sum of mixed ids. */
static inline ULong CATS_(vf_sources_hash)(const UInt* m, UInt n)
{
   return n + CATS_(vf_mix_sum)(m, n);
}

/* The hash of P's sources: CATS_(vf_sources_hash) of vf_members(P). */
static inline ULong CATS_(vf_prov_hash)(UInt p)
{
   if (p == 0)
      return 0;
   if (!(p & VF_SET_BIT))
      return 1 + CATS_(vf_mix)(p & VF_ID_MASK);
   return CATS_(vf_sources_hash)(CATS_(vf_sets)[CATS_(vf_set_node)(p)].m,
                                 CATS_(vf_set_count)(p));
}

/* The distinct non-zero ids among x[0..4) into m; returns how many.
   Without branches: which of them hold a value varies from call to
   call, and branches on it would be mispredicted. */
static inline UInt CATS_(vf_distinct4)(const UInt* x, UInt* m)
{
   UInt n = 0;
   m[n] = x[0];
   n += x[0] != 0;
   m[n] = x[1];
   n += (x[1] != 0) & (x[1] != x[0]);
   m[n] = x[2];
   n += (x[2] != 0) & (x[2] != x[0]) & (x[2] != x[1]);
   m[n] = x[3];
   n += (x[3] != 0) & (x[3] != x[0]) & (x[3] != x[1]) & (x[3] != x[2]);
   return n;
}

/* The signature of a version: its sources' hash and its context. */
static inline UInt CATS_(vf_sig)(ULong h)
{
   ULong x = h * 0xBF58476D1CE4E5B9ULL + CATS_(cur_ctx);
   return (UInt)(x ^ (x >> 32)) | 1;   /* never 0, the signature of no
                                          version */
}

/* Counts a new version of a vertex whose signature word is *sig; True
   if its sources may have changed (its first version, new sources, or
   a vertex with a history). Repeated time steps stop here: this is the
   hot path of every computed store. */
static inline Bool CATS_(vf_bump)(UInt* ver, const UInt* sig, UInt s)
{
   UInt v = ++*ver;
   return v == 1 || s != *sig;
}

/* The signatures of a vertex's distinct records in the helper's ring
   order, and the steps along it not sent yet (cats_vf_hist.c): 16 bytes
   and the signatures, in a pool of their own (NPB MG's 10 M histories
   were 54 bytes each and a pointer apart). */
typedef struct {
   UInt   id;
   UInt   run_ver;
   UInt   run_len : 24;        /* up to VF_RUN_MAX */
   UInt   cap_log : 8;         /* room for 1 << cap_log signatures */
   UShort n;                   /* records, up to CATS_VF_RING_MAX */
   UChar  open;                /* the open one's index */
   UChar  run_d;               /* records along the ring a step moves */
   UInt   sig[0];
} VfHist;
#define VF_RUN_MAX (1u << 16)  /* steps per STEP record */
#define VF_HIST_CHUNK_BITS 20  /* pool chunks of 2^20 words */

/* The history of a signature word's handle (even, not 0): its pool
   offset in words, plus one, times two. */
extern UInt** CATS_(vf_hist_chunks);
static inline VfHist* CATS_(vf_hist)(UInt handle)
{
   UInt off = (handle >> 1) - 1;
   return (VfHist*)(CATS_(vf_hist_chunks)[off >> VF_HIST_CHUNK_BITS]
                    + (off & ((1u << VF_HIST_CHUNK_BITS) - 1)));
}
UInt CATS_(vf_record_tag_slow)(UInt id, UInt ver, UInt* sig, UInt s);
/* Sends the pending steps of every vertex (before VF_END). */
void CATS_(vf_hist_finish)(void);
UInt CATS_(vf_hist_count)(void);
void CATS_(vf_hist_release)(void);

/* For version 'ver' of vertex 'id', signature s, whose signature word
   is *sig and which vf_bump found changed: the record to send with its
   sources (CATS_VF_SOURCES or CATS_VF_SOURCES_ALONE), or 0 when the
   helper knows them (the open record, or a step along the ring, sent
   later). Inline, the next step of a run: an accumulator's update in a
   repeated time step. */
static inline UInt CATS_(vf_record_tag)(UInt id, UInt ver, UInt* sig,
                                        UInt s)
{
   UInt cur = *sig;
   if ((cur & 1) == 0 && cur != 0) {
      VfHist* h = CATS_(vf_hist)(cur);
      UInt open = h->open;
      if (h->sig[open] == s)
         return 0;
      UInt next = open + 1 == h->n ? 0 : open + 1;
      if (h->sig[next] == s && h->run_len - 1 < VF_RUN_MAX - 1
          && ver == h->run_ver + h->run_len) {
         h->open = next;
         h->run_len++;
         return 0;
      }
   }
   return CATS_(vf_record_tag_slow)(id, ver, sig, s);
}

/* Sends version 'ver' of vertex 'id' (VERTEX first if it is the first)
   and, unless tag is 0, a record of tag 'tag' with the sources m[0..n)
   (none for an input). */
void CATS_(vf_send_version)(UInt id, UInt ver, UInt tag, const UInt* m,
                            UInt n, UChar kind, UInt alloc, ULong off,
                            UInt size, UInt loc);
/* Sends "m versions of 'id' from 'ver' on follow its ring, the first
   d records along it" (STEP). */
void CATS_(vf_send_step)(UInt id, UInt ver, UInt d, UInt m);

#endif /* CATS_VF_H */
