/* SPDX-License-Identifier: GPL-2.0-or-later */
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

#include "cats/format/cats_format.h"
#include "cats/trace/le.h"
#include "cats/trace/trace.h"
#include "cats/trace/trace_write.h"
#include "check.h"
#include "synth.h"

CHECK_DEFINE_GLOBALS;

static const char *workdir;

/* One sparse histogram record: id, mask, then the counts in bit order. */
static int put_hist(trace_buf *b, uint32_t id, uint64_t mask, const uint64_t *v)
{
   int r = trace_buf_put32(b, id) | trace_buf_put64(b, mask);
   for (int k = 0, i = 0; k < CATS_REUSE_MASK_BITS; k++)
      if (mask >> k & 1)
         r |= trace_buf_put64(b, v[i++]);
   return r;
}

/* Section 9 of the synthetic trace, sampling 16: event 0 cold 16 and 144
 * at distance 0; event 2 48 in bucket 5; alloc 0 their sum. */
static void build_reuse(trace_buf *b)
{
   b->len = 0;
   int r = trace_buf_put32(b, 64) | trace_buf_put32(b, 16) |
           trace_buf_put32(b, CATS_REUSE_BUCKETS);
   r |= trace_buf_put32(b, 2);
   r |= put_hist(b, 0, 0x3, (const uint64_t[]){ 16, 144 });
   r |= put_hist(b, 2, 1ull << 6, (const uint64_t[]){ 48 });
   r |= trace_buf_put32(b, 1);
   r |= put_hist(b, 0, 0x3 | 1ull << 6, (const uint64_t[]){ 16, 144, 48 });
   CHECK(r == 0);
}

/* Section 10: the accesses at loc 3 get their address from the load at
 * loc 5 (event 2 reads alloc 0 there). */
static void build_index(trace_buf *b)
{
   b->len = 0;
   CHECK((trace_buf_put32(b, 1) | trace_buf_put32(b, 3) | trace_buf_put32(b, 5)) == 0);
}

/* Decode the synthetic trace plus raw sections 9 and 10 (either NULL). */
static trace_status decode(const trace_buf *reuse, const trace_buf *index,
                           trace_file **out, char *err)
{
   syn_opts o;
   syn_default_opts(&o);
   syn_trace s;
   if (syn_build(&s, &o) != 0)
      return TRACE_ENOMEM;
   trace_section r[SYN_NSEC + 2];
   size_t n = 0;
   for (int i = 0; i < SYN_NSEC; i++)
      r[n++] = (trace_section){ s.type[i], s.sec[i].data, s.sec[i].len };
   if (reuse)
      r[n++] = (trace_section){ CATS_SEC_REUSE, reuse->data, reuse->len };
   if (index)
      r[n++] = (trace_section){ CATS_SEC_INDEX, index->data, index->len };
   err[0] = '\0';
   trace_status st = trace_decode(r, n, out, err, TRACE_ERRLEN);
   syn_free(&s);
   return st;
}

static void check_decoded(const trace_file *t);

/* The same with META entries reuse_sampling and index_pairs (either
 * NULL for none), as the tool writes them. */
