/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_trace.c: writer and reader of the .cats container.
 *
 * usage: test_trace WORKDIR
 * Writes WORKDIR/synth.cats (left in place for the CLI tests of run.sh). */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "cats/format/cats_format.h"
#include "cats/trace/le.h"
#include "cats/trace/trace.h"
#include "cats/trace/trace_write.h"
#include "check.h"
#include "synth.h"

CHECK_DEFINE_GLOBALS;

static const char *workdir;

static char *path_in(const char *name)
{
   static char buf[4096];
   snprintf(buf, sizeof buf, "%s/%s", workdir, name);
   return buf;
}

/* Write a synthetic trace (optionally with an extra unknown section). */
static int write_synth(const char *path, const syn_opts *o, int extra)
{
   syn_trace s;
   if (syn_build(&s, o) != 0)
      return -1;
   trace_write_section w[SYN_NSEC + 1];
   size_t n = 0;
   static const uint8_t junk[] = "future section payload";
   for (int i = 0; i < SYN_NSEC; i++) {
      w[n++] = (trace_write_section){ s.type[i], s.sec[i].data, s.sec[i].len };
      if (extra && i == 2)
         w[n++] = (trace_write_section){ 42, junk, sizeof junk };
   }
   char err[TRACE_WRITE_ERRLEN];
   trace_write_status st = trace_write(path, w, n, err, sizeof err);
   syn_free(&s);
   if (st != TRACE_WRITE_OK && err[0] == '\0')
      fprintf(stderr, "  write failed without a message\n");
   return st == TRACE_WRITE_OK ? 0 : -1;
}

static uint8_t *slurp(const char *path, size_t *len)
{
   FILE *f = fopen(path, "rb");
   if (!f)
      return NULL;
   fseek(f, 0, SEEK_END);
   long n = ftell(f);
   fseek(f, 0, SEEK_SET);
   uint8_t *b = malloc((size_t)n + 1);
   if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
      free(b);
      b = NULL;
   }
   fclose(f);
   *len = (size_t)n;
   return b;
}

/* No OUT.tmp.* files may be left behind in the work directory. */
static int temp_files_left(void)
{
   DIR *d = opendir(workdir);
   int n = 0;
   struct dirent *e;
   while (d && (e = readdir(d)) != NULL)
      if (strstr(e->d_name, ".tmp."))
         n++;
   if (d)
      closedir(d);
   return n;
}

