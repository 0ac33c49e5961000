/* SPDX-License-Identifier: GPL-2.0-or-later */
/* synth.c: the synthetic trace of synth.h. */
#include "synth.h"

#include <string.h>

#include "cats/format/cats_format.h"

static const char *const strings[] = {
   "",                       /* 0 */
   "thread 1",               /* 1 */
   "main",                   /* 2 */
   "t.c",                    /* 3 */
   "/tmp/t",                 /* 4 */
   "loop",                   /* 5 */
   "buf (t.c:5)",            /* 6 */
   "tool",                   /* 7 */
   "cats",                   /* 8 */
   "peak_footprint",         /* 9 */
   "4096",                   /* 10 */
   "accesses_unattributed",  /* 11 */
   "7",                      /* 12 */
   "glob \"q\"\n\x01",       /* 13: needs JSON escaping */
};
#define NSTRINGS (sizeof strings / sizeof strings[0])

void syn_default_opts(syn_opts *o)
{
   o->event_alloc = 1;
   o->loop_parent = 1;
   o->loc_file = 3;
}

static int put_loc(trace_buf *b, uint64_t addr, uint32_t fn, uint32_t file,
                   uint32_t line, uint32_t obj, uint32_t parent)
{
   return trace_buf_put64(b, addr) | trace_buf_put32(b, fn) | trace_buf_put32(b, file) |
          trace_buf_put32(b, line) | trace_buf_put32(b, obj) | trace_buf_put32(b, parent);
}

static int put_ctx(trace_buf *b, uint32_t parent, uint8_t kind, uint8_t flags,
                   uint32_t loc, uint32_t name, uint64_t entries,
                   uint64_t iters, uint64_t max_iters, uint64_t first,
                   uint64_t last)
{
   return trace_buf_put32(b, parent) | trace_buf_put8(b, kind) | trace_buf_put8(b, flags) |
          trace_buf_put16(b, 0) | trace_buf_put32(b, loc) | trace_buf_put32(b, name) |
          trace_buf_put64(b, entries) | trace_buf_put64(b, iters) |
          trace_buf_put64(b, max_iters) | trace_buf_put64(b, first) |
          trace_buf_put64(b, last);
}

/* ALLOCS record: the u32 block then the u64 block, as in FORMAT.md. */
static int put_alloc(trace_buf *b, uint8_t kind, uint8_t flags,
                     const uint32_t u32s[6], const uint64_t u64s[9])
{
   int r = trace_buf_put8(b, kind) | trace_buf_put8(b, flags) | trace_buf_put16(b, 0);
   for (int i = 0; i < 6; i++)
      r |= trace_buf_put32(b, u32s[i]);
   r |= trace_buf_put32(b, 0);   /* reserved2 */
   for (int i = 0; i < 8; i++)
      r |= trace_buf_put64(b, u64s[i]);
   r |= trace_buf_put64(b, 0);   /* reserved3 */
   return r | trace_buf_put64(b, u64s[8]);   /* total_bytes */
}


/* The EVENTS encoding (docs/FORMAT.md), written here without the
 * tool's code so that the reader is tested against a second writer. */
int syn_put_uvar(trace_buf *b, uint64_t v)
{
   int r = 0;
   for (; v >= 0x80; v >>= 7)
      r |= trace_buf_put8(b, (uint8_t)(v | 0x80));
   return r | trace_buf_put8(b, (uint8_t)v);
}

static int put_svar(trace_buf *b, int64_t v)
{
   return syn_put_uvar(b, v < 0 ? 2 * (~(uint64_t)v) + 1 : 2 * (uint64_t)v);
}

int syn_put_event(trace_buf *b, const syn_event *e)
{
   int r = syn_put_uvar(b, e->ctx) | syn_put_uvar(b, e->loc) |
           syn_put_uvar(b, e->alloc) | trace_buf_put8(b, e->kind) |
           trace_buf_put8(b, e->pattern) | trace_buf_put8(b, e->ndims) |
           trace_buf_put8(b, e->flags) | syn_put_uvar(b, e->size) |
           syn_put_uvar(b, e->ndistinct) | syn_put_uvar(b, e->count) |
           syn_put_uvar(b, e->first) | syn_put_uvar(b, e->last - e->first) |
           put_svar(b, e->base);
   for (int k = 0; k < e->ndims; k++)
      r |= put_svar(b, e->stride[k]) | syn_put_uvar(b, e->extent[k]);
   r |= put_svar(b, e->min) | put_svar(b, e->max);
   for (uint32_t k = 0; k < e->ndistinct; k++)
      r |= put_svar(b, e->distinct[k]);
   uint32_t mask = 0;
   for (int k = 0; k < 16; k++)
      mask |= (uint32_t)(e->hist[k] != 0) << k;
   r |= syn_put_uvar(b, mask);
   for (int k = 0; k < 16; k++)
      if (e->hist[k])
         r |= syn_put_uvar(b, e->hist[k]);
   return r;
}

