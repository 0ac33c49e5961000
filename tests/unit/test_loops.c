/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_loops.c: the static loop finder on code compiled at test time.
 *
 * usage: test_loops WORKDIR      (compilers: $CC, default gcc; $CXX,
 *                                 default g++)
 *
 * Each program marks the code of interest with calls to noinline marker
 * functions; the test finds those call instructions with capstone and
 * asks which region the finder put them in:
 *   nested    two nested do-while loops with an if/else in the inner one:
 *             at -O0 and -O2 exactly 2 loops and 1 conditional holding
 *             both arms (at -O2 GCC copies the latch into both arms); at
 *             -O3 the arms still sit in a loop nested in a loop;
 *   cold      an unlikely `if` body GCC -O2 places after the function's
 *             ret: it still belongs to the loop;
 *   catch     a C++ try/catch in a loop: the catch code (at -O2 in the
 *             function's .cold part, entered by a landing pad no branch
 *             reaches) belongs to the loop;
 *   bottom    a -O0 `for` loop with its test at the bottom: the loop
 *             covers the test, which is its header. */
#define _POSIX_C_SOURCE 200809L

#include <capstone/capstone.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cats/binary/loops.h"
#include "check.h"

CHECK_DEFINE_GLOBALS;

static const char *workdir;

static const char nested_src[] =
   "__attribute__((noinline, noipa)) void then_marker(long v)\n"
   "{ __asm__ volatile(\"\" :: \"r\"(v)); }\n"
   "__attribute__((noinline, noipa)) void else_marker(long v)\n"
   "{ __asm__ volatile(\"\" :: \"r\"(v)); }\n"
   "__attribute__((noinline)) long kernel(const long *a, int n, int m)\n"
   "{\n"
   "   long s = 0;\n"
   "   int i = 0;\n"
   "   do {\n"
   "      int j = 0;\n"
   "      do {\n"
   "         long v = a[i * m + j];\n"
   "         if (v & 1) {\n"
   "            then_marker(v);\n"
   "            s += v * 3;\n"
   "         } else {\n"
   "            else_marker(v);\n"
   "            s -= v;\n"
   "         }\n"
   "         s ^= v;\n"
   "      } while (++j < m);\n"
   "      s += i;\n"
   "   } while (++i < n);\n"
   "   return s;\n"
   "}\n"
   "int main(int argc, char **argv)\n"
   "{\n"
   "   (void)argv;\n"
   "   long a[16] = { 1, 2, 3 };\n"
   "   return (int)kernel(a, argc, 4);\n"
   "}\n";

static const char cold_src[] =
   "__attribute__((noinline, noipa)) void cold_marker(long v)\n"
   "{ __asm__ volatile(\"\" :: \"r\"(v)); }\n"
   "__attribute__((noinline)) long loopfn(const long *a, int n)\n"
   "{\n"
   "   long s = 0;\n"
   "   for (int i = 0; i < n; i++) {\n"
   "      long v = a[i];\n"
   "      if (__builtin_expect(v == 12345, 0)) {\n"
   "         cold_marker(v);\n"
   "         s += 7;\n"
   "      }\n"
   "      s += v * v;\n"
   "   }\n"
   "   return s;\n"
   "}\n"
   "int main(int argc, char **argv)\n"
   "{\n"
   "   (void)argv;\n"
   "   long a[8] = { 1, 2 };\n"
   "   return (int)loopfn(a, argc);\n"
   "}\n";

static const char catch_src[] =
   "__attribute__((noinline, noipa)) void may_throw(int i)\n"
   "{ if (i == 3) throw i; }\n"
   "__attribute__((noinline, noipa)) void handler_marker()\n"
   "{ __asm__ volatile(\"\"); }\n"
   "__attribute__((noinline)) int work(int n)\n"
   "{\n"
   "   int s = 0;\n"
   "   for (int i = 0; i < n; i++) {\n"
   "      try {\n"
   "         may_throw(i);\n"
   "         s += i;\n"
   "      } catch (...) {\n"
   "         handler_marker();\n"
   "         s--;\n"
   "      }\n"
   "   }\n"
   "   return s;\n"
   "}\n"
   "int main(int argc, char **) { return work(argc + 5); }\n";

