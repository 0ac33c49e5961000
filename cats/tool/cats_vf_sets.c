/* SPDX-License-Identifier: GPL-2.0-or-later */
/*--------------------------------------------------------------------*/
/*--- cats: provenance sets.                          cats_vf_sets.c ---*/
/*--------------------------------------------------------------------*/
/* A computed value that has not been stored yet (in a register, an IR
   temporary or stack memory) carries the set of vertices it was
   computed from. A set never changes and is short-lived: a union
   makes a new one, and the nodes that no register or stack word refers
   to any more are collected when the pool is nearly full, at the next
   superblock (CATS_(vf_collect_now), a safe point: no IR temporary
   holds a set there), marking from every thread's shadow registers and
   live stack. A superblock that fills the pool grows it.

   A set is a view of a node (cats_vf.h): a union that adds to the
   newest view of a node writes the new sources into the node after it,
   which older views do not see; one that adds to an older view copies
   it first.

   A set never holds more than VF_SET_CAP sources: a union that would
   exceed it is materialised as a register-intermediate vertex, which
   becomes the single source of the set returned. A link of a chain is
   identified by the union's code site and its sources less its
   predecessor, so the chain of a reduction is the same chain at every
   time step; a whole value combined with others by its sources alone,
   so a value combined at several sites is one vertex (hub). */

#include "cats_tool.h"
#include "cats_vf.h"
#include "pub_tool_machine.h"
#include "pub_tool_threadstate.h"
#include "libvex_guest_amd64.h"

#define FIRST_CAP   (1u << 13) /* nodes: 704 KiB, about an L2 cache */
#define MAX_CAP     (1u << (31 - VF_VIEW_BITS))

/* Sets are handed out by a cursor that skips the ones the last
   collection found live (marks[i]); when it reaches the end, a new
   collection marks the live ones again and the cursor restarts. Only
   the mark bytes are swept, never the sets. */
VfSet* CATS_(vf_sets);
static UChar* marks;
/* The hash sum of a node's first hash_count[i] sources, for the
   signature of stores that read one set several times (vf_union_store_hash):
   a node's first sources never change while it is live. */
static ULong* hash_sum;
static UChar* hash_count;
static UInt   cap;
static UInt   cursor;
UChar         CATS_(vf_collect_due);
static ULong  n_collections, n_unions, n_nodes;
/* The sites that noted a set last (note_here): a collection keeps their
   sets, so that a coefficient shared by the elements of a loop stays
   one value when a collection falls in the middle of the loop (else
   the loop's next element makes a link of its own, at a different
   element each time step). Sites live as long as their translations
   may run, which is for ever. */
#define RECENT 64
static VfSite* recent[RECENT];
static UInt    recent_at;

/* Register intermediates: (owner, key) -> index, where the owner is the
   site that made it (0 for one keyed by its sources alone) and the key a
   hash of its sources (find_or_add). */
#define REG_HUB     1u   /* made whole (hub()), not a link of a chain */
#define REG_CONTROL 2u   /* read by a condition (CATS_(vf_control)) */
/* A link can have two successors at its site: the same sources combine
   in two orders (the pair (i, j) and then (j, i) of a symmetric force)
   and so follow two different links. */
#define REG_NEXT 2
typedef struct {
   UInt  ver, sig, loc;
   UInt  flags;               /* REG_HUB, REG_CONTROL */
   UInt  next[REG_NEXT];      /* index + 1 of the ones the same site made
                                 next, the latest first; 0 if none */
   ULong next_h[REG_NEXT];    /* and their hashes */
   ULong owner, key;          /* its key in reg_index */
} RegVertex;
/* In chunks of 2^16, not one array: a link reads two of them, and an
   array grown by copying held the old and the new (NPB MG's 5.5 M,
   with a table of 24-byte slots, were 740 MB of the tool's 1.74 GB). */
#define REG_CHUNK_BITS 16
static RegVertex** reg_chunks;
static UInt        n_reg_vs, n_reg_chunks, cap_reg_chunks;

static inline RegVertex* reg_vertex(UInt k)
{
   return &reg_chunks[k >> REG_CHUNK_BITS][k & ((1u << REG_CHUNK_BITS) - 1)];
}

/* The intermediates by (owner, key), compared in the vertex. */
static CatsTagMap reg_index;

static inline ULong reg_hash(ULong owner, ULong key)
{
   ULong h = (owner * 0x9E3779B97F4A7C15ULL) ^ (key * 0xC2B2AE3D27D4EB4FULL);
   return h ^ (h >> 29);
}

static Bool same_reg(UInt k, const void* key)
{
   const RegVertex* r = reg_vertex(k);
   const ULong* ok = key;
   return r->owner == ok[0] && r->key == ok[1];
}

/* A new intermediate: its index. */
static UInt reg_new(const RegVertex* fresh)
{
   if (n_reg_vs >= VF_REG_BIT)
      VG_(tool_panic)("cats: value flow: too many register intermediates");
   if (n_reg_vs == n_reg_chunks << REG_CHUNK_BITS) {
      if (n_reg_chunks == cap_reg_chunks) {
         cap_reg_chunks = cap_reg_chunks ? 2 * cap_reg_chunks : 64;
         reg_chunks = VG_(realloc)("cats.vf.regchunks", reg_chunks,
                                   cap_reg_chunks * sizeof(RegVertex*));
      }
      reg_chunks[n_reg_chunks++] = VG_(malloc)("cats.vf.regvs",
                                               sizeof(RegVertex) << REG_CHUNK_BITS);
   }
   *reg_vertex(n_reg_vs) = *fresh;
   return n_reg_vs++;
}

void CATS_(vf_sets_init)(void)
{
   cap = FIRST_CAP;
   CATS_(vf_sets) = VG_(malloc)("cats.vf.sets", cap * sizeof(VfSet));
   marks = VG_(calloc)("cats.vf.marks", cap, 1);
   hash_sum = VG_(malloc)("cats.vf.hsum", cap * sizeof(ULong));
   hash_count = VG_(calloc)("cats.vf.hcount", cap, 1);
   CATS_(tagmap_init)(&reg_index, "cats.vf.regmap");
}

/* Marks the node of a set. */
static inline void mark_p(UChar* marks, UInt p)
{
   if (!(p & VF_SET_BIT))
      return;
   UInt i = CATS_(vf_set_node)(p);
   if (i < cap)
      marks[i] = 1;
}

/* Shadow units of the registers that carry data (cats_vf_instr.c). */
#define OFF(f) ((Int)__builtin_offsetof(VexGuestAMD64State, f))

static void mark_registers(UChar* marks, ThreadId tid)
{
   static UChar area[sizeof(VexGuestAMD64State)];
   Int lo = OFF(guest_RAX), hi = OFF(guest_YMM16) + 32, off, area_no;
   /* Every slot of each unit, in both shadow areas (cats_vf_instr.c,
      put_lane). */
   for (area_no = 1; area_no <= 2; area_no++) {
      VG_(get_shadow_regs_area)(tid, area, area_no, lo, hi - lo);
      for (off = 0; off + 4 <= hi - lo; off += 4) {
         UInt p;
         VG_(memcpy)(&p, area + off, 4);
         mark_p(marks, p);
      }
   }
}

static void grow(void)
{
   if (cap >= MAX_CAP)
      VG_(tool_panic)("cats: value flow: too many live source sets");
   cap *= 2;
   CATS_(vf_sets) = VG_(realloc)("cats.vf.sets", CATS_(vf_sets),
                                 cap * sizeof(VfSet));
   marks = VG_(realloc)("cats.vf.marks", marks, cap);
   VG_(memset)(marks + cap / 2, 0, cap / 2);
   hash_sum = VG_(realloc)("cats.vf.hsum", hash_sum, cap * sizeof(ULong));
   hash_count = VG_(realloc)("cats.vf.hcount", hash_count, cap);
   VG_(memset)(hash_count + cap / 2, 0, cap / 2);
}

