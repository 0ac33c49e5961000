/* SPDX-License-Identifier: GPL-2.0-or-later */
/*--------------------------------------------------------------------*/
/*--- cats: memory and control-flow tracing.          cats_tool.h ---*/
/*--------------------------------------------------------------------*/
/* Shared declarations of the tool's modules:
     cats_main.c     options, initialisation, client requests, finalisation
     cats_instr.c    IR instrumentation
     cats_cflow.c    threads, frames, the context tree, loops
     cats_mem.c      containers: heap, mmap, globals, stack, allocation records
     cats_events.c   folding of accesses into affine or summarised records
     cats_reuse.c    reuse (LRU stack) distances of sampled cache lines
     cats_index.c    which load feeds an access's address (static)
     cats_locs.c     strings and code locations
     cats_out.c      the helper process and trace serialisation
     cats_util.c     a hash map and a byte buffer
     cats_vf_*.c     value flow: shadow memory, provenance sets, access
                     hooks and the IR analysis (docs/VCG.md)             */
#ifndef CATS_TOOL_H
#define CATS_TOOL_H

#include "pub_tool_basics.h"
#include "pub_tool_tooliface.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_debuginfo.h"
#include "pub_tool_xarray.h"
#include "pub_tool_threadstate.h"
#include "../format/cats_format.h"

#define CATS_(str) VGAPPEND(vgCats_, str)

/*------------------------------------------------------------*/
/*--- Utilities (cats_util.c)                              ---*/
/*------------------------------------------------------------*/

/* Open-addressing hash map from a pair of 64-bit keys to a UWord value.
   Key (0,0) is reserved as the empty marker, so callers never use it.
   A slot keeps its keys and value together: a probe costs one cache
   line, not three. */
typedef struct {
   ULong k1, k2;
   UWord val;
} CatsMapSlot;

typedef struct {
   CatsMapSlot* slots;
   UWord  cap;
   UWord  used;
   const HChar* cc;
} CatsMap;

void  CATS_(map_init)(CatsMap* m, const HChar* cc);
/* Returns the slot's value pointer; *found says whether it existed. New
   slots hold 0. The pointer is valid until the next insertion. */
UWord* CATS_(map_slot)(CatsMap* m, ULong k1, ULong k2, Bool* found);
UWord* CATS_(map_find)(CatsMap* m, ULong k1, ULong k2);

/* An index of things numbered elsewhere (access records, register
   intermediates) that hold their own keys: open addressing over the
   number + 1 (0: an empty slot) and 32 bits of the key's hash (its tag),
   8 bytes a slot; the caller compares the key in the thing. A general
   map's slot would hold the keys too, three times the table for a
   program with millions of them. A probe starts at the tag scaled to
   the capacity, so the table grows without reading the things again
   (an access record may be in the spill file, cats_spill.c). It is at
   most 3/4 full and grows by half, not double (its capacity is no power
   of two): a doubling table half full was 134 MB for NPB MG's 5.5 M
   register intermediates, and old and new were three times the table
   while it grew. */
typedef struct {
   UInt num1, tag;
} CatsTagSlot;

typedef struct {
   CatsTagSlot* slots;
   UWord  cap;
   UWord  used;
   const HChar* cc;
} CatsTagMap;

void CATS_(tagmap_init)(CatsTagMap* m, const HChar* cc);
void CATS_(tagmap_free)(CatsTagMap* m);
/* Grows the table by half. */
void CATS_(tagmap_grow)(CatsTagMap* m);

static inline UWord CATS_(tagmap_home)(UWord cap, UInt tag)
{
   return (UWord)(((ULong)tag * cap) >> 32);
}

/* Room for one more entry, so that a slot found empty stays empty. */
static inline void CATS_(tagmap_reserve)(CatsTagMap* m)
{
   if (4 * (m->used + 1) > 3 * m->cap)
      CATS_(tagmap_grow)(m);
}

/* The number + 1 of the entry of hash h for which same(number, key)
   holds, or 0; *at is then the empty slot where it goes. */
