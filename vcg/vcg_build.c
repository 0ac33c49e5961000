/* SPDX-License-Identifier: GPL-2.0-or-later */
/* vcg_build.c: the value communication graph builder (see vcg_build.h). */
#include "vcg_build.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cats/format/cats_format.h"
#include "cats/trace/errmsg.h"
#include "cats/trace/le.h"
#include "vcg_idmap.h"
#include "vcg_index.h"
#include "vcg_records.h"
#include "vcg_edge_sort.h"
#include "vcg_sort.h"

#define VCG_BUILD_NIL 0xFFFFFFFFu
#define VCG_BUILD_STR_(x) #x
#define VCG_BUILD_STR(x) VCG_BUILD_STR_(x)
/* The source of a constant: a SOURCES record with n = 0 keeps its uses on
 * the edge (VCG_BUILD_CONST, dst, ctx), so that a vertex's weight, the sum over
 * its records of uses x max(1, n), is the sum of the uses of its
 * in-edges. These edges are dropped when the graph is finished. */
#define VCG_BUILD_CONST 0xFFFFFFFFu
#define VCG_BUILD_MAX_EDGES 0xFFFFFFFDu
#define VCG_BUILD_MAX_VERTICES 0xFFFFFFFEu

#define VCG_BUILD_VERTEX_LEN (1 + 4 + 1 + 4 + 8 + 4 + 4 + 4)
#define VCG_BUILD_END_ENTRY_LEN 13   /* u32 id, u32 count, u32 versions, u8 */
#define VCG_BUILD_MAX_WORD 4096

#define VCG_BUILD_LISTED 0x80u   /* vertex flag: named in VF_END */
#define VCG_BUILD_INDEXED 0x40u  /* vertex flag: its in-edges are in an index */
/* A first record this long checks its sources for repeats through the
 * index rather than pairwise. */
#define VCG_BUILD_PAIRWISE_MAX 64

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
   uint32_t open;       /* its open record in the pool, or VCG_BUILD_NIL */
   uint16_t size;       /* bytes: a word at most */
   uint8_t kind;        /* enum cats_vf_kind */
   uint8_t flags;       /* CATS_VCG_OUTPUT, _CONTROL, VCG_BUILD_LISTED,
                           VCG_BUILD_INDEXED */
} vcg_build_vertex;

/* The memory per vertex and per edge that vcg_build.h promises. */
_Static_assert(sizeof(vcg_build_vertex) == 36, "builder vertex size");

static uint64_t vcg_build_offset(const vcg_build_vertex *v)
{
   return (uint64_t)v->offset_hi << 32 | v->offset_lo;
}
_Static_assert(sizeof(vcg_build_edge) == 16, "builder edge size");
_Static_assert(sizeof(vcg_edge) == 20, "edge size");

enum vcg_build_state { VCG_BUILD_STREAM, VCG_BUILD_ENDED, VCG_BUILD_FINISHED, VCG_BUILD_FAILED };