static void check_synth(const trace_file *t)
{
   CHECK_EQ(t->nstrings, 14);
   CHECK(strcmp(trace_str(t, 0), "") == 0);
   CHECK(strcmp(trace_str(t, 13), "glob \"q\"\n\x01") == 0);
   CHECK(strcmp(trace_str(t, CATS_NONE), "") == 0);
   CHECK_EQ(t->nmeta, 3);
   CHECK(trace_meta_get(t, "tool") && strcmp(trace_meta_get(t, "tool"), "cats")
         == 0);
   CHECK(trace_meta_get(t, "peak_footprint") &&
         strcmp(trace_meta_get(t, "peak_footprint"), "4096") == 0);
   CHECK(trace_meta_get(t, "missing") == NULL);

   CHECK_EQ(t->nlocs, 6);
   if (t->nlocs == 6) {
      CHECK_EQ(t->locs[0].addr, 0x401000);
      CHECK_EQ(t->locs[0].function, 2);
      CHECK_EQ(t->locs[0].file, 3);
      CHECK_EQ(t->locs[0].line, 3);
      CHECK_EQ(t->locs[0].object, 4);
      CHECK_EQ(t->locs[0].inline_parent, CATS_NONE);
      CHECK_EQ(t->locs[4].line, 9);
      CHECK_EQ(t->locs[5].addr, 0x401050);
      CHECK_EQ(t->locs[5].file, 0);
      CHECK_EQ(t->locs[5].inline_parent, 3);
   }

   CHECK_EQ(t->ncontexts, 3);
   if (t->ncontexts == 3) {
      const trace_context *c = t->contexts;
      CHECK_EQ(c[0].parent, CATS_NONE);
      CHECK_EQ(c[0].kind, CATS_CTX_THREAD);
      CHECK_EQ(c[0].loc, CATS_NONE);
      CHECK_EQ(c[0].name, 1);
      CHECK_EQ(c[0].entries, 1);
      CHECK_EQ(c[0].last_time, 100);
      CHECK_EQ(c[0].depth, 0);
      CHECK_EQ(c[1].parent, 0);
      CHECK_EQ(c[1].kind, CATS_CTX_FUNCTION);
      CHECK_EQ(c[1].loc, 0);
      CHECK_EQ(c[1].name, 2);
      CHECK_EQ(c[1].last_time, 99);
      CHECK_EQ(c[1].depth, 1);
      CHECK_EQ(c[2].parent, 1);
      CHECK_EQ(c[2].kind, CATS_CTX_LOOP);
      CHECK_EQ(c[2].flags, 0);
      CHECK_EQ(c[2].loc, 2);
      CHECK_EQ(c[2].name, 5);
      CHECK_EQ(c[2].entries, 1);
      CHECK_EQ(c[2].iterations, 10);
      CHECK_EQ(c[2].max_iterations, 10);
      CHECK_EQ(c[2].first_time, 2);
      CHECK_EQ(c[2].last_time, 40);
      CHECK_EQ(c[2].depth, 2);
   }

   CHECK_EQ(t->nallocs, 2);
   if (t->nallocs == 2) {
      const trace_alloc *a = t->allocs;
      CHECK_EQ(a[0].kind, CATS_ALLOC_MALLOC);
      CHECK_EQ(a[0].flags, 0);
      CHECK_EQ(a[0].name, 6);
      CHECK_EQ(a[0].alloc_ctx, 1);
      CHECK_EQ(a[0].alloc_loc, 1);
      CHECK_EQ(a[0].free_ctx, 1);
      CHECK_EQ(a[0].free_loc, 4);
      CHECK_EQ(a[0].realloc_from, CATS_NONE);
      CHECK_EQ(a[0].size, 80);
      CHECK_EQ(a[0].count, 1);
      CHECK_EQ(a[0].max_live, 1);
      CHECK_EQ(a[0].first_alloc, 1);
      CHECK_EQ(a[0].last_alloc, 1);
      CHECK_EQ(a[0].first_free, 50);
      CHECK_EQ(a[0].last_free, 50);
      CHECK_EQ(a[0].base, 0x5000);
      CHECK_EQ(a[0].total_bytes, 80);
      CHECK_EQ(a[1].kind, CATS_ALLOC_GLOBAL);
      CHECK_EQ(a[1].flags, CATS_ALLOCFLAG_LEAKED);
      CHECK_EQ(a[1].name, 13);
      CHECK_EQ(a[1].alloc_ctx, CATS_NONE);
      CHECK_EQ(a[1].alloc_loc, CATS_NONE);
      CHECK_EQ(a[1].free_ctx, CATS_NONE);
      CHECK_EQ(a[1].size, 16);
      CHECK_EQ(a[1].last_free, 0);
      CHECK_EQ(a[1].base, 0x6000);
      CHECK_EQ(a[1].total_bytes, 16);
   }

   CHECK_EQ(t->nevents, 3);
   if (t->nevents == 3) {
      const trace_event *e = t->events;
      CHECK_EQ(e[0].ctx, 2);
      CHECK_EQ(e[0].loc, 3);
      CHECK_EQ(e[0].alloc, 0);
      CHECK_EQ(e[0].kind, CATS_WRITE);
      CHECK_EQ(e[0].pattern, CATS_PAT_STRIDE1);
      CHECK_EQ(e[0].ndims, 1);
      CHECK_EQ(e[0].flags, 0);
      CHECK_EQ(e[0].size, 8);
      CHECK_EQ(e[0].count, 10);
      CHECK_EQ(e[0].first_time, 3);
      CHECK_EQ(e[0].last_time, 39);
      CHECK_EQ(e[0].base, 0);
      CHECK_EQ(e[0].stride[0], 8);
      CHECK_EQ(e[0].stride[1], 0);
      CHECK_EQ(e[0].extent[0], 10);
      CHECK_EQ(e[0].min_offset, 0);
      CHECK_EQ(e[0].max_offset, 72);
      CHECK_EQ(e[1].alloc, 1);
      CHECK_EQ(e[1].kind, CATS_READ);
      CHECK_EQ(e[1].pattern, CATS_PAT_CONSTANT);
      CHECK_EQ(e[1].size, 4);
      CHECK_EQ(e[1].base, 4);
      CHECK_EQ(e[2].ctx, 1);
      CHECK_EQ(e[2].loc, 5);
      CHECK_EQ(e[2].pattern, CATS_PAT_IRREGULAR);
      CHECK_EQ(e[2].flags, CATS_EVFLAG_HELPER);
      CHECK_EQ(e[2].ndistinct, 3);
      CHECK_EQ(e[2].distinct[0], 16);
      CHECK_EQ(e[2].distinct[1], 0);
      CHECK_EQ(e[2].distinct[2], 40);
      CHECK_EQ(e[2].distinct[3], 0);
      CHECK_EQ(e[2].hist[0], 1);
      CHECK_EQ(e[2].hist[3], 1);
      CHECK_EQ(e[2].hist[8], 1);
      CHECK_EQ(e[2].hist[15], 0);
      CHECK_EQ(e[2].first_time, 45);
      CHECK_EQ(e[2].last_time, 48);
   }
}

static void test_roundtrip(void)
{
   syn_opts o;
   syn_default_opts(&o);
   const char *p = path_in("synth.cats");
   CHECK(write_synth(p, &o, 0) == 0);
   CHECK(temp_files_left() == 0);
   trace_file *t = NULL;
   char err[TRACE_ERRLEN];
   trace_status st = trace_open(p, &t, err, sizeof err);
   if (st != TRACE_OK)
      fprintf(stderr, "  read: %s\n", err);
   CHECK_EQ(st, TRACE_OK);
   if (t)
      check_synth(t);
   trace_free(t);
}

