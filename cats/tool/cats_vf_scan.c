/* SPDX-License-Identifier: GPL-2.0-or-later */
/*--------------------------------------------------------------------*/
/*--- cats: register reads that need no union.       cats_vf_scan.c ---*/
/*--------------------------------------------------------------------*/
/* A pointer or a counter register (p += 8, i++) is read and written
   back in every iteration, but its value reaches no data: only
   addresses, conditions and itself. Its provenance then only needs to
   become "computed from what it was", which the shadow word can do by
   itself (cats_vf_instr.c, put_lane): no union call is compiled in for
   it, and a guarded call that never runs still costs the code around
   it the registers the call clobbers.

   This pass over a superblock, before it is instrumented, finds the
   GETs of such registers: integer GETs of a whole unit, the
   superblock's first access to it, whose value flows (through
   operations, not loads) only into addresses, conditions and PUTs back
   to the same register computed from it alone, with nothing else PUT
   over the register and no helper of the guest's (which may write
   registers) in the superblock. ITE arms and LoadG alternatives count
   as data (the instrumentation makes them one provenance). */

#include "cats_tool.h"
#include "cats_vf.h"

#define MAX_READS 63
#define OTHER     (1ULL << 63)   /* data from loads and other registers */

typedef struct {
   ULong* mask;               /* per temporary: the reads it carries */
   ULong  escaped;
   UInt   n;
   Int    off[MAX_READS];     /* the register read, bytes [off, off+size) */
   Int    size[MAX_READS];
   IRType ty[MAX_READS];
   IRTemp tmp[MAX_READS];     /* + 1; 0 for none yet */
   ULong  unit_mask[VF_N_UNITS];   /* what a GET of the unit now reads */
   UChar  unit_seen[VF_N_UNITS];
} Scan;

static ULong mask_of(const Scan* sc, IRExpr* e)
{
   if (e == NULL || e->tag == Iex_Const)
      return 0;
   return e->tag == Iex_RdTmp ? sc->mask[e->Iex.RdTmp.tmp] : OTHER;
}

static Int size_of(IRType ty)
{
   return ty == Ity_I1 ? 1 : sizeofIRType(ty);
}

static ULong scan_get(Scan* sc, IRExpr* e)
{
   Int off = e->Iex.Get.offset, size = size_of(e->Iex.Get.ty), u;
   if (!CATS_(vf_data_reg)(off))
      return 0;
   if (sc->unit_seen[off / 8])
      return sc->unit_mask[off / 8];   /* what the superblock put there */
   ULong m = OTHER;
   if ((off & 7) == 0 && (size <= 8 || size % 8 == 0) && sc->n < MAX_READS) {
      sc->off[sc->n] = off;
      sc->size[sc->n] = size;
      sc->ty[sc->n] = e->Iex.Get.ty;
      m = 1ULL << sc->n++;
   }
   for (u = off / 8; u <= (off + size - 1) / 8; u++) {
      sc->unit_seen[u] = 1;
      sc->unit_mask[u] = m;
   }
   return m;
}

#define MAX_ARGS VF_MAX_EXPR_ARGS
UInt CATS_(vf_expr_args)(IRExpr* e, IRExpr** out, IROp* op)
{
   UInt n = 0;
   *op = Iop_INVALID;
   switch (e->tag) {
   case Iex_Unop:
      *op = e->Iex.Unop.op;
      out[n++] = e->Iex.Unop.arg;
      break;
   case Iex_Binop:
      *op = e->Iex.Binop.op;
      out[n++] = e->Iex.Binop.arg1;
      out[n++] = e->Iex.Binop.arg2;
      break;
   case Iex_Triop:
      *op = e->Iex.Triop.details->op;
      out[n++] = e->Iex.Triop.details->arg1;
      out[n++] = e->Iex.Triop.details->arg2;
      out[n++] = e->Iex.Triop.details->arg3;
      break;
   case Iex_Qop:
      *op = e->Iex.Qop.details->op;
      out[n++] = e->Iex.Qop.details->arg1;
      out[n++] = e->Iex.Qop.details->arg2;
      out[n++] = e->Iex.Qop.details->arg3;
      out[n++] = e->Iex.Qop.details->arg4;
      break;
   case Iex_CCall:
      for (; e->Iex.CCall.args[n] != NULL; n++) {
         tl_assert(n < MAX_ARGS);
         out[n] = e->Iex.CCall.args[n];
      }
      break;
   default:
      break;
   }
   return n;
}

