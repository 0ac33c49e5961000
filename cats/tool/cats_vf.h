/*--------------------------------------------------------------------*/
/*--- cats: value-flow shadow memory, inline part.        cats_vf.h ---*/
/*--------------------------------------------------------------------*/
/* The lookup of a word's provenance is on the path of every load and
   store, so its common case is inline; cats_vf_shadow.c has the rest. */
#ifndef CATS_VF_H
#define CATS_VF_H

#define VF_SM_BITS 16                     /* a secondary map: 64 KiB */
#define VF_SM_SPAN ((Addr)1 << VF_SM_BITS)
#define VF_PM_SIZE ((UWord)1 << 22)       /* primary: below 2^38 */

typedef struct {
   Addr  base;
   UInt  seq;        /* 0 until the chunk's first vertex */
   UInt* p;          /* provenance per word */
   UInt* vs;         /* per word: version, source signature */
} VfSecMap;

extern VfSecMap** CATS_(vf_primary);
extern UInt       CATS_(vf_wshift);   /* log2 of the word size */
VfSecMap* CATS_(vf_map_slow)(Addr a);
void CATS_(vf_copy_range)(Addr dst, Addr src, SizeT len);
/* Gives a chunk its sequence number and version table. */
void CATS_(vf_map_vertices)(VfSecMap* m);

static inline VfSecMap* CATS_(vf_map)(Addr a)
{
   UWord chunk = a >> VF_SM_BITS;
   if (LIKELY(chunk < VF_PM_SIZE)) {
      VfSecMap* m = CATS_(vf_primary)[chunk];
      if (LIKELY(m != NULL))
         return m;
   }
   return CATS_(vf_map_slow)(a);
}

static inline UInt* CATS_(vf_p_slot)(Addr a)
{
   VfSecMap* m = CATS_(vf_map)(a);
   return &m->p[(a & (VF_SM_SPAN - 1)) >> CATS_(vf_wshift)];
}

#endif /* CATS_VF_H */