static inline UInt CATS_(tagmap_find)(const CatsTagMap* m, ULong h,
                                      Bool (*same)(UInt num, const void* key),
                                      const void* key, UWord* at)
{
   UInt tag = (UInt)(h >> 32);
   UWord i;
   for (i = CATS_(tagmap_home)(m->cap, tag); m->slots[i].num1 != 0;
        i = i + 1 == m->cap ? 0 : i + 1)
      if (m->slots[i].tag == tag && same(m->slots[i].num1 - 1, key))
         return m->slots[i].num1;
   *at = i;
   return 0;
}

/* Number num of hash h into the slot tagmap_find left in at. */
static inline void CATS_(tagmap_put)(CatsTagMap* m, UWord at, ULong h, UInt num)
{
   m->slots[at].num1 = num + 1;
   m->slots[at].tag = (UInt)(h >> 32);
   m->used++;
}

/* Growable byte buffer for little-endian serialisation. */
typedef struct {
   UChar* data;
   SizeT  len;
   SizeT  cap;
} CatsBuf;

void CATS_(buf_init)(CatsBuf* b);
void CATS_(buf_free)(CatsBuf* b);
void CATS_(put_u8)(CatsBuf* b, UInt v);
void CATS_(put_u16)(CatsBuf* b, UInt v);
void CATS_(put_u32)(CatsBuf* b, UInt v);
void CATS_(put_u64)(CatsBuf* b, ULong v);
void CATS_(put_uvar)(CatsBuf* b, ULong v);   /* docs/FORMAT.md: uvar */
void CATS_(put_svar)(CatsBuf* b, Long v);    /* and svar */
void CATS_(put_bytes)(CatsBuf* b, const void* p, SizeT n);
void CATS_(patch_u32)(CatsBuf* b, SizeT at, UInt v);
/* Appends n bytes to be filled by the caller; returns where they go. */
UChar* CATS_(buf_room)(CatsBuf* b, SizeT n);

/*------------------------------------------------------------*/
/*--- Strings and code locations (cats_locs.c)             ---*/
/*------------------------------------------------------------*/

UInt CATS_(intern_str)(const HChar* s);
const HChar* CATS_(str)(UInt id);
UInt CATS_(n_strs)(void);

/* Code location of a guest instruction, with its inlined frames. */
UInt CATS_(loc_of_addr)(Addr a);
/* Code location of a function entry: never the inlined frames. */
UInt CATS_(loc_of_fn_entry)(Addr a);
UInt CATS_(n_locs)(void);
void CATS_(write_strings)(CatsBuf* b);
void CATS_(write_locs)(CatsBuf* b);
/* "fn (file:line)" for naming allocations by their site. */
UInt CATS_(loc_label)(UInt loc);
UInt CATS_(loc_fn)(UInt loc);
void CATS_(locs_init)(void);

/*------------------------------------------------------------*/
/*--- Control flow (cats_cflow.c)                          ---*/
/*------------------------------------------------------------*/

typedef struct _StackInfo StackInfo;

/* A static region of code: a natural loop or a conditional scope, as
   the helper finds them from each function's control-flow graph. Its
   code may be spread over several address ranges. */
typedef struct _Region {
   Addr  header;         /* loops: the header; conditionals: first address */
   Addr  label;          /* whose source line names it: a loop's latch
                            (the for's condition or increment), as the
                            helper finds it; a conditional's header */
   UChar kind;           /* CATS_CTX_LOOP or CATS_CTX_CONDITIONAL */
   UInt  loc;            /* code location of the label */
   struct _Region* parent;  /* enclosing region of the same function */
   Bool  rep;            /* the loop of a rep-prefixed instruction */
   UInt  depth;          /* number of enclosing regions */
   UInt  last_parent;    /* the last context it was entered under, and */
   UInt  last_ctx;       /* the node that gave: a one-entry cache */
} Region;

/* A run of code whose innermost region is 'region'. */
typedef struct {
   Addr    start, end;   /* [start, end) */
   Region* region;
} RegionRange;

/* An array in a function's stack frame, at a fixed offset from the
   frame's canonical frame address (CFA). */
typedef struct {
   Long  cfa_offset;
   ULong size;
   UInt  name;
} StackVar;

typedef struct {
   Addr   entry;
   UInt   loc;           /* code location of the entry */
   Bool   hidden;        /* our preload and code without symbols */
   Bool   is_main;       /* the program's main */
   Bool   svars_known;   /* svars looked up (lazily, at first stack use) */
   UInt   n_svars;
   const StackVar* svars;
   UInt   last_parent;   /* one-entry cache of the context node, as in */
   UInt   last_ctx;      /* Region */
   UInt   frame_ctx;     /* one-entry cache of the stack-frame record */
   UInt   frame_rec;     /* for a frame under context frame_ctx */
   UInt   frame_name;    /* "frame of <fn>", interned once */
} Func;

