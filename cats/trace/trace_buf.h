/* buf.h: a growable byte buffer.
 *
 * Used to accumulate section payloads in the helper, to build protocol
 * answers, and by the tests to assemble synthetic sections. Appends report
 * allocation failure instead of aborting so callers can answer with an
 * error frame. */
#ifndef CATS_BUF_H
#define CATS_BUF_H

#include <stddef.h>
#include <stdint.h>

typedef struct cbuf {
   uint8_t *data;   /* bytes, NULL while empty */
   size_t len;      /* bytes in use */
   size_t cap;      /* bytes allocated */
} cbuf;

#define CBUF_INIT { NULL, 0, 0 }

/* Make room for at least `extra` more bytes. 0 on success, -1 if out of
 * memory (the buffer is unchanged). */
int cbuf_reserve(cbuf *b, size_t extra);
int cbuf_append(cbuf *b, const void *src, size_t n);
int cbuf_put8(cbuf *b, uint8_t v);
int cbuf_put16(cbuf *b, uint16_t v);
int cbuf_put32(cbuf *b, uint32_t v);
int cbuf_put64(cbuf *b, uint64_t v);
/* Append n zero bytes. */
int cbuf_zero(cbuf *b, size_t n);
void cbuf_free(cbuf *b);

#endif /* CATS_BUF_H */
