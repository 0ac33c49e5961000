/* loops.c: static loop and conditional finder (see loops.h).
 *
 * Cost: one linear disassembly of every function (capstone with details,
 * needed for the jump group and the immediate target), then per function
 * O(J log J) in its number of jumps J: candidates are sorted and filtered
 * for proper nesting with a stack sweep. Scratch arrays are reused across
 * functions so a large object (libc: ~2 MB of text) costs few allocations.
 * Nothing is cached between calls. */
#define _POSIX_C_SOURCE 200809L

#include "loops.h"

#include <capstone/capstone.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Loop candidates remember whether their back edge is conditional in the
 * kind field until nesting is settled (see keep_nested). */
#define CLP_LOOP_UNCOND (0x80 | CLP_LOOP)

/* A direct jump inside the function being analysed. */
typedef struct clp_jump {
   uint64_t addr;    /* address of the jump */
   uint64_t next;    /* address after it */
   uint64_t target;
   int cond;         /* conditional (jcc, jrcxz, loop*) */
} clp_jump;

/* A function: [start, start + size) with its bytes. */
typedef struct clp_func {
   uint64_t start;
   uint64_t size;
   const uint8_t *code;
} clp_func;

/* A growable array of some element type; kept generic by size. */
typedef struct clp_vec {
   void *v;
   size_t n, cap, elem;
} clp_vec;

/* Everything one clp_find call works with. */
typedef struct clp_ctx {
   csh cs;
   cs_insn *insn;
   clp_vec funcs;    /* clp_func */
   clp_vec jumps;    /* clp_jump of the current function */
   clp_vec loops;    /* clp_range candidates, then accepted loops */
   clp_vec conds;    /* clp_range candidates, then accepted conditionals */
   clp_vec stack;    /* size_t scratch stack of keep_nested */
   clp_vec open;     /* clp_range: loops around the current jump */
   clp_vec out;      /* clp_range results */
} clp_ctx;

static clp_status fail(char *err, size_t errlen, clp_status st,
                       const char *fmt, ...)
   __attribute__((format(printf, 4, 5)));

static clp_status fail(char *err, size_t errlen, clp_status st,
                       const char *fmt, ...)
{
   if (err && errlen > 0) {
      va_list ap;
      va_start(ap, fmt);
      vsnprintf(err, errlen, fmt, ap);
      va_end(ap);
   }
   return st;
}

static void *vec_push(clp_vec *a)
{
   if (a->n == a->cap) {
      size_t cap = a->cap ? a->cap * 2 : 64;
      void *p = realloc(a->v, cap * a->elem);
      if (!p)
         return NULL;
      a->v = p;
      a->cap = cap;
   }
   return (char *)a->v + a->elem * a->n++;
}

static int cmp_range(const void *pa, const void *pb)
{
   const clp_range *a = pa, *b = pb;
   if (a->start != b->start)
      return a->start < b->start ? -1 : 1;
   if (a->end != b->end)
      return a->end > b->end ? -1 : 1;   /* outer first */
   return (a->kind > b->kind) - (a->kind < b->kind);
}

/* qsort of a vector; an empty vector may have no storage (NULL), which
 * qsort must not be given. */
static void vec_sort(clp_vec *a, int (*cmp)(const void *, const void *))
{
   if (a->n > 1)
      qsort(a->v, a->n, a->elem, cmp);
}

static int cmp_func(const void *pa, const void *pb)
{
   const clp_func *a = pa, *b = pb;
   if (a->start != b->start)
      return a->start < b->start ? -1 : 1;
   return (a->size < b->size) - (a->size > b->size); /* largest first */
}

static int nests(const clp_range *a, const clp_range *b)
{
   return a->end <= b->start || b->end <= a->start ||
          (a->start <= b->start && b->end <= a->end) ||
          (b->start <= a->start && a->end <= b->end);
}

