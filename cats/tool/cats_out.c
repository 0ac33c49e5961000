/* SPDX-License-Identifier: GPL-2.0-or-later */
/*--------------------------------------------------------------------*/
/*--- cats: the helper process and the trace.           cats_out.c ---*/
/*--------------------------------------------------------------------*/
/* The tool has no libc, hence no zlib and no ELF disassembler. A host
   helper (cats-helper, beside the tool in Valgrind's library folder)
   runs as a child process on the other core: it answers loop queries
   while the guest runs and, at exit, compresses the raw sections it is
   sent and writes the trace atomically (temporary file, fsync, rename).
   The framing is specified in docs/FORMAT.md. */

#include "cats_tool.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_libcsignal.h"
#include "pub_tool_clientstate.h"
#include "pub_tool_vki.h"
#include "pub_tool_options.h"

/* Not in the tool headers, but part of the core library the tool links:
   moves a descriptor into Valgrind's reserved range (with close-on-exec),
   where the client can neither see nor close it. */
extern Int VG_(safe_fd)(Int oldfd);
extern Int VG_(sigaction)(Int signum, const vki_sigaction_toK_t* act,
                          vki_sigaction_fromK_t* oldact);
/* Also the core's: sends a signal (the tool headers have no kill). */
extern Int VG_(kill)(Int pid, Int signo);
/* Also the core's: takes one pending signal of the set, without waiting. */
extern Int VG_(sigtimedwait_zero)(const vki_sigset_t* set,
                                  vki_siginfo_t* info);

const HChar* CATS_(out_path) = NULL;
static Int to_helper = -1;
static Int from_helper = -1;
static Int helper_pid = -1;
static Bool helper_deferred = False;
Bool CATS_(forked_child) = False;

/* Queries are sent as soon as an object is mapped, so the helper works
   on them (on the other core) while the guest runs; answers are read
   when first needed. They arrive in the order the queries were sent,
   so reading one answer may store the ones before it. */
typedef struct {
   UInt   answer_type;
   Addr   text_avma;
   Bool   arrived;
   UChar* payload;
   SizeT  len;
} Pending;

static XArray* pending;   /* of Pending, in query order */


/* A write to a helper that died raises SIGPIPE. Valgrind keeps it
   pending while the tool runs and would then deliver it to the guest,
   killing a program that has nothing to do with the pipe: the write's
   SIGPIPE is taken back here, and the caller reports the helper lost. */
static Int helper_write(Int fd, const void* p, Int n)
{
   Int w = VG_(write)(fd, p, n);
   if (w == -VKI_EPIPE) {
      vki_sigset_t pipe;
      vki_siginfo_t info;
      VG_(memset)(&pipe, 0, sizeof(pipe));
      pipe.sig[0] = 1UL << (VKI_SIGPIPE - 1);
      VG_(sigtimedwait_zero)(&pipe, &info);
   }
   return w;
}

static Bool write_all(Int fd, const void* p, SizeT n)
{
   const UChar* c = p;
   while (n > 0) {
      Int chunk = n > (1 << 20) ? (1 << 20) : (Int)n;
      Int w = helper_write(fd, c, chunk);
      if (w <= 0)
         return False;
      c += w;
      n -= (SizeT)w;
   }
   return True;
}

/* The helper is waited for as long as it makes progress: it may work for
   minutes at the end of a large run (the graph, the projection), but a
   helper that uses no CPU time for --helper-timeout seconds, stopped or
   hung, must not hang the guest. Progress is its CPU time, or waiting
   for the disk. */
#define HELPER_POLL_MS 1000

/* The helper's CPU time in clock ticks, or -1 when it is gone. While it
   waits for the disk, which is progress too, a value that always moves. */
