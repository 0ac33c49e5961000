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

VfHist** CATS_(vf_hists);
static UInt  n_hists, cap_hists;

static UInt new_hist(UInt id, UInt first, UInt second)
{
   if (n_hists == cap_hists) {
      cap_hists = cap_hists ? 2 * cap_hists : 1024;
      if (cap_hists >= (1u << 30))
         VG_(tool_panic)("cats: value flow: too many vertices with "
                         "changing sources");
      CATS_(vf_hists) = VG_(realloc)("cats.vf.hists", CATS_(vf_hists),
                                     cap_hists * sizeof(VfHist*));
   }
   VfHist* h = VG_(malloc)("cats.vf.hist", sizeof(VfHist) + 4 * sizeof(UInt));
   h->id = id;
   h->n = 2;
   h->cap = 4;
   h->open = 1;
   h->run_ver = h->run_d = h->run_len = 0;
   h->sig[0] = first;
   h->sig[1] = second;
   CATS_(vf_hists)[n_hists++] = h;
   return n_hists << 1;   /* even, never 0 */
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
   puts it, or alone in a new ring when the ring is full. */
static UInt add_record(UInt handle, VfHist* h, UInt s)
{
   flush_run(h);
   if (h->n == CATS_VF_RING_MAX) {
      h->n = 1;
      h->open = 0;
      h->sig[0] = s;
      return CATS_VF_SOURCES_ALONE;
   }
   if (h->n == h->cap) {
      h->cap = h->cap * 2 < CATS_VF_RING_MAX ? h->cap * 2 : CATS_VF_RING_MAX;
      h = VG_(realloc)("cats.vf.hist", h,
                       sizeof(VfHist) + h->cap * sizeof(UInt));
      CATS_(vf_hists)[(handle >> 1) - 1] = h;
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
   VfHist* h = CATS_(vf_hists)[(cur >> 1) - 1];
   UInt d, pos = h->open;
   for (d = 1; d < h->n; d++) {
      pos = pos + 1 == h->n ? 0 : pos + 1;
      if (h->sig[pos] == s) {
         step(h, ver, d);
         h->open = pos;
         return 0;
      }
   }
   return add_record(cur, h, s);
}

void CATS_(vf_hist_finish)(void)
{
   UInt i;
   for (i = 0; i < n_hists; i++)
      flush_run(CATS_(vf_hists)[i]);
}

UInt CATS_(vf_hist_count)(void)
{
   return n_hists;
}