/* What the tool knows about a code point where control flow is tracked:
   the start of a superblock, or an instruction that starts or ends a
   region in the middle of one. */
typedef struct {
   Addr     addr;
   Func*    fn;
   Bool     is_entry;    /* addr is fn's first instruction */
   UInt     nregions;
   Region** regions;     /* containing regions, outermost first */
} Point;

typedef struct {
   UChar  kind;          /* CATS_CTX_* */
   UInt   ctx;           /* context node */
   Addr   sp;            /* SP at entry of the owning function */
   Func*  fn;            /* owning function (NULL for region/signal) */
   Region* region;       /* loops and conditionals */
   UInt   name;          /* region name for client regions */
   ULong  iter;          /* loops: iterations in this entry */
   ULong  inst;          /* unique instance number */
   Int    prev_loop;     /* index of the innermost loop frame below */
   Int    prev_fn;       /* index of the innermost function frame below */
   StackInfo* stk;       /* function frames: stack containers, lazily */
} Frame;

typedef struct {
   ThreadId tid;
   UInt     root;        /* thread root context */
   Frame*   frames;
   Int      depth;
   Int      cap;
   Int      fn_top;      /* innermost function frame, -1 if none */
   Int      loop_top;    /* innermost loop frame, -1 if none */
   Addr     stack_hi;
   UInt     last_jk;     /* CATS_(last_jk) while another thread runs */
   struct _Block* above; /* the stack above the outermost frame */
} Thread;

extern Thread* CATS_(cur_thread);
extern UInt    CATS_(cur_ctx);
extern ULong   CATS_(time);
extern UInt    CATS_(last_jk);   /* written by instrumented code */
/* Instance and iteration of the current thread's innermost loop, for
   the access fast path. */
extern ULong   CATS_(cur_inst0);
extern ULong   CATS_(cur_iter0);
/* The same for the loop around it (its count is in its frame). */
extern ULong   CATS_(cur_inst1);
extern ULong   CATS_(cur_iter1);
/* Read by the inline fast path at superblock starts: the innermost
   frame's SP, and what it stands for (a Func* or a Region*). */
extern UWord   CATS_(top_key);
extern Addr    CATS_(top_sp);

void CATS_(cflow_init)(void);
Thread* CATS_(thread)(ThreadId tid);
/* The thread on whose live stack 'a' lies, or NULL: tid (running) first,
   then the others (OpenMP's shared variables in the master's frame, a
   local passed to a thread). */
Thread* CATS_(stack_owner)(ThreadId tid, Addr a);
void CATS_(switch_thread)(ThreadId tid);
void CATS_(thread_exit)(ThreadId tid);
Func* CATS_(func_of)(Addr a, Bool* is_entry);
/* Looks up the function's stack arrays once. */
void  CATS_(func_stack_vars)(Func* f);
/* Sends queries for every loaded object not asked about yet. */
void  CATS_(prefetch_new_objects)(void);
Point* CATS_(point_of)(Addr a, Bool sb_start);
/* The point of a rep-prefixed instruction's superblock (see cflow). */
Point* CATS_(rep_point_of)(Addr a);
Bool CATS_(is_region_boundary)(Addr a);
Bool CATS_(region_holds)(const Region* r, Addr a);
VG_REGPARM(2) void CATS_(on_sb_entry)(Point* p, Addr sp);
VG_REGPARM(1) void CATS_(on_point)(Point* p);
void CATS_(region_begin)(ThreadId tid, const HChar* name);
void CATS_(region_end)(ThreadId tid, const HChar* name);
void CATS_(signal_enter)(ThreadId tid, Int sig);
void CATS_(signal_leave)(ThreadId tid, Int sig);
void CATS_(cflow_finish)(void);
UInt CATS_(n_ctxs)(void);
UInt CATS_(ctx_kind)(UInt ctx);
void CATS_(write_contexts)(CatsBuf* b);
UInt CATS_(n_threads)(void);
/* Innermost conditional scope on the stack, for marking allocations. */
Bool CATS_(in_conditional)(void);

