/* SPDX-License-Identifier: GPL-2.0-or-later */
/* loops.c: static loop and conditional finder (see loops.h).
 *
 * Per function: one linear disassembly (capstone with details, for the
 * jump group and the immediate target), basic blocks and edges, dominators
 * (Cooper-Harvey-Kennedy over reverse postorder), natural loops by reverse
 * walks from their back edges, and for each loop with two-way branches the
 * post-dominators inside it. Every step is linear in the function's blocks
 * except the dominator iteration (a few passes in practice) and the
 * per-loop work, which is linear in the loop's body, so a block is visited
 * once per loop around it. Scratch arrays live in the context and are
 * reused across functions: libc (~2 MB of text) costs few allocations.
 * Nothing is cached between calls.
 *
 * Sections: ELF scan and noreturn callees; disassembly; the control-flow
 * graph; dominators; loops; conditionals; the region tree and its ranges;
 * the driver. */
#define _POSIX_C_SOURCE 200809L

#include "cats/trace/errmsg.h"
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

#define NONE UINT32_MAX

/* ======================================================================
 * Data structures
 * ====================================================================== */

/* A growable array of some element type; kept generic by size. */
typedef struct loops_vec {
   void *v;
   size_t n, cap, elem;
} loops_vec;

#define AT(vec, type) ((type *)(vec).v)

/* What ends an instruction's block, and where control goes next. */
enum loops_ik {
   IK_PLAIN,   /* falls through (calls included) */
   IK_JMP,     /* direct jmp to target */
   IK_JCC,     /* direct conditional jump (jcc, jrcxz, loop*) */
   IK_IJMP,    /* indirect jump: unknown targets */
   IK_END      /* ret, hlt, ud2, int3, noreturn call, undecodable bytes */
};

typedef struct loops_insn {
   uint64_t addr;
   uint64_t target;   /* IK_JMP, IK_JCC */
   uint32_t size;     /* undecodable bytes: the whole run */
   uint8_t kind;      /* enum loops_ik */
} loops_insn;

/* A function symbol: [start, start + size) with its bytes. */
typedef struct loops_func {
   uint64_t start;
   uint64_t size;
   const uint8_t *code;
   const char *name;   /* in the ELF string table; "" if unknown */
   int cold;           /* a gcc ".cold" part of another function */
   int done;           /* analysed as part of another function */
} loops_func;

/* An allocated section with its bytes (for PLT stubs). */
typedef struct loops_sec {
   uint64_t addr, size;
   const uint8_t *data;   /* NULL unless executable PROGBITS */
   size_t data_size;
   const char *name;
} loops_sec;

typedef struct loops_edge {
   uint32_t from, to;
} loops_edge;

/* Successor and predecessor lists of a graph in compressed form: the
 * neighbours of node i are adj[off[i] .. off[i + 1]). */
typedef struct loops_graph {
   uint32_t n;
   loops_vec soff, sadj;   /* u32: successors */
   loops_vec poff, padj;   /* u32: predecessors */
} loops_graph;

/* Dominator tree and DFS numbering of one graph from one root. */
typedef struct loops_dom {
   loops_vec idom;     /* u32 per node; NONE if unreached, root for root */
   loops_vec rponum;   /* u32 per node: reverse postorder number or NONE */
   loops_vec rpo;      /* u32: reached nodes in reverse postorder */
   loops_vec pre, post;   /* u32 per node: DFS entry and exit times */
   loops_vec stack;    /* u32 pairs: node, next edge */
} loops_dom;

/* A loop or conditional of the function being analysed. */
typedef struct loops_reg {
   uint64_t header;   /* address */
   uint64_t latch;    /* loop: last instruction of the bottom-most back
                         edge's source; conditional: header */
   uint32_t hblock;   /* loop: header block; conditional: branch block */
   uint32_t off, n;   /* its blocks: pool[off .. off + n) */
   uint32_t parent;   /* local index, or NONE */
   uint32_t id;       /* global index once emitted */
   uint8_t kind;
} loops_reg;

typedef struct loops_loopedge {
   uint32_t header, src;
   int natural;       /* header dominates src */
} loops_loopedge;

/* Everything one loops_find call works with. */
typedef struct loops_ctx {
   csh cs;
   cs_insn *insn;
   uint64_t bias;
   loops_vec funcs;      /* loops_func, sorted by start */
   loops_vec secs;       /* loops_sec by section index */
   loops_vec noret;      /* u64: sorted addresses of noreturn functions */
   loops_vec noret_got;  /* u64: sorted GOT slots of noreturn functions */

   /* the function being analysed */
   loops_vec chunks;     /* size_t: indices of its loops_func parts */
   loops_vec insns;      /* loops_insn, by address */
   loops_vec blk_first;  /* u32 per block: first insn; one extra at the end */
   uint32_t entry;     /* the block at the function's start */
   loops_vec insn_blk;   /* u32 per insn: its block */
   loops_vec edges;      /* loops_edge: control-flow edges (G) */
   loops_vec edges2;     /* loops_edge: scratch (G', local graphs) */
   loops_graph g;        /* the control-flow graph */
   loops_graph g2;       /* G' (see find_loops), then local graphs */
   loops_dom dom;        /* of G' */
   loops_dom pdom;       /* post-dominators of one loop */
   loops_vec reach;      /* u8 per block: 1 from the entry, 2 extra root */
   loops_vec mark, mark2;   /* u32 per block: stamps */
   loops_vec loc;        /* u32 per block: index in the local graph */
   loops_vec work;       /* u32 worklist */
   loops_vec inner;      /* u32 per block: innermost loop / region */
   loops_vec cond_of;    /* u32 per block: innermost conditional */
   loops_vec cond_st;    /* u32 per block: loop whose cond_of is valid */
   loops_vec loop_at;    /* u32 per block: loop headed here */
   loops_vec ijmp;       /* u32: blocks ending in an indirect jump */
   loops_vec ij_head, ij_next;   /* u32 per block: see add_dispatch_blocks */
   loops_vec ledges;     /* loops_loopedge */
   loops_vec regs;       /* loops_reg */
   loops_vec pool;       /* u32: blocks of the regions */
   loops_vec order;      /* u32: branch blocks of one loop */
   loops_vec keys;       /* loops_key: regions in preorder */
   uint32_t stamp;

   /* results */
   loops_vec out_regions;   /* loops_region */
   loops_vec out_ranges;    /* loops_range */
   loops_vec names;         /* char */
} loops_ctx;

#define fail(err, errlen, st, ...) ERRMSG_FAIL(err, errlen, st, __VA_ARGS__)

static int vec_reserve(loops_vec *a, size_t n)
{
   if (n <= a->cap)
      return 0;
   size_t cap = a->cap ? a->cap : 64;
   while (cap < n)
      cap *= 2;
   void *p = realloc(a->v, cap * a->elem);
   if (!p)
      return -1;
   a->v = p;
   a->cap = cap;
   return 0;
}

static void *vec_push(loops_vec *a)
{
   if (vec_reserve(a, a->n + 1) != 0)
      return NULL;
   return (char *)a->v + a->elem * a->n++;
}

/* Set the length to n (contents of new elements undefined). */
static int vec_resize(loops_vec *a, size_t n)
{
   if (vec_reserve(a, n) != 0)
      return -1;
   a->n = n;
   return 0;
}

/* Set the length to n with every byte of every element = byte. */
static int vec_fill(loops_vec *a, size_t n, int byte)
{
   if (vec_resize(a, n) != 0)
      return -1;
   if (n)
      memset(a->v, byte, n * a->elem);
   return 0;
}

static int push_u32(loops_vec *a, uint32_t x)
{
   uint32_t *p = vec_push(a);
   if (!p)
      return -1;
   *p = x;
   return 0;
}

/* qsort of a vector; an empty vector may have no storage (NULL), which
 * qsort must not be given. */
static void vec_sort(loops_vec *a, int (*cmp)(const void *, const void *))
{
   if (a->n > 1)
      qsort(a->v, a->n, a->elem, cmp);
}

static int cmp_u64(const void *pa, const void *pb)
{
   uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
   return (a > b) - (a < b);
}

static int has_u64(const loops_vec *a, uint64_t x)
{
   const uint64_t *v = a->v;
   size_t lo = 0, hi = a->n;
   while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      if (v[mid] < x)
         lo = mid + 1;
      else
         hi = mid;
   }
   return lo < a->n && v[lo] == x;
}

