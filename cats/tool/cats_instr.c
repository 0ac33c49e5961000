/* SPDX-License-Identifier: GPL-2.0-or-later */
/*--------------------------------------------------------------------*/
/*--- cats: instrumentation.                          cats_instr.c ---*/
/*--------------------------------------------------------------------*/
/* Each superblock gets:
   - at its start, a call that updates the control-flow stack, given the
     guest SP (frames are popped by SP); and at any instruction inside it
     where a loop or conditional starts or ends, since a superblock runs
     through fall-through edges. Both calls are guarded by an inline
     test of whether anything can change: the SP did not rise above the
     innermost frame's, no call is pending, and the innermost frame is
     already this point's innermost loop, conditional or function. When
     the test holds at a loop header the iteration is counted inline, so
     a hot loop body costs a few IR statements instead of a call;
   - before every exit that is a call, a store of the jump kind into
     CATS_(last_jk), read by the next superblock's entry call, and of 0,
     which is no scope's key, into CATS_(top_key), so that the entry's
     inline test fails without reading the jump kind;
   - one call per memory operand, covering every IR statement that
     touches memory: loads, stores, guarded loads and stores, CAS (both
     halves of a double CAS), LL/SC and dirty helpers' memory effects.
     Guarded accesses use guarded dirty calls, so a false guard costs
     no call;
   - with value flow, the provenance of every temporary and register
     (cats_vf_instr.c), whose load and store hooks also do the trace's
     work for those accesses. */

#include "cats_tool.h"
#include "pub_tool_machine.h"

Bool CATS_(instr_on) = True;

static void add_call(IRSB* sb, const HChar* name, void* fn, Int regparms,
                     IRExpr** args, IRExpr* guard)
{
   IRDirty* di = unsafeIRDirty_0_N(regparms, name,
                                   VG_(fnptr_to_fnentry)(fn), args);
   if (guard != NULL)
      di->guard = guard;
   addStmtToIRSB(sb, IRStmt_Dirty(di));
}

static void add_access(IRSB* sb, Addr ip, UChar kind, IRExpr* addr,
                       Int size, IRExpr* guard, UChar flags)
{
   if (!CATS_(instr_on) || size <= 0)
      return;
   Site* s = CATS_(new_site)(ip, kind, (UInt)size, flags);
   add_call(sb, "cats_on_access", CATS_(access_hook)(), 2,
            mkIRExprVec_2(mkIRExpr_HWord((HWord)s), addr), guard);
}

static void add_jk_store(IRSB* sb, IRJumpKind jk)
{
   if (jk != Ijk_Call)
      return;
   addStmtToIRSB(sb, IRStmt_Store(Iend_LE,
                                  mkIRExpr_HWord((HWord)&CATS_(last_jk)),
                                  IRExpr_Const(IRConst_U32((UInt)jk))));
   addStmtToIRSB(sb, IRStmt_Store(Iend_LE,
                                  mkIRExpr_HWord((HWord)&CATS_(top_key)),
                                  mkIRExpr_HWord(0)));
}

static void instrument_stmt(IRSB* out, IRTypeEnv* tyenv, IRStmt* st,
                            Addr ip)
{
   switch (st->tag) {
   case Ist_WrTmp: {
      IRExpr* data = st->Ist.WrTmp.data;
      if (data->tag == Iex_Load)
         add_access(out, ip, CATS_READ, data->Iex.Load.addr,
                    sizeofIRType(data->Iex.Load.ty), NULL, 0);
      break;
   }
   case Ist_Store:
      add_access(out, ip, CATS_WRITE, st->Ist.Store.addr,
                 sizeofIRType(typeOfIRExpr(tyenv, st->Ist.Store.data)),
                 NULL, 0);
      break;
   case Ist_LoadG: {
      IRLoadG* lg = st->Ist.LoadG.details;
      IRType wide, narrow;
      typeOfIRLoadGOp(lg->cvt, &wide, &narrow);
      add_access(out, ip, CATS_READ, lg->addr, sizeofIRType(narrow),
                 lg->guard, 0);
      break;
   }
   case Ist_StoreG: {
      IRStoreG* sg = st->Ist.StoreG.details;
      add_access(out, ip, CATS_WRITE, sg->addr,
                 sizeofIRType(typeOfIRExpr(tyenv, sg->data)), sg->guard, 0);
      break;
   }
   case Ist_CAS: {
      IRCAS* cas = st->Ist.CAS.details;
      Int size = sizeofIRType(typeOfIRExpr(tyenv, cas->dataLo));
      if (cas->dataHi != NULL)
         size *= 2;
      add_access(out, ip, CATS_READ, cas->addr, size, NULL,
                 CATS_EVFLAG_HELPER);
      add_access(out, ip, CATS_WRITE, cas->addr, size, NULL,
                 CATS_EVFLAG_HELPER);
      break;
   }
   case Ist_LLSC:
      if (st->Ist.LLSC.storedata == NULL)
         add_access(out, ip, CATS_READ, st->Ist.LLSC.addr,
                    sizeofIRType(typeOfIRTemp(tyenv, st->Ist.LLSC.result)),
                    NULL, CATS_EVFLAG_HELPER);
      else
         add_access(out, ip, CATS_WRITE, st->Ist.LLSC.addr,
                    sizeofIRType(typeOfIRExpr(tyenv,
                                              st->Ist.LLSC.storedata)),
                    NULL, CATS_EVFLAG_HELPER);
      break;
   case Ist_Dirty: {
      IRDirty* d = st->Ist.Dirty.details;
      if (d->mFx == Ifx_None)
         break;
      tl_assert(d->mAddr != NULL && d->mSize != 0);
      if (d->mFx == Ifx_Read || d->mFx == Ifx_Modify)
         add_access(out, ip, CATS_READ, d->mAddr, d->mSize, d->guard,
                    CATS_EVFLAG_HELPER);
      if (d->mFx == Ifx_Write || d->mFx == Ifx_Modify)
         add_access(out, ip, CATS_WRITE, d->mAddr, d->mSize, d->guard,
                    CATS_EVFLAG_HELPER);
      break;
   }
   case Ist_Exit:
      add_jk_store(out, st->Ist.Exit.jk);
      break;
   default:
      break;
   }
}

