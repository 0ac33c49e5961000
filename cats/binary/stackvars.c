/* SPDX-License-Identifier: GPL-2.0-or-later */
/* stackvars.c: stack arrays from DWARF (see stackvars.h).
 *
 * Two passes over one object. libelf reads the facts that live in the
 * loaded object itself: .text for the bias, the executable sections (a
 * function's low_pc outside them is a discarded COMDAT copy or a linker
 * tombstone), whether .debug_info is there, and the build-id note that
 * names the separate debug file when it is not. libdwarf then walks every
 * compilation unit once: scopes (namespaces, modules, classes) are entered
 * only to find functions, and functions only to find their variables, so
 * types are visited just when a variable's type is resolved.
 *
 * Robustness: every libdwarf error is freed and makes the DIE (or, for a
 * broken unit header, the rest of the walk) count as "not an array";
 * scope nesting, type chains and origin chains are bounded, so cyclic or
 * hostile DWARF cannot recurse without end. Cost: linear in .debug_info;
 * no caching between calls. */
#define _POSIX_C_SOURCE 200809L

#include "cats/trace/errmsg.h"
#include "stackvars.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libdwarf/dwarf.h>
#include <libdwarf/libdwarf.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define STACKVARS_MAX_SCOPE_DEPTH 64    /* nested DIEs entered by the walk */
#define STACKVARS_MAX_TYPE_DEPTH 32     /* typedef/qualifier/array chain */
#define STACKVARS_MAX_ORIGIN_HOPS 4     /* abstract_origin/specification chain */
#define STACKVARS_MAX_SIZE (1ull << 40) /* larger "stack arrays" are nonsense */
#define STACKVARS_MAX_BUILD_ID 64

/* ---- ELF facts ---------------------------------------------------------- */

/* An executable address range [lo, hi) of the object. */
typedef struct stackvars_range {
   uint64_t lo, hi;
} stackvars_range;

/* What stackvars_find needs from the object's own ELF headers. */
typedef struct stackvars_elf {
   int have_text;                        /* a .text section exists */
   uint64_t text_svma;                   /* its sh_addr */
   int have_debug_info;                  /* a non-empty .debug_info */
   uint8_t build_id[STACKVARS_MAX_BUILD_ID];   /* NT_GNU_BUILD_ID descriptor */
   size_t build_id_len;                  /* 0 when there is none */
   stackvars_range *exec;                      /* SHF_EXECINSTR sections */
   size_t nexec;
} stackvars_elf;

#define fail(err, errlen, st, ...) ERRMSG_FAIL(err, errlen, st, __VA_ARGS__)

/* Remember the first GNU build-id note of a SHT_NOTE section. */
static void read_build_id(Elf_Scn *scn, stackvars_elf *e)
{
   Elf_Data *d = elf_getdata(scn, NULL);
   size_t off = 0, name_off, desc_off;
   GElf_Nhdr nh;
   while (d && e->build_id_len == 0 &&
          (off = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
      if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
          memcmp((const char *)d->d_buf + name_off, "GNU", 4) == 0 &&
          nh.n_descsz >= 2 && nh.n_descsz <= STACKVARS_MAX_BUILD_ID) {
         memcpy(e->build_id, (const char *)d->d_buf + desc_off,
                nh.n_descsz);
         e->build_id_len = nh.n_descsz;
      }
   }
}

static stackvars_status scan_sections(Elf *elf, stackvars_elf *e, char *err,
                                      size_t errlen)
{
   size_t nsecs, shstrndx;
   if (elf_getshdrnum(elf, &nsecs) != 0 ||
       elf_getshdrstrndx(elf, &shstrndx) != 0)
      return fail(err, errlen, STACKVARS_ENOTELF, "bad section headers: %s",
                  elf_errmsg(-1));
   e->exec = calloc(nsecs ? nsecs : 1, sizeof *e->exec);
   if (!e->exec)
      return fail(err, errlen, STACKVARS_ENOMEM, "out of memory");
   Elf_Scn *scn = NULL;
   while ((scn = elf_nextscn(elf, scn)) != NULL) {
      GElf_Shdr sh;
      if (!gelf_getshdr(scn, &sh))
         continue;
      const char *name = elf_strptr(elf, shstrndx, sh.sh_name);
      if (name && strcmp(name, ".text") == 0 && !e->have_text) {
         e->have_text = 1;
         e->text_svma = sh.sh_addr;
      }
      if (name && sh.sh_type != SHT_NOBITS && sh.sh_size > 0 &&
          (strcmp(name, ".debug_info") == 0 ||
           strcmp(name, ".zdebug_info") == 0))
         e->have_debug_info = 1;
      if ((sh.sh_flags & SHF_EXECINSTR) && (sh.sh_flags & SHF_ALLOC) &&
          sh.sh_size > 0 && e->nexec < nsecs)
         e->exec[e->nexec++] = (stackvars_range){ sh.sh_addr,
                                            sh.sh_addr + sh.sh_size };
      if (sh.sh_type == SHT_NOTE && e->build_id_len == 0)
         read_build_id(scn, e);
   }
   return STACKVARS_OK;
}

