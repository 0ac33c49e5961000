/* trace_write.c: atomic container writer (see trace_write.h).
 *
 * Sections are deflated in a streaming loop straight into the file, so a
 * large EVENTS payload is never held twice in memory. The section table is
 * only known at the end; a zeroed table is written first and overwritten
 * with pwrite once every section's offset, size and CRC are known. */
#define _POSIX_C_SOURCE 200809L

#include "errmsg.h"
#include "trace_write.h"

#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "../format/cats_format.h"
#include "le.h"

#define CTW_OUT_CHUNK (256u * 1024u)
#define CTW_IN_CHUNK (1u << 30)

/* State of one write: the temporary file and where we are in it. */
typedef struct ctw_file {
   int fd;
   const char *tmp;        /* temporary path */
   uint64_t pos;           /* bytes written so far */
   uint8_t *out;           /* deflate output chunk */
   char *err;
   size_t errlen;
} ctw_file;

#define fail(err, errlen, st, ...) CERR_FAIL(err, errlen, st, __VA_ARGS__)

static ctw_status write_all(ctw_file *f, const uint8_t *p, size_t n)
{
   while (n > 0) {
      ssize_t r = write(f->fd, p, n);
      if (r < 0 && errno == EINTR)
         continue;
      if (r < 0)
         return fail(f->err, f->errlen, CTW_EIO, "%s: write: %s", f->tmp,
                     strerror(errno));
      p += r;
      n -= (size_t)r;
      f->pos += (uint64_t)r;
   }
   return CTW_OK;
}

static ctw_status pwrite_all(ctw_file *f, const uint8_t *p, size_t n,
                             uint64_t off)
{
   while (n > 0) {
      ssize_t r = pwrite(f->fd, p, n, (off_t)off);
      if (r < 0 && errno == EINTR)
         continue;
      if (r < 0)
         return fail(f->err, f->errlen, CTW_EIO, "%s: write: %s", f->tmp,
                     strerror(errno));
      p += r;
      n -= (size_t)r;
      off += (uint64_t)r;
   }
   return CTW_OK;
}

/* Deflate one payload into the file; report the stored size. */
static ctw_status deflate_section(ctw_file *f, const uint8_t *data,
                                  size_t size, uint64_t *stored)
{
   z_stream z;
   memset(&z, 0, sizeof z);
   if (deflateInit(&z, size > CTW_FAST_ABOVE ? CTW_FAST_LEVEL : CTW_LEVEL) !=
       Z_OK)
      return fail(f->err, f->errlen, CTW_ENOMEM, "out of memory (zlib)");
   uint64_t start = f->pos;
   size_t left = size;
   const uint8_t *p = data;
   ctw_status st = CTW_OK;
   int zr;
   do {
      if (z.avail_in == 0 && left > 0) {
         uInt chunk = left > CTW_IN_CHUNK ? CTW_IN_CHUNK : (uInt)left;
         z.next_in = (Bytef *)(uintptr_t)p;
         z.avail_in = chunk;
         p += chunk;
         left -= chunk;
      }
      int flush = (left == 0) ? Z_FINISH : Z_NO_FLUSH;
      z.next_out = f->out;
      z.avail_out = CTW_OUT_CHUNK;
      zr = deflate(&z, flush);
      if (zr == Z_STREAM_ERROR) {
         st = fail(f->err, f->errlen, CTW_ENOMEM, "zlib deflate failed");
         break;
      }
      size_t have = CTW_OUT_CHUNK - z.avail_out;
      st = write_all(f, f->out, have);
   } while (st == CTW_OK && zr != Z_STREAM_END);
   deflateEnd(&z);
   *stored = f->pos - start;
   return st;
}

/* Make the rename durable; failure here cannot un-write the file, and some
 * file systems refuse fsync on directories, so it is best effort. */
static void sync_dir(const char *path)
{
   char *dir = strdup(path);
   if (!dir)
      return;
   char *slash = strrchr(dir, '/');
   const char *d = ".";
   if (slash == dir)
      d = "/";
   else if (slash) {
      *slash = '\0';
      d = dir;
   }
   int fd = open(d, O_RDONLY | O_CLOEXEC);
   if (fd >= 0) {
      (void)fsync(fd);
      close(fd);
   }
   free(dir);
}

