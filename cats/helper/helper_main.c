/* SPDX-License-Identifier: GPL-2.0-or-later */
/* helper_main.c: cats-helper, the tool's host-side writer.
 *
 * Started by the Valgrind tool as `cats-helper OUT` with stdin carrying
 * frames from the tool and stdout carrying answers (docs/FORMAT.md):
 *   1..99  raw section payloads; frames of one type are concatenated, so
 *          the tool may stream a large section in pieces (the tool sends
 *          1-6, 10 INDEX and, unless --reuse-distance=no, 9 REUSE; 7 and
 *          8 are made here); all are validated at COMMIT
 *   100    LOOPS_QUERY, answered at once with LOOPS_ANSWER
 *   102    STACKVARS_QUERY, answered at once with STACKVARS_ANSWER
 *   104    VF: value-flow records, fed to the graph builder as they come
 *   105    VF_END: completes the graph, which becomes section 7 (VCG)
 *   200    COMMIT: validate, write OUT atomically, answer COMMITTED, exit
 * Nothing but frames goes to stdout. A protocol error does not end the
 * session at once (the tool would only see a broken pipe); it is reported
 * in COMMITTED instead. Input ending before COMMIT writes nothing. */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <malloc.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "partition/part_project.h"
#include "partition/part_report.h"
#include "partition/part_section.h"
#include "vcg/vcg_build.h"
#include "vcg/vcg_section.h"
#include "cats/format/cats_format.h"
#include "cats/trace/trace_buf.h"
#include "cats/trace/frame.h"
#include "cats/trace/le.h"
#include "helper_input.h"
#include "cats/binary/loops.h"
#include "cats/binary/stackvars.h"
#include "cats/trace/trace.h"
#include "cats/trace/trace_write.h"

#define HLP_MAX_QUERY 65536   /* a query is two u64 and a path */
/* The descriptor the answers go to: the tool's pipe, given as stdout. */
static int to_tool = STDOUT_FILENO;

#define HLP_ERRLEN 512
#define HLP_DWARF_SECONDS 60   /* limit for reading one object's DWARF */
/* VF frames are read in chunks of this size plus the start of a record
 * cut at the previous chunk's end, so a frame of any size costs a fixed
 * buffer. */
#define HLP_VF_CHUNK (1u << 20)
#define HLP_SETPIPE_SZ 1031   /* Linux's F_SETPIPE_SZ (a GNU extension) */

/* The session: sections received so far and the first protocol error. */
typedef struct hlp_session {
   const char *out;                    /* output path */
   trace_buf sec[CATS_SEC_MAX + 1];         /* payload per section type */
   int seen[CATS_SEC_MAX + 1];         /* a frame of this type arrived */
   vcg_builder *vcg;                   /* NULL until a VF or VF_END frame */
   uint8_t *vf_buf;                    /* HLP_VF_CHUNK + VCG_MAX_RECORD */
   int vf_seen;                        /* a VF frame arrived */
   int vf_end_seen;                    /* VF_END arrived */
   char error[HLP_ERRLEN];             /* first protocol error, or "" */
   char graph_error[HLP_ERRLEN];       /* why there is no graph, or "" */
   uint64_t vf_limit;                  /* builder bytes at which the graph
                                          is cut (--vf-max-memory) */
   char vf_cut[HLP_ERRLEN];            /* where it was cut, or "" */
   int projecting;                     /* --ranks was given */
   part_project_options proj;                    /* projection options */
} hlp_session;

static void diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void diag(const char *fmt, ...)
{
   va_list ap;
   va_start(ap, fmt);
   fputs("cats-helper: ", stderr);
   vfprintf(stderr, fmt, ap);
   fputc('\n', stderr);
   va_end(ap);
}

static void set_error(hlp_session *s, const char *fmt, ...)
   __attribute__((format(printf, 2, 3)));

/* Keeps the first message in buf (HLP_ERRLEN); later ones are
 * consequences. Returns whether this one was kept. */
static int keep_first(char *buf, const char *fmt, va_list ap)
{
   if (buf[0])
      return 0;
   vsnprintf(buf, HLP_ERRLEN, fmt, ap);
   return 1;
}

/* Remember the first protocol error. */
static void set_error(hlp_session *s, const char *fmt, ...)
{
   va_list ap;
   va_start(ap, fmt);
   keep_first(s->error, fmt, ap);
   va_end(ap);
}

static void set_graph_error(hlp_session *s, const char *fmt, ...)
   __attribute__((format(printf, 2, 3)));

/* The graph is optional in a trace and is built here, from the run: a
 * graph that cannot be built (too little memory, or a bug of ours in the
 * stream) is left out, with a warning at the commit, rather than cost the
 * run its trace. The first reason is kept, and the builder's memory is
 * given back at once. */