static Long helper_cpu(void)
{
   HChar path[48], buf[512];
   if (helper_pid <= 0)
      return -1;
   VG_(sprintf)(path, "/proc/%d/stat", helper_pid);
   SysRes sr = VG_(open)(path, VKI_O_RDONLY, 0);
   if (sr_isError(sr))
      return -1;
   Int n = VG_(read)(sr_Res(sr), buf, sizeof(buf) - 1);
   VG_(close)(sr_Res(sr));
   if (n <= 0)
      return -1;
   buf[n] = 0;
   /* "pid (comm) state ppid ...": utime and stime are fields 14 and 15,
      the 11th and 12th after the state. */
   HChar* s = VG_(strrchr)(buf, ')');
   if (s == NULL || s[1] != ' ')
      return -1;
   s += 2;
   if (*s == 'Z' || *s == 'X')
      return -1;
   Bool disk = *s == 'D';
   Long f[13];
   for (Int i = 0; i < 13; i++) {
      while (*s && *s != ' ')
         s++;
      while (*s == ' ')
         s++;
      f[i] = VG_(strtoll10)(s, NULL);
   }
   return f[10] + f[11] + (disk ? (Long)VG_(read_millisecond_timer)() : 0);
}

/* poll(2) on the helper's pipes, waiting while the helper makes progress:
   the ready count, 0 when the helper is gone or made none for
   --helper-timeout seconds (stalled is then set), -1 on an error. */
static Bool helper_stalled = False;

static Int poll_helper(struct vki_pollfd* pfd, Int n)
{
   Long last = helper_cpu();
   UInt idle_ms = 0;
   for (;;) {
      SysRes pr = VG_(poll)(pfd, n, HELPER_POLL_MS);
      if (sr_isError(pr) && sr_Err(pr) == VKI_EINTR)
         continue;
      if (sr_isError(pr))
         return -1;
      if (sr_Res(pr) > 0)
         return (Int)sr_Res(pr);
      Long now = helper_cpu();
      if (now < 0)
         return 0;
      if (now != last) {
         last = now;
         idle_ms = 0;
         continue;
      }
      idle_ms += HELPER_POLL_MS;
      if (idle_ms >= CATS_(clo_helper_timeout) * 1000u) {
         helper_stalled = True;
         return 0;
      }
   }
}

static Bool read_all(Int fd, void* p, SizeT n)
{
   UChar* c = p;
   while (n > 0) {
      struct vki_pollfd pfd;
      pfd.fd = fd;
      pfd.events = VKI_POLLIN;
      pfd.revents = 0;
      if (poll_helper(&pfd, 1) <= 0)
         return False;
      Int chunk = n > (1 << 20) ? (1 << 20) : (Int)n;
      Int r = VG_(read)(fd, c, chunk);
      if (r <= 0)
         return False;
      c += r;
      n -= (SizeT)r;
   }
   return True;
}

static Bool drain_one_answer(void);

/* Linux's poll bits that the amd64 vki header leaves out. */
#define POLL_OUT 0x0004
#define POLL_ERR 0x0008
#define POLL_HUP 0x0010

/* Writes everything, reading answers that arrive meanwhile: the helper
   may be blocked writing one while this side streams value flow, and
   neither pipe may fill up with the other side waiting. */
static Bool write_draining(const void* p, SizeT n)
{
   const UChar* c = p;
   while (n > 0) {
      struct vki_pollfd pfd[2];
      pfd[0].fd = to_helper;
      pfd[0].events = POLL_OUT;
      pfd[0].revents = 0;
      pfd[1].fd = from_helper;
      pfd[1].events = VKI_POLLIN;
      pfd[1].revents = 0;
      if (poll_helper(pfd, 2) <= 0)
         return False;
      if (pfd[1].revents & (VKI_POLLIN | POLL_HUP)) {
         if (!drain_one_answer())
            return False;
         continue;
      }
      if (pfd[0].revents & (POLL_ERR | POLL_HUP))
         return False;
      if (!(pfd[0].revents & POLL_OUT))
         continue;
      /* A pipe that polls writable takes a page without blocking. */
      Int chunk = n > 4096 ? 4096 : (Int)n;
      Int w = helper_write(to_helper, c, chunk);
      if (w <= 0)
         return False;
      c += w;
      n -= (SizeT)w;
   }
   return True;
}

/* Whether an answer is still owed: only then can the helper block on
   its side of the pipes. */
static Bool answer_owed(void)
{
   Word i;
   for (i = 0; pending && i < VG_(sizeXA)(pending); i++)
      if (!((Pending*)VG_(indexXA)(pending, i))->arrived)
         return True;
   return False;
}