/* ======================================================================
 * ELF scan: sections, function symbols, noreturn callees
 *
 * A call that does not return ends its block; if it fell through, the
 * next block (often unrelated code of a loop) would gain a predecessor,
 * which can break the dominance of a loop header. Callees are recognised
 * by name: defined symbols, PLT stubs (through the GOT slot their
 * relocation names) and -fno-plt calls through the GOT.
 * ====================================================================== */

static int is_noreturn_name(const char *s)
{
   static const char *const names[] = {
      "abort", "exit", "_exit", "_Exit", "quick_exit", "__stack_chk_fail",
      "__stack_chk_fail_local", "__assert_fail", "__assert_perror_fail",
      "__cxa_throw", "__cxa_rethrow", "__cxa_bad_cast", "__cxa_bad_typeid",
      "__cxa_throw_bad_array_new_length", "__cxa_call_unexpected",
      "__cxa_call_terminate", "__cxa_pure_virtual", "_Unwind_Resume",
      "__fortify_fail", "__chk_fail", "__libc_fatal", "longjmp", "_longjmp",
      "siglongjmp", "__longjmp_chk", "__libc_longjmp", "__libc_siglongjmp",
      "pthread_exit", "err", "errx", "verr", "verrx", "_ZSt9terminatev",
   };
   if (strncmp(s, "__GI_", 5) == 0)
      s += 5;
   size_t len = strcspn(s, "@");
   for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
      if (strlen(names[i]) == len && strncmp(s, names[i], len) == 0)
         return 1;
   /* std::__throw_length_error and friends: _ZSt<len>__throw_... */
   if (strncmp(s, "_ZSt", 4) == 0) {
      s += 4;
      while (*s >= '0' && *s <= '9')
         s++;
      return strncmp(s, "__throw_", 8) == 0;
   }
   return 0;
}

/* Add the functions of one symbol table that lie in executable code, and
 * the addresses of noreturn ones. */
static loops_status add_symbols(loops_ctx *x, Elf *elf, Elf_Scn *scn,
                                const GElf_Shdr *sh)
{
   Elf_Data *d = elf_getdata(scn, NULL);
   if (!d || sh->sh_entsize == 0)
      return LOOPS_OK;
   const loops_sec *secs = x->secs.v;
   size_t nsecs = x->secs.n;
   size_t n = sh->sh_size / sh->sh_entsize;
   for (size_t i = 0; i < n; i++) {
      GElf_Sym sym;
      if (!gelf_getsym(d, (int)i, &sym))
         break;
      int type = GELF_ST_TYPE(sym.st_info);
      if (type != STT_FUNC && type != STT_GNU_IFUNC)
         continue;
      size_t si = sym.st_shndx;
      if (si == SHN_UNDEF || si >= SHN_LORESERVE || si >= nsecs ||
          !secs[si].data)
         continue;
      const char *name = elf_strptr(elf, sh->sh_link, sym.st_name);
      if (!name)
         name = "";
      if (is_noreturn_name(name)) {
         uint64_t *a = vec_push(&x->noret);
         if (!a)
            return LOOPS_ENOMEM;
         *a = sym.st_value;
      }
      const loops_sec *s = &secs[si];
      if (sym.st_size == 0 || sym.st_value < s->addr ||
          sym.st_size > s->size || sym.st_value - s->addr > s->size -
          sym.st_size || sym.st_value - s->addr + sym.st_size > s->data_size)
         continue;
      loops_func *f = vec_push(&x->funcs);
      if (!f)
         return LOOPS_ENOMEM;
      *f = (loops_func){ sym.st_value, sym.st_size,
                       s->data + (sym.st_value - s->addr), name,
                       strstr(name, ".cold") != NULL, 0 };
   }
   return LOOPS_OK;
}

/* GOT slots whose relocation names a noreturn function. */
static loops_status add_noreturn_slots(loops_ctx *x, Elf *elf, Elf_Scn *scn,
                                       const GElf_Shdr *sh)
{
   Elf_Scn *symscn = elf_getscn(elf, sh->sh_link);
   GElf_Shdr symsh;
   Elf_Data *d = elf_getdata(scn, NULL);
   Elf_Data *sd = symscn ? elf_getdata(symscn, NULL) : NULL;
   if (!d || !sd || !gelf_getshdr(symscn, &symsh) || sh->sh_entsize == 0)
      return LOOPS_OK;
   size_t n = sh->sh_size / sh->sh_entsize;
   for (size_t i = 0; i < n; i++) {
      GElf_Rela r;
      GElf_Sym sym;
      if (!gelf_getrela(d, (int)i, &r))
         break;
      size_t si = GELF_R_SYM(r.r_info);
      if (si == 0 || !gelf_getsym(sd, (int)si, &sym))
         continue;
      const char *name = elf_strptr(elf, symsh.sh_link, sym.st_name);
      if (!name || !is_noreturn_name(name))
         continue;
      uint64_t *a = vec_push(&x->noret_got);
      if (!a)
         return LOOPS_ENOMEM;
      *a = r.r_offset;
   }
   return LOOPS_OK;
}

/* The GOT slot read by `jmp/call [rip + disp]`, or 0. */
static uint64_t rip_slot(const cs_insn *in)
{
   const cs_x86 *d = &in->detail->x86;
   if (d->op_count != 1 || d->operands[0].type != X86_OP_MEM ||
       d->operands[0].mem.base != X86_REG_RIP ||
       d->operands[0].mem.index != X86_REG_INVALID)
      return 0;
   return in->address + in->size + (uint64_t)d->operands[0].mem.disp;
}

/* PLT stubs that jump through a noreturn GOT slot are noreturn callees:
 * the jmp itself, or the endbr64 before it (.plt.sec). */
static loops_status scan_plt(loops_ctx *x, const loops_sec *s)
{
   const uint8_t *code = s->data;
   size_t size = s->data_size < s->size ? s->data_size : s->size;
   uint64_t addr = s->addr;
   static const uint8_t endbr64[4] = { 0xf3, 0x0f, 0x1e, 0xfa };
   while (size > 0) {
      if (!cs_disasm_iter(x->cs, &code, &size, &addr, x->insn)) {
         code++;
         size--;
         addr++;
         continue;
      }
      const cs_insn *in = x->insn;
      if (in->id != X86_INS_JMP)
         continue;
      uint64_t slot = rip_slot(in);
      if (!slot || !has_u64(&x->noret_got, slot))
         continue;
      uint64_t *a = vec_push(&x->noret);
      if (!a)
         return LOOPS_ENOMEM;
      *a = in->address;
      uint64_t off = in->address - s->addr;
      if (off >= 4 && memcmp(s->data + off - 4, endbr64, 4) == 0) {
         if (!(a = vec_push(&x->noret)))
            return LOOPS_ENOMEM;
         *a = in->address - 4;
      }
   }
   return LOOPS_OK;
}

static int cmp_func(const void *pa, const void *pb)
{
   const loops_func *a = pa, *b = pb;
   if (a->start != b->start)
      return a->start < b->start ? -1 : 1;
   return (a->size < b->size) - (a->size > b->size); /* largest first */
}

/* Gather sections, function symbols and noreturn callees. */
static loops_status scan_elf(loops_ctx *x, Elf *elf, uint64_t *text_svma,
                             int *have_text, char *err, size_t errlen)
{
   size_t nsecs, shstrndx;
   if (elf_getshdrnum(elf, &nsecs) != 0 ||
       elf_getshdrstrndx(elf, &shstrndx) != 0)
      return fail(err, errlen, LOOPS_ENOTELF, "bad section headers: %s",
                  elf_errmsg(-1));
   if (vec_fill(&x->secs, nsecs ? nsecs : 1, 0) != 0)
      return fail(err, errlen, LOOPS_ENOMEM, "out of memory");
   loops_sec *secs = x->secs.v;
   Elf_Scn *symtab = NULL, *dynsym = NULL, *text = NULL;
   GElf_Shdr symtab_sh, dynsym_sh;
   Elf_Scn *scn = NULL;
   loops_status st = LOOPS_OK;
   *have_text = 0;
   while ((scn = elf_nextscn(elf, scn)) != NULL) {
      GElf_Shdr sh;
      size_t idx = elf_ndxscn(scn);
      if (!gelf_getshdr(scn, &sh) || idx >= nsecs)
         continue;
      const char *name = elf_strptr(elf, shstrndx, sh.sh_name);
      secs[idx].addr = sh.sh_addr;
      secs[idx].size = sh.sh_size;
      secs[idx].name = name ? name : "";
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
      } else if (sh.sh_type == SHT_RELA && st == LOOPS_OK) {
         st = add_noreturn_slots(x, elf, scn, &sh);
      }
   }
   vec_sort(&x->noret_got, cmp_u64);
   for (size_t i = 0; st == LOOPS_OK && i < nsecs; i++)
      if (secs[i].data && strncmp(secs[i].name, ".plt", 4) == 0)
         st = scan_plt(x, &secs[i]);

   if (st == LOOPS_OK && symtab)
      st = add_symbols(x, elf, symtab, &symtab_sh);
   if (st == LOOPS_OK && x->funcs.n == 0 && dynsym)
      st = add_symbols(x, elf, dynsym, &dynsym_sh);
   if (st == LOOPS_OK && x->funcs.n == 0 && text &&
       secs[elf_ndxscn(text)].data) {
      /* Stripped object: treat .text as one function. */
      const loops_sec *s = &secs[elf_ndxscn(text)];
      loops_func *f = vec_push(&x->funcs);
      if (!f)
         st = LOOPS_ENOMEM;
      else
         *f = (loops_func){ s->addr, s->data_size < s->size ? s->data_size
                                                          : s->size,
                          s->data, "", 0, 0 };
   }
   vec_sort(&x->noret, cmp_u64);
   vec_sort(&x->funcs, cmp_func);
   if (st == LOOPS_ENOMEM)
      return fail(err, errlen, st, "out of memory");
   return st;
}

