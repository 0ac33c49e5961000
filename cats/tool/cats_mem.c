/* SPDX-License-Identifier: GPL-2.0-or-later */
/*--------------------------------------------------------------------*/
/*--- cats: containers and allocation records.          cats_mem.c ---*/
/*--------------------------------------------------------------------*/
/* A container is a range of memory that accesses are attributed to: a
   heap block, an anonymous mapping, a global, a named stack array, a
   stack frame, or a block named by a client request. Live instances are
   Blocks; what the trace stores is an allocation *record* per distinct
   (kind, context, site, size), so a malloc in a loop is one record with
   a count, and the trace does not grow with the number of instances.

   Heap, mmap, global and client blocks live in one interval tree (a
   WordFM whose comparator treats overlapping ranges as equal, as DHAT
   does). Stack containers hang off the function frames that own them:
   an address between the current SP and the thread's stack top belongs
   to the innermost frame whose CFA is above it. */

#include "cats_tool.h"
#include "cats_vf.h"
#include "pub_tool_wordfm.h"
#include "pub_tool_poolalloc.h"
#include "pub_tool_replacemalloc.h"
#include "pub_tool_stacktrace.h"
#include "pub_tool_machine.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_aspacemgr.h"
#include "pub_tool_vki.h"

typedef struct {
   UChar kind, flags;
   Bool  accessed;       /* some event refers to it */
   Bool  named;          /* named by a client request */
   UInt  name, alloc_ctx, alloc_loc, free_ctx, free_loc, realloc_from;
   ULong size, count, live, max_live, first_alloc, last_alloc;
   ULong first_free, last_free, base, total_bytes;
} AllocRec;

#define MAX_STACK_VARS 16
/* Accesses further than this below a frame's CFA are not its own. */
#define FRAME_WINDOW   (1UL << 20)

struct _StackInfo {
   UInt  n_vars;
   Block vars[MAX_STACK_VARS];
   Block frame;          /* the rest of the frame; origin = CFA */
   Addr  lowest;         /* lowest address accessed in the frame */
   UInt  fn_ctx;
};

static XArray* recs;          /* of AllocRec */
static XArray* fallback_blocks;   /* of Block*: see object_data */
static CatsMap rec_map;
static CatsMap preload_ip;    /* ip -> 2 in our preload, 1 not */
static WordFM* blocks;        /* Block* -> 0, ordered by address range */
static PoolAlloc* block_pool;
static PoolAlloc* stack_pool;
static ULong epoch_counter;
static ULong live_bytes;
ULong CATS_(peak_footprint);
ULong CATS_(peak_time);

/* Negative lookups, at 64-byte granularity, valid until the next block
   is inserted: unattributed addresses would otherwise search every
   time. */
#define NEG_SLOTS 4096
static Addr  neg_addr[NEG_SLOTS];
static ULong neg_gen[NEG_SLOTS];
static ULong insert_gen = 1;
/* Positive lookups, at the same granularity: a container found for an
   address is the only live one holding it (blocks do not overlap) while
   its epoch stands, so a hit is exact. An instruction that walks many
   heap blocks (a general program's objects) would otherwise search the
   tree at each. */
static struct { Block* b; ULong epoch; } hit[NEG_SLOTS];

static Word cmp_ranges(UWord x, UWord y)
{
   const Block* a = (const Block*)x;
   const Block* b = (const Block*)y;
   if (a->hi <= b->lo)
      return -1;
   if (b->hi <= a->lo)
      return 1;
   return 0;
}

static inline AllocRec* rec(UInt id) { return VG_(indexXA)(recs, id); }

/* Written ids: a loaded object's globals that the program never touched
   are left out, or every trace would list libc's thousand variables. */
static UInt* out_id;

void CATS_(alloc_accessed)(UInt id) { rec(id)->accessed = True; }

static Bool rec_written(const AllocRec* r)
{
   return r->kind != CATS_ALLOC_GLOBAL || r->accessed || r->named;
}

