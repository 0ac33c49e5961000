/* SPDX-License-Identifier: GPL-2.0-or-later */
/* trace_read.c: the container layer of the trace reader.
 *
 * Reads the header and section table, checks every offset against the file
 * size before touching data, inflates the known sections and checks their
 * CRC-32, then hands the raw payloads to trace_decode (trace_decode.c).
 * Sections are read with pread from a file (or copied from memory) one at a
 * time, so the compressed bytes of only one section are held at once. */
#define _POSIX_C_SOURCE 200809L

#include "errmsg.h"
#include "trace_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "le.h"

/* deflate cannot expand data by more than about 1032:1, so a larger claimed
 * raw size is corruption; checking it avoids a huge allocation. */
#define TRACE_MAX_RATIO 1032u
#define TRACE_INFLATE_CHUNK (1u << 30)

/* Where the container bytes come from: a file or a memory buffer. */
typedef struct trace_src {
   int fd;                 /* -1 for memory */
   const uint8_t *mem;     /* memory buffer when fd < 0 */
   uint64_t size;          /* total bytes available */
} trace_src;

/* One entry of the section table. */
typedef struct trace_entry {
   uint32_t type;
   uint32_t flags;
   uint64_t offset;
   uint64_t stored;
   uint64_t raw;
   uint32_t crc;
   uint32_t reserved;
} trace_entry;

/* Read len bytes at off; the caller has checked off + len <= size. */
static trace_status src_read(const trace_src *s, uint64_t off, void *dst,
                             size_t len, char *err, size_t errlen)
{
   if (s->fd < 0) {
      memcpy(dst, s->mem + off, len);
      return TRACE_OK;
   }
   uint8_t *p = dst;
   while (len > 0) {
      ssize_t r = pread(s->fd, p, len, (off_t)off);
      if (r < 0 && errno == EINTR)
         continue;
      if (r < 0)
         return trace_fail(err, errlen, TRACE_EIO, "read error: %s",
                           strerror(errno));
      if (r == 0) /* the file shrank after fstat */
         return trace_fail(err, errlen, TRACE_ETRUNC,
                           "truncated: file ended while reading");
      p += r;
      off += (uint64_t)r;
      len -= (size_t)r;
   }
   return TRACE_OK;
}

static int known_section(uint32_t type)
{
   return type >= CATS_SEC_STRINGS && type <= CATS_SEC_DEPS;
}

static int cmp_u32(const void *a, const void *b)
{
   uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
   return (x > y) - (x < y);
}

/* Check every table entry against the file before reading any data. */
static trace_status check_table(const trace_entry *e, uint32_t n,
                                uint64_t data_start, uint64_t size,
                                char *err, size_t errlen)
{
   for (uint32_t i = 0; i < n; i++) {
      const char *nm = trace_section_name(e[i].type);
      /* The table's types are not under a CRC: a type this version does
       * not know is damage (a new section comes with a new version), and
       * skipping it would silently lose the section it was. */
      if (!known_section(e[i].type))
         return trace_fail(err, errlen, TRACE_ETABLE,
                           "section table entry %u has the unknown type %u",
                           i, e[i].type);
      if (e[i].offset < data_start || e[i].offset > size ||
          e[i].stored > size - e[i].offset) {
         if (e[i].offset >= data_start && e[i].offset <= size)
            return trace_fail(err, errlen, TRACE_ETRUNC,
                              "truncated: section %u (%s) needs bytes up to "
                              "%llu, file has %llu", e[i].type, nm,
                              (unsigned long long)e[i].offset +
                               (unsigned long long)e[i].stored,
                              (unsigned long long)size);
         return trace_fail(err, errlen, TRACE_ETABLE,
                           "section %u (%s): offset %llu outside the data "
                           "area [%llu, %llu]", e[i].type, nm,
                           (unsigned long long)e[i].offset,
                           (unsigned long long)data_start,
                           (unsigned long long)size);
      }
      if (e[i].flags & ~CATS_SECFLAG_ZLIB)
         return trace_fail(err, errlen, TRACE_ETABLE,
                           "section %u (%s): unsupported flags 0x%x",
                           e[i].type, nm, e[i].flags);
      if (!(e[i].flags & CATS_SECFLAG_ZLIB) && e[i].stored != e[i].raw)
         return trace_fail(err, errlen, TRACE_ETABLE,
                           "section %u (%s): stored size %llu differs from "
                           "raw size %llu in an uncompressed section",
                           e[i].type, nm, (unsigned long long)e[i].stored,
                           (unsigned long long)e[i].raw);
      if (e[i].reserved != 0)
         return trace_fail(err, errlen, TRACE_ETABLE,
                           "section %u (%s): reserved field is 0x%x, not 0",
                           e[i].type, nm, e[i].reserved);
   }

   /* Each type at most once; sorting keeps this O(n log n) even for a
    * corrupt table with many entries. */
   uint32_t *types = malloc((size_t)n * sizeof *types + 1);
   if (!types)
      return trace_fail(err, errlen, TRACE_ENOMEM, "out of memory");
   for (uint32_t i = 0; i < n; i++)
      types[i] = e[i].type;
   qsort(types, n, sizeof *types, cmp_u32);
   for (uint32_t i = 1; i < n; i++) {
      if (types[i] == types[i - 1]) {
         uint32_t t = types[i];
         free(types);
         return trace_fail(err, errlen, TRACE_ETABLE,
                           "section %u (%s) appears twice", t,
                           trace_section_name(t));
      }
   }
   free(types);
   return TRACE_OK;
}

