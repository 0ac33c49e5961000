/* test_reuse.c: sections 9 (REUSE) and 10 (INDEX) of the trace reader.
 *
 * usage: test_reuse WORKDIR
 * The synthetic trace of synth.h plus the two sections, written field by
 * field from docs/FORMAT.md: decoded values, the index containers, the
 * miss estimate, a round trip through the container, and every kind of
 * corruption rejected with a message naming the section. */
#define _POSIX_C_SOURCE 200809L

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../cats/format/cats_format.h"
#include "../../cats/host/le.h"
#include "../../cats/host/trace_read.h"
#include "../../cats/host/trace_write.h"
#include "check.h"
#include "synth.h"

CHECK_DEFINE_GLOBALS;

static const char *workdir;

/* One sparse histogram record: id, mask, then the counts in bit order. */
static int put_hist(cbuf *b, uint32_t id, uint64_t mask, const uint64_t *v)
{
   int r = cbuf_put32(b, id) | cbuf_put64(b, mask);
   for (int k = 0, i = 0; k < CATS_REUSE_MASK_BITS; k++)
      if (mask >> k & 1)
         r |= cbuf_put64(b, v[i++]);
   return r;
}

/* Section 9 of the synthetic trace, sampling 16: event 0 cold 16 and 144
 * at distance 0; event 2 48 in bucket 5; alloc 0 their sum. */
static void build_reuse(cbuf *b)
{
   b->len = 0;
   int r = cbuf_put32(b, 64) | cbuf_put32(b, 16) |
           cbuf_put32(b, CATS_REUSE_BUCKETS);
   r |= cbuf_put32(b, 2);
   r |= put_hist(b, 0, 0x3, (const uint64_t[]){ 16, 144 });
   r |= put_hist(b, 2, 1ull << 6, (const uint64_t[]){ 48 });
   r |= cbuf_put32(b, 1);
   r |= put_hist(b, 0, 0x3 | 1ull << 6, (const uint64_t[]){ 16, 144, 48 });
   CHECK(r == 0);
}

/* Section 10: the accesses at loc 3 get their address from the load at
 * loc 5 (event 2 reads alloc 0 there). */
static void build_index(cbuf *b)
{
   b->len = 0;
   CHECK((cbuf_put32(b, 1) | cbuf_put32(b, 3) | cbuf_put32(b, 5)) == 0);
}

/* Decode the synthetic trace plus raw sections 9 and 10 (either NULL). */
static ctr_status decode(const cbuf *reuse, const cbuf *index,
                         ctr_trace **out, char *err)
{
   syn_opts o;
   syn_default_opts(&o);
   syn_trace s;
   if (syn_build(&s, &o) != 0)
      return CTR_ENOMEM;
   ctr_section r[SYN_NSEC + 2];
   size_t n = 0;
   for (int i = 0; i < SYN_NSEC; i++)
      r[n++] = (ctr_section){ s.type[i], s.sec[i].data, s.sec[i].len };
   if (reuse)
      r[n++] = (ctr_section){ CATS_SEC_REUSE, reuse->data, reuse->len };
   if (index)
      r[n++] = (ctr_section){ CATS_SEC_INDEX, index->data, index->len };
   err[0] = '\0';
   ctr_status st = ctr_decode(r, n, out, err, CTR_ERRLEN);
   syn_free(&s);
   return st;
}

static void check_decoded(const ctr_trace *t);

/* The same with META entries reuse_sampling and index_pairs (either
 * NULL for none), as the tool writes them. */