/* The table's types have no CRC: a type version 3 does not define is
 * damage, rejected with its entry named, never skipped. */
static void test_unknown_section_rejected(void)
{
   syn_opts o;
   syn_default_opts(&o);
   const char *p = path_in("extra.cats");
   CHECK(write_synth(p, &o, 1) == 0);
   trace_file *t = NULL;
   char err[TRACE_ERRLEN];
   CHECK_EQ(trace_open(p, &t, err, sizeof err), TRACE_ETABLE);
   CHECK(strstr(err, "unknown type") != NULL);
   CHECK(t == NULL);
   unlink(p);
}

/* Every proper prefix of a valid file must be rejected, not crash. */
static void test_truncation(void)
{
   size_t len;
   uint8_t *b = slurp(path_in("synth.cats"), &len);
   CHECK(b != NULL);
   if (!b)
      return;
   for (size_t n = 0; n < len; n++) {
      /* An exact-size copy lets memcheck/ASan catch any overread. */
      uint8_t *c = malloc(n ? n : 1);
      memcpy(c, b, n);
      trace_file *t = NULL;
      char err[TRACE_ERRLEN] = "";
      trace_status st = trace_open_mem(c, n, &t, err, sizeof err);
      if (st == TRACE_OK || t != NULL || err[0] == '\0') {
         fprintf(stderr, "  prefix %zu accepted or no message\n", n);
         chk_failures++;
      }
      trace_free(t);
      free(c);
   }
   /* And the whole file reads. */
   trace_file *t = NULL;
   CHECK_EQ(trace_open_mem(b, len, &t, NULL, 0), TRACE_OK);
   trace_free(t);
   free(b);
}

/* Flipping any single byte anywhere must give an error (every byte of
 * this file is covered by the header checks, the table checks, zlib or
 * the CRC), and flipping body bytes gives a data error. */
static void test_byte_flips(void)
{
   size_t len;
   uint8_t *b = slurp(path_in("synth.cats"), &len);
   CHECK(b != NULL);
   if (!b)
      return;
   size_t body = CATS_HEADER_SIZE + SYN_NSEC * CATS_SECTION_ENTRY_SIZE;
   for (size_t i = 0; i < len; i++) {
      b[i] ^= 0xFF;
      trace_file *t = NULL;
      char err[TRACE_ERRLEN] = "";
      trace_status st = trace_open_mem(b, len, &t, err, sizeof err);
      b[i] ^= 0xFF;
      if (st == TRACE_OK || err[0] == '\0') {
         fprintf(stderr, "  flip at %zu accepted\n", i);
         chk_failures++;
      } else if (i >= body && st != TRACE_ECRC && st != TRACE_EZLIB) {
         fprintf(stderr, "  flip at %zu: status %d (%s)\n", i, st, err);
         chk_failures++;
      }
      trace_free(t);
   }
   free(b);
}

/* A section stored uncompressed (flags 0): body damage reaches the CRC. */
static void test_crc_mismatch(void)
{
   size_t len;
   uint8_t *b = slurp(path_in("synth.cats"), &len);
   CHECK(b != NULL);
   if (!b)
      return;
   /* Rewrite the container with every section stored raw. */
   trace_file *t = NULL;
   syn_opts o;
   syn_default_opts(&o);
   syn_trace s;
   CHECK(syn_build(&s, &o) == 0);
   size_t hlen = CATS_HEADER_SIZE + SYN_NSEC * CATS_SECTION_ENTRY_SIZE;
   size_t total = hlen;
   for (int i = 0; i < SYN_NSEC; i++)
      total += s.sec[i].len;
   uint8_t *raw = calloc(1, total);
   memcpy(raw, b, CATS_HEADER_SIZE);
   size_t off = hlen;
   for (int i = 0; i < SYN_NSEC; i++) {
      uint8_t *e = raw + CATS_HEADER_SIZE + i * CATS_SECTION_ENTRY_SIZE;
      const uint8_t *old = b + CATS_HEADER_SIZE + i * CATS_SECTION_ENTRY_SIZE;
      le_put32(e, s.type[i]);
      le_put32(e + 4, 0);
      le_put64(e + 8, off);
      le_put64(e + 16, s.sec[i].len);
      le_put64(e + 24, s.sec[i].len);
      le_put32(e + 32, le_u32(old + 32));   /* same CRC as compressed */
      memcpy(raw + off, s.sec[i].data, s.sec[i].len);
      off += s.sec[i].len;
   }
   CHECK_EQ(trace_open_mem(raw, total, &t, NULL, 0), TRACE_OK);
   trace_free(t);
   t = NULL;
   for (size_t i = hlen; i < total; i++) {
      raw[i] ^= 0x01;
      CHECK_EQ(trace_open_mem(raw, total, &t, NULL, 0), TRACE_ECRC);
      raw[i] ^= 0x01;
   }
   /* A wrong CRC in the table of a compressed file, too. */
   b[CATS_HEADER_SIZE + 32] ^= 0x10;
   char err[TRACE_ERRLEN] = "";
   CHECK_EQ(trace_open_mem(b, len, &t, err, sizeof err), TRACE_ECRC);
   CHECK(strstr(err, "CRC") != NULL);
   syn_free(&s);
   free(raw);
   free(b);
}