static Bool send_frame(UInt type, const void* payload, SizeT len)
{
   UChar hdr[CATS_FRAME_HEADER_SIZE];
   Int i;
   for (i = 0; i < 4; i++) {
      hdr[i] = (UChar)(type >> (8 * i));
      hdr[4 + i] = 0;
   }
   for (i = 0; i < 8; i++)
      hdr[8 + i] = (UChar)((ULong)len >> (8 * i));
   if (answer_owed())
      return write_draining(hdr, sizeof(hdr))
             && (len == 0 || write_draining(payload, len));
   return write_all(to_helper, hdr, sizeof(hdr))
          && (len == 0 || write_all(to_helper, payload, len));
}

static ULong get_le(const UChar* p, Int n)
{
   ULong v = 0;
   Int i;
   for (i = n - 1; i >= 0; i--)
      v = (v << 8) | p[i];
   return v;
}

/* Reads one frame, whose type goes to *type; the payload is
   VG_(malloc)ed. */
static UChar* recv_any(UInt* type, SizeT* len)
{
   UChar hdr[CATS_FRAME_HEADER_SIZE];
   if (!read_all(from_helper, hdr, sizeof(hdr)))
      return NULL;
   *type = (UInt)get_le(hdr, 4);
   *len = (SizeT)get_le(hdr + 8, 8);
   if (*len > (1UL << 32))
      return NULL;
   UChar* p = VG_(malloc)("cats.frame", *len + 1);
   if (!read_all(from_helper, p, *len)) {
      VG_(free)(p);
      return NULL;
   }
   p[*len] = 0;
   return p;
}

/* Reads one frame of the expected type. */
static UChar* recv_frame(UInt type, SizeT* len)
{
   UInt got;
   UChar* p = recv_any(&got, len);
   if (p != NULL && got != type) {
      VG_(free)(p);
      return NULL;
   }
   return p;
}

/* The helper is gone or stopped. written: the trace was already in
   place (WRITTEN) and only its projection is lost. */
static void helper_lost_after(const HChar* what, Bool written)
{
   if (helper_stalled) {
      /* Stopped for good, so that no trace appears after this says none
         is written; a temporary file it left goes too. */
      if (written)
         VG_(umsg)("cats: the helper process made no progress for %u s "
                   "projecting (%s); it is stopped and %s is written "
                   "without its projection\n", CATS_(clo_helper_timeout),
                   what, CATS_(out_path));
      else
         VG_(umsg)("cats: the helper process made no progress for %u s "
                   "(%s); it is stopped and no trace is written\n",
                   CATS_(clo_helper_timeout), what);
      VG_(kill)(helper_pid, VKI_SIGKILL);
   } else if (written) {
      VG_(umsg)("cats: the helper process failed projecting (%s); %s is "
                "written without its projection\n", what, CATS_(out_path));
   } else {
      VG_(umsg)("cats: the helper process failed (%s); no trace is "
                "written\n", what);
   }
   if (to_helper >= 0)
      VG_(close)(to_helper);
   if (from_helper >= 0)
      VG_(close)(from_helper);
   to_helper = from_helper = -1;
   if (helper_pid > 0) {
      Int st;
      HChar* tmp = VG_(malloc)("cats.tmppath", VG_(strlen)(CATS_(out_path)) + 32);
      VG_(waitpid)(helper_pid, &st, 0);
      VG_(sprintf)(tmp, "%s.tmp.%d", CATS_(out_path), helper_pid);
      VG_(unlink)(tmp);
      VG_(free)(tmp);
      helper_pid = -1;
   }
}

static void helper_lost(const HChar* what)
{
   helper_lost_after(what, False);
}

