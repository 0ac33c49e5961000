/* SPDX-License-Identifier: GPL-2.0-or-later */
/* frame.h: the tool <-> helper frame protocol (docs/FORMAT.md).
 *
 * A frame is u32 type, u32 reserved, u64 length, then length bytes. These
 * functions do blocking, EINTR-safe, complete reads and writes on a file
 * descriptor. */
#ifndef CATS_TRACE_FRAME_H
#define CATS_TRACE_FRAME_H

#include <stddef.h>
#include <stdint.h>

typedef enum frame_status {
   FRAME_OK = 0,
   FRAME_EOF,       /* clean end of input before the first byte */
   FRAME_ESHORT,    /* input ended inside a header or payload */
   FRAME_EIO        /* read or write failed (errno is set) */
} frame_status;

/* Read exactly n bytes. FRAME_EOF only if no byte was available. */
frame_status frame_read_full(int fd, void *buf, size_t n);

/* Reads of at most this many bytes at a time (frame.c says why). */
#define FRAME_READ_MAX (64u << 10)

/* Read a frame header. */
frame_status frame_read_header(int fd, uint32_t *type, uint64_t *length);
/* The type and length of the header h (CATS_TRACE_FRAME_HEADER_SIZE bytes). */
void frame_decode_header(const uint8_t *h, uint32_t *type, uint64_t *length);

/* Read and discard n payload bytes. */
frame_status frame_skip(int fd, uint64_t n);

/* Write a whole frame (header and payload). */
frame_status frame_write(int fd, uint32_t type, const void *payload,
                         uint64_t length);

#endif /* CATS_TRACE_FRAME_H */