static void set_graph_error(hlp_session *s, const char *fmt, ...)
{
   va_list ap;
   va_start(ap, fmt);
   int first = keep_first(s->graph_error, fmt, ap);
   va_end(ap);
   if (!first)
      return;
   vcg_builder_free(s->vcg);
   s->vcg = NULL;
   free(s->vf_buf);
   s->vf_buf = NULL;
}

static const char *short_read_msg(frame_status st)
{
   return st == FRAME_EIO ? strerror(errno) : "input ended inside a frame";
}

/* Append a section frame's payload to its buffer. */
static int on_section(hlp_session *s, uint32_t type, uint64_t len)
{
   trace_buf *b = &s->sec[type];
   s->seen[type] = 1;
   if (s->error[0])
      return helper_input_skip(len) == FRAME_OK ? 0 : -1;
   if (len > SIZE_MAX - b->len || trace_buf_reserve(b, (size_t)len) != 0) {
      set_error(s, "out of memory buffering section %u (%llu bytes)", type,
                (unsigned long long)len);
      return helper_input_skip(len) == FRAME_OK ? 0 : -1;
   }
   frame_status st = helper_input_read_full(b->data + b->len, (size_t)len);
   if (st != FRAME_OK && !(st == FRAME_EOF && len == 0)) {
      diag("reading section %u: %s", type, short_read_msg(st));
      return -1;
   }
   b->len += (size_t)len;
   return 0;
}

/* An object query (LOOPS, STACKVARS): u64 text_avma, u64 text_size, then
 * the object's path. */
typedef struct hlp_query {
   uint64_t avma;                  /* where the object's .text is mapped */
   char path[HLP_MAX_QUERY + 1];   /* "" if the query was unusable */
   uint64_t size_field;            /* text_size; for STACKVARS its top bit
                                      allows separate debug files */
} hlp_query;

/* Read a query's payload. A malformed query (too long, no path, an
 * embedded NUL) leaves q->path empty: it is answered with n = 0, not
 * treated as a protocol error. -1 only if the input broke. */
static int read_query(const char *what, uint64_t len, hlp_query *q)
{
   q->avma = 0;
   q->path[0] = '\0';
   if (len > HLP_MAX_QUERY)
      return helper_input_skip(len) == FRAME_OK ? 0 : -1;
   uint8_t b[HLP_MAX_QUERY];
   frame_status st = helper_input_read_full(b, (size_t)len);
   if (st != FRAME_OK && !(st == FRAME_EOF && len == 0)) {
      diag("reading %s query: %s", what, short_read_msg(st));
      return -1;
   }
   if (len <= 16)
      return 0;
   for (int i = 7; i >= 0; i--)
      q->avma = q->avma << 8 | b[i];
   q->size_field = 0;
   for (int i = 15; i >= 8; i--)
      q->size_field = q->size_field << 8 | b[i];
   /* The path is the rest of the frame; a trailing NUL is allowed, an
    * embedded one is not. */
   size_t plen = (size_t)len - 16;
   while (plen > 0 && b[16 + plen - 1] == '\0')
      plen--;
   if (memchr(b + 16, '\0', plen))
      return 0;
   memcpy(q->path, b + 16, plen);
   q->path[plen] = '\0';
   return 0;
}

static int send_answer(const char *what, uint32_t type, const void *data,
                       size_t len)
{
   if (frame_write(to_tool, type, data, len) != FRAME_OK) {
      diag("writing %s answer: %s", what, strerror(errno));
      return -1;
   }
   return 0;
}

/* The LOOPS answer for res: u32 nregions, then per region u64 header,
 * u64 latch (the address whose source line names the region), u32 parent,
 * u8 kind, 3 bytes pad; u32 nranges, then per range u64 start,
 * u64 end, u32 region, u32 pad. -1 if out of memory. */
static int put_loops(trace_buf *ans, const loops_result *res)
{
   if (res->nregions > UINT32_MAX || res->nranges > UINT32_MAX ||
       trace_buf_reserve(ans, 8 + res->nregions * CATS_REGION_ENTRY_SIZE +
                            res->nranges * CATS_RANGE_ENTRY_SIZE) != 0)
      return -1;
   int bad = trace_buf_put32(ans, (uint32_t)res->nregions) != 0;
   for (size_t i = 0; !bad && i < res->nregions; i++) {
      const loops_region *g = &res->regions[i];
      bad = trace_buf_put64(ans, g->header) != 0 ||
            trace_buf_put64(ans, g->latch) != 0 ||
            trace_buf_put32(ans, g->parent) != 0 ||
            trace_buf_put8(ans, g->kind) != 0 || trace_buf_zero(ans, 3) != 0;
   }
   bad = bad || trace_buf_put32(ans, (uint32_t)res->nranges) != 0;
   for (size_t i = 0; !bad && i < res->nranges; i++) {
      const loops_range *r = &res->ranges[i];
      bad = trace_buf_put64(ans, r->start) != 0 || trace_buf_put64(ans, r->end) != 0 ||
            trace_buf_put32(ans, r->region) != 0 || trace_buf_zero(ans, 4) != 0;
   }
   return bad ? -1 : 0;
}