int syn_build(syn_trace *s, const syn_opts *o)
{
   memset(s, 0, sizeof *s);
   static const unsigned types[SYN_NSEC] = {
      CATS_SEC_STRINGS, CATS_SEC_META, CATS_SEC_LOCS, CATS_SEC_CONTEXTS,
      CATS_SEC_ALLOCS, CATS_SEC_EVENTS
   };
   memcpy(s->type, types, sizeof types);
   int r = 0;

   trace_buf *b = &s->sec[0];
   r |= trace_buf_put32(b, (uint32_t)NSTRINGS);
   for (size_t i = 0; i < NSTRINGS; i++) {
      r |= trace_buf_put32(b, (uint32_t)strlen(strings[i]));
      r |= trace_buf_append(b, strings[i], strlen(strings[i]));
   }

   b = &s->sec[1];
   r |= trace_buf_put32(b, 3) | trace_buf_put32(b, 7) | trace_buf_put32(b, 8) |
        trace_buf_put32(b, 9) | trace_buf_put32(b, 10) | trace_buf_put32(b, 11) |
        trace_buf_put32(b, 12);

   b = &s->sec[2];
   r |= trace_buf_put32(b, 6);
   r |= put_loc(b, 0x401000, 2, o->loc_file, 3, 4, CATS_NONE); /* entry */
   r |= put_loc(b, 0x401010, 2, 3, 5, 4, CATS_NONE);      /* malloc site */
   r |= put_loc(b, 0x401020, 2, 3, 6, 4, CATS_NONE);      /* loop header */
   r |= put_loc(b, 0x401030, 2, 3, 7, 4, CATS_NONE);      /* accesses */
   r |= put_loc(b, 0x401040, 2, 3, 9, 4, CATS_NONE);      /* free site */
   r |= put_loc(b, 0x401050, 2, 0, 0, 4, 3);              /* inlined */

   b = &s->sec[3];
   r |= trace_buf_put32(b, 3);
   r |= put_ctx(b, CATS_NONE, CATS_CTX_THREAD, 0, CATS_NONE, 1, 1, 0, 0, 0,
                100);
   r |= put_ctx(b, 0, CATS_CTX_FUNCTION, 0, 0, 2, 1, 0, 0, 0, 99);
   r |= put_ctx(b, o->loop_parent, CATS_CTX_LOOP, 0, 2, 5, 1, 10, 10, 2, 40);

   b = &s->sec[4];
   r |= trace_buf_put32(b, 2);
   {
      const uint32_t u[6] = { 6, 1, 1, 1, 4, CATS_NONE };
      const uint64_t v[9] = { 80, 1, 1, 1, 1, 50, 50, 0x5000, 80 };
      r |= put_alloc(b, CATS_ALLOC_MALLOC, 0, u, v);
   }
   {
      /* A global: no allocation context or site (FORMAT.md). */
      const uint32_t u[6] = { 13, CATS_NONE, CATS_NONE, CATS_NONE,
                              CATS_NONE, CATS_NONE };
      const uint64_t v[9] = { 16, 1, 1, 0, 0, 0, 0, 0x6000, 16 };
      r |= put_alloc(b, CATS_ALLOC_GLOBAL, CATS_ALLOCFLAG_LEAKED, u, v);
   }

   b = &s->sec[5];
   r |= trace_buf_put32(b, 3);
   syn_event e;
   memset(&e, 0, sizeof e);
   e = (syn_event){ .ctx = 2, .loc = 3, .alloc = 0, .kind = CATS_WRITE,
                    .pattern = CATS_PAT_STRIDE1, .ndims = 1, .size = 8,
                    .count = 10, .first = 3, .last = 39, .base = 0,
                    .stride = { 8 }, .extent = { 10 }, .min = 0, .max = 72 };
   r |= syn_put_event(b, &e);
   e = (syn_event){ .ctx = 2, .loc = 3, .alloc = o->event_alloc,
                    .kind = CATS_READ, .pattern = CATS_PAT_CONSTANT,
                    .size = 4, .count = 10, .first = 4, .last = 40,
                    .base = 4, .min = 4, .max = 4 };
   r |= syn_put_event(b, &e);
   e = (syn_event){ .ctx = 1, .loc = 5, .alloc = 0, .kind = CATS_READ,
                    .pattern = CATS_PAT_IRREGULAR, .ndims = 0,
                    .flags = CATS_EVFLAG_HELPER, .size = 8, .ndistinct = 3,
                    .count = 3, .first = 45, .last = 48, .base = 16,
                    .min = 0, .max = 40, .distinct = { 16, 0, 40 },
                    .hist = { 1, 0, 0, 1, 0, 0, 0, 0, 1 } };
   r |= syn_put_event(b, &e);
   if (r) {
      syn_free(s);
      return -1;
   }
   return 0;
}

void syn_free(syn_trace *s)
{
   for (int i = 0; i < SYN_NSEC; i++)
      trace_buf_free(&s->sec[i]);
}

int syn_find(const syn_trace *s, unsigned type)
{
   for (int i = 0; i < SYN_NSEC; i++)
      if (s->type[i] == type)
         return i;
   return -1;
}
