/* SPDX-License-Identifier: GPL-2.0-or-later */
/* vfsynth.h: VF and VF_END payloads (docs/VCG.md) for the tests.
 *
 * Serialised field by field from the document, independently of the
 * builder. vfs_example is the graph the CLI tests expect, over the
 * allocations, contexts and locs of the synthetic trace of synth.h:
 * buf+0 and buf+8 are inputs, buf+16 = buf+0 + buf+8 then buf+16 again
 * from itself, a register intermediate at t.c:7 from buf+0 and buf+16,
 * and the global from the intermediate (context 1), then from the
 * intermediate and buf+8 (context 2). */
#ifndef CATS_TESTS_UNIT_VFSYNTH_H
#define CATS_TESTS_UNIT_VFSYNTH_H

#include <stdint.h>

#include "cats/trace/trace_buf.h"

int vfs_vertex(trace_buf *b, uint32_t id, uint8_t kind, uint32_t alloc,
               uint64_t offset, uint32_t size, uint32_t ctx, uint32_t loc);
/* A LEB128 value, as SOURCES records hold their fields. */
int vfs_var(trace_buf *b, uint64_t v);
int vfs_sources(trace_buf *b, uint32_t dst, uint32_t version, uint32_t ctx,
                uint16_t n, const uint32_t *src);
/* SOURCES or SOURCES_ALONE. */
int vfs_record(trace_buf *b, uint8_t tag, uint32_t dst, uint32_t version,
               uint32_t ctx, uint16_t n, const uint32_t *src);
/* STEP: m versions from `version` follow dst's ring, the first d along. */
int vfs_step(trace_buf *b, uint32_t dst, uint32_t version, uint32_t d,
             uint32_t m);
/* VF_END with table[0..nallocs) and n entries (ids, versions, flags). */
int vfs_end(trace_buf *b, uint32_t word, uint32_t nallocs, const uint32_t *table,
            uint32_t n, const uint32_t *ids, const uint32_t *versions,
            const uint8_t *flags);

int vfs_example(trace_buf *vf, trace_buf *end);

#endif /* CATS_TESTS_UNIT_VFSYNTH_H */
