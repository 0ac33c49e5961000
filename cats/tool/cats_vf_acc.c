/* SPDX-License-Identifier: GPL-2.0-or-later */
/*--------------------------------------------------------------------*/
/*--- cats: a loop's accumulators, logged.            cats_vf_acc.c ---*/
/*--------------------------------------------------------------------*/
/* A dot product (s += a[k] * b[k]) reads its accumulator register at
   every iteration, and each read makes the union of the register's
   lazy slots (cats_vf_sets.c): a call per iteration and lane that costs
   more than the rest of the iteration's instrumentation. When the loop
   is one superblock that jumps back to itself, stores nothing and reads
   the accumulator only to add to it, nothing in the superblock needs
   the union but the next iteration's: so the iteration's PUT appends
   the lane's new slots to a log instead (an IR store, no call), and the
   unions are made from the log in the order the iterations would have
   made them, when the loop is left (before each exit that leaves it),
   when the log is full, and before anything else can see the
   registers: a thread switch, a signal, a translation discarded, a
   thread's exit. The graph is the same, vertex for vertex (a fatal
   signal inside the loop loses the runs since the last replay).

   This file finds such accumulators in a superblock before it is
   instrumented, and keeps the log. */

#include "cats_tool.h"
#include "cats_vf.h"
#include "pub_tool_machine.h"
#include "pub_tool_threadstate.h"

/*------------------------------------------------------------*/
/*--- Finding accumulators                                 ---*/
/*------------------------------------------------------------*/
/* A forward pass over the superblock: per temporary lane, which
   candidate reads it carries and at most how many sources (loads,
   register reads) its provenance has. A candidate is a lane of the
   first read of a data register in the superblock; it is kept if it
   reaches exactly one PUT, back to its own register unit, alone among
   the candidates and with at most three sources there (so the IR's
   deps stay a few atoms and the PUT's slots the accumulator's layout),
   and nothing else: no store, helper, ITE or address, no other unit,
   no second PUT over it, and no exit between the candidates' reads and
   their PUTs. Lanes move through the operations whose lanes the
   instrumentation follows (op_deps); any other operation mixes them. */

#define MAX_CANDS 16
#define MANY      15        /* sources, counted up to this */
#define SLOTS_MAX 3         /* own value plus two: lane_slots' layout */
#define ATOMS_MAX 6         /* cats_vf_instr.c, MAX_ATOMS */

typedef struct {
   UShort bits;             /* candidates carried */
   UChar  n;                /* sources, at most */
} Src;

typedef struct {
   Src (*t)[VF_MAX_LANES];          /* per temporary */
   UShort escaped;
   UInt   ncand;
   Int    unit[MAX_CANDS];
   IRTemp tmp[MAX_CANDS];
   UChar  lane[MAX_CANDS];
   Int    get_at[MAX_CANDS], put_at[MAX_CANDS];   /* statement indices */
   Src    unit_now[VF_N_UNITS];
   UChar  unit_seen[VF_N_UNITS];
} Acc;

static const Src NONE = { 0, 0 };

static UInt n_lanes(IRType ty)
{
   Int sz = ty == Ity_I1 ? 1 : sizeofIRType(ty);
   return sz <= 8 ? 1 : (UInt)(sz / 8);
}

static Src mix(Src a, Src b)
{
   Src r = { (UShort)(a.bits | b.bits),
             (UChar)(a.n + b.n > MANY ? MANY : a.n + b.n) };
   return r;
}

static Src lane_of(Acc* ac, IRTypeEnv* env, IRExpr* e, UInt l)
{
   if (e == NULL || e->tag != Iex_RdTmp)
      return NONE;
   IRTemp t = e->Iex.RdTmp.tmp;
   return l < n_lanes(typeOfIRTemp(env, t)) ? ac->t[t][l] : NONE;
}

