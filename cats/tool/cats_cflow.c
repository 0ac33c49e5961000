/* SPDX-License-Identifier: GPL-2.0-or-later */
/*--------------------------------------------------------------------*/
/*--- cats: control-flow stacks.                      cats_cflow.c ---*/
/*--------------------------------------------------------------------*/
/* Each guest thread has a stack of frames: functions, loops,
   conditionals, client regions and signal handlers. The stack is driven
   from one helper call at the start of every superblock (plus one at
   instructions inside a superblock where a loop or conditional starts or
   ends):

   - Frames are popped by stack pointer, not by matching returns: a
     function frame whose entry SP is below the current SP has returned,
     whichever way it left (ret, longjmp, exception unwinding, a tail
     call's epilogue). This is callgrind's approach and it keeps the
     stack right without modelling each of those mechanisms.
   - A function frame is pushed when control arrives by a call, or at a
     function's first instruction with an SP below the current frame's
     (a call through a PLT stub or our hidden preload). Arriving at
     another function's entry with the same SP is a tail call and
     replaces the frame.
   - Loops and conditionals are static address ranges found by the
     helper from the object's machine code (backward branches, and
     forward branches inside loops). Entering a range pushes its frame,
     so the first iteration already belongs to the loop; re-entering a
     loop's header counts an iteration.

   Every frame has a node in the context tree, so an event carries a
   single context id. Direct recursion folds into one node. */

#include "cats_tool.h"
#include "pub_tool_machine.h"
#include "pub_tool_threadstate.h"
#include "pub_tool_libcproc.h"

typedef struct {
   UInt  parent;
   UChar kind;
   UChar flags;
   UInt  loc;
   UInt  name;
   ULong entries, iterations, max_iterations, first_time, last_time;
} CtxNode;

Thread* CATS_(cur_thread) = NULL;
UInt    CATS_(cur_ctx)    = CATS_NONE;
ULong   CATS_(time)       = 0;
UInt    CATS_(last_jk)    = Ijk_Boring;
ULong   CATS_(cur_inst0)  = 0;
ULong   CATS_(cur_iter0)  = 0;
ULong   CATS_(cur_inst1)  = 0;
ULong   CATS_(cur_iter1)  = 0;

/* Context nodes in a plain array: every push and pop touches one. */
static CtxNode* ctxs;
static UInt     n_ctx, cap_ctx;
static CatsMap ctx_map;         /* (parent, kind|key) -> id + 1 */
static Thread** threads;         /* VG_N_THREADS entries */
static UInt    n_threads_seen;  /* also the serial number of the last one */
static ThreadId max_tid;         /* highest tid with a Thread so far */
static ULong   inst_counter;
static CatsMap func_map;        /* entry -> Func* */
static CatsMap point_map;       /* (addr, sb_start) -> Point* */

/* Loop and conditional ranges per loaded object, sorted by start
   ascending then end descending. */
typedef struct {
   Addr    text_lo, text_hi;
   Region* regs;
   UInt    n_regs;
   RegionRange* ranges;     /* sorted, non-overlapping */
   UInt    n_ranges;
   Addr*   headers;         /* sorted loop headers, for boundary tests */
   UInt    n_headers;
   FnStackVar* svars;       /* stack arrays, sorted by function entry */
   UInt    n_svars;
   Bool    svars_loaded;
   HChar*  path;
} ObjRegions;
static XArray* objs;            /* of ObjRegions* */

/*------------------------------------------------------------*/
/*--- Context tree                                         ---*/
/*------------------------------------------------------------*/

static UInt ctx_child(UInt parent, UChar kind, UInt key, UInt loc, UInt name)
{
   Bool found;
   UWord* slot = CATS_(map_slot)(&ctx_map, (ULong)parent + 1,
                                 ((ULong)kind << 32) | key, &found);
   if (found)
      return (UInt)(*slot - 1);
   CtxNode n;
   VG_(memset)(&n, 0, sizeof(n));
   n.parent = parent;
   n.kind = kind;
   n.loc = loc;
   n.name = name;
   n.first_time = CATS_(time);
   if (n_ctx == cap_ctx) {
      cap_ctx = cap_ctx ? 2 * cap_ctx : 1024;
      ctxs = VG_(realloc)("cats.ctxs", ctxs, cap_ctx * sizeof(CtxNode));
   }
   UInt id = n_ctx++;
   ctxs[id] = n;
   *slot = id + 1;
   return id;
}