static IRTemp load_tmp(IRSB* sb, IRType ty, void* addr)
{
   IRTemp t = newIRTemp(sb->tyenv, ty);
   addStmtToIRSB(sb, IRStmt_WrTmp(t, IRExpr_Load(Iend_LE, ty,
                                                 mkIRExpr_HWord((HWord)addr))));
   return t;
}

static IRTemp bin_tmp(IRSB* sb, IROp op, IRTemp a, IRExpr* b)
{
   IRType dst, a1, a2, a3, a4;
   typeOfPrimop(op, &dst, &a1, &a2, &a3, &a4);
   IRTemp t = newIRTemp(sb->tyenv, dst);
   addStmtToIRSB(sb, IRStmt_WrTmp(t, IRExpr_Binop(op, IRExpr_RdTmp(a), b)));
   return t;
}

/* CATS_(cur_iter0) op= (cond ? 1 : 0), inline: counts (Add64) or takes
   back (Sub64) an iteration of the innermost loop. */
static void count_iteration_if(IRSB* out, IROp op, IRExpr* cond)
{
   IRTemp one = newIRTemp(out->tyenv, Ity_I64);
   addStmtToIRSB(out, IRStmt_WrTmp(one, IRExpr_Unop(Iop_1Uto64, cond)));
   IRTemp it = bin_tmp(out, op, load_tmp(out, Ity_I64, &CATS_(cur_iter0)),
                       IRExpr_RdTmp(one));
   addStmtToIRSB(out, IRStmt_Store(Iend_LE,
                                   mkIRExpr_HWord((HWord)&CATS_(cur_iter0)),
                                   IRExpr_RdTmp(it)));
}

/* Instruments a control-flow point: a superblock start (with the guest
   SP in 'sp') or a region boundary inside one (sp == IRTemp_INVALID). */