Bool CATS_(helper_start)(const HChar* out_path)
{
   HChar* helper = VG_(malloc)("cats.helperpath",
                               VG_(strlen)(VG_(libdir)) + 64);
   VG_(sprintf)(helper, "%s/cats-helper-amd64-linux", VG_(libdir));
   SysRes sr = VG_(open)(helper, VKI_O_RDONLY, 0);
   if (sr_isError(sr)) {
      VG_(fmsg)("cats: cannot find the helper program %s\n", helper);
      return False;
   }
   VG_(close)(sr_Res(sr));

   Int to[2], from[2];
   if (VG_(pipe)(to) != 0 || VG_(pipe)(from) != 0) {
      VG_(fmsg)("cats: cannot create a pipe to the helper\n");
      return False;
   }
   Int pid = VG_(fork)();
   if (pid < 0) {
      VG_(fmsg)("cats: cannot start the helper process\n");
      return False;
   }
   if (pid == 0) {
      /* The helper must outlive a ^C that kills the guest, so that the
         trace of what ran is still written. */
      vki_sigaction_toK_t ign;
      VG_(memset)(&ign, 0, sizeof(ign));
      ign.ksa_handler = VKI_SIG_IGN;
      VG_(sigaction)(VKI_SIGINT, &ign, NULL);
      VG_(sigaction)(VKI_SIGTERM, &ign, NULL);
      VG_(sigaction)(VKI_SIGQUIT, &ign, NULL);
      VG_(dup2)(to[0], 0);
      VG_(dup2)(from[1], 1);
      VG_(close)(to[0]); VG_(close)(to[1]);
      VG_(close)(from[0]); VG_(close)(from[1]);
      const HChar* argv[16] = { helper, out_path };
      UInt n = 2;
      for (UInt i = 0; CATS_(proj_args)[i] && n < 14; i++)
         argv[n++] = CATS_(proj_args)[i];
      if (CATS_(helper_vf_limit) != NULL)
         argv[n++] = CATS_(helper_vf_limit);
      argv[n] = NULL;
      VG_(execv)(helper, argv);
      VG_(exit)(127);
   }
   VG_(close)(to[0]);
   VG_(close)(from[1]);
   to_helper = VG_(safe_fd)(to[1]);
   from_helper = VG_(safe_fd)(from[0]);
   helper_pid = pid;
   VG_(free)(helper);
   return True;
}

/* The trace file as it was when this run started (or forked). */
static struct {
   Bool  exists;
   ULong ino, mtime, mtime_nsec;
   Long  size;
} out_before;

void CATS_(out_snapshot)(void)
{
   struct vg_stat st;
   VG_(memset)(&out_before, 0, sizeof(out_before));
   if (CATS_(out_path) && !sr_isError(VG_(stat)(CATS_(out_path), &st))
       && VKI_S_ISREG(st.mode)) {
      out_before.exists = True;
      out_before.ino = st.ino;
      out_before.mtime = st.mtime;
      out_before.mtime_nsec = st.mtime_nsec;
      out_before.size = st.size;
   }
}

/* Two runs, or a process and its forked child, given the same file name
   without %p replace each other's trace: the one that writes second says
   so, as it is about to. */
static void warn_if_written_meanwhile(void)
{
   struct vg_stat st;
   if (sr_isError(VG_(stat)(CATS_(out_path), &st)) || !VKI_S_ISREG(st.mode))
      return;
   if (out_before.exists && st.ino == out_before.ino
       && st.mtime == out_before.mtime
       && st.mtime_nsec == out_before.mtime_nsec
       && st.size == out_before.size)
      return;
   VG_(umsg)("cats: warning: another process wrote %s while this one ran; "
             "its trace is replaced (put %%p in --cats-out-file to keep "
             "one trace per process)\n", CATS_(out_path));
}

/* In a forked guest the inherited pipes belong to the parent's helper:
   the child forgets them and gets its own helper and output file. */
static void reset_after_fork(ThreadId tid)
{
   (void)tid;
   if (to_helper >= 0)
      VG_(close)(to_helper);
   if (from_helper >= 0)
      VG_(close)(from_helper);
   to_helper = from_helper = -1;
   if (pending)
      VG_(deleteXA)(pending);
   pending = NULL;
   CATS_(out_path) = VG_(expand_file_name)("--cats-out-file",
                                           CATS_(clo_out_file));
   CATS_(out_snapshot)();
   /* Started when first needed: a child that only execs never needs
      one, and writes no trace. */
   CATS_(forked_child) = True;
   helper_deferred = True;
   if (CATS_(clo_value_flow))
      CATS_(vf_after_fork)();
}