/* Inflate a zlib stream of `in_len` bytes into exactly `raw` bytes. zlib
 * counts a call's input and output in 32 bits: both are fed in chunks. */
static trace_status inflate_exact(const uint8_t *in, uint64_t in_len,
                                  uint8_t *out, uint64_t raw, const char *nm,
                                  uint32_t type, char *err, size_t errlen)
{
   z_stream z;
   memset(&z, 0, sizeof z);
   if (inflateInit(&z) != Z_OK)
      return trace_fail(err, errlen, TRACE_ENOMEM, "out of memory (zlib)");
   z.next_out = out;
   uint64_t out_rest = raw;   /* output room not yet given to zlib */
   uint64_t left = in_len;
   const uint8_t *p = in;
   int zr = Z_OK;
   for (;;) {
      if (z.avail_out == 0 && out_rest > 0) {
         uInt chunk = out_rest > TRACE_INFLATE_CHUNK ? TRACE_INFLATE_CHUNK
                                                     : (uInt)out_rest;
         z.avail_out = chunk;
         out_rest -= chunk;
      }
      if (z.avail_in == 0 && left > 0) {
         uInt chunk = left > TRACE_INFLATE_CHUNK ? TRACE_INFLATE_CHUNK
                                               : (uInt)left;
         z.next_in = (Bytef *)(uintptr_t)p;
         z.avail_in = chunk;
         p += chunk;
         left -= chunk;
      }
      zr = inflate(&z, Z_NO_FLUSH);
      if (zr == Z_STREAM_END)
         break;
      if (zr == Z_OK)
         continue;
      /* Z_BUF_ERROR: no progress possible, either input ran out or the
       * output is full before the stream ended. */
      break;
   }
   uint64_t unread = (uint64_t)z.avail_in + left;
   uint64_t total = z.total_out;
   uint64_t out_left = z.avail_out + out_rest;
   const char *zmsg = z.msg;
   char zbuf[96];
   snprintf(zbuf, sizeof zbuf, "%s", zmsg ? zmsg : "");
   inflateEnd(&z);

   if (zr == Z_STREAM_END) {
      if (total != raw)
         return trace_fail(err, errlen, TRACE_EZLIB,
                           "section %u (%s): inflates to %llu bytes, table "
                           "says %llu", type, nm, (unsigned long long)total,
                           (unsigned long long)raw);
      if (unread != 0)
         return trace_fail(err, errlen, TRACE_EZLIB,
                           "section %u (%s): %llu bytes after the end of "
                           "the zlib stream", type, nm,
                           (unsigned long long)unread);
      return TRACE_OK;
   }
   if (zr == Z_MEM_ERROR)
      return trace_fail(err, errlen, TRACE_ENOMEM, "out of memory (zlib)");
   if (zr == Z_BUF_ERROR && out_left == 0 && unread > 0)
      return trace_fail(err, errlen, TRACE_EZLIB,
                        "section %u (%s): inflates to more than the %llu "
                        "bytes the table says", type, nm,
                        (unsigned long long)raw);
   if (zr == Z_BUF_ERROR)
      return trace_fail(err, errlen, TRACE_EZLIB,
                        "section %u (%s): zlib stream ends early", type, nm);
   return trace_fail(err, errlen, TRACE_EZLIB,
                     "section %u (%s): corrupt zlib data (%s)", type, nm,
                     zbuf[0] ? zbuf : "error");
}

