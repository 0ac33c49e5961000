/* SPDX-License-Identifier: GPL-2.0-or-later */
/*--------------------------------------------------------------------*/
/*--- cats: the loads that feed addresses.             cats_index.c ---*/
/*--------------------------------------------------------------------*/
/* In y[i] += x[col[k]] the address of the x access is computed from the
   value the col[k] load read: col is the container that supplies x's
   index. This is found statically, when a superblock is translated, and
   costs nothing at run time: the IR is flat and in SSA form, so one
   forward pass can label every temporary with the first load its value
   was computed from through arithmetic (widening, shifts, adds, ...),
   and each access then looks at the label of its address. Register
   writes and reads inside the superblock carry labels too (VEX usually
   forwards them to temporaries already).

   A loaded value that is widened (int to long), shifted or multiplied
   on its way into an address is an index; one added as it is, is a
   base pointer (at -O0, x itself is loaded from the stack frame). When
   an address combines both, the index wins: x[col[k]] names col[k]'s
   load, not the load of x.

   The result is a table of (access location, index-load location) pairs
   written as section 10; the host names the container that the index
   load reads. Only loads in the same superblock are seen: an index
   loaded in an earlier block (another basic block of the loop body)
   leaves the access without one. */

#include "cats_tool.h"

/* What a temporary's value was computed from. */
typedef struct {
   Addr  ip;             /* the load's instruction, 0 for none */
   Bool  index;          /* widened, shifted or multiplied since */
} Feed;

/* A guest register written in this superblock with a labelled value. */
typedef struct {
   Int   offset, size;
   Feed  feed;
} RegFeed;

#define MAX_REG_FEEDS 32

typedef struct {
   UInt access_loc, index_loc;
} IndexPair;

static XArray* pairs;        /* of IndexPair, in order found */
static CatsMap pair_map;     /* (access loc, 1) -> 1 */
static Feed*   feeds;        /* per temporary of the superblock */
static Int     feeds_cap;
static RegFeed regs[MAX_REG_FEEDS];
static Int     n_regs;

static Int cmp_pairs(const void* a, const void* b)
{
   const IndexPair* x = a;
   const IndexPair* y = b;
   return x->access_loc < y->access_loc ? -1
          : x->access_loc > y->access_loc ? 1 : 0;
}

void CATS_(index_init)(void)
{
   pairs = VG_(newXA)(VG_(malloc), "cats.index", VG_(free),
                      sizeof(IndexPair));
   VG_(setCmpFnXA)(pairs, cmp_pairs);
   CATS_(map_init)(&pair_map, "cats.indexmap");
}

static const Feed no_feed = { 0, False };

static Feed feed_of_atom(const IRExpr* e)
{
   return e != NULL && e->tag == Iex_RdTmp ? feeds[e->Iex.RdTmp.tmp]
                                           : no_feed;
}

static Bool widens(IROp op)
{
   switch (op) {
   case Iop_8Uto16: case Iop_8Uto32: case Iop_8Uto64:
   case Iop_16Uto32: case Iop_16Uto64: case Iop_32Uto64:
   case Iop_8Sto16: case Iop_8Sto32: case Iop_8Sto64:
   case Iop_16Sto32: case Iop_16Sto64: case Iop_32Sto64:
      return True;
   default:
      return False;
   }
}

static Bool scales(IROp op)
{
   switch (op) {
   case Iop_Shl8: case Iop_Shl16: case Iop_Shl32: case Iop_Shl64:
   case Iop_Mul8: case Iop_Mul16: case Iop_Mul32: case Iop_Mul64:
   case Iop_MullS32: case Iop_MullU32: case Iop_MullS64: case Iop_MullU64:
      return True;
   default:
      return False;
   }
}

/* Of two labelled operands, the index; else the first found. */
static Feed pick(Feed a, Feed b)
{
   if (a.ip == 0)
      return b;
   if (b.ip == 0 || a.index || !b.index)
      return a;
   return b;
}

static Feed feed_of_reg(Int offset)
{
   Int i;
   for (i = 0; i < n_regs; i++)
      if (regs[i].offset == offset)
         return regs[i].feed;
   return no_feed;
}

static void put_reg(Int offset, Int size, Feed f)
{
   Int i, j = 0;
   for (i = 0; i < n_regs; i++)
      if (regs[i].offset + regs[i].size <= offset
          || offset + size <= regs[i].offset)
         regs[j++] = regs[i];
   n_regs = j;
   if (f.ip != 0 && n_regs < MAX_REG_FEEDS) {
      regs[n_regs].offset = offset;
      regs[n_regs].size = size;
      regs[n_regs].feed = f;
      n_regs++;
   }
}