static const char bottom_src[] =
   "__attribute__((noinline)) long sumfn(const long *a, int n)\n"
   "{\n"
   "   long s = 0;\n"
   "   for (int i = 0; i < n; i++)\n"
   "      s += a[i];\n"
   "   return s;\n"
   "}\n"
   "int main(int argc, char **argv)\n"
   "{\n"
   "   (void)argv;\n"
   "   long a[8] = { 1, 2 };\n"
   "   return (int)sumfn(a, argc);\n"
   "}\n";

/* ---- the compiled objects --------------------------------------------- */

/* Compile src (C++ if cxx) at opt into WORKDIR/name_opt. */
/* A CSR-style nest: the inner loop's bounds come from memory, so at -O2
 * gcc guards the rotated inner loop with "start < end". */
static const char guard_src[] =
   "__attribute__((noinline)) double csr(const int *rp, const double *v,\n"
   "                                     int n)\n"
   "{\n"
   "   double s = 0;\n"
   "   for (int i = 0; i < n; i++)\n"
   "      for (int k = rp[i]; k < rp[i + 1]; k++)\n"
   "         s += v[k];\n"
   "   return s;\n"
   "}\n"
   "int main(int argc, char **argv)\n"
   "{\n"
   "   static int rp[4] = {0, 2, 2, 5};\n"
   "   static double v[5];\n"
   "   (void)argv;\n"
   "   return (int)csr(rp, v, argc + 2);\n"
   "}\n";

static int compile(const char *src, int cxx, const char *name,
                   const char *opt, char *bin, size_t binlen)
{
   char path[4096], cmd[9000];
   snprintf(path, sizeof path, "%s/%s_src.%s", workdir, name,
            cxx ? "cc" : "c");
   snprintf(bin, binlen, "%s/%s_%s", workdir, name, opt + 1);
   FILE *f = fopen(path, "w");
   if (!f)
      return -1;
   fputs(src, f);
   fclose(f);
   const char *cc = getenv(cxx ? "CXX" : "CC");
   if (!cc || !cc[0])
      cc = cxx ? "g++" : "gcc";
   snprintf(cmd, sizeof cmd, "%s %s -o '%s' '%s'", cc, opt, bin, path);
   return system(cmd) == 0 ? 0 : -1;
}

/* A function symbol with its bytes (malloc'd). */
typedef struct tl_sym {
   char name[256];
   uint64_t addr, size;
   uint8_t *code;
} tl_sym;

typedef struct tl_obj {
   tl_sym *syms;
   size_t n;
   uint64_t text;   /* .text sh_addr */
} tl_obj;

static void obj_free(tl_obj *o)
{
   for (size_t i = 0; i < o->n; i++)
      free(o->syms[i].code);
   free(o->syms);
   memset(o, 0, sizeof *o);
}

/* The defined function symbols of bin with their code. */
static int obj_load(const char *bin, tl_obj *o)
{
   memset(o, 0, sizeof *o);
   elf_version(EV_CURRENT);
   int fd = open(bin, O_RDONLY);
   if (fd < 0)
      return -1;
   Elf *e = elf_begin(fd, ELF_C_READ, NULL);
   size_t shstrndx;
   Elf_Scn *scn = NULL;
   if (e && elf_getshdrstrndx(e, &shstrndx) == 0) {
      while ((scn = elf_nextscn(e, scn)) != NULL) {
         GElf_Shdr sh;
         gelf_getshdr(scn, &sh);
         const char *sn = elf_strptr(e, shstrndx, sh.sh_name);
         if (sn && strcmp(sn, ".text") == 0)
            o->text = sh.sh_addr;
         if (sh.sh_type != SHT_SYMTAB)
            continue;
         Elf_Data *d = elf_getdata(scn, NULL);
         for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
            GElf_Sym s;
            gelf_getsym(d, (int)i, &s);
            const char *name = elf_strptr(e, sh.sh_link, s.st_name);
            GElf_Shdr fsh;
            Elf_Scn *fs = elf_getscn(e, s.st_shndx);
            Elf_Data *fd2 = fs ? elf_getdata(fs, NULL) : NULL;
            if (!name || GELF_ST_TYPE(s.st_info) != STT_FUNC ||
                s.st_size == 0 || !fd2 || !gelf_getshdr(fs, &fsh) ||
                s.st_value < fsh.sh_addr ||
                s.st_value - fsh.sh_addr + s.st_size > fd2->d_size)
               continue;
            tl_sym *n = realloc(o->syms, (o->n + 1) * sizeof *n);
            if (!n)
               break;
            o->syms = n;
            tl_sym *t = &o->syms[o->n];
            snprintf(t->name, sizeof t->name, "%s", name);
            t->addr = s.st_value;
            t->size = s.st_size;
            t->code = malloc(s.st_size);
            if (!t->code)
               break;
            memcpy(t->code,
                   (uint8_t *)fd2->d_buf + (s.st_value - fsh.sh_addr),
                   s.st_size);
            o->n++;
         }
      }
   }
   if (e)
      elf_end(e);
   close(fd);
   return o->n ? 0 : -1;
}