static stackvars_status read_elf(const char *path, stackvars_elf *e, char *err,
                                 size_t errlen)
{
   if (elf_version(EV_CURRENT) == EV_NONE)
      return fail(err, errlen, STACKVARS_ENOTELF, "libelf: %s", elf_errmsg(-1));
   int fd = open(path, O_RDONLY | O_CLOEXEC);
   if (fd < 0)
      return fail(err, errlen, STACKVARS_EOPEN, "%s", strerror(errno));
   stackvars_status st;
   GElf_Ehdr eh;
   Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
   if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh))
      st = fail(err, errlen, STACKVARS_ENOTELF, "not an ELF object");
   else if (eh.e_machine != EM_X86_64 || gelf_getclass(elf) != ELFCLASS64)
      st = fail(err, errlen, STACKVARS_ENOTELF,
                "not an x86-64 object (e_machine %u)", eh.e_machine);
   else
      st = scan_sections(elf, e, err, errlen);
   if (elf)
      elf_end(elf);
   close(fd);
   return st;
}

static int in_exec(const stackvars_elf *e, uint64_t addr)
{
   for (size_t i = 0; i < e->nexec; i++)
      if (addr >= e->exec[i].lo && addr < e->exec[i].hi)
         return 1;
   return 0;
}

/* DEBUG_DIR/.build-id/xx/rest.debug; 0 if there is no build id or the
 * path does not fit. */
static int build_id_path(const stackvars_elf *e, const char *dir, char *buf,
                         size_t len)
{
   if (e->build_id_len < 2)
      return 0;
   int w = snprintf(buf, len, "%s/.build-id/%02x/", dir, e->build_id[0]);
   if (w < 0 || (size_t)w >= len)
      return 0;
   size_t pos = (size_t)w;
   for (size_t i = 1; i < e->build_id_len; i++) {
      if (pos + 3 > len)
         return 0;
      snprintf(buf + pos, 3, "%02x", e->build_id[i]);
      pos += 2;
   }
   return pos + sizeof ".debug" <= len &&
          snprintf(buf + pos, len - pos, ".debug") == 6;
}

/* ---- DWARF access -------------------------------------------------------- */

/* The walk's state; fn-independent. */
typedef struct stackvars_ctx {
   Dwarf_Debug dbg;
   Dwarf_Error err;           /* scratch for every libdwarf call */
   const stackvars_elf *elf;
   uint64_t bias;
   Dwarf_Half addr_size;      /* of the current unit */
   int64_t lower_default;     /* default array lower bound, its language */
   stackvars_var *v;                /* results */
   size_t n, cap;
   int oom;                   /* out of memory: stop everything */
} stackvars_ctx;

/* A function whose variables are being collected. */
typedef struct stackvars_fn {
   uint64_t entry;            /* low_pc + bias */
   const char *name;          /* owned by libdwarf, or NULL */
} stackvars_fn;

/* 1 if rc is DW_DLV_OK; an error is freed at once (a skipped DIE is all
 * it costs us). */
static int dw_ok(stackvars_ctx *x, int rc)
{
   if (rc == DW_DLV_ERROR && x->err)
      dwarf_dealloc_error(x->dbg, x->err);
   x->err = NULL;
   return rc == DW_DLV_OK;
}

static int has_attr(stackvars_ctx *x, Dwarf_Die d, Dwarf_Half at)
{
   Dwarf_Bool b = 0;
   return dw_ok(x, dwarf_hasattr(d, at, &b, &x->err)) && b;
}