static Src all_lanes(Acc* ac, IRTypeEnv* env, IRExpr* e)
{
   Src s = NONE;
   UInt l;
   if (e == NULL || e->tag != Iex_RdTmp)
      return s;
   for (l = 0; l < n_lanes(typeOfIRTemp(env, e->Iex.RdTmp.tmp)); l++)
      s = mix(s, ac->t[e->Iex.RdTmp.tmp][l]);
   return s;
}

static void escape(Acc* ac, Src s)
{
   ac->escaped |= s.bits;
}

static void escape_all_lanes(Acc* ac, IRTypeEnv* env, IRExpr* e)
{
   escape(ac, all_lanes(ac, env, e));
}

/* A first read of a unit: lane l of temporary t. */
static Src new_read(Acc* ac, IRTemp t, UInt l, Int unit, Bool whole,
                    UChar self, Int at)
{
   Src s = { 0, 1 };
   if (whole && ac->ncand < MAX_CANDS && !(self & VF_SELF_UPDATE)
       && !(self & (VF_PASS_LANE << l))) {
      UInt c = ac->ncand++;
      ac->unit[c] = unit;
      ac->tmp[c] = t;
      ac->lane[c] = (UChar)l;
      ac->get_at[c] = at;
      ac->put_at[c] = -1;
      s.bits = (UShort)(1u << c);
   }
   return s;
}

static void acc_get(Acc* ac, IRTemp t, IRExpr* e, const UChar* self, Int at)
{
   Int off = e->Iex.Get.offset;
   IRType ty = e->Iex.Get.ty;
   UInt l, lanes = n_lanes(ty);
   Bool whole = (off & 7) == 0 && (ty == Ity_I64 || ty == Ity_F64
                                   || ty == Ity_V128 || ty == Ity_V256);
   for (l = 0; l < lanes; l++) {
      Int u = off / 8 + (Int)l;
      if (!CATS_(vf_data_reg)(u * 8)) {
         ac->t[t][l] = NONE;
      } else if (ac->unit_seen[u]) {
         ac->t[t][l] = ac->unit_now[u];
      } else {
         ac->t[t][l] = ac->unit_now[u] = new_read(ac, t, l, u, whole,
                                                  self[t], at);
         ac->unit_seen[u] = 1;
      }
   }
}

/* Lane l of a lane-wise operation: lane l of its vector arguments, all
   of a scalar one (mix_lane in cats_vf_instr.c). */
static Src lanewise(Acc* ac, IRTypeEnv* env, IRExpr** args, UInt n, UInt l)
{
   Src s = NONE;
   UInt i;
   for (i = 0; i < n; i++) {
      if (args[i]->tag != Iex_RdTmp)
         continue;
      UInt k = n_lanes(typeOfIRExpr(env, args[i]));
      s = mix(s, k > 1 ? lane_of(ac, env, args[i], l < k ? l : 0)
                       : all_lanes(ac, env, args[i]));
   }
   return s;
}

