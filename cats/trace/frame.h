/* frame.h: the tool <-> helper frame protocol (docs/FORMAT.md).
 *
 * A frame is u32 type, u32 reserved, u64 length, then length bytes. These
 * functions do blocking, EINTR-safe, complete reads and writes on a file
 * descriptor. */
#ifndef CATS_FRAME_H
#define CATS_FRAME_H

#include <stddef.h>
#include <stdint.h>

typedef enum cfr_status {
   CFR_OK = 0,
   CFR_EOF,       /* clean end of input before the first byte */
   CFR_ESHORT,    /* input ended inside a header or payload */
   CFR_EIO        /* read or write failed (errno is set) */
} cfr_status;

/* Read exactly n bytes. CFR_EOF only if no byte was available. */
cfr_status cfr_read_full(int fd, void *buf, size_t n);

/* Reads of at most this many bytes at a time (frame.c says why). */
#define CFR_READ_MAX (64u << 10)

/* Read a frame header. */
cfr_status cfr_read_header(int fd, uint32_t *type, uint64_t *length);
/* The type and length of the header h (CATS_FRAME_HEADER_SIZE bytes). */
void cfr_decode_header(const uint8_t *h, uint32_t *type, uint64_t *length);

/* Read and discard n payload bytes. */
cfr_status cfr_skip(int fd, uint64_t n);

/* Write a whole frame (header and payload). */
cfr_status cfr_write_frame(int fd, uint32_t type, const void *payload,
                           uint64_t length);

#endif /* CATS_FRAME_H */