/*------------------------------------------------------------*/
/*--- Containers (cats_mem.c)                              ---*/
/*------------------------------------------------------------*/

/* A live container instance: a range of addresses attributed to one
   allocation record. Blocks come from a pool and are never returned to
   the system, so a cached pointer stays dereferenceable; 'epoch'
   changes whenever the block is released or reused. */
typedef struct _Block {
   Addr  lo, hi;         /* [lo, hi) */
   Addr  origin;         /* offset 0 */
   UInt  alloc;          /* allocation record */
   ULong epoch;
   Bool  carrier;        /* value flow: holds provenance, never values */
   UChar literal;        /* value flow: read-only data (constants);
                            0 not known yet, 1 yes, 2 no */
} Block;

void  CATS_(mem_init)(void);
Block* CATS_(find_block)(ThreadId tid, Addr a);
/* Size of the record's container, for histograms. */
ULong CATS_(alloc_size)(UInt alloc);
void  CATS_(new_heap_block)(ThreadId tid, Addr p, SizeT n, UChar kind,
                             UInt realloc_from);
UInt  CATS_(release_heap_block)(ThreadId tid, Addr p); /* returns record */
void  CATS_(new_mmap)(ThreadId tid, Addr a, SizeT len);
void  CATS_(release_range)(ThreadId tid, Addr a, SizeT len);
void  CATS_(name_block)(ThreadId tid, Addr a, SizeT len, const HChar* name);
void  CATS_(frame_popped)(Frame* f);
void  CATS_(frame_pushed)(Thread* t, Frame* f);
UInt  CATS_(n_allocs)(void);
UInt  CATS_(n_allocs_written)(void);
void  CATS_(alloc_accessed)(UInt id);
/* Id of a record in the written trace (valid after mem_finish). */
UInt  CATS_(alloc_out_id)(UInt id);
void  CATS_(write_allocs)(CatsBuf* b);
void  CATS_(mem_finish)(void);
extern ULong CATS_(peak_footprint);
extern ULong CATS_(peak_time);

/* malloc replacement */
void* CATS_(malloc)(ThreadId tid, SizeT n);
void* CATS_(builtin_new)(ThreadId tid, SizeT n);
void* CATS_(builtin_new_aligned)(ThreadId tid, SizeT n, SizeT align);
void* CATS_(builtin_vec_new)(ThreadId tid, SizeT n);
void* CATS_(builtin_vec_new_aligned)(ThreadId tid, SizeT n, SizeT align);
void* CATS_(memalign)(ThreadId tid, SizeT align, SizeT n);
void* CATS_(calloc)(ThreadId tid, SizeT m, SizeT n);
void  CATS_(free)(ThreadId tid, void* p);
void  CATS_(builtin_delete)(ThreadId tid, void* p);
void  CATS_(builtin_delete_aligned)(ThreadId tid, void* p, SizeT align);
void  CATS_(builtin_vec_delete)(ThreadId tid, void* p);
void  CATS_(builtin_vec_delete_aligned)(ThreadId tid, void* p, SizeT al);
void* CATS_(realloc)(ThreadId tid, void* p, SizeT n);
SizeT CATS_(malloc_usable_size)(ThreadId tid, void* p);

/*------------------------------------------------------------*/
/*--- Access events (cats_events.c)                        ---*/
/*------------------------------------------------------------*/

typedef struct _Event Event;

/* A static access site: one memory operand of one instruction. The
   cache fields make repeated accesses from the same context to the same
   container a handful of compares. */
typedef struct {
   UInt   loc;
   UChar  kind;          /* CATS_READ / CATS_WRITE */
   UChar  flags;         /* CATS_EVFLAG_* */
   UInt   size;
   Block* blk;           /* cache */
   ULong  blk_epoch;
   UInt   ctx;
   Event* ev;
   Event* alt[2];        /* its records in the last other contexts (or
                            containers), most recent first */
   struct _VfSite* vf;   /* its instruction's union sites, one per lane
                            (value flow) */
   /* Value flow's dependencies (cats_vf_deps.c): the reads since the
      record read into, or the context whose stores were read, last
      changed. */
   Event* dep_ev;
   UInt   dep_from;      /* 1 + that context; 0 none */
   Bool   dep_listed;    /* in the list flushed at the end */
   ULong  dep_n, dep_bytes;
} Site;