/* Answer a LOOPS query; any problem with the object yields no regions. */
static int on_loops_query(uint64_t len)
{
   static hlp_query q;   /* 64 KiB: not on the stack */
   if (read_query("LOOPS", len, &q) != 0)
      return -1;
   loops_result res = { 0 };
   char err[LOOPS_ERRLEN];
   if (q.path[0] && loops_find(q.path, q.avma, 0, &res, err, sizeof err) !=
                       LOOPS_OK)
      memset(&res, 0, sizeof res);
   trace_buf ans = TRACE_BUF_INIT;
   if (put_loops(&ans, &res) != 0) {
      static const uint8_t empty[8];   /* no regions, no ranges */
      loops_result_free(&res);
      trace_buf_free(&ans);
      return send_answer("LOOPS", CATS_FRAME_LOOPS_ANSWER, empty,
                         sizeof empty);
   }
   int rc = send_answer("LOOPS", CATS_FRAME_LOOPS_ANSWER, ans.data,
                        ans.len);
   loops_result_free(&res);
   trace_buf_free(&ans);
   return rc;
}

/* The STACKVARS answer for v[0..n): u32 n, then per array u64 fn_entry,
 * i64 cfa_offset, u64 size, u32 name_length, name bytes. -1 if out of
 * memory. */
static int put_stackvars(trace_buf *ans, const stackvars_var *v, size_t n)
{
   int bad = n > UINT32_MAX || trace_buf_put32(ans, (uint32_t)n) != 0;
   for (size_t i = 0; !bad && i < n; i++) {
      size_t nl = strlen(v[i].name);
      bad = nl > UINT32_MAX || trace_buf_put64(ans, v[i].fn_entry) != 0 ||
            trace_buf_put64(ans, (uint64_t)v[i].cfa_offset) != 0 ||
            trace_buf_put64(ans, v[i].size) != 0 ||
            trace_buf_put32(ans, (uint32_t)nl) != 0 ||
            trace_buf_append(ans, v[i].name, nl) != 0;
   }
   return bad ? -1 : 0;
}

/* libdwarf 20210528 is not memory-safe on damaged input (a corrupt
 * .debug_rnglists makes it free a block twice), and this process holds
 * the whole trace. So the DWARF is read in a child, which sends the
 * encoded answer back as one frame on a pipe; a child that crashes, fails
 * or runs longer than HLP_DWARF_SECONDS costs only this answer. */
static int stackvars_isolated(const hlp_query *q, trace_buf *ans)
{
   int p[2];
   if (pipe(p) != 0)
      return -1;
   pid_t pid = fork();
   if (pid < 0) {
      close(p[0]);
      close(p[1]);
      return -1;
   }
   if (pid == 0) {
      close(p[0]);
      alarm(HLP_DWARF_SECONDS);
      stackvars_var *v = NULL;
      size_t n = 0;
      char err[STACKVARS_ERRLEN];
      unsigned flags = (q->size_field >> 63) ? 0 : STACKVARS_OWN_DWARF;
      if (stackvars_find(q->path, q->avma, flags, NULL, &v, &n, err, sizeof err) !=
          STACKVARS_OK) {
         stackvars_free(v, n);
         v = NULL;
         n = 0;
      }
      trace_buf b = TRACE_BUF_INIT;
      int ok = put_stackvars(&b, v, n) == 0 &&
               frame_write(p[1], CATS_FRAME_STACKVARS_ANSWER, b.data,
                           b.len) == FRAME_OK;
      trace_buf_free(&b);
      stackvars_free(v, n);
      _exit(ok ? 0 : 1);   /* no atexit handlers, no stdio flush */
   }
   close(p[1]);
   uint32_t type;
   uint64_t len;
   int rc = frame_read_header(p[0], &type, &len) == FRAME_OK &&
                  type == CATS_FRAME_STACKVARS_ANSWER && len >= 4 &&
                  len <= UINT32_MAX && trace_buf_reserve(ans, (size_t)len) == 0 &&
                  frame_read_full(p[0], ans->data, (size_t)len) == FRAME_OK
               ? 0
               : -1;
   if (rc == 0)
      ans->len = (size_t)len;
   close(p[0]);
   int status = 0;
   while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
      ;
   if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
      rc = -1;
   return rc;
}

/* Answer a STACKVARS query; any problem with the object (including no
 * debug info at all) yields n = 0. */
