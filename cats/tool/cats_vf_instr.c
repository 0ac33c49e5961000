/* SPDX-License-Identifier: GPL-2.0-or-later */
/*--------------------------------------------------------------------*/
/*--- cats: value flow in the IR.                    cats_vf_instr.c ---*/
/*--------------------------------------------------------------------*/
/* Within a superblock, which loads and registers an IR temporary was
   computed from is known statically (the IR is in SSA form). So the
   analysis tracks, per temporary and 8-byte lane, a small set of
   *atoms* (I32 temporaries holding a provenance read at run time: the
   result of a load hook or a shadow-register GET) and whether any
   operation other than a copy was applied. Run-time work happens only
   where provenance leaves the superblock's temporaries:

   - a store passes each lane's provenance to the store hook;
   - a PUT to a data register writes each lane's provenance to the
     shadow register's four slots (put_lane);

   and there a lane that is a copy of one atom costs nothing, and one
   that is computed costs a call to CATS_(vf_union) only if more than
   four of its atoms hold a value at run time (a union made once is
   shared when the same set of atoms is needed again).

   Provenance follows data only. Addresses, conditions (the flags
   thunk, ITE guards) and the stack pointer are not sources: a thin
   slice, as CommAnalyzer defines it. Vector lanes keep their own
   provenance through lane-wise operations; the operations that move
   data across 64-bit lanes are listed, the rest mix everything. */

#include "cats_tool.h"
#include "cats_vf.h"
#include "pub_tool_machine.h"
#include "pub_tool_debuginfo.h"

#define MAX_ATOMS 6
#define CACHE     16

typedef struct {
   UChar  n;
   Bool   computed;
   IRTemp a[MAX_ATOMS];     /* sorted */
} Deps;

struct _VfSB {
   IRSB*  out;
   IRTypeEnv* tyenv;        /* of the input superblock */
   Int    shadow;           /* offset of the shadow guest state */
   Int    n_temps;
   Deps*  deps;             /* n_temps x VF_MAX_LANES */
   Addr   ip;
   VfSite* site;            /* of the current instruction, one per lane */
   UInt   lane;             /* the lane whose provenance is being made */
   UInt   ncache;
   struct { Deps d; IRTemp t; } cache[CACHE];
   UInt   nslots;           /* lanes of more than four atoms as slots */
   struct { Deps d; IRTemp s[4]; } slots[CACHE];
   /* What this superblock last PUT to, or read from, each
      data-register unit (of 8 bytes), so that reading it (again) costs
      no shadow GET: the deps put are known, and may be the atoms of a
      computation that the GET would see as one union. */
   Deps*  put;              /* VF_N_UNITS */
   UChar* put_valid;        /* VF_N_UNITS */
   /* Which temporary's lane a unit was last PUT from, and which a GET
      temporary's lane read back (temp * VF_MAX_LANES + lane + 1; 0:
      none): a store of the one stores the other (store_lanes). */
   UInt*  put_src;          /* VF_N_UNITS */
   UInt*  got_from;         /* n_temps x VF_MAX_LANES */
   /* Registers that only update themselves (cats_vf_scan.c): which
      GET temporaries read one, and per unit the shadow word read. */
   UChar* self_get;         /* n_temps: VF_SELF_UPDATE, VF_PASS_LANE */
   IRTemp* self_word;       /* VF_N_UNITS: its slot 0, read */
   IRTemp* pass;            /* VF_N_UNITS: a lane read that comes back
                               unchanged (its raw slot 0, unused) */
   IRTemp* own;             /* VF_N_UNITS: the atom its shadow read gave,
                               an accumulator's own value (lane_slots) */
   /* IR that VEX does not share after instrumentation (it runs no CSE
      then), made once per superblock: a 0 provenance, and
      computed_from's result per atom. */
   IRTemp zero;
   UInt   ncomputed, npacked;
   /* A loop's accumulators, logged (cats_vf_acc.c): per GET temporary
      the lanes that are; per unit whether its read is waiting for its
      PUT (ACC_READ), its read's union site and rank among the reads. */
   UChar*  acc_get;          /* n_temps */
   UChar*  acc_state;        /* VF_N_UNITS */
   VfSite** acc_site;        /* VF_N_UNITS */
   UInt*   acc_rank;         /* VF_N_UNITS */
   UInt    acc_rank_of[VF_ACC_UNITS];   /* per entry word */
   UInt    acc_pending, acc_nread;
   Int     acc_lo, acc_hi;   /* the units' bytes, for the flushes */
   VfAccLoop* acc_loop;      /* NULL: none */
   IRTemp  acc_cursor;
   Addr    start;            /* the superblock's first instruction */
   struct { IRTemp a, r; } computed[CACHE];
   struct { IRTemp hi, lo, r; } packed[CACHE];   /* pack(); hi 0: none */
};


static UInt lanes_of_type(IRType ty)
{
   Int sz = ty == Ity_I1 ? 1 : sizeofIRType(ty);
   return sz <= 8 ? 1 : (UInt)(sz / 8);
}

static inline void emit(VfSB* v, IRStmt* st)
{
   addStmtToIRSB(v->out, st);
}

static IRTemp new_tmp(VfSB* v, IRType ty)
{
   return newIRTemp(v->out->tyenv, ty);
}

static IRTemp assign(VfSB* v, IRType ty, IRExpr* e)
{
   IRTemp t = new_tmp(v, ty);
   emit(v, IRStmt_WrTmp(t, e));
   return t;
}

static IRExpr* p_expr(IRTemp t)
{
   return t == IRTemp_INVALID ? IRExpr_Const(IRConst_U32(0))
                              : IRExpr_RdTmp(t);
}

static const Deps NO_DEPS = { 0, False, { 0 } };

/* A temporary holding provenance 0 (none). */
static IRTemp zero_tmp(VfSB* v)
{
   if (v->zero == IRTemp_INVALID)
      v->zero = assign(v, Ity_I32, p_expr(IRTemp_INVALID));
   return v->zero;
}

static Bool is_zero(VfSB* v, IRExpr* e)
{
   if (e->tag == Iex_Const)
      return e->Iex.Const.con->tag == Ico_U32 && e->Iex.Const.con->Ico.U32 == 0;
   return e->tag == Iex_RdTmp && e->Iex.RdTmp.tmp == v->zero
          && v->zero != IRTemp_INVALID;
}

/* Two provenances as one I64, lo in the low half: a zero extension when
   hi is 0 (VEX builds 32HLto64 of a constant 0 with four instructions). */
static IRTemp pack(VfSB* v, IRExpr* hi, IRExpr* lo)
{
   Bool hi0 = is_zero(v, hi);
   if (lo->tag != Iex_RdTmp || (!hi0 && hi->tag != Iex_RdTmp))
      return assign(v, Ity_I64, IRExpr_Binop(Iop_32HLto64, hi, lo));
   IRTemp h = hi0 ? IRTemp_INVALID : hi->Iex.RdTmp.tmp,
          l = lo->Iex.RdTmp.tmp;
   UInt i;
   for (i = 0; i < v->npacked; i++)
      if (v->packed[i].hi == h && v->packed[i].lo == l)
         return v->packed[i].r;
   IRTemp r = assign(v, Ity_I64, hi0 ? IRExpr_Unop(Iop_32Uto64, lo)
                                     : IRExpr_Binop(Iop_32HLto64, hi, lo));
   if (v->npacked < CACHE) {
      v->packed[v->npacked].hi = h;
      v->packed[v->npacked].lo = l;
      v->packed[v->npacked++].r = r;
   }
   return r;
}

static IRTemp materialise(VfSB* v, const Deps* d);

/* Adds an atom, keeping the array sorted; a full set is first
   materialised into one atom. */
static void add_atom(VfSB* v, Deps* d, IRTemp t)
{
   UInt i, j;
   for (i = 0; i < d->n; i++)
      if (d->a[i] == t)
         return;
   if (d->n == MAX_ATOMS) {
      IRTemp m = materialise(v, d);
      d->n = 0;
      d->computed = False;
      if (m != IRTemp_INVALID)
         d->a[d->n++] = m;
      if (m == t)
         return;
   }
   for (i = 0; i < d->n && d->a[i] < t; i++)
      ;
   for (j = d->n; j > i; j--)
      d->a[j] = d->a[j - 1];
   d->a[i] = t;
   d->n++;
}