Site* CATS_(new_site)(Addr ip, UChar kind, UInt size, UChar flags);
/* The access hook, without and with reuse distances: the instrumentation
   picks one (CATS_(access_hook)), so --reuse-distance=no costs nothing. */
VG_REGPARM(2) void CATS_(on_access)(Site* s, Addr a);
VG_REGPARM(2) void CATS_(on_access_reuse)(Site* s, Addr a);
void* CATS_(access_hook)(void);
void  CATS_(events_init)(void);
/* For the store (cats_spill.c): a record packed whole into b, unpacked
   from len bytes at p (its parts allocated if own, else into the
   caller's cold and hist: CATS_(event_cold_bytes) and a ReuseHist of
   1 + CATS_REUSE_BUCKETS counts), its parts freed; the most bytes one
   packs into; every site drops the records whose count the store set
   to 0. */
void  CATS_(event_pack)(const Event* e, CatsBuf* b);
struct _EventCold;
struct _ReuseHist;
void  CATS_(event_unpack)(Event* e, const UChar* p, SizeT len, Bool own,
                          struct _EventCold* cold, struct _ReuseHist* hist);
void  CATS_(event_drop)(Event* e);
SizeT CATS_(event_packed_max)(void);
SizeT CATS_(event_cold_bytes)(void);
void  CATS_(events_forget)(void);
UInt  CATS_(n_events)(void);
/* release: the process ends; the records are freed as they are written.
   Every CATS_SECTION_PART bytes, part(b) takes what b holds (and empties
   it): the section is the concatenation of the parts and the rest. */
#define CATS_SECTION_PART (4u << 20)
void  CATS_(write_events)(CatsBuf* b, Bool release, void (*part)(CatsBuf*));
ULong CATS_(total_accesses)(void);
extern ULong CATS_(n_unattributed);
extern ULong CATS_(bytes_unattributed);

/*------------------------------------------------------------*/
/*--- Where access records live (cats_spill.c)             ---*/
/*------------------------------------------------------------*/

extern UInt CATS_(clo_records_in_memory);
void   CATS_(spill_init)(void);
UInt   CATS_(spill_n_records)(void);
/* A zeroed record, number spill_n_records() - 1. */
Event* CATS_(spill_new)(void);
/* Record num in memory (read back if it was spilled). */
Event* CATS_(spill_get)(UInt num);
/* Record num, or a copy of it in tmp if it is in the spill file (its
   parts valid until the next call). */
const Event* CATS_(spill_peek)(UInt num, Event* tmp);
/* The accesses of all records. */
ULong  CATS_(spill_accesses)(void);
/* Record num written for the last time; last: all are. */
void   CATS_(spill_done)(UInt num, Bool last);
void   CATS_(spill_stats)(void);

/*------------------------------------------------------------*/
/*--- Reuse distances (cats_reuse.c)                       ---*/
/*------------------------------------------------------------*/

/* A histogram of LRU stack distances in cache lines (docs/FORMAT.md,
   section 9): cold (first) accesses and log2 buckets, as slots 0 and
   1 + b. Counts are estimates of all accesses: each sampled access adds
   the sampling rate N, and its distance is scaled by N. A record's
   histogram holds only the slots it used (most use two or three of 34),
   in slot order, as the section stores them: 272 bytes a record were a
   tenth of python3's peak. */
typedef struct _ReuseHist {
   ULong mask;       /* bit s: slot s has a count */
   ULong count[];    /* one per bit of mask, in slot order */
} ReuseHist;

#define CATS_REUSE_LINE_SHIFT 6          /* 64-byte lines */
#define CATS_REUSE_HASH 0x9E3779B97F4A7C15ULL

extern Bool  CATS_(clo_reuse_distance);  /* --reuse-distance */
extern UInt  CATS_(clo_reuse_sampling);  /* --reuse-sampling: N */
/* The top log2(N) bits of the line's hash must be 0 for the line to be
   tracked (SHARDS spatial sampling with rate 1/N); 0 when N = 1. */
extern ULong CATS_(reuse_mask);

