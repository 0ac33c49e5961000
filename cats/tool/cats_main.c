/* SPDX-License-Identifier: GPL-2.0-or-later */
/*--------------------------------------------------------------------*/
/*--- cats: memory and control-flow tracing.           cats_main.c ---*/
/*--------------------------------------------------------------------*/
/* Options, initialisation, client requests, system calls and the end
   of the run. The other modules are listed in cats_tool.h. */

#include "cats_tool.h"
#include "pub_tool_options.h"
#include "pub_tool_aspacemgr.h"
#include "pub_tool_machine.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_clientstate.h"
#include "pub_tool_transtab.h"
#include "pub_tool_vki.h"
#include "pub_tool_vkiscnums.h"
#include "cats.h"

/* Set by the core's option parser; not in the tool headers. */
extern Bool VG_(clo_read_inline_info);

Bool  CATS_(clo_instr_atstart) = True;
UInt  CATS_(clo_helper_timeout) = 180;
/* The argument --vf-max-memory=N (MiB) for the helper, or NULL. */
const HChar* CATS_(helper_vf_limit);
Bool  CATS_(clo_separate_debug_files) = False;
const HChar* CATS_(clo_out_file) = "cats.out.%p.cats";
Int   CATS_(exit_code) = 0;
Int   CATS_(fatal_signal) = 0;
Bool  CATS_(exec_called) = False;


/*------------------------------------------------------------*/
/*--- Options                                              ---*/
/*------------------------------------------------------------*/

/* Projection options go to the helper verbatim (it runs METIS); here
   they are only checked, so that a typo fails at start-up rather than
   after a long run. */
typedef enum { PO_RANKS, PO_TEXT, PO_FRACTION, PO_UINT, PO_TRIES, PO_RATIO,
               PO_CONTIG, PO_SECONDS, PO_PARTITIONER, PO_DECOMP,
               PO_GRID } ProjOptKind;

static const struct {
   const HChar* name;
   ProjOptKind kind;
} proj_opts[] = {
   { "--ranks", PO_RANKS },
   { "--per", PO_TEXT },
   { "--singleton-threshold", PO_FRACTION },
   { "--partitioner", PO_PARTITIONER },
   { "--decomposition", PO_DECOMP },
   { "--grid", PO_GRID },
   { "--seed", PO_UINT },
   { "--tries", PO_TRIES },
   { "--imbalance", PO_RATIO },
   { "--contig", PO_CONTIG },
   { "--alpha", PO_SECONDS },
   { "--beta", PO_SECONDS },
};
#define N_PROJ_OPTS (sizeof(proj_opts) / sizeof(proj_opts[0]))

const HChar* CATS_(proj_args)[N_PROJ_OPTS + 1];
static const HChar* proj_given[N_PROJ_OPTS];

static Bool number_in(const HChar* v, double lo, double hi)
{
   HChar* end;
   if (*v == '\0')
      return False;
   double d = VG_(strtod)(v, &end);
   return *end == '\0' && d >= lo && d <= hi;
}

static Bool ranks_ok(const HChar* v)
{
   UInt n = 0;
   while (*v) {
      HChar* end;
      if (*v < '0' || *v > '9')
         return False;
      Long r = VG_(strtoll10)(v, &end);
      if (r < 1 || r > 65536 || (*end != ',' && *end != '\0') || ++n > 64)
         return False;
      v = *end ? end + 1 : end;
      if (*end && !*v)
         return False;
   }
   return n > 0;
}

