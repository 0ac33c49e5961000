/* SPDX-License-Identifier: GPL-2.0-or-later */
/* vcg_build.c: the value communication graph builder (see vcg_build.h). */
#include "vcg_build.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cats/format/cats_format.h"
#include "cats/trace/errmsg.h"
#include "cats/trace/le.h"
#include "vcg_idmap.h"
#include "vcg_pattern.h"
#include "vcg_section.h"
#include "vcg_sort.h"

#define VCG_BUILD_NIL 0xFFFFFFFFu
#define VCG_BUILD_STR_(x) #x
#define VCG_BUILD_STR(x) VCG_BUILD_STR_(x)
#define VCG_BUILD_MAX_VERTICES 0xFFFFFFFEu
#define VCG_BUILD_MAX_RECS 0xFFFFFFFEu
/* Vertex id 0xFFFFFFFF is reserved (docs/VCG.md). */
#define VCG_BUILD_RESERVED_ID 0xFFFFFFFFu

#define VCG_BUILD_VERTEX_LEN (1 + 4 + 1 + 4 + 8 + 4 + 4 + 4)
#define VCG_BUILD_END_ENTRY_LEN 13   /* u32 id, u32 count, u32 versions, u8 */
#define VCG_BUILD_MAX_WORD 4096

#define VCG_BUILD_LISTED 0x80u   /* vertex flag: named in VF_END */
#define VCG_BUILD_PARTS 64

/* A vertex while the graph is built: 36 bytes (the offset in two halves
 * keeps it 4-byte aligned). */
typedef struct vcg_build_vertex {
   uint32_t offset_lo, offset_hi;
   uint32_t id;         /* the tool's id */
   uint32_t alloc;      /* tool allocation id; the trace's after VF_END */
   uint32_t ctx;
   uint32_t loc;
   uint32_t version;    /* first version of the open record (0: no record
                           yet); after VF_END the final version count */
   uint32_t open;       /* its open record, or VCG_BUILD_NIL */
   uint16_t size : 13;  /* bytes: a word at most (VCG_BUILD_MAX_WORD) */
   uint16_t kind : 3;   /* enum cats_vf_kind */
   uint8_t flags;       /* CATS_VCG_OUTPUT, _CONTROL, VCG_BUILD_LISTED */
   uint8_t ring;        /* records in its ring - 1, while it has one */
} vcg_build_vertex;

static uint64_t vcg_build_offset(const vcg_build_vertex *v)
{
   return (uint64_t)v->offset_hi << 32 | v->offset_lo;
}

/* A record: a source list and a context, and the versions of its vertex
 * made from them so far. In a ring, `next` is the next record of the same
 * vertex (a circular list), or the next free slot; a record that left its
 * ring keeps its uses as `next` = its vertex. 16 bytes, whatever its
 * sources: the memory vcg_build.h promises. */
typedef struct vcg_build_rec {
   uint32_t next;
   uint32_t list;       /* the source list's name (vcg_pattern.h) */
   uint32_t ctx;
   uint32_t uses;
} vcg_build_rec;

/* An edge of a record that left its ring: its uses, by (dst, src, ctx).
 * src is the source's tool id, or VCG_BUILD_NIL for a constant record's
 * uses (which count in the vertex's weight). */
typedef struct vcg_build_old {
   uint32_t dst;        /* builder index */
   uint32_t src;
   uint32_t ctx;
   uint32_t uses;
} vcg_build_old;

_Static_assert(sizeof(vcg_build_vertex) == 36, "builder vertex size");
_Static_assert(sizeof(vcg_build_rec) == 16, "builder record size");
_Static_assert(sizeof(vcg_edge) == 20, "edge size");

enum vcg_build_state { VCG_BUILD_STREAM, VCG_BUILD_ENDED, VCG_BUILD_FINISHED, VCG_BUILD_FAILED };

struct vcg_builder {
   vcg_build_vertex *v;
   uint32_t nv, capv;
   vcg_idmap vidx;        /* tool id -> index in v */
   vcg_build_rec *rec;    /* the rings' records, and free slots */
   uint32_t nrec, caprec, free_rec;
   uint32_t nfree;        /* free slots */
   uint32_t made;         /* records made since the rings were laid out */
   /* The edges of records that left their rings (SOURCES_ALONE, a ring
    * past CATS_VF_RING_MAX), one per (dst, src, ctx) in hash tables, a
    * part of the hash's values each (each at most 4/5 full, grown by
    * half; dst NIL: empty), so that a table growing stands beside its
    * old self for a 64th of them, not all (NPB MG: 13.9 M edges): a
    * vertex whose sources never repeat keeps one per distinct edge, as
    * many as its sources, however long the run (its lists, which may not
    * repeat, are not kept for it). When the graph is finished they are
    * packed into `old` and grouped by dst (nold of them). */
   struct vcg_build_part {
      vcg_build_old *slot;
      uint32_t n, cap;
   } part[VCG_BUILD_PARTS];
   vcg_build_old *old;
   uint32_t nold, capold;
   vcg_pattern_pool lists;
   size_t lists_floor;  /* words of lists below which none are collected */
   uint32_t *ids;       /* the sources of the SOURCES record read last */
   uint32_t cap_ids;
   uint64_t records;    /* VF records ingested */
   uint32_t word_size;
   int cut;             /* vcg_builder_cut was called */
   enum vcg_build_state state;
};

static vcg_status fail(vcg_builder *b, vcg_status st, char *err,
                       size_t errlen, const char *fmt, ...)
   __attribute__((format(printf, 5, 6)));

/* Report an error; the builder accepts nothing more. */
static vcg_status fail(vcg_builder *b, vcg_status st, char *err,
                       size_t errlen, const char *fmt, ...)
{
   va_list ap;
   va_start(ap, fmt);
   errmsg_vformat(err, errlen, fmt, ap);
   va_end(ap);
   if (b)
      b->state = VCG_BUILD_FAILED;
   return st;
}

vcg_builder *vcg_builder_new(void)
{
   vcg_builder *b = calloc(1, sizeof *b);
   if (b) {
      b->state = VCG_BUILD_STREAM;
      b->free_rec = VCG_BUILD_NIL;
   }
   return b;
}

void vcg_builder_free(vcg_builder *b)
{
   if (!b)
      return;
   free(b->v);
   vcg_idmap_free(&b->vidx);
   free(b->rec);
   for (int k = 0; k < VCG_BUILD_PARTS; k++)
      free(b->part[k].slot);
   free(b->old);
   vcg_pattern_free(&b->lists);
   free(b->ids);
   free(b);
}