static void add_point(IRSB* out, Point* p, IRTemp sp)
{
   Bool sb_start = sp != IRTemp_INVALID;
   IRExpr** args = sb_start
      ? mkIRExprVec_2(mkIRExpr_HWord((HWord)p), IRExpr_RdTmp(sp))
      : mkIRExprVec_1(mkIRExpr_HWord((HWord)p));
   void* fn = sb_start ? (void*)CATS_(on_sb_entry) : (void*)CATS_(on_point);
   const HChar* name = sb_start ? "cats_on_sb_entry" : "cats_on_point";
   Int regparms = sb_start ? 2 : 1;

   /* Code without symbols (a stripped program, a library's static
      functions) and our hidden code never get a frame of their own: the
      entry call only pops the frames that returned and takes a pending
      call, and a point inside such code does nothing. So the call is
      made only when the SP rose above the innermost frame's or a call
      is pending (top_key 0), as for any other point; a stripped
      interpreter's or compressor's every superblock would otherwise
      make it. */
   if (p->fn == NULL || p->fn->hidden) {
      if (!sb_start)
         return;
      IRTemp pop = bin_tmp(out, Iop_CmpLT64U,
                           load_tmp(out, Ity_I64, &CATS_(top_sp)),
                           IRExpr_RdTmp(sp));
      IRTemp pending = bin_tmp(out, Iop_CmpEQ64,
                               load_tmp(out, Ity_I64, &CATS_(top_key)),
                               mkIRExpr_HWord(0));
      IRTemp pop64 = newIRTemp(out->tyenv, Ity_I64);
      IRTemp pending64 = newIRTemp(out->tyenv, Ity_I64);
      addStmtToIRSB(out, IRStmt_WrTmp(pop64, IRExpr_Unop(Iop_1Uto64,
                                                         IRExpr_RdTmp(pop))));
      addStmtToIRSB(out, IRStmt_WrTmp(pending64,
                                      IRExpr_Unop(Iop_1Uto64,
                                                  IRExpr_RdTmp(pending))));
      IRTemp either = bin_tmp(out, Iop_Or64, pop64, IRExpr_RdTmp(pending64));
      IRTemp slow = bin_tmp(out, Iop_CmpNE64, either, mkIRExpr_HWord(0));
      add_call(out, name, fn, regparms, args, IRExpr_RdTmp(slow));
      return;
   }
   /* Function entries always go the slow way: they may push or replace
      frames. */
   if (sb_start && p->is_entry) {
      add_call(out, name, fn, regparms, args, NULL);
      return;
   }
   Region* inner = p->nregions > 0 ? p->regions[p->nregions - 1] : NULL;
   UWord key = inner ? (UWord)inner : (UWord)p->fn;
   /* 0 on the fast path: the innermost scope is this point's (a call
      pending made the key 0), and at a superblock start no frame
      returned. In 64-bit arithmetic, not And1: VEX makes a flag of each
      I1 and tests it again. */
   IRTemp miss = bin_tmp(out, Iop_Xor64, load_tmp(out, Ity_I64,
                                                  &CATS_(top_key)),
                         mkIRExpr_HWord(key));
   if (sb_start) {
      IRTemp pop = bin_tmp(out, Iop_CmpLT64U,
                           load_tmp(out, Ity_I64, &CATS_(top_sp)),
                           IRExpr_RdTmp(sp));
      IRTemp pop64 = newIRTemp(out->tyenv, Ity_I64);
      addStmtToIRSB(out, IRStmt_WrTmp(pop64, IRExpr_Unop(Iop_1Uto64,
                                                         IRExpr_RdTmp(pop))));
      miss = bin_tmp(out, Iop_Or64, miss, IRExpr_RdTmp(pop64));
   }
   if (inner != NULL && inner->kind == CATS_CTX_LOOP && inner->header == p->addr)
      count_iteration_if(out, Iop_Add64,
                         IRExpr_RdTmp(bin_tmp(out, Iop_CmpEQ64, miss,
                                              mkIRExpr_HWord(0))));
   IRTemp slow = bin_tmp(out, Iop_CmpNE64, miss, mkIRExpr_HWord(0));
   add_call(out, name, fn, regparms, args, IRExpr_RdTmp(slow));
}

/* The loop whose header the point at 'p' is, or NULL. */
static Region* header_loop(const Point* p)
{
   Region* inner = p->nregions > 0 ? p->regions[p->nregions - 1] : NULL;
   return inner && inner->kind == CATS_CTX_LOOP && inner->header == p->addr
          ? inner : NULL;
}

/* Address that execution falls through to after statement i. */
static Addr fall_through(IRSB* sbIn, Int i)
{
   for (i++; i < sbIn->stmts_used; i++)
      if (sbIn->stmts[i]->tag == Ist_IMark)
         return (Addr)(sbIn->stmts[i]->Ist.IMark.addr
                       + sbIn->stmts[i]->Ist.IMark.delta);
   return sbIn->next->tag == Iex_Const ? (Addr)sbIn->next->Iex.Const.con->Ico.U64
                                       : 0;
}

/* A loop's header runs once more than its body when the header is only
   the loop test (top-tested loops, the -O0 layout): the run that leaves
   the loop is not an iteration. When the header block's branch picks
   between staying in and leaving the loop, and the header is not also a
   latch, the leaving edge takes the iteration back, inline. */