/* ======================================================================
 * Disassembly
 * ====================================================================== */

static int in_group(const cs_insn *in, uint8_t group)
{
   const cs_detail *d = in->detail;
   for (uint8_t g = 0; g < d->groups_count; g++)
      if (d->groups[g] == group)
         return 1;
   return 0;
}

/* Classify one decoded instruction. */
static void classify(const loops_ctx *x, const cs_insn *in, loops_insn *o)
{
   const cs_x86 *d = &in->detail->x86;
   o->kind = IK_PLAIN;
   o->target = 0;
   if (in_group(in, CS_GRP_JUMP)) {
      if (d->op_count == 1 && d->operands[0].type == X86_OP_IMM &&
          in->id != X86_INS_LJMP) {
         o->target = (uint64_t)d->operands[0].imm;
         o->kind = in->id == X86_INS_JMP ? IK_JMP : IK_JCC;
      } else {
         o->kind = IK_IJMP;
      }
   } else if (in_group(in, CS_GRP_RET) || in_group(in, CS_GRP_IRET) ||
              in->id == X86_INS_HLT || in->id == X86_INS_UD2 ||
              in->id == X86_INS_UD2B || in->id == X86_INS_UD0 ||
              in->id == X86_INS_INT3) {
      o->kind = IK_END;
   } else if (in_group(in, CS_GRP_CALL)) {
      if (d->op_count == 1 && d->operands[0].type == X86_OP_IMM) {
         if (has_u64(&x->noret, (uint64_t)d->operands[0].imm))
            o->kind = IK_END;
      } else {
         uint64_t slot = rip_slot(in);
         if (slot && has_u64(&x->noret_got, slot))
            o->kind = IK_END;
      }
   }
}

/* Append the instructions of f to x->insns. Undecodable bytes become one
 * IK_END pseudo-instruction per run. */
static loops_status disasm(loops_ctx *x, const loops_func *f)
{
   const uint8_t *code = f->code;
   size_t size = (size_t)f->size;
   uint64_t addr = f->start;
   loops_insn *bad = NULL;
   while (size > 0) {
      if (!cs_disasm_iter(x->cs, &code, &size, &addr, x->insn)) {
         if (bad && bad->addr + bad->size == addr) {
            bad->size++;
         } else {
            if (!(bad = vec_push(&x->insns)))
               return LOOPS_ENOMEM;
            *bad = (loops_insn){ addr, 0, 1, IK_END };
         }
         code++;
         size--;
         addr++;
         continue;
      }
      loops_insn *o = vec_push(&x->insns);
      if (!o)
         return LOOPS_ENOMEM;
      bad = NULL;   /* the push may have moved it */
      o->addr = x->insn->address;
      o->size = x->insn->size;
      classify(x, x->insn, o);
   }
   return LOOPS_OK;
}

/* Index of the function symbol holding addr, or NONE. Functions are
 * sorted by start; nested symbols are not looked for. */
static size_t func_at(const loops_ctx *x, uint64_t addr)
{
   const loops_func *f = x->funcs.v;
   size_t lo = 0, hi = x->funcs.n;
   while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      if (f[mid].start <= addr)
         lo = mid + 1;
      else
         hi = mid;
   }
   if (lo == 0 || addr - f[lo - 1].start >= f[lo - 1].size)
      return (size_t)-1;
   return lo - 1;
}

static int cmp_insn(const void *pa, const void *pb)
{
   const loops_insn *a = pa, *b = pb;
   return (a->addr > b->addr) - (a->addr < b->addr);
}

/* Disassemble function fi and the ".cold" parts its jumps lead to (gcc
 * moves unlikely code, C++ landing pads among it, there). */
static loops_status disasm_function(loops_ctx *x, size_t fi)
{
   loops_func *funcs = x->funcs.v;
   x->insns.n = 0;
   x->chunks.n = 0;
   size_t *c = vec_push(&x->chunks);
   if (!c)
      return LOOPS_ENOMEM;
   *c = fi;
   loops_status st = disasm(x, &funcs[fi]);
   if (st != LOOPS_OK)
      return st;
   uint64_t lo = funcs[fi].start, hi = lo + funcs[fi].size;
   size_t nmain = x->insns.n;
   for (size_t i = 0; i < nmain; i++) {
      const loops_insn *in = &AT(x->insns, loops_insn)[i];
      if ((in->kind != IK_JMP && in->kind != IK_JCC) ||
          (in->target >= lo && in->target < hi))
         continue;
      size_t ci = func_at(x, in->target);
      if (ci == (size_t)-1 || !funcs[ci].cold || ci == fi)
         continue;
      int seen = 0;
      for (size_t k = 0; k < x->chunks.n; k++)
         seen |= AT(x->chunks, size_t)[k] == ci;
      /* A part overlapping the function would duplicate addresses. */
      if (seen || (funcs[ci].start < hi &&
                   lo < funcs[ci].start + funcs[ci].size))
         continue;
      if (!(c = vec_push(&x->chunks)))
         return LOOPS_ENOMEM;
      *c = ci;
      funcs[ci].done = 1;
      if ((st = disasm(x, &funcs[ci])) != LOOPS_OK)
         return st;
   }
   if (x->chunks.n > 1)
      vec_sort(&x->insns, cmp_insn);
   return LOOPS_OK;
}

/* Index of the instruction at addr, or NONE. */
static uint32_t insn_at(const loops_ctx *x, uint64_t addr)
{
   const loops_insn *v = x->insns.v;
   size_t lo = 0, hi = x->insns.n;
   while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      if (v[mid].addr < addr)
         lo = mid + 1;
      else
         hi = mid;
   }
   return lo < x->insns.n && v[lo].addr == addr ? (uint32_t)lo : NONE;
}

/* ======================================================================
 * The control-flow graph
 *
 * Leaders: the entry, direct branch targets, the instruction after a
 * branch or block end, and the first instruction after a gap (between
 * the parts of a function). Calls fall through unless noreturn. Jumps
 * out of the function (tail calls) and indirect jumps add no edge.
 * ====================================================================== */

/* Build the CSR successor and predecessor lists of n nodes from edges. */
static loops_status graph_build(loops_graph *g, uint32_t n, const loops_edge *e,
                                size_t ne)
{
   g->n = n;
   if (vec_fill(&g->soff, n + 1, 0) != 0 || vec_fill(&g->poff, n + 1, 0) ||
       vec_resize(&g->sadj, ne) != 0 || vec_resize(&g->padj, ne) != 0)
      return LOOPS_ENOMEM;
   uint32_t *so = g->soff.v, *po = g->poff.v;
   uint32_t *sa = g->sadj.v, *pa = g->padj.v;
   for (size_t i = 0; i < ne; i++) {
      so[e[i].from + 1]++;
      po[e[i].to + 1]++;
   }
   for (uint32_t i = 0; i < n; i++) {
      so[i + 1] += so[i];
      po[i + 1] += po[i];
   }
   /* Fill using the start offsets, then shift them back. */
   for (size_t i = 0; i < ne; i++) {
      sa[so[e[i].from]++] = e[i].to;
      pa[po[e[i].to]++] = e[i].from;
   }
   for (uint32_t i = n; i > 0; i--) {
      so[i] = so[i - 1];
      po[i] = po[i - 1];
   }
   so[0] = po[0] = 0;
   return LOOPS_OK;
}