static Feed feed_of_expr(const IRExpr* e)
{
   Feed f;
   switch (e->tag) {
   case Iex_RdTmp:
      return feeds[e->Iex.RdTmp.tmp];
   case Iex_Get:
      return feed_of_reg(e->Iex.Get.offset);
   case Iex_Unop:
      f = feed_of_atom(e->Iex.Unop.arg);
      if (f.ip != 0 && widens(e->Iex.Unop.op))
         f.index = True;
      return f;
   case Iex_Binop: {
      Feed a = feed_of_atom(e->Iex.Binop.arg1);
      Feed b = feed_of_atom(e->Iex.Binop.arg2);
      f = pick(a, b);
      if (f.ip != 0 && scales(e->Iex.Binop.op))
         f.index = True;
      return f;
   }
   case Iex_ITE:
      return pick(feed_of_atom(e->Iex.ITE.iftrue),
                  feed_of_atom(e->Iex.ITE.iffalse));
   default:
      return no_feed;   /* constants, helper calls, FP triops */
   }
}

/* An access at 'ip' to the address 'addr'. */
static void note_access(Addr ip, const IRExpr* addr)
{
   Feed f = feed_of_atom(addr);
   if (f.ip == 0 || f.ip == ip)
      return;
   UInt loc = CATS_(loc_of_addr)(ip);
   Bool found;
   UWord* slot = CATS_(map_slot)(&pair_map, loc, 1, &found);
   if (found)
      return;   /* the first translation that found one wins */
   *slot = 1;
   IndexPair p = { loc, CATS_(loc_of_addr)(f.ip) };
   VG_(addToXA)(pairs, &p);
}

static void set_tmp(IRTemp t, Feed f)
{
   if (t != IRTemp_INVALID && (Int)t < feeds_cap)
      feeds[t] = f;
}

void CATS_(index_scan)(IRSB* sbIn)
{
   Int i, n_tmps = sbIn->tyenv->types_used;
   Addr ip = 0;
   if (n_tmps > feeds_cap) {
      VG_(free)(feeds);
      feeds_cap = n_tmps * 2;
      feeds = VG_(malloc)("cats.index.feeds", feeds_cap * sizeof(Feed));
   }
   for (i = 0; i < n_tmps; i++)
      feeds[i] = no_feed;
   n_regs = 0;
   for (i = 0; i < sbIn->stmts_used; i++) {
      const IRStmt* st = sbIn->stmts[i];
      Feed loaded = { ip, False };
      switch (st->tag) {
      case Ist_IMark:
         ip = (Addr)(st->Ist.IMark.addr + st->Ist.IMark.delta);
         break;
      case Ist_WrTmp: {
         const IRExpr* e = st->Ist.WrTmp.data;
         if (e->tag == Iex_Load) {
            note_access(ip, e->Iex.Load.addr);
            set_tmp(st->Ist.WrTmp.tmp, loaded);
         } else {
            set_tmp(st->Ist.WrTmp.tmp, feed_of_expr(e));
         }
         break;
      }
      case Ist_Put: {
         const IRExpr* d = st->Ist.Put.data;
         put_reg(st->Ist.Put.offset,
                 sizeofIRType(typeOfIRExpr(sbIn->tyenv, d)),
                 feed_of_atom(d));
         break;
      }
      case Ist_PutI:
         n_regs = 0;   /* somewhere in a register array: forget all */
         break;
      case Ist_Store:
         note_access(ip, st->Ist.Store.addr);
         break;
      case Ist_LoadG:
         note_access(ip, st->Ist.LoadG.details->addr);
         set_tmp(st->Ist.LoadG.details->dst, loaded);
         break;
      case Ist_StoreG:
         note_access(ip, st->Ist.StoreG.details->addr);
         break;
      case Ist_CAS:
         note_access(ip, st->Ist.CAS.details->addr);
         set_tmp(st->Ist.CAS.details->oldLo, loaded);
         set_tmp(st->Ist.CAS.details->oldHi, loaded);
         break;
      case Ist_LLSC:
         note_access(ip, st->Ist.LLSC.addr);
         if (st->Ist.LLSC.storedata == NULL)
            set_tmp(st->Ist.LLSC.result, loaded);
         break;
      case Ist_Dirty: {
         const IRDirty* d = st->Ist.Dirty.details;
         if (d->mFx != Ifx_None)
            note_access(ip, d->mAddr);
         if (d->nFxState > 0)
            n_regs = 0;   /* the helper may write registers */
         break;
      }
      default:
         break;
      }
   }
}

UInt CATS_(n_index_pairs)(void) { return (UInt)VG_(sizeXA)(pairs); }

/* Section 10: u32 count, then (access loc, index loc) pairs sorted by
   access loc. */
void CATS_(write_index)(CatsBuf* b)
{
   Word i, n = VG_(sizeXA)(pairs);
   VG_(sortXA)(pairs);
   CATS_(put_u32)(b, (UInt)n);
   for (i = 0; i < n; i++) {
      const IndexPair* p = VG_(indexXA)(pairs, i);
      CATS_(put_u32)(b, p->access_loc);
      CATS_(put_u32)(b, p->index_loc);
   }
}