static const tl_sym *obj_sym(const tl_obj *o, const char *name)
{
   for (size_t i = 0; i < o->n; i++)
      if (strcmp(o->syms[i].name, name) == 0)
         return &o->syms[i];
   return NULL;
}

/* An instruction found by find_insn. */
typedef struct tl_insn {
   uint64_t addr, size;
   uint64_t target;   /* immediate operand of a branch, else 0 */
} tl_insn;

static uint64_t imm_operand(const cs_insn *in);

/* Disassemble function `fn`; return the address of its first instruction
 * for which want() holds (0 if none), described in *out if out. */
typedef int (*tl_pred)(const cs_insn *in, uint64_t arg);

static uint64_t find_insn(const tl_sym *fn, tl_pred want, uint64_t arg,
                          tl_insn *out)
{
   csh cs;
   uint64_t found = 0;
   if (!fn || cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK)
      return 0;
   cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON);
   cs_insn *in = cs_malloc(cs);
   const uint8_t *code = fn->code;
   size_t size = fn->size;
   uint64_t addr = fn->addr;
   while (in && !found && cs_disasm_iter(cs, &code, &size, &addr, in))
      if (want(in, arg)) {
         found = in->address;
         if (out)
            *out = (tl_insn){ in->address, in->size, imm_operand(in) };
      }
   if (in)
      cs_free(in, 1);
   cs_close(&cs);
   return found;
}

static uint64_t imm_operand(const cs_insn *in)
{
   const cs_x86 *d = &in->detail->x86;
   if (d->op_count == 1 && d->operands[0].type == X86_OP_IMM)
      return (uint64_t)d->operands[0].imm;
   return 0;
}

static int is_call_to(const cs_insn *in, uint64_t target)
{
   return in->id == X86_INS_CALL && imm_operand(in) == target;
}

/* The call to `callee` in the function `caller` or its .cold part. */
static uint64_t call_site(const tl_obj *o, const char *caller,
                          const char *callee)
{
   const tl_sym *to = obj_sym(o, callee);
   char cold[300];
   snprintf(cold, sizeof cold, "%s.cold", caller);
   if (!to)
      return 0;
   uint64_t a = find_insn(obj_sym(o, caller), is_call_to, to->addr, NULL);
   if (!a)
      a = find_insn(obj_sym(o, cold), is_call_to, to->addr, NULL);
   return a;
}

/* ---- the finder's answer ---------------------------------------------- */

/* Ranges sorted and disjoint, indices in bounds, parents first. */
static void check_shape(const loops_result *r)
{
   for (size_t i = 0; i < r->nranges; i++) {
      CHECK(r->ranges[i].start < r->ranges[i].end);
      CHECK(r->ranges[i].region < r->nregions);
      if (i > 0)
         CHECK(r->ranges[i - 1].end <= r->ranges[i].start);
   }
   for (size_t i = 0; i < r->nregions; i++) {
      CHECK(r->regions[i].kind == LOOPS_LOOP ||
            r->regions[i].kind == LOOPS_CONDITIONAL);
      CHECK(r->regions[i].parent == LOOPS_NONE || r->regions[i].parent < i);
      CHECK(r->regions[i].name < r->names_len);
   }
}