static void mark_logged(UInt p)
{
   mark_p(marks, p);
}

/* How much of the dead stack below the red zone a collection clears. */
#define VF_DEAD_STACK ((Addr)64 << 10)

static void collect(void)
{
   UInt i;
   ThreadId tid;
   Addr smin, smax;
   n_collections++;
   VG_(memset)(marks, 0, cap);
   /* Every live thread's shadow registers, and its live stack words:
      from just below its SP (the red zone) to its top. */
   ULong scanned = 0;
   VG_(thread_stack_reset_iter)(&tid);
   while (VG_(thread_stack_next)(&tid, &smin, &smax)) {
      mark_registers(marks, tid);
      /* From the red zone: Valgrind's lowest address of a stack is its
         SP, but a leaf function keeps locals in the 128 bytes below it
         (gfortran's kernels do), and a set there is live. */
      Addr a = (VG_(get_SP)(tid) - 128) & ~(((Addr)1 << CATS_(vf_wshift)) - 1);
      /* Below it the stack is dead, but its words may still hold sets
         stored there by calls that have returned (carriers keep sets),
         and a frame that reads a slot before writing it (padding copied
         with a struct, a stack probe) would find a node reused since:
         the recent frames' words are no values now. Not below a
         thread's stack, where other data may lie. */
      Addr lo = a - VF_DEAD_STACK;
      if (smin < a && smin > lo)
         lo = smin;
      CATS_(vf_clear_range)(lo, a - lo);
      for (; a <= smax; a += (Addr)1 << CATS_(vf_wshift), scanned++)
         mark_p(marks, *CATS_(vf_p_slot)(a));
   }
   CATS_(vf_acc_mark)(mark_logged);
   for (i = 0; i < RECENT; i++) {
      VfSite* site = recent[i];
      if (site != NULL && site->epoch == n_collections) {
         mark_p(marks, site->last_base);
         site->epoch = n_collections + 1;
      }
   }
   UInt live = 0;
   for (i = 0; i < cap; i++)
      live += marks[i];
   /* Mostly live, or deep stacks to scan: grow rather than collect
      again soon, so that a union's share of the collections stays a
      few steps. */
   if (live > cap / 2 || scanned > cap)
      grow();
   cursor = 0;
}

void CATS_(vf_collect_now)(void)
{
   collect();
   CATS_(vf_collect_due) = 0;
}

/* A free node. The table may move: no VfSet pointer survives a call. */
static inline UInt alloc_node(void)
{
   while (cursor < cap && marks[cursor])
      cursor++;
   if (UNLIKELY(cursor >= cap - cap / 8)) {
      CATS_(vf_collect_due) = 1;   /* at the next superblock */
      if (cursor == cap)
         grow();                   /* this one needs more */
   }
   n_nodes++;
   hash_count[cursor] = 0;
   return cursor++;
}

/* Writes m[0..n) after the first c sources of node s. (Copies are
   loops: the tool's memcpy is a call, and these are a few words on the
   path of every union.) */
static inline __attribute__((always_inline))
void append(VfSet* s, UInt c, const UInt* m, UInt n)
{
   UInt k;
   for (k = 0; k < n; k++)
      s->m[c + k] = m[k];
   s->fill = c + n;
}

/* The set of the distinct sources m[0..n), 1 <= n <= VF_SET_CAP. */
static UInt new_set(const UInt* m, UInt n)
{
   UInt i = alloc_node();
   append(&CATS_(vf_sets)[i], 0, m, n);
   return CATS_(vf_set_p)(i, n);
}

/* The set p extended by m[0..n), sources not in p; the result has at
   most VF_SET_CAP. In place if p is its node's newest view, else in a
   copy. */
static inline __attribute__((always_inline))
UInt extend(UInt p, const UInt* m, UInt n)
{
   UInt i = CATS_(vf_set_node)(p), c = CATS_(vf_set_count)(p);
   VfSet* s = &CATS_(vf_sets)[i];
   if (LIKELY(c == s->fill)) {
      append(s, c, m, n);
      return CATS_(vf_set_p)(i, c + n);
   }
   UInt all[VF_SET_CAP], k;
   for (k = 0; k < c; k++)
      all[k] = s->m[k];
   for (k = 0; k < n; k++)
      all[c + k] = m[k];
   return new_set(all, c + n);
}

UInt CATS_(vf_members)(UInt p, UInt* out)
{
   if (p == 0)
      return 0;
   if (!(p & VF_SET_BIT)) {
      out[0] = p & VF_ID_MASK;
      return 1;
   }
   const VfSet* s = &CATS_(vf_sets)[CATS_(vf_set_node)(p)];
   UInt n = CATS_(vf_set_count)(p), k;
   for (k = 0; k < n; k++)
      out[k] = s->m[k];
   return n;
}

/* Whether any of x, y, z is among the first c sources of node s: the
   node's sources as four vectors of four, masked to the view, without a
   branch on where a source is. 0 matches nothing in a view. (GCC's
   vector extension; the tool has no intrinsics headers.) */
typedef Int VfVec __attribute__((vector_size(16)));
typedef Int VfVecU __attribute__((vector_size(16), aligned(4)));

static inline __attribute__((always_inline))
Bool in_view(const VfSet* s, UInt c, UInt x, UInt y, UInt z)
{
   static const VfVec lane[4] = { { 0, 1, 2, 3 }, { 4, 5, 6, 7 },
                                  { 8, 9, 10, 11 }, { 12, 13, 14, 15 } };
   const VfVecU* mv = (const VfVecU*)s->m;
   VfVec a = { (Int)x, (Int)x, (Int)x, (Int)x };
   VfVec b = { (Int)y, (Int)y, (Int)y, (Int)y };
   VfVec d = { (Int)z, (Int)z, (Int)z, (Int)z };
   VfVec cv = { (Int)c, (Int)c, (Int)c, (Int)c };
   VfVec hit = { 0, 0, 0, 0 }, q;
#  define SCAN(j) (q = mv[j], hit |= ((q == a) | (q == b) | (q == d)) \
                                     & (lane[j] < cv))
   SCAN(0); SCAN(1); SCAN(2); SCAN(3);
#  undef SCAN
   return __builtin_ia32_pmovmskb128((__attribute__((vector_size(16))) char)
                                     hit) != 0;
}

/* The site's previous link (index + 1), if set p holds it: p is then
   the next link of a chain. 0 otherwise. */
static UInt chain_pred(const VfSite* site, UInt p)
{
   if (site->last_reg == 0 || !(p & VF_SET_BIT))
      return 0;
   UInt pred = VF_REG_BIT | (site->last_reg - 1), m[VF_SET_CAP], i;
   UInt n = CATS_(vf_members)(p, m);
   for (i = 0; i < n; i++)
      if (m[i] == pred)
         return site->last_reg;
   return 0;
}

/* A site's chains hold at most as many links as its share of the data
   needs: one per VF_SET_CAP words that hold values, or SITE_FLOOR. A
   chain that never repeats its sources (a running sum over data read in
   an order that never repeats) then goes on in its last link. The bound
   is the site's own, so that a solver's dot products still get their
   chains after an assembly elsewhere made millions of links; all sites
   together stop at REG_CEILING times the words, to bound the memory. */
#define SITE_FLOOR  (1u << 12)
#define REG_FLOOR   (1u << 16)
#define REG_CEILING 4
/* The sources from which a set combined whole with a larger one is
   one value (union_of). */