static void merge(VfSB* v, Deps* d, const Deps* s)
{
   UInt i;
   d->computed |= s->computed;
   for (i = 0; i < s->n; i++)
      add_atom(v, d, s->a[i]);
}

static Bool same_deps(const Deps* x, const Deps* y)
{
   UInt i;
   if (x->n != y->n || x->computed != y->computed)
      return False;
   for (i = 0; i < x->n; i++)
      if (x->a[i] != y->a[i])
         return False;
   return True;
}

/* The temporary d was materialised into before in this superblock, or
   IRTemp_INVALID. */
static IRTemp cached(VfSB* v, const Deps* d)
{
   UInt i;
   for (i = 0; i < v->ncache; i++)
      if (same_deps(&v->cache[i].d, d))
         return v->cache[i].t;
   return IRTemp_INVALID;
}

/* An instruction's union site for lane l. Each lane of a vector
   instruction has its own, as the scalar instructions that the compiler
   paired have: a set that both lanes combine (1/r^3 times dx and dy) is
   not a value read again, and a lane's chain of links is its own. */
static VfSite* site_at(VfSB* v, UInt l)
{
   UInt i;
   if (v->site == NULL) {
      UInt loc = CATS_(loc_of_addr)(v->ip);
      v->site = VG_(calloc)("cats.vf.site", VF_MAX_LANES, sizeof(VfSite));
      for (i = 0; i < VF_MAX_LANES; i++)
         v->site[i].loc = loc;
   }
   tl_assert(l < VF_MAX_LANES);
   return &v->site[l];
}

static VfSite* site_of(VfSB* v)
{
   return site_at(v, v->lane);
}

/* Calls the union on four provenances (missing ones are 0), under
   'guard' if not NULL. */
static IRTemp call_union(VfSB* v, IRExpr* p[4], IRExpr* guard)
{
   IRTemp ab = pack(v, p[1], p[0]);
   IRTemp cd = pack(v, p[3], p[2]);
   IRTemp r = new_tmp(v, Ity_I32);
   IRDirty* di = unsafeIRDirty_1_N(
      r, 3, "cats_vf_union", VG_(fnptr_to_fnentry)(CATS_(vf_union)),
      mkIRExprVec_3(mkIRExpr_HWord((HWord)site_of(v)), IRExpr_RdTmp(ab),
                    IRExpr_RdTmp(cd)));
   if (guard != NULL)
      di->guard = guard;
   emit(v, IRStmt_Dirty(di));
   return r;
}

/* A value computed from the one in 'a', inline: a copied vertex
   (1 <= P < 2^30) becomes "computed from it"; anything else stays. */
static IRTemp computed_from(VfSB* v, IRTemp a)
{
   UInt i;
   for (i = 0; i < v->ncomputed; i++)
      if (v->computed[i].a == a)
         return v->computed[i].r;
   IRTemp am1 = assign(v, Ity_I32, IRExpr_Binop(Iop_Sub32, IRExpr_RdTmp(a),
                                                IRExpr_Const(IRConst_U32(1))));
   IRTemp copy = assign(v, Ity_I1, IRExpr_Binop(Iop_CmpLT32U,
                                                IRExpr_RdTmp(am1),
                                                IRExpr_Const(IRConst_U32(VF_ID_MASK))));
   IRTemp one = assign(v, Ity_I32, IRExpr_Binop(Iop_Or32, IRExpr_RdTmp(a),
                                                IRExpr_Const(IRConst_U32(VF_ONE_BIT))));
   IRTemp r = assign(v, Ity_I32, IRExpr_ITE(IRExpr_RdTmp(copy),
                                            IRExpr_RdTmp(one), IRExpr_RdTmp(a)));
   if (v->ncomputed < CACHE) {
      v->computed[v->ncomputed].a = a;
      v->computed[v->ncomputed++].r = r;
   }
   return r;
}

/* The provenance of a lane as one I32 temporary (IRTemp_INVALID for
   none). */
static IRTemp materialise(VfSB* v, const Deps* d)
{
   UInt i;
   if (d->n == 0)
      return IRTemp_INVALID;
   if (!d->computed && d->n == 1)
      return d->a[0];
   IRTemp r = cached(v, d);
   if (r != IRTemp_INVALID)
      return r;
   if (d->n == 1) {
      r = computed_from(v, d->a[0]);
   } else {
      IRTemp acc = IRTemp_INVALID;
      i = 0;
      while (i < d->n) {
         IRExpr* p[4];
         UInt k = 0;
         if (acc != IRTemp_INVALID)
            p[k++] = IRExpr_RdTmp(acc);
         while (k < 4 && i < d->n)
            p[k++] = IRExpr_RdTmp(d->a[i++]);
         while (k < 4)
            p[k++] = p_expr(IRTemp_INVALID);
         acc = call_union(v, p, NULL);
      }
      r = acc;
   }
   UInt slot = v->ncache < CACHE ? v->ncache++ : (UInt)(r % CACHE);
   v->cache[slot].d = *d;
   v->cache[slot].t = r;
   return r;
}

/*------------------------------------------------------------*/
/*--- Expressions                                          ---*/
/*------------------------------------------------------------*/

static Deps* deps_of_tmp(VfSB* v, IRTemp t)
{
   return &v->deps[t * VF_MAX_LANES];
}

/* Lane 'l' of an atom (an RdTmp or a constant). */
static Deps arg_lane(VfSB* v, IRExpr* e, UInt l)
{
   if (e->tag != Iex_RdTmp || e->Iex.RdTmp.tmp >= (IRTemp)v->n_temps)
      return NO_DEPS;
   IRTemp t = e->Iex.RdTmp.tmp;
   if (l >= lanes_of_type(typeOfIRTemp(v->tyenv, t)))
      return NO_DEPS;
   return deps_of_tmp(v, t)[l];
}

static UInt arg_lanes(VfSB* v, IRExpr* e)
{
   return lanes_of_type(typeOfIRExpr(v->tyenv, e));
}

/* Everything in every lane of every argument, computed. */
static Deps mix_all(VfSB* v, IRExpr** args, UInt nargs)
{
   Deps d = NO_DEPS;
   UInt i, l;
   for (i = 0; i < nargs; i++)
      for (l = 0; l < arg_lanes(v, args[i]); l++) {
         Deps s = arg_lane(v, args[i], l);
         merge(v, &d, &s);
      }
   d.computed = True;
   return d;
}

/* Lane l of a lane-wise operation: lane l of vector arguments, all of
   a scalar one (broadcast). */
static Deps mix_lane(VfSB* v, IRExpr** args, UInt nargs, UInt l)
{
   Deps d = NO_DEPS;
   UInt i, k;
   for (i = 0; i < nargs; i++) {
      UInt n = arg_lanes(v, args[i]);
      if (n > 1) {
         Deps s = arg_lane(v, args[i], l < n ? l : 0);
         merge(v, &d, &s);
      } else {
         for (k = 0; k < n; k++) {
            Deps s = arg_lane(v, args[i], k);
            merge(v, &d, &s);
         }
      }
   }
   d.computed = True;
   return d;
}

Bool CATS_(vf_is_copy_unop)(IROp op)
{
   switch (op) {
   case Iop_8Uto16: case Iop_8Uto32: case Iop_8Uto64: case Iop_16Uto32:
   case Iop_16Uto64: case Iop_32Uto64: case Iop_8Sto16: case Iop_8Sto32:
   case Iop_8Sto64: case Iop_16Sto32: case Iop_16Sto64: case Iop_32Sto64:
   case Iop_64to8: case Iop_64to16: case Iop_64to32: case Iop_32to8:
   case Iop_32to16: case Iop_16to8: case Iop_64HIto32: case Iop_32HIto16:
   case Iop_16HIto8:
   case Iop_ReinterpF64asI64: case Iop_ReinterpI64asF64:
   case Iop_ReinterpF32asI32: case Iop_ReinterpI32asF32:
   case Iop_ReinterpV128asI128: case Iop_ReinterpI128asV128:
   case Iop_ReinterpF128asI128: case Iop_ReinterpI128asF128:
   case Iop_ReinterpD64asI64: case Iop_ReinterpI64asD64:
      return True;
   default:
      return False;
   }
}

/* Operations that move data across 64-bit lanes in ways the analysis
   does not follow: every result lane gets every source. */
