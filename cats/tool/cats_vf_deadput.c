/* SPDX-License-Identifier: GPL-2.0-or-later */
/*--------------------------------------------------------------------*/
/*--- cats: shadow register writes that nothing reads.            ---*/
/*---                                            cats_vf_deadput.c ---*/
/*--------------------------------------------------------------------*/
/* VEX removes a guest register write that a later one overwrites
   before anything reads it, but only before instrumentation: the
   shadow registers' writes that value flow adds are all kept. A
   register written three times in a superblock (movsd, unpcklpd,
   mulpd into one xmm) writes its shadow slots three times. This pass
   walks the instrumented superblock backwards and drops a shadow write
   whose bytes are all written again before any statement can read
   them. Reads are GETs, dirty calls that declare guest state they read
   (the register-read unions declare theirs) and side exits, after
   which the whole state is live, as it is at the superblock's end
   (the set collector's call declares that it reads both areas).
   Like VEX's own pass, it keeps the state precise only where a
   statement can read it, not at a load that faults. */

#include "cats_tool.h"
#include "cats_vf.h"

/* Bytes of the two shadow areas, [shadow, 3 * shadow): 1 if written
   again later before any read. */
typedef struct {
   UChar* dead;
   Int    lo, hi;
} DeadMap;

static void mark(DeadMap* m, Int off, Int size, UChar dead)
{
   Int a = off < m->lo ? m->lo : off, b = off + size > m->hi ? m->hi
                                                              : off + size;
   for (; a < b; a++)
      m->dead[a - m->lo] = dead;
}

static Bool all_dead(const DeadMap* m, Int off, Int size)
{
   Int a;
   if (off < m->lo || off + size > m->hi)
      return False;
   for (a = off; a < off + size; a++)
      if (!m->dead[a - m->lo])
         return False;
   return True;
}

static void reads_expr(DeadMap* m, IRExpr* e)
{
   Int i;
   if (e == NULL)   /* an optional operand */
      return;
   switch (e->tag) {
   case Iex_Get:
      mark(m, e->Iex.Get.offset, sizeofIRType(e->Iex.Get.ty), 0);
      break;
   case Iex_GetI:
      mark(m, m->lo, m->hi - m->lo, 0);
      break;
   case Iex_Qop:
      reads_expr(m, e->Iex.Qop.details->arg1);
      reads_expr(m, e->Iex.Qop.details->arg2);
      reads_expr(m, e->Iex.Qop.details->arg3);
      reads_expr(m, e->Iex.Qop.details->arg4);
      break;
   case Iex_Triop:
      reads_expr(m, e->Iex.Triop.details->arg1);
      reads_expr(m, e->Iex.Triop.details->arg2);
      reads_expr(m, e->Iex.Triop.details->arg3);
      break;
   case Iex_Binop:
      reads_expr(m, e->Iex.Binop.arg1);
      reads_expr(m, e->Iex.Binop.arg2);
      break;
   case Iex_Unop:
      reads_expr(m, e->Iex.Unop.arg);
      break;
   case Iex_Load:
      reads_expr(m, e->Iex.Load.addr);
      break;
   case Iex_ITE:
      reads_expr(m, e->Iex.ITE.cond);
      reads_expr(m, e->Iex.ITE.iftrue);
      reads_expr(m, e->Iex.ITE.iffalse);
      break;
   case Iex_CCall:
      for (i = 0; e->Iex.CCall.args[i] != NULL; i++)
         reads_expr(m, e->Iex.CCall.args[i]);
      break;
   default:   /* RdTmp, Const, VECRET, GSPTR */
      break;
   }
}

/* The statement's reads of guest state, as the shadow bytes live. */
static void reads_stmt(DeadMap* m, IRStmt* st)
{
   Int i;
   switch (st->tag) {
   case Ist_Exit:
      mark(m, m->lo, m->hi - m->lo, 0);
      break;
   case Ist_Dirty: {
      IRDirty* d = st->Ist.Dirty.details;
      Bool gsptr = False;
      for (i = 0; d->args[i] != NULL; i++) {
         if (d->args[i]->tag == Iex_GSPTR)
            gsptr = True;
         else
            reads_expr(m, d->args[i]);
      }
      reads_expr(m, d->guard);
      reads_expr(m, d->mAddr);
      if (gsptr && d->nFxState == 0)
         mark(m, m->lo, m->hi - m->lo, 0);
      for (i = 0; i < d->nFxState; i++) {
         Int k, n = d->fxState[i].nRepeats + 1;
         for (k = 0; k < n; k++)
            mark(m, d->fxState[i].offset + k * d->fxState[i].repeatLen,
                 d->fxState[i].size, 0);
      }
      break;
   }
   case Ist_WrTmp:
      reads_expr(m, st->Ist.WrTmp.data);
      break;
   case Ist_Put:
      reads_expr(m, st->Ist.Put.data);
      break;
   case Ist_PutI:
      reads_expr(m, st->Ist.PutI.details->ix);
      reads_expr(m, st->Ist.PutI.details->data);
      break;
   case Ist_Store:
      reads_expr(m, st->Ist.Store.addr);
      reads_expr(m, st->Ist.Store.data);
      break;
   case Ist_StoreG:
      reads_expr(m, st->Ist.StoreG.details->addr);
      reads_expr(m, st->Ist.StoreG.details->data);
      reads_expr(m, st->Ist.StoreG.details->guard);
      break;
   case Ist_LoadG:
      reads_expr(m, st->Ist.LoadG.details->addr);
      reads_expr(m, st->Ist.LoadG.details->alt);
      reads_expr(m, st->Ist.LoadG.details->guard);
      break;
   case Ist_CAS:
      reads_expr(m, st->Ist.CAS.details->addr);
      reads_expr(m, st->Ist.CAS.details->expdHi);
      reads_expr(m, st->Ist.CAS.details->expdLo);
      reads_expr(m, st->Ist.CAS.details->dataHi);
      reads_expr(m, st->Ist.CAS.details->dataLo);
      break;
   case Ist_LLSC:
      reads_expr(m, st->Ist.LLSC.addr);
      reads_expr(m, st->Ist.LLSC.storedata);
      break;
   default:   /* NoOp, IMark, AbiHint, MBE */
      break;
   }
}

void CATS_(vf_drop_dead_puts)(IRSB* sb, Int shadow)
{
   DeadMap m;
   Int i;
   m.lo = shadow;
   m.hi = 3 * shadow;
   m.dead = VG_(calloc)("cats.vf.deadput", m.hi - m.lo, 1);
   for (i = sb->stmts_used - 1; i >= 0; i--) {
      IRStmt* st = sb->stmts[i];
      if (st->tag == Ist_Put && st->Ist.Put.offset >= m.lo) {
         Int size = sizeofIRType(typeOfIRExpr(sb->tyenv, st->Ist.Put.data));
         if (all_dead(&m, st->Ist.Put.offset, size)) {
            sb->stmts[i] = IRStmt_NoOp();
            continue;
         }
         mark(&m, st->Ist.Put.offset, size, 1);   /* written after */
         reads_stmt(&m, st);                       /* its data is read */
         continue;
      }
      reads_stmt(&m, st);
   }
   VG_(free)(m.dead);
}