static trace_status decode_meta(const trace_buf *reuse, const trace_buf *index,
                                const char *sampling, const char *pairs,
                                char *err)
{
   syn_opts o;
   syn_default_opts(&o);
   syn_trace s;
   if (syn_build(&s, &o) != 0)
      return TRACE_ENOMEM;
   trace_buf *str = &s.sec[syn_find(&s, CATS_SEC_STRINGS)];
   trace_buf *meta = &s.sec[syn_find(&s, CATS_SEC_META)];
   const char *kv[4] = { "reuse_sampling", sampling, "index_pairs", pairs };
   uint32_t nstr = le_u32(str->data), nmeta = le_u32(meta->data);
   for (int k = 0; k < 4; k += 2) {
      if (!kv[k + 1])
         continue;
      for (int j = 0; j < 2; j++) {
         trace_buf_put32(str, (uint32_t)strlen(kv[k + j]));
         trace_buf_append(str, kv[k + j], strlen(kv[k + j]));
      }
      trace_buf_put32(meta, nstr);
      trace_buf_put32(meta, nstr + 1);
      nstr += 2;
      nmeta++;
   }
   le_put32(str->data, nstr);
   le_put32(meta->data, nmeta);
   trace_section r[SYN_NSEC + 2];
   size_t n = 0;
   for (int i = 0; i < SYN_NSEC; i++)
      r[n++] = (trace_section){ s.type[i], s.sec[i].data, s.sec[i].len };
   if (reuse)
      r[n++] = (trace_section){ CATS_SEC_REUSE, reuse->data, reuse->len };
   if (index)
      r[n++] = (trace_section){ CATS_SEC_INDEX, index->data, index->len };
   trace_file *t = NULL;
   err[0] = '\0';
   trace_status st = trace_decode(r, n, &t, err, TRACE_ERRLEN);
   if (t && reuse && index)
      check_decoded(t);
   trace_free(t);
   syn_free(&s);
   return st;
}

static void check_decoded(const trace_file *t)
{
   CHECK(t->has_reuse);
   CHECK_EQ(t->reuse.line_size, 64);
   CHECK_EQ(t->reuse.sampling, 16);
   const trace_reuse_hist *e = t->reuse.events;
   CHECK_EQ(e[0].cold, 16);
   CHECK_EQ(e[0].bucket[0], 144);
   CHECK_EQ(e[0].bucket[5], 0);
   CHECK_EQ(e[1].cold, 0);
   CHECK_EQ(e[1].bucket[0], 0);
   CHECK_EQ(e[2].bucket[5], 48);
   CHECK_EQ(e[2].cold, 0);
   const trace_reuse_hist *a = t->reuse.allocs;
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
   trace_buf reuse = TRACE_BUF_INIT, index = TRACE_BUF_INIT;
   build_reuse(&reuse);
   build_index(&index);
   trace_file *t = NULL;
   char err[TRACE_ERRLEN];
   trace_status st = decode(&reuse, &index, &t, err);
   if (st != TRACE_OK)
      fprintf(stderr, "  decode: %s\n", err);
   CHECK_EQ(st, TRACE_OK);
   if (t)
      check_decoded(t);
   trace_free(t);
   trace_buf_free(&reuse);
   trace_buf_free(&index);
}

/* Without the sections: no histograms, and every event without an index
 * (the per-event arrays still exist). */
static void test_absent(void)
{
   trace_file *t = NULL;
   char err[TRACE_ERRLEN];
   CHECK_EQ(decode(NULL, NULL, &t, err), TRACE_OK);
   if (!t)
      return;
   CHECK(!t->has_reuse && !t->has_index);
   CHECK(t->reuse.events == NULL && t->reuse.allocs == NULL);
   CHECK(t->index_loc != NULL && t->index_alloc != NULL);
   for (uint32_t i = 0; i < t->nevents; i++) {
      CHECK_EQ(t->index_loc[i], CATS_NONE);
      CHECK_EQ(t->index_alloc[i], CATS_NONE);
   }
   trace_free(t);
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
   trace_buf index = TRACE_BUF_INIT;
   build_index(&index);
   trace_section r[SYN_NSEC + 1];
   for (int i = 0; i < SYN_NSEC; i++)
      r[i] = (trace_section){ s.type[i], s.sec[i].data, s.sec[i].len };
   r[SYN_NSEC] = (trace_section){ CATS_SEC_INDEX, index.data, index.len };
   trace_file *t = NULL;
   char err[TRACE_ERRLEN];
   CHECK_EQ(trace_decode(r, SYN_NSEC + 1, &t, err, sizeof err), TRACE_OK);
   if (t) {
      CHECK_EQ(t->index_loc[0], 5);
      CHECK_EQ(t->index_alloc[0], CATS_NONE);
   }
   trace_free(t);
   trace_buf_free(&index);
   syn_free(&s);
}

