/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_stackvars.c: stack arrays from DWARF, on code compiled at test time.
 *
 * usage: test_stackvars WORKDIR [HELPER]   (compilers: $CC, default gcc;
 *                                           gfortran if present)
 *
 * work() below has two arrays in its body, one in a nested block, and
 * three things that must not be reported: a scalar, a static array and a
 * VLA. Every array is passed to a noinline function, so at -O2 too it
 * stays in memory; buf and idx are used after the block, so the block's
 * array cannot share their slots. The program prints where buf lies
 * relative to its CFA, which at -O0 (rbp = CFA - 16 after the prologue)
 * must be the offset the DWARF gives. With HELPER, the same answer is
 * also fetched through a STACKVARS query. */
#define _POSIX_C_SOURCE 200809L

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cats/format/cats_format.h"
#include "cats/trace/frame.h"
#include "cats/binary/stackvars.h"
#include "check.h"

CHECK_DEFINE_GLOBALS;

static const char *workdir;
static const char *helper;

static const char source[] =
   "#include <stdio.h>\n"
   "__attribute__((noinline)) void sink(void *p)\n"
   "{\n"
   "   __asm__ volatile(\"\" : : \"r\"(p) : \"memory\");\n"
   "}\n"
   "__attribute__((noinline)) int work(int n)\n"
   "{\n"
   "   double buf[64];\n"
   "   int idx[10];\n"
   "   int scalar = n * 2;\n"
   "   static int keep[8];\n"
   "   char vla[n + 1];\n"
   "   sink(buf);\n"
   "   sink(idx);\n"
   "   sink(keep);\n"
   "   sink(vla);\n"
   "   {\n"
   "      char name[32];\n"
   "      sink(name);\n"
   "      scalar += name[n];\n"
   "   }\n"
   "   printf(\"%td\\n\",\n"
   "          (char *)buf - ((char *)__builtin_frame_address(0) + 16));\n"
   "   return (int)buf[n] + idx[n] + scalar + vla[0] + keep[n];\n"
   "}\n"
   "int main(int argc, char **argv)\n"
   "{\n"
   "   (void)argv;\n"
   "   return work(argc) & 1;\n"
   "}\n";

static const char fortran_source[] =
   "subroutine work(n, out)\n"
   "  integer, intent(in) :: n\n"
   "  real(8), intent(out) :: out\n"
   "  real(8) :: a(100), b(3,4)\n"
   "  integer :: k(0:9)\n"
   "  character(len=8) :: names(5)\n"
   "  integer :: i\n"
   "  do i = 1, 100\n"
   "    a(i) = i * n\n"
   "  end do\n"
   "  b = 1\n"
   "  k = 2\n"
   "  names = 'x'\n"
   "  call ext(a, b, k, names)\n"
   "  out = a(n) + b(1,n) + k(n)\n"
   "end subroutine\n";

/* Value of a symbol and the .text address. */
static int symbol_value(const char *path, const char *name, uint64_t *value,
                        uint64_t *text)
{
   elf_version(EV_CURRENT);
   int fd = open(path, O_RDONLY);
   if (fd < 0)
      return -1;
   Elf *e = elf_begin(fd, ELF_C_READ, NULL);
   size_t shstrndx;
   int found = 0;
   Elf_Scn *scn = NULL;
   if (e && elf_getshdrstrndx(e, &shstrndx) == 0) {
      while ((scn = elf_nextscn(e, scn)) != NULL) {
         GElf_Shdr sh;
         gelf_getshdr(scn, &sh);
         const char *sn = elf_strptr(e, shstrndx, sh.sh_name);
         if (sn && strcmp(sn, ".text") == 0)
            *text = sh.sh_addr;
         if (sh.sh_type != SHT_SYMTAB)
            continue;
         Elf_Data *d = elf_getdata(scn, NULL);
         for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
            GElf_Sym s;
            gelf_getsym(d, (int)i, &s);
            const char *sym = elf_strptr(e, sh.sh_link, s.st_name);
            if (sym && strcmp(sym, name) == 0) {
               *value = s.st_value;
               found = 1;
            }
         }
      }
   }
   if (e)
      elf_end(e);
   close(fd);
   return found ? 0 : -1;
}