/* The cheap test on the access fast path: one multiply, one and. */
static inline Bool CATS_(reuse_sampled)(Addr a)
{
   return ((((ULong)a >> CATS_REUSE_LINE_SHIFT) * CATS_REUSE_HASH)
           & CATS_(reuse_mask)) == 0;
}

void CATS_(reuse_init)(void);
/* An access to a sampled line: its distance goes to *h (allocated at
   first use); h == NULL tracks the line without recording (accesses
   outside any container still occupy the cache). */
void CATS_(reuse_sample)(ReuseHist** h, Addr a);
/* The histogram of event record i (NULL if none of its accesses was
   sampled) and its ALLOCS id in the trace (cats_events.c). */
const ReuseHist* CATS_(event_reuse)(UInt i, UInt* alloc_out);
void CATS_(write_reuse)(CatsBuf* b);
void CATS_(reuse_stats)(void);

/*------------------------------------------------------------*/
/*--- Index loads (cats_index.c)                           ---*/
/*------------------------------------------------------------*/

/* Finds, for each memory access of a superblock, the first load its
   address is computed from within the superblock (the col[k] of
   x[col[k]]) and records the pair of code locations. */
void CATS_(index_init)(void);
void CATS_(index_scan)(IRSB* sbIn);
UInt CATS_(n_index_pairs)(void);
void CATS_(write_index)(CatsBuf* b);

/*------------------------------------------------------------*/
/*--- Value flow (cats_vf_*.c, docs/VCG.md)                ---*/
/*------------------------------------------------------------*/

/* A provenance 'P' is 32 bits, held by every shadow register unit (one
   per 8 bytes of guest state), IR temporary lane and memory word:
     0                 no value (a constant, or memory never written)
     00 + id           a copy of the vertex 'id'
     01 + id           computed from the vertex 'id' alone
     1 + index         computed from a set of vertices (cats_vf_sets.c)
   The middle case needs no set, so an operation on one value (scaling,
   a conversion) costs no call. Vertex ids with bit 29 set are register
   intermediates. */
#define VF_SET_BIT   0x80000000u
#define VF_ONE_BIT   0x40000000u
#define VF_ID_MASK   0x3FFFFFFFu
#define VF_REG_BIT   0x20000000u
#define VF_SET_CAP   16          /* sources per set before materialising */
#define VF_MAX_LANES 4           /* 8-byte lanes of a 256-bit value */

extern Bool  CATS_(clo_value_flow);
/* Projection options for the helper, NULL-terminated (cats_main.c). */
extern const HChar* CATS_(proj_args)[];
extern const HChar* CATS_(helper_vf_limit);
Bool CATS_(projecting)(void);
extern UInt  CATS_(clo_vf_granularity);     /* 8 or 4 bytes */
extern Bool  CATS_(clo_vf_acc_log);         /* --vf-loop-log */
extern ULong CATS_(clo_vf_stack_array_min);

/* Shadow memory (cats_vf_shadow.c). */
void  CATS_(vf_shadow_init)(void);
/* The vertex of the word holding 'a', its version and source-set
   signature (allocated on first use). */
UInt  CATS_(vf_word_vertex)(Addr a, UInt** ver, UInt** sig);
/* For every word that holds a vertex: id, versions, address, whether
   the word still holds its own latest value. */
typedef void (*VfWordFn)(UInt id, UInt versions, Addr a, Bool holds_own,
                         void* opaque);
void  CATS_(vf_for_each_vertex)(VfWordFn fn, void* opaque);
void  CATS_(vf_clear_range)(Addr a, SizeT len);
/* How many words the shadow maps that hold vertices cover (a bound of
   the program's data with values). */
UInt  CATS_(vf_vertex_words)(void);
/* Where memory vertex 'id' keeps the signature of its first record
   once its sources changed (0 before). */
UInt* CATS_(vf_first_sig_slot)(UInt id);