size_t vcg_builder_bytes(const vcg_builder *b)
{
   size_t parts = 0;
   for (int k = 0; k < VCG_BUILD_PARTS; k++)
      parts += (size_t)b->part[k].cap * sizeof *b->part[k].slot;
   return parts + sizeof *b + (size_t)b->capv * sizeof *b->v + vcg_idmap_bytes(&b->vidx) +
          (size_t)b->caprec * sizeof *b->rec + (size_t)b->capold * sizeof *b->old +
          vcg_pattern_bytes(&b->lists) + (size_t)b->cap_ids * sizeof *b->ids;
}

void vcg_builder_cut(vcg_builder *b)
{
   b->cut = 1;
}

void vcg_builder_counts(const vcg_builder *b, uint64_t *records,
                        uint32_t *vertices, uint64_t *kept)
{
   *records = b->records;
   *vertices = b->nv;
   *kept = (uint64_t)b->nrec - b->nfree + b->nold;
}

/* Grow an array by a quarter (not double) to keep the slack of large
 * graphs small; large blocks are remapped by realloc, not copied, so
 * growing often is cheap. 0, or -1 if out of memory or past `limit`
 * elements. */
static int grow(void **arr, uint32_t *cap, uint32_t need, size_t elem,
                uint32_t limit)
{
   if (need <= *cap)
      return 0;
   if (need > limit)
      return -1;
   uint64_t nc = (uint64_t)*cap + *cap / 4 + 64;
   if (nc < need)
      nc = need;
   if (nc > limit)
      nc = limit;
   if (nc > SIZE_MAX / elem)
      return -1;
   void *p = realloc(*arr, (size_t)nc * elem);
   if (!p)
      return -1;
   *arr = p;
   *cap = (uint32_t)nc;
   return 0;
}

/* Index of the vertex with tool id `id`, or VCG_BUILD_NIL. */
static uint32_t find_vertex(const vcg_builder *b, uint32_t id)
{
   return vcg_idmap_get(&b->vidx, id);
}

/* --- records ------------------------------------------------------------ */

/* A new record (list, ctx) without uses, in no ring yet; VCG_BUILD_NIL if
 * out of memory. */
static uint32_t new_rec(vcg_builder *b, uint32_t list, uint32_t ctx)
{
   uint32_t r = b->free_rec;
   b->made++;
   if (r != VCG_BUILD_NIL) {
      b->free_rec = b->rec[r].next;
      b->nfree--;
   } else {
      if (grow((void **)&b->rec, &b->caprec, b->nrec + 1, sizeof *b->rec,
               VCG_BUILD_MAX_RECS) != 0)
         return VCG_BUILD_NIL;
      r = b->nrec++;
   }
   b->rec[r] = (vcg_build_rec){ .next = r, .list = list, .ctx = ctx, .uses = 0 };
   return r;
}

/* The edges of records that left their rings packed and grouped by dst
 * (each dst's edges are sorted with its others when the graph is
 * finished), and where each dst's begin: *start gets nv + 1 entries.
 * They are packed out of their tables, each freed as it is emptied, and
 * sorted in place by a counting sort that follows each edge's cycle of
 * moves: a sorted copy would stand beside them (NPB MG: 13.9 M edges,
 * 222 MB). 0, or -1 if out of memory. */
static int group_old(vcg_builder *b, uint32_t **start)
{
   /* Each part goes as it is packed: the packed edges (16 bytes each)
    * never stand beside all the tables. */
   uint32_t n = 0;
   for (int k = 0; k < VCG_BUILD_PARTS; k++) {
      struct vcg_build_part *q = &b->part[k];
      if (grow((void **)&b->old, &b->capold, n + q->n, sizeof *b->old, UINT32_MAX) != 0)
         return -1;
      for (uint32_t i = 0; i < q->cap; i++)
         if (q->slot[i].dst != VCG_BUILD_NIL)
            b->old[n++] = q->slot[i];
      free(q->slot);
      *q = (struct vcg_build_part){ NULL, 0, 0 };
   }
   uint32_t *at = calloc((size_t)b->nv + 2, sizeof *at);
   uint32_t *next = malloc(((size_t)b->nv + 1) * sizeof *next);
   if (!at || !next) {
      free(at);
      free(next);
      return -1;
   }
   for (uint32_t i = 0; i < n; i++)
      at[b->old[i].dst + 1]++;
   for (uint32_t v = 0; v < b->nv; v++)
      at[v + 1] += at[v];
   memcpy(next, at, (size_t)b->nv * sizeof *next);
   /* Each dst's edges fill its part from the front: an edge found in
    * another's part swaps with the one at the front of its own. */
   for (uint32_t v = 0; v < b->nv; v++)
      while (next[v] < at[v + 1]) {
         vcg_build_old x = b->old[next[v]];
         while (x.dst != v) {
            vcg_build_old y = b->old[next[x.dst]];
            b->old[next[x.dst]++] = x;
            x = y;
         }
         b->old[next[v]++] = x;
      }
   free(next);
   *start = at;
   return 0;
}

static uint64_t old_hash(uint32_t dst, uint32_t src, uint32_t ctx)
{
   return vcg_mix64(((uint64_t)dst << 32 | src) ^ vcg_mix64(ctx));
}

/* The slot where the probe for hash h starts in a table of cap slots:
 * the hash's top half scaled to cap (no power of two needed, so the
 * table grows by half, not double); its low bits choose the part. */
static uint64_t old_home(uint64_t h, uint64_t cap)
{
   return ((h >> 32) * cap) >> 32;
}

/* Room in part q for one more edge; 0, or -1 if out of memory. */
static int old_reserve(struct vcg_build_part *q)
{
   uint64_t need = (uint64_t)q->n + 1, cap = q->cap ? q->cap : 64;
   if (q->cap && need * 5 <= (uint64_t)q->cap * 4)
      return 0;
   while (need * 5 > cap * 4)
      cap += cap / 2;
   if (cap > (1ull << 31) || cap > SIZE_MAX / sizeof *q->slot)
      return -1;
   vcg_build_old *t = malloc((size_t)cap * sizeof *t);
   if (!t)
      return -1;
   for (uint64_t i = 0; i < cap; i++)
      t[i].dst = VCG_BUILD_NIL;
   for (uint32_t i = 0; i < q->cap; i++) {
      const vcg_build_old *o = &q->slot[i];
      if (o->dst == VCG_BUILD_NIL)
         continue;
      uint64_t pos = old_home(old_hash(o->dst, o->src, o->ctx), cap);
      while (t[pos].dst != VCG_BUILD_NIL)
         pos = pos + 1 == cap ? 0 : pos + 1;
      t[pos] = *o;
   }
   free(q->slot);
   q->slot = t;
   q->cap = (uint32_t)cap;
   return 0;
}