static int add_edge(loops_vec *edges, uint32_t from, uint32_t to)
{
   loops_edge *e = vec_push(edges);
   if (!e)
      return -1;
   e->from = from;
   e->to = to;
   return 0;
}

static loops_status build_cfg(loops_ctx *x)
{
   const loops_insn *in = x->insns.v;
   size_t ni = x->insns.n;
   if (ni >= NONE)
      return LOOPS_OK;
   /* insn_blk first holds leader flags, then block numbers. */
   if (vec_fill(&x->insn_blk, ni, 0) != 0)
      return LOOPS_ENOMEM;
   uint32_t *lead = x->insn_blk.v;
   lead[0] = 1;
   for (size_t i = 0; i < ni; i++) {
      int ends = in[i].kind != IK_PLAIN;
      if (i + 1 < ni &&
          (ends || in[i].addr + in[i].size != in[i + 1].addr))
         lead[i + 1] = 1;
      if (in[i].kind == IK_JMP || in[i].kind == IK_JCC) {
         uint32_t t = insn_at(x, in[i].target);
         if (t != NONE)
            lead[t] = 1;
      }
   }
   x->blk_first.n = 0;
   for (size_t i = 0; i < ni; i++)
      if (lead[i] && push_u32(&x->blk_first, (uint32_t)i) != 0)
         return LOOPS_ENOMEM;
   uint32_t nb = (uint32_t)x->blk_first.n;
   if (push_u32(&x->blk_first, (uint32_t)ni) != 0)
      return LOOPS_ENOMEM;
   const uint32_t *first = x->blk_first.v;
   uint32_t *ib = x->insn_blk.v;
   for (uint32_t b = 0; b < nb; b++)
      for (uint32_t i = first[b]; i < first[b + 1]; i++)
         ib[i] = b;
   /* The function's start; a .cold part may lie before it. */
   size_t fi = AT(x->chunks, size_t)[0];
   uint32_t ei = insn_at(x, AT(x->funcs, loops_func)[fi].start);
   x->entry = ei != NONE ? ib[ei] : 0;

   x->edges.n = 0;
   x->ijmp.n = 0;
   for (uint32_t b = 0; b < nb; b++) {
      uint32_t last = first[b + 1] - 1;
      const loops_insn *l = &in[last];
      int falls = l->kind == IK_PLAIN || l->kind == IK_JCC;
      if (l->kind == IK_JMP || l->kind == IK_JCC) {
         uint32_t t = insn_at(x, l->target);
         if (t != NONE && add_edge(&x->edges, b, ib[t]) != 0)
            return LOOPS_ENOMEM;
      }
      if (l->kind == IK_IJMP && push_u32(&x->ijmp, b) != 0)
         return LOOPS_ENOMEM;
      if (falls && b + 1 < nb && l->addr + l->size == in[last + 1].addr &&
          add_edge(&x->edges, b, b + 1) != 0)
         return LOOPS_ENOMEM;
   }
   return graph_build(&x->g, nb, x->edges.v, x->edges.n);
}

/* ======================================================================
 * Dominators
 *
 * Cooper, Harvey, Kennedy: "A Simple, Fast Dominance Algorithm". The DFS
 * also leaves entry/exit times, so "t is a DFS ancestor of u" (u -> t
 * retreats) is pre[t] <= pre[u] && post[u] <= post[t].
 * ====================================================================== */

/* Dominators of the graph with successors (soff, sadj) and predecessors
 * (poff, padj) from root. For post-dominators pass the lists swapped. */
static loops_status dom_compute(loops_dom *d, uint32_t n, uint32_t root,
                                const uint32_t *soff, const uint32_t *sadj,
                                const uint32_t *poff, const uint32_t *padj)
{
   if (vec_fill(&d->idom, n, 0xff) != 0 || vec_fill(&d->rponum, n, 0xff) ||
       vec_resize(&d->pre, n) != 0 || vec_resize(&d->post, n) != 0 ||
       vec_resize(&d->rpo, n) != 0)
      return LOOPS_ENOMEM;
   uint32_t *idom = d->idom.v, *num = d->rponum.v, *rpo = d->rpo.v;
   uint32_t *pre = d->pre.v, *post = d->post.v;
   uint32_t clock = 0, npost = 0;

   /* Iterative DFS; rponum doubles as the visited mark (0 = on the way). */
   d->stack.n = 0;
   if (push_u32(&d->stack, root) || push_u32(&d->stack, soff[root]))
      return LOOPS_ENOMEM;
   num[root] = 0;
   pre[root] = clock++;
   while (d->stack.n > 0) {
      uint32_t *top = (uint32_t *)d->stack.v + d->stack.n - 2;
      uint32_t v = top[0];
      if (top[1] < soff[v + 1]) {
         uint32_t w = sadj[top[1]++];
         if (num[w] != NONE)
            continue;
         num[w] = 0;
         pre[w] = clock++;
         if (push_u32(&d->stack, w) || push_u32(&d->stack, soff[w]))
            return LOOPS_ENOMEM;
         continue;
      }
      post[v] = clock++;
      rpo[npost++] = v;   /* postorder for now */
      d->stack.n -= 2;
   }
   for (uint32_t i = 0; i < npost / 2; i++) {
      uint32_t t = rpo[i];
      rpo[i] = rpo[npost - 1 - i];
      rpo[npost - 1 - i] = t;
   }
   d->rpo.n = npost;
   for (uint32_t i = 0; i < npost; i++)
      num[rpo[i]] = i;

   idom[root] = root;
   for (int changed = 1; changed;) {
      changed = 0;
      for (uint32_t i = 1; i < npost; i++) {
         uint32_t b = rpo[i], nd = NONE;
         for (uint32_t k = poff[b]; k < poff[b + 1]; k++) {
            uint32_t p = padj[k];
            if (num[p] == NONE || idom[p] == NONE)
               continue;
            if (nd == NONE) {
               nd = p;
               continue;
            }
            uint32_t a = p, c = nd;
            while (a != c) {
               while (num[a] > num[c])
                  a = idom[a];
               while (num[c] > num[a])
                  c = idom[c];
            }
            nd = a;
         }
         if (idom[b] != nd) {
            idom[b] = nd;
            changed = 1;
         }
      }
   }
   return LOOPS_OK;
}

/* Does h dominate u (both reached)? Walks u's dominator chain. */
static int dominates(const loops_dom *d, uint32_t h, uint32_t u)
{
   const uint32_t *idom = d->idom.v, *num = d->rponum.v;
   while (u != h && num[u] > num[h])
      u = idom[u];
   return u == h;
}

/* ======================================================================
 * Loops
 *
 * Blocks no branch reaches (landing pads, switch cases behind an
 * indirect jump) would make every block they flow into look entered from
 * outside any loop. So dominators are computed on G': G without the edges
 * from those blocks into the part reachable from the entry, plus a
 * virtual root (block nb) with edges to the entry and to each unreached
 * block without predecessors (then, for unreached cycles, to their lowest
 * block). The loop bodies then use every edge of G.
 * ====================================================================== */

/* Mark (reach[b] = tag) the blocks reached from b over G. */
static loops_status reach_from(loops_ctx *x, uint32_t b, uint8_t tag)
{
   uint8_t *reach = x->reach.v;
   const uint32_t *so = x->g.soff.v, *sa = x->g.sadj.v;
   x->work.n = 0;
   reach[b] = tag;
   if (push_u32(&x->work, b) != 0)
      return LOOPS_ENOMEM;
   while (x->work.n > 0) {
      uint32_t v = AT(x->work, uint32_t)[--x->work.n];
      for (uint32_t k = so[v]; k < so[v + 1]; k++)
         if (!reach[sa[k]]) {
            reach[sa[k]] = tag;
            if (push_u32(&x->work, sa[k]) != 0)
               return LOOPS_ENOMEM;
         }
   }
   return LOOPS_OK;
}

