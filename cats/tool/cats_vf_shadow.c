/* SPDX-License-Identifier: GPL-2.0-or-later */
/*--------------------------------------------------------------------*/
/*--- cats: value-flow shadow memory.               cats_vf_shadow.c ---*/
/*--------------------------------------------------------------------*/
/* Every word of guest memory (8 bytes, or 4 with --vf-granularity=4)
   has a provenance P (see cats_tool.h). Words where a value was ever
   created are also vertices of the value communication graph: they
   keep a version count and the signature of the sources of their last
   version, so that a version computed from the same sources as the one
   before it costs no message to the helper.

   Two levels, as in memcheck: a primary table indexed by the address's
   64 KiB chunk (below 2^38, which covers the heap, the mappings and the
   stack) points at secondary maps; chunks above it are found through a
   hash map. The primary table is reserved with zero pages, so only the
   entries of touched chunks cost memory. A vertex's id is derived from
   its secondary map's sequence number and its word: no table maps ids
   to addresses. */

#include "cats_tool.h"
#include "cats_vf.h"
#include "pub_tool_aspacemgr.h"

VfSecMap** CATS_(vf_primary);
UInt       CATS_(vf_wshift);

static CatsMap high_maps;     /* chunk number -> VfSecMap*, above 2^38 */
static XArray* by_seq;        /* of VfSecMap*, by seq - 1 */
static UInt    words_per_map;

void CATS_(vf_shadow_init)(void)
{
   CATS_(vf_wshift) = CATS_(clo_vf_granularity) == 4 ? 2 : 3;
   words_per_map = 1u << (VF_SM_BITS - CATS_(vf_wshift));
   CATS_(vf_primary) = VG_(am_shadow_alloc)(VF_PM_SIZE * sizeof(VfSecMap*));
   if (CATS_(vf_primary) == NULL)
      VG_(tool_panic)("cats: cannot reserve the value-flow shadow table");
   CATS_(map_init)(&high_maps, "cats.vf.high");
   by_seq = VG_(newXA)(VG_(malloc), "cats.vf.seq", VG_(free),
                       sizeof(VfSecMap*));
}

static VfSecMap* new_map(Addr base)
{
   VfSecMap* m = VG_(calloc)("cats.vf.sm", 1, sizeof(VfSecMap)
                             + words_per_map * sizeof(UInt));
   m->base = base;
   return m;
}

VfSecMap* CATS_(vf_map_slow)(Addr a)
{
   UWord chunk = a >> VF_SM_BITS;
   if (chunk < VF_PM_SIZE) {
      VfSecMap* m = new_map(chunk << VF_SM_BITS);
      CATS_(vf_primary)[chunk] = m;
      return m;
   }
   Bool found;
   UWord* slot = CATS_(map_slot)(&high_maps, chunk, 1, &found);
   if (!found)
      *slot = (UWord)new_map(chunk << VF_SM_BITS);
   return (VfSecMap*)*slot;
}

void CATS_(vf_map_vertices)(VfSecMap* m)
{
   m->vs = VG_(calloc)("cats.vf.smvs", 2 * words_per_map, sizeof(UInt));
   VG_(addToXA)(by_seq, &m);
   m->seq = (UInt)VG_(sizeXA)(by_seq);
   if (((ULong)m->seq << (VF_SM_BITS - CATS_(vf_wshift))) >= VF_REG_BIT)
      VG_(tool_panic)("cats: value flow: too much memory with values");
}

UInt CATS_(vf_word_vertex)(Addr a, UInt** ver, UInt** sig)
{
   VfSecMap* m = CATS_(vf_map)(a);
   if (m->seq == 0)
      CATS_(vf_map_vertices)(m);
   UInt w = CATS_(vf_word)(a, CATS_(vf_wshift));
   *ver = &m->vs[2 * w];
   *sig = &m->vs[2 * w + 1];
   return (m->seq << (VF_SM_BITS - CATS_(vf_wshift))) | w;
}

UInt* CATS_(vf_first_sig_slot)(UInt id)
{
   UInt sh = VF_SM_BITS - CATS_(vf_wshift);
   VfSecMap* m = *(VfSecMap**)VG_(indexXA)(by_seq, (id >> sh) - 1);
   if (m->sig0 == NULL)
      m->sig0 = VG_(calloc)("cats.vf.smsig0", words_per_map, sizeof(UInt));
   return &m->sig0[id & (words_per_map - 1)];
}

UInt CATS_(vf_vertex_words)(void)
{
   return (UInt)VG_(sizeXA)(by_seq) * words_per_map;
}

void CATS_(vf_for_each_vertex)(VfWordFn fn, void* opaque)
{
   Word i, n = VG_(sizeXA)(by_seq);
   for (i = 0; i < n; i++) {
      const VfSecMap* m = *(VfSecMap**)VG_(indexXA)(by_seq, i);
      UInt w;
      for (w = 0; w < words_per_map; w++) {
         UInt ver = m->vs[2 * w];
         if (ver == 0)
            continue;
         UInt id = (m->seq << (VF_SM_BITS - CATS_(vf_wshift))) | w;
         fn(id, ver, m->base + ((Addr)w << CATS_(vf_wshift)), m->p[w] == id,
            opaque);
      }
   }
}

void CATS_(vf_clear_range)(Addr a, SizeT len)
{
   Addr w = a & ~(((Addr)1 << CATS_(vf_wshift)) - 1), end = a + len;
   for (; w < end; w += (Addr)1 << CATS_(vf_wshift)) {
      /* Whole untouched chunks stay untouched. */
      UWord chunk = w >> VF_SM_BITS;
      if (chunk < VF_PM_SIZE ? CATS_(vf_primary)[chunk] == NULL
                             : CATS_(map_find)(&high_maps, chunk, 1) == NULL) {
         w = ((chunk + 1) << VF_SM_BITS) - ((Addr)1 << CATS_(vf_wshift));
         continue;
      }
      VfSecMap* m = CATS_(vf_map)(w);
      UInt i = CATS_(vf_word)(w, CATS_(vf_wshift));
      m->p[i] = 0;
      if (m->wctx != NULL)
         m->wctx[i] = 0;
   }
}

void CATS_(vf_copy_range)(Addr dst, Addr src, SizeT len)
{
   SizeT k, step = (SizeT)1 << CATS_(vf_wshift);
   for (k = 0; k < len; k += step) {
      VfSecMap* ms = CATS_(vf_map)(src + k);
      VfSecMap* md = CATS_(vf_map)(dst + k);
      UInt ws = CATS_(vf_word)(src + k, CATS_(vf_wshift));
      UInt wd = CATS_(vf_word)(dst + k, CATS_(vf_wshift));
      md->p[wd] = ms->p[ws];
      /* The values keep the context that stored them. */
      if (ms->wctx != NULL || md->wctx != NULL) {
         if (md->wctx == NULL)
            CATS_(vf_map_wctx)(md);
         md->wctx[wd] = ms->wctx != NULL ? ms->wctx[ws] : 0;
      }
   }
}