#define HUB_MIN (VF_SET_CAP / 2)

static Bool site_full(const VfSite* site)
{
   UInt words = CATS_(vf_vertex_words)();
   UInt mine = words / VF_SET_CAP, all = words > REG_FLOOR ? words : REG_FLOOR;
   return site->n_links >= (mine > SITE_FLOOR ? mine : SITE_FLOOR)
          || n_reg_vs / REG_CEILING >= all;
}

Bool CATS_(vf_is_link)(UInt id)
{
   return (id & VF_REG_BIT) && !(reg_vertex(id & ~VF_REG_BIT)->flags & REG_HUB);
}

/* Whether set p holds a register intermediate without any of the
   flags 'but'. */
static Bool holds_reg_but(UInt p, UInt but)
{
   UInt m[VF_SET_CAP], i, n = CATS_(vf_members)(p, m);
   for (i = 0; i < n; i++)
      if ((m[i] & VF_REG_BIT)
          && !(reg_vertex(m[i] & ~VF_REG_BIT)->flags & but))
         return True;
   return False;
}

/* Whether set p holds a register intermediate: a hub is made only of
   memory values, so that an accumulator made a hub once (its first
   window) goes on in links, not in a hub per union. */
static Bool holds_reg(UInt p)
{
   return holds_reg_but(p, 0);
}

/* Whether set p holds a link of a chain (a reduction's partial sum):
   such a set is not made a hub, a reduction's end stays its chain. */
static Bool holds_link(UInt p)
{
   return holds_reg_but(p, REG_HUB);
}

/* The register intermediate of set P (of at least two sources) at this
   site. The table's key is the hash of P's sources less the site's
   previous link, P's predecessor in a chain: a running sum that passes
   over the same data again (s += a[i % n] for ever) reaches the links
   of its first pass, with a new predecessor, instead of making a new
   link per 16 sources, so the chain is bounded by the data it reads,
   not by the run's length (CommAnalyzer's liveness compression, for
   chains: a link is dead once the next one has read it). A reduction
   repeated at each time step has the same predecessors every time and
   keeps its links. A hub (hub(): a value combined whole, holding no
   link of a chain) is keyed by its sources alone, whatever the site
   (owner 0): a value that several sites combine is one vertex. Links
   stay the site's: two reductions over the same data keep chains of
   their own (a link's successors are followed from link to link, so
   one link shared would join the chains). The location of a new one is
   that of a register intermediate among P's sources, so that a
   reduction's links and its end share one location (the projection
   sees them as one value), else the site's. */
static UInt find_or_add(VfSite* site, UInt p, ULong h, Bool whole)
{
   UInt pred = chain_pred(site, p);
   ULong key = (pred ? h - 1 - CATS_(vf_mix)(VF_REG_BIT | (pred - 1)) : h)
               | 1;
   ULong owner = pred || !whole ? (ULong)(HWord)site : 0;
   CATS_(tagmap_reserve)(&reg_index);
   ULong rh = reg_hash(owner, key), okey[2] = { owner, key };
   UWord at = 0;
   UInt hit = CATS_(tagmap_find)(&reg_index, rh, same_reg, okey, &at);
   if (hit != 0)
      return hit - 1;
   if (pred != 0 && site_full(site))
      return pred - 1;
   UInt m[VF_SET_CAP], loc = site->loc, i;
   UInt n = CATS_(vf_members)(p, m);
   for (i = 0; i < n; i++)
      if (m[i] & VF_REG_BIT) {
         loc = reg_vertex(m[i] & ~VF_REG_BIT)->loc;
         break;
      }
   RegVertex fresh = { 0, 0, loc, 0, { 0, 0 }, { 0, 0 }, owner, key };
   UInt k = reg_new(&fresh);
   CATS_(tagmap_put)(&reg_index, at, rh, k);
   site->n_links++;
   return k;
}

/* Intermediate k's version for set p (hash h), sent when it changes. */
static UInt version_of(UInt k, UInt p, ULong h)
{
   RegVertex* r = reg_vertex(k);
   UInt id = VF_REG_BIT | k;
   UInt sig = CATS_(vf_sig)(h);
   UInt tag;
   if (CATS_(vf_bump)(&r->ver, &r->sig, sig)
       && (tag = CATS_(vf_record_tag)(id, r->ver, &r->sig, sig)) != 0) {
      UInt m[VF_SET_CAP];
      UInt n = CATS_(vf_members)(p, m);
      CATS_(vf_send_version)(id, r->ver, tag, m, n, CATS_VF_REGISTER,
                             CATS_NONE, 0, 8, r->loc);
   }
   return id;
}

/* The register intermediate of set p at this site, p's hash given. */
static UInt materialise_h(VfSite* site, UInt p, ULong h, Bool whole)
{
   /* A site makes the links of its chains in the same order at every
      time step, so the one it made after its previous one last time is
      the likely answer: a sequential walk instead of a hash probe into
      a table of every link. */
   RegVertex* prev = site->last_reg
                     ? reg_vertex(site->last_reg - 1) : NULL;
   UInt k, j = 0;
   while (prev != NULL && j < REG_NEXT
          && !(prev->next[j] != 0 && prev->next_h[j] == h))
      j++;
   if (prev != NULL && j < REG_NEXT) {
      k = prev->next[j] - 1;
   } else {
      k = find_or_add(site, p, h, whole);
      if (prev != NULL) {
         /* The latest first; the oldest is forgotten. */
         prev = reg_vertex(site->last_reg - 1);
         for (j = REG_NEXT - 1; j > 0; j--) {
            prev->next[j] = prev->next[j - 1];
            prev->next_h[j] = prev->next_h[j - 1];
         }
         prev->next[0] = k + 1;
         prev->next_h[0] = h;
      }
   }
   site->last_reg = k + 1;
   return version_of(k, p, h);
}

/* A set that a union combines whole with another (a Jacobian's entry
   into its determinant): one value, the same vertex wherever it is
   combined (keyed by its sources alone), so that the values made from
   it share it rather than each a link of its sources and the other's. */
static UInt hub(VfSite* site, UInt p)
{
   ULong h = CATS_(vf_prov_hash)(p);
   UInt pred = chain_pred(site, p);
   if (pred != 0)
      return materialise_h(site, p, h, True);
   UInt k = find_or_add(site, p, h, True);
   reg_vertex(k)->flags |= REG_HUB;
   return version_of(k, p, h);
}

/* The next link of a chain at this site: set p filled up to
   VF_SET_CAP sources. */
static UInt link_of(VfSite* site, UInt p)
{
   return materialise_h(site, p, CATS_(vf_prov_hash)(p), False);
}

/* Set p as one value (share()). */
static UInt materialise(VfSite* site, UInt p)
{
   return materialise_h(site, p, CATS_(vf_prov_hash)(p), False);
}

/* materialise_h's common case, without the set's sources: the link the
   site made after its last one the time before, with the same hash
   and signature (a reduction's chain at a later time step), counted;
   0, having changed nothing, otherwise. */
static UInt link_known(VfSite* site, ULong h)
{
   if (site->last_reg == 0)
      return 0;
   const RegVertex* prev = reg_vertex(site->last_reg - 1);
   UInt j;
   for (j = 0; j < REG_NEXT; j++)
      if (prev->next[j] != 0 && prev->next_h[j] == h)
         break;
   if (j == REG_NEXT)
      return 0;
   UInt k = prev->next[j] - 1;
   RegVertex* r = reg_vertex(k);
   if (r->ver == 0 || r->sig != CATS_(vf_sig)(h))
      return 0;
   site->last_reg = k + 1;
   r->ver++;
   /* The chain's next link, wanted soon: the links of long chains are
      out of the cache by the next time step. */
   if (r->next[0] != 0)
      __builtin_prefetch(reg_vertex(r->next[0] - 1));
   return VF_REG_BIT | k;
}

