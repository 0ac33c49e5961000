/* SPDX-License-Identifier: GPL-2.0-or-later */
/* trace_scope.h: which contexts are the program's own.
 *
 * The views, `cats report`, `cats stat` and a projection of the whole run
 * look at the program, not at what runs before main (the dynamic
 * loader's start-up, libc's initialisation) or inside it on the
 * program's behalf (the dynamic linker resolving a symbol on its first
 * call, the tool's preload libraries). */
#ifndef CATS_TRACE_TRACE_SCOPE_H
#define CATS_TRACE_TRACE_SCOPE_H

#include <stdint.h>

#include "trace.h"

/* in[c] = 1 for main and what runs below it, and the whole of every
 * other thread (what the program started), less the subtrees of foreign
 * code (above). `in` has t->ncontexts entries. Returns how many are in:
 * 0 when the trace has no main (a program without symbols), for the
 * caller to take every context; -1 when out of memory. */
int64_t trace_program_contexts(const trace_file *t, uint8_t *in);

#endif /* CATS_TRACE_TRACE_SCOPE_H */
