/* SPDX-License-Identifier: GPL-2.0-or-later */
/*--------------------------------------------------------------------*/
/*--- cats: value flow at loads and stores.                cats_vf.c ---*/
/*--------------------------------------------------------------------*/
/* The hooks of loads and stores when value flow is on: each does the
   trace's work (inline, cats_access.h) and then moves provenance between
   memory and the IR temporaries (cats_vf_instr.c), in one call.

   - A load returns the provenance of the words it reads, one per 8-byte
     lane. A word of ordinary memory that was never written is an input:
     it becomes a vertex at its first read.
   - A store of a copied value (P is a vertex) just copies P. A store of
     a computed value (a set, or a constant) creates a new version of
     the vertex at the stored word, unless the word is a carrier (stack
     memory: spills, locals, small workspaces), which keeps the set.

   New vertices and changed source sets are written to a buffer that is
   streamed to the helper (docs/VCG.md), which builds the graph on the
   other core. A version with the same sources and context as the one
   before it sends nothing: repeated time steps cost no messages. */

#include "cats_tool.h"
#include "cats_vf.h"
#include "cats_access.h"
#include "pub_tool_machine.h"
#include "pub_tool_aspacemgr.h"

Bool  CATS_(clo_value_flow) = True;
UInt  CATS_(clo_vf_granularity) = 8;
Bool  CATS_(clo_vf_acc_log) = True;
ULong CATS_(clo_vf_stack_array_min) = 1024;
UInt  CATS_(vf_lane_hi)[2];

#define VF_FLUSH_BYTES (1u << 20)

static CatsBuf stream;
static Bool    emitting;      /* the helper gets the stream */
static ULong   stream_bytes, n_vertex_recs, n_sources_recs, n_step_recs;

void CATS_(vf_init)(void)
{
   CATS_(vf_shadow_init)();
   CATS_(vf_sets_init)();
   CATS_(buf_init)(&stream);
   emitting = True;
}

/* A forked child has a helper of its own, which never saw the
   parent's vertices: its trace has no graph. */
void CATS_(vf_after_fork)(void)
{
   emitting = False;
   stream.len = 0;
}

static void flush(void)
{
   if (stream.len == 0)
      return;
   if (emitting && !CATS_(send_stream)(CATS_FRAME_VF, stream.data,
                                       stream.len))
      emitting = False;
   stream_bytes += stream.len;
   stream.len = 0;
}

/* LEB128 (docs/VCG.md): a SOURCES record's fields are small, and its
   sources lie near its vertex (their difference is small), so records
   are under half their fixed-width size, and the pipe's copies, a
   large part of a run that sends many, shrink with them. */
static inline UChar* put_var32(UChar* q, UInt v)
{
   while (v >= 0x80) {
      *q++ = (UChar)(v | 0x80);
      v >>= 7;
   }
   *q++ = (UChar)v;
   return q;
}

void CATS_(vf_send_version)(UInt id, UInt v, UInt tag, const UInt* m,
                            UInt n, UChar kind, UInt alloc, ULong off,
                            UInt size, UInt loc)
{
   UInt ctx = CATS_(cur_ctx), i;
   if (!emitting)
      return;
   /* Records are written in place: the host is little-endian, like
      the format, and takes unaligned stores. */
   if (v == 1) {
      n_vertex_recs++;
      UChar* r = CATS_(buf_room)(&stream, 30);
      r[0] = CATS_VF_VERTEX;
      *(UInt*)(r + 1) = id;
      r[5] = kind;
      *(UInt*)(r + 6) = alloc;
      *(ULong*)(r + 10) = off;
      *(UInt*)(r + 18) = size;
      *(UInt*)(r + 22) = ctx;
      *(UInt*)(r + 26) = loc;
   }
   if (tag != 0) {
      n_sources_recs++;
      SizeT max = 1 + 4 * 5 + 5 * (SizeT)n;
      UChar* r = CATS_(buf_room)(&stream, max);
      UChar* q = r;
      *q++ = (UChar)tag;
      q = put_var32(q, id);
      q = put_var32(q, v);
      q = put_var32(q, ctx);
      q = put_var32(q, n);
      for (i = 0; i < n; i++) {
         Int d = (Int)(m[i] - id);   /* zigzag: -1 is 1, 1 is 2 */
         q = put_var32(q, ((UInt)d << 1) ^ (UInt)(d >> 31));
      }
      stream.len -= max - (SizeT)(q - r);
   }
   if (stream.len >= VF_FLUSH_BYTES)
      flush();
}