UInt CATS_(alloc_out_id)(UInt id)
{
   return id == CATS_NONE ? CATS_NONE : out_id[id];
}

UInt CATS_(n_allocs)(void) { return (UInt)VG_(sizeXA)(recs); }
ULong CATS_(alloc_size)(UInt id) { return rec(id)->size; }

void CATS_(mem_init)(void)
{
   recs = VG_(newXA)(VG_(malloc), "cats.recs", VG_(free), sizeof(AllocRec));
   CATS_(map_init)(&rec_map, "cats.recmap");
   CATS_(map_init)(&preload_ip, "cats.preloadip");
   blocks = VG_(newFM)(VG_(malloc), "cats.blocks", VG_(free), cmp_ranges);
   block_pool = VG_(newPA)(sizeof(Block), 1000, VG_(malloc),
                           "cats.blockpool", VG_(free));
   stack_pool = VG_(newPA)(sizeof(StackInfo), 100, VG_(malloc),
                           "cats.stackpool", VG_(free));
   fallback_blocks = VG_(newXA)(VG_(malloc), "cats.fallback", VG_(free),
                                sizeof(Block*));
}

/* The record for (kind, ctx, key, size); 'key' is the site's location,
   a name, or a global's address. */
static UInt get_rec(UChar kind, UInt ctx, ULong key, ULong size, UInt name,
                    UInt loc)
{
   Bool found;
   UWord* slot = CATS_(map_slot)(&rec_map, ((ULong)ctx << 32) ^ key,
                                 (size << 8) | kind | (1ULL << 63), &found);
   if (found)
      return (UInt)(*slot - 1);
   AllocRec r;
   VG_(memset)(&r, 0, sizeof(r));
   r.kind = kind;
   r.name = name;
   r.alloc_ctx = ctx;
   r.alloc_loc = loc;
   r.free_ctx = CATS_NONE;
   r.free_loc = CATS_NONE;
   r.realloc_from = CATS_NONE;
   r.size = size;
   UInt id = (UInt)VG_(sizeXA)(recs);
   VG_(addToXA)(recs, &r);
   *slot = id + 1;
   return id;
}

static void rec_instance_born(UInt id, Addr base, SizeT size)
{
   AllocRec* r = rec(id);
   ULong now = ++CATS_(time);
   if (r->count == 0) {
      r->first_alloc = now;
      r->base = base;
   }
   r->count++;
   r->total_bytes += size;
   r->last_alloc = now;
   r->live++;
   if (r->live > r->max_live)
      r->max_live = r->live;
   if (CATS_(in_conditional)())
      r->flags |= CATS_ALLOCFLAG_CONDITIONAL;
}

static void rec_instance_died(UInt id, UInt ctx, UInt loc)
{
   AllocRec* r = rec(id);
   ULong now = ++CATS_(time);
   if (r->first_free == 0)
      r->first_free = now;
   r->last_free = now;
   r->free_ctx = ctx;
   r->free_loc = loc;
   if (r->live > 0)
      r->live--;
}

static void footprint_add(Long delta)
{
   live_bytes += delta;
   if (live_bytes > CATS_(peak_footprint)) {
      CATS_(peak_footprint) = live_bytes;
      CATS_(peak_time) = CATS_(time);
   }
}

static Block* insert_block(Addr lo, SizeT size, UInt id)
{
   Block* b = VG_(allocEltPA)(block_pool);
   b->lo = lo;
   b->hi = lo + (size > 0 ? size : 1);
   b->origin = lo;
   b->alloc = id;
   b->epoch = ++epoch_counter;
   b->carrier = False;
   b->literal = 0;
   if (!VG_(addToFM)(blocks, (UWord)b, 0)) {
      /* Not present before, as the caller checked for overlap. */
   }
   insert_gen++;
   return b;
}

static Block* lookup_block(Addr a)
{
   Block key;
   UWord k, v;
   key.lo = a;
   key.hi = a + 1;
   if (VG_(lookupFM)(blocks, &k, &v, (UWord)&key))
      return (Block*)k;
   return NULL;
}

