/* SPDX-License-Identifier: GPL-2.0-or-later */
/* vcg_sort.c: LSD radix sort, 16-bit digits (see vcg_sort.h). */
#include "vcg_sort.h"

#include <stdlib.h>
#include <string.h>

#define VCG_SORT_BITS 16
#define VCG_SORT_BUCKETS ((size_t)1 << VCG_SORT_BITS)

int vcg_sort(uint64_t *key, uint32_t *val, size_t n)
{
   if (n < 2)
      return 0;
   uint64_t *k2 = malloc(n * sizeof *k2);
   uint32_t *v2 = malloc(n * sizeof *v2);
   size_t *count = malloc(VCG_SORT_BUCKETS * sizeof *count);
   if (!k2 || !v2 || !count) {
      free(k2);
      free(v2);
      free(count);
      return -1;
   }
   uint64_t *ks = key, *kd = k2;
   uint32_t *vs = val, *vd = v2;
   for (unsigned shift = 0; shift < 64; shift += VCG_SORT_BITS) {
      memset(count, 0, VCG_SORT_BUCKETS * sizeof *count);
      for (size_t i = 0; i < n; i++)
         count[(ks[i] >> shift) & (VCG_SORT_BUCKETS - 1)]++;
      /* A digit that is the same everywhere orders nothing. */
      if (count[(ks[0] >> shift) & (VCG_SORT_BUCKETS - 1)] == n)
         continue;
      size_t sum = 0;
      for (size_t b = 0; b < VCG_SORT_BUCKETS; b++) {
         size_t c = count[b];
         count[b] = sum;
         sum += c;
      }
      for (size_t i = 0; i < n; i++) {
         size_t at = count[(ks[i] >> shift) & (VCG_SORT_BUCKETS - 1)]++;
         kd[at] = ks[i];
         vd[at] = vs[i];
      }
      uint64_t *tk = ks;
      ks = kd;
      kd = tk;
      uint32_t *tv = vs;
      vs = vd;
      vd = tv;
   }
   if (ks != key) {
      memcpy(key, ks, n * sizeof *key);
      memcpy(val, vs, n * sizeof *val);
   }
   free(k2);
   free(v2);
   free(count);
   return 0;
}
