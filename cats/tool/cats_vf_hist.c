/* SPDX-License-Identifier: GPL-2.0-or-later */
/*--------------------------------------------------------------------*/
/*--- cats: the records of vertices whose sources change.          ---*/
/*---                                               cats_vf_hist.c ---*/
/*--------------------------------------------------------------------*/
/* An accumulator in memory gets a version per update whose sources
   differ from the one before (c[i][j] += a[i][k] * b[k][j] in i-k-j
   order, a particle's force summed over its neighbours), and the next
   time step repeats the same sequence. Sending the sources of each
   version made the stream, and the helper's work on it, grow with the
   run time.

   The helper keeps each vertex's distinct records in a ring, a new one
   after the open one (docs/VCG.md). A vertex with two or more keeps the
   signatures of its records here, in the same ring order, so that the
   tool knows where the helper's ring goes: a version whose signature is
   the next record's (or d records along) is a step along the ring, and
   consecutive steps of one version each are sent as one STEP record
   "m versions from version v follow the ring". Only a record that is
   not in the ring is sent with its sources. A ring never holds more
   than CATS_VF_RING_MAX records: the next new one starts a ring of its
   own (SOURCES_ALONE), so memory stays bounded for a vertex whose
   sources never repeat.

   A vertex's signature word (the shadow word's, or a register
   intermediate's) holds its last signature (signatures are odd,
   CATS_(vf_sig)) while it has one record, and the handle of its history
   (even) once it has two; a memory word's history is made only at its
   third record, its first record's signature kept in its chunk's sig0
   meanwhile: a word whose sources change once (set up, then computed at
   every time step: most of a program's data) costs 4 bytes, not a
   history of 56. */

#include "cats_tool.h"
#include "cats_vf.h"

/* The pool: chunks of 2^20 words, each history a block of 4 header
   words and 1 << cap_log signatures that never straddles two chunks.
   A history that outgrows its block moves to a larger one, and the old
   block waits in a free list of its size for the next history of that
   size. A free block has n = 0 and its next free block's handle in id. */
#define HIST_HEAD (sizeof(VfHist) / sizeof(UInt))
#define CHUNK_WORDS (1u << VF_HIST_CHUNK_BITS)
#define MIN_CAP_LOG 2
#define MAX_CAP_LOG 8
UInt** CATS_(vf_hist_chunks);
static UInt* chunk_used;            /* words handed out in each chunk */
static UInt  n_chunks, cap_chunks;
static UInt  free_list[MAX_CAP_LOG + 1];   /* handles; 0 for none */
static UInt  n_hists;                      /* live */

_Static_assert(sizeof(VfHist) == 16, "history header");
_Static_assert(CATS_VF_RING_MAX == 1u << MAX_CAP_LOG, "largest ring");

static UInt block_words(UInt cap_log)
{
   return HIST_HEAD + (1u << cap_log);
}

/* A block of 2^cap_log signatures: its handle. */
static UInt alloc_block(UInt cap_log)
{
   UInt handle = free_list[cap_log];
   if (handle != 0) {
      free_list[cap_log] = CATS_(vf_hist)(handle)->id;
      return handle;
   }
   UInt words = block_words(cap_log);
   if (n_chunks == 0 || chunk_used[n_chunks - 1] + words > CHUNK_WORDS) {
      if (n_chunks == cap_chunks) {
         cap_chunks = cap_chunks ? 2 * cap_chunks : 64;
         CATS_(vf_hist_chunks) = VG_(realloc)("cats.vf.histchunks",
                                              CATS_(vf_hist_chunks),
                                              cap_chunks * sizeof(UInt*));
         chunk_used = VG_(realloc)("cats.vf.histchunks", chunk_used,
                                   cap_chunks * sizeof(UInt));
      }
      if ((ULong)(n_chunks + 1) << VF_HIST_CHUNK_BITS >= (1ULL << 31))
         VG_(tool_panic)("cats: value flow: too many vertices with "
                         "changing sources");
      CATS_(vf_hist_chunks)[n_chunks] = VG_(malloc)("cats.vf.hist",
                                                    CHUNK_WORDS * sizeof(UInt));
      chunk_used[n_chunks++] = 0;
   }
   UInt off = ((n_chunks - 1) << VF_HIST_CHUNK_BITS) + chunk_used[n_chunks - 1];
   chunk_used[n_chunks - 1] += words;
   return (off + 1) << 1;   /* even, never 0 */
}

static void free_block(UInt handle)
{
   VfHist* h = CATS_(vf_hist)(handle);
   h->n = 0;
   h->id = free_list[h->cap_log];
   free_list[h->cap_log] = handle;
}

