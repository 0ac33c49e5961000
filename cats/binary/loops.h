/* SPDX-License-Identifier: GPL-2.0-or-later */
/* loops.h: find loops and conditional regions in x86-64 ELF code.
 *
 * The Valgrind tool cannot disassemble a whole object itself, so it asks
 * the helper (LOOPS_QUERY) for the static loops and `if` regions of each
 * object it loads. Per function symbol (with its out-of-line `.cold` part):
 *   control-flow graph  basic blocks of the capstone disassembly; blocks
 *               no branch reaches (landing pads, switch cases) are extra
 *               roots whose edges still count;
 *   loop        a natural loop: the header h of a back edge u -> h (h
 *               dominates u) and every block that reaches u without
 *               passing h, landing pads included; one loop per header.
 *               A cycle entered at two places (irreducible) is the loop
 *               of its retreating edge u -> t: the blocks on paths t ->* u;
 *   conditional for a two-way branch B in loop L (innermost) with both
 *               successors in L (so no loop exit): the blocks of L
 *               reachable from them without passing B's immediate
 *               post-dominator P within L, where edges leaving L or back
 *               to its header go to a virtual end of the iteration. If P
 *               is that end (gcc copies the latch into both arms of an
 *               if/else), the region runs to the end of the iteration.
 * Regions form a tree: a loop's parent is the innermost loop or
 * conditional holding its header, a conditional's parent its loop or the
 * innermost conditional of that loop holding its branch. The code is then
 * cut into non-overlapping ranges, each labelled with the innermost region
 * of its instructions; code in no region has no range. */
#ifndef CATS_BINARY_LOOPS_H
#define CATS_BINARY_LOOPS_H

#include <stddef.h>
#include <stdint.h>

#define LOOPS_ERRLEN 256
#define LOOPS_NONE UINT32_MAX   /* no parent */

typedef enum loops_status {
   LOOPS_OK = 0,
   LOOPS_EOPEN,     /* the file cannot be opened */
   LOOPS_ENOTELF,   /* not an ELF object, or not x86-64 */
   LOOPS_ENOTEXT,   /* no .text section to compute the bias from */
   LOOPS_ELIB,      /* libelf or capstone failed */
   LOOPS_ENOMEM     /* out of memory */
} loops_status;

enum loops_kind { LOOPS_LOOP = 2, LOOPS_CONDITIONAL = 3 }; /* = cats_ctx_kind */

typedef struct loops_region {
   uint64_t header;  /* loop: first address of the header block (runs once
                        per iteration); conditional: lowest address of it */
   uint64_t func;    /* entry of the function it lies in */
   uint64_t latch;   /* loop: the last instruction of its bottom-most back
                        edge's source block (the `for`'s condition or
                        increment, on the loop's own source line);
                        conditional: its header */
   uint32_t parent;  /* index of the enclosing region (smaller than this
                        one's), or LOOPS_NONE */
   uint32_t name;    /* offset of the function's name in loops_result.names */
   uint8_t kind;     /* enum loops_kind */
} loops_region;

typedef struct loops_range {
   uint64_t start;   /* first byte (guest address when biased) */
   uint64_t end;     /* one past the last byte */
   uint32_t region;  /* index of the innermost region of this code */
} loops_range;

typedef struct loops_result {
   loops_region *regions;   /* parents before children */
   size_t nregions;
   loops_range *ranges;     /* sorted by start, not overlapping */
   size_t nranges;
   char *names;           /* NUL-terminated function names */
   size_t names_len;
} loops_result;

/* Flags for loops_find. */
#define LOOPS_NO_BIAS 1u   /* report ELF addresses (ignore text_avma) */

/* Find the regions of the object at `path`, addresses shifted by
 * bias = text_avma - (.text sh_addr) unless LOOPS_NO_BIAS. On success *out
 * holds them (release with loops_result_free); on failure *out is empty and
 * err says why. */
loops_status loops_find(const char *path, uint64_t text_avma, unsigned flags,
                        loops_result *out, char *err, size_t errlen);

void loops_result_free(loops_result *r);

/* Index of the range holding addr, or -1. */
long loops_range_at(const loops_result *r, uint64_t addr);

#endif /* CATS_BINARY_LOOPS_H */