/* META says which of the optional sections the tool wrote: one missing
 * (its table entry's type damaged) or disagreeing is an error. */
static void test_meta_cross_check(void)
{
   trace_buf reuse = TRACE_BUF_INIT, index = TRACE_BUF_INIT;
   build_reuse(&reuse);
   build_index(&index);
   char err[TRACE_ERRLEN];
   CHECK_EQ(decode_meta(&reuse, &index, "16", "1", err), TRACE_OK);
   CHECK_EQ(decode_meta(NULL, &index, "16", "1", err), TRACE_EMISSING);
   CHECK(strstr(err, "section 9 (REUSE) is missing") != NULL);
   CHECK_EQ(decode_meta(&reuse, NULL, "16", "1", err), TRACE_EMISSING);
   CHECK(strstr(err, "section 10 (INDEX) is missing") != NULL);
   CHECK_EQ(decode_meta(&reuse, &index, "8", "1", err), TRACE_EVALUE);
   CHECK(strstr(err, "META reuse_sampling is 8") != NULL);
   CHECK_EQ(decode_meta(&reuse, &index, "16", "2", err), TRACE_EVALUE);
   CHECK(strstr(err, "META index_pairs is 2") != NULL);
   CHECK_EQ(decode_meta(&reuse, &index, "sixteen", "1", err), TRACE_EVALUE);
   /* --reuse-distance=no: no key, no section. */
   CHECK_EQ(decode_meta(NULL, &index, NULL, "1", err), TRACE_OK);
   trace_buf_free(&reuse);
   trace_buf_free(&index);
}

/* Written into a .cats file and read back: the container layer knows the
 * two sections. */
static void test_roundtrip(void)
{
   syn_opts o;
   syn_default_opts(&o);
   syn_trace s;
   CHECK(syn_build(&s, &o) == 0);
   trace_buf reuse = TRACE_BUF_INIT, index = TRACE_BUF_INIT;
   build_reuse(&reuse);
   build_index(&index);
   trace_write_section w[SYN_NSEC + 2];
   for (int i = 0; i < SYN_NSEC; i++)
      w[i] = (trace_write_section){ s.type[i], s.sec[i].data, s.sec[i].len };
   w[SYN_NSEC] = (trace_write_section){ CATS_SEC_INDEX, index.data, index.len };
   w[SYN_NSEC + 1] = (trace_write_section){ CATS_SEC_REUSE, reuse.data, reuse.len };
   char path[4200], err[TRACE_ERRLEN];
   snprintf(path, sizeof path, "%s/reuse.cats", workdir);
   CHECK_EQ(trace_write(path, w, SYN_NSEC + 2, err, sizeof err), TRACE_WRITE_OK);
   trace_file *t = NULL;
   trace_status st = trace_open(path, &t, err, sizeof err);
   if (st != TRACE_OK)
      fprintf(stderr, "  read: %s\n", err);
   CHECK_EQ(st, TRACE_OK);
   if (t)
      check_decoded(t);
   trace_free(t);
   CHECK(strcmp(trace_section_name(CATS_SEC_REUSE), "REUSE") == 0);
   CHECK(strcmp(trace_section_name(CATS_SEC_INDEX), "INDEX") == 0);
   unlink(path);
   trace_buf_free(&reuse);
   trace_buf_free(&index);
   syn_free(&s);
}

/* The section built by `fill` must be rejected with `want` and a message
 * that names the section and contains `what`. */