void CATS_(vf_send_step)(UInt id, UInt v, UInt d, UInt m)
{
   if (!emitting)
      return;
   n_step_recs++;
   UChar* r = CATS_(buf_room)(&stream, 1 + 4 * 5);
   UChar* q = r;
   *q++ = CATS_VF_STEP;
   q = put_var32(q, id);
   q = put_var32(q, v);
   q = put_var32(q, d);
   q = put_var32(q, m);
   stream.len -= 1 + 4 * 5 - (SizeT)(q - r);
   if (stream.len >= VF_FLUSH_BYTES)
      flush();
}

/* The trace's work, inline (cats_access.h); one predictable branch. */
static inline Event* trace_access(Site* s, Addr a)
{
   if (CATS_(clo_reuse_distance))
      return CATS_(trace_access_reuse)(s, a);
   return CATS_(trace_access)(s, a);
}

/* The container the access at 'a' was attributed to, or NULL. */
static inline Block* block_of(const Site* s, Addr a)
{
   Block* b = s->blk;
   return (b != NULL && s->blk_epoch == b->epoch && a - b->lo < b->hi - b->lo)
          ? b : NULL;
}

/* Memory that no container claims but that lies on the thread's stack
   (code outside known functions) is a carrier too. */
static Bool unattributed_carrier(Addr a)
{
   const Thread* t = CATS_(cur_thread);
   if (t == NULL)
      return False;
   Addr sp = VG_(get_SP)(t->tid);
   return a + 4096 >= sp && a < t->stack_hi;
}

static inline Bool is_carrier(const Block* b, Addr a)
{
   return b != NULL ? b->carrier : unattributed_carrier(a);
}

static inline UInt lanes_of(UInt size)
{
   return size <= 8 ? 1 : size / 8;
}

/* A memory vertex's size: its word from the first store on, within the
   container. A value of the program's type fills its word whatever
   wrote it first: memset's byte stores (rep stosb), calloc's, memcpy's
   wide ones, or a 4-byte int beside another in one 8-byte word. */
static inline UInt vertex_size(const Block* b, Addr a, UInt len, UInt sh)
{
   if (b == NULL)
      return len;
   Addr end = (a | (((Addr)1 << sh) - 1)) + 1;
   if (end > b->hi)
      end = b->hi;
   return end > a + len ? (UInt)(end - a) : len;
}

/* The provenance of the word at 'a', whose shadow slot is 'slot'. */
static UInt load_lane(const Site* s, Block* b, Bool carrier, UInt* slot,
                      Addr a, UInt len)
{
   UInt p = *slot;
   if (LIKELY(p != 0) || carrier)
      return p;
   /* Read-only data are the program's literals (constant pools,
      const tables): constants, like immediates. */
   if (b != NULL && b->literal != 2) {
      if (b->literal == 0) {
         NSegment const* seg = VG_(am_find_nsegment)(a);
         b->literal = seg != NULL && !seg->hasW ? 1 : 2;
      }
      if (b->literal == 1)
         return 0;
   }
   /* Read before any write: an input value. */
   UInt *ver, *sig;
   UInt id = CATS_(vf_word_vertex)(a, &ver, &sig);
   if (*ver == 0)
      CATS_(vf_send_version)(id, ++*ver, 0, NULL, 0, CATS_VF_MEMORY_INPUT,
                             b ? b->alloc : CATS_NONE,
                             b ? (ULong)(a - b->origin) : (ULong)a,
                             vertex_size(b, a, len, CATS_(vf_wshift)), s->loc);
   *slot = id;
   return id;
}