static void test_header_errors(void)
{
   size_t len;
   uint8_t *b = slurp(path_in("synth.cats"), &len);
   CHECK(b != NULL);
   if (!b)
      return;
   trace_file *t = NULL;
   char err[TRACE_ERRLEN];
   le_put32(b + 8, CATS_VERSION + 1);
   CHECK_EQ(trace_open_mem(b, len, &t, err, sizeof err), TRACE_EVERSION);
   le_put32(b + 8, CATS_VERSION - 1);
   CHECK_EQ(trace_open_mem(b, len, &t, err, sizeof err), TRACE_EVERSION);
   le_put32(b + 8, CATS_VERSION);
   /* Section 1's offset inside the header. */
   uint8_t save[8];
   memcpy(save, b + CATS_HEADER_SIZE + 8, 8);
   le_put64(b + CATS_HEADER_SIZE + 8, 4);
   CHECK_EQ(trace_open_mem(b, len, &t, err, sizeof err), TRACE_ETABLE);
   le_put64(b + CATS_HEADER_SIZE + 8, UINT64_MAX - 2);
   CHECK_EQ(trace_open_mem(b, len, &t, err, sizeof err), TRACE_ETABLE);
   memcpy(b + CATS_HEADER_SIZE + 8, save, 8);
   /* Duplicate section type. */
   le_put32(b + CATS_HEADER_SIZE + CATS_SECTION_ENTRY_SIZE, CATS_SEC_STRINGS);
   CHECK_EQ(trace_open_mem(b, len, &t, err, sizeof err), TRACE_ETABLE);
   /* Unknown type instead (META's entry damaged): rejected as such. */
   le_put32(b + CATS_HEADER_SIZE + CATS_SECTION_ENTRY_SIZE, 77);
   CHECK_EQ(trace_open_mem(b, len, &t, err, sizeof err), TRACE_ETABLE);
   CHECK(strstr(err, "unknown type 77") != NULL);
   le_put32(b + CATS_HEADER_SIZE + CATS_SECTION_ENTRY_SIZE, CATS_SEC_META);
   /* Huge section count. */
   le_put32(b + 12, 0xFFFFFFFF);
   CHECK_EQ(trace_open_mem(b, len, &t, err, sizeof err), TRACE_ETRUNC);
   le_put32(b + 12, SYN_NSEC);
   CHECK_EQ(trace_open_mem(b, len, &t, err, sizeof err), TRACE_OK);
   trace_free(t);
   free(b);
}

static void test_foreign_files(void)
{
   trace_file *t = NULL;
   char err[TRACE_ERRLEN];
   CHECK_EQ(trace_open("/bin/sh", &t, err, sizeof err), TRACE_EMAGIC);
   CHECK(t == NULL);
   CHECK_EQ(trace_open(path_in("does-not-exist"), &t, err, sizeof err),
            TRACE_EIO);
   CHECK_EQ(trace_open(workdir, &t, err, sizeof err), TRACE_EIO);
   CHECK_EQ(trace_open_mem("", 0, &t, err, sizeof err), TRACE_ETRUNC);
   CHECK_EQ(trace_open_mem("CATS", 4, &t, err, sizeof err), TRACE_ETRUNC);
   CHECK_EQ(trace_open_mem("{\"events\":[]}", 13, &t, err, sizeof err),
            TRACE_EMAGIC);
}

/* Decode-level validation of references and counts. */
static trace_status decode_with(const syn_opts *o, char *err)
{
   syn_trace s;
   if (syn_build(&s, o) != 0)
      return TRACE_ENOMEM;
   trace_section r[SYN_NSEC];
   for (int i = 0; i < SYN_NSEC; i++)
      r[i] = (trace_section){ s.type[i], s.sec[i].data, s.sec[i].len };
   trace_file *t = NULL;
   trace_status st = trace_decode(r, SYN_NSEC, &t, err, TRACE_ERRLEN);
   trace_free(t);
   syn_free(&s);
   return st;
}