/* Build G' and its dominators. */
static loops_status dominators(loops_ctx *x)
{
   uint32_t nb = x->g.n;
   if (vec_fill(&x->reach, nb, 0) != 0)
      return LOOPS_ENOMEM;
   loops_status st = reach_from(x, x->entry, 1);
   const uint32_t *po = x->g.poff.v;
   uint8_t *reach = x->reach.v;
   x->edges2.n = 0;
   if (st == LOOPS_OK && add_edge(&x->edges2, nb, x->entry) != 0)
      st = LOOPS_ENOMEM;
   for (int pass = 0; pass < 2 && st == LOOPS_OK; pass++)
      for (uint32_t b = 0; b < nb && st == LOOPS_OK; b++) {
         if (reach[b] || (pass == 0 && po[b] != po[b + 1]))
            continue;
         if (add_edge(&x->edges2, nb, b) != 0)
            return LOOPS_ENOMEM;
         st = reach_from(x, b, 2);
      }
   if (st != LOOPS_OK)
      return st;
   const loops_edge *e = x->edges.v;
   for (size_t i = 0; i < x->edges.n; i++)
      if (reach[e[i].from] == reach[e[i].to] &&
          add_edge(&x->edges2, e[i].from, e[i].to) != 0)
         return LOOPS_ENOMEM;
   if ((st = graph_build(&x->g2, nb + 1, x->edges2.v, x->edges2.n)))
      return st;
   return dom_compute(&x->dom, nb + 1, nb, x->g2.soff.v, x->g2.sadj.v,
                      x->g2.poff.v, x->g2.padj.v);
}

static int cmp_loopedge(const void *pa, const void *pb)
{
   const loops_loopedge *a = pa, *b = pb;
   if (a->header != b->header)
      return a->header < b->header ? -1 : 1;
   return (a->natural < b->natural) - (a->natural > b->natural);
}

/* Retreating edges of G': back edges (natural) and the others, which
 * close irreducible cycles. */
static loops_status loop_edges(loops_ctx *x)
{
   uint32_t nb = x->g.n;
   const uint32_t *so = x->g2.soff.v, *sa = x->g2.sadj.v;
   const uint32_t *pre = x->dom.pre.v, *post = x->dom.post.v;
   const uint32_t *num = x->dom.rponum.v;
   x->ledges.n = 0;
   for (uint32_t u = 0; u < nb; u++) {
      if (num[u] == NONE)
         continue;
      for (uint32_t k = so[u]; k < so[u + 1]; k++) {
         uint32_t t = sa[k];
         if (pre[t] > pre[u] || post[u] > post[t])
            continue;
         loops_loopedge *l = vec_push(&x->ledges);
         if (!l)
            return LOOPS_ENOMEM;
         *l = (loops_loopedge){ t, u, dominates(&x->dom, t, u) };
      }
   }
   vec_sort(&x->ledges, cmp_loopedge);
   return LOOPS_OK;
}

/* Add to the body (mark == stamp, listed in pool) every block that
 * reaches `from` over G without passing a marked block; if `within` is
 * set, only blocks with mark2 == within. */
static loops_status walk_back(loops_ctx *x, uint32_t from, uint32_t within)
{
   uint32_t *mark = x->mark.v, *mark2 = x->mark2.v;
   const uint32_t *po = x->g.poff.v, *pa = x->g.padj.v;
   if (mark[from] == x->stamp || (within && mark2[from] != within))
      return LOOPS_OK;
   mark[from] = x->stamp;
   x->work.n = 0;
   if (push_u32(&x->work, from) || push_u32(&x->pool, from))
      return LOOPS_ENOMEM;
   while (x->work.n > 0) {
      uint32_t v = AT(x->work, uint32_t)[--x->work.n];
      for (uint32_t k = po[v]; k < po[v + 1]; k++) {
         uint32_t p = pa[k];
         if (mark[p] == x->stamp || (within && mark2[p] != within))
            continue;
         mark[p] = x->stamp;
         if (push_u32(&x->work, p) || push_u32(&x->pool, p))
            return LOOPS_ENOMEM;
      }
   }
   return LOOPS_OK;
}

/* mark2 = stamp for the blocks reached from h over G. */
static loops_status walk_fwd(loops_ctx *x, uint32_t h)
{
   uint32_t *mark2 = x->mark2.v;
   const uint32_t *so = x->g.soff.v, *sa = x->g.sadj.v;
   mark2[h] = x->stamp;
   x->work.n = 0;
   if (push_u32(&x->work, h) != 0)
      return LOOPS_ENOMEM;
   while (x->work.n > 0) {
      uint32_t v = AT(x->work, uint32_t)[--x->work.n];
      for (uint32_t k = so[v]; k < so[v + 1]; k++)
         if (mark2[sa[k]] != x->stamp) {
            mark2[sa[k]] = x->stamp;
            if (push_u32(&x->work, sa[k]) != 0)
               return LOOPS_ENOMEM;
         }
   }
   return LOOPS_OK;
}

static uint64_t block_addr(const loops_ctx *x, uint32_t b)
{
   return AT(x->insns, loops_insn)[AT(x->blk_first, uint32_t)[b]].addr;
}

/* A switch's dispatch block (indirect jump) has no known successors, so
 * no walk finds it although its cases, extra roots, flow back into the
 * loop. Take it into the loop when the loop has such blocks and the
 * dispatch block's immediate dominator is in the loop. ij_head[b] lists
 * the dispatch blocks b immediately dominates (linked by ij_next). */
static loops_status add_dispatch_blocks(loops_ctx *x, uint32_t off)
{
   const uint8_t *reach = x->reach.v;
   const uint32_t *head = x->ij_head.v, *next = x->ij_next.v;
   uint32_t *mark = x->mark.v;
   int extra = 0;
   for (size_t i = off; i < x->pool.n && !extra; i++)
      extra = reach[AT(x->pool, uint32_t)[i]] == 2;
   if (!extra || x->ijmp.n == 0)
      return LOOPS_OK;
   /* The pool grows as blocks are added: a dispatch block may dominate
    * another. */
   for (size_t i = off; i < x->pool.n; i++)
      for (uint32_t d = head[AT(x->pool, uint32_t)[i]]; d != NONE;
           d = next[d]) {
         if (mark[d] == x->stamp)
            continue;
         mark[d] = x->stamp;
         if (push_u32(&x->pool, d) != 0)
            return LOOPS_ENOMEM;
      }
   return LOOPS_OK;
}

/* Link the dispatch blocks to their immediate dominators. */
static loops_status link_dispatch_blocks(loops_ctx *x)
{
   uint32_t nb = x->g.n;
   if (vec_fill(&x->ij_head, nb, 0xff) != 0 ||
       vec_resize(&x->ij_next, nb) != 0)
      return LOOPS_ENOMEM;
   uint32_t *head = x->ij_head.v, *next = x->ij_next.v;
   const uint32_t *idom = x->dom.idom.v;
   for (size_t i = 0; i < x->ijmp.n; i++) {
      uint32_t d = AT(x->ijmp, uint32_t)[i];
      if (idom[d] == NONE || idom[d] >= nb)
         continue;
      next[d] = head[idom[d]];
      head[idom[d]] = d;
   }
   return LOOPS_OK;
}

static int cmp_reg_size(const void *pa, const void *pb)
{
   const loops_reg *a = pa, *b = pb;
   if (a->n != b->n)
      return a->n > b->n ? -1 : 1;   /* largest first */
   return (a->header > b->header) - (a->header < b->header);
}

/* One loop per header of retreating edges; sorted largest first, with
 * parents (the smallest enclosing loop) and x->inner = innermost loop. */
static loops_status find_loops(loops_ctx *x)
{
   uint32_t nb = x->g.n;
   x->regs.n = 0;
   x->pool.n = 0;
   loops_status st = loop_edges(x);
   if (st == LOOPS_OK && x->ledges.n > 0)
      st = link_dispatch_blocks(x);
   if (st != LOOPS_OK)
      return st;
   const loops_loopedge *le = x->ledges.v;
   for (size_t i = 0; i < x->ledges.n;) {
      uint32_t h = le[i].header;
      uint32_t off = (uint32_t)x->pool.n;
      x->stamp++;
      AT(x->mark, uint32_t)[h] = x->stamp;
      if (push_u32(&x->pool, h) != 0)
         return LOOPS_ENOMEM;
      int fwd_done = 0;
      uint64_t latch = 0;
      for (; i < x->ledges.n && le[i].header == h; i++) {
         uint32_t last = AT(x->blk_first, uint32_t)[le[i].src + 1] - 1;
         uint64_t at = AT(x->insns, loops_insn)[last].addr;
         if (at > latch)
            latch = at;
         if (le[i].natural) {
            st = walk_back(x, le[i].src, 0);
         } else {
            if (!fwd_done && (st = walk_fwd(x, h)) != LOOPS_OK)
               return st;
            fwd_done = 1;
            st = walk_back(x, le[i].src, x->stamp);
         }
         if (st != LOOPS_OK)
            return st;
      }
      if ((st = add_dispatch_blocks(x, off)) != LOOPS_OK)
         return st;
      loops_reg *r = vec_push(&x->regs);
      if (!r)
         return LOOPS_ENOMEM;
      *r = (loops_reg){ block_addr(x, h), latch, h, off,
                      (uint32_t)(x->pool.n - off), NONE, NONE, LOOPS_LOOP };
   }
   vec_sort(&x->regs, cmp_reg_size);
   /* Largest first: the last loop to claim a header before its own loop
    * is the smallest one around it. */
   if (vec_fill(&x->inner, nb, 0xff) != 0 ||
       vec_fill(&x->loop_at, nb, 0xff) != 0)
      return LOOPS_ENOMEM;
   uint32_t *inner = x->inner.v;
   loops_reg *r = x->regs.v;
   const uint32_t *pool = x->pool.v;
   for (uint32_t l = 0; l < x->regs.n; l++) {
      r[l].parent = inner[r[l].hblock];
      AT(x->loop_at, uint32_t)[r[l].hblock] = l;
      for (uint32_t k = 0; k < r[l].n; k++)
         inner[pool[r[l].off + k]] = l;
   }
   return LOOPS_OK;
}