static int on_stackvars_query(uint64_t len)
{
   static hlp_query q;
   if (read_query("STACKVARS", len, &q) != 0)
      return -1;
   trace_buf ans = TRACE_BUF_INIT;
   int rc;
   if (q.path[0] && stackvars_isolated(&q, &ans) == 0) {
      rc = send_answer("STACKVARS", CATS_FRAME_STACKVARS_ANSWER, ans.data,
                       ans.len);
   } else {
      static const uint8_t none[4];   /* n = 0 */
      if (q.path[0] && (q.size_field >> 63))
         diag("reading the DWARF of %s failed; no stack arrays", q.path);
      rc = send_answer("STACKVARS", CATS_FRAME_STACKVARS_ANSWER, none,
                       sizeof none);
   }
   trace_buf_free(&ans);
   return rc;
}

/* The builder, created on first use; NULL if the graph is given up. */
static vcg_builder *builder(hlp_session *s)
{
   if (s->graph_error[0])
      return NULL;
   if (!s->vcg && !(s->vcg = vcg_builder_new()))
      set_graph_error(s, "out of memory for the value communication graph");
   return s->vcg;
}

/* Feed a VF frame to the builder in chunks. Records never straddle
 * frames, so a record still cut at the frame's end is an error. */
/* Stop the graph where it is once its builder holds vf_limit bytes: the
 * rest of the run's trace, and the graph up to here, are still written. */
static void cut_if_full(hlp_session *s)
{
   if (s->vf_cut[0] || vcg_builder_bytes(s->vcg) <= s->vf_limit)
      return;
   uint64_t records, kept;
   uint32_t nv;
   vcg_builder_counts(s->vcg, &records, &nv, &kept);
   (void)kept;
   vcg_builder_cut(s->vcg);
   snprintf(s->vf_cut, sizeof s->vf_cut,
            "the value communication graph was cut where it reached its "
            "memory limit of %llu MiB (--vf-max-memory): it holds the run's "
            "first %llu value-flow records (%u vertices)",
            (unsigned long long)(s->vf_limit >> 20),
            (unsigned long long)records, nv);
}

static int on_vf(hlp_session *s, uint64_t len)
{
   s->vf_seen = 1;
   if (s->vf_end_seen)
      set_graph_error(s, "VF frame after VF_END");
   if (s->vf_cut[0])
      return helper_input_skip(len) == FRAME_OK ? 0 : -1;
   if (!s->graph_error[0] && !s->vf_buf &&
       !(s->vf_buf = malloc(HLP_VF_CHUNK + VCG_MAX_RECORD)))
      set_graph_error(s, "out of memory for VF frames");
   if (s->error[0] || !builder(s))
      return helper_input_skip(len) == FRAME_OK ? 0 : -1;
   size_t have = 0;
   uint64_t left = len;
   while (left > 0) {
      size_t want = left > HLP_VF_CHUNK ? HLP_VF_CHUNK : (size_t)left;
      frame_status st = helper_input_read_full(s->vf_buf + have, want);
      if (st != FRAME_OK) {
         diag("reading VF frame: %s", short_read_msg(st));
         return -1;
      }
      have += want;
      left -= want;
      size_t used;
      char err[VCG_ERRLEN];
      if (vcg_feed(s->vcg, s->vf_buf, have, left == 0, &used, err,
                   sizeof err) != VCG_OK) {
         set_graph_error(s, "%s", err);
         return helper_input_skip(left) == FRAME_OK ? 0 : -1;
      }
      memmove(s->vf_buf, s->vf_buf + used, have - used);
      have -= used;
      cut_if_full(s);
      if (s->vf_cut[0])
         return helper_input_skip(left) == FRAME_OK ? 0 : -1;
   }
   return 0;
}

/* VF_END is small (9 bytes per vertex) and is read whole. */
static int on_vf_end(hlp_session *s, uint64_t len)
{
   if (s->vf_end_seen)
      set_graph_error(s, "VF_END sent twice");
   s->vf_end_seen = 1;
   trace_buf b = TRACE_BUF_INIT;
   if (!s->graph_error[0] && trace_buf_reserve(&b, (size_t)len) != 0)
      set_graph_error(s, "out of memory reading VF_END (%llu bytes)",
                      (unsigned long long)len);
   if (s->error[0] || !builder(s)) {
      trace_buf_free(&b);
      return helper_input_skip(len) == FRAME_OK ? 0 : -1;
   }
   frame_status st = helper_input_read_full(b.data, (size_t)len);
   if (st != FRAME_OK && !(st == FRAME_EOF && len == 0)) {
      diag("reading VF_END: %s", short_read_msg(st));
      trace_buf_free(&b);
      return -1;
   }
   char err[VCG_ERRLEN];
   if (vcg_end(s->vcg, b.data, (size_t)len, err, sizeof err) != VCG_OK)
      set_graph_error(s, "%s", err);
   trace_buf_free(&b);
   return 0;
}