Bool CATS_(vf_is_cross_lane)(IROp op)
{
   switch (op) {
   case Iop_Perm32x4: case Iop_Perm32x8: case Iop_Perm8x16:
   case Iop_Perm8x16x2: case Iop_PermOrZero8x16:
   case Iop_ShlV128: case Iop_ShrV128: case Iop_SliceV128:
   case Iop_InterleaveHI8x16: case Iop_InterleaveHI16x8:
   case Iop_InterleaveHI32x4: case Iop_InterleaveLO8x16:
   case Iop_InterleaveLO16x8: case Iop_InterleaveLO32x4:
   case Iop_InterleaveEvenLanes8x16: case Iop_InterleaveEvenLanes16x8:
   case Iop_InterleaveEvenLanes32x4: case Iop_InterleaveOddLanes8x16:
   case Iop_InterleaveOddLanes16x8: case Iop_InterleaveOddLanes32x4:
   case Iop_CatOddLanes8x16: case Iop_CatOddLanes16x8:
   case Iop_CatOddLanes32x4: case Iop_CatEvenLanes8x16:
   case Iop_CatEvenLanes16x8: case Iop_CatEvenLanes32x4:
   case Iop_NarrowBin16to8x16: case Iop_NarrowBin32to16x8:
   case Iop_NarrowBin64to32x4: case Iop_QNarrowBin16Sto8Sx16:
   case Iop_QNarrowBin16Sto8Ux16: case Iop_QNarrowBin32Sto16Sx8:
   case Iop_QNarrowBin32Sto16Ux8: case Iop_QNarrowBin16Uto8Ux16:
   case Iop_QNarrowBin32Uto16Ux8: case Iop_QNarrowBin64Sto32Sx4:
   case Iop_QNarrowBin64Uto32Ux4:
   case Iop_Widen8Uto16x8: case Iop_Widen16Uto32x4: case Iop_Widen32Uto64x2:
   case Iop_Widen8Sto16x8: case Iop_Widen16Sto32x4: case Iop_Widen32Sto64x2:
   case Iop_Dup8x16: case Iop_Dup16x8: case Iop_Dup32x4:
   case Iop_GetElem8x16: case Iop_GetElem16x8: case Iop_GetElem32x4:
   case Iop_GetElem64x2: case Iop_SetElem8x16: case Iop_SetElem16x8:
   case Iop_SetElem32x4: case Iop_SetElem64x2:
      return True;
   default:
      return False;
   }
}

/* Operations on the lowest lane that pass the others of their first
   vector argument through (SSE scalar arithmetic). */
Bool CATS_(vf_is_lowest_lane)(IROp op)
{
   switch (op) {
   case Iop_Add64F0x2: case Iop_Sub64F0x2: case Iop_Mul64F0x2:
   case Iop_Div64F0x2: case Iop_Max64F0x2: case Iop_Min64F0x2:
   case Iop_Sqrt64F0x2: case Iop_CmpEQ64F0x2: case Iop_CmpLT64F0x2:
   case Iop_CmpLE64F0x2: case Iop_CmpUN64F0x2:
   case Iop_Add32F0x4: case Iop_Sub32F0x4: case Iop_Mul32F0x4:
   case Iop_Div32F0x4: case Iop_Max32F0x4: case Iop_Min32F0x4:
   case Iop_Sqrt32F0x4: case Iop_RSqrtEst32F0x4: case Iop_RecipEst32F0x4:
   case Iop_CmpEQ32F0x4: case Iop_CmpLT32F0x4: case Iop_CmpLE32F0x4:
   case Iop_CmpUN32F0x4:
      return True;
   default:
      return False;
   }
}

/* x ^ x, x - x and the like are constants (the zeroing idioms). */
static Bool same_arg_constant(IROp op, IRExpr** args, UInt nargs)
{
   if (nargs != 2 || args[0]->tag != Iex_RdTmp || args[1]->tag != Iex_RdTmp
       || args[0]->Iex.RdTmp.tmp != args[1]->Iex.RdTmp.tmp)
      return False;
   switch (op) {
   case Iop_Xor8: case Iop_Xor16: case Iop_Xor32: case Iop_Xor64:
   case Iop_XorV128: case Iop_XorV256: case Iop_Sub8: case Iop_Sub16:
   case Iop_Sub32: case Iop_Sub64:
      return True;
   default:
      return False;
   }
}

/* Deps of the lanes of an operation's result. */
static void op_deps(VfSB* v, IROp op, IRExpr** args, UInt nargs,
                    IRType res_ty, Deps* out)
{
   UInt rl = lanes_of_type(res_ty), l;
   for (l = 0; l < VF_MAX_LANES; l++)
      out[l] = NO_DEPS;
   if (same_arg_constant(op, args, nargs))
      return;
   if (nargs == 1 && CATS_(vf_is_copy_unop)(op)) {
      out[0] = arg_lane(v, args[0], 0);
      return;
   }
   switch (op) {
   case Iop_V128to64: case Iop_V128to32: case Iop_128to64:
   case Iop_V256to64_0: case Iop_64UtoV128: case Iop_32UtoV128:
   case Iop_ZeroHI64ofV128: case Iop_ZeroHI96ofV128:
   case Iop_ZeroHI112ofV128: case Iop_ZeroHI120ofV128:
      out[0] = arg_lane(v, args[0], 0);
      return;
   case Iop_V128HIto64: case Iop_128HIto64: case Iop_V256to64_1:
      out[0] = arg_lane(v, args[0], 1);
      return;
   case Iop_V256to64_2:
      out[0] = arg_lane(v, args[0], 2);
      return;
   case Iop_V256to64_3:
      out[0] = arg_lane(v, args[0], 3);
      return;
   case Iop_V256toV128_0:
      out[0] = arg_lane(v, args[0], 0);
      out[1] = arg_lane(v, args[0], 1);
      return;
   case Iop_V256toV128_1:
      out[0] = arg_lane(v, args[0], 2);
      out[1] = arg_lane(v, args[0], 3);
      return;
   case Iop_64HLtoV128: case Iop_64HLto128:
      out[0] = arg_lane(v, args[1], 0);
      out[1] = arg_lane(v, args[0], 0);
      return;
   case Iop_V128HLtoV256:
      out[0] = arg_lane(v, args[1], 0);
      out[1] = arg_lane(v, args[1], 1);
      out[2] = arg_lane(v, args[0], 0);
      out[3] = arg_lane(v, args[0], 1);
      return;
   case Iop_64x4toV256:
      for (l = 0; l < 4; l++)
         out[l] = arg_lane(v, args[3 - l], 0);
      return;
   case Iop_SetV128lo64:
      out[0] = arg_lane(v, args[1], 0);
      out[1] = arg_lane(v, args[0], 1);
      return;
   case Iop_InterleaveLO64x2:
      out[0] = arg_lane(v, args[1], 0);
      out[1] = arg_lane(v, args[0], 0);
      return;
   case Iop_InterleaveHI64x2:
      out[0] = arg_lane(v, args[1], 1);
      out[1] = arg_lane(v, args[0], 1);
      return;
   case Iop_SetV128lo32: case Iop_32HLto64: case Iop_16HLto32:
   case Iop_8HLto16: {
      /* Two pieces of one word: a copy if they are one value. */
      Deps a = arg_lane(v, args[0], 0), b = arg_lane(v, args[1], 0);
      merge(v, &a, &b);
      out[0] = a;
      out[1] = op == Iop_SetV128lo32 ? arg_lane(v, args[0], 1) : NO_DEPS;
      return;
   }
   default:
      break;
   }
   if (CATS_(vf_is_lowest_lane)(op)) {
      IRExpr* vec = args[nargs == 3 ? 1 : 0];   /* after a rounding mode */
      out[0] = mix_lane(v, args, nargs, 0);
      for (l = 1; l < rl; l++)
         out[l] = arg_lane(v, vec, l);
      return;
   }
   if (rl > 1 && !CATS_(vf_is_cross_lane)(op)) {
      for (l = 0; l < rl; l++)
         out[l] = mix_lane(v, args, nargs, l);
      return;
   }
   Deps all = mix_all(v, args, nargs);
   for (l = 0; l < rl; l++)
      out[l] = all;
}

static IRExpr* nz(VfSB* v, IRTemp t)
{
   return IRExpr_RdTmp(assign(v, Ity_I1, IRExpr_Binop(
      Iop_CmpNE32, IRExpr_RdTmp(t), IRExpr_Const(IRConst_U32(0)))));
}