/* Make sorted `v` properly nested. Exact duplicates are dropped. A range
 * partially overlapping an earlier one is dropped too, unless `merge` and
 * it is a loop closed by a conditional back edge: then the earlier range is
 * extended to cover it. Two conditional back edges whose ranges interleave
 * belong to one loop laid out around its header (e.g. a latch the compiler
 * copied into both arms of an if); an unconditional backward jmp that
 * interleaves is usually the way back from an out-of-line cold block, and
 * merging it would swallow unrelated code. The stack holds
 * the indices of kept ranges that contain the current start, innermost on
 * top; extending a range extends its enclosing ones as needed, so the kept
 * set stays nested. */
static clp_status keep_nested(clp_vec *v, clp_vec *stack, int merge)
{
   clp_range *r = v->v;
   size_t kept = 0;
   stack->n = 0;
   for (size_t i = 0; i < v->n; i++) {
      clp_range c = r[i];
      size_t *st = stack->v;
      while (stack->n > 0 && r[st[stack->n - 1]].end <= c.start)
         stack->n--;
      if (stack->n > 0) {
         clp_range *top = &r[st[stack->n - 1]];
         if (c.start == top->start && c.end == top->end)
            continue;
         if (c.end > top->end) {
            if (!merge || c.kind == CLP_LOOP_UNCOND)
               continue;   /* partial overlap: the earlier range wins */
            top->end = c.end;
            for (size_t k = stack->n - 1; k-- > 0;)
               if (r[st[k]].end < r[st[k + 1]].end)
                  r[st[k]].end = r[st[k + 1]].end;
            continue;
         }
      }
      size_t *slot = vec_push(stack);
      if (!slot)
         return CLP_ENOMEM;
      *slot = kept;
      r[kept++] = c;
   }
   v->n = kept;
   return CLP_OK;
}

/* Disassemble one function and record its direct jumps that stay inside
 * it. Undecodable bytes are skipped one at a time. */
static clp_status collect_jumps(clp_ctx *x, const clp_func *f)
{
   x->jumps.n = 0;
   uint64_t fend = f->start + f->size;
   const uint8_t *code = f->code;
   size_t size = (size_t)f->size;
   uint64_t addr = f->start;
   while (size > 0) {
      if (!cs_disasm_iter(x->cs, &code, &size, &addr, x->insn)) {
         code++;
         size--;
         addr++;
         continue;
      }
      const cs_insn *in = x->insn;
      const cs_detail *d = in->detail;
      int is_jump = 0;
      for (uint8_t g = 0; g < d->groups_count; g++)
         if (d->groups[g] == CS_GRP_JUMP)
            is_jump = 1;
      if (!is_jump || d->x86.op_count != 1 ||
          d->x86.operands[0].type != X86_OP_IMM)
         continue;
      uint64_t t = (uint64_t)d->x86.operands[0].imm;
      if (t < f->start || t > fend)
         continue;   /* tail call or jump elsewhere: no structure here */
      clp_jump *j = vec_push(&x->jumps);
      if (!j)
         return CLP_ENOMEM;
      j->addr = in->address;
      j->next = in->address + in->size;
      j->target = t;
      j->cond = in->id != X86_INS_JMP && in->id != X86_INS_LJMP;
   }
   return CLP_OK;
}

static clp_status find_loops(clp_ctx *x, const clp_func *f)
{
   x->loops.n = 0;
   const clp_jump *j = x->jumps.v;
   for (size_t i = 0; i < x->jumps.n; i++) {
      if (j[i].target < f->start || j[i].target > j[i].addr)
         continue;
      clp_range *r = vec_push(&x->loops);
      if (!r)
         return CLP_ENOMEM;
      *r = (clp_range){ j[i].target, j[i].next,
                        j[i].cond ? CLP_LOOP : CLP_LOOP_UNCOND };
   }
   vec_sort(&x->loops, cmp_range);
   /* Merge loops sharing a header: sorted by end descending, the first of
    * each header already has the largest end. */
   clp_range *r = x->loops.v;
   size_t m = 0;
   for (size_t i = 0; i < x->loops.n; i++)
      if (m == 0 || r[m - 1].start != r[i].start)
         r[m++] = r[i];
   x->loops.n = m;
   clp_status st = keep_nested(&x->loops, &x->stack, 1);
   for (size_t i = 0; i < x->loops.n; i++)
      r[i].kind = CLP_LOOP;
   return st;
}