static Bool proj_value_ok(ProjOptKind kind, const HChar* v)
{
   switch (kind) {
   case PO_RANKS:    return ranks_ok(v);
   case PO_TEXT:     return *v != '\0';
   case PO_FRACTION: return number_in(v, 1e-9, 1.0);
   case PO_UINT:     return number_in(v, 0, 2147483647.0) &&
                            VG_(strspn)(v, "0123456789") == VG_(strlen)(v);
   case PO_TRIES:    return number_in(v, 1, 100) &&
                            VG_(strspn)(v, "0123456789") == VG_(strlen)(v);
   case PO_RATIO:    return number_in(v, 1.001, 10.0);
   case PO_CONTIG:   return VG_STREQ(v, "yes") || VG_STREQ(v, "no")
                            || VG_STREQ(v, "auto");
   case PO_SECONDS:  return number_in(v, 0, 1e3);
   case PO_PARTITIONER:
      return VG_STREQ(v, "kway") || VG_STREQ(v, "rb") || VG_STREQ(v, "best")
             || VG_STREQ(v, "volume");
   case PO_DECOMP:
      return VG_STREQ(v, "auto") || VG_STREQ(v, "metis") || VG_STREQ(v, "grid");
   case PO_GRID:
      /* Factors and separators; the helper checks the grids' shape. */
      return *v != '\0' && VG_(strspn)(v, "0123456789x,") == VG_(strlen)(v);
   }
   return False;
}

static Bool projection_option(const HChar* arg)
{
   for (UInt i = 0; i < N_PROJ_OPTS; i++) {
      SizeT len = VG_(strlen)(proj_opts[i].name);
      if (VG_(strncmp)(arg, proj_opts[i].name, len) != 0 || arg[len] != '=')
         continue;
      if (!proj_value_ok(proj_opts[i].kind, arg + len + 1)) {
         VG_(fmsg_bad_option)(arg, "see 'valgrind --tool=cats --help'\n");
         VG_(exit)(1);   /* in case the core returns */
      }
      proj_given[i] = arg;
      return True;
   }
   return False;
}

Bool CATS_(projecting)(void)
{
   return proj_given[0] != NULL;   /* --ranks turns the projection on */
}

static Bool process_option(const HChar* arg)
{
   Long gran = 0, sampling = 0, timeout = 0, limit = 0, records = 0;
   if (projection_option(arg)) {}
   else if VG_STR_CLO(arg, "--cats-out-file", CATS_(clo_out_file)) {}
   else if VG_BOOL_CLO(arg, "--instr-atstart", CATS_(clo_instr_atstart)) {}
   else if VG_BOOL_CLO(arg, "--separate-debug-files",
                       CATS_(clo_separate_debug_files)) {}
   else if VG_BOOL_CLO(arg, "--value-flow", CATS_(clo_value_flow)) {}
   else if VG_BINT_CLO(arg, "--helper-timeout", timeout, 1, 1000000)
      CATS_(clo_helper_timeout) = (UInt)timeout;
   else if VG_BINT_CLO(arg, "--vf-max-memory", limit, 1, 1ll << 40)
      CATS_(helper_vf_limit) = arg;
   else if VG_BOOL_CLO(arg, "--vf-loop-log", CATS_(clo_vf_acc_log)) {}
   else if VG_BINT_CLO(arg, "--vf-granularity", gran, 4, 8) {
      if (gran != 4 && gran != 8) {
         VG_(fmsg_bad_option)(arg, "the granularity must be 4 or 8\n");
      }
      CATS_(clo_vf_granularity) = (UInt)gran;
   }
   else if VG_BINT_CLO(arg, "--vf-stack-array-min",
                       CATS_(clo_vf_stack_array_min), 0, 1ULL << 40) {}
   else if VG_BINT_CLO(arg, "--records-in-memory", records, 1024,
                       0xFFFFFFFFLL)
      CATS_(clo_records_in_memory) = (UInt)records;
   else if VG_BOOL_CLO(arg, "--reuse-distance",
                       CATS_(clo_reuse_distance)) {}
   else if VG_BINT_CLO(arg, "--reuse-sampling", sampling, 1,
                       CATS_REUSE_MAX_SAMPLING) {
      /* SHARDS rates 1/2^k: the hash test is a mask. */
      if ((sampling & (sampling - 1)) != 0)
         VG_(fmsg_bad_option)(arg, "the sampling must be a power of two "
                              "(1, 2, 4, ... 1024)\n");
      CATS_(clo_reuse_sampling) = (UInt)sampling;
   }
   else
      return False;
   return True;
}