static IRTemp ite32(VfSB* v, IRExpr* c, IRTemp a, IRTemp b)
{
   return assign(v, Ity_I32, IRExpr_ITE(c, IRExpr_RdTmp(a), IRExpr_RdTmp(b)));
}

/* A shadow register unit is four provenance slots: (s0, s1) in the
   first shadow area (at offset + total_sizeB, memcheck's layout) and
   (s2, s3) in the second (+ 2 * total_sizeB). s1 = s2 = s3 = 0: the
   unit holds s0. Otherwise it holds a value computed from the non-zero
   slots, whose union is made only if it is read: a computed register
   that is overwritten before it is read (the product in s += a[k] *
   b[k], the partial sums of a stencil) costs no call. Stores take
   lanes in the same form.

   Reads the lanes 'mask' of the register at 'off', one atom each into
   out[]: each lane's s0, after one call that makes the union of every
   lane that needs one and writes it back (CATS_(vf_union_reg)), so that
   a value read many times (a norm read by every element) is one set,
   made once. One call per register, not per lane: a guarded call costs
   the code around it even when it does not run. */
/* The shadow unit (8-byte aligned) of lane l of a register read at off. */
static inline Int lane_unit(Int off, UInt l)
{
   return (off + 8 * (Int)l) & ~7;
}

/* A call that reads and writes the shadow units of guest bytes
   [lo, hi), in both areas (a register read's union, a loop log's
   replay). */
static IRDirty* shadow_call(VfSB* v, const HChar* name, void* fn,
                            IRExpr** args, Int lo, Int hi)
{
   IRDirty* di = unsafeIRDirty_0_N(0, name, VG_(fnptr_to_fnentry)(fn), args);
   di->nFxState = 2;
   di->fxState[0].fx = Ifx_Modify;
   di->fxState[0].offset = lo + v->shadow;
   di->fxState[0].size = hi - lo;
   di->fxState[0].nRepeats = 0;
   di->fxState[0].repeatLen = 0;
   di->fxState[1] = di->fxState[0];
   di->fxState[1].offset = lo + 2 * v->shadow;
   return di;
}

static void shadow_get_lanes(VfSB* v, Int off, UInt mask, Deps* out)
{
   UInt l, first = VF_MAX_LANES, last = 0;
   IRTemp lazy = IRTemp_INVALID;
   for (l = 0; l < VF_MAX_LANES; l++) {
      if (!(mask & (1u << l)))
         continue;
      Int at = lane_unit(off, l);
      IRTemp u = assign(v, Ity_I64, IRExpr_Get(at + v->shadow, Ity_I64));
      IRTemp w = assign(v, Ity_I64, IRExpr_Get(at + 2 * v->shadow,
                                               Ity_I64));
      IRTemp hi = assign(v, Ity_I64, IRExpr_Binop(
         Iop_Shr64, IRExpr_RdTmp(u), IRExpr_Const(IRConst_U8(32))));
      IRTemp rest = assign(v, Ity_I64, IRExpr_Binop(
         Iop_Or64, IRExpr_RdTmp(w), IRExpr_RdTmp(hi)));
      lazy = lazy == IRTemp_INVALID ? rest
             : assign(v, Ity_I64, IRExpr_Binop(Iop_Or64, IRExpr_RdTmp(lazy),
                                               IRExpr_RdTmp(rest)));
      if (first == VF_MAX_LANES)
         first = l;
      last = l;
   }
   Int base = lane_unit(off, first);
   Int span = 8 * (Int)(last - first + 1);
   IRTemp any = assign(v, Ity_I1, IRExpr_Binop(
      Iop_CmpNE64, IRExpr_RdTmp(lazy), IRExpr_Const(IRConst_U64(0))));
   UInt lanes_read = mask >> first;
   /* Kept for as long as the translation may run, as the sites are. */
   VfRegRead* r = VG_(malloc)("cats.vf.regread", sizeof(VfRegRead));
   r->site = site_at(v, first);
   r->at = (UWord)(base + v->shadow);
   r->area = (UWord)v->shadow;
   r->mask = lanes_read;
   void* fn = lanes_read == 1 ? (void*)CATS_(vf_union_reg1)
              : lanes_read == 3 ? (void*)CATS_(vf_union_reg2)
              : (void*)CATS_(vf_union_reg);
   IRDirty* di = shadow_call(v, "cats_vf_union_reg", fn,
                             mkIRExprVec_2(IRExpr_GSPTR(),
                                           mkIRExpr_HWord((HWord)r)),
                             base, base + span);
   di->guard = IRExpr_RdTmp(any);
   emit(v, IRStmt_Dirty(di));
   for (l = first; l <= last; l++) {
      if (!(mask & (1u << l)))
         continue;
      out[l] = NO_DEPS;
      out[l].n = 1;
      out[l].a[0] = assign(v, Ity_I32, IRExpr_Get(lane_unit(off, l)
                                                  + v->shadow, Ity_I32));
      v->own[lane_unit(off, l) / 8] = out[l].a[0];
   }
}

/* A lane's provenance as four slots, without a call where four suffice.
   The first three atoms go to s0..s2 as they are (s0 marked as
   computed from its atom, which matters only if it is the one
   non-zero slot); of the rest, at most one may hold a value at run
   time (the others are constants, like the 0.25 of a stencil held in a
   register), and it goes to s3. More than that takes a union.
   Of four or fewer, the atom 'own' (a register's own value when the
   lane is written back to it: an accumulator, mostly a set) goes to s2
   unless it is the first, the others keep their order: the layout whose
   union needs no search (cats_vf_sets.c, union_unit). */
static void lane_slots(VfSB* v, const Deps* d, IRTemp own, IRTemp* s)
{
   UInt i;
   IRTemp zero = zero_tmp(v);
   for (i = 0; i < 4; i++)
      s[i] = zero;
   IRTemp c = d->n >= 2 || d->computed ? cached(v, d) : IRTemp_INVALID;
   if (d->n == 0)
      return;
   if ((!d->computed && d->n == 1) || c != IRTemp_INVALID) {
      s[0] = c != IRTemp_INVALID ? c : d->a[0];
      return;
   }
   s[0] = computed_from(v, d->a[0]);
   for (i = 1; i < d->n && i < 4; i++)
      s[i] = d->a[i];
   if (d->n <= 4) {
      for (i = 1; i < d->n && d->a[i] != own; i++)
         ;
      if (i < d->n) {
         IRTemp others[2] = { zero, zero };
         UInt k = 0, j;
         for (j = 1; j < d->n; j++)
            if (j != i)
               others[k++] = d->a[j];
         s[1] = others[0];
         s[2] = own;
         s[3] = others[1];
      }
      return;
   }
   for (i = 0; i < v->nslots; i++)
      if (same_deps(&v->slots[i].d, d)) {
         VG_(memcpy)(s, v->slots[i].s, sizeof v->slots[i].s);
         return;
      }
   /* The tail: the first atom that holds a value, and how many do. */
   IRTemp count = zero, first = zero;
   for (i = d->n; i-- > 3;) {
      IRExpr* set = nz(v, d->a[i]);
      first = ite32(v, set, d->a[i], first);
      count = assign(v, Ity_I32, IRExpr_Binop(
         Iop_Add32, IRExpr_RdTmp(count),
         IRExpr_RdTmp(assign(v, Ity_I32, IRExpr_Unop(Iop_1Uto32, set)))));
   }
   s[3] = first;
   IRTemp many = assign(v, Ity_I1, IRExpr_Binop(
      Iop_CmpLT32U, IRExpr_Const(IRConst_U32(1)), IRExpr_RdTmp(count)));
   /* All of them, four at a time: the first union's result is the
      second's first input. */
   IRExpr* p[4];
   for (i = 0; i < 4; i++)
      p[i] = IRExpr_RdTmp(d->a[i]);
   IRTemp u = call_union(v, p, IRExpr_RdTmp(many));
   p[0] = IRExpr_RdTmp(u);
   for (i = 1; i < 4; i++)
      p[i] = 4 + i - 1 < d->n ? IRExpr_RdTmp(d->a[4 + i - 1])
                              : p_expr(IRTemp_INVALID);
   u = call_union(v, p, IRExpr_RdTmp(many));
   s[0] = ite32(v, IRExpr_RdTmp(many), u, s[0]);
   for (i = 1; i < 4; i++)
      s[i] = ite32(v, IRExpr_RdTmp(many), zero, s[i]);
   UInt k = v->nslots < CACHE ? v->nslots++ : (UInt)(s[0] % CACHE);
   v->slots[k].d = *d;
   VG_(memcpy)(v->slots[k].s, s, sizeof v->slots[k].s);
}

