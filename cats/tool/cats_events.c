/* SPDX-License-Identifier: GPL-2.0-or-later */
/*--------------------------------------------------------------------*/
/*--- cats: folding accesses into records.            cats_events.c ---*/
/*--------------------------------------------------------------------*/
/* Every access is folded into the record of its (context, code
   location, container, kind, size). Within a record the offsets are
   matched against an affine function of the iteration numbers of the
   innermost enclosing loops:

      offset = base + stride[0]*i0 + stride[1]*i1 + stride[2]*i2

   Each access compares the loop iteration vector with the one of the
   record's previous access. The outermost loop level that moved decides
   which stride must explain the change in offset; the first time a
   level moves its stride is learnt. A loop that is entered anew counts
   as one step of the next outer level, so a kernel called from a
   time-step loop stays affine. The first offset that does not fit turns
   the record irregular.

   Every record also keeps a bounded summary: its first distinct offsets
   and a histogram over the container. The fast path does not touch
   them: it only extends a *run* (an arithmetic progression of offsets),
   and a run is added to the summary in O(buckets) when it ends. So a loop over a million elements is one record, and
   records grow with the program, not with its run time. */

#include "cats_tool.h"
#include "cats_vf.h"      /* CATS_(vf_dep_forget) */

static inline void summarise_one(Event* e, Long off);
#define CATS_EVENT_IRREGULAR(e, off) summarise_one(e, off)
#include "cats_access.h"

/* The slow path's state: none until a record's first slow-path update
   (in a large program most records never get one, all their accesses
   at one offset), then created as the record would have had it
   from the start (cold_init). */
struct _EventCold {
   /* The summary: all that an irregular record keeps. */
   Long  base, min_off, max_off;
   UInt  ndistinct;
   UInt  hist[CATS_HIST_BUCKETS];    /* saturating, as the format's */
   Long  distinct[CATS_MAX_DISTINCT];
   /* The current run: the accesses since the last slow-path update,
      run_off + k * run_stride for k < count - run_count0. */
   Long  run_off;
   ULong run_count0;
   /* The affine walk, given back when the record turns irregular (a
      third of python3's records). */
   Long  stride[CATS_MAX_DIMS + 1];
   Long  anchor[CATS_MAX_DIMS + 1];   /* offset at start of level k step */
   ULong span_start[CATS_MAX_DIMS + 1];
   ULong extent[CATS_MAX_DIMS + 1];
   ULong entries;                     /* steps of the re-entry level */
};
#define EVENT_COLD_SUMMARY __builtin_offsetof(EventCold, stride)

ULong CATS_(n_unattributed);
ULong CATS_(bytes_unattributed);

/* The records are freed as they are written (write_events); the total
   that is still asked for afterwards is kept. */
static Bool    records_freed;
static ULong   accesses_written;

/* Records by key (ctx, alloc, loc, size, kind), the key compared in
   the record. */
static CatsTagMap index;

/* Every site, to drop the records the store takes away
   (CATS_(events_forget)). Sites live for ever. */
static XArray* sites;

void CATS_(events_init)(void)
{
   CATS_(tagmap_init)(&index, "cats.eventindex");
   sites = VG_(newXA)(VG_(malloc), "cats.sites", VG_(free), sizeof(Site*));
   CATS_(spill_init)();
}

UInt CATS_(n_events)(void) { return CATS_(spill_n_records)(); }

static inline Event* event_at(UInt i)
{
   return CATS_(spill_get)(i);
}

static inline ULong key_hash(UInt ctx, UInt alloc, UInt loc, UInt size,
                             UChar kind)
{
   ULong h = ((((ULong)ctx << 32) | alloc) * 0x9E3779B97F4A7C15ULL)
             ^ ((((ULong)loc << 32) | ((ULong)size << 1) | kind)
                * 0xC2B2AE3D27D4EB4FULL);
   return h ^ (h >> 31);
}

/* An access's key, for the index. */
typedef struct {
   UInt ctx, alloc;
   const Site* site;
} EventKey;

static Bool same_key(UInt num, const void* key)
{
   const Event* e = event_at(num);
   const EventKey* k = key;
   return e->ctx == k->ctx && e->alloc == k->alloc && e->loc == k->site->loc
          && e->size == k->site->size && e->kind == k->site->kind;
}