/* Index of the first accepted loop with start >= a (loops are sorted). */
static size_t loops_lower_bound(const clp_vec *loops, uint64_t a)
{
   const clp_range *r = loops->v;
   size_t lo = 0, hi = loops->n;
   while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      if (r[mid].start < a)
         lo = mid + 1;
      else
         hi = mid;
   }
   return lo;
}

static clp_status find_conds(clp_ctx *x)
{
   x->conds.n = 0;
   const clp_jump *j = x->jumps.v;
   const clp_range *loops = x->loops.v;
   size_t nl = x->loops.n, li = 0;
   x->open.n = 0;
   /* Jumps are in address order, so one sweep over the sorted, nested
    * loops finds the innermost loop around each jump. */
   for (size_t i = 0; i < x->jumps.n; i++) {
      while (li < nl && loops[li].start <= j[i].addr) {
         clp_range *st = x->open.v;
         while (x->open.n > 0 && st[x->open.n - 1].end <= loops[li].start)
            x->open.n--;
         clp_range *slot = vec_push(&x->open);
         if (!slot)
            return CLP_ENOMEM;
         *slot = loops[li++];
      }
      clp_range *st = x->open.v;
      while (x->open.n > 0 && st[x->open.n - 1].end <= j[i].addr)
         x->open.n--;
      if (!j[i].cond || x->open.n == 0)
         continue;
      const clp_range *inner = &st[x->open.n - 1];
      clp_range c = { j[i].next, j[i].target, CLP_CONDITIONAL };
      /* A target at the loop's end skips the back edge: that is a loop
       * exit (break, rotated loop test), not an if. */
      if (c.end <= c.start || c.end >= inner->end)
         continue;
      /* Loops starting after the jump must nest with the region and may
       * not coincide with it. */
      int ok = 1;
      for (size_t k = loops_lower_bound(&x->loops, j[i].addr + 1);
           ok && k < nl && loops[k].start < c.end; k++)
         if (!nests(&loops[k], &c) ||
             (loops[k].start == c.start && loops[k].end == c.end))
            ok = 0;
      if (!ok)
         continue;
      clp_range *r = vec_push(&x->conds);
      if (!r)
         return CLP_ENOMEM;
      *r = c;
   }
   vec_sort(&x->conds, cmp_range);
   return keep_nested(&x->conds, &x->stack, 0);
}

static clp_status analyse(clp_ctx *x, const clp_func *f, uint64_t bias)
{
   clp_status st = collect_jumps(x, f);
   if (st == CLP_OK)
      st = find_loops(x, f);
   if (st == CLP_OK)
      st = find_conds(x);
   clp_vec *src[2] = { &x->loops, &x->conds };
   for (int s = 0; st == CLP_OK && s < 2; s++) {
      const clp_range *r = src[s]->v;
      for (size_t i = 0; i < src[s]->n; i++) {
         clp_range *o = vec_push(&x->out);
         if (!o)
            return CLP_ENOMEM;
         *o = (clp_range){ r[i].start + bias, r[i].end + bias, r[i].kind };
      }
   }
   return st;
}

/* Per-section facts needed to place function symbols. */
typedef struct clp_sec {
   uint64_t addr, size;
   const uint8_t *data;   /* NULL unless an executable PROGBITS section */
   size_t data_size;
} clp_sec;

