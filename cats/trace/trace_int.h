/* trace_read_int.h: internals shared by the files of the ctr_ module. */
#ifndef CATS_TRACE_READ_INT_H
#define CATS_TRACE_READ_INT_H

#include "trace_read.h"

/* Format a one-line message into err (when given) and return st. */
ctr_status ctr_fail(char *err, size_t errlen, ctr_status st,
                    const char *fmt, ...)
   __attribute__((format(printf, 4, 5)));

/* Decode section 7 (VCG) into t->vcg; the sections it refers to are
 * decoded already (trace_decode_vcg.c). Without keep_graph the vertices
 * and edges are checked but not kept (t->vcg.vertices and edges are
 * NULL). */
ctr_status ctr_parse_vcg(ctr_trace *t, const ctr_section *s, int keep_graph,
                         char *err, size_t errlen);

/* Decode sections 9 (REUSE) and 10 (INDEX) into t->reuse and
 * t->index_loc / t->index_alloc (trace_decode_reuse.c); s may be NULL for
 * an absent section. ctr_parse_index must run for every trace (it fills
 * the per-event arrays with CATS_NONE when the section is absent). */
ctr_status ctr_parse_reuse(ctr_trace *t, const ctr_section *s, char *err,
                           size_t errlen);
ctr_status ctr_parse_index(ctr_trace *t, const ctr_section *s, char *err,
                           size_t errlen);

#endif /* CATS_TRACE_READ_INT_H */