static void print_usage(void)
{
   VG_(printf)(
"    --cats-out-file=<file>    trace file name [cats.out.%%p.cats]\n"
"                              %%p is the process id, %%q{VAR} the value of\n"
"                              the environment variable VAR\n"
"    --instr-atstart=no|yes    record accesses from the start [yes]; with no,\n"
"                              start with CATS_START_INSTRUMENTATION\n"
"                              (cats.h)\n"
"    --helper-timeout=<s>      give up on a helper that has made no progress\n"
"                              (used no CPU time) for s seconds [180]\n"
"    --separate-debug-files=no|yes  also name stack arrays from separate\n"
"                              debug files (/usr/lib/debug), as for system\n"
"                              libraries [no]\n"
"    --value-flow=no|yes       build the value communication graph [yes]\n"
"    --vf-granularity=8|4      bytes per value-flow memory word [8]\n"
"    --vf-max-memory=<MiB>     cut the value-flow graph where building it\n"
"                              takes this much [a third of the RAM]\n"
"    --vf-stack-array-min=<n>  named stack arrays of at least n bytes hold\n"
"                              values; smaller ones, and those of frames\n"
"                              entered in a loop, are workspaces [1024]\n"
"    --records-in-memory=<n>   access records kept in memory; the ones used\n"
"                              longest ago go to a file in $TMPDIR and come\n"
"                              back when used (the trace is the same) [262144]\n"
"    --reuse-distance=yes|no   reuse (LRU stack) distances of 64-byte lines\n"
"                              per access record and container [yes]\n"
"    --reuse-sampling=<n>      track 1 in n lines (SHARDS sampling; a power\n"
"                              of two up to 1024, 1 is exact) [16]\n"
"    --ranks=<n,n,...>         at exit, project the SPMD communication for\n"
"                              these rank counts (METIS), print it and store\n"
"                              it in the trace [off]\n"
"    --per=<name|file:line|run>  report per iteration of this function,\n"
"                              region or loop [the outermost loop with most\n"
"                              of the work]; run: the whole run\n"
"    --singleton-threshold=<x> singleton score threshold [0.9]\n"
"    --partitioner=best|kway|volume|rb  METIS k-way (cut), k-way\n"
"                              (volume), recursive bisection, or each,\n"
"                              keeping the fewest projected bytes [best]\n"
"    --decomposition=auto|metis|grid  METIS's parts of the values, or\n"
"                              the cheapest process grid over the arrays'\n"
"                              blocks; auto: the grid when the arrays are\n"
"                              regular [auto]\n"
"    --grid=<AxB[xC],...>      this process grid (slowest dimension first)\n"
"                              for its rank count, as an MPI code chose\n"
"    --seed=<n>                METIS seed [1]\n"
"    --tries=<n>               partitionings METIS keeps the best of [8 for\n"
"                              small graphs, down to 1 for large ones]\n"
"    --imbalance=<x>           allowed load imbalance [1.03]\n"
"    --contig=yes|no|auto      ask METIS for contiguous parts; auto:\n"
"                              unless the graph is dense [auto]\n"
"    --alpha=<s> --beta=<s>    latency per message, seconds per byte of the\n"
"                              cost model [1e-6, 1e-10]\n"
   );
}

static void print_debug_usage(void)
{
   VG_(printf)(
"    --vf-loop-log=yes|no      make a loop's accumulator unions from a log\n"
"                              when the loop is left [yes]; no: at every\n"
"                              iteration (the same graph, slower)\n"
   );
}

/*------------------------------------------------------------*/
/*--- Client requests                                      ---*/
/*------------------------------------------------------------*/