/* The innermost region at addr, or LOOPS_NONE. */
static uint32_t region_at(const loops_result *r, uint64_t addr)
{
   long i = loops_range_at(r, addr);
   return i < 0 ? LOOPS_NONE : r->ranges[i].region;
}

/* Loops in the chain of region g (g included). */
static int loop_depth(const loops_result *r, uint32_t g)
{
   int d = 0;
   for (; g != LOOPS_NONE; g = r->regions[g].parent)
      d += r->regions[g].kind == LOOPS_LOOP;
   return d;
}

/* The innermost loop in the chain of g, or LOOPS_NONE. */
static uint32_t loop_of(const loops_result *r, uint32_t g)
{
   while (g != LOOPS_NONE && r->regions[g].kind != LOOPS_LOOP)
      g = r->regions[g].parent;
   return g;
}

static void dump(const char *bin, const loops_result *r, uint64_t func)
{
   for (size_t i = 0; i < r->nregions; i++)
      if (r->regions[i].func == func)
         fprintf(stderr, "  %s: region %zu kind %u header 0x%llx parent "
                 "%d\n", bin, i, r->regions[i].kind,
                 (unsigned long long)r->regions[i].header,
                 (int)r->regions[i].parent);
   for (size_t i = 0; i < r->nranges; i++)
      if (r->regions[r->ranges[i].region].func == func)
         fprintf(stderr, "  %s: 0x%llx-0x%llx region %u\n", bin,
                 (unsigned long long)r->ranges[i].start,
                 (unsigned long long)r->ranges[i].end, r->ranges[i].region);
}

/* Find the regions of bin (bias 0), load its symbols. */
static int analyse(const char *bin, tl_obj *o, loops_result *r)
{
   char err[LOOPS_ERRLEN];
   int ok = obj_load(bin, o) == 0;
   CHECK(ok);
   loops_status st = loops_find(bin, 0, LOOPS_NO_BIAS, r, err, sizeof err);
   CHECK_EQ(st, LOOPS_OK);
   if (st != LOOPS_OK)
      fprintf(stderr, "  %s: %s\n", bin, err);
   check_shape(r);
   return ok && st == LOOPS_OK ? 0 : -1;
}

/* ---- the tests -------------------------------------------------------- */