/* ======================================================================
 * Conditionals
 *
 * Post-dominators of a loop L are those of a local graph: L's blocks
 * (local numbers 0..n-1, x->loc) and a virtual exit n that every edge
 * leaving L or going back to its header reaches, as does a block without
 * successors (an indirect jump, a noreturn call).
 * ====================================================================== */

/* The successor of b in L's local graph for the G edge b -> s. */
static uint32_t local_succ(const loops_ctx *x, uint32_t s, uint32_t h,
                           uint32_t stamp, uint32_t n)
{
   if (s == h || AT(x->mark, uint32_t)[s] != stamp)
      return n;
   return AT(x->loc, uint32_t)[s];
}

/* Is `anc` (a conditional) c itself or one of its ancestors? */
static int in_chain(const loops_reg *r, uint32_t c, uint32_t anc, uint32_t l)
{
   while (c != NONE && c != l) {
      if (c == anc)
         return 1;
      c = r[c].parent;
   }
   return 0;
}

/* The blocks of L reached from B's successors without passing P, L's
 * header or B, appended to the pool. mark2 == stamp2 on them. */
static loops_status cond_region(loops_ctx *x, uint32_t b, uint32_t p,
                                uint32_t h, uint32_t lstamp, uint32_t stamp2)
{
   uint32_t *mark = x->mark.v, *mark2 = x->mark2.v;
   const uint32_t *so = x->g.soff.v, *sa = x->g.sadj.v;
   mark2[b] = mark2[p] = mark2[h] = stamp2;
   x->work.n = 0;
   if (push_u32(&x->work, b) != 0)
      return LOOPS_ENOMEM;
   while (x->work.n > 0) {
      uint32_t v = AT(x->work, uint32_t)[--x->work.n];
      for (uint32_t k = so[v]; k < so[v + 1]; k++) {
         uint32_t s = sa[k];
         if (mark[s] != lstamp || mark2[s] == stamp2)
            continue;
         mark2[s] = stamp2;
         if (push_u32(&x->work, s) || push_u32(&x->pool, s))
            return LOOPS_ENOMEM;
      }
   }
   return LOOPS_OK;
}

/* Is v in loop il (or a loop inside it)? Loops only: inner[] holds the
 * innermost loop of each block while conditionals are being found. */
static int in_loop(const loops_ctx *x, uint32_t v, uint32_t il, uint32_t l)
{
   const loops_reg *all = x->regs.v;
   uint32_t c = AT(x->inner, uint32_t)[v];
   while (c != NONE && c != l) {
      if (c == il)
         return 1;
      c = all[c].parent;
   }
   return 0;
}

/* A loop's guard is not a conditional scope of its own: at -O1 and above
 * gcc tests "is the loop entered at all?" before a rotated loop, which
 * -O0 code does not. The region pool[off..] (mark2 == stamp2, apart from
 * b, p and the header h) is such a guard when it holds exactly one loop
 * directly inside l, the rest of it only leads into that loop (a
 * preheader), and the loop never leads back into the rest. The loop's
 * entry count still shows how often the guard let it run. */
static int loop_guard(const loops_ctx *x, uint32_t l, uint32_t h, uint32_t b,
                      uint32_t p, uint32_t off, uint32_t stamp2)
{
   const uint32_t *mark2 = x->mark2.v, *pool = x->pool.v;
   const uint32_t *so = x->g.soff.v, *sa = x->g.sadj.v;
   const loops_reg *all = x->regs.v;
   uint32_t il = NONE;
   for (size_t k = off; k < x->pool.n; k++) {
      uint32_t c = AT(x->loop_at, uint32_t)[pool[k]];
      if (c == NONE || c == l)
         continue;
      if (il != NONE || all[c].parent != l)
         return 0;
      il = c;
   }
   if (il == NONE)
      return 0;
   uint32_t ih = all[il].hblock;
   for (size_t k = off; k < x->pool.n; k++) {
      uint32_t v = pool[k];
      int v_in = in_loop(x, v, il, l);
      for (uint32_t e = so[v]; e < so[v + 1]; e++) {
         uint32_t s = sa[e];
         int s_rest = mark2[s] == stamp2 && s != b && s != p && s != h &&
                      !in_loop(x, s, il, l);
         if (v_in ? s_rest : !(s_rest || s == ih))
            return 0;
      }
   }
   return 1;
}

/* Find the conditionals of loop l (its blocks must have mark == lstamp
 * and loc = local numbers), append them to regs with parents. */
static loops_status loop_conds(loops_ctx *x, uint32_t l, uint32_t lstamp)
{
   loops_reg lr = AT(x->regs, loops_reg)[l];
   const uint32_t *inner = x->inner.v;
   const uint32_t *so = x->g.soff.v, *sa = x->g.sadj.v;
   const loops_insn *ins = x->insns.v;
   const uint32_t *first = x->blk_first.v;
   uint32_t n = lr.n;

   /* Two-way branches whose innermost loop is l, both ways inside. */
   x->order.n = 0;
   for (uint32_t k = 0; k < n; k++) {
      uint32_t b = AT(x->pool, uint32_t)[lr.off + k];
      if (inner[b] != l || ins[first[b + 1] - 1].kind != IK_JCC ||
          so[b + 1] - so[b] != 2 || sa[so[b]] == sa[so[b] + 1] ||
          AT(x->mark, uint32_t)[sa[so[b]]] != lstamp ||
          AT(x->mark, uint32_t)[sa[so[b] + 1]] != lstamp)
         continue;
      if (push_u32(&x->order, b) != 0)
         return LOOPS_ENOMEM;
   }
   if (x->order.n == 0)
      return LOOPS_OK;

   /* The local graph and its post-dominators. */
   x->edges2.n = 0;
   for (uint32_t k = 0; k < n; k++) {
      uint32_t b = AT(x->pool, uint32_t)[lr.off + k];
      if (so[b] == so[b + 1] && add_edge(&x->edges2, k, n) != 0)
         return LOOPS_ENOMEM;
      for (uint32_t e = so[b]; e < so[b + 1]; e++)
         if (add_edge(&x->edges2, k,
                      local_succ(x, sa[e], lr.hblock, lstamp, n)) != 0)
            return LOOPS_ENOMEM;
   }
   loops_status st = graph_build(&x->g2, n + 1, x->edges2.v, x->edges2.n);
   if (st == LOOPS_OK)
      st = dom_compute(&x->pdom, n + 1, n, x->g2.poff.v, x->g2.padj.v,
                       x->g2.soff.v, x->g2.sadj.v);
   if (st != LOOPS_OK)
      return st;

   size_t first_cond = x->regs.n;
   for (size_t i = 0; i < x->order.n; i++) {
      uint32_t b = AT(x->order, uint32_t)[i];
      uint32_t ip = AT(x->pdom.idom, uint32_t)[AT(x->loc, uint32_t)[b]];
      if (ip == NONE)
         continue;   /* never ends the iteration */
      /* ip == n: the ways meet only at the end of the iteration (gcc
       * copies the latch into both arms of an if/else). */
      uint32_t p = ip < n ? AT(x->pool, uint32_t)[lr.off + ip] : lr.hblock;
      uint32_t off = (uint32_t)x->pool.n;
      x->stamp++;
      if ((st = cond_region(x, b, p, lr.hblock, lstamp, x->stamp)))
         return st;
      if (x->pool.n == off)
         continue;
      if (loop_guard(x, l, lr.hblock, b, p, off, x->stamp)) {
         x->pool.n = off;
         continue;
      }
      loops_reg *r = vec_push(&x->regs);
      if (!r)
         return LOOPS_ENOMEM;
      *r = (loops_reg){ 0, 0, b, off, (uint32_t)(x->pool.n - off), NONE,
                      NONE, LOOPS_CONDITIONAL };
   }

   /* Nesting, largest first: a conditional's parent is the smallest one
    * holding its branch, else the loop. A child keeps only blocks of its
    * parent, so the regions form a tree. */
   loops_reg *r = (loops_reg *)x->regs.v + first_cond;
   size_t nc = x->regs.n - first_cond;
   if (nc > 1)
      qsort(r, nc, sizeof *r, cmp_reg_size);
   uint32_t *cond_of = x->cond_of.v, *cond_st = x->cond_st.v;
   uint32_t *pool = x->pool.v;
   loops_reg *all = x->regs.v;
   for (size_t c = 0; c < nc; c++) {
      uint32_t ci = (uint32_t)(first_cond + c);
      uint32_t b = r[c].hblock;
      uint32_t parent = cond_st[b] == lstamp ? cond_of[b] : l;
      r[c].parent = parent;
      uint32_t kept = 0;
      uint64_t lo = UINT64_MAX;
      for (uint32_t k = 0; k < r[c].n; k++) {
         uint32_t v = pool[r[c].off + k];
         if (parent != l &&
             !(cond_st[v] == lstamp && in_chain(all, cond_of[v], parent, l)))
            continue;
         pool[r[c].off + kept++] = v;
         cond_st[v] = lstamp;
         cond_of[v] = ci;
         uint64_t a = block_addr(x, v);
         if (a < lo)
            lo = a;
      }
      r[c].n = kept;
      r[c].header = r[c].latch = lo;
   }

   /* Loops directly in l whose header lies in a conditional of l. */
   for (uint32_t k = 0; k < n; k++) {
      uint32_t b = pool[lr.off + k];
      uint32_t il = AT(x->loop_at, uint32_t)[b];
      if (il != NONE && il != l && all[il].parent == l &&
          cond_st[b] == lstamp && all[cond_of[b]].n > 0)
         all[il].parent = cond_of[b];
   }
   return LOOPS_OK;
}