static void remove_block(Block* b)
{
   UWord k, v;
   /* Freed memory holds no values: a block reusing it starts empty. */
   if (CATS_(clo_value_flow))
      CATS_(vf_clear_range)(b->lo, b->hi - b->lo);
   VG_(delFromFM)(blocks, &k, &v, (UWord)b);
   b->epoch = ++epoch_counter;   /* invalidates every cached pointer */
   VG_(freeEltPA)(block_pool, b);
}

/*------------------------------------------------------------*/
/*--- Heap and mmap                                        ---*/
/*------------------------------------------------------------*/

/* Whether a code address is in our preload library, cached per address
   (preload_ip): every allocation asks for the frames above it. */
static Bool in_preload(DiEpoch ep, Addr ip)
{
   Bool found;
   UWord* slot = CATS_(map_slot)(&preload_ip, ip, 3, &found);
   if (!found) {
      const HChar* obj;
      Bool yes = VG_(get_objname)(ep, ip, &obj)
                 && VG_(strstr)(obj, "vgpreload_") != NULL;
      slot = CATS_(map_slot)(&preload_ip, ip, 3, &found);
      *slot = yes ? 2 : 1;
   }
   return *slot == 2;
}

/* The client code address that called into the allocator: the first
   frame outside our preload library and, for system calls, outside the
   object whose wrapper made the call (libc's mmap, say). */
static Addr alloc_site(ThreadId tid, Bool via_syscall)
{
   Addr ips[8];
   UInt n = VG_(get_StackTrace)(tid, ips, via_syscall ? 8 : 4, NULL, NULL, 0);
   DiEpoch ep = VG_(current_DiEpoch)();
   const HChar* first_obj = NULL;
   HChar wrapper_obj[256] = "";
   UInt i;
   if (via_syscall && n > 0 && VG_(get_objname)(ep, ips[0], &first_obj))
      VG_(strncpy)(wrapper_obj, first_obj, sizeof(wrapper_obj) - 1);
   for (i = 0; i < n; i++) {
      if (in_preload(ep, ips[i]))
         continue;
      if (wrapper_obj[0]) {
         const HChar* obj;
         if (VG_(get_objname)(ep, ips[i], &obj)
             && VG_(strcmp)(obj, wrapper_obj) == 0)
            continue;
      }
      return i == 0 ? ips[i] : ips[i] - 1;
   }
   return n > 0 ? ips[0] : 0;
}

static UInt ctx_of(ThreadId tid)
{
   Thread* t = CATS_(thread)(tid);
   return t->depth > 0 ? t->frames[t->depth - 1].ctx : t->root;
}

void CATS_(new_heap_block)(ThreadId tid, Addr p, SizeT n, UChar kind,
                           UInt realloc_from)
{
   UInt loc = CATS_(loc_of_addr)(alloc_site(tid, kind == CATS_ALLOC_MMAP));
   UInt id = get_rec(kind, ctx_of(tid), loc, n, CATS_(loc_label)(loc), loc);
   if (realloc_from != CATS_NONE)
      rec(id)->realloc_from = realloc_from;
   rec_instance_born(id, p, n);
   Block* old = lookup_block(p);
   if (old != NULL)
      remove_block(old);   /* a stale global or mapping: heap wins */
   insert_block(p, n, id);
   footprint_add((Long)n);
}

UInt CATS_(release_heap_block)(ThreadId tid, Addr p)
{
   Block* b = lookup_block(p);
   if (b == NULL || b->lo != p)
      return CATS_NONE;
   UInt id = b->alloc;
   footprint_add(-(Long)(b->hi - b->lo == 1 && rec(id)->size == 0
                            ? 0 : b->hi - b->lo));
   rec_instance_died(id, ctx_of(tid),
                     CATS_(loc_of_addr)(alloc_site(tid, rec(id)->kind
                                                        == CATS_ALLOC_MMAP)));
   remove_block(b);
   return id;
}