static inline CtxNode* ctx_node(UInt id)
{
   return &ctxs[id];
}

UInt CATS_(n_ctxs)(void) { return n_ctx; }
UInt CATS_(ctx_kind)(UInt ctx) { return ctx_node(ctx)->kind; }
UInt CATS_(n_threads)(void) { return n_threads_seen; }

/*------------------------------------------------------------*/
/*--- Threads and frames                                   ---*/
/*------------------------------------------------------------*/

Thread* CATS_(thread)(ThreadId tid)
{
   tl_assert(tid < VG_N_THREADS);
   if (threads[tid] == NULL) {
      Thread* t = VG_(calloc)("cats.thread", 1, sizeof(Thread));
      HChar name[32];
      t->tid = tid;
      t->cap = 64;
      t->frames = VG_(malloc)("cats.frames", t->cap * sizeof(Frame));
      t->fn_top = -1;
      t->loop_top = -1;
      t->last_jk = Ijk_Boring;
      t->stack_hi = VG_(thread_get_stack_max)(tid);
      /* Valgrind reuses thread ids, so roots are keyed by a serial
         number: each guest thread gets its own. */
      n_threads_seen++;
      VG_(snprintf)(name, sizeof(name), "thread %u", n_threads_seen);
      t->root = ctx_child(CATS_NONE, CATS_CTX_THREAD, n_threads_seen,
                          CATS_NONE, CATS_(intern_str)(name));
      ctx_node(t->root)->entries = 1;
      threads[tid] = t;
      if (tid > max_tid)
         max_tid = tid;
   }
   return threads[tid];
}

/* From just below the SP (the red zone) to the stack's top. */
static Bool on_live_stack(const Thread* u, ThreadId tid, Addr a)
{
   return u != NULL && u->fn_top >= 0 && a < u->stack_hi
          && a + 256 >= VG_(get_SP)(tid);
}

Thread* CATS_(stack_owner)(ThreadId tid, Addr a)
{
   ThreadId other;
   if (on_live_stack(threads[tid], tid, a))
      return threads[tid];
   for (other = 1; other <= max_tid; other++)
      if (other != tid && on_live_stack(threads[other], other, a))
         return threads[other];
   return NULL;
}

static inline UInt top_ctx(const Thread* t)
{
   return t->depth > 0 ? t->frames[t->depth - 1].ctx : t->root;
}

/* The state the instrumented code's inline fast path reads. While a
   loop is the current thread's innermost loop, its iteration count
   lives in CATS_(cur_iter0) (the fast path increments it there), so
   every slow-path entry first flushes it into the frame, and publishes
   the globals again when done. */
UWord CATS_(top_key) = 1;
Addr  CATS_(top_sp)  = 0;

static inline void flush(Thread* t)
{
   if (t == CATS_(cur_thread) && t->loop_top >= 0)
      t->frames[t->loop_top].iter = CATS_(cur_iter0);
}

/* What the innermost frame that is not a client region stands for: its
   function or its static region. Signal frames match nothing. */
static UWord frame_key(const Thread* t)
{
   Int i;
   for (i = t->depth - 1; i >= 0; i--) {
      const Frame* f = &t->frames[i];
      switch (f->kind) {
      case CATS_CTX_REGION:
         continue;
      case CATS_CTX_FUNCTION:
         return (UWord)f->fn;
      case CATS_CTX_LOOP:
      case CATS_CTX_CONDITIONAL:
         return (UWord)f->region;
      default:
         return 1;
      }
   }
   return 1;
}

/* Loop state for the fast path after the innermost loop frame changed;
   the innermost loop's count is read from its frame (flushed). */