/* The helper of a forked child, started at its first use. */
static Bool helper_ready(void)
{
   if (to_helper < 0 && helper_deferred && CATS_(out_path) != NULL) {
      helper_deferred = False;
      if (!CATS_(helper_start)(CATS_(out_path)))
         CATS_(out_path) = NULL;
   }
   return to_helper >= 0;
}

void CATS_(out_init)(void)
{
   VG_(atfork)(NULL, NULL, reset_after_fork);
}

static Bool send_object_query(UInt type, Addr text_avma, SizeT text_size,
                              const HChar* path)
{
   CatsBuf q;
   CATS_(buf_init)(&q);
   CATS_(put_u64)(&q, text_avma);
   CATS_(put_u64)(&q, text_size);
   CATS_(put_bytes)(&q, path, VG_(strlen)(path));
   Bool ok = send_frame(type, q.data, q.len);
   CATS_(buf_free)(&q);
   return ok;
}

static Int find_pending(UInt answer_type, Addr text_avma)
{
   Word i;
   for (i = 0; pending && i < VG_(sizeXA)(pending); i++) {
      const Pending* p = VG_(indexXA)(pending, i);
      if (p->answer_type == answer_type && p->text_avma == text_avma)
         return (Int)i;
   }
   return -1;
}

static void ask(UInt query_type, Addr text_avma, SizeT text_size,
                const HChar* path)
{
   if (!helper_ready() || find_pending(query_type + 1, text_avma) >= 0)
      return;
   if (!send_object_query(query_type, text_avma, text_size, path)) {
      helper_lost("cannot send a query");
      return;
   }
   if (pending == NULL)
      pending = VG_(newXA)(VG_(malloc), "cats.pending", VG_(free),
                           sizeof(Pending));
   Pending p = { query_type + 1, text_avma, False, NULL, 0 };
   VG_(addToXA)(pending, &p);
}

/* Reads the next answer the helper owes into its pending entry. */
static Bool drain_one_answer(void)
{
   Word i = 0;
   while (i < VG_(sizeXA)(pending)
          && ((Pending*)VG_(indexXA)(pending, i))->arrived)
      i++;
   if (i == VG_(sizeXA)(pending))
      return False;   /* nothing owed: a protocol error */
   Pending* next = VG_(indexXA)(pending, i);
   next->payload = recv_frame(next->answer_type, &next->len);
   if (next->payload == NULL)
      return False;
   next->arrived = True;
   return True;
}

/* The answer to an earlier query (VG_(malloc)ed), or NULL. */
static UChar* answer(UInt answer_type, Addr text_avma, SizeT* len)
{
   Int me = find_pending(answer_type, text_avma);
   if (me < 0)
      return NULL;
   while (!((Pending*)VG_(indexXA)(pending, me))->arrived) {
      if (!drain_one_answer()) {
         helper_lost("no answer to a query");
         return NULL;
      }
   }
   Pending* p = VG_(indexXA)(pending, me);
   UChar* payload = p->payload;
   *len = p->len;
   VG_(removeIndexXA)(pending, me);
   return payload;
}

Bool CATS_(send_stream)(UInt type, const void* payload, SizeT len)
{
   if (!helper_ready())
      return False;
   if (!send_frame(type, payload, len)) {
      helper_lost("cannot send value flow");
      return False;
   }
   return True;
}

/* The STACKVARS query's size field carries the separate-debug-file
   permission in its top bit. */
static SizeT stackvars_size(SizeT text_size)
{
   return CATS_(clo_separate_debug_files) ? (text_size | (1UL << 63))
                                          : text_size;
}

void CATS_(prefetch_object)(Addr text_avma, SizeT text_size,
                            const HChar* path)
{
   if (path == NULL)
      return;
   ask(CATS_FRAME_LOOPS_QUERY, text_avma, text_size, path);
   ask(CATS_FRAME_STACKVARS_QUERY, text_avma, stackvars_size(text_size),
       path);
}