void CATS_(new_mmap)(ThreadId tid, Addr a, SizeT len)
{
   CATS_(release_range)(tid, a, len);
   CATS_(new_heap_block)(tid, a, len, CATS_ALLOC_MMAP, CATS_NONE);
}

void CATS_(release_range)(ThreadId tid, Addr a, SizeT len)
{
   Addr x;
   /* Walk the range block by block; blocks are never nested. */
   for (x = a; x < a + len; ) {
      Block key;
      UWord k, v;
      key.lo = x;
      key.hi = a + len;
      if (!VG_(lookupFM)(blocks, &k, &v, (UWord)&key))
         break;
      Block* b = (Block*)k;
      Addr next = b->hi;
      UChar kind = rec(b->alloc)->kind;
      if (kind == CATS_ALLOC_MMAP || kind == CATS_ALLOC_GLOBAL
          || kind == CATS_ALLOC_CLIENT) {
         if (kind == CATS_ALLOC_MMAP)
            footprint_add(-(Long)(b->hi - b->lo));
         rec_instance_died(b->alloc, ctx_of(tid), CATS_NONE);
         remove_block(b);
      }
      x = next > x ? next : x + 1;
   }
}

/*------------------------------------------------------------*/
/*--- Globals                                              ---*/
/*------------------------------------------------------------*/

static UInt global_rec(Addr base, SizeT size, const HChar* name)
{
   UInt id = get_rec(CATS_ALLOC_GLOBAL, CATS_NONE, base, size,
                     CATS_(intern_str)(name), CATS_NONE);
   if (rec(id)->count == 0) {
      rec_instance_born(id, base, size);
      footprint_add((Long)size);
   }
   return id;
}

/* A global or static, named by the symbol table when first accessed; its
   size is the extent over which the same symbol covers the address. */
static Block* global_from_symtab(Addr a)
{
   DiEpoch ep = VG_(current_DiEpoch)();
   const HChar* name;
   PtrdiffT off;
   if (!VG_(get_datasym_and_offset)(ep, a, &name, &off) || off < 0)
      return NULL;
   HChar* copy = VG_(strdup)("cats.gname", name);
   Addr base = a - off;
   SizeT lo = (SizeT)off + 1, hi = (SizeT)1 << 30;
   /* Largest size s with the symbol still covering base + s - 1. */
   while (lo < hi) {
      SizeT mid = lo + (hi - lo + 1) / 2;
      const HChar* n2;
      PtrdiffT o2;
      if (VG_(get_datasym_and_offset)(ep, base + mid - 1, &n2, &o2)
          && o2 == (PtrdiffT)(mid - 1) && VG_(strcmp)(n2, copy) == 0)
         lo = mid;
      else
         hi = mid - 1;
   }
   Block* b = NULL;
   if (lookup_block(base) == NULL)
      b = insert_block(base, lo, global_rec(base, lo, copy));
   VG_(free)(copy);
   return b;
}

/* Data of an object without symbols for it (a stripped program, or
   constants): its .bss, or the file mapping holding its data or
   read-only data, becomes one container named after the object, so the
   accesses are not lost. These
   blocks stay out of the interval tree: a named global inside the same
   range still gets its own container. */

static Block* fallback_block(Addr lo, SizeT sz, const HChar* name)
{
   Block* b = VG_(allocEltPA)(block_pool);
   b->lo = lo;
   b->hi = lo + sz;
   b->origin = lo;
   b->alloc = global_rec(lo, sz, name);
   b->epoch = ++epoch_counter;
   b->carrier = False;
   b->literal = 0;
   VG_(addToXA)(fallback_blocks, &b);
   return b;
}