/* The lanes of an operation's result, as op_deps makes its deps. */
static void acc_op(Acc* ac, IRTypeEnv* env, IROp op, IRExpr** a, UInt n,
                   IRType res, Src* out)
{
   UInt rl = n_lanes(res), l;
   for (l = 0; l < VF_MAX_LANES; l++)
      out[l] = NONE;
   if (op == Iop_INVALID)   /* a helper call: everything, mixed */
      goto mixed;
   if (n == 1 && CATS_(vf_is_copy_unop)(op)) {
      out[0] = lane_of(ac, env, a[0], 0);
      return;
   }
   switch (op) {
   case Iop_V128to64: case Iop_V128to32: case Iop_128to64:
   case Iop_V256to64_0: case Iop_64UtoV128: case Iop_32UtoV128:
   case Iop_ZeroHI64ofV128: case Iop_ZeroHI96ofV128:
      out[0] = lane_of(ac, env, a[0], 0);
      return;
   case Iop_V128HIto64: case Iop_128HIto64: case Iop_V256to64_1:
      out[0] = lane_of(ac, env, a[0], 1);
      return;
   case Iop_64HLtoV128: case Iop_64HLto128:
      out[0] = lane_of(ac, env, a[1], 0);
      out[1] = lane_of(ac, env, a[0], 0);
      return;
   case Iop_SetV128lo64:
      out[0] = lane_of(ac, env, a[1], 0);
      out[1] = lane_of(ac, env, a[0], 1);
      return;
   default:
      break;
   }
   if (CATS_(vf_is_lowest_lane)(op)) {
      IRExpr* vec = a[n == 3 ? 1 : 0];
      out[0] = lanewise(ac, env, a, n, 0);
      for (l = 1; l < rl; l++)
         out[l] = lane_of(ac, env, vec, l);
      return;
   }
   if (rl > 1 && !CATS_(vf_is_cross_lane)(op)) {
      for (l = 0; l < rl; l++)
         out[l] = lanewise(ac, env, a, n, l);
      return;
   }
mixed:;
   Src all = NONE;
   UInt i;
   for (i = 0; i < n; i++)
      all = mix(all, all_lanes(ac, env, a[i]));
   for (l = 0; l < rl; l++)
      out[l] = all;
}

static void acc_wrtmp(Acc* ac, IRTypeEnv* env, IRTemp t, IRExpr* e,
                      const UChar* self, Int at)
{
   IRExpr* args[VF_MAX_EXPR_ARGS];
   UInt l, n = 0;
   IROp op = Iop_INVALID;
   for (l = 0; l < VF_MAX_LANES; l++)
      ac->t[t][l] = NONE;
   switch (e->tag) {
   case Iex_Get:
      acc_get(ac, t, e, self, at);
      return;
   case Iex_RdTmp:
      for (l = 0; l < VF_MAX_LANES; l++)
         ac->t[t][l] = lane_of(ac, env, e, l);
      return;
   case Iex_Load:
      escape_all_lanes(ac, env, e->Iex.Load.addr);
      for (l = 0; l < n_lanes(e->Iex.Load.ty); l++)
         ac->t[t][l].n = 1;
      return;
   case Iex_ITE:
      escape_all_lanes(ac, env, e->Iex.ITE.iftrue);
      escape_all_lanes(ac, env, e->Iex.ITE.iffalse);
      for (l = 0; l < n_lanes(typeOfIRTemp(env, t)); l++)
         ac->t[t][l].n = 1;
      return;
   case Iex_Unop: case Iex_Binop: case Iex_Triop: case Iex_Qop:
   case Iex_CCall:
      n = CATS_(vf_expr_args)(e, args, &op);
      break;
   default:
      return;   /* constants, GetI */
   }
   acc_op(ac, env, op, args, n, typeOfIRTemp(env, t), ac->t[t]);
   /* More atoms than the IR's deps hold would make a union of the raw
      read (cats_vf_instr.c, add_atom). */
   for (l = 0; l < VF_MAX_LANES; l++)
      if (ac->t[t][l].n > ATOMS_MAX)
         escape(ac, ac->t[t][l]);
}

static void acc_put(Acc* ac, IRTypeEnv* env, Int off, IRExpr* data, Int at)
{
   IRType ty = typeOfIRExpr(env, data);
   UInt l, c;
   Bool whole = (off & 7) == 0 && (ty == Ity_I64 || ty == Ity_F64
                                   || ty == Ity_V128 || ty == Ity_V256);
   Int size = ty == Ity_I1 ? 1 : sizeofIRType(ty), u;
   if (!CATS_(vf_data_reg)(off))
      return;
   for (u = off / 8; u <= (off + size - 1) / 8; u++) {
      l = (UInt)(u - off / 8);
      Src s = whole ? lane_of(ac, env, data, l) : all_lanes(ac, env, data);
      for (c = 0; c < ac->ncand; c++) {
         if (ac->unit[c] != u)
            continue;
         Bool back = whole && s.bits == (1u << c) && s.n <= SLOTS_MAX
                     && ac->put_at[c] < 0;
         if (back)
            ac->put_at[c] = at;
         else
            ac->escaped |= (UShort)(1u << c);   /* overwritten */
      }
      UShort own = 0;
      for (c = 0; c < ac->ncand; c++)
         if (ac->unit[c] == u && ac->put_at[c] == at)
            own = (UShort)(1u << c);
      ac->escaped |= s.bits & ~own;
      ac->unit_now[u] = s;
      ac->unit_seen[u] = 1;
   }
}