Site* CATS_(new_site)(Addr ip, UChar kind, UInt size, UChar flags)
{
   /* One instruction's access: VEX's widest is a 512-byte FXSAVE area
      (a record keeps 16 bits). */
   tl_assert(size <= 0xFFFF);
   Site* s = VG_(calloc)("cats.site", 1, sizeof(Site));
   s->loc = CATS_(loc_of_addr)(ip);
   s->kind = kind;
   s->size = size;
   s->flags = flags;
   s->ctx = CATS_NONE;
   VG_(addToXA)(sites, &s);
   return s;
}

/* The loop iteration vector of the current thread, innermost first. */
static inline UInt loop_vector(ULong* inst, ULong* iter)
{
   const Thread* t = CATS_(cur_thread);
   Int i = t->loop_top;
   UInt n = 0;
   while (i >= 0 && n < CATS_MAX_DIMS) {
      inst[n] = t->frames[i].inst;
      /* The innermost loop's count lives in CATS_(cur_iter0). */
      iter[n] = n == 0 ? CATS_(cur_iter0) : t->frames[i].iter;
      n++;
      i = t->frames[i].prev_loop;
   }
   return n;
}

/* Histogram buckets are a power of two wide, the smallest width for
   which CATS_HIST_BUCKETS buckets cover the container: a shift, not a
   division, on the path of every irregular access. */
static UInt hist_shift(ULong csize)
{
   UInt sh = 0;
   while (((ULong)CATS_HIST_BUCKETS << sh) < csize)
      sh++;
   return sh;
}

static inline UInt bucket_of(const Event* e, Long off)
{
   if (off < 0)
      return 0;
   ULong b = (ULong)off >> e->hist_shift;
   return b < CATS_HIST_BUCKETS ? (UInt)b : CATS_HIST_BUCKETS - 1;
}

static void add_distinct(Event* e, Long off)
{
   UInt i;
   if (e->c->ndistinct == CATS_MAX_DISTINCT)
      return;
   for (i = 0; i < e->c->ndistinct; i++)
      if (e->c->distinct[i] == off)
         return;
   e->c->distinct[e->c->ndistinct++] = off;
}

/* Number of k in [0, len) with lo <= a + k*s < hi, for s > 0. */
static ULong terms_in(Long a, Long s, ULong len, Long lo, Long hi)
{
   Long first = a >= lo ? 0 : (lo - a + s - 1) / s;
   Long end = a >= hi ? 0 : (hi - a + s - 1) / s;
   if (end > (Long)len)
      end = (Long)len;
   return end > first ? (ULong)(end - first) : 0;
}

/* Adds n to a bucket, saturating at the format's 32 bits (a large
   program has a million records; 8 bytes a bucket was 64 of each). */
static inline void hist_add(Event* e, UInt b, ULong n)
{
   ULong v = e->c->hist[b] + n;
   e->c->hist[b] = v > 0xFFFFFFFFULL ? 0xFFFFFFFFu : (UInt)v;
}

/* Adds the progression a + k*s, k < len, to the summary. Runs end at
   every re-entry of an inner loop, so the common cases are cheap: a run
   within one bucket, or a short one. */
static void add_progression(Event* e, Long a, Long s, ULong len)
{
   ULong k;
   UInt b;
   if (len == 0)
      return;
   for (k = 0; k < len && e->c->ndistinct < CATS_MAX_DISTINCT; k++) {
      add_distinct(e, a + (Long)k * s);
      if (s == 0)
         break;
   }
   if (s < 0) {               /* the same set of offsets, ascending */
      a += (Long)(len - 1) * s;
      s = -s;
   }
   UInt first = bucket_of(e, a);
   UInt last = bucket_of(e, a + (Long)(len - 1) * s);
   if (first == last) {
      hist_add(e, first, len);
      return;
   }
   if (len <= 32) {
      for (k = 0; k < len; k++)
         hist_add(e, bucket_of(e, a + (Long)k * s), 1);
      return;
   }
   /* The first bucket also takes negative offsets, the last everything
      beyond it: their open ends become the progression's own ends. */
   Long w = (Long)1 << e->hist_shift;
   for (b = first; b <= last; b++) {
      Long lo = b == 0 ? a : (Long)b * w;
      Long hi = b == CATS_HIST_BUCKETS - 1 ? a + (Long)len * s
                                           : (Long)(b + 1) * w;
      hist_add(e, b, terms_in(a, s, len, lo, hi));
   }
}