static void test_references(void)
{
   char err[TRACE_ERRLEN];
   syn_opts o;
   syn_default_opts(&o);
   CHECK_EQ(decode_with(&o, err), TRACE_OK);
   o.event_alloc = 2;
   CHECK_EQ(decode_with(&o, err), TRACE_EREF);
   CHECK(strstr(err, "event 1") != NULL);
   syn_default_opts(&o);
   o.loop_parent = 2;   /* its own id */
   CHECK_EQ(decode_with(&o, err), TRACE_EREF);
   o.loop_parent = 7;
   CHECK_EQ(decode_with(&o, err), TRACE_EREF);
   syn_default_opts(&o);
   o.loc_file = 14;
   CHECK_EQ(decode_with(&o, err), TRACE_EREF);

   /* Counts that do not fit the section size. */
   syn_default_opts(&o);
   syn_trace s;
   CHECK(syn_build(&s, &o) == 0);
   trace_section r[SYN_NSEC];
   for (int i = 0; i < SYN_NSEC; i++)
      r[i] = (trace_section){ s.type[i], s.sec[i].data, s.sec[i].len };
   trace_file *t = NULL;
   int ev = syn_find(&s, CATS_SEC_EVENTS);
   r[ev].size -= 1;
   CHECK_EQ(trace_decode(r, SYN_NSEC, &t, err, sizeof err), TRACE_ERECORD);
   r[ev].size += 1;
   le_put32(s.sec[ev].data, 0x40000000);
   CHECK_EQ(trace_decode(r, SYN_NSEC, &t, err, sizeof err), TRACE_ERECORD);
   le_put32(s.sec[ev].data, 3);
   int st = syn_find(&s, CATS_SEC_STRINGS);
   le_put32(s.sec[st].data, 15);   /* one string more than present */
   CHECK_EQ(trace_decode(r, SYN_NSEC, &t, err, sizeof err), TRACE_ERECORD);
   le_put32(s.sec[st].data, 14);
   CHECK_EQ(trace_decode(r, SYN_NSEC, &t, err, sizeof err), TRACE_OK);
   trace_free(t);
   /* Missing and duplicated sections. */
   CHECK_EQ(trace_decode(r, SYN_NSEC - 1, &t, err, sizeof err), TRACE_EMISSING);
   r[1] = r[0];
   CHECK_EQ(trace_decode(r, SYN_NSEC, &t, err, sizeof err), TRACE_ETABLE);
   syn_free(&s);
}

/* The synthetic trace with its EVENTS replaced by ev. */
static trace_status decode_events(const trace_buf *ev, trace_file **t, char *err)
{
   syn_opts o;
   syn_default_opts(&o);
   syn_trace s;
   if (syn_build(&s, &o) != 0)
      return TRACE_ENOMEM;
   trace_section r[SYN_NSEC];
   for (int i = 0; i < SYN_NSEC; i++)
      r[i] = (trace_section){ s.type[i], s.sec[i].data, s.sec[i].len };
   r[syn_find(&s, CATS_SEC_EVENTS)] =
      (trace_section){ CATS_SEC_EVENTS, ev->data, ev->len };
   *t = NULL;
   trace_status st = trace_decode(r, SYN_NSEC, t, err, TRACE_ERRLEN);
   syn_free(&s);
   return st;
}

/* EVENTS records are variable-length (FORMAT.md): values at the ends of
 * their ranges come back exactly, and a malformed record is refused with
 * its number. */
static void test_event_encoding(void)
{
   char err[TRACE_ERRLEN];
   trace_file *t;
   syn_event e = { .ctx = 2, .loc = 3, .alloc = 1, .kind = CATS_READ,
                   .pattern = CATS_PAT_STRIDEK, .ndims = 2, .size = 8,
                   .ndistinct = 1, .count = UINT64_MAX, .first = 7,
                   .last = 7 + (1ULL << 40), .base = -16,
                   .stride = { -24, 800 }, .extent = { 3, 5 },
                   .min = INT64_MIN, .max = INT64_MAX, .distinct = { -64 },
                   .hist = { [0] = UINT32_MAX, [15] = 2 } };
   trace_buf b = TRACE_BUF_INIT;
   CHECK(trace_buf_put32(&b, 1) == 0 && syn_put_event(&b, &e) == 0);
   CHECK_EQ(decode_events(&b, &t, err), TRACE_OK);
   if (t && t->nevents == 1) {
      const trace_event *d = t->events;
      CHECK_EQ(d->pattern, CATS_PAT_STRIDEK);
      CHECK_EQ(d->count, UINT64_MAX);
      CHECK_EQ(d->last_time, 7 + (1ULL << 40));
      CHECK_EQ(d->base, -16);
      CHECK_EQ(d->stride[0], -24);
      CHECK_EQ(d->stride[1], 800);
      CHECK_EQ(d->stride[2], 0);
      CHECK_EQ(d->extent[1], 5);
      CHECK_EQ(d->extent[2], 0);
      CHECK(d->min_offset == INT64_MIN && d->max_offset == INT64_MAX);
      CHECK_EQ(d->distinct[0], -64);
      CHECK_EQ(d->distinct[1], 0);
      CHECK_EQ(d->hist[0], UINT32_MAX);
      CHECK_EQ(d->hist[1], 0);
      CHECK_EQ(d->hist[15], 2);
   }
   trace_free(t);
   /* A byte short, a byte over. */
   b.len--;
   CHECK_EQ(decode_events(&b, &t, err), TRACE_ERECORD);
   CHECK(strstr(err, "event 0") != NULL);
   b.len++;
   CHECK(trace_buf_put8(&b, 0) == 0);
   CHECK_EQ(decode_events(&b, &t, err), TRACE_ERECORD);
   CHECK(strstr(err, "after the last") != NULL);
   b.len--;
   /* A bucket marked as not empty that holds 0. */
   b.data[b.len - 1] = 0;
   CHECK_EQ(decode_events(&b, &t, err), TRACE_EVALUE);
   b.data[b.len - 1] = 2;
   /* ndims past CATS_MAX_DIMS: after three one-byte ids, kind, pattern. */
   CHECK_EQ(b.data[4 + 5], 2);
   b.data[4 + 5] = 4;
   CHECK_EQ(decode_events(&b, &t, err), TRACE_EVALUE);
   CHECK(strstr(err, "ndims 4") != NULL);
   /* A number of more than 64 bits, and an id of more than 32. */
   b.len = 0;
   CHECK(trace_buf_put32(&b, 1) == 0);
   for (int i = 0; i < 10; i++)
      CHECK(trace_buf_put8(&b, 0xFF) == 0);
   CHECK(trace_buf_put8(&b, 1) == 0);
   for (int i = 0; i < 30; i++)
      CHECK(trace_buf_put8(&b, 0) == 0);
   CHECK_EQ(decode_events(&b, &t, err), TRACE_EVALUE);
   CHECK(strstr(err, "event 0") != NULL);
   b.len = 4;
   CHECK(syn_put_uvar(&b, 1ULL << 32) == 0);
   for (int i = 0; i < 30; i++)
      CHECK(trace_buf_put8(&b, 0) == 0);
   CHECK_EQ(decode_events(&b, &t, err), TRACE_EVALUE);
   trace_buf_free(&b);
}