/* uses more on the edge (dst, src, ctx), made if new: 0, or -1 if out of
 * memory. */
static int old_add(vcg_builder *b, uint32_t dst, uint32_t src, uint32_t ctx,
                   uint32_t uses)
{
   uint64_t h = old_hash(dst, src, ctx);
   struct vcg_build_part *q = &b->part[h % VCG_BUILD_PARTS];
   if (old_reserve(q) != 0)
      return -1;
   uint64_t pos = old_home(h, q->cap);
   for (;; pos = pos + 1 == q->cap ? 0 : pos + 1) {
      vcg_build_old *o = &q->slot[pos];
      if (o->dst == VCG_BUILD_NIL) {
         *o = (vcg_build_old){ dst, src, ctx, uses };
         q->n++;
         b->nold++;
         return 0;
      }
      if (o->dst == dst && o->src == src && o->ctx == ctx) {
         o->uses += uses;   /* disjoint version ranges of dst */
         return 0;
      }
   }
}

/* Record r of vertex dst leaves its ring (its slot is freed) and keeps
 * its uses as edges: 0, or -1 if out of memory. */
static int retire(vcg_builder *b, uint32_t dst, uint32_t r)
{
   const uint32_t *list = vcg_pattern_at(&b->lists, b->rec[r].list);
   uint32_t n = list[0], id = b->v[dst].id;
   const vcg_build_rec *x = &b->rec[r];
   if (n == 0 && old_add(b, dst, VCG_BUILD_NIL, x->ctx, x->uses) != 0)
      return -1;
   for (uint32_t k = 0; k < n; k++)
      if (old_add(b, dst, id + list[1 + k], x->ctx, x->uses) != 0)
         return -1;
   b->rec[r].next = b->free_rec;
   b->free_rec = r;
   b->nfree++;
   return 0;
}

/* Each ring's records laid out one after the other, from its open one:
 * a STEP walks a ring at every time step, and records made at different
 * times (and in slots freed by others) would cost a cache miss each.
 * 0, or -1 if out of memory (nothing changed). */
static int lay_out_rings(vcg_builder *b)
{
   uint32_t live = b->nrec - b->nfree, n = 0;
   vcg_build_rec *t = malloc(((size_t)live + 1) * sizeof *t);
   if (!t)
      return -1;
   for (uint32_t i = 0; i < b->nv; i++) {
      vcg_build_vertex *d = &b->v[i];
      if (d->open == VCG_BUILD_NIL)
         continue;
      uint32_t r = d->open, first = n;
      do {
         t[n] = b->rec[r];
         t[n].next = n + 1;
         n++;
         r = b->rec[r].next;
      } while (r != d->open);
      t[n - 1].next = first;
      d->open = first;
   }
   free(b->rec);
   b->rec = t;
   b->nrec = b->caprec = n;
   b->free_rec = VCG_BUILD_NIL;
   b->nfree = 0;
   b->made = 0;
   return 0;
}

/* The records of dst's ring other than `keep` leave it (all of them if
 * keep is VCG_BUILD_NIL). 0, or -1 if out of memory. */
static int retire_ring(vcg_builder *b, uint32_t dst, uint32_t keep)
{
   vcg_build_vertex *d = &b->v[dst];
   if (d->open == VCG_BUILD_NIL)
      return 0;
   uint32_t r = d->open;
   do {
      uint32_t next = b->rec[r].next;
      if (r != keep && retire(b, dst, r) != 0)
         return -1;
      r = next;
   } while (r != d->open);
   if (keep != VCG_BUILD_NIL)
      b->rec[keep].next = keep;
   d->open = keep;
   d->ring = 0;
   return 0;
}

/* The lists that no ring's record names go (those of records that left
 * their rings, whose edges keep their uses): a vertex whose sources
 * never repeat makes a new list at every record, which would otherwise
 * stay for the rest of the run. 0, or -1 if out of memory. */
static int collect_lists(vcg_builder *b)
{
   vcg_pattern_pool fresh = VCG_PATTERN_POOL_INIT;
   for (uint32_t i = 0; i < b->nv; i++) {
      const vcg_build_vertex *d = &b->v[i];
      if (d->open == VCG_BUILD_NIL)
         continue;
      uint32_t r = d->open;
      do {
         uint32_t name;
         if (vcg_pattern_copy(&fresh, &b->lists, b->rec[r].list, &name) != VCG_PATTERN_OK) {
            vcg_pattern_free(&fresh);
            return -1;
         }
         b->rec[r].list = name;
         r = b->rec[r].next;
      } while (r != d->open);
   }
   vcg_pattern_free(&b->lists);
   b->lists = fresh;
   b->lists_floor = 2 * fresh.len;
   return 0;
}

/* End dst's open record at version `end`: it made end - version versions. */
static void close_record(vcg_builder *b, vcg_build_vertex *d, uint64_t end)
{
   if (d->version == 0)
      return;
   b->rec[d->open].uses += (uint32_t)(end - d->version);
}

/* A SOURCES record, decoded; its sources are b->ids[0..n), each as its
 * difference from dst. */
typedef struct vcg_build_sources {
   uint32_t dst, version, ctx, n;
} vcg_build_sources;

