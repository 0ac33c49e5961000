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

void CATS_(map_init)(CatsMap* m, const HChar* cc)
{
   m->cap  = 1024;
   m->used = 0;
   m->cc   = cc;
   m->k1   = VG_(calloc)(cc, m->cap, sizeof(ULong));
   m->k2   = VG_(calloc)(cc, m->cap, sizeof(ULong));
   m->val  = VG_(calloc)(cc, m->cap, sizeof(UWord));
}

static void map_grow(CatsMap* m)
{
   CatsMap n;
   UWord i;
   n.cap  = m->cap * 2;
   n.used = 0;
   n.cc   = m->cc;
   n.k1   = VG_(calloc)(m->cc, n.cap, sizeof(ULong));
   n.k2   = VG_(calloc)(m->cc, n.cap, sizeof(ULong));
   n.val  = VG_(calloc)(m->cc, n.cap, sizeof(UWord));
   for (i = 0; i < m->cap; i++) {
      if (m->k1[i] == 0 && m->k2[i] == 0)
         continue;
      Bool found;
      *CATS_(map_slot)(&n, m->k1[i], m->k2[i], &found) = m->val[i];
   }
   VG_(free)(m->k1);
   VG_(free)(m->k2);
   VG_(free)(m->val);
   *m = n;
}

UWord* CATS_(map_slot)(CatsMap* m, ULong k1, ULong k2, Bool* found)
{
   tl_assert(k1 != 0 || k2 != 0);
   if (2 * (m->used + 1) > m->cap)
      map_grow(m);
   UWord mask = m->cap - 1;
   UWord i = mix(k1, k2) & mask;
   while (m->k1[i] != 0 || m->k2[i] != 0) {
      if (m->k1[i] == k1 && m->k2[i] == k2) {
         *found = True;
         return &m->val[i];
      }
      i = (i + 1) & mask;
   }
   m->k1[i] = k1;
   m->k2[i] = k2;
   m->val[i] = 0;
   m->used++;
   *found = False;
   return &m->val[i];
}

UWord* CATS_(map_find)(CatsMap* m, ULong k1, ULong k2)
{
   UWord mask = m->cap - 1;
   UWord i = mix(k1, k2) & mask;
   while (m->k1[i] != 0 || m->k2[i] != 0) {
      if (m->k1[i] == k1 && m->k2[i] == k2)
         return &m->val[i];
      i = (i + 1) & mask;
   }
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

void CATS_(patch_u32)(CatsBuf* b, SizeT at, UInt v)
{
   Int i;
   tl_assert(at + 4 <= b->len);
   for (i = 0; i < 4; i++)
      b->data[at + i] = (UChar)(v >> (8 * i));
}
