/* SPDX-License-Identifier: GPL-2.0-or-later */
/*--------------------------------------------------------------------*/
/*--- cats: reuse distances of cache lines.            cats_reuse.c ---*/
/*--------------------------------------------------------------------*/
/* The reuse (LRU stack) distance of an access is the number of distinct
   64-byte lines touched since the previous access to its line; the
   first access to a line is cold. A fully associative LRU cache of C
   lines hits exactly the accesses whose distance is below C, so one
   histogram per access record gives the misses of every cache size at
   once (docs/FORMAT.md, section 9).

   Sampling. Exact distances for every access would cost more than the
   rest of the tool. As in SHARDS (Waldspurger et al., FAST 2015) only a
   spatial sample of lines is tracked: a line is in the sample when the
   top log2(N) bits of a fixed multiplicative hash of its number are 0,
   a test made inline on the access path (cats_tool.h). Distances among
   the sampled lines are exact and scaled by N, and each sampled access
   counts N in its histogram; the other lines cost the hash test alone.
   The hash is fixed, so runs are reproducible.

   Data structure. The MRU_SIZE most recently used lines are a small
   list, most recent first: an access to one of them (a run on one line,
   a few interleaved streams) has its position as distance and costs a
   few compares. The older lines keep the timestamp of their last access
   in a hash table, and a Fenwick tree over timestamps holds a 1 at each
   of their timestamps, so the distance of an access to one of them is
   the number of marks after its timestamp plus the MRU lines: one
   prefix sum, O(log T). The line then joins the list, and the list's
   oldest line leaves it for the tree with the next timestamp (lines
   leave the list in the order of their last use, so the tree's order
   stays the LRU order). When the clock reaches the tree's size the
   timestamps are renumbered 0..n-1 in order (each new timestamp is the
   old one's rank, a prefix sum) and the tree is rebuilt with room for
   2n: memory is O(lines tracked), never O(run time), and a renumbering
   costs O(n log n) once per at least n sampled accesses.

   Memory per tracked line: a 16-byte hash slot (load <= 1/2) and at
   most 16 bytes of tree, about 48 bytes per N lines of footprint (5 %
   of the footprint's size at N = 16, 75 % at N = 1).

   Cost (docs/BENCH.md): a fraction of the trace's time at N = 16,
   several times it at N = 1. It comes from the branch on the hash, which mispredicts at sampled lines, and
   from the hash slot and tree nodes touched once per sampled line per
   sweep, which miss the cache once the sample outgrows it; N = 1024 costs
   nothing measurable.

   All threads share one stack, as they share a last-level cache. An
   access that straddles two lines counts for its first line only. */

#include "cats_tool.h"

Bool  CATS_(clo_reuse_distance) = True;
UInt  CATS_(clo_reuse_sampling) = 16;
ULong CATS_(reuse_mask) = 0;

/*------------------------------------------------------------*/
/*--- Tracked lines: an open-addressing hash table         ---*/
/*------------------------------------------------------------*/

typedef struct {
   ULong key;            /* line number + 1; 0 for an empty slot */
   UInt  ts;             /* timestamp of its last access, or IN_MRU */
} LineSlot;
#define IN_MRU 0xFFFFFFFFu   /* the line is in the MRU list below */

/* Sampled lines all have the top bits of CATS_REUSE_HASH * line equal
   to 0, so the table is indexed by another multiplier. */
#define SLOT_HASH 0xBF58476D1CE4E5B9ULL
#define MIN_SLOTS 1024
#define MIN_TREE  4096

static LineSlot* slots;
static UWord n_slots;            /* a power of two */
static UInt  slot_shift;         /* 64 - log2(n_slots) */
static UWord n_lines;            /* lines tracked (slots used) */

#define MRU_SIZE 8
static ULong mru[MRU_SIZE];      /* the latest lines, most recent first */
static UInt  n_mru;

static UInt* tree;               /* Fenwick tree, 1-based, tree_size + 1 */
static UInt  tree_size;          /* a power of two */
static UInt  clock;              /* the next timestamp */
static UWord n_in_tree;          /* lines not in the MRU list: marks */

static UInt  scale_shift;        /* log2(N) */
static ULong n_samples, n_renumberings;

static UInt log2_exact(ULong x)
{
   UInt k = 0;
   while ((1ULL << k) < x)
      k++;
   return k;
}

static inline UWord slot_index(ULong line)
{
   return (UWord)((line * SLOT_HASH) >> slot_shift);
}

static void alloc_slots(UWord n)
{
   n_slots = n;
   slot_shift = 64 - log2_exact(n);
   slots = VG_(calloc)("cats.reuse.slots", n, sizeof(LineSlot));
}

static void grow_slots(void)
{
   LineSlot* old = slots;
   UWord i, n_old = n_slots;
   alloc_slots(2 * n_old);
   for (i = 0; i < n_old; i++) {
      if (old[i].key == 0)
         continue;
      UWord j = slot_index(old[i].key - 1);
      while (slots[j].key != 0)
         j = (j + 1) & (n_slots - 1);
      slots[j] = old[i];
   }
   VG_(free)(old);
}

