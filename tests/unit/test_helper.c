/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_helper.c: drive cats-helper through pipes like the tool does.
 *
 * usage: test_helper PATH/TO/cats-helper WORKDIR */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cats/format/cats_format.h"
#include "cats/trace/le.h"
#include "cats/trace/trace.h"
#include "check.h"
#include "synth.h"
#include "vfsynth.h"

CHECK_DEFINE_GLOBALS;

static const char *helper;
static const char *workdir;

typedef struct child {
   pid_t pid;
   int to;      /* helper's stdin */
   int from;    /* helper's stdout */
} child;

/* The helper's stderr goes to this file, for the warnings it prints. */
static const char *child_err_path(void);

static int spawn(const char *out, child *c)
{
   int in[2], outp[2];
   if (pipe(in) != 0 || pipe(outp) != 0)
      return -1;
   c->pid = fork();
   if (c->pid < 0)
      return -1;
   if (c->pid == 0) {
      FILE *e = freopen(child_err_path(), "w", stderr);
      (void)e;
      dup2(in[0], 0);
      dup2(outp[1], 1);
      close(in[0]);
      close(in[1]);
      close(outp[0]);
      close(outp[1]);
      execl(helper, helper, out, (char *)NULL);
      _exit(127);
   }
   close(in[0]);
   close(outp[1]);
   c->to = in[1];
   c->from = outp[0];
   return 0;
}

static int write_all(int fd, const void *p, size_t n)
{
   const uint8_t *b = p;
   while (n > 0) {
      ssize_t r = write(fd, b, n);
      if (r < 0 && errno == EINTR)
         continue;
      if (r < 0)
         return -1;
      b += r;
      n -= (size_t)r;
   }
   return 0;
}

static int read_all(int fd, void *p, size_t n)
{
   uint8_t *b = p;
   while (n > 0) {
      ssize_t r = read(fd, b, n);
      if (r < 0 && errno == EINTR)
         continue;
      if (r <= 0)
         return -1;
      b += r;
      n -= (size_t)r;
   }
   return 0;
}

static int send_frame(int fd, uint32_t type, const void *data, uint64_t len)
{
   uint8_t h[CATS_FRAME_HEADER_SIZE];
   le_put32(h, type);
   le_put32(h + 4, 0);
   le_put64(h + 8, len);
   if (write_all(fd, h, sizeof h) != 0)
      return -1;
   return len ? write_all(fd, data, (size_t)len) : 0;
}

/* Read one frame; *data is malloc'd. */
static int recv_frame(int fd, uint32_t *type, uint8_t **data, uint64_t *len)
{
   uint8_t h[CATS_FRAME_HEADER_SIZE];
   if (read_all(fd, h, sizeof h) != 0)
      return -1;
   *type = le_u32(h);
   *len = le_u64(h + 8);
   if (*len > (1u << 24))
      return -1;
   *data = malloc((size_t)*len + 1);
   if (!*data || read_all(fd, *data, (size_t)*len) != 0) {
      free(*data);
      return -1;
   }
   (*data)[*len] = 0;
   return 0;
}