/* Whether set p is the one this site last saw (since the last
   collection, which may have reused its node). */
static inline Bool seen_here(const VfSite* site, UInt p)
{
   return p == site->last_base && site->epoch == n_collections + 1;
}

/* Notes set p as the one this site last saw, not yet shared. */
static inline void note_here(VfSite* site, UInt p)
{
   site->last_base = p;
   site->epoch = n_collections + 1;
   if (recent[recent_at] != site) {
      recent_at = (recent_at + 1) & (RECENT - 1);
      recent[recent_at] = site;
   }
   site->shared_id = 0;
}

/* The set p as one register intermediate, made once per appearance of p
   at this site: a hub (the same vertex at every site) when it is a
   whole value seen again (shared_set) that holds no link, a link of the
   site's otherwise (a full accumulator, add_or_link). */
static UInt share(VfSite* site, UInt p, Bool whole)
{
   if (!seen_here(site, p))
      note_here(site, p);
   if (site->shared_id == 0)
      site->shared_id = whole && !holds_link(p) ? hub(site, p)
                                                : materialise(site, p);
   return VF_ONE_BIT | site->shared_id;
}

/* The set cur extended by the sources m[0..n), none of them in it. A
   full set becomes one intermediate when one more source arrives, a
   reduction's next link: the set is filled up to VF_SET_CAP sources
   first, so that every link holds exactly that many however the
   sources arrived (one per union, or two). The site keeps cur as the
   set it last extended: if it extends cur again (a coefficient of 15
   sources times each element), cur is shared as one value, where
   noting the filled set instead made a link per element, and, the
   coefficient depending on the last step's reductions, new links at
   every step. */
static __attribute__((noinline))
UInt add_or_link(VfSite* site, UInt cur, UInt* m, UInt n)
{
   UInt pos = 0, btotal = CATS_(vf_set_count)(cur), j;
   while (btotal + (n - pos) > VF_SET_CAP) {
      UInt need = VF_SET_CAP - btotal;
      UInt link = (need == 0 ? share(site, cur, False)
                   : link_of(site, extend(cur, m + pos, need)))
                  & VF_ID_MASK;
      pos += need;
      /* The link may be one of the sources still to add (the same
         intermediate, reached again). */
      for (j = pos; j < n; j++)
         if (m[j] == link)
            m[j--] = m[--n];
      if (pos == n)
         return VF_ONE_BIT | link;
      cur = new_set(&link, 1);
      btotal = 1;
   }
   return extend(cur, m + pos, n - pos);
}

/* A set that one site combines again with other values is one value
   that many read (a norm made from a reduction's last link and its last
   elements, a coefficient made from two parameters): shared, so that its
   members do not each get an edge to every reader. The first appearance
   is only noted (a growing accumulator is a new set each time). */
static UInt shared_set(VfSite* site, UInt p)
{
   if (seen_here(site, p))
      return share(site, p, True);
   note_here(site, p);
   return p;
}

/* The provenance of a value computed from up to four others: the union
   of their sources (a copied value is its own source). */
static UInt union_of(VfSite* site, UInt* in, Bool check_shared);

/* The union of single values only (c = a + b, a 5-point stencil's
   partial sums, a difference of coordinates): which of them are there
   and distinct varies from call to call, so it is found without
   branches. */
static inline UInt union_of_singles(const UInt* in)
{
   UInt x[4] = { in[0] & VF_ID_MASK, in[1] & VF_ID_MASK,
                 in[2] & VF_ID_MASK, in[3] & VF_ID_MASK };
   UInt m[4];
   UInt n = CATS_(vf_distinct4)(x, m);
   if (n < 2)
      return n ? VF_ONE_BIT | m[0] : 0;
   return new_set(m, n);
}

/* The union of an accumulator (s += a * b, one per iteration), the
   commonest: its set p, not seen at this site before, and the single
   values y0..y2 (0: none), new to it (those that do not fit make the set
   a link, add_or_link). Kept apart from union_of, small and without
   branches on the data or stores at computed places before the last, so
   that it stays in registers; 0, having changed nothing, when it does
   not apply. */
static inline __attribute__((always_inline))
UInt accumulate_into(VfSite* site, UInt p, UInt y0, UInt y1, UInt y2)
{
   if (seen_here(site, p))
      return 0;   /* seen again: union_of shares it */
   /* Which of y0..y2 are new among themselves (k: 0 or 1; an empty slot
      is 0, which is in no set). */
   UInt k0 = y0 != 0, k1 = (y1 != 0) & (y1 != y0),
        k2 = (y2 != 0) & (y2 != y0) & (y2 != y1);
   UInt n = k0 + k1 + k2, c = CATS_(vf_set_count)(p);
   UInt i = CATS_(vf_set_node)(p);
   VfSet* s = &CATS_(vf_sets)[i];
   if (n == 0 || c != s->fill)
      return 0;
   if (in_view(s, c, y0, y1, y2))
      return 0;
   note_here(site, p);   /* as shared_set would */
   if (UNLIKELY(c + n > VF_SET_CAP)) {
      /* Extended by its new sources, in order: a link. */
      UInt m[4];
      m[0] = y0;
      m[k0] = y1;
      m[k0 + k1] = y2;
      return add_or_link(site, p, m, n);
   }
   /* In place: the newest view. A value not kept is overwritten by the
      next or lies past the fill (the node's spare slot). */
   s->m[c] = y0;
   s->m[c + k0] = y1;
   s->m[c + k0 + k1] = y2;
   s->fill = c + n;
   return CATS_(vf_set_p)(i, c + n);
}

/* accumulate_into for any four inputs of which one is a set: the set
   and the three others, in order, are found without branches. */
static inline __attribute__((always_inline))
UInt accumulate(VfSite* site, const UInt* in)
{
   UInt s0 = in[0] >> 31, s1 = in[1] >> 31, s2 = in[2] >> 31,
        s3 = in[3] >> 31;
   if (s0 + s1 + s2 + s3 != 1)
      return 0;
   UInt p = (in[0] & -s0) | (in[1] & -s1) | (in[2] & -s2) | (in[3] & -s3);
   UInt x0 = in[0] & VF_ID_MASK, x1 = in[1] & VF_ID_MASK,
        x2 = in[2] & VF_ID_MASK, x3 = in[3] & VF_ID_MASK;
   UInt y0 = s0 ? x1 : x0, y1 = (s0 | s1) ? x2 : x1,
        y2 = (s0 | s1 | s2) ? x3 : x2;
   return accumulate_into(site, p, y0, y1, y2);
}

/* All paths. Single values only go apart first: at a given entry
   point (a register's lazy lanes, a union in the IR, a store) they are
   mostly one kind or the other, so inlined into each, this branch is
   predictable where union_of's own test, shared by all, was not. */
static inline __attribute__((always_inline))
UInt union4(VfSite* site, UInt* in)
{
   n_unions++;
   if (((in[0] | in[1] | in[2] | in[3]) & VF_SET_BIT) == 0)
      return union_of_singles(in);
   UInt r = accumulate(site, in);
   return r != 0 ? r : union_of(site, in, True);
}

VG_REGPARM(3) UInt CATS_(vf_union)(VfSite* site, UWord ab, UWord cd)
{
   UInt in[4] = { (UInt)ab, (UInt)(ab >> 32), (UInt)cd, (UInt)(cd >> 32) };
   return union4(site, in);
}

/* The union of the shadow unit whose first slots are at u and its
   second at w, written back. */