/* A graph's section is written to a file while it is made, so that it
 * does not stand in memory beside its builder (vcg_section.h), once the
 * builder holds HLP_SPILL_FROM bytes: a small graph's section stays in
 * memory. */
#define HLP_SPILL_FROM (64u << 20)
#define HLP_SPILL_AT (8u << 20)

/* Section 7 from the builder into s->sec, freeing the builder first. */
static int build_vcg(hlp_session *s, char *msg, size_t msglen)
{
   if (s->graph_error[0]) {
      snprintf(msg, msglen, "%s", s->graph_error);
      return -1;
   }
   if (s->vf_seen && !s->vf_end_seen) {
      snprintf(msg, msglen, "VF frames without VF_END");
      return -1;
   }
   if (!s->vf_end_seen)
      return 0;
   if (s->seen[CATS_SEC_VCG]) {
      snprintf(msg, msglen, "section 7 (VCG) sent both raw and as VF frames");
      return -1;
   }
   free(s->vf_buf);
   s->vf_buf = NULL;
   char err[VCG_ERRLEN];
   uint32_t nv, ne;
   trace_buf *sec = &s->sec[CATS_SEC_VCG];
   vcg_spill spill = { .fd = -1, .at = HLP_SPILL_AT };
   char path[PATH_MAX];
   if (vcg_builder_bytes(s->vcg) >= HLP_SPILL_FROM &&
       (spill.fd = trace_write_tmpfile("cats-vcg", path, sizeof path)) < 0)
      spill.err = errno;
   vcg_status st = vcg_finish_section(s->vcg, sec, &spill, &nv, &ne, err, sizeof err);
   if (spill.fd >= 0)
      close(spill.fd);
   if (spill.err && st == VCG_OK)
      fprintf(stderr, "==%ld== cats: warning: the value graph's section could not be written "
                      "to a temporary file in %s (%s): it was kept in memory beside the "
                      "graph\n",
              (long)getppid(), trace_write_tmpdir(), strerror(spill.err));
   vcg_builder_free(s->vcg);
   s->vcg = NULL;
   if (st != VCG_OK) {
      trace_buf_free(sec);
      snprintf(msg, msglen, "%s", err);
      return -1;
   }
   s->seen[CATS_SEC_VCG] = 1;
   return 0;
}

/* The projection at exit: printed like Valgrind's own messages and kept
 * as section 8. A run without a graph (a forked child) has none; a failed
 * projection is reported but the trace is still written. */
static void project(hlp_session *s, const trace_file *tr)
{
   char prefix[32], err[512];
   snprintf(prefix, sizeof prefix, "==%ld== ", (long)getppid());
   if (!tr->has_vcg) {
      fprintf(stderr, "%scats: no value communication graph in this "
                      "process; no projection\n", prefix);
      return;
   }
   part_projection p;
   if (part_project(tr, &s->proj, &p, err, sizeof err) != 0) {
      fprintf(stderr, "%scats: projection failed: %s\n", prefix, err);
      return;
   }
   part_report_table(stderr, &p, prefix);
   trace_buf *sec = &s->sec[CATS_SEC_PROJECT];
   sec->len = 0;
   if (part_section_write(&p, sec) == 0)
      s->seen[CATS_SEC_PROJECT] = 1;
   else
      fprintf(stderr, "%scats: out of memory storing the projection\n",
              prefix);
   part_project_free(&p);
}

/* The check of a trace that is written as it arrived: beside its
 * compression (trace_write.h). */
typedef struct hlp_check {
   const trace_section *secs;
   size_t n;
} hlp_check;

static int check_gate(void *arg, char *msg, size_t msglen)
{
   const hlp_check *c = arg;
   char err[TRACE_ERRLEN];
   if (trace_check(c->secs, c->n, err, sizeof err) == TRACE_OK)
      return 0;
   snprintf(msg, msglen, "invalid trace data: %s", err);
   return 1;
}

/* Appends a key and its value to the raw META section (and their
 * strings to STRINGS): 0, or -1 out of memory or on sections too short
 * to hold their counts (the check then refuses them anyway). */
static int meta_add(hlp_session *s, const char *key, const char *value)
{
   trace_buf *str = &s->sec[CATS_SEC_STRINGS], *meta = &s->sec[CATS_SEC_META];
   if (!s->seen[CATS_SEC_STRINGS] || !s->seen[CATS_SEC_META] || str->len < 4 ||
       meta->len < 4)
      return -1;
   uint32_t nstr = le_u32(str->data), nmeta = le_u32(meta->data);
   size_t kl = strlen(key), vl = strlen(value);
   if (trace_buf_put32(str, (uint32_t)kl) || trace_buf_append(str, key, kl) ||
       trace_buf_put32(str, (uint32_t)vl) || trace_buf_append(str, value, vl) ||
       trace_buf_put32(meta, nstr) || trace_buf_put32(meta, nstr + 1))
      return -1;
   le_put32(str->data, nstr + 2);
   le_put32(meta->data, nmeta + 1);
   return 0;
}