/* Every byte of the EVENTS payload set to each of a few values, and
 * every truncation: the decoder accepts or names an error, and never
 * reads past the section (run under -fsanitize=address to see). */
static void test_event_fuzz(void)
{
   syn_opts o;
   syn_default_opts(&o);
   syn_trace s;
   CHECK(syn_build(&s, &o) == 0);
   int ev = syn_find(&s, CATS_SEC_EVENTS);
   trace_buf *b = &s.sec[ev];
   static const uint8_t vals[] = { 0x00, 0x01, 0x7F, 0x80, 0xFF };
   char err[TRACE_ERRLEN];
   trace_file *t;
   int silent = 0;
   for (size_t i = 4; i < b->len; i++) {
      uint8_t keep = b->data[i];
      for (size_t v = 0; v < sizeof vals; v++) {
         b->data[i] = vals[v];
         err[0] = '\0';
         trace_status st = decode_events(b, &t, err);
         silent += st != TRACE_OK && err[0] == '\0';
         trace_free(t);
      }
      b->data[i] = keep;
   }
   size_t full = b->len;
   for (b->len = 0; b->len < full; b->len++) {
      err[0] = '\0';
      CHECK(decode_events(b, &t, err) != TRACE_OK);
      silent += err[0] == '\0';
      trace_free(t);
   }
   b->len = full;
   CHECK_EQ(silent, 0);
   syn_free(&s);
}

static void test_write_errors(void)
{
   syn_opts o;
   syn_default_opts(&o);
   char p[4200];
   snprintf(p, sizeof p, "%s/no-such-dir/x.cats", workdir);
   CHECK(write_synth(p, &o, 0) != 0);
   /* Renaming onto a directory fails after the data was written: the
    * temporary file must be gone. */
   snprintf(p, sizeof p, "%s/adir", workdir);
   mkdir(p, 0755);
   char sub[4300];
   snprintf(sub, sizeof sub, "%s/keep", p);
   FILE *f = fopen(sub, "w");
   if (f)
      fclose(f);
   CHECK(write_synth(p, &o, 0) != 0);
   CHECK(temp_files_left() == 0);
   unlink(sub);
   rmdir(p);
}

/* A gate that counts its calls and passes or refuses. */
static int gate_calls;
static int test_gate(void *arg, char *msg, size_t msglen)
{
   gate_calls++;
   if (*(const int *)arg == 0)
      return 0;
   snprintf(msg, msglen, "refused by the test");
   return 1;
}

/* trace_write_gated: the file appears only if the gate passes; a refusal
 * keeps the previous file and leaves no temporary file. */
static void test_gated_write(void)
{
   syn_opts o;
   syn_default_opts(&o);
   syn_trace s;
   CHECK(syn_build(&s, &o) == 0);
   trace_write_section w[SYN_NSEC];
   for (int i = 0; i < SYN_NSEC; i++)
      w[i] = (trace_write_section){ s.type[i], s.sec[i].data, s.sec[i].len };
   char p[4200], err[TRACE_WRITE_ERRLEN];
   snprintf(p, sizeof p, "%s/gated.cats", workdir);
   int pass = 0, refuse = 1;
   gate_calls = 0;
   CHECK_EQ(trace_write_gated(p, w, SYN_NSEC, test_gate, &pass, err,
                              sizeof err), TRACE_WRITE_OK);
   CHECK_EQ(gate_calls, 1);
   size_t len = 0;
   uint8_t *first = slurp(p, &len);
   CHECK(first != NULL && len > 0);
   trace_file *t = NULL;
   CHECK_EQ(trace_open(p, &t, err, sizeof err), TRACE_OK);
   trace_free(t);
   /* Refused: one section fewer would have been written. */
   CHECK_EQ(trace_write_gated(p, w, SYN_NSEC - 1, test_gate, &refuse, err,
                              sizeof err), TRACE_WRITE_EGATE);
   CHECK_EQ(gate_calls, 2);
   CHECK(strstr(err, "refused by the test") != NULL);
   CHECK(temp_files_left() == 0);
   size_t len2 = 0;
   uint8_t *second = slurp(p, &len2);
   CHECK(second != NULL && len2 == len && memcmp(first, second, len) == 0);
   free(first);
   free(second);
   unlink(p);
   syn_free(&s);
}