static vcg_status on_vertex(vcg_builder *b, const uint8_t *p, char *err,
                            size_t errlen)
{
   uint32_t id = le_u32(p + 1);
   uint8_t kind = p[5];
   if (kind > CATS_VF_REGISTER)
      return fail(b, VCG_EINPUT, err, errlen,
                  "VF record %llu: vertex %u has unknown kind %u",
                  (unsigned long long)b->records, id, kind);
   if (id == VCG_BUILD_RESERVED_ID)
      return fail(b, VCG_EINPUT, err, errlen,
                  "VF record %llu: vertex id %u is reserved",
                  (unsigned long long)b->records, id);
   if (find_vertex(b, id) != VCG_BUILD_NIL)
      return fail(b, VCG_EINPUT, err, errlen,
                  "VF record %llu: vertex %u sent twice",
                  (unsigned long long)b->records, id);
   uint32_t size = le_u32(p + 18);
   if (size == 0 || size > VCG_BUILD_MAX_WORD)
      return fail(b, VCG_EINPUT, err, errlen,
                  "VF record %llu: vertex %u has %u bytes, not 1 to %d",
                  (unsigned long long)b->records, id, size, VCG_BUILD_MAX_WORD);
   if (grow((void **)&b->v, &b->capv, b->nv + 1, sizeof *b->v,
            VCG_BUILD_MAX_VERTICES) != 0 ||
       vcg_idmap_set(&b->vidx, id, b->nv) != 0)
      return fail(b, VCG_ENOMEM, err, errlen,
                  "out of memory for vertex %u (%u vertices)", id, b->nv);
   vcg_build_vertex *v = &b->v[b->nv];
   uint64_t offset = le_u64(p + 10);
   *v = (vcg_build_vertex){ .id = id, .kind = kind, .alloc = le_u32(p + 6),
                     .offset_lo = (uint32_t)offset,
                     .offset_hi = (uint32_t)(offset >> 32),
                     .size = (uint16_t)size & 0x1FFF, .ring = 0,
                     .ctx = le_u32(p + 22), .loc = le_u32(p + 26),
                     .version = 0, .open = VCG_BUILD_NIL };
   b->nv++;
   return VCG_OK;
}

/* A LEB128 value of at most 32 bits at p[*pos..len): 1 when read, 0 when
 * the bytes end first, -1 when it is longer or larger. */
static int get_var32(const uint8_t *p, size_t len, size_t *pos,
                     uint32_t *out)
{
   uint64_t v = 0;
   for (unsigned shift = 0; shift < 35; shift += 7) {
      if (*pos >= len)
         return 0;
      uint8_t c = p[(*pos)++];
      v |= (uint64_t)(c & 0x7F) << shift;
      if (!(c & 0x80)) {
         if (v > UINT32_MAX)
            return -1;
         *out = (uint32_t)v;
         return 1;
      }
   }
   return -1;
}

/* The four LEB128 fields that start a SOURCES or STEP record, after its
 * tag, into *f[0..4): as get_var32. */
static int get_head(const uint8_t *q, size_t left, size_t *pos,
                    uint32_t *const f[4])
{
   for (int i = 0; i < 4; i++) {
      int r = get_var32(q, left, pos, f[i]);
      if (r <= 0)
         return r;
   }
   return 1;
}

/* Decodes the SOURCES record at q[0..left) into *s and b->ids (each
 * source as its difference from dst): its
 * length, 0 if the bytes end inside it, -1 if it is malformed, -2 out of
 * memory. Layout (docs/VCG.md): u8 tag, uvar dst, uvar version, uvar
 * ctx, uvar n, n x svar (src - dst, modulo 2^32). */
static long parse_sources(vcg_builder *b, const uint8_t *q, size_t left,
                          vcg_build_sources *s)
{
   size_t pos = 1;
   int r = get_head(q, left, &pos,
                    (uint32_t *[4]){ &s->dst, &s->version, &s->ctx, &s->n });
   if (r <= 0)
      return r;
   if (s->n > CATS_VF_MAX_SOURCES)
      return -1;
   if (grow((void **)&b->ids, &b->cap_ids, s->n ? s->n : 1, sizeof *b->ids,
            UINT32_MAX) != 0)
      return -2;
   for (uint32_t k = 0; k < s->n; k++) {
      uint32_t z;
      int r = get_var32(q, left, &pos, &z);
      if (r <= 0)
         return r;
      b->ids[k] = (z >> 1) ^ (0u - (z & 1));   /* src - dst */
   }
   return (long)pos;
}

/* SOURCES, a new record after the open one in its vertex's ring, or
 * with `alone` SOURCES_ALONE, a new record in a ring of its own. The
 * tool sends a record only when its ring of the vertex lacks it: the
 * helper does not look for it (a repeat is a STEP). A ring that would
 * pass CATS_VF_RING_MAX records, which the tool never sends, keeps its
 * open record only. */
static vcg_status on_sources(vcg_builder *b, const vcg_build_sources *s, int alone,
                             char *err, size_t errlen)
{
   unsigned long long rno = (unsigned long long)b->records;
   uint32_t dst_id = s->dst, version = s->version;
   uint32_t dst = find_vertex(b, dst_id);
   if (dst == VCG_BUILD_NIL)
      return fail(b, VCG_EINPUT, err, errlen,
                  "VF record %llu: SOURCES names unknown vertex %u", rno,
                  dst_id);
   vcg_build_vertex *d = &b->v[dst];
   if (version <= d->version)
      return fail(b, VCG_EINPUT, err, errlen,
                  "VF record %llu: SOURCES of vertex %u at version %u, not "
                  "after version %u", rno, dst_id, version, d->version);
   for (uint32_t k = 0; k < s->n; k++)
      if (find_vertex(b, dst_id + b->ids[k]) == VCG_BUILD_NIL)
         return fail(b, VCG_EINPUT, err, errlen,
                     "VF record %llu: SOURCES of vertex %u names unknown "
                     "source vertex %u", rno, dst_id, dst_id + b->ids[k]);
   /* Lists are collected when they have doubled since the last time
    * (at least 4 Mi words). */
   if (b->lists.len > b->lists_floor + (4u << 20) && collect_lists(b) != 0)
      return fail(b, VCG_ENOMEM, err, errlen,
                  "out of memory collecting source lists (%zu words)", b->lists.len);
   uint32_t list;
   switch (vcg_pattern_intern(&b->lists, b->ids, s->n, &list)) {
   case VCG_PATTERN_OK:
      break;
   case VCG_PATTERN_TWICE:
      return fail(b, VCG_EINPUT, err, errlen,
                  "VF record %llu: SOURCES of vertex %u names source %u "
                  "twice", rno, dst_id, dst_id + list);
   default:
      return fail(b, VCG_ENOMEM, err, errlen,
                  "out of memory for source lists (%zu words)", b->lists.len);
   }
   close_record(b, d, version);
   int full = d->open != VCG_BUILD_NIL && !alone && d->ring + 1u >= CATS_VF_RING_MAX;
   uint32_t r = new_rec(b, list, s->ctx);
   if (r == VCG_BUILD_NIL ||
       ((alone || full) &&
        retire_ring(b, dst, alone ? VCG_BUILD_NIL : d->open) != 0))
      return fail(b, VCG_ENOMEM, err, errlen,
                  "out of memory for records (%u)", b->nrec);
   if (d->open != VCG_BUILD_NIL) {
      b->rec[r].next = b->rec[d->open].next;
      b->rec[d->open].next = r;
      d->ring++;
   }
   d->open = r;
   d->version = version;
   return VCG_OK;
}