/* Read, inflate and CRC-check one section into a new buffer. */
static trace_status load_section(const trace_src *s, const trace_entry *e,
                                 uint8_t **out, char *err, size_t errlen)
{
   const char *nm = trace_section_name(e->type);
   *out = NULL;
   int zipped = (e->flags & CATS_SECFLAG_ZLIB) != 0;
   if (zipped && e->raw / TRACE_MAX_RATIO > e->stored + 1)
      return trace_fail(err, errlen, TRACE_EZLIB,
                        "section %u (%s): raw size %llu is impossible for %llu "
                        "compressed bytes", e->type, nm,
                        (unsigned long long)e->raw,
                        (unsigned long long)e->stored);
   if (e->stored > SIZE_MAX - 1 || e->raw > SIZE_MAX - 1)
      return trace_fail(err, errlen, TRACE_ENOMEM, "section too large");

   uint8_t *raw = malloc((size_t)e->raw + 1);
   if (!raw)
      return trace_fail(err, errlen, TRACE_ENOMEM,
                        "out of memory for section %s (%llu bytes)", nm,
                        (unsigned long long)e->raw);
   trace_status st;
   if (!zipped) {
      st = src_read(s, e->offset, raw, (size_t)e->raw, err, errlen);
   } else {
      const uint8_t *in;
      uint8_t *tmp = NULL;
      if (s->fd < 0) {
         in = s->mem + e->offset;
      } else {
         tmp = malloc((size_t)e->stored + 1);
         if (!tmp) {
            free(raw);
            return trace_fail(err, errlen, TRACE_ENOMEM,
                              "out of memory for section %s", nm);
         }
         st = src_read(s, e->offset, tmp, (size_t)e->stored, err, errlen);
         if (st != TRACE_OK) {
            free(tmp);
            free(raw);
            return st;
         }
         in = tmp;
      }
      st = inflate_exact(in, e->stored, raw, e->raw, nm, e->type, err,
                         errlen);
      free(tmp);
   }
   if (st == TRACE_OK) {
      uLong crc = crc32_z(0L, Z_NULL, 0);
      crc = crc32_z(crc, raw, (size_t)e->raw);
      if ((uint32_t)crc != e->crc)
         st = trace_fail(err, errlen, TRACE_ECRC,
                         "section %u (%s): CRC mismatch (stored %08x, "
                         "computed %08x)", e->type, nm, e->crc,
                         (uint32_t)crc);
   }
   if (st != TRACE_OK) {
      free(raw);
      return st;
   }
   *out = raw;
   return TRACE_OK;
}

static trace_status read_header(const trace_src *s, uint32_t *count, char *err,
                                size_t errlen)
{
   uint8_t h[CATS_HEADER_SIZE];
   size_t have = s->size < sizeof h ? (size_t)s->size : sizeof h;
   trace_status st = src_read(s, 0, h, have, err, errlen);
   if (st != TRACE_OK)
      return st;
   size_t mlen = have < CATS_MAGIC_LEN ? have : CATS_MAGIC_LEN;
   if (memcmp(h, CATS_MAGIC, mlen) != 0)
      return trace_fail(err, errlen, TRACE_EMAGIC,
                        "not a .cats trace (bad magic)");
   if (have == 0)
      return trace_fail(err, errlen, TRACE_ETRUNC, "truncated: empty file");
   if (have < sizeof h)
      return trace_fail(err, errlen, TRACE_ETRUNC,
                        "truncated: %zu bytes, the header needs %d", have,
                        CATS_HEADER_SIZE);
   uint32_t version = le_u32(h + 8);
   if (version != CATS_VERSION)
      return trace_fail(err, errlen, TRACE_EVERSION,
                        "unsupported trace version %u (this reader knows %d)",
                        version, CATS_VERSION);
   *count = le_u32(h + 12);
   return TRACE_OK;
}