/* trace_write_add: a section added to a written trace reads as if it had
 * been written with the others; a type the file has already, or a file
 * that is not a trace, is refused and the file is left as it was. */
static void test_added_section(void)
{
   syn_opts o;
   syn_default_opts(&o);
   syn_trace s;
   CHECK(syn_build(&s, &o) == 0);
   trace_write_section w[SYN_NSEC];
   int last = -1;
   for (int i = 0; i < SYN_NSEC; i++) {
      w[i] = (trace_write_section){ s.type[i], s.sec[i].data, s.sec[i].len };
      if (s.type[i] == CATS_SEC_EVENTS)
         last = i;
   }
   CHECK(last >= 0);
   trace_write_section events = w[last];
   w[last] = w[SYN_NSEC - 1];
   char whole[4200], added[4200], err[TRACE_WRITE_ERRLEN];
   snprintf(whole, sizeof whole, "%s/whole.cats", workdir);
   snprintf(added, sizeof added, "%s/added.cats", workdir);
   w[SYN_NSEC - 1] = events;
   CHECK_EQ(trace_write(whole, w, SYN_NSEC, err, sizeof err), TRACE_WRITE_OK);
   CHECK_EQ(trace_write(added, w, SYN_NSEC - 1, err, sizeof err), TRACE_WRITE_OK);
   trace_file *t = NULL;
   CHECK(trace_open(added, &t, err, sizeof err) != TRACE_OK);   /* no EVENTS */
   CHECK_EQ(trace_write_add(added, &events, 1, err, sizeof err), TRACE_WRITE_OK);
   trace_file *a = NULL;
   CHECK_EQ(trace_open(whole, &t, err, sizeof err), TRACE_OK);
   CHECK_EQ(trace_open(added, &a, err, sizeof err), TRACE_OK);
   if (t && a) {
      CHECK_EQ(a->nevents, t->nevents);
      CHECK(a->nevents > 0);
      CHECK_EQ(a->ncontexts, t->ncontexts);
   }
   trace_free(t);
   trace_free(a);
   size_t len = 0, len2 = 0;
   uint8_t *before = slurp(added, &len);
   CHECK_EQ(trace_write_add(added, &events, 1, err, sizeof err), TRACE_WRITE_EARG);
   CHECK(strstr(err, "already has section 6") != NULL);
   uint8_t *after = slurp(added, &len2);
   CHECK(before && after && len == len2 && memcmp(before, after, len) == 0);
   CHECK(temp_files_left() == 0);
   free(before);
   free(after);
   /* Not a trace. */
   FILE *f = fopen(added, "wb");
   CHECK(f != NULL);
   if (f) {
      fputs("not a trace at all, but long enough", f);
      fclose(f);
   }
   CHECK_EQ(trace_write_add(added, &events, 1, err, sizeof err), TRACE_WRITE_EARG);
   CHECK(strstr(err, "not a trace") != NULL);
   unlink(whole);
   unlink(added);
   syn_free(&s);
}

/* A section above TRACE_WRITE_SPLIT_ABOVE is deflated in two halves on two
 * threads; the file must still hold one standard zlib stream (inflate
 * checks its Adler-32) and the section's CRC of the whole payload. */