/* A STEP record, decoded. */
typedef struct vcg_build_step {
   uint32_t dst, version, dist, m;
} vcg_build_step;

/* Decodes the STEP record at q[0..left) (u8 tag, uvar dst, uvar version,
 * uvar d, uvar m): its length, 0 if the bytes end inside it, -1 if a
 * field is over 32 bits. */
static long parse_step(const uint8_t *q, size_t left, vcg_build_step *s)
{
   size_t pos = 1;
   int r = get_head(q, left, &pos,
                    (uint32_t *[4]){ &s->dst, &s->version, &s->dist, &s->m });
   return r <= 0 ? r : (long)pos;
}

/* Versions version .. version + m - 1 of dst each open the next record
 * of its ring, the first `dist` records along from the open one: each
 * record passed gets one use, and a run around the whole ring one use
 * per record per turn. */
static vcg_status on_step(vcg_builder *b, const vcg_build_step *s, char *err,
                          size_t errlen)
{
   unsigned long long rno = (unsigned long long)b->records;
   uint32_t dst = find_vertex(b, s->dst);
   if (dst == VCG_BUILD_NIL)
      return fail(b, VCG_EINPUT, err, errlen,
                  "VF record %llu: STEP names unknown vertex %u", rno,
                  s->dst);
   vcg_build_vertex *d = &b->v[dst];
   if (d->version == 0)
      return fail(b, VCG_EINPUT, err, errlen,
                  "VF record %llu: STEP of vertex %u, which has no record",
                  rno, s->dst);
   if (s->version <= d->version)
      return fail(b, VCG_EINPUT, err, errlen,
                  "VF record %llu: STEP of vertex %u at version %u, not "
                  "after version %u", rno, s->dst, s->version, d->version);
   if (s->m == 0 || (uint64_t)s->version + s->m - 1 > UINT32_MAX)
      return fail(b, VCG_EINPUT, err, errlen,
                  "VF record %llu: STEP of vertex %u over %u versions from "
                  "version %u", rno, s->dst, s->m, s->version);
   /* Once the records made since the rings were laid out are a quarter
    * of them (the first time steps are over), they are laid out again. */
   if (b->made > 4096 && (uint64_t)b->made * 4 > (uint64_t)b->nrec - b->nfree) {
      if (lay_out_rings(b) != 0)
         return fail(b, VCG_ENOMEM, err, errlen, "out of memory for records (%u)",
                     b->nrec);
      d = &b->v[dst];
   }
   /* Walked, not measured first: a run shorter than the ring passes
    * each record once. */
   uint32_t r = d->open, k;
   for (k = 0; k < s->dist && k <= CATS_VF_RING_MAX; k++) {
      r = b->rec[r].next;
      if (r == d->open)
         break;
   }
   if (s->dist == 0 || k < s->dist)
      return fail(b, VCG_EINPUT, err, errlen,
                  "VF record %llu: STEP of vertex %u by %u records along "
                  "its ring of %u", rno, s->dst, s->dist,
                  d->ring + 1u);
   close_record(b, d, s->version);
   uint32_t steps = s->m - 1, start = r;
   for (k = 0; k < steps; k++) {
      b->rec[r].uses++;
      r = b->rec[r].next;
      if (r == start) {
         /* Once round: the rest is whole turns and a part of one. */
         uint32_t ring = k + 1, left = steps - ring;
         uint32_t turns = left / ring, rest = left % ring;
         if (turns > 0) {
            do {
               b->rec[r].uses += turns;
               r = b->rec[r].next;
            } while (r != start);
         }
         for (k = 0; k < rest; k++) {
            b->rec[r].uses++;
            r = b->rec[r].next;
         }
         break;
      }
   }
   d->open = r;
   d->version = s->version + steps;
   return VCG_OK;
}

vcg_status vcg_feed(vcg_builder *b, const uint8_t *p, size_t len,
                    int frame_end, size_t *used, char *err, size_t errlen)
{
   *used = 0;
   if (b->state != VCG_BUILD_STREAM)
      return fail(b, VCG_ESTATE, err, errlen, "%s",
                  b->state == VCG_BUILD_FAILED ? "VF data after an earlier error"
                                        : "VF data after VF_END");
   size_t pos = 0;
   while (pos < len) {
      const uint8_t *q = p + pos;
      size_t left = len - pos, need;
      unsigned long long rno = (unsigned long long)b->records;
      vcg_build_sources s;
      vcg_build_step step;
      uint8_t tag = q[0];
      if (tag == CATS_VF_VERTEX) {
         need = VCG_BUILD_VERTEX_LEN;
         if (left < need) {
            if (!frame_end)
               break;
            return fail(b, VCG_EINPUT, err, errlen,
                        "VF record %llu: VERTEX record truncated: needs %zu "
                        "bytes, the frame ends after %zu", rno, need, left);
         }
      } else if (tag == CATS_VF_SOURCES || tag == CATS_VF_SOURCES_ALONE ||
                 tag == CATS_VF_STEP) {
         const char *name = tag == CATS_VF_STEP ? "STEP" : "SOURCES";
         long got = tag == CATS_VF_STEP ? parse_step(q, left, &step)
                                        : parse_sources(b, q, left, &s);
         if (got == -2)
            return fail(b, VCG_ENOMEM, err, errlen,
                        "out of memory for a record's sources");
         if (got < 0)
            return fail(b, VCG_EINPUT, err, errlen,
                        "VF record %llu: %s record malformed: a field over "
                        "32 bits%s", rno, name,
                        tag == CATS_VF_STEP
                           ? ""
                           : " or more than " VCG_BUILD_STR(CATS_VF_MAX_SOURCES)
                             " sources");
         if (got == 0) {
            if (!frame_end)
               break;
            return fail(b, VCG_EINPUT, err, errlen,
                        "VF record %llu: %s record truncated: the frame "
                        "ends %zu bytes into it", rno, name, left);
         }
         need = (size_t)got;
      } else {
         return fail(b, VCG_EINPUT, err, errlen,
                     "VF record %llu: unknown tag %u", rno, tag);
      }
      vcg_status st = tag == CATS_VF_VERTEX ? on_vertex(b, q, err, errlen)
                      : tag == CATS_VF_STEP ? on_step(b, &step, err, errlen)
                      : on_sources(b, &s, tag == CATS_VF_SOURCES_ALONE, err,
                                   errlen);
      if (st != VCG_OK)
         return st;
      b->records++;
      pos += need;
   }
   *used = pos;
   return VCG_OK;
}