/* A register that only updates itself reads its slot 0 only: the atom
   its value stands for in the superblock. */
static IRTemp self_read(VfSB* v, Int unit)
{
   IRTemp s0 = assign(v, Ity_I32, IRExpr_Get((unit & ~7) + v->shadow,
                                             Ity_I32));
   v->self_word[unit / 8] = s0;
   return s0;
}

/*------------------------------------------------------------*/
/*--- A loop's accumulators                                ---*/
/*------------------------------------------------------------*/
/* cats_vf_acc.c found the lanes that this superblock, a loop, reads
   only to add to them and write back. Their read makes no union: its
   atom is the raw slot 0, which only marks the lane's own value in the
   PUT's deps; the PUT appends the slots it would write to the log, and
   the unions are made from it when the loop is left. */
enum { ACC_NONE, ACC_READ };

static Deps acc_read(VfSB* v, Int unit, UInt l)
{
   UInt u = (UInt)unit / 8;
   Deps d = NO_DEPS;
   d.n = 1;
   d.a[0] = assign(v, Ity_I32, IRExpr_Get(unit + v->shadow, Ity_I32));
   v->own[u] = d.a[0];
   v->acc_state[u] = ACC_READ;
   v->acc_site[u] = site_at(v, l);
   v->acc_rank[u] = v->acc_nread++;
   return d;
}

/* Makes the logged unions, under 'guard' if not NULL. */
static void acc_flush(VfSB* v, IRExpr* guard)
{
   IRDirty* di = shadow_call(v, "cats_vf_acc_flush",
                          (void*)CATS_(vf_acc_flush),
                             mkIRExprVec_2(IRExpr_GSPTR(),
                                           mkIRExpr_HWord((HWord)v->acc_loop)),
                             v->acc_lo, v->acc_hi);
   if (guard != NULL)
      di->guard = guard;
   emit(v, IRStmt_Dirty(di));
}

/* After the last accumulator's PUT: the entry is complete. The next
   one starts after it; the log is made into unions now if it would not
   hold another. */
static void acc_advance(VfSB* v)
{
   VfAccLoop* loop = v->acc_loop;
   UInt j, k, nu = loop->nunits;
   for (j = 0; j < nu; j++) {   /* the entry words in the reads' order */
      UInt best = 0;
      for (k = 1; k < nu; k++)
         if (v->acc_rank_of[k] < v->acc_rank_of[best])
            best = k;
      loop->order[j] = best;
      v->acc_rank_of[best] = ~0u;
   }
   IRTemp next = assign(v, Ity_I64, IRExpr_Binop(
      Iop_Add64, IRExpr_RdTmp(v->acc_cursor), mkIRExpr_HWord(8 * nu)));
   emit(v, IRStmt_Store(Iend_LE, mkIRExpr_HWord((HWord)&CATS_(vf_acc_cursor)),
                        IRExpr_RdTmp(next)));
   emit(v, IRStmt_Store(Iend_LE, mkIRExpr_HWord((HWord)&CATS_(vf_acc_owner)),
                        mkIRExpr_HWord((HWord)loop)));
   HWord last = (HWord)&CATS_(vf_acc_log)[VF_ACC_LOG_WORDS - nu];
   IRTemp full = assign(v, Ity_I1, IRExpr_Binop(
      Iop_CmpLT64U, mkIRExpr_HWord(last), IRExpr_RdTmp(next)));
   acc_flush(v, IRExpr_RdTmp(full));
}

static void acc_resolved(VfSB* v)
{
   tl_assert(v->acc_pending > 0);
   if (--v->acc_pending == 0 && v->acc_loop->nunits > 0)
      acc_advance(v);
}

/* The PUT of an accumulator lane, logged: its deps are its own value
   and one or two others, computed (lane_slots puts them in slots 0 and
   1, its own value in slot 2). False, with nothing emitted, if not. */
static Bool acc_log(VfSB* v, Int unit, const Deps* d)
{
   UInt u = (UInt)unit / 8, i;
   IRTemp own = v->own[u], s[4];
   if (!d->computed || d->n < 2 || d->n > 3 || d->a[d->n - 1] != own)
      return False;
   for (i = 0; i + 1 < d->n; i++)
      tl_assert(d->a[i] != own);
   lane_slots(v, d, own, s);
   tl_assert(s[2] == own && s[3] == zero_tmp(v));
   IRTemp s01 = pack(v, IRExpr_RdTmp(s[1]), IRExpr_RdTmp(s[0]));
   if (v->acc_cursor == IRTemp_INVALID)
      v->acc_cursor = assign(v, Ity_I64, IRExpr_Load(
         Iend_LE, Ity_I64, mkIRExpr_HWord((HWord)&CATS_(vf_acc_cursor))));
   VfAccLoop* loop = v->acc_loop;
   UInt k = loop->nunits++;
   loop->at[k] = (UWord)(unit + v->shadow);
   loop->site[k] = v->acc_site[u];
   v->acc_rank_of[k] = v->acc_rank[u];
   IRTemp at = assign(v, Ity_I64, IRExpr_Binop(
      Iop_Add64, IRExpr_RdTmp(v->acc_cursor), mkIRExpr_HWord(8 * k)));
   emit(v, IRStmt_Store(Iend_LE, IRExpr_RdTmp(at), IRExpr_RdTmp(s01)));
   v->put[u] = *d;
   v->put_valid[u] = 1;
   v->acc_state[u] = ACC_NONE;
   acc_resolved(v);
   return True;
}

/* An accumulator lane whose PUT is not of that shape: the union its
   read would have made, made now (nothing has used the raw slot), and
   the deps with the union's result as the lane's own value. */
static Deps acc_unlogged(VfSB* v, Int unit, const Deps* d)
{
   UInt u = (UInt)unit / 8, i;
   VfRegRead* r = VG_(malloc)("cats.vf.regread", sizeof(VfRegRead));
   r->site = v->acc_site[u];
   r->at = (UWord)(unit + v->shadow);
   r->area = (UWord)v->shadow;
   r->mask = 1;
   emit(v, IRStmt_Dirty(shadow_call(
      v, "cats_vf_union_reg", (void*)CATS_(vf_union_reg1),
      mkIRExprVec_2(IRExpr_GSPTR(), mkIRExpr_HWord((HWord)r)),
      unit, unit + 8)));
   IRTemp own = v->own[u];
   IRTemp fresh = assign(v, Ity_I32, IRExpr_Get(unit + v->shadow, Ity_I32));
   Deps out = NO_DEPS;
   out.computed = d->computed;
   for (i = 0; i < d->n; i++)
      add_atom(v, &out, d->a[i] == own ? fresh : d->a[i]);
   v->own[u] = fresh;
   v->acc_state[u] = ACC_NONE;
   acc_resolved(v);
   return out;
}

static void put_lane(VfSB* v, Int unit, const Deps* d)
{
   UInt u = (UInt)unit / 8;
   IRTemp s[4];
   Deps unlogged;
   v->put_src[u] = 0;
   if (v->acc_state[u] == ACC_READ) {
      if (acc_log(v, unit, d))
         return;
      unlogged = acc_unlogged(v, unit, d);
      d = &unlogged;
   }
   if (d->n == 1 && !d->computed && d->a[0] == v->pass[u]
       && v->pass[u] != IRTemp_INVALID) {
      v->put[u] = *d;   /* the lane it read, back unchanged */
      v->put_valid[u] = 1;
      return;
   }
   v->pass[u] = IRTemp_INVALID;
   IRTemp w = v->self_word[u];
   if (w != IRTemp_INVALID && d->n > 0) {
      /* Its own value, or computed from it: slots 1-3 are what they
         were (a lazy value stays the same lazy value), slot 0 becomes
         computed from itself. Nothing else reaches it
         (cats_vf_scan.c). */
      tl_assert(d->n == 1 && v->put_valid[u]);
      v->put[u] = *d;
      if (!d->computed)
         return;
      emit(v, IRStmt_Put((unit & ~7) + v->shadow,
                         IRExpr_RdTmp(computed_from(v, d->a[0]))));
      return;
   }
   v->put[u] = *d;
   v->put_valid[u] = 1;
   lane_slots(v, d, v->own[u], s);
   IRTemp s01 = pack(v, IRExpr_RdTmp(s[1]), IRExpr_RdTmp(s[0]));
   IRTemp s23 = pack(v, IRExpr_RdTmp(s[3]), IRExpr_RdTmp(s[2]));
   emit(v, IRStmt_Put((unit & ~7) + v->shadow, IRExpr_RdTmp(s01)));
   emit(v, IRStmt_Put((unit & ~7) + 2 * v->shadow, IRExpr_RdTmp(s23)));
}