static void publish_loops(const Thread* t)
{
   CATS_(cur_inst0) = CATS_(cur_iter0) = 0;
   CATS_(cur_inst1) = CATS_(cur_iter1) = 0;
   if (t->loop_top >= 0) {
      const Frame* l0 = &t->frames[t->loop_top];
      CATS_(cur_inst0) = l0->inst;
      CATS_(cur_iter0) = l0->iter;
      if (l0->prev_loop >= 0) {
         CATS_(cur_inst1) = t->frames[l0->prev_loop].inst;
         CATS_(cur_iter1) = t->frames[l0->prev_loop].iter;
      }
   }
}

/* What the innermost scope's key is published as: 0, no scope's key,
   while a call is pending (the last superblock left by one), as the
   call's exit made it, so that the next entry takes the call. */
static inline UWord key_unless_call(UWord key)
{
   return CATS_(last_jk) == Ijk_Boring ? key : 0;
}

static void publish(Thread* t)
{
   if (t != CATS_(cur_thread))
      return;
   CATS_(cur_ctx) = top_ctx(t);
   publish_loops(t);
   CATS_(top_sp) = t->depth > 0 ? t->frames[t->depth - 1].sp : 0;
   CATS_(top_key) = key_unless_call(frame_key(t));
}

/* The jump kind the last superblock left with belongs to its thread:
   a call pending in one thread must not push a frame in the next. */
void CATS_(switch_thread)(ThreadId tid)
{
   if (CATS_(cur_thread) != NULL) {
      flush(CATS_(cur_thread));
      CATS_(cur_thread)->last_jk = CATS_(last_jk);
   }
   CATS_(cur_thread) = CATS_(thread)(tid);
   CATS_(last_jk) = CATS_(cur_thread)->last_jk;
   publish(CATS_(cur_thread));
}

Bool CATS_(in_conditional)(void)
{
   const Thread* t = CATS_(cur_thread);
   Int i;
   if (t == NULL)
      return False;
   for (i = t->depth - 1; i > t->fn_top && i >= 0; i--)
      if (t->frames[i].kind == CATS_CTX_CONDITIONAL)
         return True;
   return False;
}

/* 'cache' points at a (parent, ctx) pair of the pushed function or
   region, so that re-entering it under the same parent, as an inner
   loop does once per outer iteration, skips the context-tree lookup. */
static Frame* push_frame(Thread* t, UChar kind, Addr sp, UInt key, UInt loc,
                         UInt name, UInt* cache)
{
   if (t->depth == t->cap) {
      t->cap *= 2;
      t->frames = VG_(realloc)("cats.frames", t->frames,
                               t->cap * sizeof(Frame));
   }
   UInt parent = top_ctx(t);
   UInt ctx;
   CtxNode* pn = ctx_node(parent);
   if (cache != NULL && cache[0] == parent && cache[1] != CATS_NONE) {
      ctx = cache[1];
   } else if (kind == CATS_CTX_FUNCTION && pn->kind == CATS_CTX_FUNCTION
              && pn->loc == loc) {
      /* Direct recursion: one node, so deep recursion stays small. */
      ctx = parent;
      pn->flags |= CATS_CTXFLAG_RECURSIVE;
   } else {
      ctx = ctx_child(parent, kind, key, loc, name);
   }
   if (cache != NULL) {
      cache[0] = parent;
      cache[1] = ctx;
   }
   Frame* f = &t->frames[t->depth];
   f->kind = kind;
   f->fn = NULL;
   f->region = NULL;
   f->iter = 0;
   f->stk = NULL;
   f->ctx = ctx;
   f->sp = sp;
   f->name = name;
   f->inst = ++inst_counter;
   f->prev_loop = t->loop_top;
   f->prev_fn = t->fn_top;
   if (kind == CATS_CTX_FUNCTION)
      t->fn_top = t->depth;
   else if (kind == CATS_CTX_LOOP)
      t->loop_top = t->depth;
   t->depth++;
   CtxNode* n = ctx_node(ctx);
   n->entries++;
   if (n->entries == 1)
      n->first_time = CATS_(time);
   return f;
}