/* Irregular records summarise each access at once, with no run. */
static inline void summarise_one(Event* e, Long off)
{
   if (off < e->c->min_off)
      e->c->min_off = off;
   if (off > e->c->max_off)
      e->c->max_off = off;
   add_distinct(e, off);
   hist_add(e, bucket_of(e, off), 1);
   e->c->run_count0 = e->count;
}

static void make_irregular(Event* e)
{
   e->irregular = 1;
   /* Its affine walk is never read again. Valgrind's realloc keeps a
      block that shrinks, so a smaller one is made. */
   EventCold* c = VG_(malloc)("cats.event.cold", EVENT_COLD_SUMMARY);
   VG_(memcpy)(c, e->c, EVENT_COLD_SUMMARY);
   VG_(free)(e->c);
   e->c = c;
}

/* Checks that moving 'delta' steps at level k lands on 'off'. */
static Bool step_fits(Event* e, UInt k, ULong delta, Long off)
{
   Long moved = off - e->c->anchor[k];
   if (!(e->known & (1u << k))) {
      if (delta == 0 || moved % (Long)delta != 0)
         return False;
      e->c->stride[k] = moved / (Long)delta;
      e->known |= 1u << k;
      return True;
   }
   return moved == e->c->stride[k] * (Long)delta;
}

/* The extents reached by the iterations seen so far. */
static void fold_extents(Event* e)
{
   UInt j;
   for (j = 0; j < e->ndims; j++) {
      ULong span = e->iter[j] - e->c->span_start[j] + 1;
      if (span > e->c->extent[j])
         e->c->extent[j] = span;
   }
}

/* Adds the current run to the offset range and the summary and leaves
   an empty run. */
static void fold_summary(Event* e)
{
   ULong len = e->count - e->c->run_count0;
   if (len == 0)
      return;
   Long last = e->c->run_off + (Long)(len - 1) * e->run_stride;
   Long lo = e->c->run_off < last ? e->c->run_off : last;
   Long hi = e->c->run_off < last ? last : e->c->run_off;
   if (lo < e->c->min_off)
      e->c->min_off = lo;
   if (hi > e->c->max_off)
      e->c->max_off = hi;
   add_progression(e, e->c->run_off, e->run_stride, len);
   e->c->run_count0 = e->count;
}

/* Folds the current run (fast-path updates touch only iter[0],
   last_off and count) into the extents, the offset range and the
   summary. */
static void fold_run(Event* e)
{
   if (!e->irregular)
      fold_extents(e);
   fold_summary(e);
}

/* Folds the run before the access just counted, which is not part of
   it. */
static void fold_run_before_this(Event* e)
{
   e->count--;
   fold_summary(e);
   e->count++;
}

/* The access just counted starts a new run. */
static inline void start_run(Event* e, Long off)
{
   e->c->run_off = off;
   e->run_stride = (e->ndims > 0 && (e->known & 1)) ? e->c->stride[0] : 0;
   e->c->run_count0 = e->count - 1;
}

/* The slow-path state of a record that has had none: what it would
   have been from the start. The fast path changed only count and
   last_time meanwhile (the same offset in the same iterations), so the
   first access's offset and iterations are still last_off, inst, iter,
   and the run holds every access so far. */
static void cold_init(EventCold* c, const Event* e)
{
   UInt j;
   VG_(memset)(c, 0, sizeof *c);
   c->base = c->min_off = c->max_off = e->last_off;
   for (j = 0; j <= CATS_MAX_DIMS; j++) {
      c->anchor[j] = e->last_off;
      c->extent[j] = 1;
   }
   for (j = 0; j < e->ndims; j++)
      c->span_start[j] = e->iter[j];
   c->run_off = e->last_off;
   c->run_count0 = 0;
}