static ULong load_slow(Site* s, Addr a, UInt* slot0, UInt* slot1);

/* A vector load reads each 8-byte lane from whichever context stored it
   (a stencil's window straddles the ghost cells). */
static void dep_read_lanes(Site* s, Event* e, Addr a, UInt sh)
{
   Addr x, end = a + s->size;
   for (x = a; x < end; x += 8) {
      VfSecMap* m = CATS_(vf_map)(x);
      CATS_(vf_dep_read)(s, e, m, CATS_(vf_word)(x, sh), 8);
   }
}

/* The load hook for loads of up to 8 bytes (max 8), of 16 (max 16) or
   of any other size (max 32, no fast path): one entry point per size,
   chosen when the load is instrumented, so that the size's branches,
   predictable at a site, are not shared by every load of the program;
   and per granularity (words of 1 << sh bytes), so that its shifts are
   constants. */
static inline __attribute__((always_inline))
ULong load_hook(Site* s, Addr a, UInt max, UInt sh)
{
   Event* e = trace_access(s, a);
   /* Words that hold a value already (all but a value's first read)
      return at once, without the container and carrier checks. */
   VfSecMap* m0 = CATS_(vf_map)(a);
   UInt w0 = CATS_(vf_word)(a, sh);
   UInt* slot0 = &m0->p[w0];
   if (max <= 8 || s->size <= 8)
      CATS_(vf_dep_read)(s, e, m0, w0, s->size);
   else
      dep_read_lanes(s, e, a, sh);
   UInt* slot1 = max < 16 ? NULL
                 : (a & (VF_SM_SPAN - 1)) + 8 < VF_SM_SPAN
                 ? slot0 + (8 >> sh)   /* the same map */
                 : CATS_(vf_p_slot_sh)(a + 8, sh);
   if (max <= 8) {
      if (LIKELY(*slot0 != 0))
         return *slot0;
   } else if (max == 16 && LIKELY((*slot0 != 0) & (*slot1 != 0))) {
      return *slot0 | ((ULong)*slot1 << 32);
   }
   return load_slow(s, a, slot0, slot1);
}

#define LOAD_HOOKS(g, sh)                                                 \
   static VG_REGPARM(2) ULong load8_g##g(Site* s, Addr a)                 \
   {                                                                      \
      return load_hook(s, a, 8, sh);                                      \
   }                                                                      \
   static VG_REGPARM(2) ULong load16_g##g(Site* s, Addr a)                \
   {                                                                      \
      return load_hook(s, a, 16, sh);                                     \
   }                                                                      \
   static VG_REGPARM(2) ULong load_g##g(Site* s, Addr a)                  \
   {                                                                      \
      return load_hook(s, a, 32, sh);                                     \
   }
LOAD_HOOKS(8, 3)
LOAD_HOOKS(4, 2)

void* CATS_(vf_load_hook)(UInt size)
{
   Bool g8 = CATS_(vf_wshift) == 3;
   if (size <= 8)
      return g8 ? (void*)load8_g8 : (void*)load8_g4;
   if (size == 16)
      return g8 ? (void*)load16_g8 : (void*)load16_g4;
   return g8 ? (void*)load_g8 : (void*)load_g4;
}