/* Splits a hook's result (lanes 0 and 1 in r, 2 and 3 in
   CATS_(vf_lane_hi)) into one atom per lane. */
static void lanes_from(VfSB* v, IRTemp r, UInt lanes, Deps* out)
{
   UInt l;
   for (l = 0; l < VF_MAX_LANES; l++)
      out[l] = NO_DEPS;
   out[0].n = 1;
   out[0].a[0] = assign(v, Ity_I32, IRExpr_Unop(Iop_64to32, IRExpr_RdTmp(r)));
   if (lanes > 1) {
      out[1].n = 1;
      out[1].a[0] = assign(v, Ity_I32, IRExpr_Unop(Iop_64HIto32,
                                                   IRExpr_RdTmp(r)));
   }
   for (l = 2; l < lanes && l < VF_MAX_LANES; l++) {
      out[l].n = 1;
      out[l].a[0] = assign(v, Ity_I32, IRExpr_Load(
         Iend_LE, Ity_I32, mkIRExpr_HWord((HWord)&CATS_(vf_lane_hi)[l - 2])));
   }
}

/* The load hook: the trace's access plus the provenance of each lane. */
static void load_lanes(VfSB* v, Site* s, IRExpr* addr, IRExpr* guard,
                       UInt lanes, Deps* out)
{
   IRTemp r = new_tmp(v, Ity_I64);
   void* hook = CATS_(vf_load_hook)(s->size);
   IRDirty* di = unsafeIRDirty_1_N(
      r, 2, "cats_vf_load", VG_(fnptr_to_fnentry)(hook),
      mkIRExprVec_2(mkIRExpr_HWord((HWord)s), addr));
   if (guard != NULL)
      di->guard = guard;
   emit(v, IRStmt_Dirty(di));
   lanes_from(v, r, lanes, out);
}

/* The store hook's call: up to two lanes as shadow pairs, so that a
   computed value needs no union; four lanes (256-bit) as provenances. */
static IRDirty* store_call(VfSB* v, Site* s, IRExpr* addr, IRExpr* data,
                           UInt n, IRTemp r)
{
   IRTemp p[VF_MAX_LANES];
   UInt l;
   if (n <= 2) {
      IRTemp x[4];
      UInt hook_lanes = s->size <= 8 ? 1 : 2;   /* vf_store_atoms8: one */
      for (l = 0; l < hook_lanes; l++) {
         Deps d = l < n ? arg_lane(v, data, l) : NO_DEPS;
         IRTemp sl[4];
         v->lane = l;
         lane_slots(v, &d, IRTemp_INVALID, sl);
         x[2 * l] = pack(v, IRExpr_RdTmp(sl[1]), IRExpr_RdTmp(sl[0]));
         x[2 * l + 1] = pack(v, IRExpr_RdTmp(sl[3]), IRExpr_RdTmp(sl[2]));
      }
      v->lane = 0;
      s->vf = site_at(v, 0);   /* the hooks take lane l's at s->vf + l */
      if (s->size <= 8)
         return unsafeIRDirty_1_N(
            r, 3, "cats_vf_store_atoms8",
            VG_(fnptr_to_fnentry)(CATS_(vf_store_atoms_hook)(s->size)),
            mkIRExprVec_4(mkIRExpr_HWord((HWord)s), addr,
                          IRExpr_RdTmp(x[0]), IRExpr_RdTmp(x[1])));
      return unsafeIRDirty_1_N(
         r, 0, "cats_vf_store_atoms",
         VG_(fnptr_to_fnentry)(CATS_(vf_store_atoms_hook)(s->size)),
         mkIRExprVec_6(mkIRExpr_HWord((HWord)s), addr, IRExpr_RdTmp(x[0]),
                       IRExpr_RdTmp(x[1]), IRExpr_RdTmp(x[2]),
                       IRExpr_RdTmp(x[3])));
   }
   for (l = 0; l < VF_MAX_LANES; l++) {
      Deps d = l < n ? arg_lane(v, data, l) : NO_DEPS;
      v->lane = l;
      p[l] = materialise(v, &d);
   }
   v->lane = 0;
   IRTemp p01 = pack(v, p_expr(p[1]), p_expr(p[0]));
   IRTemp p23 = pack(v, p_expr(p[3]), p_expr(p[2]));
   return unsafeIRDirty_1_N(
      r, 3, "cats_vf_store", VG_(fnptr_to_fnentry)(CATS_(vf_store)),
      mkIRExprVec_4(mkIRExpr_HWord((HWord)s), addr, IRExpr_RdTmp(p01),
                    IRExpr_RdTmp(p23)));
}

/* A register that this superblock PUT the stored value to (the lane
   `key` or `alias` of a temporary) holds the stored value from now on,
   in later superblocks too: a recurrence kept in a register (a[i][j]
   from a[i][j - 1] at -O3) reads the element it stored, as the code
   compiled at -O0 reloads it. A value in a register that this
   superblock only read (a loop invariant hoisted out of the loop) stays
   a computation, made anew by each store. Not a logged accumulator's
   or a self-updating register's unit, whose shadows follow their own
   rules. */
static void regs_hold_stored(VfSB* v, UInt key, UInt alias, const Deps* stored)
{
   UInt u;
   for (u = 0; u < VF_N_UNITS; u++) {
      UInt src = v->put_src[u];
      if (src == 0 || (src != key && src != alias)
          || v->acc_state[u] != ACC_NONE || v->self_word[u] != IRTemp_INVALID)
         continue;
      put_lane(v, (Int)u * 8, stored);
   }
}

static void store_lanes(VfSB* v, Site* s, IRExpr* addr, IRExpr* data,
                        IRExpr* guard)
{
   UInt n = arg_lanes(v, data);
   IRTemp r = new_tmp(v, Ity_I64);
   IRDirty* di = store_call(v, s, addr, data, n, r);
   if (guard != NULL)
      di->guard = guard;
   emit(v, IRStmt_Dirty(di));
   /* For the rest of the superblock the stored temporary is the stored
      value: the compiler stored one result in two places (b[i] = a[i]
      = x), and the second is a copy. So are the temporary it was read
      back from and the registers this superblock PUT it to
      (regs_hold_stored); a register only read here keeps the
      computation, so a loop-invariant result stored at every iteration
      makes a new value each time. An unguarded store only: a guarded
      one may not have happened. */
   if (guard == NULL && data->tag == Iex_RdTmp
       && data->Iex.RdTmp.tmp < (IRTemp)v->n_temps) {
      IRTemp t = data->Iex.RdTmp.tmp;
      Deps* stored = deps_of_tmp(v, t);
      UInt l;
      lanes_from(v, r, n, stored);
      /* The stored temporary may be a register read back (movsd %xmm0,
         (m) after subsd wrote xmm0): the temporary PUT there is the
         same value (r = r - a * w; s += r * r reads the stored r, not
         what it was computed from). */
      for (l = 0; l < n && l < VF_MAX_LANES; l++) {
         UInt src = v->got_from[t * VF_MAX_LANES + l];
         if (src != 0)
            v->deps[src - 1] = stored[l];
         regs_hold_stored(v, t * VF_MAX_LANES + l + 1, src, &stored[l]);
      }
   }
}