/* Whether the superblock continues at its own start, on some path. */
static Bool loops_to_itself(IRSB* sb, Addr start)
{
   Int i;
   const IRConst* next = sb->next->tag == Iex_Const ? sb->next->Iex.Const.con
                                                   : NULL;
   if (start == 0)
      return False;
   if (CATS_(vf_jumps_back)(sb->jumpkind, next, start))
      return True;
   for (i = 0; i < sb->stmts_used; i++) {
      IRStmt* st = sb->stmts[i];
      if (st->tag == Ist_Exit
          && CATS_(vf_jumps_back)(st->Ist.Exit.jk, st->Ist.Exit.dst, start))
         return True;
   }
   return False;
}

UInt CATS_(vf_find_accumulators)(IRSB* sb, Addr start, const UChar* self,
                                 UChar* acc, Int* lo, Int* hi)
{
   IRTypeEnv* env = sb->tyenv;
   Int i;
   UInt c;
   if (!loops_to_itself(sb, start))
      return 0;
   Acc* ac = VG_(calloc)("cats.vf.acc", 1, sizeof(Acc));
   ac->t = VG_(calloc)("cats.vf.acct", env->types_used + 1, sizeof(ac->t[0]));
   for (i = 0; i < sb->stmts_used && ac->escaped != 0xFFFF; i++) {
      IRStmt* st = sb->stmts[i];
      switch (st->tag) {
      case Ist_WrTmp:
         acc_wrtmp(ac, env, st->Ist.WrTmp.tmp, st->Ist.WrTmp.data, self, i);
         break;
      case Ist_Put:
         acc_put(ac, env, st->Ist.Put.offset, st->Ist.Put.data, i);
         break;
      case Ist_LoadG: {
         IRLoadG* lg = st->Ist.LoadG.details;
         escape_all_lanes(ac, env, lg->addr);
         escape_all_lanes(ac, env, lg->alt);
         for (c = 0; c < VF_MAX_LANES; c++)
            ac->t[lg->dst][c] = NONE;
         ac->t[lg->dst][0].n = 1;
         break;
      }
      case Ist_Store: case Ist_StoreG: case Ist_CAS: case Ist_LLSC:
      case Ist_Dirty: case Ist_PutI:
         /* Stores make versions whose records the log would reorder;
            a helper may read the registers. */
         ac->escaped = 0xFFFF;
         break;
      default:
         break;   /* exits are checked below; IMark, NoOp, AbiHint, MBE */
      }
   }
   UInt kept = 0;
   Int first_get = sb->stmts_used, last_put = -1;
   for (c = 0; c < ac->ncand; c++)
      if (!(ac->escaped & (1u << c)) && ac->put_at[c] >= 0) {
         kept |= 1u << c;
         first_get = ac->get_at[c] < first_get ? ac->get_at[c] : first_get;
         last_put = ac->put_at[c] > last_put ? ac->put_at[c] : last_put;
      }
   /* An exit between a read and its PUT would leave an iteration half
      logged. */
   for (i = first_get; i < last_put; i++)
      if (sb->stmts[i]->tag == Ist_Exit)
         kept = 0;
   /* At most VF_ACC_UNITS lanes: an entry's words. */
   UInt n = 0;
   *lo = VF_N_UNITS * 8;
   *hi = 0;
   for (c = 0; c < ac->ncand && n < VF_ACC_UNITS; c++)
      if (kept & (1u << c)) {
         acc[ac->tmp[c]] |= (UChar)(1u << ac->lane[c]);
         *lo = ac->unit[c] * 8 < *lo ? ac->unit[c] * 8 : *lo;
         *hi = ac->unit[c] * 8 + 8 > *hi ? ac->unit[c] * 8 + 8 : *hi;
         n++;
      }
   VG_(free)(ac->t);
   VG_(free)(ac);
   return n;
}

