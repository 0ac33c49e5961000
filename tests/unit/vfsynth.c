/* SPDX-License-Identifier: GPL-2.0-or-later */
/* vfsynth.c: VF streams for the tests (see vfsynth.h). */
#include "vfsynth.h"

#include "cats/format/cats_format.h"

int vfs_vertex(trace_buf *b, uint32_t id, uint8_t kind, uint32_t alloc,
               uint64_t offset, uint32_t size, uint32_t ctx, uint32_t loc)
{
   return trace_buf_put8(b, CATS_VF_VERTEX) | trace_buf_put32(b, id) |
          trace_buf_put8(b, kind) | trace_buf_put32(b, alloc) |
          trace_buf_put64(b, offset) | trace_buf_put32(b, size) | trace_buf_put32(b, ctx) |
          trace_buf_put32(b, loc);
}

int vfs_var(trace_buf *b, uint64_t v)
{
   int r = 0;
   while (v >= 0x80) {
      r |= trace_buf_put8(b, (uint8_t)(v | 0x80));
      v >>= 7;
   }
   return r | trace_buf_put8(b, (uint8_t)v);
}

int vfs_sources(trace_buf *b, uint32_t dst, uint32_t version, uint32_t ctx,
                uint16_t n, const uint32_t *src)
{
   return vfs_record(b, CATS_VF_SOURCES, dst, version, ctx, n, src);
}

int vfs_step(trace_buf *b, uint32_t dst, uint32_t version, uint32_t d, uint32_t m)
{
   return trace_buf_put8(b, CATS_VF_STEP) | vfs_var(b, dst) | vfs_var(b, version) |
          vfs_var(b, d) | vfs_var(b, m);
}

int vfs_record(trace_buf *b, uint8_t tag, uint32_t dst, uint32_t version,
               uint32_t ctx, uint16_t n, const uint32_t *src)
{
   int r = trace_buf_put8(b, tag) | vfs_var(b, dst) |
           vfs_var(b, version) | vfs_var(b, ctx) | vfs_var(b, n);
   for (uint16_t i = 0; i < n; i++) {
      int32_t d = (int32_t)(src[i] - dst);
      r |= vfs_var(b, ((uint32_t)d << 1) ^ (uint32_t)(d >> 31));
   }
   return r;
}

int vfs_end(trace_buf *b, uint32_t word, uint32_t nallocs, const uint32_t *table,
            uint32_t n, const uint32_t *ids, const uint32_t *versions,
            const uint8_t *flags)
{
   int r = trace_buf_put32(b, word) | trace_buf_put32(b, nallocs);
   for (uint32_t i = 0; i < nallocs; i++)
      r |= trace_buf_put32(b, table[i]);
   r |= trace_buf_put32(b, n);
   for (uint32_t i = 0; i < n; i++)   /* runs of one vertex */
      r |= trace_buf_put32(b, ids[i]) | trace_buf_put32(b, 1) |
           trace_buf_put32(b, versions[i]) | trace_buf_put8(b, flags[i]);
   return r;
}

int vfs_example(trace_buf *vf, trace_buf *end)
{
   /* Tool allocations 10 and 11 are the trace's allocs 0 (buf) and 1
    * (the global). */
   int r = vfs_vertex(vf, 100, CATS_VF_MEMORY_INPUT, 10, 0, 8, 2, 3) |
           vfs_vertex(vf, 101, CATS_VF_MEMORY_INPUT, 10, 8, 8, 2, 3) |
           vfs_vertex(vf, 102, CATS_VF_MEMORY, 10, 16, 8, 2, 3) |
           vfs_vertex(vf, 200, CATS_VF_REGISTER, CATS_NONE, 0, 8, 2, 3) |
           vfs_vertex(vf, 103, CATS_VF_MEMORY, 11, 0, 8, 1, 5);
   r |= vfs_sources(vf, 102, 1, 2, 2, (const uint32_t[]){ 100, 101 });
   r |= vfs_sources(vf, 200, 1, 2, 2, (const uint32_t[]){ 100, 102 });
   r |= vfs_sources(vf, 103, 1, 1, 1, (const uint32_t[]){ 200 });
   r |= vfs_sources(vf, 103, 3, 2, 2, (const uint32_t[]){ 200, 101 });
   r |= vfs_sources(vf, 102, 2, 2, 1, (const uint32_t[]){ 102 });
   uint32_t table[12];
   for (int i = 0; i < 12; i++)
      table[i] = CATS_NONE;
   table[10] = 0;
   table[11] = 1;
   r |= vfs_end(end, 8, 12, table, 2, (const uint32_t[]){ 103, 102 },
                (const uint32_t[]){ 4, 2 }, (const uint8_t[]){ 1, 1 });
   return r;
}