void CATS_(regions_of_object)(Addr text_avma, SizeT text_size,
                              const HChar* path, Region** regs, UInt* n_regs,
                              RegionRange** ranges, UInt* n_ranges)
{
   *regs = NULL;
   *ranges = NULL;
   *n_regs = *n_ranges = 0;
   if (!helper_ready() || path == NULL)
      return;
   SizeT len;
   ask(CATS_FRAME_LOOPS_QUERY, text_avma, text_size, path);
   UChar* a = answer(CATS_FRAME_LOOPS_ANSWER, text_avma, &len);
   if (a == NULL)
      return;
   /* Region table, then ranges; anything inconsistent is dropped whole,
      leaving the object without loops rather than with wrong ones. */
   UInt nr = len >= 4 ? (UInt)get_le(a, 4) : 0;
   SizeT at = 4 + (SizeT)nr * CATS_REGION_ENTRY_SIZE;
   UInt ng = at + 4 <= len ? (UInt)get_le(a + at, 4) : 0;
   if (at + 4 + (SizeT)ng * CATS_RANGE_ENTRY_SIZE > len) {
      VG_(free)(a);
      return;
   }
   Region* r = VG_(calloc)("cats.regions", nr + 1, sizeof(Region));
   RegionRange* g = VG_(calloc)("cats.ranges", ng + 1, sizeof(RegionRange));
   UInt i, m = 0;
   for (i = 0; i < nr; i++) {
      const UChar* e = a + 4 + (SizeT)i * CATS_REGION_ENTRY_SIZE;
      UInt parent = (UInt)get_le(e + 16, 4);
      UChar kind = e[20];
      r[i].header = (Addr)get_le(e, 8);
      r[i].label = (Addr)get_le(e + 8, 8);
      r[i].kind = kind == CATS_CTX_CONDITIONAL ? CATS_CTX_CONDITIONAL
                                               : CATS_CTX_LOOP;
      r[i].parent = parent < i ? &r[parent] : NULL;
      r[i].depth = r[i].parent ? r[i].parent->depth + 1 : 0;
      r[i].loc = CATS_NONE;
      r[i].last_parent = CATS_NONE;
      r[i].last_ctx = CATS_NONE;
   }
   Addr prev_end = 0;
   for (i = 0; i < ng; i++) {
      const UChar* e = a + at + 4 + (SizeT)i * CATS_RANGE_ENTRY_SIZE;
      Addr s = (Addr)get_le(e, 8), t = (Addr)get_le(e + 8, 8);
      UInt reg = (UInt)get_le(e + 16, 4);
      if (t <= s || s < prev_end || reg >= nr)
         continue;
      g[m].start = s;
      g[m].end = t;
      g[m].region = &r[reg];
      prev_end = t;
      m++;
   }
   VG_(free)(a);
   *regs = r;
   *n_regs = nr;
   *ranges = g;
   *n_ranges = m;
}

void CATS_(stackvars_of_object)(Addr text_avma, SizeT text_size,
                                const HChar* path, FnStackVar** vars,
                                UInt* n)
{
   *vars = NULL;
   *n = 0;
   if (!helper_ready() || path == NULL)
      return;
   SizeT len;
   ask(CATS_FRAME_STACKVARS_QUERY, text_avma, stackvars_size(text_size),
       path);
   UChar* a = answer(CATS_FRAME_STACKVARS_ANSWER, text_avma, &len);
   if (a == NULL)
      return;
   UInt count = len >= 4 ? (UInt)get_le(a, 4) : 0;
   FnStackVar* v = VG_(calloc)("cats.stackvars", count + 1,
                               sizeof(FnStackVar));
   SizeT at = 4;
   UInt m = 0, i;
   for (i = 0; i < count && at + 28 <= len; i++) {
      const UChar* e = a + at;
      UInt name_len = (UInt)get_le(e + 24, 4);
      if (at + 28 + name_len > len)
         break;
      HChar name[256];
      UInt copy = name_len < sizeof(name) - 1 ? name_len : sizeof(name) - 1;
      VG_(memcpy)(name, e + 28, copy);
      name[copy] = 0;
      at += 28 + name_len;
      Long off = (Long)get_le(e + 8, 8);
      ULong size = get_le(e + 16, 8);
      if (size == 0 || off >= 0 || size > (1UL << 30))
         continue;
      v[m].fn_entry = (Addr)get_le(e, 8);
      v[m].var.cfa_offset = off;
      v[m].var.size = size;
      v[m].var.name = CATS_(intern_str)(name);
      m++;
   }
   VG_(free)(a);
   *vars = v;
   *n = m;
}