/* Follow a reference attribute within this file's .debug_info. Forms that
 * point elsewhere (dwz's DW_FORM_GNU_ref_alt, type units' ref_sig8) are
 * refused: their offsets mean nothing here. The caller frees *out. */
static int follow_ref(stackvars_ctx *x, Dwarf_Die die, Dwarf_Half at,
                      Dwarf_Die *out)
{
   Dwarf_Attribute a;
   if (!dw_ok(x, dwarf_attr(die, at, &a, &x->err)))
      return 0;
   Dwarf_Half form = 0;
   Dwarf_Off off = 0;
   int r = dw_ok(x, dwarf_whatform(a, &form, &x->err)) &&
           (form == DW_FORM_ref1 || form == DW_FORM_ref2 ||
            form == DW_FORM_ref4 || form == DW_FORM_ref8 ||
            form == DW_FORM_ref_udata || form == DW_FORM_ref_addr) &&
           dw_ok(x, dwarf_global_formref(a, &off, &x->err));
   dwarf_dealloc_attribute(a);
   return r && dw_ok(x, dwarf_offdie_b(x->dbg, off,
                                       dwarf_get_die_infotypes_flag(die),
                                       out, &x->err));
}

/* A constant-class attribute. 0 when absent or not a constant: a bound
 * given by an expression or a reference is a runtime value (VLA). */
static int attr_const(stackvars_ctx *x, Dwarf_Die die, Dwarf_Half at, int64_t *v)
{
   Dwarf_Attribute a;
   if (!dw_ok(x, dwarf_attr(die, at, &a, &x->err)))
      return 0;
   Dwarf_Half form = 0;
   int r = 0;
   if (dw_ok(x, dwarf_whatform(a, &form, &x->err))) {
      if (form == DW_FORM_sdata || form == DW_FORM_implicit_const) {
         Dwarf_Signed s;
         if ((r = dw_ok(x, dwarf_formsdata(a, &s, &x->err))))
            *v = (int64_t)s;
      } else if (form == DW_FORM_data1 || form == DW_FORM_data2 ||
                 form == DW_FORM_data4 || form == DW_FORM_data8 ||
                 form == DW_FORM_udata) {
         Dwarf_Unsigned u;
         /* data8 all-ones is gcc's -1 upper bound of a zero-length
          * array; the cast keeps it -1. */
         if ((r = dw_ok(x, dwarf_formudata(a, &u, &x->err))))
            *v = (int64_t)u;
      }
   }
   dwarf_dealloc_attribute(a);
   return r;
}

static int read_sleb(const uint8_t *p, size_t len, int64_t *v,
                     size_t *used)
{
   uint64_t r = 0;
   unsigned shift = 0;
   for (size_t i = 0; i < len && i < 10; i++) {
      r |= (uint64_t)(p[i] & 0x7f) << shift;
      shift += 7;
      if (!(p[i] & 0x80)) {
         if (shift < 64 && (p[i] & 0x40))
            r |= ~0ull << shift;
         *v = (int64_t)r;
         *used = i + 1;
         return 1;
      }
   }
   return 0;
}

/* A location expression made of exactly one operation we understand:
 * DW_OP_call_frame_cfa, or DW_OP_fbreg / DW_OP_bregN with its operand. */
static int decode_op(const uint8_t *p, size_t len, unsigned *op,
                     int64_t *arg)
{
   if (len == 0)
      return 0;
   *op = p[0];
   *arg = 0;
   if (*op == DW_OP_call_frame_cfa)
      return len == 1;
   if (*op != DW_OP_fbreg && !(*op >= DW_OP_breg0 && *op <= DW_OP_breg31))
      return 0;
   size_t used;
   return read_sleb(p + 1, len - 1, arg, &used) && used == len - 1;
}

/* Decode attribute `at` as a single-operation expression (DWARF 4/5
 * exprloc or DWARF 2/3 block). Location lists give 0. */