__attribute__((noinline))
void CATS_(event_update_slow)(Event* e, Long off)
{
   ULong inst[CATS_MAX_DIMS], iter[CATS_MAX_DIMS];
   UInt n, k, j;

   if (UNLIKELY(e->c == NULL)) {
      e->c = VG_(malloc)("cats.event.cold", sizeof(EventCold));
      cold_init(e->c, e);
   }
   if (e->irregular) {
      summarise_one(e, off);
      return;
   }
   /* A run is an arithmetic progression of offsets, whatever the loops
      did: an inner loop entered anew where the last one stopped (the
      rows of a CSR matrix) keeps its run, and its summary is folded
      once, not once per entry. */
   Bool continues = e->count - 1 > e->c->run_count0
                    && off == e->last_off + e->run_stride;
   fold_extents(e);
   if (!continues)
      fold_run_before_this(e);
   /* The inner loop entered anew at the next outer iteration, one outer
      stride on: the usual step of a loop nest, without the general
      search below. */
   if (e->ndims >= 2 && CATS_EV_INST(CATS_(cur_inst0)) != e->inst[0]
       && CATS_EV_INST(CATS_(cur_inst1)) == e->inst[1]
       && CATS_(cur_iter1) == e->iter[1] + 1 && (e->known & 2)
       && off == e->c->anchor[1] + e->c->stride[1]) {
      ULong span = CATS_(cur_iter1) - e->c->span_start[1] + 1;
      if (span > e->c->extent[1])
         e->c->extent[1] = span;
      e->c->anchor[0] = e->c->anchor[1] = off;
      e->inst[0] = CATS_EV_INST(CATS_(cur_inst0));
      e->iter[0] = e->c->span_start[0] = CATS_(cur_iter0);
      e->iter[1] = CATS_(cur_iter1);
      e->last_off = off;
      if (!continues)
         start_run(e, off);
      return;
   }
   n = loop_vector(inst, iter);
   if (n != e->ndims) {
      /* A different loop nesting under the same context cannot happen;
         be safe anyway. */
      if (continues)
         fold_run_before_this(e);
      make_irregular(e);
      summarise_one(e, off);
      return;
   }
   /* Outermost level whose loop instance or iteration moved. */
   Int moved = -1;
   Bool reentered = False;
   for (k = n; k-- > 0;) {
      if (CATS_EV_INST(inst[k]) != e->inst[k]) {
         moved = (Int)k;
         reentered = True;
         break;
      }
      if (iter[k] != e->iter[k]) {
         moved = (Int)k;
         break;
      }
   }
   if (moved < 0) {
      /* Same iterations as the last access: only the same offset again
         fits, and it breaks the run. */
      if (off != e->last_off) {
         if (continues)
            fold_run_before_this(e);
         make_irregular(e);
         summarise_one(e, off);
      } else if (!continues) {
         start_run(e, off);
      }
      return;
   }
   UInt level = (UInt)moved;
   ULong delta;
   if (reentered) {
      /* A new instance of loop 'level': one step of the level above,
         which is the re-entry level when 'level' is the outermost. */
      level++;
      delta = 1;
      if (level == n)
         e->c->entries++;
   } else {
      delta = iter[level] - e->iter[level];
   }
   if (!step_fits(e, level, delta, off)) {
      if (continues)
         fold_run_before_this(e);
      make_irregular(e);
      summarise_one(e, off);
      return;
   }
   for (j = 0; j <= level; j++)
      e->c->anchor[j] = off;
   for (j = 0; j < level && j < n; j++)
      e->c->span_start[j] = iter[j];
   for (j = 0; j < n; j++) {
      e->inst[j] = CATS_EV_INST(inst[j]);
      e->iter[j] = iter[j];
      ULong span = iter[j] - e->c->span_start[j] + 1;
      if (span > e->c->extent[j])
         e->c->extent[j] = span;
   }
   if (e->c->entries + 1 > e->c->extent[n])
      e->c->extent[n] = e->c->entries + 1;
   e->last_off = off;
   if (!continues)
      start_run(e, off);
}

/* Irregular records summarise each access at once, with no run. */
__attribute__((noinline))
void CATS_(event_update_irregular)(Event* e, Long off)
{
   summarise_one(e, off);
}

/* A record starts without its slow-path state: until its first
   slow-path update every access was at its first offset, in its first
   iterations (cold_init). */