/*------------------------------------------------------------*/
/*--- The log                                              ---*/
/*------------------------------------------------------------*/

/* Room for one entry before the log: the replay puts the registers'
   slots there, the run before the first. */
static ULong log_area[VF_ACC_UNITS + VF_ACC_LOG_WORDS];
ULong* const CATS_(vf_acc_log) = log_area + VF_ACC_UNITS;
ULong*     CATS_(vf_acc_cursor) = log_area + VF_ACC_UNITS;
VfAccLoop* CATS_(vf_acc_owner);
static ThreadId log_tid;      /* the thread running (its runs log) */
static ULong    n_flushes, n_runs, n_outside;

static UInt pending_runs(const VfAccLoop* loop)
{
   UInt words = (UInt)(CATS_(vf_acc_cursor) - CATS_(vf_acc_log));
   return loop->nunits == 1 ? words : words / loop->nunits;
}

void CATS_(vf_acc_flush)(UChar* gst, VfAccLoop* loop)
{
   if (CATS_(vf_acc_cursor) == CATS_(vf_acc_log))
      return;
   tl_assert(CATS_(vf_acc_owner) == loop);
   UInt n = pending_runs(loop);
   n_flushes++;
   n_runs += n;
   CATS_(vf_acc_replay)(gst, loop, CATS_(vf_acc_log), n);
   CATS_(vf_acc_cursor) = CATS_(vf_acc_log);
}

/* The shadow areas of a thread that is not running, copied into a
   guest-state image for the replay and back. */
void CATS_(vf_acc_flush_thread)(void)
{
   static UChar image[3 * sizeof(VexGuestAMD64State)];
   const Int size = (Int)sizeof(VexGuestAMD64State);
   if (CATS_(vf_acc_cursor) == CATS_(vf_acc_log))
      return;
   tl_assert(log_tid != VG_INVALID_THREADID);
   n_outside++;
   VG_(get_shadow_regs_area)(log_tid, image + size, 1, 0, size);
   VG_(get_shadow_regs_area)(log_tid, image + 2 * size, 2, 0, size);
   CATS_(vf_acc_flush)(image, CATS_(vf_acc_owner));
   VG_(set_shadow_regs_area)(log_tid, 1, 0, size, image + size);
   VG_(set_shadow_regs_area)(log_tid, 2, 0, size, image + 2 * size);
}

void CATS_(vf_acc_set_thread)(ThreadId tid)
{
   if (tid != log_tid) {
      CATS_(vf_acc_flush_thread)();
      log_tid = tid;
   }
}

void CATS_(vf_acc_thread_exit)(ThreadId tid)
{
   if (tid == log_tid) {
      CATS_(vf_acc_flush_thread)();
      log_tid = VG_INVALID_THREADID;
   }
}

/* At the end of a run that a fatal signal ended inside a loop: its
   registers are gone, and with them the runs' values. */
void CATS_(vf_acc_drop)(void)
{
   CATS_(vf_acc_cursor) = CATS_(vf_acc_log);
}

void CATS_(vf_acc_mark)(void (*mark)(UInt p))
{
   const ULong* e;
   for (e = CATS_(vf_acc_log); e < CATS_(vf_acc_cursor); e++) {
      mark((UInt)*e);
      mark((UInt)(*e >> 32));
   }
}

void CATS_(vf_acc_stats)(void)
{
   VG_(umsg)("cats: value flow: %'llu loop runs' unions logged, made in "
             "%'llu replays (%'llu at a thread switch or a signal)\n",
             n_runs, n_flushes, n_outside);
}