/* A value's first read, or a word no value was stored in. */
static ULong load_slow(Site* s, Addr a, UInt* slot0, UInt* slot1)
{
   Block* b = block_of(s, a);
   Bool carrier = is_carrier(b, a);
   UInt n = lanes_of(s->size), len = s->size < 8 ? s->size : 8;
   UInt p0 = load_lane(s, b, carrier, slot0, a, len);
   if (n == 1)
      return p0;
   UInt p1 = load_lane(s, b, carrier, slot1, a + 8, len);
   if (n > 2) {
      CATS_(vf_lane_hi)[0] = load_lane(s, b, carrier,
                                       CATS_(vf_p_slot)(a + 16), a + 16, len);
      CATS_(vf_lane_hi)[1] = load_lane(s, b, carrier,
                                       CATS_(vf_p_slot)(a + 24), a + 24, len);
   }
   return p0 | ((ULong)p1 << 32);
}

/* Where a version's sources come from when they are sent: the set P,
   the list m[0..n), the union of the inputs in[0..4) of which one is a
   set (vf_union_store_hash), or the distinct ones among the single
   values in[0..4). */
enum { LIST_OF_P, LIST_GIVEN, LIST_OF_UNION, LIST_OF_SINGLES };

/* A version's sources, as 'how' gives them: m[0..n) itself for
   LIST_GIVEN, else listed into mm (room for 4 * VF_SET_CAP); returns
   their count, with *out pointing at them. */
static inline __attribute__((always_inline))
UInt list_sources(Int how, UInt p, const UInt* m, UInt n, const UInt* in,
                  UInt* mm, const UInt** out)
{
   *out = mm;
   if (how == LIST_OF_UNION)
      return CATS_(vf_union_list)(in, mm);
   if (how == LIST_OF_SINGLES) {
      UInt x[4] = { in[0] & VF_ID_MASK, in[1] & VF_ID_MASK,
                    in[2] & VF_ID_MASK, in[3] & VF_ID_MASK };
      return CATS_(vf_distinct4)(x, mm);
   }
   if (how == LIST_OF_P)
      return CATS_(vf_members)(p, mm);
   *out = m;
   return n;
}

/* The word's new version, whose sources' signature comes from the hash
   h. The sources themselves are listed only when the helper is sent
   them ('how'; a constant at each call, so the others' code goes).
   Returns the vertex, and in *sigp the signature (again_value's).
   Inline, as store_atoms is: called, they took nine arguments, some on
   the stack, twice per stored lane. */
static inline __attribute__((always_inline))
UInt store_version(const Site* s, Block* b, VfSecMap* map, UInt w, Addr a,
                   UInt len, ULong h, Int how, UInt p, const UInt* m, UInt n,
                   const UInt* in, UInt sh, UInt* sigp)
{
   if (UNLIKELY(map->seq == 0))
      CATS_(vf_map_vertices)(map);
   UInt v = (map->seq << (VF_SM_BITS - sh)) | w;
   UInt* vs = &map->vs[2 * w];
   UInt sig = CATS_(vf_sig)(h);
   UInt tag;
   *sigp = sig;
   if (CATS_(vf_bump)(&vs[0], &vs[1], sig)
       && (tag = CATS_(vf_record_tag)(v, vs[0], &vs[1], sig)) != 0) {
      UInt mm[4 * VF_SET_CAP];
      n = list_sources(how, p, m, n, in, mm, &m);
      CATS_(vf_send_version)(v, vs[0], tag, m, n, CATS_VF_MEMORY,
                             b ? b->alloc : CATS_NONE,
                             b ? (ULong)(a - b->origin) : (ULong)a,
                             vertex_size(b, a, len, sh), s->loc);
   }
   return v;
}

/* Every word the lane covers holds the value; its vertex is at the
   first. */
static inline void store_words(VfSecMap* map, UInt w, Addr a, UInt len,
                               UInt v, UInt sh)
{
   Addr step = (Addr)1 << sh;
   if (LIKELY((a & (step - 1)) + len <= step)) {
      map->p[w] = v;
      CATS_(vf_dep_wrote)(map, w);
      return;
   }
   Addr x = a & ~(step - 1), end = a + len;
   for (; x < end; x += step) {
      VfSecMap* m = CATS_(vf_map)(x);
      UInt wx = CATS_(vf_word)(x, sh);
      m->p[wx] = v;
      CATS_(vf_dep_wrote)(m, wx);
   }
}