static Event* new_event(const Site* s, UInt ctx, UInt alloc, Long off,
                        ULong now)
{
   Event* e = CATS_(spill_new)();
   e->ctx = ctx;
   e->loc = s->loc;
   e->alloc = alloc;
   e->kind = s->kind;
   e->flags = s->flags;
   e->size = s->size;
   e->count = 1;
   e->first_time = e->last_time = now;
   e->last_off = off;
   e->hist_shift = (UChar)hist_shift(CATS_(alloc_size)(alloc));
   CATS_(alloc_accessed)(alloc);
   ULong inst[CATS_MAX_DIMS];
   e->ndims = (UChar)loop_vector(inst, e->iter);
   for (UInt k = 0; k < e->ndims; k++)
      e->inst[k] = CATS_EV_INST(inst[k]);
   return e;
}

/* Returns the record of the access, or NULL when no container holds
   it. */
__attribute__((noinline))
Event* CATS_(access_slow)(Site* s, Addr a, ULong now)
{
   Thread* t = CATS_(cur_thread);
   /* The site's container when it still stands and holds the address
      (the context changed, or the record was spilled): as the fast path
      would have it. A data section's fallback container holds the
      symbols in it, which find_block would tell apart, so asking it
      here would make the record depend on which path was taken. */
   Block* b = s->blk;
   if (b == NULL || s->blk_epoch != b->epoch || a - b->lo >= b->hi - b->lo)
      b = CATS_(find_block)(t->tid, a);
   if (b == NULL) {
      CATS_(n_unattributed)++;
      CATS_(bytes_unattributed) += s->size;
      return NULL;
   }
   UInt ctx = CATS_(cur_ctx);
   Long off = (Long)(a - b->origin);
   /* Another instance of the same container (a new stack frame, the next
      malloc of a loop) from the same context: the same record. */
   if (s->ev != NULL && s->ctx == ctx && s->ev->alloc == b->alloc) {
      CATS_(event_update)(s->ev, off, now);
      s->blk = b;
      s->blk_epoch = b->epoch;
      return s->ev;
   }
   /* A site in a function called from a few places alternates between
      their contexts: its last records are kept, so that the index is
      searched only for a record it has not seen lately. */
   Event* e;
   Bool made = False;
   if (s->alt[0] != NULL && s->alt[0]->ctx == ctx && s->alt[0]->alloc == b->alloc) {
      e = s->alt[0];
      s->alt[0] = s->ev;
   } else if (s->alt[1] != NULL && s->alt[1]->ctx == ctx
              && s->alt[1]->alloc == b->alloc) {
      e = s->alt[1];
      s->alt[1] = s->alt[0];
      s->alt[0] = s->ev;
   } else {
      CATS_(tagmap_reserve)(&index);
      ULong h = key_hash(ctx, b->alloc, s->loc, s->size, s->kind);
      EventKey key = { ctx, b->alloc, s };
      UWord at = 0;
      UInt num1 = CATS_(tagmap_find)(&index, h, same_key, &key, &at);
      if (num1 != 0) {
         e = event_at(num1 - 1);
      } else {
         e = new_event(s, ctx, b->alloc, off, now);
         made = True;
         CATS_(tagmap_put)(&index, at, h, CATS_(n_events)() - 1);
      }
      s->alt[1] = s->alt[0];
      s->alt[0] = s->ev;
   }
   if (!made)
      CATS_(event_update)(e, off, now);
   s->blk = b;
   s->blk_epoch = b->epoch;
   s->ctx = ctx;
   s->ev = e;
   return e;
}

VG_REGPARM(2) void CATS_(on_access)(Site* s, Addr a)
{
   (void)CATS_(trace_access)(s, a);
}

__attribute__((noinline))
Event* CATS_(access_sampled)(Site* s, Addr a)
{
   Event* e = CATS_(trace_access)(s, a);
   CATS_(reuse_sample)(e ? &e->reuse : NULL, a);
   return e;
}

VG_REGPARM(2) void CATS_(on_access_reuse)(Site* s, Addr a)
{
   (void)CATS_(trace_access_reuse)(s, a);
}

void* CATS_(access_hook)(void)
{
   return CATS_(clo_reuse_distance) ? (void*)CATS_(on_access_reuse)
                                    : (void*)CATS_(on_access);
}

/* Valid until the next call (a record in the spill file is read into
   a buffer, not back into memory). */
const ReuseHist* CATS_(event_reuse)(UInt i, UInt* alloc_out)
{
   static Event tmp;
   tl_assert(!records_freed);
   const Event* e = CATS_(spill_peek)(i, &tmp);
   *alloc_out = CATS_(alloc_out_id)(e->alloc);
   return e->reuse;
}