static void pop_frame(Thread* t)
{
   tl_assert(t->depth > 0);
   Frame* f = &t->frames[t->depth - 1];
   CtxNode* n = ctx_node(f->ctx);
   n->last_time = CATS_(time);
   if (f->kind == CATS_CTX_LOOP) {
      n->iterations += f->iter;
      if (f->iter > n->max_iterations)
         n->max_iterations = f->iter;
   }
   if (f->kind == CATS_CTX_FUNCTION)
      CATS_(frame_popped)(f);
   t->fn_top = f->prev_fn;
   t->loop_top = f->prev_loop;
   t->depth--;
}

static void push_function(Thread* t, Func* fn, Addr sp)
{
   Frame* f = push_frame(t, CATS_CTX_FUNCTION, sp, fn->loc, fn->loc,
                         CATS_(loc_fn)(fn->loc), &fn->last_parent);
   f->fn = fn;
   CATS_(frame_pushed)(t, f);
}

static void push_region(Thread* t, Region* r, Addr addr)
{
   Addr sp = t->fn_top >= 0 ? t->frames[t->fn_top].sp : 0;
   static UInt loop_name = CATS_NONE, if_name = CATS_NONE;
   if (loop_name == CATS_NONE) {
      loop_name = CATS_(intern_str)("loop");
      if_name = CATS_(intern_str)("if");
   }
   Frame* f = push_frame(t, r->kind, sp, r->loc, r->loc,
                         r->kind == CATS_CTX_LOOP ? loop_name : if_name,
                         &r->last_parent);
   f->region = r;
   f->fn = t->fn_top >= 0 ? t->frames[t->fn_top].fn : NULL;
   if (r->kind == CATS_CTX_LOOP)
      f->iter = (addr == r->header) ? 1 : 0;
}

/* Makes the static frames above the innermost function frame equal to
   the regions containing p, counting an iteration when a loop header
   is re-entered. Client regions between them are kept. */
static void update_regions(Thread* t, const Point* p)
{
   Int i, r = 0, n = (Int)p->nregions;
   if (n == 0 && t->depth - 1 == t->fn_top)
      return;
   /* Regions nest statically, so when the top frame is p's innermost
      region the frames below it are p's other regions: the hot case of
      a loop body re-entering its header. */
   if (n > 0 && t->depth - 1 > t->fn_top) {
      Frame* top = &t->frames[t->depth - 1];
      Region* inner = p->regions[n - 1];
      if (top->region == inner) {
         if (inner->header == p->addr && inner->kind == CATS_CTX_LOOP)
            top->iter++;
         return;
      }
   }
   for (i = t->fn_top + 1; i < t->depth; i++) {
      Frame* f = &t->frames[i];
      if (f->kind == CATS_CTX_REGION)
         continue;
      if (r < n && f->region == p->regions[r]) {
         r++;
         continue;
      }
      break;
   }
   while (t->depth > i)
      pop_frame(t);
   if (r == n) {
      if (n > 0) {
         Region* inner = p->regions[n - 1];
         if (inner->kind == CATS_CTX_LOOP && inner->header == p->addr
             && t->loop_top >= 0 && t->frames[t->loop_top].region == inner)
            t->frames[t->loop_top].iter++;
      }
      return;
   }
   for (; r < n; r++)
      push_region(t, p->regions[r], p->addr);
}

/* One step into a loop or conditional of the innermost frame's region,
   or out of it back into the enclosing region: the usual slow-path case
   in loop nests (an inner loop entered once per outer iteration, an `if`
   in a loop body). Only the frames involved are touched. */