static int finish(child *c)
{
   close(c->to);
   close(c->from);
   int status;
   if (waitpid(c->pid, &status, 0) != c->pid)
      return -1;
   return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

static char *path_in(const char *name)
{
   static char buf[4096];
   snprintf(buf, sizeof buf, "%s/%s", workdir, name);
   return buf;
}

static const char *child_err_path(void)
{
   static char buf[4096];
   snprintf(buf, sizeof buf, "%s/helper-stderr.txt", workdir);
   return buf;
}

/* Whether the last helper warned that the trace has no graph, for a
 * reason that mentions `why`. */
static int warned_no_graph(const char *why)
{
   char text[4096] = "";
   FILE *f = fopen(child_err_path(), "r");
   if (f) {
      text[fread(text, 1, sizeof text - 1, f)] = '\0';
      fclose(f);
   }
   int ok = strstr(text, "written without its value communication graph") &&
            strstr(text, why);
   if (!ok)
      fprintf(stderr, "  expected a warning about '%s' in '%s'\n", why, text);
   return ok;
}

static int exists(const char *p)
{
   struct stat sb;
   return stat(p, &sb) == 0;
}

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

/* Send the synthetic sections; EVENTS goes in two frames to exercise
 * concatenation. */
static int send_sections(int fd, const syn_opts *o)
{
   syn_trace s;
   if (syn_build(&s, o) != 0)
      return -1;
   int r = 0;
   for (int i = 0; i < SYN_NSEC && r == 0; i++) {
      if (s.type[i] == CATS_SEC_EVENTS) {
         size_t half = s.sec[i].len / 2;
         r = send_frame(fd, s.type[i], s.sec[i].data, half);
         if (r == 0)
            r = send_frame(fd, s.type[i], s.sec[i].data + half,
                           s.sec[i].len - half);
      } else {
         r = send_frame(fd, s.type[i], s.sec[i].data, s.sec[i].len);
      }
   }
   syn_free(&s);
   return r;
}

/* Ask for loops of `path`; return the number of ranges or -1, checking
 * the answer's form. */
static long loops_query(child *c, const char *path, uint64_t avma)
{
   size_t plen = strlen(path);
   uint8_t *q = malloc(16 + plen);
   le_put64(q, avma);
   le_put64(q + 8, 0x1000);
   memcpy(q + 16, path, plen);
   int r = send_frame(c->to, CATS_FRAME_LOOPS_QUERY, q, 16 + plen);
   free(q);
   if (r != 0)
      return -1;
   uint32_t type;
   uint8_t *a;
   uint64_t len;
   if (recv_frame(c->from, &type, &a, &len) != 0)
      return -1;
   /* u32 nregions, 24-byte regions (header, latch, parent, kind), u32
    * nranges, 24-byte ranges. */
   long n = -1;
   if (type == CATS_FRAME_LOOPS_ANSWER && len >= 8) {
      uint32_t ng = le_u32(a);
      uint64_t rpos = 4 + (uint64_t)ng * CATS_REGION_ENTRY_SIZE;
      uint32_t nr = rpos + 4 <= len ? le_u32(a + rpos) : 0;
      if (rpos + 4 <= len &&
          len == rpos + 4 + (uint64_t)nr * CATS_RANGE_ENTRY_SIZE) {
         n = nr;
         for (uint32_t i = 0; i < ng; i++) {
            const uint8_t *e = a + 4 + (size_t)i * CATS_REGION_ENTRY_SIZE;
            uint32_t parent = le_u32(e + 16);
            CHECK(parent == 0xFFFFFFFFu || parent < i);
            CHECK(e[20] == 2 || e[20] == 3);
            /* A loop's latch is its bottom-most back edge's source; a
             * conditional's is its header. */
            CHECK(e[20] == 2 ? le_u64(e + 8) != 0 : le_u64(e + 8) == le_u64(e));
         }
         for (uint32_t i = 0; i < nr; i++) {
            const uint8_t *e = a + rpos + 4 + (size_t)i * CATS_RANGE_ENTRY_SIZE;
            uint64_t s = le_u64(e), en = le_u64(e + 8);
            CHECK(s < en);
            CHECK(le_u32(e + 16) < ng);
            if (i > 0)
               CHECK(le_u64(e - CATS_RANGE_ENTRY_SIZE + 8) <= s);
         }
      }
   }
   free(a);
   return n;
}

/* COMMIT and return the status in COMMITTED (or -1); msg gets the text. */
static long commit(child *c, char *msg, size_t msglen)
{
   if (send_frame(c->to, CATS_FRAME_COMMIT, NULL, 0) != 0)
      return -1;
   uint32_t type;
   uint8_t *a;
   uint64_t len;
   if (recv_frame(c->from, &type, &a, &len) != 0)
      return -1;
   long st = -1;
   if (type == CATS_FRAME_COMMITTED && len >= 4) {
      st = le_u32(a);
      snprintf(msg, msglen, "%s", (const char *)a + 4);
   }
   free(a);
   return st;
}

static void test_commit(void)
{
   const char *out = path_in("helper.cats");
   unlink(out);
   child c;
   CHECK(spawn(out, &c) == 0);
   syn_opts o;
   syn_default_opts(&o);
   CHECK(send_sections(c.to, &o) == 0);
   /* A query mid-stream, on this test program (it has loops). */
   char self[4096];
   ssize_t sl = readlink("/proc/self/exe", self, sizeof self - 1);
   self[sl > 0 ? sl : 0] = '\0';
   long n = loops_query(&c, self, 0x4000000);
   CHECK(n > 0);
   char msg[512] = "";
   CHECK_EQ(commit(&c, msg, sizeof msg), 0);
   CHECK_EQ(finish(&c), 0);
   trace_file *t = NULL;
   char err[TRACE_ERRLEN];
   CHECK_EQ(trace_open(out, &t, err, sizeof err), TRACE_OK);
   if (t) {
      CHECK_EQ(t->nevents, 3);
      CHECK_EQ(t->nallocs, 2);
      CHECK_EQ(t->ncontexts, 3);
      CHECK_EQ(t->events[2].ndistinct, 3);
   }
   trace_free(t);
   CHECK(temp_files_left() == 0);
   unlink(out);
}

static void test_eof_before_commit(void)
{
   const char *out = path_in("eof.cats");
   unlink(out);
   child c;
   CHECK(spawn(out, &c) == 0);
   syn_opts o;
   syn_default_opts(&o);
   CHECK(send_sections(c.to, &o) == 0);
   CHECK(finish(&c) != 0);
   CHECK(!exists(out));
   CHECK(temp_files_left() == 0);

   /* Also mid-frame: a header announcing more than is sent. */
   CHECK(spawn(out, &c) == 0);
   uint8_t h[CATS_FRAME_HEADER_SIZE];
   le_put32(h, CATS_SEC_STRINGS);
   le_put32(h + 4, 0);
   le_put64(h + 8, 100);
   CHECK(write_all(c.to, h, sizeof h) == 0);
   CHECK(write_all(c.to, "abc", 3) == 0);
   CHECK(finish(&c) != 0);
   CHECK(!exists(out));
}

static void test_invalid_data(void)
{
   const char *out = path_in("bad.cats");
   unlink(out);
   child c;
   CHECK(spawn(out, &c) == 0);
   syn_opts o;
   syn_default_opts(&o);
   o.event_alloc = 9;
   CHECK(send_sections(c.to, &o) == 0);
   char msg[512] = "";
   CHECK(commit(&c, msg, sizeof msg) > 0);
   CHECK(strstr(msg, "event 1") != NULL);
   CHECK(finish(&c) != 0);
   CHECK(!exists(out));
   CHECK(temp_files_left() == 0);

   /* A section missing altogether. */
   CHECK(spawn(out, &c) == 0);
   CHECK(send_frame(c.to, CATS_SEC_STRINGS, "\1\0\0\0\0\0\0\0", 8) == 0);
   CHECK(commit(&c, msg, sizeof msg) > 0);
   CHECK(strstr(msg, "missing") != NULL);
   CHECK(finish(&c) != 0);
   CHECK(!exists(out));
}

static void test_protocol_errors(void)
{
   const char *out = path_in("proto.cats");
   unlink(out);
   child c;
   CHECK(spawn(out, &c) == 0);
   syn_opts o;
   syn_default_opts(&o);
   CHECK(send_sections(c.to, &o) == 0);
   CHECK(send_frame(c.to, 150, "xx", 2) == 0);
   /* Bad queries still get an (empty) answer. */
   CHECK_EQ(loops_query(&c, "/nonexistent/object.so", 0x1000), 0);
   CHECK_EQ(loops_query(&c, "/etc/passwd", 0x1000), 0);
   CHECK(send_frame(c.to, CATS_FRAME_LOOPS_QUERY, "abc", 3) == 0);
   uint32_t type;
   uint8_t *a = NULL;
   uint64_t len;
   CHECK(recv_frame(c.from, &type, &a, &len) == 0);
   CHECK_EQ(type, CATS_FRAME_LOOPS_ANSWER);
   CHECK_EQ(len, 8);
   free(a);
   char msg[512] = "";
   CHECK(commit(&c, msg, sizeof msg) > 0);
   CHECK(strstr(msg, "150") != NULL);
   CHECK(finish(&c) != 0);
   CHECK(!exists(out));
}

static void test_unwritable_output(void)
{
   const char *out = path_in("no-such-dir/x.cats");
   child c;
   CHECK(spawn(out, &c) == 0);
   syn_opts o;
   syn_default_opts(&o);
   CHECK(send_sections(c.to, &o) == 0);
   char msg[512] = "";
   CHECK(commit(&c, msg, sizeof msg) > 0);
   CHECK(msg[0] != '\0');
   CHECK(finish(&c) != 0);
}

#define VF_BIG 150000  /* records in the big VF frame, over 1 MiB */

/* The VF stream of vfs_example in two frames (split between records),
 * then vertex 104 (buf+24) and one frame of VF_BIG records buf+24 =
 * buf+0 + buf+8, whose records cross the helper's read chunks; then
 * VF_END unless `end` is 0. */
static int send_vf(int fd, int end)
{
   trace_buf vf = TRACE_BUF_INIT, fin = TRACE_BUF_INIT, big = TRACE_BUF_INIT;
   int r = vfs_example(&vf, &fin) |
           vfs_vertex(&vf, 104, CATS_VF_MEMORY, 10, 24, 8, 2, 3);
   for (uint32_t v = 1; v <= VF_BIG; v++)
      r |= vfs_sources(&big, 104, v, 2, 2, (const uint32_t[]){ 100, 101 });
   r |= big.len <= (1u << 20);
   size_t cut = 5 * 30;   /* after the five VERTEX records */
   r = r || send_frame(fd, CATS_FRAME_VF, vf.data, cut) != 0 ||
       send_frame(fd, CATS_FRAME_VF, vf.data + cut, vf.len - cut) != 0 ||
       send_frame(fd, CATS_FRAME_VF, big.data, big.len) != 0 ||
       (end && send_frame(fd, CATS_FRAME_VF_END, fin.data, fin.len) != 0);
   trace_buf_free(&vf);
   trace_buf_free(&fin);
   trace_buf_free(&big);
   return r ? -1 : 0;
}

static void test_vf_commit(void)
{
   const char *out = path_in("vf.cats");
   unlink(out);
   child c;
   CHECK(spawn(out, &c) == 0);
   syn_opts o;
   syn_default_opts(&o);
   CHECK(send_vf(c.to, 1) == 0);
   CHECK(send_sections(c.to, &o) == 0);
   char msg[512] = "";
   CHECK_EQ(commit(&c, msg, sizeof msg), 0);
   CHECK_EQ(finish(&c), 0);
   trace_file *t = NULL;
   char err[TRACE_ERRLEN];
   CHECK_EQ(trace_open(out, &t, err, sizeof err), TRACE_OK);
   if (t) {
      const trace_vcg *g = &t->vcg;
      CHECK(t->has_vcg);
      CHECK_EQ(g->nvertices, 6);
      CHECK_EQ(g->nedges, 10);
      if (g->nvertices == 6 && g->nedges >= 2) {
         /* buf+0, +8, +16, +24, the global, the intermediate */
         CHECK_EQ(g->vertices[3].offset, 24);
         CHECK_EQ(g->vertices[3].versions, VF_BIG);
         CHECK_EQ(g->vertices[3].weight, 2 * VF_BIG);
         CHECK_EQ(g->edges[1].src, 0);
         CHECK_EQ(g->edges[1].dst, 3);
         CHECK_EQ(g->edges[1].uses, VF_BIG);
         CHECK_EQ(g->edges[1].versions, 1);
      }
   }
   trace_free(t);
   CHECK(temp_files_left() == 0);
   unlink(out);
}

/* Start a helper, send the sections and `vf` frames (type, payload), and
 * expect the trace without a graph and a warning with `want`. */
static void expect_graph_left_out(const uint32_t *types, const trace_buf *frames, int n,
                            const char *want)
{
   const char *out = path_in("vfbad.cats");
   unlink(out);
   child c;
   CHECK(spawn(out, &c) == 0);
   syn_opts o;
   syn_default_opts(&o);
   CHECK(send_sections(c.to, &o) == 0);
   for (int i = 0; i < n; i++)
      CHECK(send_frame(c.to, types[i], frames[i].data, frames[i].len) == 0);
   char msg[512] = "";
   CHECK_EQ(commit(&c, msg, sizeof msg), 0);
   CHECK_EQ(finish(&c), 0);
   CHECK(warned_no_graph(want));
   trace_file *t = NULL;
   char err[TRACE_ERRLEN];
   CHECK_EQ(trace_open(out, &t, err, sizeof err), TRACE_OK);
   if (t) {
      CHECK(!t->has_vcg);
      CHECK_EQ(t->nevents, 3);
      /* The trace itself says the graph was left out, and why. */
      const char *left = trace_meta_get(t, "vcg_left_out");
      CHECK(left != NULL && strstr(left, want) != NULL);
      char why[512];
      CHECK(strstr(trace_no_graph_reason(t, why, sizeof why),
                    "left out of this trace") != NULL);
   }
   trace_free(t);
   CHECK(temp_files_left() == 0);
   unlink(out);
}

/* A graph that fails its check (two vertices out of order) costs the
 * trace only the graph: the rest is written, without section 7. */
static void test_bad_graph_left_out(void)
{
   /* A register intermediate before a memory vertex, in section 7's
    * packed records (docs/FORMAT.md): flags, alloc + 1, offset, size,
    * ctx + 1, loc + 1, versions, weight. */
   uint8_t vcg[] = {
      8, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
      CATS_VCG_REGISTER, 0, 0, 8, 0, 0, 1, 0,
      CATS_VCG_INPUT, 0, 8, 8, 0, 0, 1, 0,
   };
   trace_buf raw = { vcg, sizeof vcg, sizeof vcg };
   uint32_t type = CATS_SEC_VCG;
   expect_graph_left_out(&type, &raw, 1, "VCG vertex 1: out of order");

   /* A bad graph and bad events: nothing is written. */
   const char *out = path_in("badgraph.cats");
   unlink(out);
   child c;
   char msg[512] = "";
   syn_opts o;
   syn_default_opts(&o);
   CHECK(spawn(out, &c) == 0);
   o.event_alloc = 9;
   CHECK(send_sections(c.to, &o) == 0);
   CHECK(send_frame(c.to, CATS_SEC_VCG, vcg, sizeof vcg) == 0);
   CHECK(commit(&c, msg, sizeof msg) > 0);
   CHECK(finish(&c) != 0);
   CHECK(!exists(out));
   CHECK(temp_files_left() == 0);
}

static void test_vf_errors(void)
{
   trace_buf f[3] = { TRACE_BUF_INIT, TRACE_BUF_INIT, TRACE_BUF_INIT };
   CHECK(vfs_example(&f[0], &f[1]) == 0);
   uint32_t vf_end[2] = { CATS_FRAME_VF, CATS_FRAME_VF_END };
   expect_graph_left_out(vf_end, f, 1, "without VF_END");
   /* VF after VF_END (an empty graph so far) */
   trace_buf empty = TRACE_BUF_INIT;
   vfs_end(&empty, 8, 0, NULL, 0, NULL, NULL, NULL);
   uint32_t end_vf[2] = { CATS_FRAME_VF_END, CATS_FRAME_VF };
   trace_buf swapped[2] = { empty, f[0] };
   expect_graph_left_out(end_vf, swapped, 2, "VF frame after VF_END");
   trace_buf_free(&empty);
   uint32_t twice[3] = { CATS_FRAME_VF, CATS_FRAME_VF_END,
                         CATS_FRAME_VF_END };
   trace_buf again[3] = { f[0], f[1], f[1] };
   expect_graph_left_out(twice, again, 3, "VF_END sent twice");
   /* A malformed record. */
   trace_buf_put8(&f[2], 7);
   trace_buf bad[2] = { f[2], f[1] };
   expect_graph_left_out(vf_end, bad, 2, "unknown tag 7");
   /* Tool allocation 10 mapped to alloc 9 of a trace that has 2. */
   trace_buf_free(&f[1]);
   uint32_t table[12];
   for (int i = 0; i < 12; i++)
      table[i] = 0xFFFFFFFFu;
   table[10] = 9;
   vfs_end(&f[1], 8, 12, table, 0, NULL, NULL, NULL);
   expect_graph_left_out(vf_end, f, 2, "alloc 9 out of range");
   for (int i = 0; i < 3; i++)
      trace_buf_free(&f[i]);
}

int main(int argc, char **argv)
{
   if (argc != 3) {
      fprintf(stderr, "usage: test_helper CATS-HELPER WORKDIR\n");
      return 2;
   }
   signal(SIGPIPE, SIG_IGN);
   helper = argv[1];
   workdir = argv[2];
   RUN(test_commit);
   RUN(test_eof_before_commit);
   RUN(test_invalid_data);
   RUN(test_protocol_errors);
   RUN(test_unwritable_output);
   RUN(test_vf_commit);
   RUN(test_bad_graph_left_out);
   RUN(test_vf_errors);
   return chk_failed ? 1 : 0;
}