static void wr_tmp(VfSB* v, IRTemp t, IRExpr* e)
{
   Deps* out = deps_of_tmp(v, t);
   IRType ty = typeOfIRTemp(v->tyenv, t);
   UInt l, lanes = lanes_of_type(ty);
   switch (e->tag) {
   case Iex_Get: {
      UInt need = 0;
      for (l = 0; l < lanes; l++) {
         Int unit = e->Iex.Get.offset + 8 * (Int)l;
         if (!CATS_(vf_data_reg)(unit))
            continue;
         if (v->put_valid[unit / 8]) {
            out[l] = v->put[unit / 8];
            if ((unit & 7) == 0 && l < VF_MAX_LANES)
               v->got_from[t * VF_MAX_LANES + l] = v->put_src[unit / 8];
         } else if (v->acc_get[t] & (1u << l)) {
            out[l] = acc_read(v, unit, l);
         } else if (v->self_get[t] & VF_SELF_UPDATE) {
            out[l].n = 1;
            out[l].computed = False;
            out[l].a[0] = self_read(v, unit);
         } else if (v->self_get[t] & (VF_PASS_LANE << l)) {
            /* Its shadow stays as it is; the atom only marks it, and
               nothing reads it (cats_vf_scan.c). */
            out[l].n = 1;
            out[l].computed = False;
            out[l].a[0] = assign(v, Ity_I32, IRExpr_Get(unit + v->shadow,
                                                         Ity_I32));
            v->pass[unit / 8] = out[l].a[0];
         } else {
            need |= 1u << l;
         }
      }
      if (need != 0)
         shadow_get_lanes(v, e->Iex.Get.offset, need, out);
      for (l = 0; l < lanes; l++) {
         Int unit = e->Iex.Get.offset + 8 * (Int)l;
         if (CATS_(vf_data_reg)(unit) && !v->put_valid[unit / 8]) {
            v->put[unit / 8] = out[l];
            v->put_valid[unit / 8] = 1;
         }
      }
      return;
   }
   case Iex_RdTmp:
      for (l = 0; l < lanes; l++)
         out[l] = arg_lane(v, e, l);
      return;
   case Iex_Unop:
      op_deps(v, e->Iex.Unop.op, &e->Iex.Unop.arg, 1, ty, out);
      return;
   case Iex_Binop: {
      IRExpr* args[2] = { e->Iex.Binop.arg1, e->Iex.Binop.arg2 };
      op_deps(v, e->Iex.Binop.op, args, 2, ty, out);
      return;
   }
   case Iex_Triop: {
      IRTriop* o = e->Iex.Triop.details;
      IRExpr* args[3] = { o->arg1, o->arg2, o->arg3 };
      op_deps(v, o->op, args, 3, ty, out);
      return;
   }
   case Iex_Qop: {
      IRQop* o = e->Iex.Qop.details;
      IRExpr* args[4] = { o->arg1, o->arg2, o->arg3, o->arg4 };
      op_deps(v, o->op, args, 4, ty, out);
      return;
   }
   case Iex_ITE:
      /* The selected value, whichever it is at run time. */
      for (l = 0; l < lanes; l++) {
         Deps a = arg_lane(v, e->Iex.ITE.iftrue, l);
         Deps b = arg_lane(v, e->Iex.ITE.iffalse, l);
         IRTemp pa = materialise(v, &a), pb = materialise(v, &b);
         if (pa == IRTemp_INVALID && pb == IRTemp_INVALID)
            continue;
         out[l].n = 1;
         out[l].computed = False;
         out[l].a[0] = pa == pb ? pa
                       : assign(v, Ity_I32,
                                IRExpr_ITE(e->Iex.ITE.cond, p_expr(pa),
                                           p_expr(pb)));
      }
      return;
   case Iex_CCall: {
      UInt n = 0;
      while (e->Iex.CCall.args[n] != NULL)
         n++;
      Deps all = mix_all(v, e->Iex.CCall.args, n);
      for (l = 0; l < lanes; l++)
         out[l] = all;
      return;
   }
   default:
      return;   /* constants, GetI (x87): no provenance */
   }
}

/*------------------------------------------------------------*/
/*--- Statements                                           ---*/
/*------------------------------------------------------------*/

/* Whether code address a is the program's own: in an object without a
   soname (the executable), not in a shared library, whose comparisons
   (printf's of the values it formats) decide nothing of the program's. */
static Bool own_code(Addr a)
{
   DebugInfo* di = VG_(find_DebugInfo)(VG_(current_DiEpoch)(), a);
   if (di == NULL)
      return False;
   const HChar* so = VG_(DebugInfo_get_soname)(di);
   return so == NULL || VG_(strcmp)(so, "NONE") == 0;
}

/* A floating-point comparison: its operands' values decide a branch
   (or a flag that does), which every rank of an SPMD code must take
   alike, so the values are marked as read by a condition (a norm
   tested for convergence is then allreduced, docs/PROJECTION.md). The
   first four atoms of the two operands' lane 0, without a union: a
   comparison makes no value. */
static void control_read(VfSB* v, IRExpr* a, IRExpr* b)
{
   Deps da = arg_lane(v, a, 0), db = arg_lane(v, b, 0);
   IRExpr* p[4] = { NULL, NULL, NULL, NULL };
   UInt n = 0, i;
   for (i = 0; i < da.n && n < 4; i++)
      p[n++] = IRExpr_RdTmp(da.a[i]);
   for (i = 0; i < db.n && n < 4; i++)
      p[n++] = IRExpr_RdTmp(db.a[i]);
   if (n == 0)
      return;
   for (i = n; i < 4; i++)
      p[i] = IRExpr_Const(IRConst_U32(0));
   IRTemp ab = pack(v, p[1], p[0]);
   IRTemp cd = pack(v, p[3], p[2]);
   IRDirty* di = unsafeIRDirty_0_N(
      2, "cats_vf_control", VG_(fnptr_to_fnentry)(CATS_(vf_control)),
      mkIRExprVec_2(IRExpr_RdTmp(ab), IRExpr_RdTmp(cd)));
   emit(v, IRStmt_Dirty(di));
}

VfSB* CATS_(vf_sb_begin)(IRSB* sbIn, IRSB* out, const VexGuestLayout* layout)
{
   VfSB* v = VG_(malloc)("cats.vf.sb", sizeof(VfSB));
   v->out = out;
   v->tyenv = sbIn->tyenv;
   v->shadow = layout->total_sizeB;
   v->n_temps = sbIn->tyenv->types_used;
   v->deps = VG_(calloc)("cats.vf.deps", v->n_temps * VF_MAX_LANES + 1,
                         sizeof(Deps));
   v->ip = 0;
   v->site = NULL;
   v->lane = 0;
   v->ncache = 0;
   v->nslots = 0;
   v->zero = IRTemp_INVALID;
   v->ncomputed = v->npacked = 0;
   v->put = VG_(malloc)("cats.vf.put", VF_N_UNITS * sizeof(Deps));
   v->put_valid = VG_(calloc)("cats.vf.putv", VF_N_UNITS, 1);
   v->put_src = VG_(calloc)("cats.vf.puts", VF_N_UNITS, sizeof(UInt));
   v->got_from = VG_(calloc)("cats.vf.gotf", v->n_temps * VF_MAX_LANES + 1,
                             sizeof(UInt));
   v->self_get = VG_(calloc)("cats.vf.selfg", v->n_temps + 1, 1);
   v->self_word = VG_(malloc)("cats.vf.selfw", VF_N_UNITS * sizeof(IRTemp));
   v->pass = VG_(malloc)("cats.vf.pass", VF_N_UNITS * sizeof(IRTemp));
   v->own = VG_(malloc)("cats.vf.own", VF_N_UNITS * sizeof(IRTemp));
   for (UInt u = 0; u < VF_N_UNITS; u++)
      v->self_word[u] = v->pass[u] = v->own[u] = IRTemp_INVALID;
   CATS_(vf_find_self_updates)(sbIn, v->self_get);
   CATS_(vf_find_passthrough_lanes)(sbIn, v->self_get);
   v->acc_get = VG_(calloc)("cats.vf.accg", v->n_temps + 1, 1);
   v->acc_state = VG_(calloc)("cats.vf.accs", VF_N_UNITS, 1);
   v->acc_site = VG_(calloc)("cats.vf.accsite", VF_N_UNITS, sizeof(VfSite*));
   v->acc_rank = VG_(calloc)("cats.vf.accr", VF_N_UNITS, sizeof(UInt));
   v->acc_nread = 0;
   v->acc_cursor = IRTemp_INVALID;
   v->acc_loop = NULL;
   v->start = 0;
   for (Int i = 0; i < sbIn->stmts_used && v->start == 0; i++)
      if (sbIn->stmts[i]->tag == Ist_IMark)
         v->start = (Addr)(sbIn->stmts[i]->Ist.IMark.addr
                           + sbIn->stmts[i]->Ist.IMark.delta);
   v->acc_pending = CATS_(clo_vf_acc_log)
      ? CATS_(vf_find_accumulators)(sbIn, v->start, v->self_get, v->acc_get,
                                    &v->acc_lo, &v->acc_hi)
      : 0;
   if (v->acc_pending > 0)
      /* Kept for as long as the translation may run. */
      v->acc_loop = VG_(calloc)("cats.vf.accloop", 1, sizeof(VfAccLoop));
   if (v->acc_loop != NULL)
      v->acc_loop->area = (UWord)v->shadow;
   return v;
}