static ctr_status decode_meta(const cbuf *reuse, const cbuf *index,
                              const char *sampling, const char *pairs,
                              char *err)
{
   syn_opts o;
   syn_default_opts(&o);
   syn_trace s;
   if (syn_build(&s, &o) != 0)
      return CTR_ENOMEM;
   cbuf *str = &s.sec[syn_find(&s, CATS_SEC_STRINGS)];
   cbuf *meta = &s.sec[syn_find(&s, CATS_SEC_META)];
   const char *kv[4] = { "reuse_sampling", sampling, "index_pairs", pairs };
   uint32_t nstr = cle_u32(str->data), nmeta = cle_u32(meta->data);
   for (int k = 0; k < 4; k += 2) {
      if (!kv[k + 1])
         continue;
      for (int j = 0; j < 2; j++) {
         cbuf_put32(str, (uint32_t)strlen(kv[k + j]));
         cbuf_append(str, kv[k + j], strlen(kv[k + j]));
      }
      cbuf_put32(meta, nstr);
      cbuf_put32(meta, nstr + 1);
      nstr += 2;
      nmeta++;
   }
   cle_put32(str->data, nstr);
   cle_put32(meta->data, nmeta);
   ctr_section r[SYN_NSEC + 2];
   size_t n = 0;
   for (int i = 0; i < SYN_NSEC; i++)
      r[n++] = (ctr_section){ s.type[i], s.sec[i].data, s.sec[i].len };
   if (reuse)
      r[n++] = (ctr_section){ CATS_SEC_REUSE, reuse->data, reuse->len };
   if (index)
      r[n++] = (ctr_section){ CATS_SEC_INDEX, index->data, index->len };
   ctr_trace *t = NULL;
   err[0] = '\0';
   ctr_status st = ctr_decode(r, n, &t, err, CTR_ERRLEN);
   if (t && reuse && index)
      check_decoded(t);
   ctr_free(t);
   syn_free(&s);
   return st;
}

static void check_decoded(const ctr_trace *t)
{
   CHECK(t->has_reuse);
   CHECK_EQ(t->reuse.line_size, 64);
   CHECK_EQ(t->reuse.sampling, 16);
   const ctr_reuse_hist *e = t->reuse.events;
   CHECK_EQ(e[0].cold, 16);
   CHECK_EQ(e[0].bucket[0], 144);
   CHECK_EQ(e[0].bucket[5], 0);
   CHECK_EQ(e[1].cold, 0);
   CHECK_EQ(e[1].bucket[0], 0);
   CHECK_EQ(e[2].bucket[5], 48);
   CHECK_EQ(e[2].cold, 0);
   const ctr_reuse_hist *a = t->reuse.allocs;
   CHECK_EQ(a[0].cold, 16);
   CHECK_EQ(a[0].bucket[0], 144);
   CHECK_EQ(a[0].bucket[5], 48);
   CHECK_EQ(a[1].cold, 0);
   CHECK(t->has_index);
   CHECK_EQ(t->index_loc[0], 5);
   CHECK_EQ(t->index_loc[1], 5);
   CHECK_EQ(t->index_loc[2], CATS_NONE);
   CHECK_EQ(t->index_alloc[0], 0);
   CHECK_EQ(t->index_alloc[1], 0);
   CHECK_EQ(t->index_alloc[2], CATS_NONE);
}

static void test_decode(void)
{
   cbuf reuse = CBUF_INIT, index = CBUF_INIT;
   build_reuse(&reuse);
   build_index(&index);
   ctr_trace *t = NULL;
   char err[CTR_ERRLEN];
   ctr_status st = decode(&reuse, &index, &t, err);
   if (st != CTR_OK)
      fprintf(stderr, "  decode: %s\n", err);
   CHECK_EQ(st, CTR_OK);
   if (t)
      check_decoded(t);
   ctr_free(t);
   cbuf_free(&reuse);
   cbuf_free(&index);
}

/* Without the sections: no histograms, and every event without an index
 * (the per-event arrays still exist). */
static void test_absent(void)
{
   ctr_trace *t = NULL;
   char err[CTR_ERRLEN];
   CHECK_EQ(decode(NULL, NULL, &t, err), CTR_OK);
   if (!t)
      return;
   CHECK(!t->has_reuse && !t->has_index);
   CHECK(t->reuse.events == NULL && t->reuse.allocs == NULL);
   CHECK(t->index_loc != NULL && t->index_alloc != NULL);
   for (uint32_t i = 0; i < t->nevents; i++) {
      CHECK_EQ(t->index_loc[i], CATS_NONE);
      CHECK_EQ(t->index_alloc[i], CATS_NONE);
   }
   ctr_free(t);
}

/* The load at the index loc reads a stack frame: a spilled or scalar
 * local, not an index array, so the access has no index container. */
static void test_index_stack_frame(void)
{
   syn_opts o;
   syn_default_opts(&o);
   syn_trace s;
   CHECK(syn_build(&s, &o) == 0);
   int al = syn_find(&s, CATS_SEC_ALLOCS);
   s.sec[al].data[4] = CATS_ALLOC_STACK_FRAME;   /* alloc 0's kind */
   cbuf index = CBUF_INIT;
   build_index(&index);
   ctr_section r[SYN_NSEC + 1];
   for (int i = 0; i < SYN_NSEC; i++)
      r[i] = (ctr_section){ s.type[i], s.sec[i].data, s.sec[i].len };
   r[SYN_NSEC] = (ctr_section){ CATS_SEC_INDEX, index.data, index.len };
   ctr_trace *t = NULL;
   char err[CTR_ERRLEN];
   CHECK_EQ(ctr_decode(r, SYN_NSEC + 1, &t, err, sizeof err), CTR_OK);
   if (t) {
      CHECK_EQ(t->index_loc[0], 5);
      CHECK_EQ(t->index_alloc[0], CATS_NONE);
   }
   ctr_free(t);
   cbuf_free(&index);
   syn_free(&s);
}

