/* loops.h: find loops and conditional regions in x86-64 ELF code.
 *
 * The Valgrind tool cannot disassemble a whole object itself, so it asks
 * the helper (LOOPS_QUERY) for the static loop and `if` ranges of each
 * object it loads. Per function symbol:
 *   loop        [t, j + len) for every direct jump at j whose target t lies
 *               in [function start, j]; loops with one header are merged.
 *               A loop closed by a conditional back edge that partially
 *               overlaps an earlier loop is the same loop laid out around
 *               its header: the earlier range is extended to cover it.
 *   conditional [j + len, t) for a forward jcc at j inside a loop whose
 *               target t lies before the innermost loop's end (a jump to
 *               the end leaves the loop): the code run only when the
 *               branch is not taken.
 * Only properly nesting ranges are kept: loops first, then conditionals
 * that nest with them and with each other (for partial overlaps the
 * earlier/outer conditional wins). */
#ifndef CATS_LOOPS_H
#define CATS_LOOPS_H

#include <stddef.h>
#include <stdint.h>

#define CLP_ERRLEN 256

typedef enum clp_status {
   CLP_OK = 0,
   CLP_EOPEN,     /* the file cannot be opened */
   CLP_ENOTELF,   /* not an ELF object, or not x86-64 */
   CLP_ENOTEXT,   /* no .text section to compute the bias from */
   CLP_ELIB,      /* libelf or capstone failed */
   CLP_ENOMEM     /* out of memory */
} clp_status;

enum clp_kind { CLP_LOOP = 2, CLP_CONDITIONAL = 3 }; /* = cats_ctx_kind */

typedef struct clp_range {
   uint64_t start;   /* first byte (guest address when biased) */
   uint64_t end;     /* one past the last byte */
   uint8_t kind;     /* enum clp_kind */
} clp_range;

/* Flags for clp_find. */
#define CLP_NO_BIAS 1u   /* report ELF addresses (ignore text_avma) */

/* Find the ranges of the object at `path`, shifted by
 * bias = text_avma - (.text sh_addr) unless CLP_NO_BIAS. On success *out
 * (free with free()) holds *n ranges sorted by start ascending, end
 * descending. */
clp_status clp_find(const char *path, uint64_t text_avma, unsigned flags,
                    clp_range **out, size_t *n, char *err, size_t errlen);

#endif /* CATS_LOOPS_H */