static int write_file(const char *path, const char *text)
{
   FILE *f = fopen(path, "w");
   if (!f)
      return -1;
   fputs(text, f);
   return fclose(f) == 0 ? 0 : -1;
}

/* Compile `source` with compiler flags; the binary is WORKDIR/sv_TAG. */
static int compile(const char *tag, const char *flags, char *bin,
                   size_t binlen)
{
   char src[4096], cmd[9000];
   snprintf(src, sizeof src, "%s/sv_src.c", workdir);
   snprintf(bin, binlen, "%s/sv_%s", workdir, tag);
   if (write_file(src, source) != 0)
      return -1;
   const char *cc = getenv("CC");
   snprintf(cmd, sizeof cmd, "%s %s -o '%s' '%s'", cc && cc[0] ? cc : "gcc",
            flags, bin, src);
   return system(cmd) == 0 ? 0 : -1;
}

static const stackvars_var *find_var(const stackvars_var *v, size_t n, uint64_t entry,
                                     const char *name)
{
   for (size_t i = 0; i < n; i++)
      if (v[i].fn_entry == entry && strcmp(v[i].name, name) == 0)
         return &v[i];
   return NULL;
}

static void check_sorted(const stackvars_var *v, size_t n)
{
   for (size_t i = 1; i < n; i++)
      CHECK(v[i - 1].fn_entry < v[i].fn_entry ||
            (v[i - 1].fn_entry == v[i].fn_entry &&
             v[i - 1].cfa_offset <= v[i].cfa_offset));
}

/* buf[64], idx[10] and name[32] of work(), nothing else; negative,
 * distinct, non-overlapping, below the CFA. */
static void check_work(const stackvars_var *v, size_t n, uint64_t entry)
{
   static const struct { const char *name; uint64_t size; } want[] = {
      { "buf", 64 * sizeof(double) },
      { "idx", 10 * sizeof(int) },
      { "name", 32 },
   };
   const stackvars_var *got[3];
   size_t in_work = 0;
   for (size_t i = 0; i < n; i++)
      if (v[i].fn_entry == entry)
         in_work++;
   CHECK_EQ(in_work, 3);
   for (int i = 0; i < 3; i++) {
      got[i] = find_var(v, n, entry, want[i].name);
      CHECK(got[i] != NULL);
      if (!got[i])
         return;
      CHECK_EQ(got[i]->size, want[i].size);
      CHECK(got[i]->cfa_offset < 0);
      CHECK(got[i]->cfa_offset + (int64_t)got[i]->size <= 0);
      CHECK(got[i]->fn_name && strcmp(got[i]->fn_name, "work") == 0);
   }
   for (int i = 0; i < 3; i++)
      for (int j = i + 1; j < 3; j++) {
         int64_t ai = got[i]->cfa_offset, bi = ai + (int64_t)got[i]->size;
         int64_t aj = got[j]->cfa_offset, bj = aj + (int64_t)got[j]->size;
         CHECK(ai != aj);
         CHECK(bi <= aj || bj <= ai);
      }
}

/* Run the program; what it prints is buf's offset from the CFA. */
static int run_offset(const char *bin, long *off)
{
   char cmd[4300];
   snprintf(cmd, sizeof cmd, "'%s'", bin);
   FILE *p = popen(cmd, "r");
   if (!p)
      return -1;
   int ok = fscanf(p, "%ld", off) == 1;
   pclose(p);
   return ok ? 0 : -1;
}

/* ---- the helper, through the protocol ----------------------------------- */