/* META says which of the optional sections the tool wrote: one missing
 * (its table entry's type damaged) or disagreeing is an error. */
static void test_meta_cross_check(void)
{
   cbuf reuse = CBUF_INIT, index = CBUF_INIT;
   build_reuse(&reuse);
   build_index(&index);
   char err[CTR_ERRLEN];
   CHECK_EQ(decode_meta(&reuse, &index, "16", "1", err), CTR_OK);
   CHECK_EQ(decode_meta(NULL, &index, "16", "1", err), CTR_EMISSING);
   CHECK(strstr(err, "section 9 (REUSE) is missing") != NULL);
   CHECK_EQ(decode_meta(&reuse, NULL, "16", "1", err), CTR_EMISSING);
   CHECK(strstr(err, "section 10 (INDEX) is missing") != NULL);
   CHECK_EQ(decode_meta(&reuse, &index, "8", "1", err), CTR_EVALUE);
   CHECK(strstr(err, "META reuse_sampling is 8") != NULL);
   CHECK_EQ(decode_meta(&reuse, &index, "16", "2", err), CTR_EVALUE);
   CHECK(strstr(err, "META index_pairs is 2") != NULL);
   CHECK_EQ(decode_meta(&reuse, &index, "sixteen", "1", err), CTR_EVALUE);
   /* --reuse-distance=no: no key, no section. */
   CHECK_EQ(decode_meta(NULL, &index, NULL, "1", err), CTR_OK);
   cbuf_free(&reuse);
   cbuf_free(&index);
}

/* Written into a .cats file and read back: the container layer knows the
 * two sections. */
static void test_roundtrip(void)
{
   syn_opts o;
   syn_default_opts(&o);
   syn_trace s;
   CHECK(syn_build(&s, &o) == 0);
   cbuf reuse = CBUF_INIT, index = CBUF_INIT;
   build_reuse(&reuse);
   build_index(&index);
   ctw_section w[SYN_NSEC + 2];
   for (int i = 0; i < SYN_NSEC; i++)
      w[i] = (ctw_section){ s.type[i], s.sec[i].data, s.sec[i].len };
   w[SYN_NSEC] = (ctw_section){ CATS_SEC_INDEX, index.data, index.len };
   w[SYN_NSEC + 1] = (ctw_section){ CATS_SEC_REUSE, reuse.data, reuse.len };
   char path[4200], err[CTR_ERRLEN];
   snprintf(path, sizeof path, "%s/reuse.cats", workdir);
   CHECK_EQ(ctw_write(path, w, SYN_NSEC + 2, err, sizeof err), CTW_OK);
   ctr_trace *t = NULL;
   ctr_status st = ctr_open(path, &t, err, sizeof err);
   if (st != CTR_OK)
      fprintf(stderr, "  read: %s\n", err);
   CHECK_EQ(st, CTR_OK);
   if (t)
      check_decoded(t);
   ctr_free(t);
   CHECK(strcmp(ctr_section_name(CATS_SEC_REUSE), "REUSE") == 0);
   CHECK(strcmp(ctr_section_name(CATS_SEC_INDEX), "INDEX") == 0);
   unlink(path);
   cbuf_free(&reuse);
   cbuf_free(&index);
   syn_free(&s);
}

/* The section built by `fill` must be rejected with `want` and a message
 * that names the section and contains `what`. */
static void expect_bad(int sec, void (*fill)(cbuf *), ctr_status want,
                       const char *what, int line)
{
   cbuf b = CBUF_INIT;
   fill(&b);
   ctr_trace *t = NULL;
   char err[CTR_ERRLEN];
   ctr_status st = sec == CATS_SEC_REUSE ? decode(&b, NULL, &t, err)
                                         : decode(NULL, &b, &t, err);
   const char *name = sec == CATS_SEC_REUSE ? "REUSE" : "INDEX";
   if (st != want || t != NULL || strstr(err, name) != err ||
       strstr(err, what) == NULL) {
      fprintf(stderr, "  line %d: status %d (want %d), message \"%s\" "
              "(want %s: ...%s...)\n", line, st, want, err, name, what);
      chk_failures++;
   }
   ctr_free(t);
   cbuf_free(&b);
}