/*------------------------------------------------------------*/
/*--- Records in the spill file (cats_spill.c)             ---*/
/*------------------------------------------------------------*/

static SizeT reuse_bytes(ULong mask)
{
   return sizeof(ReuseHist) + (SizeT)__builtin_popcountll(mask) * sizeof(ULong);
}

SizeT CATS_(event_cold_bytes)(void) { return sizeof(EventCold); }

/* At most 10 bytes a number. */
SizeT CATS_(event_packed_max)(void)
{
   return 10 * (24 + 4 * CATS_MAX_DISTINCT + CATS_HIST_BUCKETS
                + 4 * (CATS_MAX_DIMS + 1) + 1 + (1 + CATS_REUSE_BUCKETS) + 1);
}

/* The record whole, its numbers as LEB128 (a third of the bytes of its
   memory image): its fixed part, then its slow-path state and its
   reuse histogram when it has them. */
void CATS_(event_pack)(const Event* e, CatsBuf* b)
{
   UInt k;
   CATS_(put_u8)(b, (e->c != NULL) | (e->reuse != NULL) << 1);
   CATS_(put_u8)(b, e->ndims);
   CATS_(put_u8)(b, e->irregular);
   CATS_(put_u8)(b, e->kind);
   CATS_(put_u8)(b, e->flags);
   CATS_(put_u8)(b, e->hist_shift);
   CATS_(put_u8)(b, e->known);
   CATS_(put_uvar)(b, e->size);
   CATS_(put_uvar)(b, e->ctx);
   CATS_(put_uvar)(b, e->loc);
   CATS_(put_uvar)(b, e->alloc);
   CATS_(put_uvar)(b, e->count);
   CATS_(put_uvar)(b, e->first_time);
   CATS_(put_uvar)(b, e->last_time - e->first_time);
   CATS_(put_svar)(b, e->last_off);
   CATS_(put_svar)(b, e->run_stride);
   for (k = 0; k < e->ndims; k++) {
      CATS_(put_uvar)(b, e->inst[k]);
      CATS_(put_uvar)(b, e->iter[k]);
   }
   if (e->c != NULL) {
      const EventCold* c = e->c;
      CATS_(put_svar)(b, c->base);
      CATS_(put_svar)(b, c->min_off);
      CATS_(put_svar)(b, c->max_off);
      CATS_(put_uvar)(b, c->ndistinct);
      for (k = 0; k < c->ndistinct; k++)
         CATS_(put_svar)(b, c->distinct[k]);
      for (k = 0; k < CATS_HIST_BUCKETS; k++)
         CATS_(put_uvar)(b, c->hist[k]);
      CATS_(put_svar)(b, c->run_off);
      CATS_(put_uvar)(b, c->run_count0);
      if (!e->irregular) {
         for (k = 0; k <= CATS_MAX_DIMS; k++) {
            CATS_(put_svar)(b, c->stride[k]);
            CATS_(put_svar)(b, c->anchor[k]);
            CATS_(put_uvar)(b, c->span_start[k]);
            CATS_(put_uvar)(b, c->extent[k]);
         }
         CATS_(put_uvar)(b, c->entries);
      }
   }
   if (e->reuse != NULL) {
      UInt n = (UInt)__builtin_popcountll(e->reuse->mask);
      CATS_(put_uvar)(b, e->reuse->mask);
      for (k = 0; k < n; k++)
         CATS_(put_uvar)(b, e->reuse->count[k]);
   }
}

/* Reads the packed record at *p, not past end. */
typedef struct {
   const UChar* p;
   const UChar* end;
} Unpacker;

static ULong get_uvar(Unpacker* u)
{
   ULong v = 0;
   UInt sh = 0;
   for (;;) {
      tl_assert(u->p < u->end && sh < 64);
      UChar c = *u->p++;
      v |= (ULong)(c & 0x7F) << sh;
      if (!(c & 0x80))
         return v;
      sh += 7;
   }
}

static Long get_svar(Unpacker* u)
{
   ULong z = get_uvar(u);
   return (Long)(z >> 1) ^ -(Long)(z & 1);
}

static UChar get_u8(Unpacker* u)
{
   tl_assert(u->p < u->end);
   return *u->p++;
}