static void expect_bad(int sec, void (*fill)(trace_buf *), trace_status want,
                       const char *what, int line)
{
   trace_buf b = TRACE_BUF_INIT;
   fill(&b);
   trace_file *t = NULL;
   char err[TRACE_ERRLEN];
   trace_status st = sec == CATS_SEC_REUSE ? decode(&b, NULL, &t, err)
                                         : decode(NULL, &b, &t, err);
   const char *name = sec == CATS_SEC_REUSE ? "REUSE" : "INDEX";
   if (st != want || t != NULL || strstr(err, name) != err ||
       strstr(err, what) == NULL) {
      fprintf(stderr, "  line %d: status %d (want %d), message \"%s\" "
              "(want %s: ...%s...)\n", line, st, want, err, name, what);
      chk_failures++;
   }
   trace_free(t);
   trace_buf_free(&b);
}

#define BAD(sec, fill, want, what) expect_bad(sec, fill, want, what, __LINE__)

/* REUSE corruptions. */
static void head(trace_buf *b, uint32_t line, uint32_t sampling, uint32_t nb)
{
   trace_buf_put32(b, line);
   trace_buf_put32(b, sampling);
   trace_buf_put32(b, nb);
}
static void r_short(trace_buf *b) { trace_buf_put32(b, 64); trace_buf_put32(b, 16); }
static void r_line0(trace_buf *b) { head(b, 0, 16, 33); trace_buf_put32(b, 0); trace_buf_put32(b, 0); }
static void r_line48(trace_buf *b) { head(b, 48, 16, 33); trace_buf_put32(b, 0); trace_buf_put32(b, 0); }
static void r_rate3(trace_buf *b) { head(b, 64, 3, 33); trace_buf_put32(b, 0); trace_buf_put32(b, 0); }
static void r_rate2k(trace_buf *b) { head(b, 64, 2048, 33); trace_buf_put32(b, 0); trace_buf_put32(b, 0); }
static void r_buckets(trace_buf *b) { head(b, 64, 16, 32); trace_buf_put32(b, 0); trace_buf_put32(b, 0); }
static void r_no_allocs(trace_buf *b) { head(b, 64, 16, 33); trace_buf_put32(b, 0); }
static void r_event_range(trace_buf *b)
{
   head(b, 64, 16, 33);
   trace_buf_put32(b, 1);
   put_hist(b, 3, 1, (const uint64_t[]){ 16 });   /* 3 events: 0..2 */
   trace_buf_put32(b, 0);
}
static void r_alloc_range(trace_buf *b)
{
   head(b, 64, 16, 33);
   trace_buf_put32(b, 0);
   trace_buf_put32(b, 1);
   put_hist(b, 2, 1, (const uint64_t[]){ 16 });   /* 2 allocs */
}
static void r_order(trace_buf *b)
{
   head(b, 64, 16, 33);
   trace_buf_put32(b, 2);
   put_hist(b, 1, 1, (const uint64_t[]){ 16 });
   put_hist(b, 1, 2, (const uint64_t[]){ 16 });
   trace_buf_put32(b, 0);
}
static void r_mask0(trace_buf *b)
{
   head(b, 64, 16, 33);
   trace_buf_put32(b, 1);
   put_hist(b, 0, 0, NULL);
   trace_buf_put32(b, 0);
}
static void r_mask_high(trace_buf *b)
{
   head(b, 64, 16, 33);
   trace_buf_put32(b, 1);
   put_hist(b, 0, 1ull << CATS_REUSE_MASK_BITS, (const uint64_t[]){ 16 });
   trace_buf_put32(b, 0);
}
static void r_zero(trace_buf *b)
{
   head(b, 64, 16, 33);
   trace_buf_put32(b, 1);
   put_hist(b, 0, 3, (const uint64_t[]){ 16, 0 });
   trace_buf_put32(b, 0);
}
static void r_cut(trace_buf *b)
{
   head(b, 64, 16, 33);
   trace_buf_put32(b, 1);
   trace_buf_put32(b, 0);
   trace_buf_put64(b, 7);      /* three counts announced */
   trace_buf_put64(b, 16);     /* one present, then the alloc count */
   trace_buf_put32(b, 0);
}
static void r_count(trace_buf *b) { head(b, 64, 16, 33); trace_buf_put32(b, 0x10000000); trace_buf_put32(b, 0); }
static void r_trailing(trace_buf *b)
{
   head(b, 64, 16, 33);
   trace_buf_put32(b, 0);
   trace_buf_put32(b, 0);
   trace_buf_put8(b, 0);
}