static inline __attribute__((always_inline))
void union_unit(VfSite* site, UInt* u, UInt* w)
{
   if ((u[1] | w[0] | w[1]) == 0)
      return;
   /* An accumulator as put_lane leaves it (lane_slots): its set in s2,
      up to two new single values in s0 and s1. Its union needs no
      search for the set. */
   if ((((u[0] | u[1]) >> 31) | (w[1] != 0)) == 0 && (w[0] >> 31) != 0) {
      UInt y1 = u[1] & VF_ID_MASK;
      UInt r = accumulate_into(site, w[0], u[0] & VF_ID_MASK, y1, y1);
      if (r != 0) {
         n_unions++;
         u[0] = r;
         u[1] = w[0] = 0;
         return;
      }
   }
   UInt in[4] = { u[0], u[1], w[0], w[1] };
   u[0] = union4(site, in);
   u[1] = w[0] = w[1] = 0;
}

void CATS_(vf_union_reg)(UChar* gst, const VfRegRead* r)
{
   UWord mask = r->mask, second = r->at + r->area;
   UInt l;
   for (l = 0; mask != 0; l++, mask >>= 1)
      if (mask & 1)
         union_unit(r->site + l, (UInt*)(gst + r->at + 8 * l),
                    (UInt*)(gst + second + 8 * l));
}

/* A register read of one lane (scalar code), and of two adjacent ones
   (SSE's two doubles): their own entry points, as the load and store
   hooks have per size. */
void CATS_(vf_union_reg1)(UChar* gst, const VfRegRead* r)
{
   union_unit(r->site, (UInt*)(gst + r->at), (UInt*)(gst + r->at + r->area));
}

void CATS_(vf_union_reg2)(UChar* gst, const VfRegRead* r)
{
   UChar* u = gst + r->at;
   UChar* w = u + r->area;
   union_unit(r->site, (UInt*)u, (UInt*)w);
   union_unit(r->site + 1, (UInt*)(u + 8), (UInt*)(w + 8));
}

UInt CATS_(vf_atoms_value)(VfSite* site, UInt* in)
{
   if ((in[1] | in[2] | in[3]) == 0)
      return in[0];
   return union4(site, in);
}

/* The input that a union of several extends: the largest set (there is
   one). */
static inline Int largest_set(const UInt* in)
{
   Int base = -1, i;
   for (i = 0; i < 4; i++)
      if ((in[i] & VF_SET_BIT)
          && (base < 0 || CATS_(vf_set_count)(in[i])
                          > CATS_(vf_set_count)(in[base])))
         base = i;
   return base;
}

/* The sources the inputs other than in[base] add to it, in input order,
   into m (room for 4 * VF_SET_CAP); returns how many. */
static UInt added_sources(const UInt* in, Int base, UInt* m)
{
   UInt n = 0, i, j, k, cur = in[base], btotal = CATS_(vf_set_count)(cur);
   const VfSet* bs = &CATS_(vf_sets)[CATS_(vf_set_node)(cur)];
   for (i = 0; i < 4; i++) {
      UInt p = in[i];
      if (p == 0 || (Int)i == base || p == cur)
         continue;
      UInt add[VF_SET_CAP], cnt;
      if (!(p & VF_SET_BIT)) {
         add[0] = p & VF_ID_MASK;   /* a single value, inline */
         cnt = 1;
      } else {
         cnt = CATS_(vf_members)(p, add);
      }
      for (j = 0; j < cnt; j++) {
         UInt x = add[j];
         for (k = 0; k < n && m[k] != x; k++)
            ;
         if (k == n && !in_view(bs, btotal, x, x, x))
            m[n++] = x;
      }
   }
   return n;
}

/* A stored union's version needs its sources, not a set: the set that
   union4 would make is listed instead (such sets would be made and
   never read). The same
   sources in the same order, and the same site state, as union4; the
   hash of the list is the set's. */
UInt CATS_(vf_union_sources)(VfSite* site, UInt* in, UInt* out, UInt* p)
{
   n_unions++;
   Int base = largest_set(in);
   UInt cur = in[base], q = shared_set(site, cur);
   if (q != cur) {
      in[base] = q;   /* seen again at this site: one shared value */
      *p = union_of(site, in, False);
      return 0;
   }
   UInt c = CATS_(vf_members)(cur, out);
   UInt n = added_sources(in, base, out + c);
   if (c + n > VF_SET_CAP) {
      *p = union_of(site, in, False);   /* a reduction's link */
      return 0;
   }
   return c + n;
}

Bool CATS_(vf_union_store_hash)(VfSite* site, const UInt* in, ULong* h)
{
   Int base = largest_set(in);
   UInt cur = in[base], total = 0, i;
   if (seen_here(site, cur))
      return False;
   ULong sum = 0;
   for (i = 0; i < 4; i++) {
      UInt q = in[i];
      if (q & VF_SET_BIT) {
         UInt c = CATS_(vf_set_count)(q), k = CATS_(vf_set_node)(q);
         total += c;
         if (hash_count[k] != c) {
            hash_sum[k] = CATS_(vf_mix_sum)(CATS_(vf_sets)[k].m, c);
            hash_count[k] = (UChar)c;
         }
         sum += hash_sum[k];
      } else if (q != 0) {
         total++;
         sum += CATS_(vf_mix)(q & VF_ID_MASK);
      }
   }
   if (total > VF_SET_CAP)
      return False;
   n_unions++;
   note_here(site, cur);   /* as shared_set */
   *h = total + sum;
   return True;
}

UInt CATS_(vf_union_list)(const UInt* in, UInt* out)
{
   Int base = largest_set(in);
   UInt c = CATS_(vf_members)(in[base], out);
   return c + added_sources(in, base, out + c);
}

static UInt union_of(VfSite* site, UInt* in, Bool check_shared)
{
   UInt m[4 * VF_SET_CAP], n;
   UInt nsets = ((in[0] >> 31) + (in[1] >> 31)) + ((in[2] >> 31)
                                                   + (in[3] >> 31));
   if (nsets == 0)
      return union_of_singles(in);
   /* An accumulator whose union accumulate() could not make, or
      several sets: the largest input set is extended by what the others
      add. */
   Int base = largest_set(in);
   if (check_shared) {
      UInt q = shared_set(site, in[base]);
      if (q != in[base]) {
         in[base] = q;
         return union_of(site, in, False);
      }
   }
   UInt cur = in[base];
   n = added_sources(in, base, m);
   if (n == 0)
      return cur;   /* nothing new: the accumulator itself */
   if (nsets >= 2 && CATS_(vf_set_count)(cur) + n > VF_SET_CAP
       && !holds_link(cur)) {
      /* Values combined whole, neither a reduction's partial sum: each
         set but the largest that holds only memory values is one value
         (hub), rather than its sources spread over links of the
         largest. */
      UInt i, hubs = 0;
      for (i = 0; i < 4; i++)
         if ((Int)i != base && (in[i] & VF_SET_BIT)
             && CATS_(vf_set_count)(in[i]) >= HUB_MIN
             && !holds_reg(in[i])) {
            in[i] = VF_ONE_BIT | hub(site, in[i]);
            hubs++;
         }
      if (hubs != 0) {
         if (CATS_(vf_set_count)(cur) == VF_SET_CAP && !holds_reg(cur)) {
            /* The largest is a whole value too. */
            in[base] = VF_ONE_BIT | hub(site, cur);
            return union_of(site, in, False);
         }
         n = added_sources(in, base, m);
         if (n == 0)
            return cur;
      }
   }
   return add_or_link(site, cur, m, n);
}