void CATS_(vf_sb_end)(VfSB* v)
{
   IRSB* out = v->out;
   if (v->acc_loop != NULL) {
      tl_assert(v->acc_pending == 0);
      /* The loop is left at the end unless the end jumps back. */
      if (!CATS_(vf_jumps_back)(out->jumpkind,
                                out->next->tag == Iex_Const
                                ? out->next->Iex.Const.con : NULL, v->start))
         acc_flush(v, NULL);
   }
   CATS_(vf_drop_dead_puts)(v->out, v->shadow);
   VG_(free)(v->acc_get);
   VG_(free)(v->acc_state);
   VG_(free)(v->acc_site);
   VG_(free)(v->acc_rank);
   VG_(free)(v->deps);
   VG_(free)(v->put);
   VG_(free)(v->put_valid);
   VG_(free)(v->put_src);
   VG_(free)(v->got_from);
   VG_(free)(v->self_get);
   VG_(free)(v->self_word);
   VG_(free)(v->pass);
   VG_(free)(v->own);
   VG_(free)(v);
}

void CATS_(vf_safe_point)(VfSB* v)
{
   IRTemp due = assign(v, Ity_I8, IRExpr_Load(
      Iend_LE, Ity_I8, mkIRExpr_HWord((HWord)&CATS_(vf_collect_due))));
   IRTemp g = assign(v, Ity_I1, IRExpr_Binop(Iop_CmpNE8, IRExpr_RdTmp(due),
                                             IRExpr_Const(IRConst_U8(0))));
   IRDirty* di = unsafeIRDirty_0_N(0, "cats_vf_collect_now",
                                   VG_(fnptr_to_fnentry)(CATS_(vf_collect_now)),
                                   mkIRExprVec_0());
   di->guard = IRExpr_RdTmp(g);
   /* It reads every shadow register (VG_(get_shadow_regs_area)). */
   di->nFxState = 1;
   di->fxState[0].fx = Ifx_Read;
   di->fxState[0].offset = v->shadow;
   di->fxState[0].size = 2 * v->shadow;
   di->fxState[0].nRepeats = 0;
   di->fxState[0].repeatLen = 0;
   emit(v, IRStmt_Dirty(di));
}

/* Shadow registers written by a helper without memory effects (cpuid,
   rdtsc) hold no value afterwards. */
static void dirty_writes(VfSB* v, IRDirty* d)
{
   Int i, r;
   if (d->mFx != Ifx_None)
      return;   /* xsave/xrstor and the like move registers unchanged */
   for (i = 0; i < d->nFxState; i++) {
      if (d->fxState[i].fx != Ifx_Write && d->fxState[i].fx != Ifx_Modify)
         continue;
      for (r = 0; r <= d->fxState[i].nRepeats; r++) {
         Int off = d->fxState[i].offset + r * d->fxState[i].repeatLen, u;
         for (u = off & ~7; u < off + d->fxState[i].size; u += 8)
            if (CATS_(vf_data_reg)(u))
               put_lane(v, u, &NO_DEPS);
      }
   }
}

Bool CATS_(vf_instrument_stmt)(VfSB* v, IRStmt* st, Addr ip)
{
   if (ip != v->ip) {
      v->ip = ip;
      v->site = NULL;
   }
   switch (st->tag) {
   case Ist_WrTmp: {
      IRExpr* e = st->Ist.WrTmp.data;
      IRTemp t = st->Ist.WrTmp.tmp;
      if (e->tag != Iex_Load) {
         wr_tmp(v, t, e);
         if (e->tag == Iex_Binop && (e->Iex.Binop.op == Iop_CmpF64
                                     || e->Iex.Binop.op == Iop_CmpF32)
             && own_code(ip))
            control_read(v, e->Iex.Binop.arg1, e->Iex.Binop.arg2);
         return False;
      }
      IRType ty = e->Iex.Load.ty;
      Site* s = CATS_(new_site)(ip, CATS_READ, sizeofIRType(ty), 0);
      load_lanes(v, s, e->Iex.Load.addr, NULL, lanes_of_type(ty),
                 deps_of_tmp(v, t));
      return True;
   }
   case Ist_Store: {
      IRExpr* data = st->Ist.Store.data;
      Site* s = CATS_(new_site)(ip, CATS_WRITE,
                                sizeofIRType(typeOfIRExpr(v->tyenv, data)),
                                0);
      store_lanes(v, s, st->Ist.Store.addr, data, NULL);
      return True;
   }
   case Ist_StoreG: {
      IRStoreG* sg = st->Ist.StoreG.details;
      Site* s = CATS_(new_site)(ip, CATS_WRITE,
                                sizeofIRType(typeOfIRExpr(v->tyenv,
                                                          sg->data)), 0);
      store_lanes(v, s, sg->addr, sg->data, sg->guard);
      return True;
   }
   case Ist_LoadG: {
      IRLoadG* lg = st->Ist.LoadG.details;
      IRType wide, narrow;
      typeOfIRLoadGOp(lg->cvt, &wide, &narrow);
      Site* s = CATS_(new_site)(ip, CATS_READ, sizeofIRType(narrow), 0);
      Deps loaded[VF_MAX_LANES];
      load_lanes(v, s, lg->addr, lg->guard, 1, loaded);
      Deps alt = arg_lane(v, lg->alt, 0);
      IRTemp pa = materialise(v, &alt);
      Deps* out = deps_of_tmp(v, lg->dst);
      out[0].n = 1;
      out[0].computed = False;
      out[0].a[0] = assign(v, Ity_I32, IRExpr_ITE(lg->guard,
                                                  IRExpr_RdTmp(loaded[0].a[0]),
                                                  p_expr(pa)));
      return True;
   }
   case Ist_CAS: {
      IRCAS* cas = st->Ist.CAS.details;
      if (cas->dataHi != NULL)
         return False;   /* double CAS: traced, no provenance */
      UInt size = sizeofIRType(typeOfIRExpr(v->tyenv, cas->dataLo));
      Site* r = CATS_(new_site)(ip, CATS_READ, size, CATS_EVFLAG_HELPER);
      Site* w = CATS_(new_site)(ip, CATS_WRITE, size, CATS_EVFLAG_HELPER);
      load_lanes(v, r, cas->addr, NULL, 1, deps_of_tmp(v, cas->oldLo));
      store_lanes(v, w, cas->addr, cas->dataLo, NULL);
      return True;
   }
   case Ist_Put: {
      IRExpr* data = st->Ist.Put.data;
      UInt l, n = arg_lanes(v, data);
      for (l = 0; l < n; l++) {
         Int unit = st->Ist.Put.offset + 8 * (Int)l;
         if (!CATS_(vf_data_reg)(unit))
            continue;
         Deps d = arg_lane(v, data, l);
         v->lane = l;
         put_lane(v, unit, &d);
         if (data->tag == Iex_RdTmp && (unit & 7) == 0
             && data->Iex.RdTmp.tmp < (IRTemp)v->n_temps)
            v->put_src[unit / 8] = data->Iex.RdTmp.tmp * VF_MAX_LANES + l + 1;
      }
      v->lane = 0;
      return False;
   }
   case Ist_Dirty: {
      IRDirty* d = st->Ist.Dirty.details;
      dirty_writes(v, d);
      return False;   /* its memory effects are traced as usual */
   }
   case Ist_Exit:
      /* Leaving a loop that logs its accumulators. */
      if (v->acc_loop != NULL
          && !CATS_(vf_jumps_back)(st->Ist.Exit.jk, st->Ist.Exit.dst,
                                   v->start))
         acc_flush(v, st->Ist.Exit.guard);
      return False;
   default:
      return False;
   }
}