static ULong scan_expr(Scan* sc, IRExpr* e)
{
   IRExpr* args[MAX_ARGS];
   IROp op;
   ULong m = 0;
   UInt i, n;
   switch (e->tag) {
   case Iex_Get:
      return scan_get(sc, e);
   case Iex_RdTmp: case Iex_Const:
      return mask_of(sc, e);
   case Iex_Unop: case Iex_Binop: case Iex_Triop: case Iex_Qop:
   case Iex_CCall:
      n = CATS_(vf_expr_args)(e, args, &op);
      for (i = 0; i < n; i++)
         m |= mask_of(sc, args[i]);
      return m;
   case Iex_ITE:
      sc->escaped |= mask_of(sc, e->Iex.ITE.iftrue)
                     | mask_of(sc, e->Iex.ITE.iffalse);
      return OTHER;
   default:
      return OTHER;   /* loads: data of their own; the address is not */
   }
}

/* A PUT: a read may come back to exactly its register, alone; going
   anywhere else, or its register being overwritten by something else,
   disqualifies it. */
static void scan_put(Scan* sc, Int off, IRExpr* data, IRType ty)
{
   ULong m = mask_of(sc, data);
   Int size = size_of(ty), u;
   UInt i;
   if (!CATS_(vf_data_reg)(off))
      return;
   for (i = 0; i < sc->n; i++) {
      ULong bit = 1ULL << i;
      Bool back = m == bit && sc->off[i] == off && sc->ty[i] == ty;
      Bool overlaps = off < sc->off[i] + sc->size[i]
                      && sc->off[i] < off + size;
      if (!back && ((m & bit) || overlaps))
         sc->escaped |= bit;
   }
   for (u = off / 8; u <= (off + size - 1) / 8; u++) {
      sc->unit_seen[u] = 1;
      sc->unit_mask[u] = m;
   }
}

void CATS_(vf_find_self_updates)(IRSB* sbIn, UChar* self)
{
   Scan* sc = VG_(calloc)("cats.vf.scan", 1, sizeof(Scan));
   Int i, k;
   IRTypeEnv* env = sbIn->tyenv;
   sc->mask = VG_(calloc)("cats.vf.scanm", env->types_used + 1,
                          sizeof(ULong));
   for (i = 0; i < sbIn->stmts_used; i++) {
      IRStmt* st = sbIn->stmts[i];
      switch (st->tag) {
      case Ist_WrTmp: {
         IRTemp t = st->Ist.WrTmp.tmp;
         IRExpr* e = st->Ist.WrTmp.data;
         ULong m = scan_expr(sc, e);
         sc->mask[t] = m;
         for (k = 0; e->tag == Iex_Get && k < (Int)sc->n; k++)
            if (m == (1ULL << k) && sc->tmp[k] == 0)
               sc->tmp[k] = t + 1;
         break;
      }
      case Ist_Put:
         scan_put(sc, st->Ist.Put.offset, st->Ist.Put.data,
                  typeOfIRExpr(env, st->Ist.Put.data));
         break;
      case Ist_Store:
         sc->escaped |= mask_of(sc, st->Ist.Store.data);
         break;
      case Ist_StoreG:
         sc->escaped |= mask_of(sc, st->Ist.StoreG.details->data);
         break;
      case Ist_LoadG:
         sc->escaped |= mask_of(sc, st->Ist.LoadG.details->alt);
         sc->mask[st->Ist.LoadG.details->dst] = OTHER;
         break;
      case Ist_CAS: {
         IRCAS* c = st->Ist.CAS.details;
         sc->escaped |= mask_of(sc, c->expdLo) | mask_of(sc, c->expdHi)
                        | mask_of(sc, c->dataLo) | mask_of(sc, c->dataHi);
         sc->mask[c->oldLo] = OTHER;
         if (c->oldHi != IRTemp_INVALID)
            sc->mask[c->oldHi] = OTHER;
         break;
      }
      case Ist_LLSC:
         if (st->Ist.LLSC.storedata != NULL)
            sc->escaped |= mask_of(sc, st->Ist.LLSC.storedata);
         sc->mask[st->Ist.LLSC.result] = OTHER;
         break;
      case Ist_Dirty:
         if (st->Ist.Dirty.details->tmp != IRTemp_INVALID)
            sc->mask[st->Ist.Dirty.details->tmp] = OTHER;
         sc->escaped = ~0ULL;
         break;
      case Ist_PutI:
         sc->escaped |= mask_of(sc, st->Ist.PutI.details->data);
         break;
      default:
         break;
      }
   }
   for (k = 0; k < (Int)sc->n; k++)
      if (!(sc->escaped & (1ULL << k)) && sc->tmp[k] != 0
          && (sc->ty[k] == Ity_I64 || sc->ty[k] == Ity_I32))
         self[sc->tmp[k] - 1] = 1;
   VG_(free)(sc->mask);
   VG_(free)(sc);
}