/* --- VF_END -------------------------------------------------------------- */

/* Tool allocation ids -> the trace's. Register intermediates are in no
 * allocation, whatever the tool said. */
static vcg_status remap_allocs(vcg_builder *b, const uint8_t *table,
                               uint32_t n_allocs, char *err, size_t errlen)
{
   for (uint32_t i = 0; i < b->nv; i++) {
      vcg_build_vertex *v = &b->v[i];
      if (v->kind == CATS_VF_REGISTER) {
         v->alloc = CATS_NONE;
         v->offset_lo = v->offset_hi = 0;
         continue;
      }
      if (v->alloc == CATS_NONE)
         continue;
      if (v->alloc >= n_allocs)
         return fail(b, VCG_EINPUT, err, errlen,
                     "VF_END: vertex %u is in tool allocation %u, beyond "
                     "the table of %u", v->id, v->alloc, n_allocs);
      v->alloc = le_u32(table + 4 * (size_t)v->alloc);
   }
   return VCG_OK;
}

/* VF_END's final versions and flags for vertex 'id'. */
static vcg_status end_vertex(vcg_builder *b, uint32_t id, uint32_t versions,
                             uint8_t flags, char *err, size_t errlen)
{
   uint32_t i = find_vertex(b, id);
   if (i == VCG_BUILD_NIL && b->cut)
      return VCG_OK;   /* made after the cut */
   if (i == VCG_BUILD_NIL)
      return fail(b, VCG_EINPUT, err, errlen,
                  "VF_END: unknown vertex %u", id);
   vcg_build_vertex *v = &b->v[i];
   if (v->flags & VCG_BUILD_LISTED)
      return fail(b, VCG_EINPUT, err, errlen,
                  "VF_END: vertex %u listed twice", id);
   if (flags & ~(CATS_VF_END_OUTPUT | CATS_VF_END_CONTROL))
      return fail(b, VCG_EINPUT, err, errlen,
                  "VF_END: vertex %u has unknown flags 0x%x", id, flags);
   if (versions < v->version)
      return fail(b, VCG_EINPUT, err, errlen,
                  "VF_END: vertex %u has %u versions, but a SOURCES "
                  "record starts at version %u", id, versions,
                  v->version);
   close_record(b, v, (uint64_t)versions + 1);
   v->version = versions;
   v->flags |= VCG_BUILD_LISTED |
               (flags & CATS_VF_END_OUTPUT ? CATS_VCG_OUTPUT : 0) |
               (flags & CATS_VF_END_CONTROL ? CATS_VCG_CONTROL : 0);
   return VCG_OK;
}

vcg_status vcg_end(vcg_builder *b, const uint8_t *p, size_t len, char *err,
                   size_t errlen)
{
   if (b->state != VCG_BUILD_STREAM)
      return fail(b, VCG_ESTATE, err, errlen, "%s",
                  b->state == VCG_BUILD_FAILED ? "VF_END after an earlier error"
                                        : "VF_END sent twice");
   if (len < 8)
      return fail(b, VCG_EINPUT, err, errlen,
                  "VF_END: %zu bytes, too short for its header", len);
   uint32_t word = le_u32(p), n_allocs = le_u32(p + 4);
   if (word == 0 || word > VCG_BUILD_MAX_WORD || (word & (word - 1)) != 0)
      return fail(b, VCG_EINPUT, err, errlen,
                  "VF_END: word size %u is not a power of two up to %d",
                  word, VCG_BUILD_MAX_WORD);
   if ((uint64_t)n_allocs * 4 + 12 > len)
      return fail(b, VCG_EINPUT, err, errlen,
                  "VF_END: a table of %u allocations does not fit in %zu "
                  "bytes", n_allocs, len);
   size_t pos = 8 + 4 * (size_t)n_allocs;
   uint32_t n = le_u32(p + pos);
   pos += 4;
   if ((uint64_t)n * VCG_BUILD_END_ENTRY_LEN != len - pos)
      return fail(b, VCG_EINPUT, err, errlen,
                  "VF_END: %u runs of vertices need %llu bytes after the "
                  "allocation table, the frame has %zu", n,
                  (unsigned long long)n * VCG_BUILD_END_ENTRY_LEN, len - pos);
   vcg_status st = remap_allocs(b, p + 8, n_allocs, err, errlen);
   if (st != VCG_OK)
      return st;
   for (uint32_t k = 0; k < n; k++, pos += VCG_BUILD_END_ENTRY_LEN) {
      uint32_t first = le_u32(p + pos), count = le_u32(p + pos + 4);
      if (count == 0 || (uint64_t)first + count > UINT32_MAX)
         return fail(b, VCG_EINPUT, err, errlen,
                     "VF_END: a run of %u vertices from %u", count, first);
      for (uint32_t j = 0; j < count; j++) {
         st = end_vertex(b, first + j, le_u32(p + pos + 8), p[pos + 12], err,
                         errlen);
         if (st != VCG_OK)
            return st;
      }
   }
   /* A vertex not listed keeps the last version it was given. */
   for (uint32_t i = 0; i < b->nv; i++)
      if (!(b->v[i].flags & VCG_BUILD_LISTED))
         close_record(b, &b->v[i], (uint64_t)b->v[i].version + 1);
   b->word_size = word;
   b->state = VCG_BUILD_ENDED;
   return VCG_OK;
}

/* The order of the finished graph (docs/VCG.md): memory vertices by
 * (allocation, offset), then register intermediates by (location, tool
 * id); equal keys keep the builder's (creation) order. The radix sort is
 * stable, so memory vertices are sorted by their full 64-bit offset and
 * then by allocation: an offset need not fit 32 bits (an address with no
 * allocation, such as another thread's stack, is its own offset).
 * Returns the vertex indices in graph order, or NULL if out of memory. */