static int single_op(stackvars_ctx *x, Dwarf_Die die, Dwarf_Half at, unsigned *op,
                     int64_t *arg)
{
   Dwarf_Attribute a;
   if (!dw_ok(x, dwarf_attr(die, at, &a, &x->err)))
      return 0;
   Dwarf_Half form = 0;
   int r = 0;
   if (dw_ok(x, dwarf_whatform(a, &form, &x->err))) {
      if (form == DW_FORM_exprloc) {
         Dwarf_Unsigned len;
         Dwarf_Ptr p;
         if (dw_ok(x, dwarf_formexprloc(a, &len, &p, &x->err)))
            r = decode_op(p, (size_t)len, op, arg);
      } else if (form == DW_FORM_block1 || form == DW_FORM_block2 ||
                 form == DW_FORM_block4 || form == DW_FORM_block) {
         Dwarf_Block *b;
         if (dw_ok(x, dwarf_formblock(a, &b, &x->err))) {
            r = decode_op(b->bl_data, (size_t)b->bl_len, op, arg);
            dwarf_dealloc(x->dbg, b, DW_DLA_BLOCK);
         }
      }
   }
   dwarf_dealloc_attribute(a);
   return r;
}

/* The DIE carrying attribute `at` for `die`: itself, or one reached by
 * DW_AT_abstract_origin / DW_AT_specification (concrete instances of
 * inlined or out-of-line functions and their variables keep name and
 * type there). *owned tells whether the caller must free the result. */
static Dwarf_Die origin_with(stackvars_ctx *x, Dwarf_Die die, Dwarf_Half at,
                             int *owned)
{
   Dwarf_Die cur = die;
   *owned = 0;
   for (int hop = 0; hop <= STACKVARS_MAX_ORIGIN_HOPS; hop++) {
      if (has_attr(x, cur, at))
         return cur;
      Dwarf_Die next = NULL;
      if (!follow_ref(x, cur, DW_AT_abstract_origin, &next) &&
          !follow_ref(x, cur, DW_AT_specification, &next))
         break;
      if (*owned)
         dwarf_dealloc_die(cur);
      cur = next;
      *owned = 1;
   }
   if (*owned)
      dwarf_dealloc_die(cur);
   *owned = 0;
   return NULL;
}

/* DW_AT_name, possibly inherited; points into libdwarf's string data,
 * valid until dwarf_finish. */
static const char *die_name(stackvars_ctx *x, Dwarf_Die die)
{
   int owned;
   Dwarf_Die d = origin_with(x, die, DW_AT_name, &owned);
   char *s = NULL;
   if (d && !dw_ok(x, dwarf_diename(d, &s, &x->err)))
      s = NULL;
   if (owned)
      dwarf_dealloc_die(d);
   return s;
}

/* ---- types --------------------------------------------------------------- */

static uint64_t type_size(stackvars_ctx *x, Dwarf_Die die, int arrays_only,
                          int depth);

static uint64_t ref_type_size(stackvars_ctx *x, Dwarf_Die die, int arrays_only,
                              int depth)
{
   Dwarf_Die t;
   if (!follow_ref(x, die, DW_AT_type, &t))
      return 0;
   uint64_t s = type_size(x, t, arrays_only, depth + 1);
   dwarf_dealloc_die(t);
   return s;
}

/* Elements of one dimension; 0 if not a known constant. */
static uint64_t subrange_count(stackvars_ctx *x, Dwarf_Die sub)
{
   int64_t count, lo = x->lower_default, hi;
   if (attr_const(x, sub, DW_AT_count, &count))
      return count > 0 ? (uint64_t)count : 0;
   if (has_attr(x, sub, DW_AT_lower_bound) &&
       !attr_const(x, sub, DW_AT_lower_bound, &lo))
      return 0;
   if (!attr_const(x, sub, DW_AT_upper_bound, &hi) || hi < lo)
      return 0;   /* flexible, runtime (VLA) or zero-length */
   uint64_t n = (uint64_t)hi - (uint64_t)lo + 1;
   return n;      /* 0 on wrap-around */
}