void CATS_(vf_sets_stats)(void)
{
   VG_(umsg)("cats: value flow: %'llu unions, %'llu set nodes in a pool "
             "of %'u (%'llu collections), %'u register intermediates\n",
             n_unions, n_nodes, cap, n_collections, n_reg_vs);
}

void CATS_(vf_sets_release)(void)
{
   UInt c;
   for (c = 0; c < n_reg_chunks; c++)
      VG_(free)(reg_chunks[c]);
   if (reg_chunks != NULL)
      VG_(free)(reg_chunks);
   reg_chunks = NULL;
   n_reg_chunks = cap_reg_chunks = 0;
   CATS_(tagmap_free)(&reg_index);
}

void CATS_(vf_for_each_register_vertex)(void (*fn)(UInt id, UInt ver,
                                                   UChar flags, void* opaque),
                                        void* opaque)
{
   UInt k, n = n_reg_vs;
   for (k = 0; k < n; k++) {
      const RegVertex* r = reg_vertex(k);
      fn(VF_REG_BIT | k, r->ver,
         (r->flags & REG_CONTROL) ? CATS_VF_END_CONTROL : 0, opaque);
   }
}

/* A value read by a condition: an intermediate keeps the mark, a
   memory word alone is noted by its id (CATS_(vf_control_word)); the
   memory members of a set are not marked, a reduction's result being
   its chain's last link. */
static void control_one(UInt p)
{
   if (p == 0)
      return;
   if (p & VF_SET_BIT) {
      UInt m[VF_SET_CAP], i, n = CATS_(vf_members)(p, m);
      for (i = 0; i < n; i++)
         if (m[i] & VF_REG_BIT)
            reg_vertex(m[i] & ~VF_REG_BIT)->flags |= REG_CONTROL;
      return;
   }
   UInt id = p & VF_ID_MASK;
   if (id & VF_REG_BIT)
      reg_vertex(id & ~VF_REG_BIT)->flags |= REG_CONTROL;
   else
      CATS_(vf_control_word)(id);
}

VG_REGPARM(2) void CATS_(vf_control)(UWord ab, UWord cd)
{
   control_one((UInt)ab);
   control_one((UInt)(ab >> 32));
   control_one((UInt)cd);
   control_one((UInt)(cd >> 32));
}

/*------------------------------------------------------------*/
/*--- A loop's logged accumulator unions                   ---*/
/*------------------------------------------------------------*/
/* cats_vf_acc.c logs each run of an accumulator loop: per lane, the
   slots 0 and 1 its PUT would have written (slot 2 is the lane's own
   value, slot 3 empty: lane_slots' layout). Replaying a run is what the
   run would have done: each lane's union at its read (union_unit, in
   the order of the reads), then its PUT. */

typedef struct {
   UInt* u;   /* slots 0 and 1 */
   UInt* w;   /* slots 2 and 3 */
} AccLane;

static inline void acc_put(AccLane* a, ULong e)
{
   UInt r = a->u[0];
   a->u[0] = (UInt)e;
   a->u[1] = (UInt)(e >> 32);
   a->w[0] = r;
   a->w[1] = 0;
}

/* Runs [0, n) of a loop of one lane, its slots kept in locals (a sparse
   row's few runs: this is most of their replay). */
static void acc_runs1(const VfAccLoop* loop, AccLane* lane, const ULong* e,
                      UInt n)
{
   UInt s[4] = { lane->u[0], lane->u[1], lane->w[0], lane->w[1] }, t;
   VfSite* site = loop->site[0];
   for (t = 0; t < n; t++) {
      union_unit(site, s, s + 2);
      s[2] = s[0];
      s[0] = (UInt)e[t];
      s[1] = (UInt)(e[t] >> 32);
      s[3] = 0;
   }
   lane->u[0] = s[0];
   lane->u[1] = s[1];
   lane->w[0] = s[2];
   lane->w[1] = s[3];
}

static void acc_run(const VfAccLoop* loop, AccLane* lanes, const ULong* e)
{
   UInt j;
   for (j = 0; j < loop->nunits; j++) {
      UInt k = loop->order[j];
      union_unit(loop->site[k], lanes[k].u, lanes[k].w);
   }
   for (j = 0; j < loop->nunits; j++)
      acc_put(&lanes[j], e[j]);
}

/* Runs whose unions only append to their lanes' sets (the dot
   product's new a[k] and b[k]) are made without the membership scan
   when the values they add are known to be new: each word of the
   entries (a lane's slot 0 and slot 1) holds single vertices that
   move one way from run to run, strictly, between the word's values in
   the first and the last run, the two words' ranges apart and holding
   none of the set's sources from before (a register intermediate, a
   link, is above them all).

   Such a lane's sources then form one stream, cut into the sets of its
   links: the first set holds the sources from before and the first
   VF_SET_CAP - c0 values, each later one its link and VF_SET_CAP - 1
   values, and a link is made by the union of the run whose values
   overflow its set. So the replay is made in two passes: per lane, its
   values are checked and each set's hash summed (no side effect); then
   the links are made in the order the runs would have made them, each
   from its hash, and the sets are filled in only where a link needs
   its sources (a new link, or one whose sources changed) and for the
   set each lane ends with. Nodes are allocated as the unions would
   have, so the sets are numbered alike. */

#define ACC_MAX_SETS (2 * VF_ACC_LOG_WORDS / (VF_SET_CAP - 1) + 2)

/* A word's direction from its first and last values: compared with
   'flip' applied, its values must increase strictly, up to 'last'. */
typedef struct {
   UInt flip, first, last;   /* flipped */
} AccWord;

typedef struct {
   UInt  nn;                 /* values per run, 1 or 2 */
   AccWord w[2];             /* its words' directions */
   UInt  c0, node0;          /* the set before: sources, node */
   ULong h0;                 /* vf_mix_sum of those sources */
   UInt  good;               /* runs whose values pass the checks */
   UInt  nsets;              /* sets whose values all pass */
   ULong sum[ACC_MAX_SETS];  /* per set, vf_mix_sum of its values */
   /* The second pass. */
   UInt  set, node, link;    /* the open set: index, node, its link */
   UInt  next_run;           /* the run of its link's union */
} AccPlan;

/* The first value of set i in the lane's stream. */
static inline UInt acc_set_start(const AccPlan* a, UInt i)
{
   return i == 0 ? 0 : VF_SET_CAP - a->c0 + (i - 1) * (VF_SET_CAP - 1);
}

static inline UInt acc_value(const ULong* e, UInt nu, UInt k, UInt nn,
                             UInt v)
{
   UInt two = nn - 1;   /* nn: 1 or 2 */
   return (UInt)(e[(v >> two) * nu + k] >> (32 * (v & two))) & VF_ID_MASK;
}

static Bool acc_word(AccWord* w, UInt first, UInt last, UInt runs)
{
   if ((first == last && runs > 1) || first >= VF_REG_BIT
       || last >= VF_REG_BIT)
      return False;   /* not strictly monotone, or not single values */
   w->flip = first > last ? ~0u : 0;
   w->first = first ^ w->flip;
   w->last = last ^ w->flip;
   return True;
}

static inline Bool acc_word_has(const AccWord* w, UInt x)
{
   UInt z = x ^ w->flip;
   return z >= w->first && z <= w->last;
}

/* How many of runs [0, runs) of lane k hold values in order: its two
   words (one when nn is 1, the other empty) each strictly monotone
   from first to last; and the sums of the lane's sets whose values are
   all in those runs, vf_mix_sum of each set's values in a->sum (no
   side effect: the sums are only used for those). */
