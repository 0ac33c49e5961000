/*--------------------------------------------------------------------*/
/*--- cats: registers that only update themselves.   cats_vf_scan.c ---*/
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

static ULong scan_expr(Scan* sc, IRExpr* e)
{
   ULong m = 0;
   Int i;
   switch (e->tag) {
   case Iex_Get:
      return scan_get(sc, e);
   case Iex_RdTmp: case Iex_Const:
      return mask_of(sc, e);
   case Iex_Unop:
      return mask_of(sc, e->Iex.Unop.arg);
   case Iex_Binop:
      return mask_of(sc, e->Iex.Binop.arg1) | mask_of(sc, e->Iex.Binop.arg2);
   case Iex_Triop:
      return mask_of(sc, e->Iex.Triop.details->arg1)
             | mask_of(sc, e->Iex.Triop.details->arg2)
             | mask_of(sc, e->Iex.Triop.details->arg3);
   case Iex_Qop:
      return mask_of(sc, e->Iex.Qop.details->arg1)
             | mask_of(sc, e->Iex.Qop.details->arg2)
             | mask_of(sc, e->Iex.Qop.details->arg3)
             | mask_of(sc, e->Iex.Qop.details->arg4);
   case Iex_CCall:
      for (i = 0; e->Iex.CCall.args[i] != NULL; i++)
         m |= mask_of(sc, e->Iex.CCall.args[i]);
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