static Bool step_region(Thread* t, const Point* p)
{
   Int n = (Int)p->nregions;
   if (n == 0 || t->depth - 1 <= t->fn_top)
      return False;
   Frame* top = &t->frames[t->depth - 1];
   Region* inner = p->regions[n - 1];
   Bool loops = False;
   if (top->region != NULL && inner->parent == top->region) {
      loops = inner->kind == CATS_CTX_LOOP;
      if (loops)
         flush(t);
      push_region(t, inner, p->addr);
   } else if (top->region != NULL && top->region->parent == inner
              && t->depth - 2 > t->fn_top
              && t->frames[t->depth - 2].region == inner) {
      loops = top->kind == CATS_CTX_LOOP;
      if (loops)
         flush(t);
      pop_frame(t);
      if (inner->kind == CATS_CTX_LOOP && inner->header == p->addr) {
         if (loops)
            t->frames[t->depth - 1].iter++;
         else
            CATS_(cur_iter0)++;
      }
   } else {
      return False;
   }
   if (loops)
      publish_loops(t);
   CATS_(cur_ctx) = t->frames[t->depth - 1].ctx;
   CATS_(top_key) = key_unless_call((UWord)inner);
   return True;
}

VG_REGPARM(2) void CATS_(on_sb_entry)(Point* p, Addr sp)
{
   Thread* t = CATS_(cur_thread);
   UInt jk = CATS_(last_jk);
   CATS_(last_jk) = Ijk_Boring;
   if (jk != Ijk_Call && !p->is_entry && p->fn != NULL && t->fn_top >= 0
       && t->frames[t->fn_top].fn == p->fn && t->frames[t->depth - 1].sp >= sp
       && step_region(t, p))
      return;
   flush(t);

   /* Pop every frame that returned, but never past a signal frame that
      is still running: its handler runs below the interrupted SP. */
   while (t->depth > 0) {
      Frame* f = &t->frames[t->depth - 1];
      if (f->sp >= sp)
         break;
      pop_frame(t);
   }
   if (p->fn == NULL || p->fn->hidden) {
      publish(t);
      return;
   }
   Frame* top = t->fn_top >= 0 ? &t->frames[t->fn_top] : NULL;
   Bool under_signal = t->depth > 0
                       && t->frames[t->depth - 1].kind == CATS_CTX_SIGNAL;
   if (top == NULL || under_signal || jk == Ijk_Call
       || (p->is_entry && sp < top->sp)) {
      push_function(t, p->fn, sp);
   } else if (p->fn != top->fn) {
      /* A tail call (same SP, at an entry), or a landing in another
         function we did not see being called: the frame changes owner. */
      Addr fsp = top->sp;
      Int fn_index = t->fn_top;
      while (t->depth > fn_index)
         pop_frame(t);
      push_function(t, p->fn, fsp);
   }
   update_regions(t, p);
   publish(t);
}

VG_REGPARM(1) void CATS_(on_point)(Point* p)
{
   Thread* t = CATS_(cur_thread);
   if (t->fn_top < 0 || p->fn == NULL || t->frames[t->fn_top].fn != p->fn)
      return;
   if (step_region(t, p))
      return;
   flush(t);
   update_regions(t, p);
   publish(t);
}

void CATS_(region_begin)(ThreadId tid, const HChar* name)
{
   Thread* t = CATS_(thread)(tid);
   flush(t);
   Addr sp = t->fn_top >= 0 ? t->frames[t->fn_top].sp : ~(Addr)0;
   UInt s = CATS_(intern_str)(name);
   UInt loc = CATS_(loc_of_addr)(VG_(get_IP)(tid));
   push_frame(t, CATS_CTX_REGION, sp, s, loc, s, NULL);
   publish(t);
}

void CATS_(region_end)(ThreadId tid, const HChar* name)
{
   Thread* t = CATS_(thread)(tid);
   flush(t);
   UInt s = CATS_(intern_str)(name);
   Int i;
   for (i = t->depth - 1; i > t->fn_top; i--) {
      if (t->frames[i].kind == CATS_CTX_REGION && t->frames[i].name == s) {
         while (t->depth > i)
            pop_frame(t);
         break;
      }
   }
   publish(t);
}

void CATS_(signal_enter)(ThreadId tid, Int sig)
{
   Thread* t = CATS_(thread)(tid);
   flush(t);
   HChar name[32];
   VG_(snprintf)(name, sizeof(name), "signal %d", sig);
   UInt s = CATS_(intern_str)(name);
   push_frame(t, CATS_CTX_SIGNAL, VG_(get_SP)(tid), (UInt)sig, CATS_NONE, s,
              NULL);
   publish(t);
}

