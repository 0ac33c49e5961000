/* SPDX-License-Identifier: GPL-2.0-or-later */
/*--------------------------------------------------------------------*/
/*--- cats: dependencies between contexts.           cats_vf_deps.c ---*/
/*--------------------------------------------------------------------*/
/* C.A.T.S.'s data-dependency view asks, for each pair of control-flow
   nodes, how much of what one stored the other read: the version
   actually read, so that a time step's sweep reads its own previous
   step and a halo copy reads the sweep, not the loop that first
   initialised the array. With value flow on, the shadow maps keep per
   word the context of its last store (cats_vf.h marks it on every
   store hook); each load counts a read, at its site, of (the marking
   context, the record it goes into). A site's count stays in the site
   while both stay the same, so the common case is a compare and an
   increment; a change moves it into the table here. Records are keyed
   (from context, to context, container) and written as section 11. */

#include "cats_tool.h"
#include "cats_access.h"
#include "cats_vf.h"

typedef struct {
   UInt  from, to, alloc;
   ULong uses, bytes;
} DepRec;

static XArray* recs;         /* of DepRec */
static CatsMap rec_map;      /* (from << 32 | to, alloc + 1) -> index + 1 */
static XArray* sites;        /* of Site*: those with a count to flush */

void CATS_(vf_map_wctx)(VfSecMap* m)
{
   m->wctx = VG_(calloc)("cats.vf.wctx",
                         (SizeT)1 << (VF_SM_BITS - CATS_(vf_wshift)),
                         sizeof(UInt));
}

static void add(UInt from, UInt to, UInt alloc, ULong uses, ULong bytes)
{
   if (recs == NULL) {
      recs = VG_(newXA)(VG_(malloc), "cats.deps", VG_(free), sizeof(DepRec));
      CATS_(map_init)(&rec_map, "cats.depmap");
   }
   Bool found;
   UWord* slot = CATS_(map_slot)(&rec_map, (ULong)from << 32 | to,
                                 (ULong)alloc + 1, &found);
   if (!found) {
      DepRec r = { from, to, alloc, 0, 0 };
      *slot = (UWord)VG_(addToXA)(recs, &r) + 1;
   }
   DepRec* r = VG_(indexXA)(recs, (Word)*slot - 1);
   r->uses += uses;
   r->bytes += bytes;
}

static void flush(Site* s)
{
   if (s->dep_n > 0)
      add(s->dep_from - 1, s->dep_ev->ctx, s->dep_ev->alloc, s->dep_n,
          s->dep_bytes);
   s->dep_n = s->dep_bytes = 0;
}

/* The record s counts reads into is leaving memory (cats_spill.c). */
void CATS_(vf_dep_forget)(Site* s)
{
   flush(s);
   s->dep_ev = NULL;
}

void CATS_(vf_dep_switch)(Site* s, Event* e, UInt from, UInt bytes)
{
   if (!s->dep_listed) {
      if (sites == NULL)
         sites = VG_(newXA)(VG_(malloc), "cats.depsites", VG_(free),
                            sizeof(Site*));
      VG_(addToXA)(sites, &s);
      s->dep_listed = True;
   }
   flush(s);
   s->dep_ev = e;
   s->dep_from = from;
   s->dep_n = 1;
   s->dep_bytes = bytes;
}

static Int cmp_rec(const void* pa, const void* pb)
{
   const DepRec* a = pa;
   const DepRec* b = pb;
   if (a->from != b->from)
      return a->from < b->from ? -1 : 1;
   if (a->to != b->to)
      return a->to < b->to ? -1 : 1;
   return a->alloc < b->alloc ? -1 : a->alloc > b->alloc ? 1 : 0;
}

static UInt n_written;

/* Before the access records are written (and freed, at the end). */
void CATS_(vf_write_deps)(CatsBuf* b)
{
   Word i, n = sites ? VG_(sizeXA)(sites) : 0;
   for (i = 0; i < n; i++)
      flush(*(Site**)VG_(indexXA)(sites, i));
   n = recs ? VG_(sizeXA)(recs) : 0;
   /* In the written trace's container ids (a renumbering of those
      written, so keys stay unique), sorted by key. */
   XArray* out = VG_(newXA)(VG_(malloc), "cats.depout", VG_(free),
                            sizeof(DepRec));
   for (i = 0; i < n; i++) {
      DepRec r = *(DepRec*)VG_(indexXA)(recs, i);
      r.alloc = CATS_(alloc_out_id)(r.alloc);
      if (r.alloc != CATS_NONE && r.from != CATS_NONE && r.to != CATS_NONE)
         VG_(addToXA)(out, &r);
   }
   VG_(setCmpFnXA)(out, cmp_rec);
   VG_(sortXA)(out);
   Word m = VG_(sizeXA)(out);
   n_written = (UInt)m;
   CATS_(put_u32)(b, n_written);
   for (i = 0; i < m; i++) {
      const DepRec* r = VG_(indexXA)(out, i);
      CATS_(put_u32)(b, r->from);
      CATS_(put_u32)(b, r->to);
      CATS_(put_u32)(b, r->alloc);
      CATS_(put_u32)(b, 0);
      CATS_(put_u64)(b, r->uses);
      CATS_(put_u64)(b, r->bytes);
   }
   VG_(deleteXA)(out);
}

UInt CATS_(vf_n_deps)(void)
{
   return n_written;
}