/* A graph left out (set_graph_error, or one that fails the check) is the
 * one loss the user hears of: at the end of the run, and from every
 * reader of the trace (META vcg_left_out). */
static void leave_out_graph(hlp_session *s, const char *why)
{
   fprintf(stderr, "==%ld== cats: warning: the trace is written without "
                   "its value communication graph: %s\n", (long)getppid(),
           why);
   s->seen[CATS_SEC_VCG] = 0;
   if (meta_add(s, "vcg_left_out", why) != 0)
      fprintf(stderr, "==%ld== cats: warning: the trace cannot say so "
                      "(out of memory)\n", (long)getppid());
}

/* A cut graph is written, and said to be cut: at the end of the run, and
 * to every reader of the trace (META vcg_cut). */
static void note_cut(hlp_session *s)
{
   fprintf(stderr, "==%ld== cats: warning: %s\n", (long)getppid(), s->vf_cut);
   if (meta_add(s, "vcg_cut", s->vf_cut) != 0)
      fprintf(stderr, "==%ld== cats: warning: the trace cannot say so "
                      "(out of memory)\n", (long)getppid());
}

/* The sections to write, in type order, as the reader and the writer
 * take them; returns their count. */
static size_t sections_of(hlp_session *s, trace_section *rs, trace_write_section *ws)
{
   size_t n = 0;
   for (uint32_t t = 1; t <= CATS_SEC_MAX; t++) {
      if (!s->seen[t])
         continue;
      rs[n] = (trace_section){ t, s->sec[t].data, s->sec[t].len };
      ws[n] = (trace_write_section){ t, s->sec[t].data, s->sec[t].len };
      n++;
   }
   return n;
}

/* A graph that fails the check is left out too, if the rest passes it:
 * the sections are made again without it; returns their new count, or n
 * if there was no graph or the rest fails too. */
static size_t drop_graph(hlp_session *s, trace_section *rs, trace_write_section *ws,
                         size_t n, const char *why)
{
   size_t k = 0;
   while (k < n && rs[k].type != CATS_SEC_VCG)
      k++;
   if (k == n)
      return n;
   trace_section keep[CATS_SEC_MAX];
   for (size_t i = 0, j = 0; i < n; i++)
      if (i != k)
         keep[j++] = rs[i];
   char err[TRACE_ERRLEN];
   if (trace_check(keep, n - 1, err, sizeof err) != TRACE_OK)
      return n;
   leave_out_graph(s, why);
   return sections_of(s, rs, ws);
}

/* Writes the sections through the check, leaving the graph out if it
 * alone fails it; fills msg on failure. */
static int write_checked(hlp_session *s, trace_section *rs, trace_write_section *ws,
                         size_t *n, char *msg, size_t msglen)
{
   /* The reader's own decode layer: a file we write is one it accepts.
    * A check alone keeps neither the graph nor the events, and runs while
    * the sections are compressed. */
   char err[TRACE_ERRLEN];
   hlp_check c = { rs, *n };
   trace_write_status st = trace_write_gated(s->out, ws, *n, check_gate, &c, err,
                                             sizeof err);
   size_t m = st == TRACE_WRITE_EGATE ? drop_graph(s, rs, ws, *n, err) : *n;
   if (m < *n) {
      *n = m;
      st = trace_write(s->out, ws, *n, err, sizeof err);
   }
   if (st != TRACE_WRITE_OK) {
      snprintf(msg, msglen, "%s", err);
      return -1;
   }
   return 0;
}

/* Tells the tool that the trace is in place before the projection, so
 * that a helper that dies projecting is not reported as a lost trace. */
static void send_written(void)
{
   if (frame_write(to_tool, CATS_FRAME_WRITTEN, NULL, 0) != FRAME_OK)
      diag("writing WRITTEN: %s", strerror(errno));
}

/* Fault injection for the test of a helper that dies while projecting
 * (tests/test_failures.py): CATS_HELPER_TEST_FAULT=project. */
static void test_fault(const char *where)
{
   const char *f = getenv("CATS_HELPER_TEST_FAULT");
   if (f && strcmp(f, where) == 0)
      raise(SIGKILL);
}

/* The trace in place first, then the projection added to it: a helper
 * that dies projecting (the OOM killer on a large graph) leaves the
 * trace. Failures after the trace is written are warnings. */