static void uncount_exit_from_header(IRSB* out, IRSB* sbIn, Int i,
                                     Region* loop)
{
   IRStmt* st = sbIn->stmts[i];
   if (st->Ist.Exit.dst->tag != Ico_U64)
      return;
   Addr dst = (Addr)st->Ist.Exit.dst->Ico.U64;
   Bool in_dst = CATS_(region_holds)(loop, dst);
   Bool leave_if_taken;
   if (loop->rep) {
      /* VEX tests a rep instruction's count before each repetition. */
      if (in_dst)
         return;
      leave_if_taken = True;
   } else {
      Addr ft = fall_through(sbIn, i);
      if (ft == 0 || dst == loop->header || ft == loop->header)
         return;   /* the header is also a latch */
      if (in_dst == CATS_(region_holds)(loop, ft))
         return;
      leave_if_taken = !in_dst;
   }
   IRExpr* leaves = st->Ist.Exit.guard;
   if (!leave_if_taken) {
      IRTemp t = newIRTemp(out->tyenv, Ity_I1);
      addStmtToIRSB(out, IRStmt_WrTmp(t, IRExpr_Unop(Iop_Not1, leaves)));
      leaves = IRExpr_RdTmp(t);
   }
   /* Only from this loop, and only when it is the innermost scope: code
      the tool does not follow (no symbol, our preload) pushes none. */
   IRTemp is_top = bin_tmp(out, Iop_CmpEQ64,
                           load_tmp(out, Ity_I64, &CATS_(top_key)),
                           mkIRExpr_HWord((HWord)loop));
   IRTemp both = newIRTemp(out->tyenv, Ity_I1);
   addStmtToIRSB(out, IRStmt_WrTmp(both, IRExpr_Binop(Iop_And1, leaves,
                                                      IRExpr_RdTmp(is_top))));
   count_iteration_if(out, Iop_Sub64, IRExpr_RdTmp(both));
}

/* The address of the superblock's last instruction if it continues at
   itself (VEX's translation of a rep-prefixed string instruction, which
   repeats by jumping back to its own address), else 0. */
static Addr self_looping_insn(IRSB* sbIn)
{
   Int i;
   Addr last = 0;
   for (i = 0; i < sbIn->stmts_used; i++)
      if (sbIn->stmts[i]->tag == Ist_IMark)
         last = (Addr)(sbIn->stmts[i]->Ist.IMark.addr
                       + sbIn->stmts[i]->Ist.IMark.delta);
   if (last != 0 && sbIn->jumpkind == Ijk_Boring
       && sbIn->next->tag == Iex_Const
       && (Addr)sbIn->next->Iex.Const.con->Ico.U64 == last)
      return last;
   return 0;
}

IRSB* CATS_(instrument)(VgCallbackClosure* closure, IRSB* sbIn,
                        const VexGuestLayout* layout,
                        const VexGuestExtents* vge,
                        const VexArchInfo* archinfo,
                        IRType gWordTy, IRType hWordTy)
{
   Int i;
   Addr ip = 0;
   Bool first = True;
   Region* header_of = NULL;   /* a loop header's block is being copied */
   Addr rep_insn = self_looping_insn(sbIn);
   (void)closure; (void)vge; (void)archinfo;

   if (gWordTy != hWordTy)
      VG_(tool_panic)("cats: host and guest word sizes differ");

   IRSB* out = deepCopyIRSBExceptStmts(sbIn);
   VfSB* vf = CATS_(clo_value_flow) && CATS_(instr_on)
              ? CATS_(vf_sb_begin)(sbIn, out, layout) : NULL;
   if (CATS_(instr_on))
      CATS_(index_scan)(sbIn);
   for (i = 0; i < sbIn->stmts_used && sbIn->stmts[i]->tag != Ist_IMark; i++)
      addStmtToIRSB(out, sbIn->stmts[i]);

   for (; i < sbIn->stmts_used; i++) {
      IRStmt* st = sbIn->stmts[i];
      if (st == NULL || st->tag == Ist_NoOp)
         continue;
      if (st->tag == Ist_IMark) {
         ip = (Addr)(st->Ist.IMark.addr + st->Ist.IMark.delta);
         addStmtToIRSB(out, st);
         if (first) {
            IRTemp sp = newIRTemp(out->tyenv, gWordTy);
            addStmtToIRSB(out, IRStmt_WrTmp(sp, IRExpr_Get(layout->offset_SP,
                                                           gWordTy)));
            Point* p = ip == rep_insn ? CATS_(rep_point_of)(ip)
                                      : CATS_(point_of)(ip, True);
            add_point(out, p, sp);
            header_of = header_loop(p);
            first = False;
            if (vf != NULL)
               CATS_(vf_safe_point)(vf);
         } else if (ip == rep_insn || CATS_(is_region_boundary)(ip)) {
            Point* p = ip == rep_insn ? CATS_(rep_point_of)(ip)
                                      : CATS_(point_of)(ip, False);
            add_point(out, p, IRTemp_INVALID);
            header_of = header_loop(p);
         }
         continue;
      }
      if (st->tag == Ist_Exit && header_of != NULL) {
         uncount_exit_from_header(out, sbIn, i, header_of);
         header_of = NULL;
      }
      if (vf == NULL || !CATS_(vf_instrument_stmt)(vf, st, ip))
         instrument_stmt(out, sbIn->tyenv, st, ip);
      addStmtToIRSB(out, st);
   }
   add_jk_store(out, sbIn->jumpkind);
   if (vf != NULL)
      CATS_(vf_sb_end)(vf);
   return out;
}