static inline __attribute__((always_inline))
void acc_scan_runs(const ULong* e, UInt nu, UInt k, UInt runs, UInt nn,
                   AccPlan* a)
{
   const AccWord* w0 = &a->w[0];
   const AccWord* w1 = &a->w[1];
   const ULong sets = ((ULong)VF_SET_BIT << 32) | VF_SET_BIT;
   UInt r, p0 = w0->first - 1, p1 = w1->first - 1;
   const UInt f0 = w0->flip, l0 = w0->last, f1 = w1->flip, l1 = w1->last;
   UInt left = VF_SET_CAP - a->c0, n = 0;
   ULong sum = 0;
   const ULong* x = e + k;
   for (r = 0; r < runs; r++, x += nu) {
      ULong v = *x;
      UInt y0 = (UInt)v & VF_ID_MASK, y1 = (UInt)(v >> 32) & VF_ID_MASK;
      UInt z0 = y0 ^ f0, z1 = y1 ^ f1;
      if ((v & sets) || z0 <= p0 || z0 > l0
          || (nn == 2 ? z1 <= p1 || z1 > l1 : y1 != 0))
         break;
      p0 = z0;
      p1 = z1;
      if (left == 0) {
         a->sum[n++] = sum;
         sum = 0;
         left = VF_SET_CAP - 1;
      }
      sum += CATS_(vf_mix)(y0);
      left--;
      if (nn == 2) {
         if (left == 0) {
            a->sum[n++] = sum;
            sum = 0;
            left = VF_SET_CAP - 1;
         }
         sum += CATS_(vf_mix)(y1);
         left--;
      }
   }
   a->good = r;
   a->nsets = n;
}

/* Compiled for one and for two values per run, apart from the rest of
   the replay: alone, the loop's values stay in registers. */
static __attribute__((noinline))
void acc_scan_runs1(const ULong* e, UInt nu, UInt k, UInt runs, AccPlan* a)
{
   acc_scan_runs(e, nu, k, runs, 1, a);
}

static __attribute__((noinline))
void acc_scan_runs2(const ULong* e, UInt nu, UInt k, UInt runs, AccPlan* a)
{
   acc_scan_runs(e, nu, k, runs, 2, a);
}

/* The first pass for lane k: runs [0, runs) of the log. */
static Bool acc_plan_lane(const VfAccLoop* loop, const AccLane* lane,
                          const ULong* e, UInt runs, UInt k, AccPlan* a)
{
   UInt nu = loop->nunits, i;
   UInt p = lane->w[0];
   if (!(p & VF_SET_BIT) || lane->w[1] != 0 || seen_here(loop->site[k], p))
      return False;
   a->node0 = CATS_(vf_set_node)(p);
   a->c0 = CATS_(vf_set_count)(p);
   const VfSet* s = &CATS_(vf_sets)[a->node0];
   if (a->c0 != s->fill)
      return False;
   ULong f = e[k], l = e[(runs - 1) * nu + k];
   UInt f0 = (UInt)f & VF_ID_MASK, l0 = (UInt)l & VF_ID_MASK;
   UInt f1 = (UInt)(f >> 32) & VF_ID_MASK, l1 = (UInt)(l >> 32) & VF_ID_MASK;
   AccWord w0, w1 = { 0, 1, 0 };
   if (f0 == 0 || l0 == 0 || (f1 == 0) != (l1 == 0)
       || !acc_word(&w0, f0, l0, runs))
      return False;
   a->nn = f1 != 0 ? 2 : 1;
   if (a->nn == 2) {
      /* Two ranges apart: no value of one word is one of the other. */
      UInt lo0 = f0 < l0 ? f0 : l0, hi0 = f0 < l0 ? l0 : f0;
      UInt lo1 = f1 < l1 ? f1 : l1, hi1 = f1 < l1 ? l1 : f1;
      if (!acc_word(&w1, f1, l1, runs) || !(hi0 < lo1 || hi1 < lo0))
         return False;
   }
   for (i = 0; i < a->c0; i++)
      if (acc_word_has(&w0, s->m[i]) || (a->nn == 2 && acc_word_has(&w1, s->m[i])))
         return False;
   a->h0 = CATS_(vf_mix_sum)(s->m, a->c0);
   a->w[0] = w0;
   a->w[1] = w1;
   return True;
}

/* The first pass's scan of lane k alone. */
static void acc_scan_lane(const ULong* e, UInt nu, UInt k, UInt runs,
                          AccPlan* a)
{
   if (a->nn == 2)
      acc_scan_runs2(e, nu, k, runs, a);
   else
      acc_scan_runs1(e, nu, k, runs, a);
}

/* The first pass of a loop of two lanes of two values each (a dot
   product of 16-byte vectors), both lanes at once: a run's entry is one
   vector of its four values, checked with two compares and mixed two
   at a time (SSE2). The running sums are per value word, a set's sum
   the difference of their totals at its first value and the next
   set's. Both lanes stop at the first run either fails; the replay
   makes no link past it anyway (acc_append_runs: the lanes' least good
   run). */
typedef UInt  AccV4 __attribute__((vector_size(16)));
typedef Int   AccV4s __attribute__((vector_size(16)));
typedef ULong AccV2 __attribute__((vector_size(16)));
typedef char  AccV16 __attribute__((vector_size(16)));
typedef AccV4 AccV4Log __attribute__((aligned(8), may_alias));

/* vf_mix of the two 32-bit values in the low halves of x's lanes:
   x * K as x * K_lo + (x * K_hi << 32), the values' high halves being
   0. */
static inline AccV2 acc_mix2(AccV4 x)
{
   const AccV4 k_lo = { 0x7F4A7C15u, 0, 0x7F4A7C15u, 0 };
   const AccV4 k_hi = { 0x9E3779B9u, 0, 0x9E3779B9u, 0 };
   AccV2 h = (AccV2)__builtin_ia32_pmuludq128((AccV4s)x, (AccV4s)k_lo)
             + ((AccV2)__builtin_ia32_pmuludq128((AccV4s)x, (AccV4s)k_hi)
                << 32);
   return h ^ (h >> 29);
}

static __attribute__((noinline))
void acc_scan_pair(const ULong* e, UInt runs, AccPlan* a)
{
   const UInt bias = 0x80000000u;   /* unsigned order as signed */
   const AccV4 ids = { VF_ID_MASK, VF_ID_MASK, VF_ID_MASK, VF_ID_MASK };
   const AccV4 zero = { 0, 0, 0, 0 };
   const AccV4 flip = { a[0].w[0].flip ^ bias, a[0].w[1].flip ^ bias,
                        a[1].w[0].flip ^ bias, a[1].w[1].flip ^ bias };
   const AccV4s last = { (Int)(a[0].w[0].last ^ bias),
                         (Int)(a[0].w[1].last ^ bias),
                         (Int)(a[1].w[0].last ^ bias),
                         (Int)(a[1].w[1].last ^ bias) };
   AccV4s prev = { (Int)((a[0].w[0].first - 1) ^ bias),
                   (Int)((a[0].w[1].first - 1) ^ bias),
                   (Int)((a[1].w[0].first - 1) ^ bias),
                   (Int)((a[1].w[1].first - 1) ^ bias) };
   AccV2 total0 = { 0, 0 }, total1 = { 0, 0 };
   ULong at_start[2] = { 0, 0 };
   UInt next[2] = { VF_SET_CAP - a[0].c0, VF_SET_CAP - a[1].c0 };
   UInt n[2] = { 0, 0 }, r, k;
   for (r = 0; r < runs; r++) {
      AccV4 x = *(const AccV4Log*)(e + 2 * r);
      AccV4 y = x & ids;
      AccV4s z = (AccV4s)(y ^ flip);
      /* Good: above the word's value in the run before, up to its
         last, no set (the set bit is each value's sign). */
      AccV4s good = (z > prev) & ~(z > last) & ~((AccV4s)x >> 31);
      if (__builtin_ia32_pmovmskb128((AccV16)good) != 0xFFFF)
         break;
      prev = z;
      AccV2 m0 = acc_mix2(__builtin_shuffle(y, zero, (AccV4){ 0, 4, 1, 5 }));
      AccV2 m1 = acc_mix2(__builtin_shuffle(y, zero, (AccV4){ 2, 6, 3, 7 }));
      UInt first = 2 * r;
      if (UNLIKELY(next[0] - first < 2 || next[1] - first < 2)) {
         for (k = 0; k < 2; k++) {
            if (next[k] - first >= 2)
               continue;
            /* A set of lane k ends before its y0 or before its y1. */
            AccV2 t = k == 0 ? total0 : total1;
            ULong mk = k == 0 ? m0[0] : m1[0];
            ULong before = t[0] + t[1];
            ULong end = next[k] == first ? before : before + mk;
            a[k].sum[n[k]++] = end - at_start[k];
            at_start[k] = end;
            next[k] += VF_SET_CAP - 1;
         }
      }
      total0 += m0;
      total1 += m1;
   }
   for (k = 0; k < 2; k++) {
      a[k].good = r;
      a[k].nsets = n[k];
   }
}