static void test_split_section(void)
{
   size_t size = TRACE_WRITE_SPLIT_ABOVE + 4099;
   uint8_t *big = malloc(size);
   CHECK(big != NULL);
   if (!big)
      return;
   /* Edge-like words: compressible, and repeated across the halves. */
   uint32_t x = 12345;
   for (size_t i = 0; i < size; i++) {
      x = x * 1103515245u + 12345u;
      big[i] = (uint8_t)(i % 20 < 12 ? (i / 4096) & 0xff : (x >> 24) & 7);
   }
   trace_write_section w[1] = { { 42, big, size } };
   char p[4200], err[TRACE_WRITE_ERRLEN];
   snprintf(p, sizeof p, "%s/split.cats", workdir);
   CHECK_EQ(trace_write(p, w, 1, err, sizeof err), TRACE_WRITE_OK);
   size_t len = 0;
   uint8_t *file = slurp(p, &len);
   CHECK(file != NULL && len > CATS_HEADER_SIZE + CATS_SECTION_ENTRY_SIZE);
   if (file && len > CATS_HEADER_SIZE + CATS_SECTION_ENTRY_SIZE) {
      const uint8_t *e = file + CATS_HEADER_SIZE;
      uint64_t off = le_u64(e + 8), stored = le_u64(e + 16);
      CHECK_EQ(le_u32(e), 42u);
      CHECK_EQ(le_u64(e + 24), (uint64_t)size);
      CHECK_EQ(le_u32(e + 32),
               (uint32_t)crc32_z(crc32_z(0L, Z_NULL, 0), big, size));
      CHECK(off + stored == len);
      uint8_t *back = malloc(size + 1);
      z_stream z;
      memset(&z, 0, sizeof z);
      CHECK(back != NULL && inflateInit(&z) == Z_OK);
      if (back) {
         z.next_in = file + off;
         z.avail_in = (uInt)stored;
         z.next_out = back;
         z.avail_out = (uInt)size + 1;
         CHECK_EQ(inflate(&z, Z_FINISH), Z_STREAM_END);
         CHECK_EQ(z.total_out, (uLong)size);
         CHECK_EQ(z.avail_in, 0u);
         CHECK(memcmp(back, big, size) == 0);
      }
      inflateEnd(&z);
      free(back);
   }
   free(file);
   free(big);
   unlink(p);
}

/* A section over 4 GiB (a large value graph's) is written, read back and
 * decoded whole: the format has no 32-bit size. Two strings of 2 GiB + 1
 * MiB are appended to the synthetic trace's STRINGS. */
static void test_section_over_4gib(void)
{
   syn_opts o;
   syn_default_opts(&o);
   syn_trace s;
   CHECK(syn_build(&s, &o) == 0);
   int k = syn_find(&s, CATS_SEC_STRINGS);
   CHECK(k >= 0);
   const size_t big = ((size_t)1 << 31) + ((size_t)1 << 20);
   const trace_buf *old = &s.sec[k];
   uint32_t n = le_u32(old->data);
   size_t size = old->len + 2 * (4 + big);
   uint8_t *p = malloc(size);
   CHECK(p != NULL);
   if (!p || k < 0) {
      free(p);
      syn_free(&s);
      return;
   }
   memcpy(p, old->data, old->len);
   le_put32(p, n + 2);
   size_t at = old->len;
   for (int i = 0; i < 2; i++) {
      le_put32(p + at, (uint32_t)big);
      memset(p + at + 4, 'a' + i, big);
      at += 4 + big;
   }
   CHECK(size > UINT32_MAX);
   trace_write_section w[SYN_NSEC];
   for (int i = 0; i < SYN_NSEC; i++)
      w[i] = (trace_write_section){ s.type[i], s.sec[i].data, s.sec[i].len };
   w[k].data = p;
   w[k].size = size;
   char path[4200], err[TRACE_WRITE_ERRLEN] = "";
   snprintf(path, sizeof path, "%s/over4g.cats", workdir);
   CHECK_EQ(trace_write(path, w, SYN_NSEC, err, sizeof err), TRACE_WRITE_OK);
   free(p);
   syn_free(&s);
   size_t len = 0;
   uint8_t *file = slurp(path, &len);
   CHECK(file != NULL && len > CATS_HEADER_SIZE + SYN_NSEC * CATS_SECTION_ENTRY_SIZE);
   if (file && len > CATS_HEADER_SIZE + SYN_NSEC * CATS_SECTION_ENTRY_SIZE)
      CHECK_EQ(le_u64(file + CATS_HEADER_SIZE + (size_t)k * CATS_SECTION_ENTRY_SIZE + 24),
               (uint64_t)size);
   free(file);
   trace_file *t = NULL;
   char rerr[TRACE_ERRLEN] = "";
   CHECK_EQ(trace_open(path, &t, rerr, sizeof rerr), TRACE_OK);
   if (t) {
      CHECK_EQ(t->nstrings, n + 2);
      CHECK_EQ(t->string_len[n], (uint32_t)big);
      CHECK_EQ(t->string_len[n + 1], (uint32_t)big);
      CHECK(t->strings[n][0] == 'a' && t->strings[n][big - 1] == 'a' &&
            t->strings[n + 1][0] == 'b' && t->strings[n + 1][big - 1] == 'b' &&
            t->strings[n + 1][big] == '\0');
   }
   trace_free(t);
   unlink(path);
}

int main(int argc, char **argv)
{
   if (argc != 2) {
      fprintf(stderr, "usage: test_trace WORKDIR\n");
      return 2;
   }
   workdir = argv[1];
   RUN(test_roundtrip);
   RUN(test_unknown_section_rejected);
   RUN(test_truncation);
   RUN(test_byte_flips);
   RUN(test_crc_mismatch);
   RUN(test_header_errors);
   RUN(test_foreign_files);
   RUN(test_references);
   RUN(test_event_encoding);
   RUN(test_event_fuzz);
   RUN(test_write_errors);
   RUN(test_gated_write);
   RUN(test_added_section);
   RUN(test_split_section);
   RUN(test_section_over_4gib);
   return chk_failed ? 1 : 0;
}