static uint32_t *vertex_order(const vcg_builder *b)
{
   size_t n = b->nv;
   uint64_t *key = malloc((n + 1) * sizeof *key);
   uint32_t *order = malloc((n + 1) * sizeof *order);
   if (!key || !order) {
      free(key);
      free(order);
      return NULL;
   }
   size_t nm = 0, nr = n;
   for (uint32_t i = 0; i < n; i++) {
      const vcg_build_vertex *v = &b->v[i];
      if (v->kind == CATS_VF_REGISTER) {
         nr--;
         key[nr] = (uint64_t)v->loc << 32 | v->id;
         order[nr] = i;
      } else {
         key[nm] = vcg_build_offset(v);
         order[nm] = i;
         nm++;
      }
   }
   /* The registers were filled from the end: restore creation order. */
   for (size_t lo = nm, hi = n; lo + 1 < hi; lo++, hi--) {
      uint64_t tk = key[lo];
      key[lo] = key[hi - 1];
      key[hi - 1] = tk;
      uint32_t to = order[lo];
      order[lo] = order[hi - 1];
      order[hi - 1] = to;
   }
   int bad = vcg_sort(key, order, nm) != 0;
   for (size_t i = 0; !bad && i < nm; i++)
      key[i] = b->v[order[i]].alloc;
   bad = bad || vcg_sort(key, order, nm) != 0 ||
         vcg_sort(key + nm, order + nm, n - nm) != 0;
   free(key);
   if (bad) {
      free(order);
      return NULL;
   }
   return order;
}

/* --- the finished graph: edges from each vertex's records ---------------- */

/* What finishing needs besides the builder: the graph order and its
 * inverse, and the edges of one vertex being made. */
typedef struct vcg_build_fin {
   uint32_t *order;     /* graph index -> builder index */
   uint32_t *map;       /* builder index -> graph index */
   uint32_t *old_at;    /* builder index -> its first edge in b->old
                           (group_old), nv + 1 entries */
   vcg_edge *e;         /* the edges of one vertex */
   uint32_t ne, cape;
} vcg_build_fin;

static void fin_free(vcg_build_fin *f)
{
   free(f->order);
   free(f->map);
   free(f->old_at);
   free(f->e);
   memset(f, 0, sizeof *f);
}


/* What each_rec calls for a record r of builder vertex i. */
typedef int vcg_build_rec_fn(vcg_builder *b, vcg_build_fin *f, uint32_t i,
                             const vcg_build_rec *r, void *arg);

/* Calls fn for each record of builder vertex i's ring. Returns the first
 * nonzero fn result, or 0. */
static int each_rec(vcg_builder *b, vcg_build_fin *f, uint32_t i, vcg_build_rec_fn *fn,
                    void *arg)
{
   const vcg_build_vertex *d = &b->v[i];
   int rc;
   if (d->open != VCG_BUILD_NIL) {
      uint32_t r = d->open;
      do {
         if ((rc = fn(b, f, i, &b->rec[r], arg)) != 0)
            return rc;
         r = b->rec[r].next;
      } while (r != d->open);
   }
   return 0;
}

static int add_weight(vcg_builder *b, vcg_build_fin *f, uint32_t i,
                      const vcg_build_rec *r, void *arg)
{
   (void)f;
   (void)i;
   uint32_t n = vcg_pattern_at(&b->lists, r->list)[0];
   *(uint64_t *)arg += (uint64_t)r->uses * (n ? n : 1);
   return 0;
}

/* The edges of record r of vertex i, appended to f->e (dst, the graph
 * index of i, is filled in later). -1 if out of memory. */
static int add_edges(vcg_builder *b, vcg_build_fin *f, uint32_t i,
                     const vcg_build_rec *r, void *arg)
{
   (void)arg;
   const uint32_t *list = vcg_pattern_at(&b->lists, r->list);
   uint32_t n = list[0], id = b->v[i].id;
   if (grow((void **)&f->e, &f->cape, f->ne + n, sizeof *f->e, UINT32_MAX) != 0)
      return -1;
   for (uint32_t k = 0; k < n; k++) {
      uint32_t src = find_vertex(b, id + list[1 + k]);
      f->e[f->ne++] = (vcg_edge){ .src = f->map[src], .ctx = r->ctx,
                                  .uses = r->uses };
   }
   return 0;
}

static int cmp_edge_src(const void *pa, const void *pb)
{
   const vcg_edge *a = pa, *b = pb;
   if (a->src != b->src)
      return a->src < b->src ? -1 : 1;
   return (a->ctx > b->ctx) - (a->ctx < b->ctx);
}

/* Vertex v (graph index) as the section has it. */
static vcg_vertex out_vertex(vcg_builder *b, vcg_build_fin *f, uint32_t v)
{
   uint32_t i = f->order[v];
   const vcg_build_vertex *d = &b->v[i];
   uint32_t flags = (d->flags & (CATS_VCG_OUTPUT | CATS_VCG_CONTROL)) |
                    (d->kind == CATS_VF_MEMORY_INPUT ? CATS_VCG_INPUT : 0) |
                    (d->kind == CATS_VF_REGISTER ? CATS_VCG_REGISTER : 0);
   uint64_t weight = 0;
   each_rec(b, f, i, add_weight, &weight);
   for (uint32_t k = f->old_at[i]; k < f->old_at[i + 1]; k++)
      weight += b->old[k].uses;
   return (vcg_vertex){ .alloc = d->alloc, .flags = flags,
                        .offset = vcg_build_offset(d), .size = d->size,
                        .ctx = d->ctx, .loc = d->loc,
                        .versions = d->version ? d->version : 1,
                        .weight = weight };
}

/* The in-edges of vertex v (graph index) into f->e[0..f->ne), sorted by
 * (src, ctx), each once: an edge that two records name (two contexts'
 * records, or a record that left its ring and came back) has the uses of
 * both, which are disjoint version ranges of v. -1 if out of memory. */
static int in_edges(vcg_builder *b, vcg_build_fin *f, uint32_t v)
{
   f->ne = 0;
   uint32_t i = f->order[v];
   if (each_rec(b, f, i, add_edges, NULL) != 0)
      return -1;
   if (grow((void **)&f->e, &f->cape, f->ne + (f->old_at[i + 1] - f->old_at[i]),
            sizeof *f->e, UINT32_MAX) != 0)
      return -1;
   for (uint32_t k = f->old_at[i]; k < f->old_at[i + 1]; k++) {
      const vcg_build_old *o = &b->old[k];
      if (o->src == VCG_BUILD_NIL)
         continue;
      f->e[f->ne++] = (vcg_edge){ .src = f->map[find_vertex(b, o->src)], .ctx = o->ctx,
                                  .uses = o->uses };
   }
   if (f->ne > 32) {
      qsort(f->e, f->ne, sizeof *f->e, cmp_edge_src);
   } else {
      /* Most vertices have a few in-edges: sorted inline. */
      for (uint32_t k = 1; k < f->ne; k++) {
         vcg_edge x = f->e[k];
         uint32_t j = k;
         for (; j > 0 && cmp_edge_src(&f->e[j - 1], &x) > 0; j--)
            f->e[j] = f->e[j - 1];
         f->e[j] = x;
      }
   }
   uint32_t n = 0;
   for (uint32_t k = 0; k < f->ne; k++) {
      vcg_edge *last = n ? &f->e[n - 1] : NULL;
      if (last && last->src == f->e[k].src && last->ctx == f->e[k].ctx) {
         last->uses += f->e[k].uses;
         continue;
      }
      f->e[n++] = f->e[k];
   }
   f->ne = n;
   for (uint32_t k = 0; k < n; k++) {
      const vcg_build_vertex *s = &b->v[f->order[f->e[k].src]];
      uint32_t sv = s->version ? s->version : 1;
      f->e[k].dst = v;
      f->e[k].versions = f->e[k].uses < sv ? f->e[k].uses : sv;
   }
   return 0;
}