/* Bytes of a fixed-shape array: element size times every dimension. */
static uint64_t array_size(stackvars_ctx *x, Dwarf_Die arr, int depth)
{
   /* Strided or descriptor-based (Fortran allocatable, pointer,
    * assumed-shape/rank) arrays do not sit whole in the frame. */
   static const Dwarf_Half dynamic[] = {
      DW_AT_byte_stride, DW_AT_bit_stride, DW_AT_data_location,
      DW_AT_allocated, DW_AT_associated, DW_AT_rank
   };
   for (size_t i = 0; i < sizeof dynamic / sizeof dynamic[0]; i++)
      if (has_attr(x, arr, dynamic[i]))
         return 0;
   uint64_t total = ref_type_size(x, arr, 0, depth);
   Dwarf_Die c = NULL;
   if (total == 0 || !dw_ok(x, dwarf_child(arr, &c, &x->err)))
      return 0;
   Dwarf_Bool is_info = dwarf_get_die_infotypes_flag(c);
   int dims = 0;
   while (c) {
      Dwarf_Half tag = 0;
      uint64_t count = 0;
      if (dw_ok(x, dwarf_tag(c, &tag, &x->err)) &&
          tag == DW_TAG_subrange_type)
         count = subrange_count(x, c);
      /* Enumeration-indexed (Ada, Pascal) and unknown children: give up. */
      if (count == 0 || __builtin_mul_overflow(total, count, &total) ||
          total > STACKVARS_MAX_SIZE) {
         dwarf_dealloc_die(c);
         return 0;
      }
      dims++;
      Dwarf_Die s = NULL;
      if (!dw_ok(x, dwarf_siblingof_b(x->dbg, c, is_info, &s, &x->err)))
         s = NULL;
      dwarf_dealloc_die(c);
      c = s;
   }
   return dims > 0 ? total : 0;
}

/* Bytes of a type; 0 if unknown or not fixed. With arrays_only, anything
 * but an array (under typedefs and qualifiers) is 0 too. */
static uint64_t type_size(stackvars_ctx *x, Dwarf_Die die, int arrays_only,
                          int depth)
{
   Dwarf_Half tag;
   int64_t v;
   if (depth > STACKVARS_MAX_TYPE_DEPTH || !dw_ok(x, dwarf_tag(die, &tag, &x->err)))
      return 0;
   switch (tag) {
   case DW_TAG_array_type:
      return array_size(x, die, depth);
   case DW_TAG_typedef:
   case DW_TAG_const_type:
   case DW_TAG_volatile_type:
   case DW_TAG_restrict_type:
   case DW_TAG_atomic_type:
   case DW_TAG_immutable_type:
   case DW_TAG_shared_type:
      return ref_type_size(x, die, arrays_only, depth);
   default:
      break;
   }
   if (arrays_only)
      return 0;
   if (attr_const(x, die, DW_AT_byte_size, &v))
      return v > 0 ? (uint64_t)v : 0;
   if (tag == DW_TAG_pointer_type || tag == DW_TAG_reference_type ||
       tag == DW_TAG_rvalue_reference_type)
      return x->addr_size;
   return 0;   /* incomplete struct, void, subroutine type, ... */
}

/* ---- the walk ------------------------------------------------------------ */

static void add_result(stackvars_ctx *x, const stackvars_fn *fn, int64_t off,
                       uint64_t size, const char *name)
{
   if (x->n == x->cap) {
      size_t cap = x->cap ? x->cap * 2 : 64;
      stackvars_var *v = realloc(x->v, cap * sizeof *v);
      if (!v) {
         x->oom = 1;
         return;
      }
      x->v = v;
      x->cap = cap;
   }
   stackvars_var *r = &x->v[x->n];
   r->fn_entry = fn->entry;
   r->cfa_offset = off;
   r->size = size;
   r->name = strdup(name);
   r->fn_name = fn->name ? strdup(fn->name) : NULL;
   if (!r->name || (fn->name && !r->fn_name)) {
      free(r->name);
      free(r->fn_name);
      x->oom = 1;
      return;
   }
   x->n++;
}

/* A variable of function fn: keep it if it is a CFA-relative array. */
static void visit_variable(stackvars_ctx *x, Dwarf_Die var, const stackvars_fn *fn)
{
   unsigned op;
   int64_t off;
   if (!single_op(x, var, DW_AT_location, &op, &off) || op != DW_OP_fbreg ||
       off >= 0)
      return;   /* static, register, location list, breg, above the CFA */
   int owned;
   Dwarf_Die td = origin_with(x, var, DW_AT_type, &owned);
   if (!td)
      return;
   uint64_t size = ref_type_size(x, td, 1, 0);
   if (owned)
      dwarf_dealloc_die(td);
   /* The array must end at or below the CFA. */
   if (size == 0 || size > (uint64_t)0 - (uint64_t)off)
      return;
   const char *name = die_name(x, var);
   if (name && name[0])
      add_result(x, fn, off, size, name);
}

/* A subprogram whose variables can be placed: code in this object and a
 * frame base that is the CFA. */
