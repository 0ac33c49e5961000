/* SPDX-License-Identifier: GPL-2.0-or-later */
/* vcg_edge_sort.c: the finished graph's edges in (src, dst, ctx) order
 * (see vcg_edge_sort.h). */
#include "vcg_edge_sort.h"

#include <pthread.h>
#include <string.h>

/* Sorting the finished edges by (src, dst, ctx), keys that are unique,
 * in place: at the end of a run on a large graph the edges are most of
 * the builder's memory, and a sort through a (key, index) array cost 12
 * more bytes per edge, the run's peak. An MSD radix sort on src * nv +
 * dst (2 log2(nv) bits), up to 11 bits at a time, with each bucket's
 * elements swapped into place (American flag sort), takes two or three
 * passes over the edges; buckets of a few edges, and edges left with equal
 * (src, dst), are finished by comparison. */
#define VCG_EDGE_SORT_BITS 11
#define VCG_EDGE_SORT_BUCKETS (1u << VCG_EDGE_SORT_BITS)
#define VCG_EDGE_SORT_SMALL 24u

static uint64_t edge_key(uint64_t nv, const vcg_edge *e)
{
   return e->src * nv + e->dst;
}

static int edge_less(uint64_t nv, const vcg_edge *a,
                     const vcg_edge *b)
{
   uint64_t ka = edge_key(nv, a), kb = edge_key(nv, b);
   return ka != kb ? ka < kb : a->ctx < b->ctx;
}

static void sift_down(uint64_t nv, vcg_edge *e, size_t root,
                      size_t n)
{
   for (;;) {
      size_t c = 2 * root + 1;
      if (c >= n)
         return;
      if (c + 1 < n && edge_less(nv, &e[c], &e[c + 1]))
         c++;
      if (!edge_less(nv, &e[root], &e[c]))
         return;
      vcg_edge t = e[root];
      e[root] = e[c];
      e[c] = t;
      root = c;
   }
}

/* Insertion sort for a few edges, heapsort (no worst case, no memory)
 * for more. */
static void sort_by_comparison(uint64_t nv, vcg_edge *e, size_t n)
{
   if (n <= VCG_EDGE_SORT_SMALL) {
      for (size_t i = 1; i < n; i++) {
         vcg_edge x = e[i];
         size_t j = i;
         for (; j > 0 && edge_less(nv, &x, &e[j - 1]); j--)
            e[j] = e[j - 1];
         e[j] = x;
      }
      return;
   }
   for (size_t i = n / 2; i-- > 0;)
      sift_down(nv, e, i, n);
   for (size_t i = n; i-- > 1;) {
      vcg_edge t = e[0];
      e[0] = e[i];
      e[i] = t;
      sift_down(nv, e, 0, i);
   }
}

/* Digit width for n edges: about n / 8 buckets, so that a bucket's
 * counts cost less than its edges. */
static unsigned digit_bits(size_t n)
{
   unsigned bits = 4;
   while (bits < VCG_EDGE_SORT_BITS && ((size_t)8 << bits) < n)
      bits++;
   return bits;
}

/* Moves e[0..n) into nb buckets of the digit at `shift`, in place; bucket
 * d is then e[start[d]..start[d + 1]). */
static void distribute(uint64_t nv, vcg_edge *e, size_t n, unsigned shift,
                       unsigned nb, size_t *start)
{
   const uint64_t mask = nb - 1;
   size_t next[VCG_EDGE_SORT_BUCKETS];
   memset(start, 0, (nb + 1) * sizeof *start);
   for (size_t i = 0; i < n; i++)
      start[((edge_key(nv, &e[i]) >> shift) & mask) + 1]++;
   for (unsigned d = 0; d < nb; d++) {
      start[d + 1] += start[d];
      next[d] = start[d];
   }
   for (unsigned d = 0; d < nb; d++) {
      while (next[d] < start[d + 1]) {
         vcg_edge x = e[next[d]];
         unsigned k = (unsigned)((edge_key(nv, &x) >> shift) & mask);
         while (k != d) {
            vcg_edge t = e[next[k]];
            e[next[k]++] = x;
            x = t;
            k = (unsigned)((edge_key(nv, &x) >> shift) & mask);
         }
         e[next[d]++] = x;
      }
   }
}

/* Sort e[0..n), whose keys agree at bit `hi` and above (hi = 0: they are
 * equal). */
static void sort_edges_from(uint64_t nv, vcg_edge *e, size_t n,
                            unsigned hi)
{
   if (n <= VCG_EDGE_SORT_SMALL || hi == 0) {
      sort_by_comparison(nv, e, n);
      return;
   }
   unsigned bits = digit_bits(n);
   unsigned shift = hi > bits ? hi - bits : 0;
   unsigned nb = 1u << bits;
   size_t start[VCG_EDGE_SORT_BUCKETS + 1];
   distribute(nv, e, n, shift, nb, start);
   for (unsigned d = 0; d < nb; d++)
      if (start[d + 1] - start[d] > 1)
         sort_edges_from(nv, e + start[d], start[d + 1] - start[d], shift);
}

/* The buckets of the first digit, [first, last), sorted on a thread of
 * their own. */
typedef struct vcg_edge_sort_part {
   uint64_t nv;
   vcg_edge *e;
   const size_t *start;
   unsigned first, last, shift;
} vcg_edge_sort_part;

static void *sort_part(void *arg)
{
   const vcg_edge_sort_part *p = arg;
   for (unsigned d = p->first; d < p->last; d++)
      if (p->start[d + 1] - p->start[d] > 1)
         sort_edges_from(p->nv, p->e + p->start[d],
                         p->start[d + 1] - p->start[d], p->shift);
   return NULL;
}

void vcg_edge_sort(vcg_edge *e, size_t n, uint32_t nv)
{
   uint64_t top = nv ? (uint64_t)nv * nv - 1 : 0;
   unsigned hi = 0;   /* bits the keys use */
   while (hi < 64 && (top >> hi) != 0)
      hi++;
   if (n < VCG_EDGE_SORT_PARALLEL_ABOVE || hi <= VCG_EDGE_SORT_BITS) {
      sort_edges_from(nv, e, n, hi);
      return;
   }
   /* The first digit here; its buckets' sorts, two thirds of the work,
    * in two halves of about equal edges on two threads (the guest waits
    * for this, and its core is free). */
   unsigned shift = hi - VCG_EDGE_SORT_BITS;
   size_t start[VCG_EDGE_SORT_BUCKETS + 1];
   distribute(nv, e, n, shift, VCG_EDGE_SORT_BUCKETS, start);
   unsigned mid = 0;
   while (mid < VCG_EDGE_SORT_BUCKETS && start[mid + 1] <= n / 2)
      mid++;
   vcg_edge_sort_part lo = { nv, e, start, 0, mid, shift };
   vcg_edge_sort_part up = { nv, e, start, mid, VCG_EDGE_SORT_BUCKETS, shift };
   pthread_t th;
   int threaded = pthread_create(&th, NULL, sort_part, &up) == 0;
   sort_part(&lo);
   if (threaded)
      pthread_join(th, NULL);
   else
      sort_part(&up);
}