/* Ask HELPER for the arrays of `path` at `avma`, like the tool does. */
static int helper_query(const char *path, uint64_t avma, stackvars_var **out,
                        size_t *n)
{
   int in[2], outp[2];
   *out = NULL;
   *n = 0;
   if (pipe(in) != 0 || pipe(outp) != 0)
      return -1;
   char dst[4200];
   snprintf(dst, sizeof dst, "%s/sv_helper.cats", workdir);
   pid_t pid = fork();
   if (pid < 0)
      return -1;
   if (pid == 0) {
      dup2(in[0], 0);
      dup2(outp[1], 1);
      int null = open("/dev/null", O_WRONLY);
      if (null >= 0)
         dup2(null, 2);
      close(in[1]);
      close(outp[0]);
      execl(helper, helper, dst, (char *)NULL);
      _exit(127);
   }
   close(in[0]);
   close(outp[1]);
   size_t plen = strlen(path);
   uint8_t *q = malloc(16 + plen);
   int rc = -1;
   uint32_t type;
   uint64_t len;
   uint8_t *a = NULL;
   if (q) {
      for (int i = 0; i < 8; i++) {
         q[i] = (uint8_t)(avma >> (8 * i));
         q[8 + i] = 0;   /* text_size: unused */
      }
      memcpy(q + 16, path, plen);
      if (frame_write(in[1], CATS_FRAME_STACKVARS_QUERY, q, 16 + plen) ==
             FRAME_OK &&
          frame_read_header(outp[0], &type, &len) == FRAME_OK &&
          type == CATS_FRAME_STACKVARS_ANSWER && len >= 4 &&
          len < (1u << 30) && (a = malloc(len)) != NULL &&
          frame_read_full(outp[0], a, len) == FRAME_OK)
         rc = 0;
   }
   free(q);
   close(in[1]);   /* no COMMIT: the helper exits without writing */
   close(outp[0]);
   waitpid(pid, NULL, 0);
   if (rc != 0) {
      free(a);
      return -1;
   }
   /* Decode: u32 n, then {u64, i64, u64, u32 len, name}. */
   size_t pos = 4, cnt = 0;
   uint64_t want = 0;
   for (int i = 3; i >= 0; i--)
      want = want << 8 | a[i];
   stackvars_var *v = calloc(want ? want : 1, sizeof *v);
   for (; v && cnt < want && pos + 28 <= len; cnt++) {
      uint64_t f[3] = { 0, 0, 0 };
      uint32_t nl = 0;
      for (int k = 0; k < 3; k++)
         for (int i = 7; i >= 0; i--)
            f[k] = f[k] << 8 | a[pos + 8 * k + i];
      for (int i = 3; i >= 0; i--)
         nl = nl << 8 | a[pos + 24 + i];
      pos += 28;
      if (pos + nl > len || !(v[cnt].name = malloc(nl + 1)))
         break;
      memcpy(v[cnt].name, a + pos, nl);
      v[cnt].name[nl] = '\0';
      pos += nl;
      v[cnt].fn_entry = f[0];
      v[cnt].cfa_offset = (int64_t)f[1];
      v[cnt].size = f[2];
   }
   free(a);
   *out = v;
   *n = cnt;
   return v && cnt == want && pos == len ? 0 : -1;
}

static void check_helper(const char *bin, uint64_t avma, const stackvars_var *v,
                         size_t n)
{
   stackvars_var *h;
   size_t hn;
   CHECK(helper_query(bin, avma, &h, &hn) == 0);
   CHECK_EQ(hn, n);
   for (size_t i = 0; i < n && i < hn; i++) {
      CHECK_EQ(h[i].fn_entry, v[i].fn_entry);
      CHECK_EQ(h[i].cfa_offset, v[i].cfa_offset);
      CHECK_EQ(h[i].size, v[i].size);
      CHECK(strcmp(h[i].name, v[i].name) == 0);
   }
   stackvars_free(h, hn);
}

/* ---- the tests ----------------------------------------------------------- */