static int write_then_project(hlp_session *s, trace_section *rs, trace_write_section *ws,
                              size_t n, char *msg, size_t msglen)
{
   if (write_checked(s, rs, ws, &n, msg, msglen) != 0)
      return -1;
   snprintf(msg, msglen, "%s", s->out);
   send_written();
   test_fault("project");
   char err[TRACE_ERRLEN];
   trace_file *tr = NULL;
   if (trace_decode(rs, n, &tr, err, sizeof err) != TRACE_OK) {
      fprintf(stderr, "==%ld== cats: projection failed: invalid trace data: %s\n",
              (long)getppid(), err);
      return 0;
   }
   /* The decoded trace is a copy, and the file is written: the raw
    * sections (a large graph's gigabytes) are not needed to project. */
   for (uint32_t t = 1; t <= CATS_SEC_MAX; t++)
      if (t != CATS_SEC_PROJECT) {
         trace_buf_free(&s->sec[t]);
         s->seen[t] = 0;
      }
   project(s, tr);
   trace_free(tr);
   trace_write_section proj = { CATS_SEC_PROJECT, s->sec[CATS_SEC_PROJECT].data,
                                s->sec[CATS_SEC_PROJECT].len };
   if (s->seen[CATS_SEC_PROJECT] &&
       trace_write_add(s->out, &proj, 1, err, sizeof err) != TRACE_WRITE_OK)
      fprintf(stderr, "==%ld== cats: warning: %s is written without its "
                      "projection: %s\n", (long)getppid(), s->out, err);
   return 0;
}

/* Output written in place (a device, a FIFO) cannot take a section
 * later: the projection first, then one write with it. */
static int project_then_write(hlp_session *s, trace_section *rs, trace_write_section *ws,
                              size_t n, char *msg, size_t msglen)
{
   char err[TRACE_ERRLEN];
   trace_file *tr = NULL;
   trace_status cs = trace_decode(rs, n, &tr, err, sizeof err);
   if (cs != TRACE_OK) {
      size_t m = drop_graph(s, rs, ws, n, err);
      if (m < n) {
         n = m;
         cs = trace_decode(rs, n, &tr, err, sizeof err);
      }
   }
   if (cs != TRACE_OK) {
      snprintf(msg, msglen, "invalid trace data: %s", err);
      return -1;
   }
   project(s, tr);
   trace_free(tr);
   if (s->seen[CATS_SEC_PROJECT])
      ws[n++] = (trace_write_section){ CATS_SEC_PROJECT, s->sec[CATS_SEC_PROJECT].data,
                                       s->sec[CATS_SEC_PROJECT].len };
   if (trace_write(s->out, ws, n, err, sizeof err) != TRACE_WRITE_OK) {
      snprintf(msg, msglen, "%s", err);
      return -1;
   }
   snprintf(msg, msglen, "%s", s->out);
   return 0;
}

/* Validate what arrived and write the trace, with its projection when
 * --ranks was given; fills msg on failure. */
static int commit(hlp_session *s, char *msg, size_t msglen)
{
   if (s->error[0]) {
      snprintf(msg, msglen, "%s", s->error);
      return -1;
   }
   char why[HLP_ERRLEN];
   if (build_vcg(s, why, sizeof why) != 0)
      leave_out_graph(s, why);
   else if (s->vf_cut[0])
      note_cut(s);
   trace_section rs[CATS_SEC_MAX];
   trace_write_section ws[CATS_SEC_MAX];
   size_t n = sections_of(s, rs, ws);
   if (s->projecting && !s->seen[CATS_SEC_PROJECT])
      return trace_write_in_place(s->out) ? project_then_write(s, rs, ws, n, msg, msglen)
                                          : write_then_project(s, rs, ws, n, msg, msglen);
   if (write_checked(s, rs, ws, &n, msg, msglen) != 0)
      return -1;
   snprintf(msg, msglen, "%s", s->out);
   return 0;
}

static int on_commit(hlp_session *s, uint64_t len)
{
   if (helper_input_skip(len) != FRAME_OK) {
      diag("reading COMMIT: input ended inside the frame");
      return 1;
   }
   char msg[HLP_ERRLEN + 64];
   int rc = commit(s, msg, sizeof msg);
   size_t mlen = strlen(msg);
   uint8_t ans[4 + sizeof msg];
   uint32_t status = rc == 0 ? 0 : 1;
   for (int i = 0; i < 4; i++)
      ans[i] = (uint8_t)(status >> (8 * i));
   memcpy(ans + 4, msg, mlen);
   if (frame_write(to_tool, CATS_FRAME_COMMITTED, ans, 4 + mlen) !=
       FRAME_OK) {
      /* The tool cannot tell the user, so we do. */
      diag("writing COMMITTED: %s", strerror(errno));
      if (rc != 0)
         diag("%s", msg);
   }
   return rc == 0 ? 0 : 1;
}