#define BAD(sec, fill, want, what) expect_bad(sec, fill, want, what, __LINE__)

/* REUSE corruptions. */
static void head(cbuf *b, uint32_t line, uint32_t sampling, uint32_t nb)
{
   cbuf_put32(b, line);
   cbuf_put32(b, sampling);
   cbuf_put32(b, nb);
}
static void r_short(cbuf *b) { cbuf_put32(b, 64); cbuf_put32(b, 16); }
static void r_line0(cbuf *b) { head(b, 0, 16, 33); cbuf_put32(b, 0); cbuf_put32(b, 0); }
static void r_line48(cbuf *b) { head(b, 48, 16, 33); cbuf_put32(b, 0); cbuf_put32(b, 0); }
static void r_rate3(cbuf *b) { head(b, 64, 3, 33); cbuf_put32(b, 0); cbuf_put32(b, 0); }
static void r_rate2k(cbuf *b) { head(b, 64, 2048, 33); cbuf_put32(b, 0); cbuf_put32(b, 0); }
static void r_buckets(cbuf *b) { head(b, 64, 16, 32); cbuf_put32(b, 0); cbuf_put32(b, 0); }
static void r_no_allocs(cbuf *b) { head(b, 64, 16, 33); cbuf_put32(b, 0); }
static void r_event_range(cbuf *b)
{
   head(b, 64, 16, 33);
   cbuf_put32(b, 1);
   put_hist(b, 3, 1, (const uint64_t[]){ 16 });   /* 3 events: 0..2 */
   cbuf_put32(b, 0);
}
static void r_alloc_range(cbuf *b)
{
   head(b, 64, 16, 33);
   cbuf_put32(b, 0);
   cbuf_put32(b, 1);
   put_hist(b, 2, 1, (const uint64_t[]){ 16 });   /* 2 allocs */
}
static void r_order(cbuf *b)
{
   head(b, 64, 16, 33);
   cbuf_put32(b, 2);
   put_hist(b, 1, 1, (const uint64_t[]){ 16 });
   put_hist(b, 1, 2, (const uint64_t[]){ 16 });
   cbuf_put32(b, 0);
}
static void r_mask0(cbuf *b)
{
   head(b, 64, 16, 33);
   cbuf_put32(b, 1);
   put_hist(b, 0, 0, NULL);
   cbuf_put32(b, 0);
}
static void r_mask_high(cbuf *b)
{
   head(b, 64, 16, 33);
   cbuf_put32(b, 1);
   put_hist(b, 0, 1ull << CATS_REUSE_MASK_BITS, (const uint64_t[]){ 16 });
   cbuf_put32(b, 0);
}
static void r_zero(cbuf *b)
{
   head(b, 64, 16, 33);
   cbuf_put32(b, 1);
   put_hist(b, 0, 3, (const uint64_t[]){ 16, 0 });
   cbuf_put32(b, 0);
}
static void r_cut(cbuf *b)
{
   head(b, 64, 16, 33);
   cbuf_put32(b, 1);
   cbuf_put32(b, 0);
   cbuf_put64(b, 7);      /* three counts announced */
   cbuf_put64(b, 16);     /* one present, then the alloc count */
   cbuf_put32(b, 0);
}
static void r_count(cbuf *b) { head(b, 64, 16, 33); cbuf_put32(b, 0x10000000); cbuf_put32(b, 0); }
static void r_trailing(cbuf *b)
{
   head(b, 64, 16, 33);
   cbuf_put32(b, 0);
   cbuf_put32(b, 0);
   cbuf_put8(b, 0);
}