void CATS_(signal_leave)(ThreadId tid, Int sig)
{
   Thread* t = CATS_(thread)(tid);
   flush(t);
   Int i;
   for (i = t->depth - 1; i >= 0; i--) {
      if (t->frames[i].kind == CATS_CTX_SIGNAL) {
         while (t->depth > i)
            pop_frame(t);
         break;
      }
   }
   publish(t);
}

static void retire(Thread* t)
{
   flush(t);
   while (t->depth > 0)
      pop_frame(t);
   ctx_node(t->root)->last_time = CATS_(time);
}

void CATS_(thread_exit)(ThreadId tid)
{
   Thread* t = threads[tid];
   if (t == NULL)
      return;
   retire(t);
   if (CATS_(cur_thread) == t)
      CATS_(cur_thread) = NULL;
   threads[tid] = NULL;
   VG_(free)(t->frames);
   VG_(free)(t);
}

void CATS_(cflow_finish)(void)
{
   UInt tid;
   for (tid = 0; tid < VG_N_THREADS; tid++) {
      Thread* t = threads[tid];
      if (t != NULL)
         retire(t);
   }
}

/*------------------------------------------------------------*/
/*--- Functions, objects and points                        ---*/
/*------------------------------------------------------------*/

static ObjRegions* obj_regions(Addr a);

/* The function's stack arrays, copied out of its object's sorted list;
   the object's list is asked for at the first stack use of any of its
   functions, so objects whose frames are never touched cost nothing. */
void CATS_(func_stack_vars)(Func* f)
{
   if (f->svars_known)
      return;
   f->svars_known = True;
   ObjRegions* o = f->hidden ? NULL : obj_regions(f->entry);
   if (o == NULL)
      return;
   if (!o->svars_loaded) {
      o->svars_loaded = True;
      CATS_(stackvars_of_object)(o->text_lo, o->text_hi - o->text_lo,
                                 o->path, &o->svars, &o->n_svars);
   }
   if (o->n_svars == 0)
      return;
   Int lo = 0, hi = (Int)o->n_svars - 1, first = -1;
   while (lo <= hi) {
      Int mid = (lo + hi) / 2;
      if (o->svars[mid].fn_entry >= f->entry) {
         if (o->svars[mid].fn_entry == f->entry)
            first = mid;
         hi = mid - 1;
      } else {
         lo = mid + 1;
      }
   }
   if (first < 0)
      return;
   UInt n = 0, i;
   while (first + n < o->n_svars && o->svars[first + n].fn_entry == f->entry)
      n++;
   StackVar* v = VG_(malloc)("cats.func.svars", n * sizeof(StackVar));
   for (i = 0; i < n; i++)
      v[i] = o->svars[first + i].var;
   f->svars = v;
   f->n_svars = n;
}

Func* CATS_(func_of)(Addr a, Bool* is_entry)
{
   DiEpoch ep = VG_(current_DiEpoch)();
   const HChar* name;
   *is_entry = False;
   if (!VG_(get_fnname_w_offset)(ep, a, &name))
      return NULL;
   /* "name+N" gives the offset from the symbol's start. */
   Addr off = 0;
   const HChar* plus = VG_(strrchr)(name, '+');
   if (plus && plus[1] >= '0' && plus[1] <= '9')
      off = (Addr)VG_(strtoll10)(plus + 1, NULL);
   Addr entry = a - off;
   *is_entry = (off == 0);
   Bool found;
   UWord* slot = CATS_(map_slot)(&func_map, entry, 1, &found);
   if (!found) {
      Func* f = VG_(calloc)("cats.func", 1, sizeof(Func));
      const HChar* obj;
      f->entry = entry;
      f->loc = CATS_(loc_of_fn_entry)(entry);
      f->last_parent = CATS_NONE;
      f->last_ctx = CATS_NONE;
      f->frame_ctx = CATS_NONE;
      f->frame_rec = CATS_NONE;
      f->frame_name = CATS_NONE;
      f->hidden = VG_(get_objname)(ep, entry, &obj)
                  && VG_(strstr)(obj, "vgpreload_") != NULL;
      f->is_main = off == 0 && VG_(strncmp)(name, "main", 4) == 0
                   && (name[4] == '\0' || name[4] == '+');
      *slot = (UWord)f;
   }
   return (Func*)*CATS_(map_slot)(&func_map, entry, 1, &found);
}