static int run(hlp_session *s)
{
   for (;;) {
      uint32_t type;
      uint64_t len;
      frame_status st = helper_input_read_header(&type, &len);
      if (st == FRAME_EOF) {
         diag("input ended before COMMIT; no trace written");
         return 1;
      }
      if (st != FRAME_OK) {
         diag("reading frame header: %s; no trace written",
              short_read_msg(st));
         return 1;
      }
      int rc;
      if (type >= 1 && type <= CATS_SEC_MAX)
         rc = on_section(s, type, len);
      else if (type == CATS_FRAME_LOOPS_QUERY)
         rc = on_loops_query(len);
      else if (type == CATS_FRAME_STACKVARS_QUERY)
         rc = on_stackvars_query(len);
      else if (type == CATS_FRAME_VF)
         rc = on_vf(s, len);
      else if (type == CATS_FRAME_VF_END)
         rc = on_vf_end(s, len);
      else if (type == CATS_FRAME_COMMIT)
         return on_commit(s, len);
      else {
         set_error(s, "unexpected frame type %u", type);
         rc = helper_input_skip(len) == FRAME_OK ? 0 : -1;
      }
      if (rc != 0) {
         diag("no trace written");
         return 1;
      }
   }
}

int main(int argc, char **argv)
{
   if (argc < 2 || argv[1][0] == '\0') {
      diag("usage: cats-helper OUT [--ranks=LIST ...] (started by the cats "
           "tool)");
      return 2;
   }
   /* Write errors on the pipe are reported, not fatal signals. */
   signal(SIGPIPE, SIG_IGN);
   /* The answers go to the tool on a descriptor of their own, and stdout
    * to /dev/null: a library that prints to stdout (METIS does, on parts
    * it cannot fill) would otherwise write into the protocol and cost the
    * run its trace. METIS's errors come back as return codes, which the
    * projection names (part_metis.c). */
   to_tool = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
   int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
   if (to_tool < 0 || null < 0 || dup2(null, STDOUT_FILENO) < 0) {
      diag("cannot set up the answer pipe: %s", strerror(errno));
      return 1;
   }
   close(null);
   /* A pipe of 1 MiB (Linux's limit without privileges) rather than
    * 64 KiB: the tool's value-flow frames then cost it a few writes and
    * wake-ups each, not one per 64 KiB. Best effort: stdin may not be a
    * pipe, and a smaller pipe only costs time. */
   (void)fcntl(STDIN_FILENO, HLP_SETPIPE_SZ, 1 << 20);
   /* The stream is read on a thread of its own (helper_input.h); without
    * one, in this thread as it is used. */
   (void)helper_input_start(STDIN_FILENO);
   /* Large blocks (the graph's arrays, the sort's temporaries) are
    * mapped and unmapped, never kept in the heap after they are freed:
    * glibc's threshold otherwise rises to 32 MiB after the first large
    * free, and the end of the run would hold the freed sort arrays while
    * it makes the section. */
   mallopt(M_MMAP_THRESHOLD, 1 << 20);
   hlp_session *s = calloc(1, sizeof *s);
   if (!s) {
      diag("out of memory");
      return 1;
   }
   s->out = argv[1];
   part_project_defaults(&s->proj);
   /* By default a third of the machine's memory: the finished graph takes
    * about as much again, and the guest and the tool need theirs. */
   long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
   s->vf_limit = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page / 3
                                       : UINT64_MAX;
   for (int i = 2; i < argc; i++) {
      char err[256] = "";
      unsigned long long mib;
      char extra;
      if (sscanf(argv[i], "--vf-max-memory=%llu%c", &mib, &extra) == 1 &&
          mib > 0 && mib < (1ull << 40)) {
         s->vf_limit = mib << 20;
         continue;
      }
      const char *eq = strchr(argv[i], '=');
      char name[64];
      if (strncmp(argv[i], "--", 2) != 0 || !eq ||
          (size_t)(eq - argv[i]) - 2 >= sizeof name) {
         diag("unexpected argument '%s'", argv[i]);
         free(s);
         return 2;
      }
      snprintf(name, sizeof name, "%.*s", (int)(eq - argv[i] - 2), argv[i] + 2);
      if (part_project_set_option(&s->proj, name, eq + 1, err, sizeof err) != 0) {
         diag("%s", err[0] ? err : "unknown projection option");
         free(s);
         return 2;
      }
      s->projecting |= strcmp(name, "ranks") == 0;
   }
   int rc = run(s);
   for (int t = 0; t <= CATS_SEC_MAX; t++)
      trace_buf_free(&s->sec[t]);
   vcg_builder_free(s->vcg);
   free(s->vf_buf);
   free(s);
   return rc;
}