static void set_instrumentation(Bool on)
{
   if (CATS_(instr_on) == on)
      return;
   CATS_(instr_on) = on;
   /* Existing translations carry (or lack) the access calls. */
   VG_(discard_translations_safely)((Addr)0x1000, ~(SizeT)0xfff, "cats");
}

static Bool handle_client_request(ThreadId tid, UWord* args, UWord* ret)
{
   if (!VG_IS_TOOL_USERREQ('C', 'T', args[0]))
      return False;
   *ret = 0;
   switch (args[0]) {
   case VG_USERREQ__CATS_START_INSTRUMENTATION:
      set_instrumentation(True);
      return True;
   case VG_USERREQ__CATS_STOP_INSTRUMENTATION:
      set_instrumentation(False);
      return True;
   case VG_USERREQ__CATS_NAME_BLOCK:
      if (args[3] != 0 && args[2] != 0)
         CATS_(name_block)(tid, (Addr)args[1], (SizeT)args[2],
                           (const HChar*)args[3]);
      return True;
   case VG_USERREQ__CATS_REGION_BEGIN:
      if (args[1] != 0)
         CATS_(region_begin)(tid, (const HChar*)args[1]);
      return True;
   case VG_USERREQ__CATS_REGION_END:
      if (args[1] != 0)
         CATS_(region_end)(tid, (const HChar*)args[1]);
      return True;
   default:
      return False;
   }
}

/*------------------------------------------------------------*/
/*--- Memory events from the core                          ---*/
/*------------------------------------------------------------*/

/* Closes every open scope and writes the trace, once: at exit, or just
   before an execve replaces the guest (Valgrind does not call fini then,
   and the trace of what ran would be lost). */
static Bool finished = False;
static void finish_run(Bool ending);

/* A newly mapped object with debug information: ask the helper about
   it now, so that its answers are ready when its code first runs. */
static void on_new_mmap(Addr a, SizeT len, Bool rr, Bool ww, Bool xx,
                        ULong di_handle)
{
   (void)a; (void)len; (void)rr; (void)ww;
   if (xx && di_handle != 0)
      CATS_(prefetch_new_objects)();
}

/* A guest that ends without exit_group died of a signal: Valgrind's
   fini callback does not say which, its log does. */
static Bool exit_called = False;

/* Whether an execve of the guest's 'path' can replace the image: the
   file exists, is a regular file and has an execute bit. execvp and
   shells try each directory of PATH in turn, and the tool hears of
   each try before Valgrind checks the file, so the trace must not end
   at one that is bound to fail. (Other failures, a bad format or
   permissions, are still possible: the trace then ends there.) */
static Bool exec_may_succeed(Addr path)
{
   HChar buf[VKI_PATH_MAX];
   UInt n;
   for (n = 0; n < sizeof buf; n++) {
      if ((n == 0 || ((path + n) & (VKI_PAGE_SIZE - 1)) == 0)
          && !VG_(am_is_valid_for_client)(path + n, 1, VKI_PROT_READ))
         return False;   /* Valgrind fails it with EFAULT */
      buf[n] = *(const HChar*)(path + n);
      if (buf[n] == 0)
         break;
   }
   if (n == 0 || n == sizeof buf)
      return n == sizeof buf;   /* too long to check here: assume it may */
   struct vg_stat st;
   if (sr_isError(VG_(stat)(buf, &st)))
      return False;
   return VKI_S_ISREG(st.mode) && (st.mode & 0111) != 0;
}

static void pre_syscall(ThreadId tid, UInt sysno, UWord* args, UInt nArgs)
{
   (void)tid; (void)nArgs;
   if (sysno == __NR_exit_group) {
      exit_called = True;
      CATS_(exit_code) = (Int)args[0];
   }
   /* A forked child that execs (system(), posix_spawn) has done nothing
      worth a trace of its own. */
   Bool will_try = sysno == __NR_execveat
                   || (sysno == __NR_execve && exec_may_succeed(args[0]));
   if (will_try && !CATS_(forked_child)) {
      CATS_(exec_called) = True;
      finish_run(False);   /* the execve may still fail */
   }
}

