/* test_loops.c: the static loop finder on code compiled at test time.
 *
 * usage: test_loops WORKDIR      (compiler: $CC, default gcc)
 *
 * kernel() below has two nested do-while loops and an `if` in the inner
 * one. do-while keeps the compiler from adding "loop entered at all?"
 * guards (which are conditionals too), and the asm barrier in the `if`
 * body keeps it a branch rather than a conditional move, so the expected
 * structure at -O0 and -O2 is exactly: 2 nested loops and 1 conditional
 * inside the inner loop. (At -O1/-O3 GCC duplicates latches and moves
 * blocks out of line, which address ranges cannot describe exactly.) */
#define _POSIX_C_SOURCE 200809L

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../cats/host/loops.h"
#include "check.h"

CHECK_DEFINE_GLOBALS;

static const char *workdir;

static const char source[] =
   "#include <stdlib.h>\n"
   "__attribute__((noinline)) long kernel(const long *a, int n, int m)\n"
   "{\n"
   "   long s = 0;\n"
   "   int i = 0;\n"
   "   do {\n"
   "      int j = 0;\n"
   "      do {\n"
   "         long v = a[i * m + j];\n"
   "         if (v & 1) {\n"
   "            __asm__ volatile(\"\" ::: \"memory\");\n"
   "            s += v * 3;\n"
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

/* Address range of a function symbol and the .text address. */
static int symbol_range(const char *path, const char *name, uint64_t *lo,
                        uint64_t *hi, uint64_t *text)
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
               *lo = s.st_value;
               *hi = s.st_value + s.st_size;
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

static int contains(const clp_range *outer, const clp_range *inner)
{
   return outer->start <= inner->start && inner->end <= outer->end &&
          !(outer->start == inner->start && outer->end == inner->end);
}

static void check_binary(const char *bin)
{
   uint64_t lo = 0, hi = 0, text = 0;
   CHECK(symbol_range(bin, "kernel", &lo, &hi, &text) == 0);
   clp_range *r = NULL;
   size_t n = 0;
   char err[CLP_ERRLEN];
   CHECK_EQ(clp_find(bin, 0, CLP_NO_BIAS, &r, &n, err, sizeof err), CLP_OK);

   const clp_range *loops[8], *conds[8];
   int nl = 0, nc = 0;
   for (size_t i = 0; i < n; i++) {
      if (i > 0)
         CHECK(r[i - 1].start < r[i].start ||
               (r[i - 1].start == r[i].start && r[i - 1].end >= r[i].end));
      if (r[i].start < lo || r[i].end > hi)
         continue;
      if (r[i].kind == CLP_LOOP && nl < 8)
         loops[nl++] = &r[i];
      else if (r[i].kind == CLP_CONDITIONAL && nc < 8)
         conds[nc++] = &r[i];
   }
   CHECK_EQ(nl, 2);
   CHECK_EQ(nc, 1);
   if (nl == 2 && nc == 1) {
      /* Sorted outer first: loops[0] holds loops[1] holds the `if`. */
      CHECK(contains(loops[0], loops[1]));
      CHECK(contains(loops[1], conds[0]));
   }
   if (chk_failures)
      for (size_t i = 0; i < n; i++)
         if (r[i].start >= lo && r[i].end <= hi)
            fprintf(stderr, "  %s: 0x%llx-0x%llx kind %u\n", bin,
                    (unsigned long long)r[i].start,
                    (unsigned long long)r[i].end, r[i].kind);

   /* With a load address the same ranges come out shifted by the bias. */
   clp_range *b = NULL;
   size_t nb = 0;
   uint64_t bias = 0x7f0000000000ull;
   CHECK_EQ(clp_find(bin, text + bias, 0, &b, &nb, err, sizeof err), CLP_OK);
   CHECK_EQ(nb, n);
   for (size_t i = 0; i < n && i < nb; i++) {
      CHECK_EQ(b[i].start, r[i].start + bias);
      CHECK_EQ(b[i].end, r[i].end + bias);
      CHECK_EQ(b[i].kind, r[i].kind);
   }
   free(b);
   free(r);
}

static int compile(const char *opt, char *bin, size_t binlen)
{
   char src[4096], cmd[9000];
   snprintf(src, sizeof src, "%s/loops_src.c", workdir);
   snprintf(bin, binlen, "%s/loops_%s", workdir, opt + 1);
   FILE *f = fopen(src, "w");
   if (!f)
      return -1;
   fputs(source, f);
   fclose(f);
   const char *cc = getenv("CC");
   snprintf(cmd, sizeof cmd, "%s %s -o '%s' '%s'", cc && cc[0] ? cc : "gcc",
            opt, bin, src);
   return system(cmd) == 0 ? 0 : -1;
}

static void test_loops_O0(void)
{
   char bin[4200];
   CHECK(compile("-O0", bin, sizeof bin) == 0);
   check_binary(bin);
}

static void test_loops_O2(void)
{
   char bin[4200];
   CHECK(compile("-O2", bin, sizeof bin) == 0);
   check_binary(bin);
}

static void test_not_elf(void)
{
   clp_range *r = (clp_range *)1;
   size_t n = 5;
   char err[CLP_ERRLEN];
   CHECK(clp_find("/etc/passwd", 0, 0, &r, &n, err, sizeof err) ==
         CLP_ENOTELF);
   CHECK(r == NULL && n == 0);
   CHECK(clp_find("/nonexistent", 0, 0, &r, &n, err, sizeof err) ==
         CLP_EOPEN);
}

int main(int argc, char **argv)
{
   if (argc != 2) {
      fprintf(stderr, "usage: test_loops WORKDIR\n");
      return 2;
   }
   workdir = argv[1];
   RUN(test_loops_O0);
   RUN(test_loops_O2);
   RUN(test_not_elf);
   return chk_failed ? 1 : 0;
}