static int function_of(stackvars_ctx *x, Dwarf_Die die, stackvars_fn *f)
{
   Dwarf_Addr lo;
   unsigned op;
   int64_t arg;
   if (!dw_ok(x, dwarf_lowpc(die, &lo, &x->err)) || !in_exec(x->elf, lo))
      return 0;
   if (!single_op(x, die, DW_AT_frame_base, &op, &arg) ||
       op != DW_OP_call_frame_cfa)
      return 0;
   f->entry = lo + x->bias;
   f->name = die_name(x, die);
   return 1;
}

static void walk(stackvars_ctx *x, Dwarf_Die parent, const stackvars_fn *fn, int depth);

static void visit(stackvars_ctx *x, Dwarf_Die die, const stackvars_fn *fn, int depth)
{
   Dwarf_Half tag;
   if (!dw_ok(x, dwarf_tag(die, &tag, &x->err)))
      return;
   switch (tag) {
   case DW_TAG_subprogram: {
      /* Nested functions (GNU C, Fortran contains) are found inside
       * functions whose own variables we cannot place, too. */
      stackvars_fn f;
      walk(x, die, function_of(x, die, &f) ? &f : NULL, depth + 1);
      break;
   }
   case DW_TAG_variable:
      if (fn)
         visit_variable(x, die, fn);
      break;
   case DW_TAG_lexical_block:
   case DW_TAG_inlined_subroutine:   /* its frame is the caller's */
   case DW_TAG_try_block:
   case DW_TAG_catch_block:
      walk(x, die, fn, depth + 1);
      break;
   case DW_TAG_namespace:
   case DW_TAG_module:
   case DW_TAG_class_type:
   case DW_TAG_structure_type:
   case DW_TAG_union_type:
      walk(x, die, NULL, depth + 1);
      break;
   default:
      break;   /* parameters, types, call sites, ... */
   }
}

/* Visit the children of parent. */
static void walk(stackvars_ctx *x, Dwarf_Die parent, const stackvars_fn *fn, int depth)
{
   Dwarf_Die c = NULL;
   if (depth > STACKVARS_MAX_SCOPE_DEPTH || x->oom ||
       !dw_ok(x, dwarf_child(parent, &c, &x->err)))
      return;
   Dwarf_Bool is_info = dwarf_get_die_infotypes_flag(c);
   while (c && !x->oom) {
      visit(x, c, fn, depth);
      Dwarf_Die s = NULL;
      if (!dw_ok(x, dwarf_siblingof_b(x->dbg, c, is_info, &s, &x->err)))
         s = NULL;
      dwarf_dealloc_die(c);
      c = s;
   }
   if (c)
      dwarf_dealloc_die(c);
}

/* DWARF 5 table 7.17: languages whose arrays start at 1 by default. */
static int64_t lower_default(stackvars_ctx *x, Dwarf_Die cu)
{
   Dwarf_Unsigned lang = 0;
   if (!dw_ok(x, dwarf_srclang(cu, &lang, &x->err)))
      return 0;
   switch (lang) {
   case DW_LANG_Ada83: case DW_LANG_Ada95:
   case DW_LANG_Cobol74: case DW_LANG_Cobol85:
   case DW_LANG_Fortran77: case DW_LANG_Fortran90: case DW_LANG_Fortran95:
   case DW_LANG_Fortran03: case DW_LANG_Fortran08:
   case DW_LANG_Modula2: case DW_LANG_Modula3:
   case DW_LANG_Pascal83: case DW_LANG_PLI: case DW_LANG_Julia:
      return 1;
   default:
      return 0;
   }
}

static void walk_units(stackvars_ctx *x)
{
   while (!x->oom) {
      Dwarf_Unsigned hlen, typeoff, next;
      Dwarf_Half ver, asz, lsz, esz, utype;
      Dwarf_Off abbrev;
      Dwarf_Sig8 sig;
      /* After an error the iterator cannot go on: stop with what we have. */
      if (!dw_ok(x, dwarf_next_cu_header_d(x->dbg, 1, &hlen, &ver, &abbrev,
                                           &asz, &lsz, &esz, &sig, &typeoff,
                                           &next, &utype, &x->err)))
         return;
      Dwarf_Die cu = NULL;
      if (!dw_ok(x, dwarf_siblingof_b(x->dbg, NULL, 1, &cu, &x->err)))
         continue;
      x->addr_size = asz;
      x->lower_default = lower_default(x, cu);
      walk(x, cu, NULL, 0);
      dwarf_dealloc_die(cu);
   }
}