static void test_bad_reuse(void)
{
   BAD(CATS_SEC_REUSE, r_short, CTR_ERECORD, "header");
   BAD(CATS_SEC_REUSE, r_line0, CTR_EVALUE, "line size 0");
   BAD(CATS_SEC_REUSE, r_line48, CTR_EVALUE, "line size 48");
   BAD(CATS_SEC_REUSE, r_rate3, CTR_EVALUE, "sampling 3");
   BAD(CATS_SEC_REUSE, r_rate2k, CTR_EVALUE, "sampling 2048");
   BAD(CATS_SEC_REUSE, r_buckets, CTR_EVALUE, "32 buckets");
   BAD(CATS_SEC_REUSE, r_no_allocs, CTR_ERECORD, "alloc count");
   BAD(CATS_SEC_REUSE, r_event_range, CTR_EREF, "event 3 out of range");
   BAD(CATS_SEC_REUSE, r_alloc_range, CTR_EREF, "alloc 2 out of range");
   BAD(CATS_SEC_REUSE, r_order, CTR_EVALUE, "not after");
   BAD(CATS_SEC_REUSE, r_mask0, CTR_EVALUE, "mask 0x0");
   BAD(CATS_SEC_REUSE, r_mask_high, CTR_EVALUE, "mask 0x400000000");
   BAD(CATS_SEC_REUSE, r_zero, CTR_EVALUE, "count is 0");
   BAD(CATS_SEC_REUSE, r_cut, CTR_ERECORD, "run past");
   BAD(CATS_SEC_REUSE, r_count, CTR_ERECORD, "cannot fit");
   BAD(CATS_SEC_REUSE, r_trailing, CTR_ERECORD, "trailing");
}

/* INDEX corruptions (the synthetic trace has 6 locs). */
static void i_short(cbuf *b) { cbuf_put16(b, 0); }
static void i_size(cbuf *b) { cbuf_put32(b, 2); cbuf_put32(b, 3); cbuf_put32(b, 5); }
static void i_access_range(cbuf *b) { cbuf_put32(b, 1); cbuf_put32(b, 6); cbuf_put32(b, 5); }
static void i_index_range(cbuf *b) { cbuf_put32(b, 1); cbuf_put32(b, 3); cbuf_put32(b, CATS_NONE); }
static void i_order(cbuf *b)
{
   cbuf_put32(b, 2);
   cbuf_put32(b, 3);
   cbuf_put32(b, 5);
   cbuf_put32(b, 3);
   cbuf_put32(b, 4);
}

static void test_bad_index(void)
{
   BAD(CATS_SEC_INDEX, i_short, CTR_ERECORD, "too short");
   BAD(CATS_SEC_INDEX, i_size, CTR_ERECORD, "2 pairs");
   BAD(CATS_SEC_INDEX, i_access_range, CTR_EREF, "loc 6 out of range");
   BAD(CATS_SEC_INDEX, i_index_range, CTR_EREF, "loc 4294967295 out of");
   BAD(CATS_SEC_INDEX, i_order, CTR_EVALUE, "not after");
}

static int near(double a, double b)
{
   return a - b < 1e-9 && b - a < 1e-9;
}

/* Misses from cold 10, 100 at distance 0, 20 at 1, 40 in [4, 8) and 5
 * beyond 2^31. */
static void test_misses(void)
{
   ctr_reuse_hist h;
   memset(&h, 0, sizeof h);
   h.cold = 10;
   h.bucket[0] = 100;
   h.bucket[1] = 20;
   h.bucket[3] = 40;
   h.bucket[32] = 5;
   static const struct {
      uint64_t lines;
      double capacity;
   } want[] = {
      { 0, 165 },            /* every reuse misses */
      { 1, 65 },             /* exact at powers of two */
      { 2, 45 },
      { 4, 45 },
      { 5, 35 },             /* [4, 8) is 3/4 at or beyond 5 */
      { 6, 25 },
      { 8, 5 },
      { 1ull << 31, 5 },
      { 1ull << 40, 5 },     /* the open bucket still counts */
   };
   for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
      ctr_misses m = ctr_reuse_misses(&h, want[i].lines);
      if (!near(m.capacity, want[i].capacity) || !near(m.cold, 10) ||
          !near(m.accesses, 175)) {
         fprintf(stderr, "  %llu lines: cold %g capacity %g accesses %g\n",
                 (unsigned long long)want[i].lines, m.cold, m.capacity,
                 m.accesses);
         chk_failures++;
      }
   }
}

int main(int argc, char **argv)
{
   if (argc != 2) {
      fprintf(stderr, "usage: test_reuse WORKDIR\n");
      return 2;
   }
   workdir = argv[1];
   RUN(test_decode);
   RUN(test_absent);
   RUN(test_index_stack_frame);
   RUN(test_meta_cross_check);
   RUN(test_roundtrip);
   RUN(test_bad_reuse);
   RUN(test_bad_index);
   RUN(test_misses);
   return chk_failed ? 1 : 0;
}