/* The shadow map of 'a' and its word there. */
static inline VfSecMap* map_word(Addr a, UInt* w, UInt sh)
{
   *w = CATS_(vf_word)(a, sh);
   return CATS_(vf_map)(a);
}

/* What the stored register holds once a store site made vertex v of a
   value whose sources' signature is sig (listed as store_version lists
   them):
   v, unless the site's last store made a value of the same sources in
   the same context, a link of a reduction's chain among them, to
   another word. Then the value is the scalar the site stored first,
   computed again, which the register goes on holding: a step size
   computed once per iteration from the same reduction and logged to
   the next element of an array (alphas[it] = alpha) is read from the
   register as one value, not as a new element at each iteration, which
   gave every element that reads it one edge more per iteration
   (docs/VCG.md).
   Without a reduction among the sources the value is an element's: the
   cells of a region set to one state's copies compute the same sources,
   and so do a uniform mesh's coordinates from its spacing (a hub), and
   each is read from its own word. The sources are listed only then
   (again_slow): the signature tells the common case, a new value. */
static __attribute__((noinline))
UInt again_slow(VfSite* site, UInt v, Int how, UInt p, const UInt* m, UInt n,
                const UInt* in)
{
   if (site->rep_id == v)
      return v;
   UInt mm[4 * VF_SET_CAP], i;
   const UInt* l;
   n = list_sources(how, p, m, n, in, mm, &l);
   for (i = 0; i < n; i++)
      if (CATS_(vf_is_link)(l[i]))
         return site->rep_id;
   return v;
}

static inline __attribute__((always_inline))
UInt again_value(VfSite* site, UInt sig, UInt v, Int how, UInt p,
                 const UInt* m, UInt n, const UInt* in)
{
   if (site == NULL)
      return v;
   if (LIKELY(sig != site->rep_sig)) {
      site->rep_sig = sig;
      site->rep_id = v;
      return v;
   }
   return again_slow(site, v, how, p, m, n, in);
}

/* Returns what the stored register holds from now on: the new value,
   when the store created one (again_value, for the site 'memo' of an
   atoms store). */
static UInt store_lane(const Site* s, VfSite* memo, Block* b, Bool carrier,
                       VfSecMap* map, UInt w, Addr a, UInt len, UInt p)
{
   UInt v = p, r = p, sh = CATS_(vf_wshift), sig;
   if (!carrier && (p == 0 || (p & (VF_SET_BIT | VF_ONE_BIT)))) {
      v = store_version(s, b, map, w, a, len, CATS_(vf_prov_hash)(p),
                        LIST_OF_P, p, NULL, 0, NULL, sh, &sig);
      /* A stored constant stays a constant in the register: the same
         constant stored again (an unrolled loop filling an array) is
         another value, not a copy of the first. */
      r = p == 0 ? 0 : again_value(memo, sig, v, LIST_OF_P, p, NULL, 0, NULL);
   }
   store_words(map, w, a, len, v, sh);
   return r;
}

static UInt store_lane_at(const Site* s, Block* b, Bool carrier, Addr a,
                          UInt len, UInt p)
{
   UInt w;
   VfSecMap* m = map_word(a, &w, CATS_(vf_wshift));
   return store_lane(s, NULL, b, carrier, m, w, a, len, p);
}

/* A lane given as four provenances. Single values stored to a vertex
   (c = a + b, the common case) need no set: their ids are the
   version's sources. */