/* Anonymous mappings are containers; file mappings are code and data of
   objects, which globals describe. */
static void post_syscall(ThreadId tid, UInt sysno, UWord* args, UInt nArgs,
                         SysRes res)
{
   (void)nArgs;
   if (sr_isError(res)) {
      static Bool told = False;
      if ((sysno == __NR_execve || sysno == __NR_execveat) && finished
          && !told) {
         told = True;
         VG_(umsg)("cats: execve failed after the trace was written; "
                   "the rest of the run is not in it\n");
      }
      return;
   }
   switch (sysno) {
   case __NR_mmap:
      if (args[3] & VKI_MAP_ANONYMOUS)
         CATS_(new_mmap)(tid, (Addr)sr_Res(res), (SizeT)args[1]);
      break;
   case __NR_munmap:
      CATS_(release_range)(tid, (Addr)args[0], (SizeT)args[1]);
      break;
   case __NR_mremap: {
      UInt from = CATS_(release_heap_block)(tid, (Addr)args[0]);
      if (from != CATS_NONE)
         CATS_(new_heap_block)(tid, (Addr)sr_Res(res), (SizeT)args[2],
                               CATS_ALLOC_MMAP, from);
      break;
   }
   default:
      break;
   }
}

/*------------------------------------------------------------*/
/*--- Threads and signals                                  ---*/
/*------------------------------------------------------------*/

static void on_start_client_code(ThreadId tid, ULong blocks)
{
   (void)blocks;
   /* The old thread's logged unions first, in its context. */
   if (CATS_(clo_value_flow))
      CATS_(vf_acc_set_thread)(tid);
   if (CATS_(cur_thread) == NULL || CATS_(cur_thread)->tid != tid)
      CATS_(switch_thread)(tid);
}

static void on_pre_signal(ThreadId tid, Int sig, Bool alt_stack)
{
   (void)alt_stack;
   if (CATS_(clo_value_flow))
      CATS_(vf_acc_flush_thread)();   /* before the frame saves them */
   CATS_(signal_enter)(tid, sig);
}

static void on_thread_exit(ThreadId tid)
{
   if (CATS_(clo_value_flow))
      CATS_(vf_acc_thread_exit)(tid);
   CATS_(thread_exit)(tid);
}

/* A loop whose runs are logged may be retranslated: its runs so far
   are made first. */
static void on_discard(Addr orig, VexGuestExtents vge)
{
   (void)orig; (void)vge;
   if (CATS_(clo_value_flow))
      CATS_(vf_acc_flush_thread)();
}

static void on_post_signal(ThreadId tid, Int sig)
{
   CATS_(signal_leave)(tid, sig);
}

/*------------------------------------------------------------*/
/*--- Start and end                                        ---*/
/*------------------------------------------------------------*/

/* Fails early on an output the helper could not write at the end: NULL
   if it can be written, else why not. A device or a FIFO is written in
   place by the helper; a directory cannot be. */
static const HChar* output_unwritable(const HChar* path)
{
   struct vg_stat st;
   if (!sr_isError(VG_(stat)(path, &st))) {
      if (VKI_S_ISDIR(st.mode))
         return "it is a directory";
      if (!VKI_S_ISREG(st.mode))
         return NULL;
   }
   HChar* probe = VG_(malloc)("cats.probe", VG_(strlen)(path) + 32);
   VG_(sprintf)(probe, "%s.probe.%d", path, VG_(getpid)());
   SysRes sr = VG_(open)(probe, VKI_O_WRONLY | VKI_O_CREAT | VKI_O_EXCL,
                         0600);
   Bool ok = !sr_isError(sr);
   if (ok) {
      VG_(close)(sr_Res(sr));
      VG_(unlink)(probe);
   }
   VG_(free)(probe);
   return ok ? NULL : "its folder cannot be written";
}