struct vcg_builder {
   vcg_build_vertex *v;
   uint32_t nv, capv;
   vcg_build_edge *e;
   uint32_t ne, cape;
   vcg_idmap vidx;        /* tool id -> index in v */
   /* A vertex with many in-edges finds them through an index of its
    * own, (src, ctx) -> index in e: a record's lookups then stay in a
    * few lines, where one table of every edge had a cache miss each. */
   vcg_index *loc;
   uint32_t nloc, caploc;
   vcg_idmap locof;       /* vertex index -> its index in loc */
   size_t loc_bytes;    /* the tables of loc */
   vcg_records_pool rec;       /* each vertex's distinct records */
   uint64_t rec_floor;  /* pool words below which it is not compacted */
   uint32_t *scratch;   /* the edges of a record being made */
   uint32_t cap_scratch;
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

static void free_local_indices(vcg_builder *b)
{
   for (uint32_t k = 0; k < b->nloc; k++)
      vcg_index_free(&b->loc[k]);
   free(b->loc);
   b->loc = NULL;
   b->nloc = b->caploc = 0;
   b->loc_bytes = 0;
   vcg_idmap_free(&b->locof);
}

vcg_builder *vcg_builder_new(void)
{
   vcg_builder *b = calloc(1, sizeof *b);
   if (b)
      b->state = VCG_BUILD_STREAM;
   return b;
}

void vcg_builder_free(vcg_builder *b)
{
   if (!b)
      return;
   free(b->v);
   free(b->e);
   vcg_idmap_free(&b->vidx);
   free_local_indices(b);
   vcg_records_free(&b->rec);
   free(b->scratch);
   free(b->ids);
   free(b);
}

size_t vcg_builder_bytes(const vcg_builder *b)
{
   return sizeof *b + (size_t)b->capv * sizeof *b->v +
          (size_t)b->cape * sizeof *b->e + vcg_idmap_bytes(&b->vidx) +
          (size_t)b->caploc * sizeof *b->loc + vcg_idmap_bytes(&b->locof) +
          b->loc_bytes + b->rec.cap * sizeof *b->rec.w +
          (size_t)b->cap_scratch * sizeof *b->scratch +
          (size_t)b->cap_ids * sizeof *b->ids;
}

void vcg_builder_cut(vcg_builder *b)
{
   b->cut = 1;
}

void vcg_builder_counts(const vcg_builder *b, uint64_t *records,
                        uint32_t *vertices, uint32_t *edges)
{
   *records = b->records;
   *vertices = b->nv;
   *edges = b->ne;
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

/* --- lookups ------------------------------------------------------------ */


/* The key of an edge in its sink's index. */
static uint64_t edge_hash(uint32_t src, uint32_t ctx)
{
   return vcg_mix64((uint64_t)src << 32 | ctx);
}

static uint64_t edge_hash_at(const void *ctx, uint32_t i)
{
   const vcg_build_edge *e = &((const vcg_builder *)ctx)->e[i];
   return edge_hash(e->src, e->ctx);
}

/* Index of the vertex with tool id `id`, or VCG_BUILD_NIL. */
static uint32_t find_vertex(const vcg_builder *b, uint32_t id)
{
   return vcg_idmap_get(&b->vidx, id);
}

/* A new edge (src, dst, ctx) with no uses, not indexed; VCG_BUILD_NIL if out of
 * memory. */
static uint32_t append_edge(vcg_builder *b, uint32_t src, uint32_t dst,
                            uint32_t ctx)
{
   if (grow((void **)&b->e, &b->cape, b->ne + 1, sizeof *b->e,
            VCG_BUILD_MAX_EDGES) != 0)
      return VCG_BUILD_NIL;
   uint32_t i = b->ne++;
   b->e[i] = (vcg_build_edge){ .src = src, .dst = dst, .ctx = ctx, .uses = 0 };
   return i;
}

/* Room for one more edge in index x; 0, or -1 if out of memory. */
static int local_reserve(vcg_builder *b, vcg_index *x)
{
   size_t before = vcg_index_bytes(x);
   if (vcg_index_reserve(x, edge_hash_at, b) != 0)
      return -1;
   b->loc_bytes += vcg_index_bytes(x) - before;
   return 0;
}

/* Index of the edge (src, dst, ctx) in dst's index x, created with no
 * uses if new; VCG_BUILD_NIL if out of memory. */
static uint32_t get_edge(vcg_builder *b, vcg_index *x, uint32_t src,
                         uint32_t dst, uint32_t ctx)
{
   if (local_reserve(b, x) != 0)
      return VCG_BUILD_NIL;
   uint32_t pos = vcg_index_first(x, edge_hash(src, ctx));
   for (;; pos = vcg_index_next(x, pos)) {
      uint32_t i = x->slot[pos];
      if (i == VCG_INDEX_EMPTY)
         break;
      const vcg_build_edge *e = &b->e[i];
      if (e->src == src && e->ctx == ctx)
         return i;
   }
   uint32_t i = append_edge(b, src, dst, ctx);
   if (i != VCG_BUILD_NIL)
      vcg_index_put(x, pos, i);
   return i;
}

/* Vertex dst's index; it has one (VCG_BUILD_INDEXED). */
static vcg_index *local_index(vcg_builder *b, uint32_t dst)
{
   return &b->loc[vcg_idmap_get(&b->locof, dst)];
}

/* Gives vertex dst an empty index; 0, or -1 if out of memory. */
static int new_local_index(vcg_builder *b, uint32_t dst)
{
   if (grow((void **)&b->loc, &b->caploc, b->nloc + 1, sizeof *b->loc,
            VCG_BUILD_MAX_VERTICES) != 0 ||
       vcg_idmap_set(&b->locof, dst, b->nloc) != 0)
      return -1;
   b->loc[b->nloc++] = (vcg_index)VCG_INDEX_INIT;
   b->v[dst].flags |= VCG_BUILD_INDEXED;
   return 0;
}

/* --- records ------------------------------------------------------------ */

/* The pool may hold this many words before it is compacted to the open
 * records: room for every vertex's distinct records in a program whose
 * time steps repeat, a bound for one whose sources never do. */
#define VCG_BUILD_REC_BASE (4u << 20)
#define VCG_BUILD_REC_PER_EDGE 8u

/* Each edge of record r gets `uses` more. A record's edges were mostly
 * made together, so this touches a line or two of the edge array. */
static void add_record_uses(vcg_builder *b, uint32_t r, uint32_t uses)
{
   uint32_t ne = vcg_records_nedges(vcg_records_n(&b->rec, r));
   for (uint32_t k = 0; k < ne; k++)
      b->e[vcg_records_edge(&b->rec, r, k)].uses += uses;
}

/* End dst's open record at version `end`: each of its edges gets
 * end - version uses (the versions it made). */
static void close_record(vcg_builder *b, vcg_build_vertex *d, uint64_t end)
{
   if (d->version == 0)
      return;
   add_record_uses(b, d->open, (uint32_t)(end - d->version));
}

/* Records in d's ring, counted up to `limit`. */
static uint32_t ring_length(const vcg_builder *b, const vcg_build_vertex *d,
                            uint32_t limit)
{
   uint32_t n = 0, r = d->open;
   do {
      n++;
      r = vcg_records_at(&b->rec, r)[VCG_RECORDS_RING];
   } while (r != d->open && n < limit);
   return n;
}

/* Open record r of d at version `version`. */
static void open_record(vcg_build_vertex *d, uint32_t r, uint32_t version)
{
   d->open = r;
   d->version = version;
}

/* Keep the rings that STEP may walk, in their order, and of a longer
 * ring only the open record. Records that left their ring
 * (SOURCES_ALONE) go. */
static vcg_status compact_records(vcg_builder *b)
{
   vcg_records_pool fresh = VCG_RECORDS_POOL_INIT;
   for (uint32_t i = 0; i < b->nv; i++) {
      vcg_build_vertex *v = &b->v[i];
      if (v->open == VCG_BUILD_NIL)
         continue;
      int whole = ring_length(b, v, CATS_VF_RING_MAX + 1) <=
                  CATS_VF_RING_MAX;
      uint32_t r = v->open, first = VCG_RECORDS_NIL, last = VCG_RECORDS_NIL;
      do {
         last = vcg_records_copy(&fresh, &b->rec, r, last);
         if (last == VCG_RECORDS_NIL) {
            vcg_records_free(&fresh);
            return VCG_ENOMEM;
         }
         if (first == VCG_RECORDS_NIL)
            first = last;
         r = vcg_records_at(&b->rec, r)[VCG_RECORDS_RING];
      } while (whole && r != v->open);
      v->open = first;
   }
   vcg_records_free(&b->rec);
   b->rec = fresh;
   /* Rings kept whole may fill the pool: the next compaction waits
    * until it has grown as much again. */
   b->rec_floor = 2 * b->rec.len;
   return VCG_OK;
}

/* Edges of a vertex's records that are searched in place before the
 * vertex's edges go into the index. Most vertices get one record in a
 * whole run (the tool sends one only when the sources change) and most
 * others a few (a force accumulated over 16 neighbours: 16 records of 8
 * sources), so a new record finds its edges among its vertex's other
 * records, and the index holds only the edges of vertices with many.
 * A source new to the vertex is looked for in every edge of its ring, so
 * the bound is not higher: an accumulator in memory (c[i][j] in i-k-j
 * matmul: a record of three sources per k, two of them new) goes to the
 * index after 43 records, not 85, so that the helper keeps up with the
 * guest's first repetition; a force's 16 records of 8 stay below it. */
#define VCG_BUILD_SCAN_MAX 128u

/* Edge slots of d's records, counted up to more than `limit`. */
static uint32_t ring_edges(const vcg_builder *b, const vcg_build_vertex *d,
                           uint32_t limit)
{
   uint32_t total = 0, r = d->open;
   do {
      total += vcg_records_nedges(vcg_records_n(&b->rec, r));
      r = vcg_records_at(&b->rec, r)[VCG_RECORDS_RING];
   } while (r != d->open && total <= limit);
   return total;
}

/* The edge from src in context ctx among the records of d, or VCG_BUILD_NIL.
 * (A record's edges have its context.) */
static uint32_t ring_find(const vcg_builder *b, const vcg_build_vertex *d,
                          uint32_t src, uint32_t ctx)
{
   uint32_t r = d->open;
   do {
      if (b->e[vcg_records_edge(&b->rec, r, 0)].ctx == ctx) {
         uint32_t ne = vcg_records_nedges(vcg_records_n(&b->rec, r));
         for (uint32_t k = 0; k < ne; k++) {
            uint32_t i = vcg_records_edge(&b->rec, r, k);
            if (b->e[i].src == src)
               return i;
         }
      }
      r = vcg_records_at(&b->rec, r)[VCG_RECORDS_RING];
   } while (r != d->open);
   return VCG_BUILD_NIL;
}

/* Enter the edges of d's records into the index, each once. Edges of
 * records compacted away are not found again: an edge named by a later
 * record is then made twice, and the two are merged when the graph is
 * finished. */
static vcg_status index_open(vcg_builder *b, uint32_t dst)
{
   if (new_local_index(b, dst) != 0)
      return VCG_ENOMEM;
   vcg_index *x = local_index(b, dst);
   const vcg_build_vertex *d = &b->v[dst];
   uint32_t r = d->open;
   do {
      uint32_t n = vcg_records_n(&b->rec, r);
      for (uint32_t k = 0; k < vcg_records_nedges(n); k++) {
         if (local_reserve(b, x) != 0)
            return VCG_ENOMEM;
         uint32_t i = vcg_records_edge(&b->rec, r, k);
         const vcg_build_edge *e = &b->e[i];
         uint32_t pos = vcg_index_first(x, edge_hash(e->src, e->ctx));
         while (x->slot[pos] != VCG_INDEX_EMPTY && x->slot[pos] != i)
            pos = vcg_index_next(x, pos);
         if (x->slot[pos] == VCG_INDEX_EMPTY)
            vcg_index_put(x, pos, i);
      }
      r = vcg_records_at(&b->rec, r)[VCG_RECORDS_RING];
   } while (r != d->open);
   return VCG_OK;
}

/* The edge (src, dst, ctx) for source k of a new record of d whose first
 * k edges are `edges`, or VCG_BUILD_NIL if out of memory; x is d's index, if it
 * has one. A source named twice gets the same edge both times
 * (repeated_edge() finds it). */
static uint32_t record_edge(vcg_builder *b, const vcg_build_vertex *d,
                            vcg_index *x, uint32_t src, uint32_t dst,
                            uint32_t ctx, const uint32_t *edges, uint32_t k)
{
   if (x)
      return get_edge(b, x, src, dst, ctx);
   for (uint32_t j = 0; j < k; j++)
      if (b->e[edges[j]].src == src)
         return edges[j];
   uint32_t i = d->version ? ring_find(b, d, src, ctx) : VCG_BUILD_NIL;
   return i != VCG_BUILD_NIL ? i : append_edge(b, src, dst, ctx);
}

static int cmp_u32(const void *a, const void *b)
{
   uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
   return (x > y) - (x < y);
}

/* An edge that edges[0..n) holds twice (its source named twice), or
 * VCG_BUILD_NIL; *oom is set if a long record could not be checked. */
static uint32_t repeated_edge(const uint32_t *edges, uint32_t n, int *oom)
{
   *oom = 0;
   if (n <= VCG_BUILD_PAIRWISE_MAX) {
      for (uint32_t k = 1; k < n; k++)
         for (uint32_t j = 0; j < k; j++)
            if (edges[j] == edges[k])
               return edges[k];
      return VCG_BUILD_NIL;
   }
   uint32_t *sorted = malloc((size_t)n * sizeof *sorted);
   if (!sorted) {
      *oom = 1;
      return VCG_BUILD_NIL;
   }
   memcpy(sorted, edges, (size_t)n * sizeof *sorted);
   qsort(sorted, n, sizeof *sorted, cmp_u32);
   uint32_t twice = VCG_BUILD_NIL;
   for (uint32_t k = 1; k < n && twice == VCG_BUILD_NIL; k++)
      if (sorted[k] == sorted[k - 1])
         twice = sorted[k];
   free(sorted);
   return twice;
}

/* A SOURCES record, decoded; its sources are b->ids[0..n). */
typedef struct vcg_build_sources {
   uint32_t dst, version, ctx, n;
} vcg_build_sources;

/* A new record of vertex dst (d) from the SOURCES record s; its name in
 * *out. */
static vcg_status new_record(vcg_builder *b, uint32_t dst,
                             const vcg_build_sources *s, int alone, uint32_t *out,
                             char *err, size_t errlen)
{
   unsigned long long rno = (unsigned long long)b->records;
   vcg_build_vertex *d = &b->v[dst];
   uint32_t dst_id = s->dst, ctx = s->ctx, n = s->n;
   const uint32_t *ids = b->ids;
   if (d->version == 0 && n > VCG_BUILD_PAIRWISE_MAX &&
       new_local_index(b, dst) != 0)
      return fail(b, VCG_ENOMEM, err, errlen,
                  "out of memory for edges (%u edges)", b->ne);
   if (d->version != 0 && !(d->flags & VCG_BUILD_INDEXED) &&
       ring_edges(b, d, VCG_BUILD_SCAN_MAX) + n > VCG_BUILD_SCAN_MAX &&
       index_open(b, dst) != VCG_OK)
      return fail(b, VCG_ENOMEM, err, errlen,
                  "out of memory for edges (%u edges)", b->ne);
   vcg_index *x = d->flags & VCG_BUILD_INDEXED ? local_index(b, dst) : NULL;
   uint64_t limit = VCG_BUILD_REC_BASE + (uint64_t)VCG_BUILD_REC_PER_EDGE * b->ne;
   if (limit < b->rec_floor)
      limit = b->rec_floor;
   if (b->rec.len + VCG_RECORDS_HEAD + vcg_records_nedges(n) > limit &&
       compact_records(b) != VCG_OK)
      return fail(b, VCG_ENOMEM, err, errlen,
                  "out of memory for records (%u edges)", b->ne);
   /* The edges are found first, then stored in the record's form. */
   if (grow((void **)&b->scratch, &b->cap_scratch, vcg_records_nedges(n),
            sizeof *b->scratch, UINT32_MAX) != 0)
      return fail(b, VCG_ENOMEM, err, errlen,
                  "out of memory for a record of %u sources", n);
   uint32_t *edges = b->scratch;
   if (n == 0) {
      edges[0] = record_edge(b, d, x, VCG_BUILD_CONST, dst, ctx, edges, 0);
      if (edges[0] == VCG_BUILD_NIL)
         return fail(b, VCG_ENOMEM, err, errlen,
                     "out of memory for edges (%u edges)", b->ne);
   }
   for (uint32_t k = 0; k < n; k++) {
      uint32_t src_id = ids[k];
      if (find_vertex(b, src_id) == VCG_BUILD_NIL)
         return fail(b, VCG_EINPUT, err, errlen,
                     "VF record %llu: SOURCES of vertex %u names unknown "
                     "source vertex %u", rno, dst_id, src_id);
      edges[k] = record_edge(b, d, x, src_id, dst, ctx, edges, k);
      if (edges[k] == VCG_BUILD_NIL)
         return fail(b, VCG_ENOMEM, err, errlen,
                     "out of memory for edges (%u edges)", b->ne);
   }
   int oom;
   uint32_t twice = repeated_edge(edges, n, &oom);
   if (oom)
      return fail(b, VCG_ENOMEM, err, errlen,
                  "out of memory checking a record of %u sources", n);
   if (twice != VCG_BUILD_NIL)
      return fail(b, VCG_EINPUT, err, errlen,
                  "VF record %llu: SOURCES of vertex %u names source %u "
                  "twice", rno, dst_id, b->e[twice].src);
   uint32_t r = vcg_records_new(&b->rec, d->version && !alone ? d->open : VCG_RECORDS_NIL,
                                edges, n);
   if (r == VCG_RECORDS_NIL)
      return fail(b, VCG_ENOMEM, err, errlen,
                  "out of memory for records (%u edges)", b->ne);
   *out = r;
   return VCG_OK;
}

static vcg_status on_vertex(vcg_builder *b, const uint8_t *p, char *err,
                            size_t errlen)
{
   uint32_t id = le_u32(p + 1);
   uint8_t kind = p[5];
   if (kind > CATS_VF_REGISTER)
      return fail(b, VCG_EINPUT, err, errlen,
                  "VF record %llu: vertex %u has unknown kind %u",
                  (unsigned long long)b->records, id, kind);
   if (id == VCG_BUILD_CONST)
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
                     .size = (uint16_t)size,
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

/* Decodes the SOURCES record at q[0..left) into *s and b->ids: its
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
      b->ids[k] = s->dst + ((z >> 1) ^ (0u - (z & 1)));
   }
   return (long)pos;
}

/* SOURCES, a new record after the open one in its vertex's ring, or
 * with `alone` SOURCES_ALONE, a new record in a ring of its own. The
 * tool sends a record only when its ring of the vertex lacks it: the
 * helper does not look for it (a repeat is a STEP). */
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
   uint32_t r = VCG_RECORDS_NIL;
   vcg_status st = new_record(b, dst, s, alone, &r, err, errlen);
   if (st != VCG_OK)
      return st;
   close_record(b, d, version);
   open_record(d, r, version);
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
   /* Walked, not measured first: a run shorter than the ring passes
    * each record once. */
   uint32_t r = d->open, k;
   for (k = 0; k < s->dist && k <= CATS_VF_RING_MAX; k++) {
      r = vcg_records_at(&b->rec, r)[VCG_RECORDS_RING];
      if (r == d->open)
         break;
   }
   if (s->dist == 0 || k < s->dist)
      return fail(b, VCG_EINPUT, err, errlen,
                  "VF record %llu: STEP of vertex %u by %u records along "
                  "its ring of %u", rno, s->dst, s->dist,
                  ring_length(b, d, CATS_VF_RING_MAX + 1));
   close_record(b, d, s->version);
   uint32_t steps = s->m - 1, start = r;
   for (k = 0; k < steps; k++) {
      add_record_uses(b, r, 1);
      r = vcg_records_at(&b->rec, r)[VCG_RECORDS_RING];
      if (r == start) {
         /* Once round: the rest is whole turns and a part of one. */
         uint32_t ring = k + 1, left = steps - ring;
         uint32_t turns = left / ring, rest = left % ring;
         if (turns > 0) {
            do {
               add_record_uses(b, r, turns);
               r = vcg_records_at(&b->rec, r)[VCG_RECORDS_RING];
            } while (r != start);
         }
         for (k = 0; k < rest; k++) {
            add_record_uses(b, r, 1);
            r = vcg_records_at(&b->rec, r)[VCG_RECORDS_RING];
         }
         break;
      }
   }
   open_record(d, r, s->version + steps);
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
   vcg_records_free(&b->rec);
   b->word_size = word;
   b->state = VCG_BUILD_ENDED;
   return VCG_OK;
}

/* --- the finished graph -------------------------------------------------- */

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

vcg_status vcg_finish(vcg_builder *b, vcg_graph *g, char *err, size_t errlen)
{
   memset(g, 0, sizeof *g);
   if (b->state != VCG_BUILD_ENDED)
      return fail(b, VCG_ESTATE, err, errlen, "%s",
                  b->state == VCG_BUILD_STREAM ? "the graph is not complete "
                                          "without VF_END"
                                        : "no graph to finish");
   /* While the graph was built an edge's src was its source's tool id
    * (records compare through it); now its builder index. */
   for (uint32_t i = 0; i < b->ne; i++)
      if (b->e[i].src != VCG_BUILD_CONST)
         b->e[i].src = find_vertex(b, b->e[i].src);
   /* The tables are done with; free them before the new arrays. */
   vcg_idmap_free(&b->vidx);
   free_local_indices(b);
   uint32_t *order = vertex_order(b);
   uint32_t *map = malloc(((size_t)b->nv + 1) * sizeof *map);
   vcg_vertex *out = malloc(((size_t)b->nv + 1) * sizeof *out);
   if (!order || !map || !out) {
      free(order);
      free(map);
      free(out);
      return fail(b, VCG_ENOMEM, err, errlen,
                  "out of memory finishing the graph (%u vertices)", b->nv);
   }
   for (uint32_t i = 0; i < b->nv; i++) {
      const vcg_build_vertex *v = &b->v[order[i]];
      map[order[i]] = i;
      uint32_t flags = (v->flags & (CATS_VCG_OUTPUT | CATS_VCG_CONTROL)) |
                       (v->kind == CATS_VF_MEMORY_INPUT ? CATS_VCG_INPUT
                                                        : 0) |
                       (v->kind == CATS_VF_REGISTER ? CATS_VCG_REGISTER : 0);
      out[i] = (vcg_vertex){ .alloc = v->alloc, .flags = flags,
                             .offset = vcg_build_offset(v), .size = v->size,
                             .ctx = v->ctx, .loc = v->loc,
                             .versions = v->version ? v->version : 1,
                             .weight = 0 };
   }
   free(b->v);
   b->v = NULL;
   b->capv = 0;
   /* Weights from the in-edges, then the constants' edges go. */
   uint32_t ne = 0;
   for (uint32_t i = 0; i < b->ne; i++) {
      vcg_build_edge e = b->e[i];
      e.dst = map[e.dst];
      out[e.dst].weight += e.uses;
      if (e.src == VCG_BUILD_CONST)
         continue;
      e.src = map[e.src];
      b->e[ne++] = e;
   }
   free(map);
   free(order);
   /* The edges widen to the graph's in place, from the last down (edge i
    * moves from 16 i to 20 i, over edges already moved): the array's
    * slack goes and no second copy is made. */
   uint8_t *buf = realloc(b->e, ((size_t)ne + 1) * sizeof(vcg_edge));
   if (!buf) {
      free(out);
      return fail(b, VCG_ENOMEM, err, errlen,
                  "out of memory finishing the graph (%u edges)", ne);
   }
   b->e = NULL;
   vcg_edge *ge = (vcg_edge *)buf;
   for (uint32_t i = ne; i-- > 0;) {
      vcg_build_edge x;
      memcpy(&x, buf + (size_t)i * sizeof x, sizeof x);
      vcg_edge y = { .src = x.src, .dst = x.dst, .ctx = x.ctx,
                     .uses = x.uses, .versions = 0 };
      memcpy(buf + (size_t)i * sizeof y, &y, sizeof y);
   }
   vcg_edge_sort(ge, ne, b->nv);
   /* An edge made twice (index_open) is one: its uses are disjoint
      version ranges of its dst, so they add up. */
   uint32_t unique = 0;
   for (uint32_t i = 0; i < ne; i++) {
      vcg_edge *last = unique ? &ge[unique - 1] : NULL;
      if (last && last->src == ge[i].src && last->dst == ge[i].dst &&
          last->ctx == ge[i].ctx)
         last->uses += ge[i].uses;
      else
         ge[unique++] = ge[i];
   }
   ne = unique;
   for (uint32_t i = 0; i < ne; i++) {
      uint32_t sv = out[ge[i].src].versions;
      ge[i].versions = ge[i].uses < sv ? ge[i].uses : sv;
   }
   g->word_size = b->word_size;
   g->nvertices = b->nv;
   g->nedges = ne;
   g->vertices = out;
   g->edges = ge;
   b->nv = b->ne = b->cape = 0;
   b->state = VCG_BUILD_FINISHED;
   return VCG_OK;
}

void vcg_graph_free(vcg_graph *g)
{
   free(g->vertices);
   free(g->edges);
   memset(g, 0, sizeof *g);
}