static ObjRegions* obj_regions(Addr a)
{
   Word i;
   for (i = 0; i < VG_(sizeXA)(objs); i++) {
      ObjRegions* o = *(ObjRegions**)VG_(indexXA)(objs, i);
      if (a >= o->text_lo && a < o->text_hi)
         return o;
   }
   DebugInfo* di = VG_(find_DebugInfo)(VG_(current_DiEpoch)(), a);
   if (di == NULL)
      return NULL;
   Addr lo = VG_(DebugInfo_get_text_avma)(di);
   SizeT sz = VG_(DebugInfo_get_text_size)(di);
   if (sz == 0 || a < lo || a >= lo + sz)
      return NULL;
   ObjRegions* o = VG_(calloc)("cats.objregions", 1, sizeof(ObjRegions));
   o->text_lo = lo;
   o->text_hi = lo + sz;
   const HChar* path = VG_(DebugInfo_get_filename)(di);
   o->path = VG_(strdup)("cats.objpath", path ? path : "");
   CATS_(regions_of_object)(lo, sz, path, &o->regs, &o->n_regs, &o->ranges,
                            &o->n_ranges);
   o->headers = VG_(malloc)("cats.objregions.headers",
                            (o->n_regs + 1) * sizeof(Addr));
   for (i = 0; i < (Word)o->n_regs; i++) {
      Region* r = &o->regs[i];
      r->loc = CATS_(loc_of_addr)(r->label);
      if (r->kind != CATS_CTX_LOOP)
         continue;
      /* Insertion into the sorted header list. */
      Word j = o->n_headers++;
      while (j > 0 && o->headers[j - 1] > r->header) {
         o->headers[j] = o->headers[j - 1];
         j--;
      }
      o->headers[j] = r->header;
   }
   VG_(addToXA)(objs, &o);
   return o;
}

/* The range holding a, or NULL. */
static const RegionRange* range_of(const ObjRegions* o, Addr a)
{
   Int lo = 0, hi = (Int)o->n_ranges - 1;
   while (lo <= hi) {
      Int mid = (lo + hi) / 2;
      const RegionRange* g = &o->ranges[mid];
      if (a < g->start)
         hi = mid - 1;
      else if (a >= g->end)
         lo = mid + 1;
      else
         return g;
   }
   return NULL;
}

static Bool is_header(const ObjRegions* o, Addr a)
{
   Int lo = 0, hi = (Int)o->n_headers - 1;
   while (lo <= hi) {
      Int mid = (lo + hi) / 2;
      if (o->headers[mid] == a)
         return True;
      if (o->headers[mid] < a)
         lo = mid + 1;
      else
         hi = mid - 1;
   }
   return False;
}

/* Control flow must be looked at where the innermost region changes
   (a range starts or ends) and at loop headers, even in the middle of
   a superblock. */
Bool CATS_(is_region_boundary)(Addr a)
{
   ObjRegions* o = obj_regions(a);
   if (o == NULL || o->n_ranges == 0)
      return False;
   if (is_header(o, a))
      return True;
   const RegionRange* g = range_of(o, a);
   if (g != NULL)
      return g->start == a;
   /* Outside every range: a boundary if a range ends here. */
   g = range_of(o, a - 1);
   return g != NULL && g->end == a;
}

Point* CATS_(point_of)(Addr a, Bool sb_start)
{
   Bool found;
   UWord* slot = CATS_(map_slot)(&point_map, a, sb_start ? 2 : 1, &found);
   if (found)
      return (Point*)*slot;
   Point* p = VG_(calloc)("cats.point", 1, sizeof(Point));
   p->addr = a;
   p->fn = CATS_(func_of)(a, &p->is_entry);
   ObjRegions* o = (p->fn && !p->fn->hidden) ? obj_regions(a) : NULL;
   const RegionRange* g = o ? range_of(o, a) : NULL;
   if (g != NULL) {
      Region* r;
      UInt n = g->region->depth + 1, i = n;
      p->nregions = n;
      p->regions = VG_(malloc)("cats.point.regions", n * sizeof(Region*));
      for (r = g->region; r != NULL && i > 0; r = r->parent)
         p->regions[--i] = r;
   }
   /* The map may have grown while describing the point. */
   *CATS_(map_slot)(&point_map, a, sb_start ? 2 : 1, &found) = (UWord)p;
   return p;
}