static ctw_status write_body(ctw_file *f, const ctw_section *secs, size_t n)
{
   size_t hlen = CATS_HEADER_SIZE + n * CATS_SECTION_ENTRY_SIZE;
   uint8_t *head = calloc(1, hlen);
   if (!head)
      return fail(f->err, f->errlen, CTW_ENOMEM, "out of memory");
   ctw_status st = write_all(f, head, hlen);
   for (size_t i = 0; st == CTW_OK && i < n; i++) {
      uint64_t off = f->pos, stored = 0;
      st = deflate_section(f, secs[i].data, secs[i].size, &stored);
      uLong crc = crc32_z(0L, Z_NULL, 0);
      if (secs[i].size)
         crc = crc32_z(crc, secs[i].data, secs[i].size);
      uint8_t *e = head + CATS_HEADER_SIZE + i * CATS_SECTION_ENTRY_SIZE;
      cle_put32(e, secs[i].type);
      cle_put32(e + 4, CATS_SECFLAG_ZLIB);
      cle_put64(e + 8, off);
      cle_put64(e + 16, stored);
      cle_put32(e + 24, (uint32_t)secs[i].size);
      cle_put32(e + 28, (uint32_t)crc);
   }
   if (st == CTW_OK) {
      memcpy(head, CATS_MAGIC, CATS_MAGIC_LEN);
      cle_put32(head + 8, CATS_VERSION);
      cle_put32(head + 12, (uint32_t)n);
      st = pwrite_all(f, head, hlen, 0);
   }
   free(head);
   if (st == CTW_OK && fsync(f->fd) != 0)
      st = fail(f->err, f->errlen, CTW_EIO, "%s: fsync: %s", f->tmp,
                strerror(errno));
   return st;
}

/* The gate on its thread. */
typedef struct gate_run {
   ctw_gate gate;
   void *arg;
   int rc;
   char msg[CTW_ERRLEN];
} gate_run;

static void *run_gate(void *p)
{
   gate_run *g = p;
   g->rc = g->gate(g->arg, g->msg, sizeof g->msg);
   return NULL;
}

static ctw_status write_file(const char *path, const ctw_section *secs,
                             size_t n, gate_run *g, char *err,
                             size_t errlen);

ctw_status ctw_write(const char *path, const ctw_section *secs, size_t n,
                     char *err, size_t errlen)
{
   return write_file(path, secs, n, NULL, err, errlen);
}

ctw_status ctw_write_gated(const char *path, const ctw_section *secs,
                           size_t n, ctw_gate gate, void *arg, char *err,
                           size_t errlen)
{
   gate_run g = { gate, arg, 0, "" };
   return write_file(path, secs, n, &g, err, errlen);
}

/* Writes the temporary file while the gate (if any) runs beside it, and
 * renames it into place only if both succeeded. Without a second thread
 * the gate runs first. */
static ctw_status write_file(const char *path, const ctw_section *secs,
                             size_t n, gate_run *g, char *err,
                             size_t errlen)
{
   if (n > UINT32_MAX / CATS_SECTION_ENTRY_SIZE)
      return fail(err, errlen, CTW_EARG, "too many sections (%zu)", n);
   for (size_t i = 0; i < n; i++) {
      if ((uint64_t)secs[i].size > UINT32_MAX)
         return fail(err, errlen, CTW_EARG,
                     "section %u: %zu bytes exceed the 4 GiB limit",
                     secs[i].type, secs[i].size);
      if (secs[i].size > 0 && !secs[i].data)
         return fail(err, errlen, CTW_EARG, "section %u: no data",
                     secs[i].type);
   }

   size_t plen = strlen(path);
   char *tmp = malloc(plen + 32);
   uint8_t *out = malloc(CTW_OUT_CHUNK);
   if (!tmp || !out) {
      free(tmp);
      free(out);
      return fail(err, errlen, CTW_ENOMEM, "out of memory");
   }
   snprintf(tmp, plen + 32, "%s.tmp.%ld", path, (long)getpid());

   /* O_EXCL refuses to follow a planted symlink; a stale file of an
    * earlier process with our pid is removed once and retried. */
   int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
   if (fd < 0 && errno == EEXIST && unlink(tmp) == 0)
      fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
   if (fd < 0) {
      ctw_status st = fail(err, errlen, CTW_EIO, "%s: %s", tmp,
                           strerror(errno));
      free(tmp);
      free(out);
      return st;
   }

   pthread_t th;
   int threaded = g && pthread_create(&th, NULL, run_gate, g) == 0;
   if (g && !threaded)
      run_gate(g);
   ctw_file f = { fd, tmp, 0, out, err, errlen };
   ctw_status st = g && !threaded && g->rc ? CTW_EGATE
                                           : write_body(&f, secs, n);
   if (threaded)
      pthread_join(th, NULL);
   if (close(fd) != 0 && st == CTW_OK)
      st = fail(err, errlen, CTW_EIO, "%s: close: %s", tmp, strerror(errno));
   if (g && g->rc && (st == CTW_OK || st == CTW_EGATE))
      st = fail(err, errlen, CTW_EGATE, "%s", g->msg);
   if (st == CTW_OK && rename(tmp, path) != 0)
      st = fail(err, errlen, CTW_EIO, "%s: rename to %s: %s", tmp, path,
                strerror(errno));
   if (st != CTW_OK)
      unlink(tmp);
   else
      sync_dir(path);
   free(tmp);
   free(out);
   return st;
}