static loops_status find_conds(loops_ctx *x)
{
   uint32_t nb = x->g.n;
   if (vec_fill(&x->cond_st, nb, 0) != 0 ||
       vec_resize(&x->cond_of, nb) != 0 || vec_resize(&x->loc, nb) != 0)
      return LOOPS_ENOMEM;
   uint32_t nloops = (uint32_t)x->regs.n;
   for (uint32_t l = 0; l < nloops; l++) {
      /* Mark l's blocks and number them. */
      loops_reg lr = AT(x->regs, loops_reg)[l];
      uint32_t lstamp = ++x->stamp;
      for (uint32_t k = 0; k < lr.n; k++) {
         uint32_t b = AT(x->pool, uint32_t)[lr.off + k];
         AT(x->mark, uint32_t)[b] = lstamp;
         AT(x->loc, uint32_t)[b] = k;
      }
      loops_status st = loop_conds(x, l, lstamp);
      if (st != LOOPS_OK)
         return st;
   }
   return LOOPS_OK;
}

/* ======================================================================
 * The region tree and its ranges
 *
 * Regions are emitted in preorder (parents before children, siblings by
 * header), each block labelled by the last region claiming it, which is
 * the innermost. Runs of consecutive instructions with one label become
 * one range.
 * ====================================================================== */

static loops_status add_name(loops_ctx *x, const char *name, uint32_t *off)
{
   size_t len = strlen(name) + 1;
   if (x->names.n + len > UINT32_MAX || vec_reserve(&x->names,
                                                     x->names.n + len))
      return LOOPS_ENOMEM;
   *off = (uint32_t)x->names.n;
   memcpy((char *)x->names.v + x->names.n, name, len);
   x->names.n += len;
   return LOOPS_OK;
}

/* Sort key of a region for the preorder: children grouped by parent. */
typedef struct loops_key {
   uint32_t parent;   /* local index, NONE for a root */
   uint32_t idx;      /* local index of the region */
   uint64_t header;
   uint8_t kind;
} loops_key;

static int cmp_key(const void *pa, const void *pb)
{
   const loops_key *a = pa, *b = pb;
   /* NONE (roots) sorts last; any fixed order of parents will do. */
   if (a->parent != b->parent)
      return a->parent < b->parent ? -1 : 1;
   if (a->header != b->header)
      return a->header < b->header ? -1 : 1;
   return (a->kind > b->kind) - (a->kind < b->kind);
}

/* Emit the function's regions in preorder; x->inner = global id. */
static loops_status emit_regions(loops_ctx *x, const loops_func *f)
{
   loops_reg *r = x->regs.v;
   uint32_t nr = (uint32_t)x->regs.n;
   x->keys.n = 0;
   for (uint32_t i = 0; i < nr; i++) {
      if (r[i].n == 0)
         continue;
      loops_key *k = vec_push(&x->keys);
      if (!k)
         return LOOPS_ENOMEM;
      *k = (loops_key){ r[i].parent, i, r[i].header, r[i].kind };
   }
   if (x->keys.n == 0)
      return LOOPS_OK;
   vec_sort(&x->keys, cmp_key);
   uint32_t name;
   if (add_name(x, f->name, &name) != LOOPS_OK)
      return LOOPS_ENOMEM;

   /* Preorder with an explicit stack over the sorted children lists:
    * the children of p are the run of keys with parent p. */
   const loops_key *key = x->keys.v;
   size_t nk = x->keys.n;
   x->work.n = 0;
   for (size_t i = nk; i-- > 0 && key[i].parent == NONE;)
      if (push_u32(&x->work, key[i].idx) != 0)
         return LOOPS_ENOMEM;
   uint32_t *inner = x->inner.v;
   memset(inner, 0xff, x->g.n * sizeof *inner);
   while (x->work.n > 0) {
      uint32_t c = AT(x->work, uint32_t)[--x->work.n];
      if (x->out_regions.n >= NONE)
         return LOOPS_ENOMEM;
      r[c].id = (uint32_t)x->out_regions.n;
      loops_region *o = vec_push(&x->out_regions);
      if (!o)
         return LOOPS_ENOMEM;
      *o = (loops_region){ r[c].header + x->bias, f->start + x->bias,
                         r[c].latch + x->bias,
                         r[c].parent == NONE ? LOOPS_NONE : r[r[c].parent].id,
                         name, r[c].kind };
      for (uint32_t k = 0; k < r[c].n; k++)
         inner[AT(x->pool, uint32_t)[r[c].off + k]] = r[c].id;
      /* Children: binary search for the run with parent c. */
      size_t lo = 0, hi = nk;
      while (lo < hi) {
         size_t mid = lo + (hi - lo) / 2;
         if (key[mid].parent < c)
            lo = mid + 1;
         else
            hi = mid;
      }
      size_t end = lo;
      while (end < nk && key[end].parent == c)
         end++;
      for (size_t i = end; i-- > lo;)
         if (push_u32(&x->work, key[i].idx) != 0)
            return LOOPS_ENOMEM;
   }
   return LOOPS_OK;
}

static loops_status emit_ranges(loops_ctx *x)
{
   const uint32_t *inner = x->inner.v, *first = x->blk_first.v;
   const loops_insn *in = x->insns.v;
   loops_range *cur = NULL;
   for (uint32_t b = 0; b < x->g.n; b++) {
      const loops_insn *l = &in[first[b + 1] - 1];
      uint64_t start = in[first[b]].addr + x->bias;
      uint64_t end = l->addr + l->size + x->bias;
      if (inner[b] == NONE) {
         cur = NULL;
         continue;
      }
      if (cur && cur->region == inner[b] && cur->end == start) {
         cur->end = end;
         continue;
      }
      if (!(cur = vec_push(&x->out_ranges)))
         return LOOPS_ENOMEM;
      *cur = (loops_range){ start, end, inner[b] };
   }
   return LOOPS_OK;
}

/* ======================================================================
 * The driver
 * ====================================================================== */