static void check_binary(const char *tag, const char *flags, int at_O0)
{
   char bin[4200];
   CHECK(compile(tag, flags, bin, sizeof bin) == 0);
   uint64_t entry = 0, text = 0;
   CHECK(symbol_value(bin, "work", &entry, &text) == 0);
   stackvars_var *v = NULL;
   size_t n = 0;
   char err[STACKVARS_ERRLEN];
   CHECK_EQ(stackvars_find(bin, 0, STACKVARS_NO_BIAS, NULL, &v, &n, err, sizeof err),
            STACKVARS_OK);
   check_sorted(v, n);
   check_work(v, n, entry);
   const stackvars_var *buf = find_var(v, n, entry, "buf");
   long off;
   CHECK(run_offset(bin, &off) == 0);
   if (at_O0 && buf)
      CHECK_EQ(off, buf->cfa_offset);

   /* With a load address the entries come out shifted by the bias. */
   stackvars_var *b = NULL;
   size_t nb = 0;
   uint64_t bias = 0x7f0000000000ull;
   CHECK_EQ(stackvars_find(bin, text + bias, 0, NULL, &b, &nb, err, sizeof err),
            STACKVARS_OK);
   CHECK_EQ(nb, n);
   for (size_t i = 0; i < n && i < nb; i++) {
      CHECK_EQ(b[i].fn_entry, v[i].fn_entry + bias);
      CHECK_EQ(b[i].cfa_offset, v[i].cfa_offset);
      CHECK(strcmp(b[i].name, v[i].name) == 0);
   }
   if (helper)
      check_helper(bin, text + bias, b, nb);
   if (chk_failures)
      for (size_t i = 0; i < n; i++)
         fprintf(stderr, "  %s: 0x%llx %s %lld %llu %s\n", bin,
                 (unsigned long long)v[i].fn_entry,
                 v[i].fn_name ? v[i].fn_name : "?",
                 (long long)v[i].cfa_offset, (unsigned long long)v[i].size,
                 v[i].name);
   stackvars_free(b, nb);
   stackvars_free(v, n);
}

static void test_O0_dwarf4(void) { check_binary("O0_d4", "-O0 -gdwarf-4", 1); }
static void test_O0_dwarf5(void) { check_binary("O0_d5", "-O0 -gdwarf-5", 1); }
static void test_O2_dwarf4(void) { check_binary("O2_d4", "-O2 -gdwarf-4", 0); }
static void test_O2_dwarf5(void) { check_binary("O2_d5", "-O2 -gdwarf-5", 0); }

/* Debug info moved to DIR/.build-id/xx/rest.debug is found from there. */
static void test_build_id(void)
{
   char bin[4200], cmd[20000];
   CHECK(compile("bid", "-O0 -g -Wl,--build-id", bin, sizeof bin) == 0);
   snprintf(cmd, sizeof cmd,
            "cd '%s' && id=$(readelf -n sv_bid | "
            "awk '/Build ID/ { print $3 }') && [ -n \"$id\" ] && "
            "pre=${id%%\"${id#??}\"} && mkdir -p dbg/.build-id/$pre && "
            "objcopy --only-keep-debug sv_bid dbg/.build-id/$pre/${id#??}.debug"
            " && strip --strip-debug -o sv_bid_stripped sv_bid",
            workdir);
   CHECK(system(cmd) == 0);
   char stripped[4300], dbg[4300];
   snprintf(stripped, sizeof stripped, "%s/sv_bid_stripped", workdir);
   snprintf(dbg, sizeof dbg, "%s/dbg", workdir);
   stackvars_var *v = NULL, *s = NULL;
   size_t n = 0, ns = 0;
   char err[STACKVARS_ERRLEN];
   CHECK_EQ(stackvars_find(bin, 0, STACKVARS_NO_BIAS, dbg, &v, &n, err, sizeof err),
            STACKVARS_OK);
   CHECK_EQ(stackvars_find(stripped, 0, STACKVARS_NO_BIAS, dbg, &s, &ns, err,
                           sizeof err),
            STACKVARS_OK);
   CHECK(n == 3 && ns == n);
   for (size_t i = 0; i < n && i < ns; i++) {
      CHECK_EQ(s[i].fn_entry, v[i].fn_entry);
      CHECK_EQ(s[i].cfa_offset, v[i].cfa_offset);
      CHECK_EQ(s[i].size, v[i].size);
   }
   stackvars_free(v, n);
   stackvars_free(s, ns);
   /* Elsewhere there is no debug file: an empty answer. */
   snprintf(dbg, sizeof dbg, "%s/no-such-dir", workdir);
   s = (stackvars_var *)1;
   CHECK_EQ(stackvars_find(stripped, 0, STACKVARS_NO_BIAS, dbg, &s, &ns, err,
                           sizeof err),
            STACKVARS_ENODEBUG);
   CHECK(s == NULL && ns == 0);
}

