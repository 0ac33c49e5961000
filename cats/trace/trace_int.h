/* SPDX-License-Identifier: GPL-2.0-or-later */
/* trace_int.h: internals shared by the files of the trace reader (trace_read.c,
 * trace_decode*.c, trace_status.c). */
#ifndef CATS_TRACE_TRACE_INT_H
#define CATS_TRACE_TRACE_INT_H

#include "trace.h"

/* Format a one-line message into err (when given) and return st. */
trace_status trace_fail(char *err, size_t errlen, trace_status st,
                    const char *fmt, ...)
   __attribute__((format(printf, 4, 5)));

/* Decode section 7 (VCG) into t->vcg; the sections it refers to are
 * decoded already (trace_decode_vcg.c). Without keep_graph the vertices
 * and edges are checked but not kept (t->vcg.vertices and edges are
 * NULL). */
trace_status trace_decode_vcg(trace_file *t, const trace_section *s, int keep_graph,
                              char *err, size_t errlen);

/* Decode sections 9 (REUSE) and 10 (INDEX) into t->reuse and
 * t->index_loc / t->index_alloc (trace_decode_reuse.c); s may be NULL for
 * an absent section. Without keep, REUSE is checked but not kept
 * (has_reuse stays 0). trace_decode_index must run for every trace (it
 * fills the per-event arrays with CATS_NONE when the section is absent). */
trace_status trace_decode_reuse(trace_file *t, const trace_section *s, int keep,
                                char *err, size_t errlen);
trace_status trace_decode_index(trace_file *t, const trace_section *s, char *err,
                           size_t errlen);

/* Decode section 11 (DEPS) into t->deps (trace_decode_deps.c); s may be
 * NULL for an absent section. */
trace_status trace_decode_deps(trace_file *t, const trace_section *s,
                               char *err, size_t errlen);

/* An optional section of a u32 count and count records of `size` bytes,
 * whose count META `key` gives (when `required`, it must; otherwise it
 * may be absent): checks the count against the section and META, and
 * that META names no section that is missing. *n is the count (0 for an
 * absent section). */
trace_status trace_counted_section(const trace_file *t, const trace_section *s,
                                   const char *key, uint32_t type, const char *noun,
                                   unsigned size, int required, uint32_t *n,
                                   char *err, size_t errlen);

/* META key's value as a number: -1 absent, -2 not a decimal number. */
long long trace_meta_number(const trace_file *t, const char *key);

#endif /* CATS_TRACE_TRACE_INT_H */