/*------------------------------------------------------------*/
/*--- Writing the trace                                    ---*/
/*------------------------------------------------------------*/

static void meta(CatsBuf* b, UInt* count, const HChar* k, const HChar* v)
{
   CATS_(put_u32)(b, CATS_(intern_str)(k));
   CATS_(put_u32)(b, CATS_(intern_str)(v));
   (*count)++;
}

static void meta_u64(CatsBuf* b, UInt* count, const HChar* k, ULong v)
{
   HChar buf[32];
   VG_(snprintf)(buf, sizeof(buf), "%llu", v);
   meta(b, count, k, buf);
}

static void write_meta(CatsBuf* b)
{
   UInt count = 0;
   Word i;
   HChar cmd[4096];
   HChar buf[64];
   SizeT at = 0;
   CATS_(put_u32)(b, 0);   /* patched below */
   at = VG_(snprintf)(cmd, sizeof(cmd), "%s", VG_(args_the_exename));
   for (i = 0; i < VG_(sizeXA)(VG_(args_for_client)) && at < sizeof(cmd); i++)
      at += VG_(snprintf)(cmd + at, sizeof(cmd) - at, " %s",
                          *(HChar**)VG_(indexXA)(VG_(args_for_client), i));
   meta(b, &count, "tool", "cats");
   meta(b, &count, "tool_version", "0.1.0");
   meta(b, &count, "command", cmd);
   meta_u64(b, &count, "pid", (ULong)VG_(getpid)());
   if (CATS_(exec_called))
      VG_(snprintf)(buf, sizeof(buf), "exec");
   else if (CATS_(fatal_signal) > 0)
      VG_(snprintf)(buf, sizeof(buf), "signal %d", CATS_(fatal_signal));
   else if (CATS_(fatal_signal) < 0)
      VG_(snprintf)(buf, sizeof(buf), "signal");
   else
      VG_(snprintf)(buf, sizeof(buf), "exit %d", CATS_(exit_code));
   meta(b, &count, "exit", buf);
   meta(b, &count, "instr_atstart", CATS_(clo_instr_atstart) ? "yes" : "no");
   /* Whether a graph was asked for: a trace without one then says why. */
   meta(b, &count, "value_flow", CATS_(clo_value_flow) ? "yes" : "no");
   meta_u64(b, &count, "time_end", CATS_(time));
   meta_u64(b, &count, "threads", CATS_(n_threads)());
   meta_u64(b, &count, "accesses_total", CATS_(total_accesses)());
   meta_u64(b, &count, "accesses_unattributed", CATS_(n_unattributed));
   meta_u64(b, &count, "bytes_unattributed", CATS_(bytes_unattributed));
   meta_u64(b, &count, "peak_footprint", CATS_(peak_footprint));
   meta_u64(b, &count, "peak_time", CATS_(peak_time));
   meta_u64(b, &count, "event_records", CATS_(n_events)());
   meta_u64(b, &count, "alloc_records", CATS_(n_allocs_written)());
   /* Sections 9 to 11 are optional, so a reader could not tell one lost
      to a damaged section table: META says they were written. */
   if (CATS_(clo_reuse_distance))
      meta_u64(b, &count, "reuse_sampling", CATS_(clo_reuse_sampling));
   meta_u64(b, &count, "index_pairs", CATS_(n_index_pairs)());
   if (CATS_(clo_value_flow))
      meta_u64(b, &count, "dep_records", CATS_(vf_n_deps)());
   CATS_(patch_u32)(b, 0, count);
}

/* Reads the answers still owed, which would otherwise be read as the
   commit reply, and keeps the helper from blocking on them while the
   sections are sent. */
static void drain_answers(void)
{
   while (pending && VG_(sizeXA)(pending) > 0) {
      Pending* p = VG_(indexXA)(pending, 0);
      SizeT len;
      UChar* a = answer(p->answer_type, p->text_avma, &len);
      if (a == NULL)
         break;
      VG_(free)(a);
   }
}