/* The graph order (vertex_order) and its inverse; the records that left
 * their rings merged. */
static vcg_status fin_start(vcg_builder *b, vcg_build_fin *f, char *err, size_t errlen)
{
   memset(f, 0, sizeof *f);
   if (b->state != VCG_BUILD_ENDED)
      return fail(b, VCG_ESTATE, err, errlen, "%s",
                  b->state == VCG_BUILD_STREAM ? "the graph is not complete "
                                          "without VF_END"
                                        : "no graph to finish");
   f->order = vertex_order(b);
   f->map = malloc(((size_t)b->nv + 1) * sizeof *f->map);
   if (!f->order || !f->map || group_old(b, &f->old_at) != 0) {
      fin_free(f);
      return fail(b, VCG_ENOMEM, err, errlen,
                  "out of memory finishing the graph (%u vertices)", b->nv);
   }
   for (uint32_t v = 0; v < b->nv; v++)
      f->map[f->order[v]] = v;
   return VCG_OK;
}

/* The builder is done with: only vcg_builder_free remains. */
static void fin_done(vcg_builder *b, vcg_build_fin *f)
{
   fin_free(f);
   free(b->v);
   free(b->rec);
   free(b->old);
   b->v = NULL;
   b->rec = NULL;
   b->old = NULL;
   b->nv = b->capv = b->nrec = b->caprec = b->nold = b->capold = 0;
   vcg_idmap_free(&b->vidx);
   vcg_pattern_free(&b->lists);
   b->state = VCG_BUILD_FINISHED;
}

vcg_status vcg_finish_section(vcg_builder *b, struct trace_buf *out, struct vcg_spill *spill,
                              uint32_t *nv, uint32_t *ne, char *err, size_t errlen)
{
   vcg_build_fin f;
   vcg_status st = fin_start(b, &f, err, errlen);
   if (st != VCG_OK)
      return st;
   vcg_pack k;
   int bad = vcg_pack_begin(&k, out, spill, b->word_size) != 0;
   for (uint32_t v = 0; !bad && v < b->nv; v++) {
      vcg_vertex x = out_vertex(b, &f, v);
      bad = vcg_pack_vertex(&k, &x) != 0;
   }
   for (uint32_t v = 0; !bad && v < b->nv; v++) {
      bad = in_edges(b, &f, v) != 0 || vcg_pack_group(&k, f.e, f.ne) != 0;
   }
   if (bad) {
      st = fail(b, VCG_ENOMEM, err, errlen,
                "out of memory writing the value communication graph (%u "
                "vertices, %u edges)", b->nv, k.ne);
      fin_free(&f);
      return st;
   }
   /* The builder goes before the spilled part of the section comes back:
    * the two never stand in memory together. */
   uint32_t nvert = b->nv;
   fin_done(b, &f);
   if (vcg_pack_end(&k) != 0)
      return fail(b, VCG_ENOMEM, err, errlen,
                  "%s reading back the value communication graph's section "
                  "(%u vertices, %u edges)",
                  spill && spill->err != ENOMEM ? strerror(spill->err) : "out of memory",
                  nvert, k.ne);
   *nv = k.nv;
   *ne = k.ne;
   return VCG_OK;
}

vcg_status vcg_finish(vcg_builder *b, vcg_graph *g, char *err, size_t errlen)
{
   memset(g, 0, sizeof *g);
   vcg_build_fin f;
   vcg_status st = fin_start(b, &f, err, errlen);
   if (st != VCG_OK)
      return st;
   /* Edges are made per sink: gathered, then placed in (src, dst, ctx)
    * order by a counting sort on src (stable: each src's edges stay in
    * (dst, ctx) order). */
   vcg_vertex *out = malloc(((size_t)b->nv + 1) * sizeof *out);
   uint32_t *start = calloc((size_t)b->nv + 2, sizeof *start);
   vcg_edge *all = NULL, *sorted = NULL;
   uint32_t nall = 0, capall = 0;
   int bad = !out || !start;
   for (uint32_t v = 0; !bad && v < b->nv; v++) {
      out[v] = out_vertex(b, &f, v);
      bad = in_edges(b, &f, v) != 0 ||
            grow((void **)&all, &capall, nall + f.ne, sizeof *all, UINT32_MAX) != 0;
      if (!bad && f.ne) {
         memcpy(all + nall, f.e, (size_t)f.ne * sizeof *f.e);
         nall += f.ne;
      }
   }
   if (!bad && !(sorted = malloc(((size_t)nall + 1) * sizeof *sorted)))
      bad = 1;
   if (bad) {
      free(out);
      free(start);
      free(all);
      fin_free(&f);
      return fail(b, VCG_ENOMEM, err, errlen,
                  "out of memory finishing the graph (%u vertices, %u edges)",
                  b->nv, nall);
   }
   for (uint32_t j = 0; j < nall; j++)
      start[all[j].src + 1]++;
   for (uint32_t v = 0; v < b->nv; v++)
      start[v + 1] += start[v];
   for (uint32_t j = 0; j < nall; j++)
      sorted[start[all[j].src]++] = all[j];
   free(all);
   free(start);
   g->word_size = b->word_size;
   g->nvertices = b->nv;
   g->nedges = nall;
   g->vertices = out;
   g->edges = sorted;
   fin_done(b, &f);
   return VCG_OK;
}

void vcg_graph_free(vcg_graph *g)
{
   free(g->vertices);
   free(g->edges);
   memset(g, 0, sizeof *g);
}