/* Valgrind replaces malloc and friends through the preload library, which
   a statically linked program never loads: its heap blocks are then no
   containers, and the user is told before the run rather than left to
   wonder at the accesses "not in any container". The executable is a
   static one when it is an ELF file without a PT_INTERP program header. */
static void warn_if_static(const HChar* exe)
{
   UChar eh[64], ph[56];
   if (exe == NULL)
      return;
   SysRes sr = VG_(open)(exe, VKI_O_RDONLY, 0);
   if (sr_isError(sr))
      return;
   Int fd = sr_Res(sr);
   Bool dynamic = True;
   if (VG_(read)(fd, eh, sizeof(eh)) == sizeof(eh)
       && eh[0] == 0x7f && eh[1] == 'E' && eh[2] == 'L' && eh[3] == 'F'
       && eh[4] == 2 /* ELFCLASS64 */) {
      ULong phoff = 0;
      for (Int i = 7; i >= 0; i--)
         phoff = (phoff << 8) | eh[32 + i];
      UInt phentsize = eh[54] | (eh[55] << 8), phnum = eh[56] | (eh[57] << 8);
      dynamic = False;
      for (UInt i = 0; i < phnum && phentsize >= 4 && !dynamic; i++) {
         if (VG_(lseek)(fd, (Off64T)(phoff + (ULong)i * phentsize),
                        VKI_SEEK_SET) < 0
             || VG_(read)(fd, ph, 4) != 4) {
            dynamic = True;   /* unreadable: say nothing */
            break;
         }
         if ((ph[0] | (ph[1] << 8) | (ph[2] << 16) | ((UInt)ph[3] << 24)) == 3)
            dynamic = True;   /* PT_INTERP */
      }
   }
   VG_(close)(fd);
   if (!dynamic)
      VG_(umsg)("cats: warning: %s is statically linked: Valgrind cannot "
                "replace its malloc, so its heap blocks are not recorded "
                "(their accesses count as not in any container)\n", exe);
}

/* Memory the kernel wrote (read(2) and friends) holds new inputs. */
static void on_mem_written(CorePart part, ThreadId tid, Addr a, SizeT len)
{
   (void)tid;
   if (part == Vg_CoreSysCall)
      CATS_(vf_clear_range)(a, len);
}

static void post_clo_init(void)
{
   CATS_(instr_on) = CATS_(clo_instr_atstart);
   CATS_(out_path) = VG_(expand_file_name)("--cats-out-file",
                                           CATS_(clo_out_file));
   const HChar* why = output_unwritable(CATS_(out_path));
   if (why) {
      VG_(fmsg)("cats: cannot write the trace file %s: %s\n",
                CATS_(out_path), why);
      VG_(exit)(1);
   }
   CATS_(out_snapshot)();
   warn_if_static(VG_(args_the_exename));
   if (CATS_(projecting)() && !CATS_(clo_value_flow)) {
      VG_(fmsg_bad_option)("--ranks", "the projection needs --value-flow=yes\n");
      VG_(exit)(1);
   }
   UInt n = 0;
   for (UInt i = 0; i < N_PROJ_OPTS; i++)
      if (proj_given[i] && CATS_(projecting)())
         CATS_(proj_args)[n++] = proj_given[i];
   CATS_(proj_args)[n] = NULL;
   if (!CATS_(helper_start)(CATS_(out_path)))
      VG_(exit)(1);
   CATS_(out_init)();
   if (CATS_(clo_value_flow)) {
      CATS_(vf_init)();
      VG_(track_post_mem_write)(on_mem_written);
   }
   if (CATS_(clo_reuse_distance))
      CATS_(reuse_init)();
}