static void check_nested(const char *opt)
{
   char bin[4200];
   CHECK(compile(nested_src, 0, "nested", opt, bin, sizeof bin) == 0);
   tl_obj o;
   loops_result r;
   if (analyse(bin, &o, &r) != 0) {
      obj_free(&o);
      loops_result_free(&r);
      return;
   }
   const tl_sym *k = obj_sym(&o, "kernel");
   CHECK(k != NULL);
   uint64_t fn = k ? k->addr : 0;
   uint64_t then_at = call_site(&o, "kernel", "then_marker");
   uint64_t else_at = call_site(&o, "kernel", "else_marker");
   CHECK(then_at != 0 && else_at != 0);
   uint32_t gt = region_at(&r, then_at), ge = region_at(&r, else_at);
   int nl = 0, nc = 0;
   for (size_t i = 0; i < r.nregions; i++)
      if (r.regions[i].func == fn)
         r.regions[i].kind == LOOPS_LOOP ? nl++ : nc++;
   if (strcmp(opt, "-O3") != 0) {
      CHECK_EQ(nl, 2);
      CHECK_EQ(nc, 1);
      /* Both arms are the one conditional, inside the inner loop. */
      CHECK(gt != LOOPS_NONE && gt == ge);
      if (gt != LOOPS_NONE) {
         CHECK_EQ(r.regions[gt].kind, LOOPS_CONDITIONAL);
         CHECK_EQ(loop_depth(&r, gt), 2);
         CHECK_EQ(r.regions[gt].parent, loop_of(&r, r.regions[gt].parent));
      }
   } else {
      CHECK(nl >= 2);
      CHECK(gt != LOOPS_NONE && ge != LOOPS_NONE);
      if (gt != LOOPS_NONE && ge != LOOPS_NONE) {
         CHECK_EQ(loop_depth(&r, gt), 2);
         CHECK_EQ(loop_depth(&r, ge), 2);
         CHECK_EQ(loop_of(&r, gt), loop_of(&r, ge));
      }
   }
   if (chk_failures)
      dump(bin, &r, fn);

   /* With a load address the same answer comes out shifted by the bias. */
   loops_result b;
   char err[LOOPS_ERRLEN];
   uint64_t bias = 0x7f0000000000ull;
   CHECK_EQ(loops_find(bin, o.text + bias, 0, &b, err, sizeof err), LOOPS_OK);
   CHECK_EQ(b.nregions, r.nregions);
   CHECK_EQ(b.nranges, r.nranges);
   for (size_t i = 0; i < r.nregions && i < b.nregions; i++) {
      CHECK_EQ(b.regions[i].header, r.regions[i].header + bias);
      CHECK_EQ(b.regions[i].parent, r.regions[i].parent);
      CHECK_EQ(b.regions[i].kind, r.regions[i].kind);
   }
   for (size_t i = 0; i < r.nranges && i < b.nranges; i++) {
      CHECK_EQ(b.ranges[i].start, r.ranges[i].start + bias);
      CHECK_EQ(b.ranges[i].end, r.ranges[i].end + bias);
      CHECK_EQ(b.ranges[i].region, r.ranges[i].region);
   }
   loops_result_free(&b);
   loops_result_free(&r);
   obj_free(&o);
}

static void test_nested_O0(void) { check_nested("-O0"); }
static void test_nested_O2(void) { check_nested("-O2"); }
static void test_nested_O3(void) { check_nested("-O3"); }

/* The call to marker in fn (or fn.cold) lies in a loop of fn. */
static void check_marker_in_loop(const char *src, int cxx, const char *name,
                                 const char *opt, const char *fn,
                                 const char *marker)
{
   char bin[4200];
   CHECK(compile(src, cxx, name, opt, bin, sizeof bin) == 0);
   tl_obj o;
   loops_result r;
   if (analyse(bin, &o, &r) == 0) {
      const tl_sym *f = obj_sym(&o, fn);
      uint64_t site = call_site(&o, fn, marker);
      CHECK(f != NULL && site != 0);
      uint32_t l = loop_of(&r, region_at(&r, site));
      CHECK(l != LOOPS_NONE);
      if (l != LOOPS_NONE && f)
         CHECK_EQ(r.regions[l].func, f->addr);
      if (chk_failures && f)
         dump(bin, &r, f->addr);
   }
   loops_result_free(&r);
   obj_free(&o);
}

static void test_cold_O2(void)
{
   check_marker_in_loop(cold_src, 0, "cold", "-O2", "loopfn",
                        "cold_marker");
}

static void test_cold_O3(void)
{
   check_marker_in_loop(cold_src, 0, "cold", "-O3", "loopfn",
                        "cold_marker");
}

static void test_catch_O0(void)
{
   check_marker_in_loop(catch_src, 1, "catch", "-O0", "_Z4worki",
                        "_Z14handler_markerv");
}

static void test_catch_O2(void)
{
   check_marker_in_loop(catch_src, 1, "catch", "-O2", "_Z4worki",
                        "_Z14handler_markerv");
}

static int is_backward_jcc(const cs_insn *in, uint64_t arg)
{
   (void)arg;
   uint64_t t = imm_operand(in);
   return in->id != X86_INS_JMP && in->id != X86_INS_CALL && t != 0 &&
          t < in->address;
}

static int is_forward_jmp(const cs_insn *in, uint64_t arg)
{
   (void)arg;
   return in->id == X86_INS_JMP && imm_operand(in) > in->address;
}

/* gcc -O0: jmp TEST; BODY: ...; TEST: cmp; jl BODY. The loop is headed by
 * TEST and holds everything from BODY to the jl. */