static Block* object_data(Addr a)
{
   const DebugInfo* di;
   HChar name[256];
   Word i;
   for (i = 0; i < VG_(sizeXA)(fallback_blocks); i++) {
      Block* b = *(Block**)VG_(indexXA)(fallback_blocks, i);
      if (a >= b->lo && a < b->hi)
         return b;
   }
   for (di = VG_(next_DebugInfo)(NULL); di; di = VG_(next_DebugInfo)(di)) {
      Addr lo = VG_(DebugInfo_get_bss_avma)(di);
      SizeT sz = VG_(DebugInfo_get_bss_size)(di);
      if (sz > 0 && a >= lo && a < lo + sz) {
         const HChar* f = VG_(DebugInfo_get_filename)(di);
         const HChar* base = f ? VG_(strrchr)(f, '/') : NULL;
         VG_(snprintf)(name, sizeof(name), "%s:.bss",
                       base ? base + 1 : (f ? f : "?"));
         return fallback_block(lo, sz, name);
      }
   }
   NSegment const* seg = VG_(am_find_nsegment)(a);
   if (seg == NULL || seg->kind != SkFileC || seg->hasX)
      return NULL;
   const HChar* f = VG_(am_get_filename)(seg);
   const HChar* base = f ? VG_(strrchr)(f, '/') : NULL;
   VG_(snprintf)(name, sizeof(name), "%s:%s", base ? base + 1 : (f ? f : "?"),
                 seg->hasW ? "data" : "rodata");
   return fallback_block(seg->start, seg->end - seg->start + 1, name);
}

/*------------------------------------------------------------*/
/*--- Stack                                                ---*/
/*------------------------------------------------------------*/

/* Whether function frame f was entered inside a loop of the program:
   a loop above main's frame, or any loop on a stack without main (a
   thread's). The loop around main in the C library's start-up does not
   count. */
static Bool in_program_loop(const Thread* t, const Frame* f)
{
   Int loop = f->prev_loop, i;
   if (loop < 0 || (f->fn != NULL && f->fn->is_main))
      return False;
   for (i = f->prev_fn; i >= 0; i = t->frames[i].prev_fn)
      if (t->frames[i].fn != NULL && t->frames[i].fn->is_main)
         return i < loop;
   return True;
}

/* The frame's named arrays sit at fixed offsets from its CFA (from
   DWARF, through the helper), so they are placed without looking at the
   guest's registers. They are born with the frame, at its entry time.
   Small ones, and all those of a frame entered inside a loop of the
   program, are workspaces, carriers of value flow: the frame lives for
   one iteration at most (a Fortran routine's row buffers, called per
   level and step), so its words do not hold one value across the loop,
   and a word made a vertex would join the rows of every call. */
static void place_vars(const Thread* t, Frame* f, StackInfo* s)
{
   Func* fn = f->fn;
   CATS_(func_stack_vars)(fn);
   Addr cfa = f->sp + sizeof(Addr);
   Bool workspace = fn->n_svars > 0 && in_program_loop(t, f);
   UInt i;
   for (i = 0; i < fn->n_svars && s->n_vars < MAX_STACK_VARS; i++) {
      const StackVar* v = &fn->svars[i];
      UInt id = get_rec(CATS_ALLOC_STACK_VAR, s->fn_ctx, v->name, v->size,
                        v->name, fn->loc);
      Block* b = &s->vars[s->n_vars++];
      b->lo = cfa + v->cfa_offset;
      b->hi = b->lo + v->size;
      b->origin = b->lo;
      b->alloc = id;
      b->epoch = ++epoch_counter;
      b->carrier = workspace || v->size < CATS_(clo_vf_stack_array_min);
      b->literal = 2;
      rec_instance_born(id, b->lo, v->size);
   }
}

static StackInfo* frame_stack(Thread* t, Frame* f)
{
   if (f->stk == NULL) {
      StackInfo* s = VG_(allocEltPA)(stack_pool);
      Addr cfa = f->sp + sizeof(Addr);
      /* Not memset: the var blocks are filled as they are placed. */
      s->n_vars = 0;
      s->fn_ctx = f->ctx;
      s->frame.lo = cfa - FRAME_WINDOW;
      s->frame.hi = cfa;
      s->frame.origin = cfa;
      s->frame.alloc = CATS_NONE;
      s->frame.epoch = ++epoch_counter;
      s->frame.carrier = True;
      s->frame.literal = 2;
      s->lowest = cfa;
      f->stk = s;
      place_vars(t, f, s);
   }
   return f->stk;
}