/* ---- results ------------------------------------------------------------- */

static int cmp_var(const void *pa, const void *pb)
{
   const stackvars_var *a = pa, *b = pb;
   if (a->fn_entry != b->fn_entry)
      return a->fn_entry < b->fn_entry ? -1 : 1;
   if (a->cfa_offset != b->cfa_offset)
      return a->cfa_offset < b->cfa_offset ? -1 : 1;
   if (a->size != b->size)
      return a->size < b->size ? -1 : 1;
   return strcmp(a->name, b->name);
}

/* Sort and drop duplicates (one function described by several units). */
static void finish(stackvars_ctx *x)
{
   if (x->n > 1)
      qsort(x->v, x->n, sizeof *x->v, cmp_var);
   size_t m = 0;
   for (size_t i = 0; i < x->n; i++) {
      if (m > 0 && cmp_var(&x->v[m - 1], &x->v[i]) == 0) {
         free(x->v[i].name);
         free(x->v[i].fn_name);
         continue;
      }
      x->v[m++] = x->v[i];
   }
   x->n = m;
}

static stackvars_status read_dwarf(const char *path, const stackvars_elf *e,
                                   uint64_t bias, stackvars_var **out, size_t *n,
                                   char *err, size_t errlen)
{
   stackvars_ctx x;
   memset(&x, 0, sizeof x);
   x.elf = e;
   x.bias = bias;
   int rc = dwarf_init_path(path, NULL, 0, DW_DLC_READ, DW_GROUPNUMBER_ANY,
                            NULL, NULL, &x.dbg, NULL, 0, NULL, &x.err);
   if (rc == DW_DLV_NO_ENTRY)
      return fail(err, errlen, STACKVARS_ENODEBUG, "%s: no DWARF sections", path);
   if (rc != DW_DLV_OK) {
      (void)fail(err, errlen, STACKVARS_EDWARF, "%s: libdwarf: %s", path,
           x.err ? dwarf_errmsg(x.err) : "cannot open");
      if (x.err)
         dwarf_dealloc_error(NULL, x.err);
      return STACKVARS_EDWARF;
   }
   walk_units(&x);
   dwarf_finish(x.dbg, &x.err);
   if (x.oom) {
      stackvars_free(x.v, x.n);
      return fail(err, errlen, STACKVARS_ENOMEM, "out of memory");
   }
   finish(&x);
   *out = x.v;
   *n = x.n;
   return STACKVARS_OK;
}

stackvars_status stackvars_find(const char *path, uint64_t text_avma, unsigned flags,
                                const char *debug_dir, stackvars_var **out, size_t *n,
                                char *err, size_t errlen)
{
   *out = NULL;
   *n = 0;
   stackvars_elf e;
   memset(&e, 0, sizeof e);
   stackvars_status st = read_elf(path, &e, err, errlen);
   if (st == STACKVARS_OK && !e.have_text && !(flags & STACKVARS_NO_BIAS))
      st = fail(err, errlen, STACKVARS_ENOTEXT, "no .text section");
   char dbg[4096];
   const char *dwarf_path = path;
   if (st == STACKVARS_OK && !e.have_debug_info && (flags & STACKVARS_OWN_DWARF))
      st = fail(err, errlen, STACKVARS_ENODEBUG, "no .debug_info");
   else if (st == STACKVARS_OK && !e.have_debug_info) {
      if (!build_id_path(&e, debug_dir ? debug_dir : STACKVARS_DEBUG_DIR, dbg,
                         sizeof dbg))
         st = fail(err, errlen, STACKVARS_ENODEBUG,
                   "no .debug_info and no build-id note");
      else if (access(dbg, R_OK) != 0)
         st = fail(err, errlen, STACKVARS_ENODEBUG,
                   "no .debug_info, and no %s", dbg);
      dwarf_path = dbg;
   }
   if (st == STACKVARS_OK) {
      uint64_t bias = (flags & STACKVARS_NO_BIAS) ? 0 : text_avma - e.text_svma;
      st = read_dwarf(dwarf_path, &e, bias, out, n, err, errlen);
   }
   free(e.exec);
   return st;
}

void stackvars_free(stackvars_var *v, size_t n)
{
   for (size_t i = 0; v && i < n; i++) {
      free(v[i].name);
      free(v[i].fn_name);
   }
   free(v);
}