/* The slot of a tracked line. */
static LineSlot* slot_find(ULong line)
{
   UWord j = slot_index(line);
   while (slots[j].key != line + 1) {
      tl_assert(slots[j].key != 0);
      j = (j + 1) & (n_slots - 1);
   }
   return &slots[j];
}

/* The slot of 'line', inserted (timestamp unset) when new. */
static LineSlot* slot_of(ULong line, Bool* found)
{
   if (2 * (n_lines + 1) > n_slots)
      grow_slots();
   UWord j = slot_index(line);
   for (;;) {
      if (slots[j].key == line + 1) {
         *found = True;
         return &slots[j];
      }
      if (slots[j].key == 0) {
         slots[j].key = line + 1;
         n_lines++;
         *found = False;
         return &slots[j];
      }
      j = (j + 1) & (n_slots - 1);
   }
}

/*------------------------------------------------------------*/
/*--- Timestamps: a Fenwick tree of the lines' last uses   ---*/
/*------------------------------------------------------------*/

static inline void tree_add(UInt ts, Int v)
{
   UWord i;   /* wider than the index: i + lowbit(i) may pass 2^32 */
   for (i = (UWord)ts + 1; i <= tree_size; i += i & (~i + 1))
      tree[i] += (UInt)v;
}

/* Marks at timestamps <= ts. */
static inline UInt tree_prefix(UInt ts)
{
   UInt i, s = 0;
   for (i = ts + 1; i > 0; i -= i & (~i + 1))
      s += tree[i];
   return s;
}

/* A tree of 'size' with marks at 0..n-1, built in O(size). */
static void tree_build(UInt size, UInt n)
{
   UInt i;
   tree_size = size;
   tree = VG_(calloc)("cats.reuse.tree", (SizeT)size + 1, sizeof(UInt));
   for (i = 1; i <= n; i++)
      tree[i] = 1;
   for (i = 1; i <= size; i++) {
      UWord j = (UWord)i + (i & (~i + 1));
      if (j <= size)
         tree[j] += tree[i];
   }
}

/* Renumbers the timestamps of the lines in the tree 0..n_in_tree-1 in
   the same order. */
static void renumber(void)
{
   UWord i;
   for (i = 0; i < n_slots; i++)
      if (slots[i].key != 0 && slots[i].ts != IN_MRU)
         slots[i].ts = tree_prefix(slots[i].ts) - 1;
   ULong want = 2 * ((ULong)n_in_tree + 1);
   UInt size = MIN_TREE;
   while (size < want) {
      tl_assert(size < (1u << 31));
      size *= 2;
   }
   VG_(free)(tree);
   tree_build(size, (UInt)n_in_tree);
   clock = (UInt)n_in_tree;
   n_renumberings++;
}

/*------------------------------------------------------------*/
/*--- Sampled accesses                                     ---*/
/*------------------------------------------------------------*/

/* Bucket 0: distance 0; bucket b: 2^(b-1) <= d < 2^b; the last bucket
   takes everything from 2^31 on. */
static inline UInt bucket_of(ULong d)
{
   if (d == 0)
      return 0;
   UInt b = 64 - (UInt)__builtin_clzll(d);
   return b < CATS_REUSE_BUCKETS ? b : CATS_REUSE_BUCKETS - 1;
}

/* Adds n to slot `slot` of *h, which grows by a count the first time
   the slot is used. */
static void add_count(ReuseHist** h, UInt slot, ULong n)
{
   ULong bit = 1ULL << slot;
   ReuseHist* r = *h;
   ULong mask = r ? r->mask : 0;
   UInt at = (UInt)__builtin_popcountll(mask & (bit - 1));
   if (!(mask & bit)) {
      UInt have = (UInt)__builtin_popcountll(mask), k;
      ReuseHist* g = VG_(malloc)("cats.reuse.hist",
                                 sizeof(ReuseHist) + (have + 1) * sizeof(ULong));
      g->mask = mask | bit;
      for (k = 0; k < at; k++)
         g->count[k] = r->count[k];
      g->count[at] = 0;
      for (k = at; k < have; k++)
         g->count[k + 1] = r->count[k];
      if (r != NULL)
         VG_(free)(r);
      *h = r = g;
   }
   r->count[at] += n;
}

static inline UInt slot_of_distance(Bool cold, ULong d)
{
   return cold ? 0 : 1 + bucket_of(d);
}

/* The MRU list's oldest line moves to the tree, newest there. */
static void evict_oldest(void)
{
   LineSlot* sl = slot_find(mru[MRU_SIZE - 1]);
   tl_assert(sl->ts == IN_MRU);
   if (clock == tree_size)
      renumber();
   sl->ts = clock;
   tree_add(clock, 1);
   clock++;
   n_in_tree++;
   n_mru--;
}