void CATS_(frame_pushed)(Thread* t, Frame* f)
{
   /* The caller's frame now ends where the callee's begins. */
   if (f->prev_fn >= 0 && t->frames[f->prev_fn].stk != NULL)
      t->frames[f->prev_fn].stk->frame.lo = f->sp + sizeof(Addr);
}

void CATS_(frame_popped)(Frame* f)
{
   StackInfo* s = f->stk;
   UInt i;
   if (s == NULL)
      return;
   UInt ctx = s->fn_ctx;
   for (i = 0; i < s->n_vars; i++) {
      rec_instance_died(s->vars[i].alloc, ctx, CATS_NONE);
      s->vars[i].epoch = ++epoch_counter;
   }
   if (s->frame.alloc != CATS_NONE) {
      AllocRec* r = rec(s->frame.alloc);
      ULong extent = s->frame.origin - s->lowest;
      if (extent > r->size)
         r->size = extent;
      rec_instance_died(s->frame.alloc, ctx, CATS_NONE);
   }
   s->frame.epoch = ++epoch_counter;
   VG_(freeEltPA)(stack_pool, s);
   f->stk = NULL;
   /* The caller's frame reaches down to its SP again. */
}

static Block* stack_block(Thread* t, Addr a)
{
   Int i = t->fn_top, outer = i;
   while (i >= 0 && a >= t->frames[i].sp + sizeof(Addr)) {
      outer = i;
      i = t->frames[i].prev_fn;
   }
   if (i < 0) {
      /* Above the outermost frame: the main thread's arguments,
         environment and auxiliary vector, or a thread's start data. */
      if (t->above == NULL) {
         Addr lo = t->frames[outer].sp + sizeof(Addr);
         if (a < lo || a >= t->stack_hi)
            return NULL;
         t->above = fallback_block(lo, t->stack_hi - lo,
                                   t->tid == 1 ? "[argv, envp and auxv]"
                                               : "[thread start data]");
      }
      return (a >= t->above->lo && a < t->above->hi) ? t->above : NULL;
   }
   Frame* f = &t->frames[i];
   StackInfo* s = frame_stack(t, f);
   UInt v;
   for (v = 0; v < s->n_vars; v++)
      if (a >= s->vars[v].lo && a < s->vars[v].hi)
         return &s->vars[v];
   if (i == t->fn_top)
      s->frame.lo = s->frame.origin - FRAME_WINDOW;
   if (s->frame.alloc == CATS_NONE) {
      Func* fn = f->fn;
      if (fn->frame_ctx != s->fn_ctx || fn->frame_rec == CATS_NONE) {
         if (fn->frame_name == CATS_NONE) {
            HChar name[300];
            VG_(snprintf)(name, sizeof(name), "frame of %s",
                          CATS_(str)(CATS_(loc_fn)(fn->loc)));
            fn->frame_name = CATS_(intern_str)(name);
         }
         UInt nm = fn->frame_name;
         fn->frame_ctx = s->fn_ctx;
         fn->frame_rec = get_rec(CATS_ALLOC_STACK_FRAME, s->fn_ctx, nm, 0,
                                 nm, fn->loc);
      }
      UInt id = fn->frame_rec;
      s->frame.alloc = id;
      rec_instance_born(id, s->frame.origin, 0);
   }
   if (a < s->lowest)
      s->lowest = a;
   return &s->frame;
}

/*------------------------------------------------------------*/
/*--- Attribution                                          ---*/
/*------------------------------------------------------------*/

