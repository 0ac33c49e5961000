/* SPDX-License-Identifier: GPL-2.0-or-later */
/* trace_buf.h: a growable byte buffer.
 *
 * Used to accumulate section payloads in the helper, to build protocol
 * answers, and by the tests to assemble synthetic sections. Appends report
 * allocation failure instead of aborting so callers can answer with an
 * error frame. */
#ifndef CATS_TRACE_TRACE_BUF_H
#define CATS_TRACE_TRACE_BUF_H

#include <stddef.h>
#include <stdint.h>

typedef struct trace_buf {
   uint8_t *data;   /* bytes, NULL while empty */
   size_t len;      /* bytes in use */
   size_t cap;      /* bytes allocated */
} trace_buf;

#define TRACE_BUF_INIT { NULL, 0, 0 }

/* Make room for at least `extra` more bytes. 0 on success, -1 if out of
 * memory (the buffer is unchanged). */
int trace_buf_reserve(trace_buf *b, size_t extra);
int trace_buf_append(trace_buf *b, const void *src, size_t n);
int trace_buf_put8(trace_buf *b, uint8_t v);
int trace_buf_put16(trace_buf *b, uint16_t v);
int trace_buf_put32(trace_buf *b, uint32_t v);
int trace_buf_put64(trace_buf *b, uint64_t v);
/* Append n zero bytes. */
int trace_buf_zero(trace_buf *b, size_t n);
void trace_buf_free(trace_buf *b);

#endif /* CATS_TRACE_TRACE_BUF_H */