void CATS_(reuse_sample)(ReuseHist** h, Addr a)
{
   ULong line = (ULong)a >> CATS_REUSE_LINE_SHIFT;
   UInt p;
   n_samples++;
   for (p = 0; p < n_mru && mru[p] != line; p++)
      ;
   if (p < n_mru) {
      /* p more recent lines: the distance. Move to the front. */
      if (h != NULL)
         add_count(h, slot_of_distance(False, (ULong)p << scale_shift), 1ULL << scale_shift);
      for (; p > 0; p--)
         mru[p] = mru[p - 1];
      mru[0] = line;
      return;
   }
   Bool found;
   LineSlot* sl = slot_of(line, &found);
   ULong d = 0;
   if (found) {
      /* Lines used after this one: the tree's marks after its own
         (which the prefix counts), and the whole MRU list. */
      d = (ULong)n_in_tree - tree_prefix(sl->ts) + n_mru;
      tree_add(sl->ts, -1);
      n_in_tree--;
   }
   sl->ts = IN_MRU;
   if (n_mru == MRU_SIZE)
      evict_oldest();
   for (p = n_mru; p > 0; p--)
      mru[p] = mru[p - 1];
   mru[0] = line;
   n_mru++;
   if (h != NULL)
      add_count(h, slot_of_distance(!found, d << scale_shift), 1ULL << scale_shift);
}

void CATS_(reuse_init)(void)
{
   UInt n = CATS_(clo_reuse_sampling);
   tl_assert(n >= 1 && n <= CATS_REUSE_MAX_SAMPLING && (n & (n - 1)) == 0);
   scale_shift = log2_exact(n);
   CATS_(reuse_mask) = scale_shift == 0 ? 0 : ~0ULL << (64 - scale_shift);
   alloc_slots(MIN_SLOTS);
   tree_build(MIN_TREE, 0);
   clock = 0;
}

/*------------------------------------------------------------*/
/*--- Section 9                                            ---*/
/*------------------------------------------------------------*/

/* One sparse record: id, a mask of the non-zero counts (bit 0 cold,
   bit 1 + b bucket b), then those counts. Nothing for an empty one. */
static Bool put_hist(CatsBuf* b, UInt id, ULong mask, const ULong* count)
{
   UInt k, n = (UInt)__builtin_popcountll(mask);
   if (mask == 0)
      return False;
   CATS_(put_u32)(b, id);
   CATS_(put_u64)(b, mask);
   for (k = 0; k < n; k++)
      CATS_(put_u64)(b, count[k]);
   return True;
}

/* A container's histogram: every slot, the sum of its events'. */
typedef struct {
   ULong slot[1 + CATS_REUSE_BUCKETS];
} DenseHist;

/* After the EVENTS section's records are final (CATS_(mem_finish)):
   the events' histograms, and each container's as the sum of its
   events'. */
void CATS_(write_reuse)(CatsBuf* b)
{
   UInt i, k, n = CATS_(n_events)(), na = CATS_(n_allocs_written)();
   DenseHist* per_alloc = VG_(calloc)("cats.reuse.allocs", na + 1,
                                      sizeof(DenseHist));
   CATS_(put_u32)(b, CATS_REUSE_LINE_SIZE);
   CATS_(put_u32)(b, CATS_(clo_reuse_sampling));
   CATS_(put_u32)(b, CATS_REUSE_BUCKETS);
   SizeT count_at = b->len;
   UInt written = 0;
   CATS_(put_u32)(b, 0);
   for (i = 0; i < n; i++) {
      UInt al;
      const ReuseHist* h = CATS_(event_reuse)(i, &al);
      if (h == NULL)
         continue;
      written += put_hist(b, i, h->mask, h->count) ? 1 : 0;
      if (al >= na)
         continue;
      UInt at = 0;
      for (k = 0; k <= CATS_REUSE_BUCKETS; k++)
         if (h->mask & (1ULL << k))
            per_alloc[al].slot[k] += h->count[at++];
   }
   CATS_(patch_u32)(b, count_at, written);
   count_at = b->len;
   written = 0;
   CATS_(put_u32)(b, 0);
   for (i = 0; i < na; i++) {
      ULong mask = 0, count[1 + CATS_REUSE_BUCKETS];
      UInt m = 0;
      for (k = 0; k <= CATS_REUSE_BUCKETS; k++)
         if (per_alloc[i].slot[k]) {
            mask |= 1ULL << k;
            count[m++] = per_alloc[i].slot[k];
         }
      written += put_hist(b, i, mask, count) ? 1 : 0;
   }
   CATS_(patch_u32)(b, count_at, written);
   VG_(free)(per_alloc);
}

void CATS_(reuse_stats)(void)
{
   VG_(umsg)("cats: reuse: 1 in %u lines, %'llu sampled accesses, %'lu "
             "lines tracked, %'llu renumberings, %'lu KiB\n",
             CATS_(clo_reuse_sampling), n_samples, n_lines, n_renumberings,
             (n_slots * sizeof(LineSlot) + (tree_size + 1) * sizeof(UInt))
                / 1024);
}