/* Add the functions of one symbol table that lie in executable code. */
static clp_status add_symbols(clp_ctx *x, Elf_Scn *scn, const GElf_Shdr *sh,
                              const clp_sec *secs, size_t nsecs)
{
   Elf_Data *d = elf_getdata(scn, NULL);
   if (!d || sh->sh_entsize == 0)
      return CLP_OK;
   size_t n = sh->sh_size / sh->sh_entsize;
   for (size_t i = 0; i < n; i++) {
      GElf_Sym sym;
      if (!gelf_getsym(d, (int)i, &sym))
         break;
      int type = GELF_ST_TYPE(sym.st_info);
      if ((type != STT_FUNC && type != STT_GNU_IFUNC) || sym.st_size == 0)
         continue;
      size_t si = sym.st_shndx;
      if (si == SHN_UNDEF || si >= SHN_LORESERVE || si >= nsecs ||
          !secs[si].data)
         continue;
      const clp_sec *s = &secs[si];
      if (sym.st_value < s->addr || sym.st_size > s->size ||
          sym.st_value - s->addr > s->size - sym.st_size ||
          sym.st_value - s->addr + sym.st_size > s->data_size)
         continue;
      clp_func *f = vec_push(&x->funcs);
      if (!f)
         return CLP_ENOMEM;
      f->start = sym.st_value;
      f->size = sym.st_size;
      f->code = s->data + (sym.st_value - s->addr);
   }
   return CLP_OK;
}

/* Gather sections and function symbols from the ELF file. */
static clp_status scan_elf(clp_ctx *x, Elf *elf, uint64_t *text_svma,
                           int *have_text, char *err, size_t errlen)
{
   size_t nsecs, shstrndx;
   if (elf_getshdrnum(elf, &nsecs) != 0 ||
       elf_getshdrstrndx(elf, &shstrndx) != 0)
      return fail(err, errlen, CLP_ENOTELF, "bad section headers: %s",
                  elf_errmsg(-1));
   clp_sec *secs = calloc(nsecs ? nsecs : 1, sizeof *secs);
   if (!secs)
      return fail(err, errlen, CLP_ENOMEM, "out of memory");
   Elf_Scn *symtab = NULL, *dynsym = NULL, *text = NULL;
   GElf_Shdr symtab_sh, dynsym_sh;
   Elf_Scn *scn = NULL;
   *have_text = 0;
   while ((scn = elf_nextscn(elf, scn)) != NULL) {
      GElf_Shdr sh;
      size_t idx = elf_ndxscn(scn);
      if (!gelf_getshdr(scn, &sh) || idx >= nsecs)
         continue;
      const char *name = elf_strptr(elf, shstrndx, sh.sh_name);
      secs[idx].addr = sh.sh_addr;
      secs[idx].size = sh.sh_size;
      if ((sh.sh_flags & SHF_EXECINSTR) && sh.sh_type == SHT_PROGBITS) {
         Elf_Data *d = elf_getdata(scn, NULL);
         if (d && d->d_buf) {
            secs[idx].data = d->d_buf;
            secs[idx].data_size = d->d_size;
         }
      }
      if (name && strcmp(name, ".text") == 0 && !text) {
         text = scn;
         *text_svma = sh.sh_addr;
         *have_text = 1;
      }
      if (sh.sh_type == SHT_SYMTAB && !symtab) {
         symtab = scn;
         symtab_sh = sh;
      } else if (sh.sh_type == SHT_DYNSYM && !dynsym) {
         dynsym = scn;
         dynsym_sh = sh;
      }
   }

   clp_status st = CLP_OK;
   if (symtab)
      st = add_symbols(x, symtab, &symtab_sh, secs, nsecs);
   if (st == CLP_OK && x->funcs.n == 0 && dynsym)
      st = add_symbols(x, dynsym, &dynsym_sh, secs, nsecs);
   if (st == CLP_OK && x->funcs.n == 0 && text &&
       secs[elf_ndxscn(text)].data) {
      /* Stripped object: treat .text as one function. */
      const clp_sec *s = &secs[elf_ndxscn(text)];
      clp_func *f = vec_push(&x->funcs);
      if (!f)
         st = CLP_ENOMEM;
      else
         *f = (clp_func){ s->addr, s->data_size < s->size ? s->data_size
                                                          : s->size,
                          s->data };
   }
   free(secs);
   if (st == CLP_ENOMEM)
      return fail(err, errlen, st, "out of memory");
   return st;
}