/*------------------------------------------------------------*/
/*--- Vector lanes that come back unchanged                ---*/
/*------------------------------------------------------------*/
/* A scalar SSE instruction (mulsd, sqrtsd) reads its whole destination
   register and writes back the upper lane as it was. When that lane
   holds a value computed in an earlier superblock and not yet made a
   set (its shadow slots are lazy), reading it would make the union for
   nothing: the lane goes back to its own register unchanged, and its
   shadow slots can stay as they are.

   This pass finds the lanes of vector GETs (the superblock's first
   access to the register) whose value moves only as a whole lane, in
   the same lane position, to a PUT of the same register with nothing
   else PUT there in between, or nowhere. Moves are followed only
   through the operations whose lanes the instrumentation copies as
   they are (cats_vf_instr.c, op_deps); any other use of a lane, a
   scalar taken from it, a store, a helper, disqualifies it. */

#define MAX_LANE_READS 64

typedef struct {
   ULong (*lanes)[VF_MAX_LANES];   /* per temporary: the lane reads each
                                      lane holds as it is */
   ULong  escaped;
   UInt   n;
   Int    unit[MAX_LANE_READS];     /* the unit the read came from */
   IRTemp tmp[MAX_LANE_READS];      /* the GET's temporary */
   UChar  lane[MAX_LANE_READS];     /* its lane in that temporary */
   ULong  unit_now[VF_N_UNITS];     /* the lane reads a unit holds now */
   ULong  parked[VF_N_UNITS];       /* of those, the ones not its own */
   UChar  unit_seen[VF_N_UNITS];
   UChar  unit_put[VF_N_UNITS];     /* something else was PUT there */
} Lanes;

static Bool is_vector(IRType ty)
{
   return ty == Ity_V128 || ty == Ity_V256;
}

static const ULong* lanes_of(const Lanes* ln, IRExpr* e)
{
   static const ULong none[VF_MAX_LANES] = { 0, 0, 0, 0 };
   return e != NULL && e->tag == Iex_RdTmp ? ln->lanes[e->Iex.RdTmp.tmp]
                                           : none;
}

/* At an exit, and at the end, the registers are seen. */
static void lanes_exit(Lanes* ln)
{
   UInt u;
   for (u = 0; u < VF_N_UNITS; u++) {
      ln->escaped |= ln->parked[u];
      ln->parked[u] = 0;
   }
}

/* Every lane read that e carries is used (e.g. in a computation). */
static void lanes_escape(Lanes* ln, IRExpr* e)
{
   const ULong* m = lanes_of(ln, e);
   ln->escaped |= m[0] | m[1] | m[2] | m[3];
}

static void lanes_escape_args(Lanes* ln, IRExpr* e)
{
   IRExpr* args[MAX_ARGS];
   IROp op;
   UInt i, n = CATS_(vf_expr_args)(e, args, &op);
   for (i = 0; i < n; i++)
      lanes_escape(ln, args[i]);
   if (e->tag == Iex_ITE) {
      lanes_escape(ln, e->Iex.ITE.iftrue);
      lanes_escape(ln, e->Iex.ITE.iffalse);
   }
   if (e->tag == Iex_RdTmp)
      lanes_escape(ln, e);
}

/* A GET: the units' current lane reads, or new ones for a vector
   register read first here. A scalar GET of a unit uses what it holds. */
static void lanes_get(Lanes* ln, IRTemp t, IRExpr* e)
{
   Int off = e->Iex.Get.offset, size = size_of(e->Iex.Get.ty), u, l;
   if (!CATS_(vf_data_reg)(off))
      return;
   Bool whole = is_vector(e->Iex.Get.ty) && (off & 7) == 0;
   for (u = off / 8, l = 0; u <= (off + size - 1) / 8; u++, l++) {
      if (!whole) {
         ln->escaped |= ln->unit_now[u];
      } else if (ln->unit_seen[u]) {
         ln->lanes[t][l] = ln->unit_now[u];
      } else if (ln->n < MAX_LANE_READS) {
         UInt b = ln->n++;
         ln->unit[b] = u;
         ln->tmp[b] = t;
         ln->lane[b] = (UChar)l;
         ln->lanes[t][l] = ln->unit_now[u] = 1ULL << b;
      }
      ln->unit_seen[u] = 1;
   }
}

/* A PUT: a lane read may come back to its own unit, unless something
   else was PUT there since. Put in another unit it is parked there: the
   compiler's copy (movapd %xmm1,%xmm0) stays in the flat IR when the
   copy is overwritten later in the superblock, and a read parked in a
   unit that is overwritten before the next exit is never seen (the
   other register's shadow holds it only between the two PUTs). */
