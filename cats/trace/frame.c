/* frame.c: protocol frame I/O (see frame.h). */
#define _POSIX_C_SOURCE 200809L

#include "frame.h"

#include <errno.h>
#include <unistd.h>

#include "../format/cats_format.h"
#include "le.h"

/* CFR_READ_MAX: a read holds the pipe's lock while it copies, and the
 * tool's write of the next value-flow frame spins on that lock meanwhile:
 * reads of 64 KiB instead of a whole 1 MiB frame cut the guest's CPU time
 * by 3% on the particle kernel (16 KiB: the same; 256 KiB: 1%). */

cfr_status cfr_read_full(int fd, void *buf, size_t n)
{
   uint8_t *p = buf;
   size_t got = 0;
   while (got < n) {
      size_t want = n - got > CFR_READ_MAX ? CFR_READ_MAX : n - got;
      ssize_t r = read(fd, p + got, want);
      if (r < 0 && errno == EINTR)
         continue;
      if (r < 0)
         return CFR_EIO;
      if (r == 0)
         return got == 0 ? CFR_EOF : CFR_ESHORT;
      got += (size_t)r;
   }
   return CFR_OK;
}

cfr_status cfr_read_header(int fd, uint32_t *type, uint64_t *length)
{
   uint8_t h[CATS_FRAME_HEADER_SIZE];
   cfr_status st = cfr_read_full(fd, h, sizeof h);
   if (st != CFR_OK)
      return st;
   cfr_decode_header(h, type, length);
   return CFR_OK;
}

void cfr_decode_header(const uint8_t *h, uint32_t *type, uint64_t *length)
{
   *type = cle_u32(h);
   *length = cle_u64(h + 8);
}

cfr_status cfr_skip(int fd, uint64_t n)
{
   uint8_t tmp[65536];
   while (n > 0) {
      size_t chunk = n > sizeof tmp ? sizeof tmp : (size_t)n;
      cfr_status st = cfr_read_full(fd, tmp, chunk);
      if (st == CFR_EOF)
         return CFR_ESHORT;
      if (st != CFR_OK)
         return st;
      n -= chunk;
   }
   return CFR_OK;
}

static cfr_status write_full(int fd, const uint8_t *p, size_t n)
{
   while (n > 0) {
      ssize_t r = write(fd, p, n);
      if (r < 0 && errno == EINTR)
         continue;
      if (r < 0)
         return CFR_EIO;
      p += r;
      n -= (size_t)r;
   }
   return CFR_OK;
}

cfr_status cfr_write_frame(int fd, uint32_t type, const void *payload,
                           uint64_t length)
{
   uint8_t h[CATS_FRAME_HEADER_SIZE];
   cle_put32(h, type);
   cle_put32(h + 4, 0);
   cle_put64(h + 8, length);
   cfr_status st = write_full(fd, h, sizeof h);
   if (st == CFR_OK && length > 0)
      st = write_full(fd, payload, (size_t)length);
   return st;
}