static void ctx_free(clp_ctx *x)
{
   if (x->insn)
      cs_free(x->insn, 1);
   if (x->cs)
      cs_close(&x->cs);
   free(x->funcs.v);
   free(x->jumps.v);
   free(x->loops.v);
   free(x->conds.v);
   free(x->stack.v);
   free(x->open.v);
   free(x->out.v);
}

/* Sort the results and drop duplicates (overlapping symbols can report the
 * same range twice). */
static void finish(clp_vec *out)
{
   vec_sort(out, cmp_range);
   clp_range *r = out->v;
   size_t m = 0;
   for (size_t i = 0; i < out->n; i++)
      if (m == 0 || cmp_range(&r[m - 1], &r[i]) != 0)
         r[m++] = r[i];
   out->n = m;
}

static clp_status run(clp_ctx *x, Elf *elf, uint64_t text_avma,
                      unsigned flags, char *err, size_t errlen)
{
   GElf_Ehdr eh;
   if (elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh))
      return fail(err, errlen, CLP_ENOTELF, "not an ELF object");
   if (eh.e_machine != EM_X86_64 || gelf_getclass(elf) != ELFCLASS64)
      return fail(err, errlen, CLP_ENOTELF,
                  "not an x86-64 object (e_machine %u)", eh.e_machine);
   uint64_t svma = 0;
   int have_text = 0;
   clp_status st = scan_elf(x, elf, &svma, &have_text, err, errlen);
   if (st != CLP_OK)
      return st;
   if (!have_text && !(flags & CLP_NO_BIAS))
      return fail(err, errlen, CLP_ENOTEXT, "no .text section");
   uint64_t bias = (flags & CLP_NO_BIAS) ? 0 : text_avma - svma;

   if (cs_open(CS_ARCH_X86, CS_MODE_64, &x->cs) != CS_ERR_OK)
      return fail(err, errlen, CLP_ELIB, "capstone: cannot open x86-64");
   cs_option(x->cs, CS_OPT_DETAIL, CS_OPT_ON);
   x->insn = cs_malloc(x->cs);
   if (!x->insn)
      return fail(err, errlen, CLP_ENOMEM, "out of memory (capstone)");

   /* Aliases (memcpy/__memcpy) share a start: analyse each start once,
    * with the largest size. */
   vec_sort(&x->funcs, cmp_func);
   const clp_func *f = x->funcs.v;
   for (size_t i = 0; i < x->funcs.n; i++) {
      if (i > 0 && f[i].start == f[i - 1].start)
         continue;
      st = analyse(x, &f[i], bias);
      if (st != CLP_OK)
         return fail(err, errlen, st, "out of memory");
   }
   finish(&x->out);
   return CLP_OK;
}

clp_status clp_find(const char *path, uint64_t text_avma, unsigned flags,
                    clp_range **out, size_t *n, char *err, size_t errlen)
{
   *out = NULL;
   *n = 0;
   if (elf_version(EV_CURRENT) == EV_NONE)
      return fail(err, errlen, CLP_ELIB, "libelf: %s", elf_errmsg(-1));
   int fd = open(path, O_RDONLY | O_CLOEXEC);
   if (fd < 0)
      return fail(err, errlen, CLP_EOPEN, "%s", strerror(errno));
   Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
   if (!elf) {
      close(fd);
      return fail(err, errlen, CLP_ENOTELF, "not an ELF object");
   }
   clp_ctx x;
   memset(&x, 0, sizeof x);
   x.funcs.elem = sizeof(clp_func);
   x.jumps.elem = sizeof(clp_jump);
   x.loops.elem = x.conds.elem = x.open.elem = x.out.elem =
      sizeof(clp_range);
   x.stack.elem = sizeof(size_t);
   clp_status st = run(&x, elf, text_avma, flags, err, errlen);
   if (st == CLP_OK) {
      *out = x.out.v;
      *n = x.out.n;
      x.out.v = NULL;
   }
   ctx_free(&x);
   elf_end(elf);
   close(fd);
   return st;
}