/* A packed record into e, its parts allocated ('own'), or the slow-path
   state into the caller's *cold and the histogram into *hist (which
   stay as long as e is used). */
void CATS_(event_unpack)(Event* e, const UChar* p, SizeT len, Bool own,
                         EventCold* cold, ReuseHist* hist)
{
   Unpacker u = { p, p + len };
   UInt k;
   VG_(memset)(e, 0, sizeof *e);
   UChar parts = get_u8(&u);
   e->ndims = get_u8(&u);
   e->irregular = get_u8(&u);
   e->kind = get_u8(&u);
   e->flags = get_u8(&u);
   e->hist_shift = get_u8(&u);
   e->known = get_u8(&u);
   e->size = (UShort)get_uvar(&u);
   e->ctx = (UInt)get_uvar(&u);
   e->loc = (UInt)get_uvar(&u);
   e->alloc = (UInt)get_uvar(&u);
   e->count = get_uvar(&u);
   e->first_time = get_uvar(&u);
   e->last_time = e->first_time + get_uvar(&u);
   e->last_off = get_svar(&u);
   e->run_stride = get_svar(&u);
   tl_assert(e->ndims <= CATS_MAX_DIMS);
   for (k = 0; k < e->ndims; k++) {
      e->inst[k] = (UInt)get_uvar(&u);
      e->iter[k] = get_uvar(&u);
   }
   if (parts & 1) {
      SizeT n = e->irregular ? EVENT_COLD_SUMMARY : sizeof(EventCold);
      EventCold* c = own ? VG_(malloc)("cats.event.cold", n) : cold;
      VG_(memset)(c, 0, n);
      c->base = get_svar(&u);
      c->min_off = get_svar(&u);
      c->max_off = get_svar(&u);
      c->ndistinct = (UInt)get_uvar(&u);
      tl_assert(c->ndistinct <= CATS_MAX_DISTINCT);
      for (k = 0; k < c->ndistinct; k++)
         c->distinct[k] = get_svar(&u);
      for (k = 0; k < CATS_HIST_BUCKETS; k++)
         c->hist[k] = (UInt)get_uvar(&u);
      c->run_off = get_svar(&u);
      c->run_count0 = get_uvar(&u);
      if (!e->irregular) {
         for (k = 0; k <= CATS_MAX_DIMS; k++) {
            c->stride[k] = get_svar(&u);
            c->anchor[k] = get_svar(&u);
            c->span_start[k] = get_uvar(&u);
            c->extent[k] = get_uvar(&u);
         }
         c->entries = get_uvar(&u);
      }
      e->c = c;
   }
   if (parts & 2) {
      ULong mask = get_uvar(&u);
      UInt n = (UInt)__builtin_popcountll(mask);
      ReuseHist* r = own ? VG_(malloc)("cats.reuse.hist", reuse_bytes(mask)) : hist;
      r->mask = mask;
      for (k = 0; k < n; k++)
         r->count[k] = get_uvar(&u);
      e->reuse = r;
   }
}

void CATS_(event_drop)(Event* e)
{
   if (e->c != NULL)
      VG_(free)(e->c);
   if (e->reuse != NULL)
      VG_(free)(e->reuse);
   e->c = NULL;
   e->reuse = NULL;
}

/* The store is taking away the records whose count it set to 0 (every
   record has counted its first access): no site may keep them. */
void CATS_(events_forget)(void)
{
   Word i, n = VG_(sizeXA)(sites);
   UInt k;
   for (i = 0; i < n; i++) {
      Site* s = *(Site**)VG_(indexXA)(sites, i);
      if (s->ev != NULL && s->ev->count == 0) {
         s->ev = NULL;
         s->ctx = CATS_NONE;   /* no context's: the fast path needs ev */
      }
      for (k = 0; k < sizeof s->alt / sizeof s->alt[0]; k++)
         if (s->alt[k] != NULL && s->alt[k]->count == 0)
            s->alt[k] = NULL;
      if (s->dep_ev != NULL && s->dep_ev->count == 0)
         CATS_(vf_dep_forget)(s);
   }
}