static inline __attribute__((always_inline))
UInt store_atoms(const Site* s, VfSite* site, Block* b, Bool carrier,
                 VfSecMap* map, UInt w, Addr a, UInt len, ULong ab, ULong cd,
                 UInt sh)
{
   UInt in[4] = { (UInt)ab, (UInt)(ab >> 32), (UInt)cd, (UInt)(cd >> 32) };
   UInt m[4], n = 0;
   if ((in[1] | cd) == 0)
      return store_lane(s, site, b, carrier, map, w, a, len, in[0]);
   if (carrier)
      return store_lane(s, site, b, carrier, map, w, a, len,
                        CATS_(vf_atoms_value)(site, in));
   if ((in[0] | in[1] | in[2] | in[3]) & VF_SET_BIT) {
      /* The stored register holds the new vertex from now on, so the
         union is needed only as the version's sources, and those only
         when the helper has not had them. */
      ULong h;
      UInt v, sig;
      if (CATS_(vf_union_store_hash)(site, in, &h)) {
         v = store_version(s, b, map, w, a, len, h, LIST_OF_UNION, 0, NULL,
                           0, in, sh, &sig);
         store_words(map, w, a, len, v, sh);
         return again_value(site, sig, v, LIST_OF_UNION, 0, NULL, 0, in);
      } else {
         UInt all[4 * VF_SET_CAP], p;
         n = CATS_(vf_union_sources)(site, in, all, &p);
         if (n == 0)
            return store_lane(s, site, b, carrier, map, w, a, len, p);
         v = store_version(s, b, map, w, a, len,
                           CATS_(vf_sources_hash)(all, n), LIST_GIVEN, 0,
                           all, n, NULL, sh, &sig);
         store_words(map, w, a, len, v, sh);
         return again_value(site, sig, v, LIST_GIVEN, 0, all, n, NULL);
      }
   }
   m[0] = in[0] & VF_ID_MASK;
   m[1] = in[1] & VF_ID_MASK;
   UInt v, sig;
   if (cd == 0 && m[0] != 0 && m[1] != 0 && m[0] != m[1]) {
      /* c = a + b: a site stores it at every iteration */
      v = store_version(s, b, map, w, a, len, CATS_(vf_sources_hash)(m, 2),
                        LIST_GIVEN, 0, m, 2, NULL, sh, &sig);
      store_words(map, w, a, len, v, sh);
      return again_value(site, sig, v, LIST_GIVEN, 0, m, 2, NULL);
   } else {
      /* Up to four single values: one value, or several whose
         signature hashes the four slots as they are, repeats and empty
         ones too (the distinct ones are found only for a record that
         is sent). */
      UInt x[4] = { m[0], m[1], in[2] & VF_ID_MASK, in[3] & VF_ID_MASK };
      UInt f = x[0] ? x[0] : x[1] ? x[1] : x[2] ? x[2] : x[3];
      if (((x[1] == 0) | (x[1] == f)) & ((x[2] == 0) | (x[2] == f))
          & ((x[3] == 0) | (x[3] == f)))
         return store_lane(s, site, b, carrier, map, w, a, len,
                           f ? VF_ONE_BIT | f : 0);
      v = store_version(s, b, map, w, a, len, CATS_(vf_sources_hash)(x, 4),
                        LIST_OF_SINGLES, 0, NULL, 0, in, sh, &sig);
   }
   store_words(map, w, a, len, v, sh);
   return again_value(site, sig, v, LIST_OF_SINGLES, 0, NULL, 0, in);
}

/* The store hook for one lane (a store of up to 8 bytes, max 8) or two
   (max 16): an entry point each and per granularity, as the load hook
   has, the first with two arguments fewer. */