Block* CATS_(find_block)(ThreadId tid, Addr a)
{
   /* A thread's stack, the running one's or another's (threads run one
      at a time, so its frames are as it left them). Asked before the
      interval tree, where a pthread's stack is also an anonymous
      mapping. */
   Thread* owner = CATS_(stack_owner)(tid, a);
   if (owner != NULL)
      return stack_block(owner, a);
   UWord h = (a >> 6) & (NEG_SLOTS - 1);
   Block* b = hit[h].b;
   if (b != NULL && hit[h].epoch == b->epoch && a - b->lo < b->hi - b->lo)
      return b;
   b = lookup_block(a);
   if (b != NULL) {
      hit[h].b = b;
      hit[h].epoch = b->epoch;
      return b;
   }
   if (neg_addr[h] == (a >> 6) && neg_gen[h] == insert_gen)
      return NULL;
   b = global_from_symtab(a);
   if (b == NULL)
      b = object_data(a);
   if (b == NULL) {
      neg_addr[h] = a >> 6;
      neg_gen[h] = insert_gen;
   }
   return b;
}

void CATS_(name_block)(ThreadId tid, Addr a, SizeT len, const HChar* name)
{
   Block* b = CATS_(find_block)(tid, a);
   if (b != NULL && b->alloc != CATS_NONE) {
      rec(b->alloc)->name = CATS_(intern_str)(name);
      rec(b->alloc)->named = True;
      return;
   }
   UInt nm = CATS_(intern_str)(name);
   UInt loc = CATS_(loc_of_addr)(VG_(get_IP)(tid));
   UInt id = get_rec(CATS_ALLOC_CLIENT, ctx_of(tid), nm, len, nm, loc);
   rec_instance_born(id, a, len);
   insert_block(a, len, id);
}

/*------------------------------------------------------------*/
/*--- Output                                               ---*/
/*------------------------------------------------------------*/

void CATS_(mem_finish)(void)
{
   UInt i, n = CATS_(n_allocs)(), written = 0;
   out_id = VG_(malloc)("cats.outid", (n + 1) * sizeof(UInt));
   for (i = 0; i < n; i++) {
      AllocRec* r = rec(i);
      out_id[i] = rec_written(r) ? written++ : CATS_NONE;
      if (r->live > 0 && r->kind != CATS_ALLOC_GLOBAL
          && r->kind != CATS_ALLOC_STACK_VAR
          && r->kind != CATS_ALLOC_STACK_FRAME)
         r->flags |= CATS_ALLOCFLAG_LEAKED;
   }
}

UInt CATS_(n_allocs_written)(void)
{
   UInt i, n = CATS_(n_allocs)(), w = 0;
   for (i = 0; i < n; i++)
      w += rec_written(rec(i)) ? 1 : 0;
   return w;
}

void CATS_(write_allocs)(CatsBuf* b)
{
   UInt i, n = CATS_(n_allocs)();
   CATS_(put_u32)(b, CATS_(n_allocs_written)());
   for (i = 0; i < n; i++) {
      const AllocRec* r = rec(i);
      if (!rec_written(r))
         continue;
      CATS_(put_u8)(b, r->kind);
      CATS_(put_u8)(b, r->flags);
      CATS_(put_u16)(b, 0);
      CATS_(put_u32)(b, r->name);
      CATS_(put_u32)(b, r->alloc_ctx);
      CATS_(put_u32)(b, r->alloc_loc);
      CATS_(put_u32)(b, r->free_ctx);
      CATS_(put_u32)(b, r->free_loc);
      CATS_(put_u32)(b, CATS_(alloc_out_id)(r->realloc_from));
      CATS_(put_u32)(b, 0);
      CATS_(put_u64)(b, r->size);
      CATS_(put_u64)(b, r->count);
      CATS_(put_u64)(b, r->max_live);
      CATS_(put_u64)(b, r->first_alloc);
      CATS_(put_u64)(b, r->last_alloc);
      CATS_(put_u64)(b, r->first_free);
      CATS_(put_u64)(b, r->last_free);
      CATS_(put_u64)(b, r->base);
      CATS_(put_u64)(b, 0);
      CATS_(put_u64)(b, r->total_bytes);
   }
}