static void test_bottom_O0(void)
{
   char bin[4200];
   CHECK(compile(bottom_src, 0, "bottom", "-O0", bin, sizeof bin) == 0);
   tl_obj o;
   loops_result r;
   if (analyse(bin, &o, &r) == 0) {
      const tl_sym *f = obj_sym(&o, "sumfn");
      tl_insn jmp, jcc;
      uint64_t ja = find_insn(f, is_forward_jmp, 0, &jmp);
      uint64_t ca = find_insn(f, is_backward_jcc, 0, &jcc);
      CHECK(f && ja && ca);
      uint32_t l = ca ? region_at(&r, ca) : LOOPS_NONE;
      CHECK(l != LOOPS_NONE && r.regions[l].kind == LOOPS_LOOP);
      if (f && ja && ca && l != LOOPS_NONE) {
         /* The header is the test the first jmp goes to. */
         uint64_t test_at = jmp.target;
         CHECK_EQ(r.regions[l].header, test_at);
         /* Body and test: one region from the jl's target to its end. */
         uint64_t lo = ja + jmp.size, hi = ca + jcc.size;
         for (uint64_t a = lo; a < hi; a++)
            if (region_at(&r, a) != l) {
               CHECK(!"address of the loop outside it");
               fprintf(stderr, "  0x%llx\n", (unsigned long long)a);
               break;
            }
      }
      if (chk_failures && f)
         dump(bin, &r, f->addr);
   }
   loops_result_free(&r);
   obj_free(&o);
}

static void test_not_elf(void)
{
   loops_result r;
   r.nregions = 5;
   char err[LOOPS_ERRLEN];
   CHECK(loops_find("/etc/passwd", 0, 0, &r, err, sizeof err) ==
         LOOPS_ENOTELF);
   CHECK(r.regions == NULL && r.nregions == 0 && r.ranges == NULL &&
         r.nranges == 0);
   CHECK(loops_find("/nonexistent", 0, 0, &r, err, sizeof err) ==
         LOOPS_EOPEN);
}

/* A large object: the answer keeps its shape. */
static void test_libc(void)
{
   const char *libc = "/lib/x86_64-linux-gnu/libc.so.6";
   if (access(libc, R_OK) != 0)
      return;
   loops_result r;
   char err[LOOPS_ERRLEN];
   CHECK_EQ(loops_find(libc, 0x400000, 0, &r, err, sizeof err), LOOPS_OK);
   CHECK(r.nregions > 100);
   check_shape(&r);
   loops_result_free(&r);
}

/* The "is the loop entered at all?" guard of a rotated loop is not a
 * conditional scope: -O0 and -O2 give the same two nested loops. */
static void check_guard(const char *opt)
{
   char bin[4200];
   CHECK(compile(guard_src, 0, "guard", opt, bin, sizeof bin) == 0);
   tl_obj o;
   loops_result r;
   if (analyse(bin, &o, &r) == 0) {
      const tl_sym *k = obj_sym(&o, "csr");
      CHECK(k != NULL);
      int nl = 0, nc = 0;
      for (size_t i = 0; k && i < r.nregions; i++)
         if (r.regions[i].func == k->addr)
            r.regions[i].kind == LOOPS_LOOP ? nl++ : nc++;
      CHECK_EQ(nl, 2);
      CHECK_EQ(nc, 0);
   }
   loops_result_free(&r);
   obj_free(&o);
}

static void test_guard_O0(void) { check_guard("-O0"); }
static void test_guard_O2(void) { check_guard("-O2"); }

int main(int argc, char **argv)
{
   if (argc != 2) {
      fprintf(stderr, "usage: test_loops WORKDIR\n");
      return 2;
   }
   workdir = argv[1];
   RUN(test_nested_O0);
   RUN(test_nested_O2);
   RUN(test_nested_O3);
   RUN(test_cold_O2);
   RUN(test_cold_O3);
   RUN(test_catch_O0);
   RUN(test_catch_O2);
   RUN(test_bottom_O0);
   RUN(test_guard_O0);
   RUN(test_guard_O2);
   RUN(test_not_elf);
   RUN(test_libc);
   return chk_failed ? 1 : 0;
}