static UInt new_hist(UInt id, UInt first, UInt second)
{
   UInt handle = alloc_block(MIN_CAP_LOG);
   VfHist* h = CATS_(vf_hist)(handle);
   h->id = id;
   h->n = 2;
   h->cap_log = MIN_CAP_LOG;
   h->open = 1;
   h->run_ver = h->run_d = h->run_len = 0;
   h->sig[0] = first;
   h->sig[1] = second;
   n_hists++;
   return handle;
}

static void flush_run(VfHist* h)
{
   if (h->run_len == 0)
      return;
   CATS_(vf_send_step)(h->id, h->run_ver, h->run_d, h->run_len);
   h->run_len = 0;
}

/* The version 'ver' moves d records along the ring. */
static void step(VfHist* h, UInt ver, UInt d)
{
   if (h->run_len != 0 && h->run_len < VF_RUN_MAX && d == 1
       && ver == h->run_ver + h->run_len) {
      h->run_len++;
      return;
   }
   flush_run(h);
   h->run_ver = ver;
   h->run_d = d;
   h->run_len = 1;
}

/* A record that is not in the ring: after the open one, as the helper
   puts it, or alone in a new ring when the ring is full. A history that
   outgrows its block moves, and *sigw takes its new handle. */
static UInt add_record(UInt* sigw, VfHist* h, UInt s)
{
   flush_run(h);
   if (h->n == CATS_VF_RING_MAX) {
      h->n = 1;
      h->open = 0;
      h->sig[0] = s;
      return CATS_VF_SOURCES_ALONE;
   }
   if (h->n == 1u << h->cap_log) {
      UInt old = *sigw, moved = alloc_block(h->cap_log + 1);
      h = CATS_(vf_hist)(old);   /* the pool's chunk table may have moved */
      VfHist* g = CATS_(vf_hist)(moved);
      VG_(memcpy)(g, h, (HIST_HEAD + h->n) * sizeof(UInt));
      g->cap_log = h->cap_log + 1;
      free_block(old);
      *sigw = moved;
      h = g;
   }
   UInt k;
   for (k = h->n; k > h->open + 1; k--)
      h->sig[k] = h->sig[k - 1];
   h->open++;
   h->sig[h->open] = s;
   h->n++;
   return CATS_VF_SOURCES;
}

/* Called by vf_record_tag only, which has found s other than the last
   signature (vf_bump) and, for a history, other than the open record's. */
UInt CATS_(vf_record_tag_slow)(UInt id, UInt ver, UInt* sig, UInt s)
{
   UInt cur = *sig;
   if (cur == 0) {            /* its first record */
      *sig = s;
      return CATS_VF_SOURCES;
   }
   if (cur & 1) {
      /* A memory word's second record (data set up, then computed at
         every time step, as most arrays are) needs no history: the
         first record's signature is kept aside, and a third record
         makes the history of the helper's ring, [first, second]. */
      UInt* first = (id & VF_REG_BIT) ? NULL : CATS_(vf_first_sig_slot)(id);
      if (first != NULL && *first == 0) {
         *first = cur;
         *sig = s;
         return CATS_VF_SOURCES;
      }
      *sig = cur = new_hist(id, first != NULL ? *first : cur,
                            first != NULL ? cur : s);
      if (first == NULL)
         return CATS_VF_SOURCES;   /* the ring is [cur, s], s open */
   }
   VfHist* h = CATS_(vf_hist)(cur);
   UInt d, pos = h->open;
   for (d = 1; d < h->n; d++) {
      pos = pos + 1 == h->n ? 0 : pos + 1;
      if (h->sig[pos] == s) {
         step(h, ver, d);
         h->open = pos;
         return 0;
      }
   }
   return add_record(sig, h, s);
}

void CATS_(vf_hist_finish)(void)
{
   UInt c, w;
   for (c = 0; c < n_chunks; c++)
      for (w = 0; w < chunk_used[c]; ) {
         VfHist* h = (VfHist*)(CATS_(vf_hist_chunks)[c] + w);
         if (h->n != 0)
            flush_run(h);
         w += block_words(h->cap_log);
      }
}

UInt CATS_(vf_hist_count)(void)
{
   return n_hists;
}

void CATS_(vf_hist_release)(void)
{
   UInt c;
   for (c = 0; c < n_chunks; c++)
      VG_(free)(CATS_(vf_hist_chunks)[c]);
   if (CATS_(vf_hist_chunks) != NULL)
      VG_(free)(CATS_(vf_hist_chunks));
   if (chunk_used != NULL)
      VG_(free)(chunk_used);
   CATS_(vf_hist_chunks) = NULL;
   chunk_used = NULL;
   n_chunks = cap_chunks = 0;
}
