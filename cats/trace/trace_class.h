/* SPDX-License-Identifier: GPL-2.0-or-later */
/* trace_class.h: the one access class of an EVENTS record, which `cats
 * stat`, `cats report`, `cats view` and `cats export` all count.
 *
 * A record's class comes from its address sequence (docs/FORMAT.md):
 * constant, stride-1, stride-k or irregular. The tool sees one
 * instruction at a time, so an unrolled or vectorised loop that walks a
 * row with several instructions (two 8-byte stores a[i] and a[i+1] per
 * iteration, memcpy's interleaved 32-byte moves) gives stride-k
 * records whose offsets interleave: together they walk the memory
 * contiguously, and their class is stride-1. Which container an
 * address was loaded from (x[col[k]] through col, section 10) is a
 * separate attribute (trace_file.index_alloc), whatever the class. */
#ifndef TRACE_CLASS_H
#define TRACE_CLASS_H

#include "trace.h"

/* Sets every event's cls: its pattern, or CATS_PAT_STRIDE1 for the
 * stride-k records of one context, container, kind, loop level and
 * stride whose offsets together cover every byte of one stride. */
trace_status trace_class_events(trace_file *t, char *err, size_t errlen);

/* The innermost loop level whose stride moves the record's offset, or
 * -1; and that stride (0 if none). */
int trace_class_varying_dim(const trace_event *e);
int64_t trace_class_stride(const trace_event *e);

#endif /* TRACE_CLASS_H */