static loops_status analyse(loops_ctx *x, size_t fi)
{
   loops_status st = disasm_function(x, fi);
   if (st != LOOPS_OK || x->insns.n == 0 || x->insns.n >= NONE / 2)
      return st;
   if ((st = build_cfg(x)) != LOOPS_OK)
      return st;
   uint32_t nb = x->g.n;
   if (vec_fill(&x->mark, nb, 0) != 0 || vec_fill(&x->mark2, nb, 0) != 0)
      return LOOPS_ENOMEM;
   x->stamp = 0;
   if ((st = dominators(x)) != LOOPS_OK || (st = find_loops(x)) != LOOPS_OK)
      return st;
   if (x->regs.n == 0)
      return LOOPS_OK;
   if ((st = find_conds(x)) != LOOPS_OK ||
       (st = emit_regions(x, &AT(x->funcs, loops_func)[fi])) != LOOPS_OK)
      return st;
   return emit_ranges(x);
}

static void graph_free(loops_graph *g)
{
   free(g->soff.v);
   free(g->sadj.v);
   free(g->poff.v);
   free(g->padj.v);
}

static void dom_free(loops_dom *d)
{
   free(d->idom.v);
   free(d->rponum.v);
   free(d->rpo.v);
   free(d->pre.v);
   free(d->post.v);
   free(d->stack.v);
}

static void ctx_free(loops_ctx *x)
{
   if (x->insn)
      cs_free(x->insn, 1);
   if (x->cs)
      cs_close(&x->cs);
   loops_vec *v[] = { &x->funcs, &x->secs, &x->noret, &x->noret_got,
                    &x->chunks, &x->insns, &x->blk_first, &x->insn_blk,
                    &x->edges, &x->edges2, &x->reach, &x->mark, &x->mark2,
                    &x->loc, &x->work, &x->inner, &x->cond_of, &x->cond_st,
                    &x->loop_at, &x->ijmp, &x->ij_head, &x->ij_next,
                    &x->ledges, &x->regs, &x->pool,
                    &x->order, &x->keys, &x->out_regions, &x->out_ranges, &x->names };
   for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
      free(v[i]->v);
   graph_free(&x->g);
   graph_free(&x->g2);
   dom_free(&x->dom);
   dom_free(&x->pdom);
}

static void ctx_init(loops_ctx *x)
{
   memset(x, 0, sizeof *x);
   x->funcs.elem = sizeof(loops_func);
   x->secs.elem = sizeof(loops_sec);
   x->noret.elem = x->noret_got.elem = sizeof(uint64_t);
   x->chunks.elem = sizeof(size_t);
   x->insns.elem = sizeof(loops_insn);
   x->edges.elem = x->edges2.elem = sizeof(loops_edge);
   x->reach.elem = 1;
   x->names.elem = 1;
   x->ledges.elem = sizeof(loops_loopedge);
   x->regs.elem = sizeof(loops_reg);
   x->keys.elem = sizeof(loops_key);
   x->out_regions.elem = sizeof(loops_region);
   x->out_ranges.elem = sizeof(loops_range);
   loops_vec *u32[] = { &x->blk_first, &x->insn_blk, &x->mark, &x->mark2,
                      &x->loc, &x->work, &x->inner, &x->cond_of,
                      &x->cond_st, &x->loop_at, &x->ijmp, &x->ij_head,
                      &x->ij_next, &x->pool,
                      &x->order, &x->g.soff, &x->g.sadj, &x->g.poff,
                      &x->g.padj, &x->g2.soff, &x->g2.sadj, &x->g2.poff,
                      &x->g2.padj, &x->dom.idom, &x->dom.rponum,
                      &x->dom.rpo, &x->dom.pre, &x->dom.post,
                      &x->dom.stack, &x->pdom.idom, &x->pdom.rponum,
                      &x->pdom.rpo, &x->pdom.pre, &x->pdom.post,
                      &x->pdom.stack };
   for (size_t i = 0; i < sizeof u32 / sizeof u32[0]; i++)
      u32[i]->elem = sizeof(uint32_t);
}

static int cmp_range(const void *pa, const void *pb)
{
   const loops_range *a = pa, *b = pb;
   if (a->start != b->start)
      return a->start < b->start ? -1 : 1;
   return (a->end < b->end) - (a->end > b->end);   /* longest first */
}

/* Sort the ranges and make them disjoint: overlapping function symbols
 * (nested ones, a part shared by two functions) may cover code twice; the
 * range starting first keeps it. */
static void finish(loops_vec *out)
{
   vec_sort(out, cmp_range);
   loops_range *r = out->v;
   size_t m = 0;
   uint64_t lim = 0;
   for (size_t i = 0; i < out->n; i++) {
      loops_range c = r[i];
      if (m > 0 && c.start < lim)
         c.start = lim;
      if (c.start >= c.end)
         continue;
      r[m++] = c;
      lim = c.end;
   }
   out->n = m;
}

static loops_status run(loops_ctx *x, Elf *elf, uint64_t text_avma,
                        unsigned flags, char *err, size_t errlen)
{
   GElf_Ehdr eh;
   if (elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh))
      return fail(err, errlen, LOOPS_ENOTELF, "not an ELF object");
   if (eh.e_machine != EM_X86_64 || gelf_getclass(elf) != ELFCLASS64)
      return fail(err, errlen, LOOPS_ENOTELF,
                  "not an x86-64 object (e_machine %u)", eh.e_machine);
   if (cs_open(CS_ARCH_X86, CS_MODE_64, &x->cs) != CS_ERR_OK)
      return fail(err, errlen, LOOPS_ELIB, "capstone: cannot open x86-64");
   cs_option(x->cs, CS_OPT_DETAIL, CS_OPT_ON);
   x->insn = cs_malloc(x->cs);
   if (!x->insn)
      return fail(err, errlen, LOOPS_ENOMEM, "out of memory (capstone)");
   uint64_t svma = 0;
   int have_text = 0;
   loops_status st = scan_elf(x, elf, &svma, &have_text, err, errlen);
   if (st != LOOPS_OK)
      return st;
   if (!have_text && !(flags & LOOPS_NO_BIAS))
      return fail(err, errlen, LOOPS_ENOTEXT, "no .text section");
   x->bias = (flags & LOOPS_NO_BIAS) ? 0 : text_avma - svma;

   /* Aliases (memcpy/__memcpy) share a start: analyse each start once,
    * with the largest size. Cold parts last, those no function claimed. */
   for (int cold = 0; cold < 2; cold++)
      for (size_t i = 0; i < x->funcs.n; i++) {
         const loops_func *f = x->funcs.v;
         if (f[i].cold != cold || f[i].done ||
             (i > 0 && f[i].start == f[i - 1].start))
            continue;
         st = analyse(x, i);
         if (st != LOOPS_OK)
            return fail(err, errlen, st, "out of memory");
      }
   finish(&x->out_ranges);
   return LOOPS_OK;
}

loops_status loops_find(const char *path, uint64_t text_avma, unsigned flags,
                        loops_result *out, char *err, size_t errlen)
{
   memset(out, 0, sizeof *out);
   if (elf_version(EV_CURRENT) == EV_NONE)
      return fail(err, errlen, LOOPS_ELIB, "libelf: %s", elf_errmsg(-1));
   int fd = open(path, O_RDONLY | O_CLOEXEC);
   if (fd < 0)
      return fail(err, errlen, LOOPS_EOPEN, "%s", strerror(errno));
   Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
   if (!elf) {
      close(fd);
      return fail(err, errlen, LOOPS_ENOTELF, "not an ELF object");
   }
   loops_ctx x;
   ctx_init(&x);
   loops_status st = run(&x, elf, text_avma, flags, err, errlen);
   if (st == LOOPS_OK) {
      out->regions = x.out_regions.v;
      out->nregions = x.out_regions.n;
      out->ranges = x.out_ranges.v;
      out->nranges = x.out_ranges.n;
      out->names = x.names.v;
      out->names_len = x.names.n;
      x.out_regions.v = x.out_ranges.v = x.names.v = NULL;
   }
   ctx_free(&x);
   elf_end(elf);
   close(fd);
   return st;
}

void loops_result_free(loops_result *r)
{
   free(r->regions);
   free(r->ranges);
   free(r->names);
   memset(r, 0, sizeof *r);
}

long loops_range_at(const loops_result *r, uint64_t addr)
{
   size_t lo = 0, hi = r->nranges;
   while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      if (r->ranges[mid].end <= addr)
         lo = mid + 1;
      else
         hi = mid;
   }
   if (lo < r->nranges && r->ranges[lo].start <= addr)
      return (long)lo;
   return -1;
}