/* b's contents as a frame of the given section, after the answers
   owed; False once the helper is gone (or was before: ok False). */
static Bool send_part(Bool ok, UInt type, const CatsBuf* b)
{
   if (!ok)
      return False;
   drain_answers();
   return to_helper >= 0 && send_frame(type, b->data, b->len);
}

/* A section goes to the helper as soon as it is made, and its buffer
   with it: a large program's sections (python3's access records, their
   reuse histograms, its contexts) were 113 MB held together at the end
   of the run, the tool's peak. */
static Bool send_section(Bool ok, UInt type, CatsBuf* b)
{
   ok = send_part(ok, type, b);
   CATS_(buf_free)(b);
   CATS_(buf_init)(b);
   return ok;
}

/* The access records' section goes in parts as it is made (the helper
   appends a section's frames): it is the largest (python3 starting up:
   1.66 M records, about 60 MB). */
static Bool parts_ok;

static void events_part(CatsBuf* b)
{
   parts_ok = send_part(parts_ok, CATS_SEC_EVENTS, b);
   b->len = 0;
}

Bool CATS_(write_trace)(Bool ending)
{
   CatsBuf sec;
   if (!helper_ready())
      return False;
   CATS_(buf_init)(&sec);
   Bool ok = to_helper >= 0;
   if (ok)
      warn_if_written_meanwhile();
   /* Section 11 first, as META counts its records, and before the
      access records, which write_events frees as it goes when the
      process ends. */
   if (CATS_(clo_value_flow)) {
      CATS_(vf_write_deps)(&sec);
      ok = send_section(ok, CATS_SEC_DEPS, &sec);
   }
   /* Strings last: the other sections intern names as they serialise. */
   write_meta(&sec);
   ok = send_section(ok, CATS_SEC_META, &sec);
   CATS_(write_contexts)(&sec);
   ok = send_section(ok, CATS_SEC_CONTEXTS, &sec);
   CATS_(write_allocs)(&sec);
   ok = send_section(ok, CATS_SEC_ALLOCS, &sec);
   /* Section 9 only with --reuse-distance=yes; before the records too. */
   if (CATS_(clo_reuse_distance)) {
      CATS_(write_reuse)(&sec);
      ok = send_section(ok, CATS_SEC_REUSE, &sec);
   }
   parts_ok = ok;
   CATS_(write_events)(&sec, ending, events_part);
   ok = send_section(parts_ok, CATS_SEC_EVENTS, &sec);
   CATS_(write_index)(&sec);
   ok = send_section(ok, CATS_SEC_INDEX, &sec);
   CATS_(write_locs)(&sec);
   ok = send_section(ok, CATS_SEC_LOCS, &sec);
   CATS_(write_strings)(&sec);
   ok = send_section(ok, CATS_SEC_STRINGS, &sec);
   drain_answers();
   ok = ok && send_frame(CATS_FRAME_COMMIT, NULL, 0);
   /* With a projection the trace is in place first (WRITTEN), and the
      projection is added to it before COMMITTED. */
   SizeT len;
   UInt type = 0;
   UChar* reply = ok ? recv_any(&type, &len) : NULL;
   Bool written = reply != NULL && type == CATS_FRAME_WRITTEN;
   if (written) {
      VG_(free)(reply);
      reply = recv_frame(CATS_FRAME_COMMITTED, &len);
   } else if (reply != NULL && type != CATS_FRAME_COMMITTED) {
      VG_(free)(reply);
      reply = NULL;
   }
   if (reply == NULL) {
      helper_lost_after(written ? "no reply when projecting"
                                : "no reply when writing the trace", written);
      return written;
   }
   UInt status = len >= 4 ? (UInt)get_le(reply, 4) : 1;
   if (status != 0)
      VG_(umsg)("cats: could not write %s: %s\n", CATS_(out_path),
                len > 4 ? (const HChar*)reply + 4 : "unknown error");
   VG_(free)(reply);
   VG_(close)(to_helper);
   VG_(close)(from_helper);
   to_helper = from_helper = -1;
   if (helper_pid > 0) {
      Int st;
      VG_(waitpid)(helper_pid, &st, 0);
   }
   return status == 0;
}