static inline __attribute__((always_inline))
ULong store_hook(Site* s, Addr a, ULong ab0, ULong cd0, ULong ab1,
                 ULong cd1, UInt max, UInt sh)
{
   trace_access(s, a);
   Block* b = block_of(s, a);
   Bool carrier = is_carrier(b, a);
   UInt len = s->size < 8 ? s->size : 8;
   UInt w;
   VfSecMap* m = map_word(a, &w, sh);
   UInt v0 = store_atoms(s, s->vf, b, carrier, m, w, a, len, ab0, cd0, sh);
   if (max <= 8 || s->size <= 8)
      return v0;
   if ((a & (VF_SM_SPAN - 1)) + 8 < VF_SM_SPAN)
      w += 8 >> sh;   /* the same map */
   else
      m = map_word(a + 8, &w, sh);
   UInt v1 = store_atoms(s, s->vf + 1, b, carrier, m, w, a + 8, len, ab1,
                         cd1, sh);
   return v0 | ((ULong)v1 << 32);
}

#define STORE_HOOKS(g, sh)                                                \
   static VG_REGPARM(3) ULong store_atoms8_g##g(Site* s, Addr a,          \
                                                ULong ab0, ULong cd0)     \
   {                                                                      \
      return store_hook(s, a, ab0, cd0, 0, 0, 8, sh);                     \
   }                                                                      \
   static ULong store_atoms_g##g(Site* s, Addr a, ULong ab0, ULong cd0,   \
                                 ULong ab1, ULong cd1)                    \
   {                                                                      \
      return store_hook(s, a, ab0, cd0, ab1, cd1, 16, sh);                \
   }
STORE_HOOKS(8, 3)
STORE_HOOKS(4, 2)

void* CATS_(vf_store_atoms_hook)(UInt size)
{
   Bool g8 = CATS_(vf_wshift) == 3;
   if (size <= 8)
      return g8 ? (void*)store_atoms8_g8 : (void*)store_atoms8_g4;
   return g8 ? (void*)store_atoms_g8 : (void*)store_atoms_g4;
}

/* Returns the provenance of the stored lanes from now on (lanes 2 and
   3 in CATS_(vf_lane_hi)): a computed value, once stored, is that
   value, so storing the same register again elsewhere copies it. */
VG_REGPARM(3) ULong CATS_(vf_store)(Site* s, Addr a, ULong p01, ULong p23)
{
   trace_access(s, a);
   Block* b = block_of(s, a);
   Bool carrier = is_carrier(b, a);
   UInt n = lanes_of(s->size), len = s->size < 8 ? s->size : 8;
   UInt v0 = store_lane_at(s, b, carrier, a, len, (UInt)p01);
   if (n == 1)
      return v0;
   UInt v1 = store_lane_at(s, b, carrier, a + 8, len, (UInt)(p01 >> 32));
   if (n > 2) {
      CATS_(vf_lane_hi)[0] = store_lane_at(s, b, carrier, a + 16, len,
                                           (UInt)p23);
      CATS_(vf_lane_hi)[1] = store_lane_at(s, b, carrier, a + 24, len,
                                           (UInt)(p23 >> 32));
   }
   return v0 | ((ULong)v1 << 32);
}

/*------------------------------------------------------------*/
/*--- The end of the run                                   ---*/
/*------------------------------------------------------------*/

/* VF_END lists runs of consecutive ids with the same final versions and
   flags: the words of an array updated at every time step are one run
   per 64 KiB of it, not 9 bytes each. */
typedef struct {
   CatsBuf* b;
   UInt     n;                   /* runs sent */
   UInt     first, count, versions;
   UChar    flags;
} EndList;

static void end_flush(EndList* l)
{
   if (l->count == 0)
      return;
   CATS_(put_u32)(l->b, l->first);
   CATS_(put_u32)(l->b, l->count);
   CATS_(put_u32)(l->b, l->versions);
   CATS_(put_u8)(l->b, l->flags);
   l->n++;
   l->count = 0;
}

static void end_add(EndList* l, UInt id, UInt versions, UChar flags)
{
   if (l->count != 0 && id == l->first + l->count
       && versions == l->versions && flags == l->flags) {
      l->count++;
      return;
   }
   end_flush(l);
   l->first = id;
   l->count = 1;
   l->versions = versions;
   l->flags = flags;
}