static UChar classify(const Event* e)
{
   UInt k;
   if (e->irregular)
      return CATS_PAT_IRREGULAR;
   for (k = 0; k <= e->ndims && k <= CATS_MAX_DIMS; k++) {
      if ((e->known & (1u << k)) && e->c->stride[k] != 0) {
         Long st = e->c->stride[k] < 0 ? -e->c->stride[k] : e->c->stride[k];
         return st == (Long)e->size ? CATS_PAT_STRIDE1 : CATS_PAT_STRIDEK;
      }
   }
   return CATS_PAT_CONSTANT;
}

/* Counted from the records, so the hot path keeps no extra counter. */
ULong CATS_(total_accesses)(void)
{
   if (records_freed)
      return accesses_written;
   return CATS_(n_unattributed) + CATS_(spill_accesses)();
}

/* With 'release', the last use of the records (after write_reuse), at
   the process's end: each is freed once written, so that the section's
   buffer grows into the room the records leave, and the run's peak
   does not hold the records and a doubling buffer at once. Without
   (the trace written before an execve, which may still fail and leave
   the guest running and traced) they stay. A record in the spill file
   is read into tmp, not back into memory. */
void CATS_(write_events)(CatsBuf* b, Bool release, void (*part)(CatsBuf*))
{
   UInt i, n = CATS_(n_events)(), k;
   Event tmp;
   tl_assert(!records_freed);
   if (release) {
      accesses_written = CATS_(total_accesses)();
      CATS_(tagmap_free)(&index);
   }
   CATS_(put_u32)(b, n);
   for (i = 0; i < n; i++) {
      Event* e = (Event*)CATS_(spill_peek)(i, &tmp);
      Bool resident = e != &tmp;
      EventCold start;
      Bool own_cold = e->c != NULL;
      if (!own_cold) {
         cold_init(&start, e);
         e->c = &start;
      }
      fold_run(e);
      /* The dimensions written: the loops, plus the re-entry level
         when it moved. */
      UInt nd = e->ndims;
      if (nd < CATS_MAX_DIMS && (e->known & (1u << nd)))
         nd++;
      if (nd > CATS_MAX_DIMS)
         nd = CATS_MAX_DIMS;
      UInt nw = e->irregular ? 0 : nd;
      tl_assert(e->c->ndistinct <= CATS_MAX_DISTINCT);
      tl_assert(e->last_time >= e->first_time);
      CATS_(put_uvar)(b, e->ctx);
      CATS_(put_uvar)(b, e->loc);
      CATS_(put_uvar)(b, CATS_(alloc_out_id)(e->alloc));
      CATS_(put_u8)(b, e->kind);
      CATS_(put_u8)(b, classify(e));
      CATS_(put_u8)(b, nw);
      CATS_(put_u8)(b, e->flags);
      CATS_(put_uvar)(b, e->size);
      CATS_(put_uvar)(b, e->c->ndistinct);
      CATS_(put_uvar)(b, e->count);
      CATS_(put_uvar)(b, e->first_time);
      CATS_(put_uvar)(b, e->last_time - e->first_time);
      CATS_(put_svar)(b, e->c->base);
      /* Loops past the dimensions written move nothing: not written. */
      for (k = 0; k < nw; k++) {
         CATS_(put_svar)(b, (e->known & (1u << k)) ? e->c->stride[k] : 0);
         CATS_(put_uvar)(b, e->c->extent[k]);
      }
      CATS_(put_svar)(b, e->c->min_off);
      CATS_(put_svar)(b, e->c->max_off);
      for (k = 0; k < e->c->ndistinct; k++)
         CATS_(put_svar)(b, e->c->distinct[k]);
      /* The histogram: which buckets are not empty, then those. */
      UInt mask = 0;
      for (k = 0; k < CATS_HIST_BUCKETS; k++)
         mask |= (e->c->hist[k] != 0) << k;
      CATS_(put_uvar)(b, mask);
      for (k = 0; k < CATS_HIST_BUCKETS; k++)
         if (e->c->hist[k] != 0)
            CATS_(put_uvar)(b, e->c->hist[k]);
      /* A folding state made here only for writing goes: the record
         is as it was (its run folded), one that will make it again. */
      if (!own_cold)
         e->c = NULL;
      if (b->len >= CATS_SECTION_PART)
         part(b);
      if (!release)
         continue;
      if (resident)
         CATS_(event_drop)(e);
      CATS_(spill_done)(i, i + 1 == n);
   }
   if (!release)
      return;
   records_freed = True;
}