static void test_bad_reuse(void)
{
   BAD(CATS_SEC_REUSE, r_short, TRACE_ERECORD, "header");
   BAD(CATS_SEC_REUSE, r_line0, TRACE_EVALUE, "line size 0");
   BAD(CATS_SEC_REUSE, r_line48, TRACE_EVALUE, "line size 48");
   BAD(CATS_SEC_REUSE, r_rate3, TRACE_EVALUE, "sampling 3");
   BAD(CATS_SEC_REUSE, r_rate2k, TRACE_EVALUE, "sampling 2048");
   BAD(CATS_SEC_REUSE, r_buckets, TRACE_EVALUE, "32 buckets");
   BAD(CATS_SEC_REUSE, r_no_allocs, TRACE_ERECORD, "alloc count");
   BAD(CATS_SEC_REUSE, r_event_range, TRACE_EREF, "event 3 out of range");
   BAD(CATS_SEC_REUSE, r_alloc_range, TRACE_EREF, "alloc 2 out of range");
   BAD(CATS_SEC_REUSE, r_order, TRACE_EVALUE, "not after");
   BAD(CATS_SEC_REUSE, r_mask0, TRACE_EVALUE, "mask 0x0");
   BAD(CATS_SEC_REUSE, r_mask_high, TRACE_EVALUE, "mask 0x400000000");
   BAD(CATS_SEC_REUSE, r_zero, TRACE_EVALUE, "count is 0");
   BAD(CATS_SEC_REUSE, r_cut, TRACE_ERECORD, "run past");
   BAD(CATS_SEC_REUSE, r_count, TRACE_ERECORD, "cannot fit");
   BAD(CATS_SEC_REUSE, r_trailing, TRACE_ERECORD, "trailing");
}

/* INDEX corruptions (the synthetic trace has 6 locs). */
static void i_short(trace_buf *b) { trace_buf_put16(b, 0); }
static void i_size(trace_buf *b) { trace_buf_put32(b, 2); trace_buf_put32(b, 3); trace_buf_put32(b, 5); }
static void i_access_range(trace_buf *b) { trace_buf_put32(b, 1); trace_buf_put32(b, 6); trace_buf_put32(b, 5); }
static void i_index_range(trace_buf *b) { trace_buf_put32(b, 1); trace_buf_put32(b, 3); trace_buf_put32(b, CATS_NONE); }
static void i_order(trace_buf *b)
{
   trace_buf_put32(b, 2);
   trace_buf_put32(b, 3);
   trace_buf_put32(b, 5);
   trace_buf_put32(b, 3);
   trace_buf_put32(b, 4);
}

static void test_bad_index(void)
{
   BAD(CATS_SEC_INDEX, i_short, TRACE_ERECORD, "too short");
   BAD(CATS_SEC_INDEX, i_size, TRACE_ERECORD, "2 pairs");
   BAD(CATS_SEC_INDEX, i_access_range, TRACE_EREF, "loc 6 out of range");
   BAD(CATS_SEC_INDEX, i_index_range, TRACE_EREF, "loc 4294967295 out of");
   BAD(CATS_SEC_INDEX, i_order, TRACE_EVALUE, "not after");
}

static int near(double a, double b)
{
   return a - b < 1e-9 && b - a < 1e-9;
}

/* Misses from cold 10, 100 at distance 0, 20 at 1, 40 in [4, 8) and 5
 * beyond 2^31. */
static void test_misses(void)
{
   trace_reuse_hist h;
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
      trace_misses m = trace_reuse_misses(&h, want[i].lines);
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