/*------------------------------------------------------------*/
/*--- malloc replacement                                   ---*/
/*------------------------------------------------------------*/

static void* new_block(ThreadId tid, SizeT n, SizeT align, Bool zero,
                       UChar kind)
{
   void* p = VG_(cli_malloc)(align, n);
   if (p == NULL)
      return NULL;
   if (zero)
      VG_(memset)(p, 0, n);
   CATS_(new_heap_block)(tid, (Addr)p, n, kind, CATS_NONE);
   return p;
}

static void release(ThreadId tid, void* p)
{
   if (p == NULL)
      return;
   if (CATS_(release_heap_block)(tid, (Addr)p) != CATS_NONE)
      VG_(cli_free)(p);
}

void* CATS_(malloc)(ThreadId tid, SizeT n)
{
   return new_block(tid, n, VG_(clo_alignment), False, CATS_ALLOC_MALLOC);
}
void* CATS_(builtin_new)(ThreadId tid, SizeT n)
{
   return new_block(tid, n, VG_(clo_alignment), False, CATS_ALLOC_NEW);
}
void* CATS_(builtin_new_aligned)(ThreadId tid, SizeT n, SizeT align)
{
   return new_block(tid, n, align, False, CATS_ALLOC_NEW);
}
void* CATS_(builtin_vec_new)(ThreadId tid, SizeT n)
{
   return new_block(tid, n, VG_(clo_alignment), False, CATS_ALLOC_NEW_ARRAY);
}
void* CATS_(builtin_vec_new_aligned)(ThreadId tid, SizeT n, SizeT align)
{
   return new_block(tid, n, align, False, CATS_ALLOC_NEW_ARRAY);
}
void* CATS_(memalign)(ThreadId tid, SizeT align, SizeT n)
{
   return new_block(tid, n, align, False, CATS_ALLOC_MEMALIGN);
}
void* CATS_(calloc)(ThreadId tid, SizeT m, SizeT n)
{
   if (n != 0 && m > ((SizeT)-1) / n)
      return NULL;
   return new_block(tid, m * n, VG_(clo_alignment), True, CATS_ALLOC_CALLOC);
}
void CATS_(free)(ThreadId tid, void* p) { release(tid, p); }
void CATS_(builtin_delete)(ThreadId tid, void* p) { release(tid, p); }
void CATS_(builtin_delete_aligned)(ThreadId tid, void* p, SizeT align)
{
   (void)align;
   release(tid, p);
}
void CATS_(builtin_vec_delete)(ThreadId tid, void* p) { release(tid, p); }
void CATS_(builtin_vec_delete_aligned)(ThreadId tid, void* p, SizeT al)
{
   (void)al;
   release(tid, p);
}

void* CATS_(realloc)(ThreadId tid, void* p, SizeT n)
{
   if (p == NULL)
      return CATS_(malloc)(tid, n);
   Block* old = lookup_block((Addr)p);
   if (old == NULL || old->lo != (Addr)p)
      return NULL;   /* not ours: refuse rather than corrupt */
   SizeT old_size = rec(old->alloc)->size;
   if (n == 0) {
      release(tid, p);
      return NULL;
   }
   void* q = VG_(cli_malloc)(VG_(clo_alignment), n);
   if (q == NULL)
      return NULL;
   VG_(memcpy)(q, p, old_size < n ? old_size : n);
   if (CATS_(clo_value_flow))
      CATS_(vf_copy_range)((Addr)q, (Addr)p, old_size < n ? old_size : n);
   UInt from = CATS_(release_heap_block)(tid, (Addr)p);
   VG_(cli_free)(p);
   CATS_(new_heap_block)(tid, (Addr)q, n, CATS_ALLOC_REALLOC, from);
   return q;
}

SizeT CATS_(malloc_usable_size)(ThreadId tid, void* p)
{
   (void)tid;
   Block* b = lookup_block((Addr)p);
   return (b != NULL && b->lo == (Addr)p) ? rec(b->alloc)->size : 0;
}