static void test_no_debug_info(void)
{
   char bin[4200];
   CHECK(compile("nodebug", "-O0", bin, sizeof bin) == 0);
   stackvars_var *v = (stackvars_var *)1;
   size_t n = 5;
   char err[STACKVARS_ERRLEN], dbg[4300];
   snprintf(dbg, sizeof dbg, "%s/no-such-dir", workdir);
   CHECK_EQ(stackvars_find(bin, 0, STACKVARS_NO_BIAS, dbg, &v, &n, err, sizeof err),
            STACKVARS_ENODEBUG);
   CHECK(v == NULL && n == 0);
   if (helper) {
      uint64_t entry, text = 0;
      symbol_value(bin, "work", &entry, &text);
      check_helper(bin, text, NULL, 0);
   }
}

static void test_not_elf(void)
{
   stackvars_var *v = (stackvars_var *)1;
   size_t n = 5;
   char err[STACKVARS_ERRLEN];
   CHECK_EQ(stackvars_find("/etc/passwd", 0, 0, NULL, &v, &n, err, sizeof err),
            STACKVARS_ENOTELF);
   CHECK(v == NULL && n == 0);
   CHECK_EQ(stackvars_find("/nonexistent", 0, 0, NULL, &v, &n, err, sizeof err),
            STACKVARS_EOPEN);
   CHECK(v == NULL && n == 0);
   if (helper)
      check_helper("/etc/passwd", 0, NULL, 0);
}

/* gfortran: explicit-shape local arrays, lower bounds 1 or given. */
static void test_fortran(void)
{
   if (system("gfortran --version >/dev/null 2>&1") != 0) {
      fprintf(stderr, "  test_fortran: no gfortran, skipped\n");
      return;
   }
   char src[4200], obj[4200], cmd[9000];
   snprintf(src, sizeof src, "%s/sv_f.f90", workdir);
   snprintf(obj, sizeof obj, "%s/sv_f.o", workdir);
   CHECK(write_file(src, fortran_source) == 0);
   for (int opt = 0; opt <= 2; opt += 2) {
      snprintf(cmd, sizeof cmd, "gfortran -O%d -g -c -o '%s' '%s'", opt,
               obj, src);
      CHECK(system(cmd) == 0);
      stackvars_var *v = NULL;
      size_t n = 0;
      char err[STACKVARS_ERRLEN];
      CHECK_EQ(stackvars_find(obj, 0, STACKVARS_NO_BIAS, NULL, &v, &n, err, sizeof err),
               STACKVARS_OK);
      CHECK_EQ(n, 4);
      static const struct { const char *name; uint64_t size; } want[] = {
         { "a", 800 }, { "b", 96 }, { "k", 40 }, { "names", 40 },
      };
      for (int i = 0; i < 4 && n > 0; i++) {
         const stackvars_var *x = find_var(v, n, v[0].fn_entry, want[i].name);
         CHECK(x != NULL);
         if (x)
            CHECK_EQ(x->size, want[i].size);
      }
      stackvars_free(v, n);
   }
}

int main(int argc, char **argv)
{
   if (argc != 2 && argc != 3) {
      fprintf(stderr, "usage: test_stackvars WORKDIR [HELPER]\n");
      return 2;
   }
   workdir = argv[1];
   helper = argc == 3 ? argv[2] : NULL;
   signal(SIGPIPE, SIG_IGN);
   RUN(test_O0_dwarf4);
   RUN(test_O0_dwarf5);
   RUN(test_O2_dwarf4);
   RUN(test_O2_dwarf5);
   RUN(test_build_id);
   RUN(test_no_debug_info);
   RUN(test_not_elf);
   RUN(test_fortran);
   return chk_failed ? 1 : 0;
}
