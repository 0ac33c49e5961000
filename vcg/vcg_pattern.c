/* SPDX-License-Identifier: GPL-2.0-or-later */
/* vcg_pattern.c: interned source lists (see vcg_pattern.h). */
#include "vcg_pattern.h"

#include <stdlib.h>
#include <string.h>

static uint64_t list_hash(const uint32_t *d, uint32_t n)
{
   uint64_t h = vcg_mix64(n);
   for (uint32_t k = 0; k < n; k++)
      h = vcg_mix64(h ^ d[k]);
   return h;
}

static uint64_t hash_at(const void *ctx, uint32_t name)
{
   const uint32_t *w = ((const vcg_pattern_pool *)ctx)->w + name;
   return list_hash(w + 1, w[0]);
}

static int cmp_u32(const void *a, const void *b)
{
   uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
   return (x > y) - (x < y);
}

/* Most lists are short (a stencil's 27): insertion sort, else qsort. */
static void sort_list(uint32_t *d, uint32_t n)
{
   if (n > 32) {
      qsort(d, n, sizeof *d, cmp_u32);
      return;
   }
   for (uint32_t i = 1; i < n; i++) {
      uint32_t x = d[i], j = i;
      for (; j > 0 && d[j - 1] > x; j--)
         d[j] = d[j - 1];
      d[j] = x;
   }
}

/* d[0..n) sorted: VCG_PATTERN_TWICE (and the repeat in *name) if it
 * names a difference twice. */
static vcg_pattern_status sort_checked(uint32_t *d, uint32_t n, uint32_t *name)
{
   sort_list(d, n);
   for (uint32_t k = 1; k < n; k++)
      if (d[k] == d[k - 1]) {
         *name = d[k];
         return VCG_PATTERN_TWICE;
      }
   return VCG_PATTERN_OK;
}

/* d[0..n) appended as a new list at index slot pos. */
static vcg_pattern_status append(vcg_pattern_pool *p, const uint32_t *d, uint32_t n,
                                 uint32_t pos, uint32_t *name)
{
   /* Names are offsets below VCG_INDEX_EMPTY. */
   size_t need = p->len + 1 + (size_t)n;
   if (need >= VCG_INDEX_EMPTY)
      return VCG_PATTERN_ENOMEM;
   if (need > p->cap) {
      size_t nc = p->cap + p->cap / 4 + 1024;
      if (nc < need)
         nc = need;
      uint32_t *w = realloc(p->w, nc * sizeof *w);
      if (!w)
         return VCG_PATTERN_ENOMEM;
      p->w = w;
      p->cap = nc;
   }
   uint32_t at = (uint32_t)p->len;
   p->w[at] = n;
   if (n)
      memcpy(p->w + at + 1, d, (size_t)n * sizeof *d);
   p->len = need;
   vcg_index_put(&p->index, pos, at);
   p->last = at;
   *name = at;
   return VCG_PATTERN_OK;
}

/* The name of the sorted list d[0..n), kept if new. */
static vcg_pattern_status find_or_append(vcg_pattern_pool *p, const uint32_t *d, uint32_t n,
                                         uint32_t *name)
{
   /* The list interned last: a loop's next element (no hash, no probe). */
   if (p->len && p->w[p->last] == n &&
       (n == 0 || memcmp(p->w + p->last + 1, d, (size_t)n * sizeof *d) == 0)) {
      *name = p->last;
      return VCG_PATTERN_OK;
   }
   if (vcg_index_reserve(&p->index, hash_at, p) != 0)
      return VCG_PATTERN_ENOMEM;
   uint32_t pos = vcg_index_first(&p->index, list_hash(d, n));
   for (;; pos = vcg_index_next(&p->index, pos)) {
      uint32_t at = p->index.slot[pos];
      if (at == VCG_INDEX_EMPTY)
         break;
      if (p->w[at] == n && (n == 0 || memcmp(p->w + at + 1, d, (size_t)n * sizeof *d) == 0)) {
         *name = p->last = at;
         return VCG_PATTERN_OK;
      }
   }
   return append(p, d, n, pos, name);
}

vcg_pattern_status vcg_pattern_intern(vcg_pattern_pool *p, uint32_t *d, uint32_t n,
                                      uint32_t *name)
{
   vcg_pattern_status st = sort_checked(d, n, name);
   return st != VCG_PATTERN_OK ? st : find_or_append(p, d, n, name);
}

vcg_pattern_status vcg_pattern_copy(vcg_pattern_pool *to, const vcg_pattern_pool *from,
                                    uint32_t list, uint32_t *name)
{
   const uint32_t *w = from->w + list;
   return find_or_append(to, w + 1, w[0], name);
}

size_t vcg_pattern_bytes(const vcg_pattern_pool *p)
{
   return p->cap * sizeof *p->w + vcg_index_bytes(&p->index);
}

void vcg_pattern_free(vcg_pattern_pool *p)
{
   free(p->w);
   vcg_index_free(&p->index);
   memset(p, 0, sizeof *p);
}