static void finish_run(Bool ending)
{
   if (finished)
      return;
   finished = True;
   CATS_(cflow_finish)();
   CATS_(mem_finish)();
   if (CATS_(clo_value_flow)) {
      CATS_(vf_finish)();
      if (ending)   /* an execve may fail, and the run go on */
         CATS_(vf_release)();
   }
   Bool ok = CATS_(write_trace)(ending);
   if (VG_(clo_verbosity) == 0)
      return;
   VG_(umsg)("cats: %'llu accesses (%'llu not in any container), "
             "%'u access records\n", CATS_(total_accesses)(),
             CATS_(n_unattributed), CATS_(n_events)());
   VG_(umsg)("cats: %'u allocation records, %'u contexts, "
             "peak footprint %'llu bytes\n", CATS_(n_allocs_written)(),
             CATS_(n_ctxs)(), CATS_(peak_footprint));
   if (VG_(clo_verbosity) > 1)
      CATS_(spill_stats)();
   if (CATS_(clo_value_flow) && VG_(clo_verbosity) > 1)
      CATS_(vf_stats)();
   if (CATS_(clo_reuse_distance) && VG_(clo_verbosity) > 1)
      CATS_(reuse_stats)();
   if (ok)
      VG_(umsg)("cats: trace written to %s\n", CATS_(out_path));
}

static void fini(Int exitcode)
{
   if (!exit_called)
      CATS_(fatal_signal) = -1;
   else if (CATS_(exit_code) == 0)
      CATS_(exit_code) = exitcode;
   finish_run(True);
}

static void pre_clo_init(void)
{
   VG_(details_name)("cats");
   VG_(details_version)("0.1.0");
   VG_(details_description)("memory and control-flow tracing (C.A.T.S.)");
   VG_(details_copyright_author)("Copyright (C) 2026, and GNU GPL'd, by the cats authors.");
   VG_(details_bug_reports_to)("the cats issue tracker");
   VG_(details_avg_translation_sizeB)(500);

   VG_(basic_tool_funcs)(post_clo_init, CATS_(instrument), fini);
   VG_(needs_command_line_options)(process_option, print_usage,
                                   print_debug_usage);
   VG_(needs_client_requests)(handle_client_request);
   VG_(needs_syscall_wrapper)(pre_syscall, post_syscall);
   VG_(needs_superblock_discards)(on_discard);
   VG_(needs_malloc_replacement)(CATS_(malloc),
                                 CATS_(builtin_new),
                                 CATS_(builtin_new_aligned),
                                 CATS_(builtin_vec_new),
                                 CATS_(builtin_vec_new_aligned),
                                 CATS_(memalign),
                                 CATS_(calloc),
                                 CATS_(free),
                                 CATS_(builtin_delete),
                                 CATS_(builtin_delete_aligned),
                                 CATS_(builtin_vec_delete),
                                 CATS_(builtin_vec_delete_aligned),
                                 CATS_(realloc),
                                 CATS_(malloc_usable_size),
                                 0);

   VG_(track_new_mem_mmap)(on_new_mmap);
   VG_(track_start_client_code)(on_start_client_code);
   VG_(track_pre_thread_ll_exit)(on_thread_exit);
   VG_(track_pre_deliver_signal)(on_pre_signal);
   VG_(track_post_deliver_signal)(on_post_signal);

   /* Loops are found from branches, so superblocks must not be unrolled
      or chased across branches (as callgrind does). */
   VG_(clo_vex_control).iropt_unroll_thresh = 0;
   VG_(clo_vex_control).guest_chase = False;
   VG_(clo_read_inline_info) = True;

   CATS_(locs_init)();
   CATS_(cflow_init)();
   CATS_(mem_init)();
   CATS_(events_init)();
   CATS_(index_init)();
}

VG_DETERMINE_INTERFACE_VERSION(pre_clo_init)
