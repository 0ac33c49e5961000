/* SPDX-License-Identifier: GPL-2.0-or-later */
/* frame.c: protocol frame I/O (see frame.h). */
#define _POSIX_C_SOURCE 200809L

#include "frame.h"

#include <errno.h>
#include <unistd.h>

#include "cats/format/cats_format.h"
#include "le.h"

/* FRAME_READ_MAX: a read holds the pipe's lock while it copies, and the
 * tool's write of the next value-flow frame spins on that lock meanwhile,
 * so reads are a fraction of a frame (docs/BENCH.md has the measurement). */

frame_status frame_read_full(int fd, void *buf, size_t n)
{
   uint8_t *p = buf;
   size_t got = 0;
   while (got < n) {
      size_t want = n - got > FRAME_READ_MAX ? FRAME_READ_MAX : n - got;
      ssize_t r = read(fd, p + got, want);
      if (r < 0 && errno == EINTR)
         continue;
      if (r < 0)
         return FRAME_EIO;
      if (r == 0)
         return got == 0 ? FRAME_EOF : FRAME_ESHORT;
      got += (size_t)r;
   }
   return FRAME_OK;
}

frame_status frame_read_header(int fd, uint32_t *type, uint64_t *length)
{
   uint8_t h[CATS_FRAME_HEADER_SIZE];
   frame_status st = frame_read_full(fd, h, sizeof h);
   if (st != FRAME_OK)
      return st;
   frame_decode_header(h, type, length);
   return FRAME_OK;
}

void frame_decode_header(const uint8_t *h, uint32_t *type, uint64_t *length)
{
   *type = le_u32(h);
   *length = le_u64(h + 8);
}

frame_status frame_skip(int fd, uint64_t n)
{
   uint8_t tmp[65536];
   while (n > 0) {
      size_t chunk = n > sizeof tmp ? sizeof tmp : (size_t)n;
      frame_status st = frame_read_full(fd, tmp, chunk);
      if (st == FRAME_EOF)
         return FRAME_ESHORT;
      if (st != FRAME_OK)
         return st;
      n -= chunk;
   }
   return FRAME_OK;
}

static frame_status write_full(int fd, const uint8_t *p, size_t n)
{
   while (n > 0) {
      ssize_t r = write(fd, p, n);
      if (r < 0 && errno == EINTR)
         continue;
      if (r < 0)
         return FRAME_EIO;
      p += r;
      n -= (size_t)r;
   }
   return FRAME_OK;
}

frame_status frame_write(int fd, uint32_t type, const void *payload,
                         uint64_t length)
{
   uint8_t h[CATS_FRAME_HEADER_SIZE];
   le_put32(h, type);
   le_put32(h + 4, 0);
   le_put64(h + 8, length);
   frame_status st = write_full(fd, h, sizeof h);
   if (st == FRAME_OK && length > 0)
      st = write_full(fd, payload, (size_t)length);
   return st;
}