/* A string instruction with a rep prefix runs as a superblock that jumps
   back to itself once per repetition: a loop of one instruction that no
   branch in the machine code shows (gcc -O2 turns copy loops into
   `rep movsq`). Its point gets a loop region of its own, inside the
   instruction's other regions, so each repetition is an iteration. */
Point* CATS_(rep_point_of)(Addr a)
{
   Bool found;
   UWord* slot = CATS_(map_slot)(&point_map, a, 3, &found);
   if (found)
      return (Point*)*slot;
   const Point* base = CATS_(point_of)(a, True);
   Point* p = VG_(calloc)("cats.reppoint", 1, sizeof(Point));
   Region* r = VG_(calloc)("cats.repregion", 1, sizeof(Region));
   UInt i;
   *p = *base;
   r->header = a;
   r->kind = CATS_CTX_LOOP;
   r->rep = True;
   r->loc = CATS_(loc_of_addr)(a);
   r->parent = base->nregions > 0 ? base->regions[base->nregions - 1] : NULL;
   r->depth = base->nregions;
   r->last_parent = r->last_ctx = CATS_NONE;
   p->nregions = base->nregions + 1;
   p->regions = VG_(malloc)("cats.reppoint.regions",
                            p->nregions * sizeof(Region*));
   for (i = 0; i < base->nregions; i++)
      p->regions[i] = base->regions[i];
   p->regions[base->nregions] = r;
   *CATS_(map_slot)(&point_map, a, 3, &found) = (UWord)p;
   return p;
}

void CATS_(prefetch_new_objects)(void)
{
   const DebugInfo* di;
   for (di = VG_(next_DebugInfo)(NULL); di; di = VG_(next_DebugInfo)(di)) {
      SizeT sz = VG_(DebugInfo_get_text_size)(di);
      if (sz > 0)
         CATS_(prefetch_object)(VG_(DebugInfo_get_text_avma)(di), sz,
                                VG_(DebugInfo_get_filename)(di));
   }
}

Bool CATS_(region_holds)(const Region* r, Addr a)
{
   const Point* p = CATS_(point_of)(a, False);
   UInt i;
   for (i = 0; i < p->nregions; i++)
      if (p->regions[i] == r)
         return True;
   return False;
}

void CATS_(cflow_init)(void)
{
   CATS_(map_init)(&ctx_map, "cats.ctxmap");
   CATS_(map_init)(&func_map, "cats.funcmap");
   CATS_(map_init)(&point_map, "cats.pointmap");
   threads = VG_(calloc)("cats.threads", VG_N_THREADS, sizeof(Thread*));
   objs = VG_(newXA)(VG_(malloc), "cats.objs", VG_(free),
                     sizeof(ObjRegions*));
}

void CATS_(write_contexts)(CatsBuf* b)
{
   UInt i, n = CATS_(n_ctxs)();
   CATS_(put_u32)(b, n);
   for (i = 0; i < n; i++) {
      const CtxNode* c = ctx_node(i);
      CATS_(put_u32)(b, c->parent);
      CATS_(put_u8)(b, c->kind);
      CATS_(put_u8)(b, c->flags);
      CATS_(put_u16)(b, 0);
      CATS_(put_u32)(b, c->loc);
      CATS_(put_u32)(b, c->name);
      CATS_(put_u64)(b, c->entries);
      CATS_(put_u64)(b, c->iterations);
      CATS_(put_u64)(b, c->max_iterations);
      CATS_(put_u64)(b, c->first_time);
      CATS_(put_u64)(b, c->last_time);
   }
}
