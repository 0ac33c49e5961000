/* SPDX-License-Identifier: GPL-2.0-or-later */
/* synth.h: a tiny known trace as raw section payloads.
 *
 * The payloads are serialised here field by field from docs/FORMAT.md,
 * independently of the reader, so a layout mistake on either side shows.
 * Contents: 1 thread root, function main, one loop; 2 allocs (a malloc'd
 * buffer and a leaked global); 3 events (stride-1 write, constant read,
 * irregular read). */
#ifndef CATS_TESTS_UNIT_SYNTH_H
#define CATS_TESTS_UNIT_SYNTH_H

#include <stdint.h>

#include "cats/trace/trace_buf.h"

#define SYN_NSEC 6

typedef struct syn_trace {
   unsigned type[SYN_NSEC];   /* section types in file order */
   trace_buf sec[SYN_NSEC];        /* raw payloads */
} syn_trace;

/* Knobs to produce specific corruptions. */
typedef struct syn_opts {
   unsigned event_alloc;      /* alloc id of event 1 (normally 1) */
   unsigned loop_parent;      /* parent of context 2 (normally 1) */
   unsigned loc_file;         /* file string of loc 0 (normally 3) */
} syn_opts;

/* One EVENTS record, as docs/FORMAT.md encodes it. */
typedef struct syn_event {
   uint32_t ctx, loc, alloc;
   uint8_t kind, pattern, ndims, flags;
   uint32_t size, ndistinct;
   uint64_t count, first, last;
   int64_t base, stride[3];
   uint64_t extent[3];
   int64_t min, max, distinct[8];
   uint32_t hist[16];
} syn_event;

int syn_put_event(trace_buf *b, const syn_event *e);
int syn_put_uvar(trace_buf *b, uint64_t v);

void syn_default_opts(syn_opts *o);
int syn_build(syn_trace *s, const syn_opts *o);
void syn_free(syn_trace *s);

/* Index of a section type in s, or -1. */
int syn_find(const syn_trace *s, unsigned type);

#endif /* CATS_TESTS_UNIT_SYNTH_H */