static void lanes_put(Lanes* ln, Int off, IRExpr* data, IRType ty)
{
   Int size = size_of(ty), u, l;
   if (!CATS_(vf_data_reg)(off))
      return;
   const ULong* m = lanes_of(ln, data);
   Bool whole = is_vector(ty) && (off & 7) == 0;
   if (!whole)
      lanes_escape(ln, data);
   for (u = off / 8, l = 0; u <= (off + size - 1) / 8; u++, l++) {
      ULong bits = whole ? m[l] : 0;
      Bool back = bits != 0 && (bits & (bits - 1)) == 0
                  && ln->unit[__builtin_ctzll(bits)] == u && !ln->unit_put[u];
      if (!back)
         ln->unit_put[u] = 1;
      ln->parked[u] = back ? 0 : bits;
      ln->unit_seen[u] = 1;
      ln->unit_now[u] = bits;
   }
}

/* t = e: which lanes of e's arguments t holds as they are. */
static void lanes_wrtmp(Lanes* ln, IRTypeEnv* env, IRTemp t, IRExpr* e)
{
   if (e->tag == Iex_Get) {
      lanes_get(ln, t, e);
      return;
   }
   if (e->tag == Iex_RdTmp) {
      const ULong* m = lanes_of(ln, e);
      for (Int l = 0; l < VF_MAX_LANES; l++)
         ln->lanes[t][l] = m[l];
      return;
   }
   if (!is_vector(typeOfIRTemp(env, t))) {
      lanes_escape_args(ln, e);
      return;
   }
   /* The moves that op_deps copies lane by lane: the upper lane of
      SetV128lo64's vector (its lane 0 is replaced), and of a lowest-lane
      operation's vector (lane 0 of every argument is computed on). */
   IRExpr* args[MAX_ARGS];
   IROp op;
   UInt i, n = CATS_(vf_expr_args)(e, args, &op);
   if (op == Iop_SetV128lo64) {
      lanes_escape(ln, args[1]);
      ln->lanes[t][1] = lanes_of(ln, args[0])[1];
      return;
   }
   if (!CATS_(vf_is_lowest_lane)(op)) {
      lanes_escape_args(ln, e);
      return;
   }
   /* The vector after a rounding mode, as op_deps takes it. */
   for (i = 0; i < n; i++)
      ln->escaped |= lanes_of(ln, args[i])[0];
   ln->lanes[t][1] = lanes_of(ln, args[n == 3 ? 1 : 0])[1];
}

void CATS_(vf_find_passthrough_lanes)(IRSB* sbIn, UChar* self)
{
   Lanes* ln = VG_(calloc)("cats.vf.lanes", 1, sizeof(Lanes));
   IRTypeEnv* env = sbIn->tyenv;
   Int i;
   UInt b;
   ln->lanes = VG_(calloc)("cats.vf.lanesm", env->types_used + 1,
                           sizeof(ln->lanes[0]));
   for (i = 0; i < sbIn->stmts_used; i++) {
      IRStmt* st = sbIn->stmts[i];
      switch (st->tag) {
      case Ist_WrTmp:
         lanes_wrtmp(ln, env, st->Ist.WrTmp.tmp, st->Ist.WrTmp.data);
         break;
      case Ist_Put:
         lanes_put(ln, st->Ist.Put.offset, st->Ist.Put.data,
                   typeOfIRExpr(env, st->Ist.Put.data));
         break;
      case Ist_Store:
         lanes_escape(ln, st->Ist.Store.data);
         break;
      case Ist_StoreG:
         lanes_escape(ln, st->Ist.StoreG.details->data);
         break;
      case Ist_LoadG:
         lanes_escape(ln, st->Ist.LoadG.details->alt);
         break;
      case Ist_CAS:
         lanes_escape(ln, st->Ist.CAS.details->expdLo);
         lanes_escape(ln, st->Ist.CAS.details->dataLo);
         break;
      case Ist_LLSC:
         lanes_escape(ln, st->Ist.LLSC.storedata);
         break;
      case Ist_PutI:
         lanes_escape(ln, st->Ist.PutI.details->data);
         break;
      case Ist_Dirty:
         ln->escaped = ~0ULL;   /* a helper of the guest's reads state */
         break;
      case Ist_Exit:
         lanes_exit(ln);
         break;
      default:
         break;
      }
   }
   lanes_exit(ln);
   for (b = 0; b < ln->n; b++)
      if (!(ln->escaped & (1ULL << b)))
         self[ln->tmp[b]] |= (UChar)(VF_PASS_LANE << ln->lane[b]);
   VG_(free)(ln->lanes);
   VG_(free)(ln);
}