/* Provenance sets (cats_vf_sets.c). */
typedef struct _VfSite {          /* a union's code site */
   UInt  loc;
   UInt  last_base;                /* the set it last extended */
   UInt  shared_id;                /* that set as one intermediate, or 0 */
   ULong epoch;                    /* set collections when last_base was seen */
   UInt  last_reg;                 /* register intermediate it made last,
                                      index + 1 (cats_vf_sets.c) */
   UInt  n_links;                  /* register intermediates it made */
   UInt  rep_sig, rep_id;          /* a store's: the signature of the
                                      last version it made, and the
                                      vertex that first held that value
                                      (cats_vf.c, again_value) */
} VfSite;
void  CATS_(vf_sets_init)(void);
/* Members of P: a set's sources, a copied value itself, or none. */
UInt  CATS_(vf_members)(UInt p, UInt* out /* VF_SET_CAP */);
VG_REGPARM(3) UInt CATS_(vf_union)(VfSite* site, UWord ab, UWord cd);
/* Marks memory vertex id as read by a condition (cats_vf.c). */
void CATS_(vf_control_word)(UInt id);
/* Marks the values of four provenances as read by a condition. */
VG_REGPARM(2) void CATS_(vf_control)(UWord ab, UWord cd);
/* A register read: the register lanes 'mask' (bit 0: the unit at 'at',
   an offset in the first shadow area; the second is 'area' bytes
   further) that hold lazy slots get their union as slot 0; lane l's at
   site + l. One argument for the call, not four: VEX sets up a guarded
   call's arguments whether it runs or not. */
typedef struct {
   VfSite* site;
   UWord   at, area, mask;
} VfRegRead;
void CATS_(vf_union_reg1)(UChar* gst, const VfRegRead* r);
void CATS_(vf_union_reg2)(UChar* gst, const VfRegRead* r);
void CATS_(vf_union_reg)(UChar* gst, const VfRegRead* r);
/* Set when the pool of sets is nearly full; the collection is made at
   the start of the next superblock. */
extern UChar CATS_(vf_collect_due);
void  CATS_(vf_collect_now)(void);
/* The value of a lane given as four provenances (see vf_store_atoms_hook). */
UInt  CATS_(vf_atoms_value)(VfSite* site, UInt* in);
/* For a store that makes a version: the union of four provenances, one
   of them a set, as its sources in out[] (room for 4 * VF_SET_CAP); 0
   with *p set when the union is one value (shared, or a reduction's
   link). */
UInt  CATS_(vf_union_sources)(VfSite* site, UInt* in, UInt* out, UInt* p);
/* The same union when it is neither shared nor a link (the set not seen
   again at this site, all the inputs' sources fitting one set): notes
   the set at the site as vf_union_sources would, and gives in *h the
   hash of the inputs' sources counted with their repeats, a signature
   that needs no search for them; False, with nothing changed, in the
   other cases. vf_union_list then gives the sources themselves. */
Bool  CATS_(vf_union_store_hash)(VfSite* site, const UInt* in, ULong* h);
UInt  CATS_(vf_union_list)(const UInt* in, UInt* out);
/* Whether vertex id is a link of a reduction's chain (a register
   intermediate that is not a hub). */
Bool  CATS_(vf_is_link)(UInt id);
void  CATS_(vf_sets_stats)(void);
void  CATS_(vf_sets_release)(void);
void  CATS_(vf_for_each_register_vertex)(void (*fn)(UInt id, UInt ver, UChar flags,
                                                   void* opaque),
                                          void* opaque);

/* Access hooks and the stream to the helper (cats_vf.c). */
/* The load hook for a load of 'size' bytes at the run's granularity:
   VG_REGPARM(2) ULong hook(Site* s, Addr a), the provenance of lanes 0
   and 1 (2 and 3 in CATS_(vf_lane_hi)). */
void* CATS_(vf_load_hook)(UInt size);
VG_REGPARM(3) ULong CATS_(vf_store)(Site* s, Addr a, ULong p01, ULong p23);
/* The store hook for a store of 'size' bytes, up to 16, at the run's
   granularity: a store of one or two lanes, each given as four
   provenances (ab, cd): a lane is a, if b, c and d are 0, else computed
   from all four. A computed value's sources go straight to its vertex,
   without a set. For up to 8 bytes (lane 0 only)
   VG_REGPARM(3) ULong hook(Site* s, Addr a, ULong ab0, ULong cd0),
   for 16 ULong hook(Site* s, Addr a, ULong ab0, ULong cd0, ULong ab1,
   ULong cd1). */