/* Memory vertices read alone by a condition (a norm in memory tested
   for convergence): an open-addressed set of ids, bounded, since a
   program that compares its data (a sort) would mark every word and
   only the few that are singletons matter; past the bound no more are
   marked. */
#define CONTROL_SLOTS (1u << 16)
static UInt* control_ids;
static UInt  n_control, n_control_dropped;

static UInt* control_slot(UInt id)
{
   UInt h = (id * 0x9E3779B1u) >> 16, k;
   for (k = 0; k < CONTROL_SLOTS; k++) {
      UInt* s = &control_ids[(h + k) & (CONTROL_SLOTS - 1)];
      if (*s == id + 1 || *s == 0)
         return s;
   }
   return NULL;
}

void CATS_(vf_control_word)(UInt id)
{
   if (control_ids == NULL)
      control_ids = VG_(calloc)("cats.vf.control", CONTROL_SLOTS,
                                sizeof(UInt));
   UInt* s = control_slot(id);
   tl_assert(s != NULL);   /* the set is at most half full */
   if (*s == id + 1)
      return;
   if (n_control >= CONTROL_SLOTS / 2) {
      n_control_dropped++;
      return;
   }
   *s = id + 1;
   n_control++;
}

static Bool control_word(UInt id)
{
   if (control_ids == NULL)
      return False;
   UInt* s = control_slot(id);
   return s != NULL && *s == id + 1;
}

/* Outputs: the word still holds its vertex's last version and lies in
   a container that is still alive. */
static void end_word(UInt id, UInt versions, Addr a, Bool holds_own,
                     void* opaque)
{
   Bool output = holds_own && CATS_(find_block)(1, a) != NULL;
   end_add(opaque, id, versions,
           (output ? CATS_VF_END_OUTPUT : 0)
           | (control_word(id) ? CATS_VF_END_CONTROL : 0));
}

static void end_register(UInt id, UInt versions, UChar flags, void* opaque)
{
   end_add(opaque, id, versions, flags);
}

void CATS_(vf_release)(void)
{
   CATS_(vf_hist_release)();
   CATS_(vf_sets_release)();
}

void CATS_(vf_stats)(void)
{
   VG_(umsg)("cats: value flow: %'llu vertex, %'llu source and %'llu step "
             "records, %'llu bytes to the helper; %'u vertices with "
             "changing sources\n", n_vertex_recs, n_sources_recs,
             n_step_recs, stream_bytes, CATS_(vf_hist_count)());
   CATS_(vf_sets_stats)();
   CATS_(vf_acc_stats)();
   if (n_control_dropped != 0)
      VG_(umsg)("cats: value flow: %'u memory words read by a condition "
                "were not marked (%'u were)\n", n_control_dropped,
                n_control);
}

/* After CATS_(mem_finish) (the allocation ids of the trace are known)
   and before the trace itself is sent. */
void CATS_(vf_finish)(void)
{
   UInt i, n = CATS_(n_allocs)();
   CATS_(vf_acc_drop)();
   CATS_(vf_hist_finish)();
   flush();
   if (!emitting)
      return;
   CatsBuf b;
   CATS_(buf_init)(&b);
   CATS_(put_u32)(&b, 1u << CATS_(vf_wshift));
   CATS_(put_u32)(&b, n);
   for (i = 0; i < n; i++)
      CATS_(put_u32)(&b, CATS_(alloc_out_id)(i));
   SizeT count_at = b.len;
   CATS_(put_u32)(&b, 0);
   EndList l = { &b, 0, 0, 0, 0, 0 };
   CATS_(vf_for_each_vertex)(end_word, &l);
   CATS_(vf_for_each_register_vertex)(end_register, &l);
   end_flush(&l);
   CATS_(patch_u32)(&b, count_at, l.n);
   if (!CATS_(send_stream)(CATS_FRAME_VF_END, b.data, b.len))
      emitting = False;
   CATS_(buf_free)(&b);
}
