/* SPDX-License-Identifier: GPL-2.0-or-later */
/*--------------------------------------------------------------------*/
/*--- cats: a hash map and a byte buffer.              cats_util.c ---*/
/*--------------------------------------------------------------------*/
/* Valgrind's VgHashTable keys on one word; the tool needs composite keys
   (context, site, container) on its hot path, so it has its own
   open-addressing map with linear probing. */

#include "cats_tool.h"

static inline UWord mix(ULong k1, ULong k2)
{
   ULong h = k1 * 0x9E3779B97F4A7C15ULL ^ (k2 + 0x632BE59BD9B4E019ULL);
   h ^= h >> 29;
   h *= 0xBF58476D1CE4E5B9ULL;
   h ^= h >> 32;
   return (UWord)h;
}

void CATS_(tagmap_init)(CatsTagMap* m, const HChar* cc)
{
   m->cap   = 1024;
   m->used  = 0;
   m->cc    = cc;
   m->slots = VG_(calloc)(cc, m->cap, sizeof(CatsTagSlot));
}

void CATS_(tagmap_free)(CatsTagMap* m)
{
   VG_(free)(m->slots);
   m->slots = NULL;
   m->cap = m->used = 0;
}

void CATS_(tagmap_grow)(CatsTagMap* m)
{
   CatsTagSlot* old = m->slots;
   UWord i, n = m->cap;
   m->cap = n + n / 2;
   m->slots = VG_(calloc)(m->cc, m->cap, sizeof(CatsTagSlot));
   for (i = 0; i < n; i++) {
      if (old[i].num1 == 0)
         continue;
      UWord j = CATS_(tagmap_home)(m->cap, old[i].tag);
      while (m->slots[j].num1 != 0)
         j = j + 1 == m->cap ? 0 : j + 1;
      m->slots[j] = old[i];
   }
   VG_(free)(old);
}

void CATS_(map_init)(CatsMap* m, const HChar* cc)
{
   m->cap   = 1024;
   m->used  = 0;
   m->cc    = cc;
   m->slots = VG_(calloc)(cc, m->cap, sizeof(CatsMapSlot));
}

static void map_grow(CatsMap* m)
{
   CatsMap n;
   UWord i;
   n.cap   = m->cap * 2;
   n.used  = 0;
   n.cc    = m->cc;
   n.slots = VG_(calloc)(m->cc, n.cap, sizeof(CatsMapSlot));
   for (i = 0; i < m->cap; i++) {
      const CatsMapSlot* s = &m->slots[i];
      if (s->k1 == 0 && s->k2 == 0)
         continue;
      Bool found;
      *CATS_(map_slot)(&n, s->k1, s->k2, &found) = s->val;
   }
   VG_(free)(m->slots);
   *m = n;
}

UWord* CATS_(map_slot)(CatsMap* m, ULong k1, ULong k2, Bool* found)
{
   tl_assert(k1 != 0 || k2 != 0);
   if (2 * (m->used + 1) > m->cap)
      map_grow(m);
   UWord mask = m->cap - 1;
   UWord i = mix(k1, k2) & mask;
   CatsMapSlot* s;
   for (s = &m->slots[i]; s->k1 != 0 || s->k2 != 0;
        i = (i + 1) & mask, s = &m->slots[i]) {
      if (s->k1 == k1 && s->k2 == k2) {
         *found = True;
         return &s->val;
      }
   }
   s->k1 = k1;
   s->k2 = k2;
   s->val = 0;
   m->used++;
   *found = False;
   return &s->val;
}

UWord* CATS_(map_find)(CatsMap* m, ULong k1, ULong k2)
{
   UWord mask = m->cap - 1;
   UWord i = mix(k1, k2) & mask;
   CatsMapSlot* s;
   for (s = &m->slots[i]; s->k1 != 0 || s->k2 != 0;
        i = (i + 1) & mask, s = &m->slots[i])
      if (s->k1 == k1 && s->k2 == k2)
         return &s->val;
   return NULL;
}

/*------------------------------------------------------------*/
/*--- Byte buffer                                          ---*/
/*------------------------------------------------------------*/

void CATS_(buf_init)(CatsBuf* b)
{
   b->cap  = 4096;
   b->len  = 0;
   b->data = VG_(malloc)("cats.buf", b->cap);
}

void CATS_(buf_free)(CatsBuf* b)
{
   VG_(free)(b->data);
   b->data = NULL;
   b->len = b->cap = 0;
}

static void buf_reserve(CatsBuf* b, SizeT n)
{
   if (b->len + n <= b->cap)
      return;
   while (b->len + n > b->cap)
      b->cap *= 2;
   b->data = VG_(realloc)("cats.buf", b->data, b->cap);
}

UChar* CATS_(buf_room)(CatsBuf* b, SizeT n)
{
   buf_reserve(b, n);
   UChar* p = b->data + b->len;
   b->len += n;
   return p;
}

void CATS_(put_bytes)(CatsBuf* b, const void* p, SizeT n)
{
   buf_reserve(b, n);
   VG_(memcpy)(b->data + b->len, p, n);
   b->len += n;
}

void CATS_(put_u8)(CatsBuf* b, UInt v)
{
   buf_reserve(b, 1);
   b->data[b->len++] = (UChar)v;
}

void CATS_(put_u16)(CatsBuf* b, UInt v)
{
   CATS_(put_u8)(b, v & 0xFF);
   CATS_(put_u8)(b, (v >> 8) & 0xFF);
}

void CATS_(put_u32)(CatsBuf* b, UInt v)
{
   Int i;
   buf_reserve(b, 4);
   for (i = 0; i < 4; i++)
      b->data[b->len++] = (UChar)(v >> (8 * i));
}

void CATS_(put_u64)(CatsBuf* b, ULong v)
{
   Int i;
   buf_reserve(b, 8);
   for (i = 0; i < 8; i++)
      b->data[b->len++] = (UChar)(v >> (8 * i));
}

/* LEB128: seven bits a byte, the lowest first; a set high bit says
   another byte follows. Most fields of a folded record are small. */
void CATS_(put_uvar)(CatsBuf* b, ULong v)
{
   buf_reserve(b, 10);
   while (v >= 0x80) {
      b->data[b->len++] = (UChar)(v | 0x80);
      v >>= 7;
   }
   b->data[b->len++] = (UChar)v;
}

/* Signed: zigzag first (0, -1, 1, -2 ... -> 0, 1, 2, 3 ...), so that a
   small negative offset is as short as a small positive one. */
void CATS_(put_svar)(CatsBuf* b, Long v)
{
   CATS_(put_uvar)(b, ((ULong)v << 1) ^ (ULong)(v >> 63));
}

void CATS_(patch_u32)(CatsBuf* b, SizeT at, UInt v)
{
   Int i;
   tl_assert(at + 4 <= b->len);
   for (i = 0; i < 4; i++)
      b->data[at + i] = (UChar)(v >> (8 * i));
}