void* CATS_(vf_store_atoms_hook)(UInt size);
/* Lanes 2 and 3 of the last 256-bit load or store. */
extern UInt CATS_(vf_lane_hi)[2];
void  CATS_(vf_init)(void);
void  CATS_(vf_finish)(void);
/* At the end of the run, once VF_END is sent: gives back the memory of
   the registers' intermediates and the vertices' histories, which the
   tool would otherwise hold while the helper finishes the graph, the
   largest part of a run's peak. Nothing of value flow runs after it. */
void  CATS_(vf_release)(void);
/* Flushes every site's dependency count and writes section 11 (DEPS);
   how many records it wrote (cats_vf_deps.c). */
void  CATS_(vf_write_deps)(CatsBuf* b);
UInt  CATS_(vf_n_deps)(void);
void  CATS_(vf_stats)(void);
void  CATS_(vf_after_fork)(void);
/* A loop's logged accumulator unions (cats_vf_acc.c) are made before a
   thread switch, a signal, a discarded translation, a thread's exit. */
void  CATS_(vf_acc_set_thread)(ThreadId tid);
void  CATS_(vf_acc_flush_thread)(void);
void  CATS_(vf_acc_thread_exit)(ThreadId tid);

/* IR (cats_vf_instr.c): instruments one statement for value flow and
   its memory accesses; False if it leaves the statement to the trace's
   instrumentation. */
typedef struct _VfSB VfSB;
/* Instruments the collection's safe point (at a superblock's first
   instruction). */
void  CATS_(vf_safe_point)(VfSB* v);
VfSB* CATS_(vf_sb_begin)(IRSB* sbIn, IRSB* out,
                         const VexGuestLayout* layout);
Bool  CATS_(vf_instrument_stmt)(VfSB* v, IRStmt* st, Addr ip);
void  CATS_(vf_sb_end)(VfSB* v);

/*------------------------------------------------------------*/
/*--- Instrumentation (cats_instr.c)                       ---*/
/*------------------------------------------------------------*/

IRSB* CATS_(instrument)(VgCallbackClosure* closure, IRSB* sbIn,
                        const VexGuestLayout* layout,
                        const VexGuestExtents* vge,
                        const VexArchInfo* archinfo,
                        IRType gWordTy, IRType hWordTy);
extern Bool CATS_(instr_on);

/*------------------------------------------------------------*/
/*--- Output (cats_out.c)                                  ---*/
/*------------------------------------------------------------*/

Bool  CATS_(helper_start)(const HChar* out_path);
void  CATS_(out_init)(void);
/* Notes the trace file as it is now, so that the end can tell whether
   another run (or a forked child) wrote it meanwhile. */
void  CATS_(out_snapshot)(void);
/* Loops and conditionals of an object: a region table and the
   non-overlapping ranges labelled with their innermost region, sorted. */
void  CATS_(regions_of_object)(Addr text_avma, SizeT text_size,
                                const HChar* path,
                                /*OUT*/Region** regs, /*OUT*/UInt* n_regs,
                                /*OUT*/RegionRange** ranges,
                                /*OUT*/UInt* n_ranges);
/* Asks the helper about an object ahead of need. */
void  CATS_(prefetch_object)(Addr text_avma, SizeT text_size,
                              const HChar* path);
/* Stack arrays of the object's functions, sorted by function entry. */
typedef struct { Addr fn_entry; StackVar var; } FnStackVar;
void  CATS_(stackvars_of_object)(Addr text_avma, SizeT text_size,
                                  const HChar* path,
                                  /*OUT*/FnStackVar** vars, /*OUT*/UInt* n);
/* ending: the process ends after it (not an execve, which may fail). */
Bool  CATS_(write_trace)(Bool ending);
/* Sends a frame of a stream (value flow) to the helper. */
Bool  CATS_(send_stream)(UInt type, const void* payload, SizeT len);
extern const HChar* CATS_(out_path);
/* This process is a fork of the traced guest. */
extern Bool CATS_(forked_child);

/*------------------------------------------------------------*/
/*--- Options and run metadata (cats_main.c)               ---*/
/*------------------------------------------------------------*/

extern Bool  CATS_(clo_instr_atstart);
extern UInt  CATS_(clo_helper_timeout);   /* seconds without progress */
extern Bool  CATS_(clo_separate_debug_files);
extern const HChar* CATS_(clo_out_file);
extern Int   CATS_(exit_code);
extern Int   CATS_(fatal_signal);
extern Bool  CATS_(exec_called);

#endif /* CATS_TOOL_H */