/* The run of the union that links set i (that adds the value after
   it), or ~0 if its values are not all known good. */
static inline UInt acc_link_run(const AccPlan* a, UInt i)
{
   if (i >= a->nsets)
      return ~0u;
   return (acc_set_start(a, i + 1) >> (a->nn - 1)) + 1;   /* nn: 1 or 2 */
}

/* Writes set i's sources into its node (the link first, from new_set;
   the sources from before for the first) up to value 'end'; returns
   its count. */
static UInt acc_fill(const AccPlan* a, UInt i, const ULong* e, UInt nu,
                     UInt k, UInt end)
{
   UInt base = i == 0 ? a->c0 : 1, v, start = acc_set_start(a, i);
   VfSet* s = &CATS_(vf_sets)[a->node];
   for (v = start; v < end; v++)
      s->m[base + v - start] = acc_value(e, nu, k, a->nn, v);
   s->fill = base + end - start;
   return s->fill;
}

/* The union of run t that links lane k's open set: as accumulate_into
   and add_or_link make it (the set before noted, filled up to the cap,
   shared as one intermediate), its hash from the first pass. */
static void acc_link(const VfAccLoop* loop, const ULong* e, UInt k,
                     AccPlan* a)
{
   VfSite* site = loop->site[k];
   UInt i = a->set, nu = loop->nunits;
   UInt end = acc_set_start(a, i + 1);          /* first value after it */
   UInt before = end - acc_set_start(a, i) + (i == 0 ? a->c0 : 1)
                 - (end & (a->nn - 1));         /* the run's y0 fills it */
   note_here(site, CATS_(vf_set_p)(a->node, before));
   UInt full = CATS_(vf_set_p)(a->node, VF_SET_CAP);
   ULong h = VF_SET_CAP + a->sum[i]
             + (i == 0 ? a->h0 : CATS_(vf_mix)(a->link));
   UInt id = link_known(site, h);
   if (id == 0) {
      acc_fill(a, i, e, nu, k, end);
      id = materialise_h(site, full, h, False);
   }
   if (before == VF_SET_CAP)
      site->shared_id = id;   /* as share() of the full set noted */
   a->link = id & VF_ID_MASK;
   a->node = CATS_(vf_set_node)(new_set(&a->link, 1));
   a->set = i + 1;
   a->next_run = acc_link_run(a, i + 1);
}

/* Runs 1..n-1 as acc_run would make them, as far as the values allow;
   returns the first run not made, the lanes' slots left as after the
   PUT of the run before it. False from the first pass: none made. */
static UInt acc_append_runs(const VfAccLoop* loop, AccLane* lanes,
                            const ULong* e, UInt n, AccPlan* a)
{
   UInt j, k, nu = loop->nunits, end = n;
   for (k = 0; k < nu; k++) {
      if (!acc_plan_lane(loop, &lanes[k], e, n - 1, k, &a[k]))
         return 1;
      for (j = 0; j < k; j++)
         if (a[j].node0 == a[k].node0)
            return 1;   /* two lanes extending one node */
   }
   if (nu == 2 && a[0].nn == 2 && a[1].nn == 2)
      acc_scan_pair(e, n - 1, a);
   else
      for (k = 0; k < nu; k++)
         acc_scan_lane(e, nu, k, n - 1, &a[k]);
   for (k = 0; k < nu; k++)
      end = a[k].good + 1 < end ? a[k].good + 1 : end;
   for (k = 0; k < nu; k++) {
      a[k].set = 0;
      a[k].node = a[k].node0;
      a[k].next_run = acc_link_run(&a[k], 0);
   }
   /* The links of runs [1, end), in the order of the runs and, within
      a run, of the lanes' reads. */
   for (;;) {
      UInt t = ~0u, at = 0;
      for (j = 0; j < nu; j++) {
         k = loop->order[j];
         if (a[k].next_run < t) {
            t = a[k].next_run;
            at = k;
         }
      }
      if (t >= end)
         break;
      acc_link(loop, e, at, &a[at]);
   }
   /* The open sets, filled in; the sites as the last union left them. */
   n_unions += (ULong)(end - 1) * nu;
   for (k = 0; k < nu; k++) {
      UInt values = (end - 1) * a[k].nn;   /* added by runs 1..end-1 */
      UInt count = acc_fill(&a[k], a[k].set, e, nu, k, values);
      if (end > 1 && acc_link_run(&a[k], a[k].set - 1) != end - 1)
         note_here(loop->site[k],
                   CATS_(vf_set_p)(a[k].node, count - a[k].nn));
      lanes[k].u[0] = (UInt)e[(end - 1) * nu + k];
      lanes[k].u[1] = (UInt)(e[(end - 1) * nu + k] >> 32);
      lanes[k].w[0] = CATS_(vf_set_p)(a[k].node, count);
      lanes[k].w[1] = 0;
   }
   return end;
}

/* Trying to append costs about a run's union the general way: a loop
   of a few runs (a sparse row's) does not try, nor does one whose last
   try did not take most of its runs, for a while. */
#define ACC_TRY_MIN_RUNS 16
#define ACC_TRY_PAUSE    16

void CATS_(vf_acc_replay)(UChar* gst, VfAccLoop* loop, ULong* e, UInt n)
{
   AccLane lanes[VF_ACC_UNITS];
   AccPlan a[VF_ACC_UNITS];
   UInt k, t = 0, nu = loop->nunits;
   for (k = 0; k < nu; k++) {
      lanes[k].u = (UInt*)(gst + loop->at[k]);
      lanes[k].w = (UInt*)(gst + loop->at[k] + loop->area);
      /* The registers' slots as the run before the first: the first
         run's union may append them too. */
      (e - nu)[k] = lanes[k].u[0] | (ULong)lanes[k].u[1] << 32;
   }
   if (n >= ACC_TRY_MIN_RUNS && loop->skip == 0) {
      t = acc_append_runs(loop, lanes, e - nu, n + 1, a) - 1;
      if (t == 0) {
         acc_run(loop, lanes, e);
         t = acc_append_runs(loop, lanes, e, n, a);
      }
      if (t < n / 2)
         loop->skip = ACC_TRY_PAUSE;
   } else if (loop->skip > 0) {
      loop->skip--;
   }
   if (nu == 1) {
      acc_runs1(loop, &lanes[0], e + t, n - t);
      return;
   }
   for (; t < n; t++)
      acc_run(loop, lanes, e + t * nu);
}