static trace_status read_container(const trace_src *s, int keep_graph,
                                   trace_file **out, char *err, size_t errlen)
{
   uint32_t n = 0;
   trace_status st = read_header(s, &n, err, errlen);
   if (st != TRACE_OK)
      return st;
   uint64_t table_end = CATS_HEADER_SIZE +
                        (uint64_t)n * CATS_SECTION_ENTRY_SIZE;
   if (table_end > s->size)
      return trace_fail(err, errlen, TRACE_ETRUNC,
                        "truncated: the table of %u sections needs %llu "
                        "bytes, file has %llu", n,
                        (unsigned long long)table_end,
                        (unsigned long long)s->size);

   size_t tlen = (size_t)n * CATS_SECTION_ENTRY_SIZE;
   uint8_t *tab = malloc(tlen + 1);
   trace_entry *e = malloc((size_t)n * sizeof *e + 1);
   trace_section *secs = calloc((size_t)n + 1, sizeof *secs);
   if (!tab || !e || !secs) {
      free(tab);
      free(e);
      free(secs);
      return trace_fail(err, errlen, TRACE_ENOMEM, "out of memory");
   }
   st = src_read(s, CATS_HEADER_SIZE, tab, tlen, err, errlen);
   for (uint32_t i = 0; st == TRACE_OK && i < n; i++) {
      const uint8_t *p = tab + (size_t)i * CATS_SECTION_ENTRY_SIZE;
      e[i].type = le_u32(p);
      e[i].flags = le_u32(p + 4);
      e[i].offset = le_u64(p + 8);
      e[i].stored = le_u64(p + 16);
      e[i].raw = le_u64(p + 24);
      e[i].crc = le_u32(p + 32);
      e[i].reserved = le_u32(p + 36);
   }
   free(tab);
   if (st == TRACE_OK)
      st = check_table(e, n, table_end, s->size, err, errlen);

   size_t nsec = 0;
   for (uint32_t i = 0; st == TRACE_OK && i < n; i++) {
      uint8_t *raw;
      st = load_section(s, &e[i], &raw, err, errlen);
      if (st == TRACE_OK) {
         secs[nsec].type = e[i].type;
         secs[nsec].data = raw;
         secs[nsec].size = e[i].raw;
         nsec++;
      }
   }
   if (st == TRACE_OK)
      st = keep_graph ? trace_decode(secs, nsec, out, err, errlen)
                      : trace_decode_without_graph(secs, nsec, out, err, errlen);
   for (size_t i = 0; i < nsec; i++)
      free((void *)(uintptr_t)secs[i].data);
   free(secs);
   free(e);
   return st;
}

trace_status trace_open_mem(const void *buf, size_t len, trace_file **out,
                            char *err, size_t errlen)
{
   *out = NULL;
   trace_src s = { -1, buf, len };
   return read_container(&s, 1, out, err, errlen);
}

static trace_status open_file(const char *path, int keep_graph,
                              trace_file **out, char *err, size_t errlen)
{
   *out = NULL;
   int fd = open(path, O_RDONLY | O_CLOEXEC);
   if (fd < 0)
      return trace_fail(err, errlen, TRACE_EIO, "%s", strerror(errno));
   struct stat sb;
   if (fstat(fd, &sb) != 0) {
      int e = errno;
      close(fd);
      return trace_fail(err, errlen, TRACE_EIO, "%s", strerror(e));
   }
   if (!S_ISREG(sb.st_mode)) {
      close(fd);
      return trace_fail(err, errlen, TRACE_EIO, "not a regular file");
   }
   trace_src s = { fd, NULL, (uint64_t)sb.st_size };
   trace_status st = read_container(&s, keep_graph, out, err, errlen);
   close(fd);
   return st;
}

trace_status trace_open(const char *path, trace_file **out, char *err,
                        size_t errlen)
{
   return open_file(path, 1, out, err, errlen);
}

trace_status trace_open_without_graph(const char *path, trace_file **out,
                                      char *err, size_t errlen)
{
   return open_file(path, 0, out, err, errlen);
}
