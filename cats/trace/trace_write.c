/* SPDX-License-Identifier: GPL-2.0-or-later */
/* trace_write.c: atomic container writer (see trace_write.h).
 *
 * Sections are deflated in a streaming loop straight into the file, so a
 * large EVENTS payload is never held twice in memory. The section table is
 * only known at the end; a zeroed table is written first and overwritten
 * with pwrite once every section's offset, size and CRC are known. */
#define _POSIX_C_SOURCE 200809L

#include "errmsg.h"
#include "trace.h"
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

#include "cats/format/cats_format.h"
#include "le.h"

#define TRACE_WRITE_OUT_CHUNK (256u * 1024u)
#define TRACE_WRITE_IN_CHUNK (1u << 30)

/* State of one write: the temporary file and where we are in it. */
typedef struct trace_write_file {
   int fd;
   const char *tmp;        /* temporary path */
   uint64_t pos;           /* bytes written so far */
   uint8_t *out;           /* deflate output chunk */
   char *err;
   size_t errlen;
} trace_write_file;

#define fail(err, errlen, st, ...) ERRMSG_FAIL(err, errlen, st, __VA_ARGS__)

static trace_write_status write_all(trace_write_file *f, const uint8_t *p, size_t n)
{
   while (n > 0) {
      ssize_t r = write(f->fd, p, n);
      if (r < 0 && errno == EINTR)
         continue;
      if (r < 0)
         return fail(f->err, f->errlen, TRACE_WRITE_EIO, "%s: write: %s", f->tmp,
                     strerror(errno));
      p += r;
      n -= (size_t)r;
      f->pos += (uint64_t)r;
   }
   return TRACE_WRITE_OK;
}

static trace_write_status pwrite_all(trace_write_file *f, const uint8_t *p, size_t n,
                                     uint64_t off)
{
   while (n > 0) {
      ssize_t r = pwrite(f->fd, p, n, (off_t)off);
      if (r < 0 && errno == EINTR)
         continue;
      if (r < 0)
         return fail(f->err, f->errlen, TRACE_WRITE_EIO, "%s: write: %s", f->tmp,
                     strerror(errno));
      p += r;
      n -= (size_t)r;
      off += (uint64_t)r;
   }
   return TRACE_WRITE_OK;
}

typedef trace_write_status (*trace_write_sink)(void *to, const uint8_t *p, size_t n);

/* Deflate `size` bytes into the open stream z (Z_NO_FLUSH until the
 * input ends, then `last`), each output chunk going to sink(). */

static trace_write_status deflate_into(z_stream *z, const uint8_t *data, size_t size,
                                       int last, uint8_t *out, trace_write_sink sink,
                                       void *to)
{
   size_t left = size;
   const uint8_t *p = data;
   trace_write_status st = TRACE_WRITE_OK;
   int zr;
   do {
      if (z->avail_in == 0 && left > 0) {
         uInt chunk = left > TRACE_WRITE_IN_CHUNK ? TRACE_WRITE_IN_CHUNK : (uInt)left;
         z->next_in = (Bytef *)(uintptr_t)p;
         z->avail_in = chunk;
         p += chunk;
         left -= chunk;
      }
      int flush = left == 0 ? last : Z_NO_FLUSH;
      z->next_out = out;
      z->avail_out = TRACE_WRITE_OUT_CHUNK;
      zr = deflate(z, flush);
      if (zr == Z_STREAM_ERROR)
         return TRACE_WRITE_ENOMEM;
      st = sink(to, out, TRACE_WRITE_OUT_CHUNK - z->avail_out);
      /* Done when the input is in and deflate had room to spare (a
       * flush's end) or said so (a finish's). */
      if (left == 0 && z->avail_in == 0 &&
          (zr == Z_STREAM_END || (last != Z_FINISH && z->avail_out != 0)))
         break;
   } while (st == TRACE_WRITE_OK);
   return st;
}

static trace_write_status file_sink(void *to, const uint8_t *p, size_t n)
{
   return write_all(to, p, n);
}

/* The second half of a split section, deflated into memory on a thread
 * of its own. */
typedef struct trace_write_tail {
   const uint8_t *dict, *data;
   size_t dict_len, size;
   int level;
   uint8_t *buf, *out;        /* compressed so far; deflate's chunk */
   size_t len, cap;
   uLong adler, crc;
   trace_write_status st;
} trace_write_tail;

static trace_write_status mem_sink(void *to, const uint8_t *p, size_t n)
{
   trace_write_tail *t = to;
   if (t->len + n > t->cap) {
      size_t cap = t->cap * 2 + n;
      uint8_t *b = realloc(t->buf, cap);
      if (!b)
         return TRACE_WRITE_ENOMEM;
      t->buf = b;
      t->cap = cap;
   }
   memcpy(t->buf + t->len, p, n);
   t->len += n;
   return TRACE_WRITE_OK;
}

static void *deflate_tail(void *arg)
{
   trace_write_tail *t = arg;
   z_stream z;
   memset(&z, 0, sizeof z);
   t->st = TRACE_WRITE_ENOMEM;
   t->out = malloc(TRACE_WRITE_OUT_CHUNK);
   /* Raw deflate (no header): it continues the first half's stream, whose
    * last 32 KiB it may refer back to, as the reader's window holds them. */
   if (!t->out || deflateInit2(&z, t->level, Z_DEFLATED, -15, 8,
                               Z_DEFAULT_STRATEGY) != Z_OK)
      return NULL;
   if (deflateSetDictionary(&z, t->dict, (uInt)t->dict_len) == Z_OK)
      t->st = deflate_into(&z, t->data, t->size, Z_FINISH, t->out, mem_sink,
                           t);
   deflateEnd(&z);
   t->adler = adler32_z(adler32_z(0L, Z_NULL, 0), t->data, t->size);
   t->crc = crc32_z(crc32_z(0L, Z_NULL, 0), t->data, t->size);
   return NULL;
}

/* Deflate one payload into the file as one zlib stream; report the
 * stored size and the payload's CRC-32. A large one (a value graph of
 * millions of edges, which the guest waits for) is deflated in two halves
 * on two threads, as pigz does: the first ends with a sync flush (byte
 * aligned, not final), the second is raw deflate primed with the first's
 * last 32 KiB, and the trailer's Adler-32 is combined from both. */
#define TRACE_WRITE_DICT (32u * 1024u)

static trace_write_status deflate_section(trace_write_file *f, const uint8_t *data,
                                          size_t size, uint64_t *stored, uLong *crc)
{
   int level = size > TRACE_WRITE_FAST_ABOVE ? TRACE_WRITE_FAST_LEVEL : TRACE_WRITE_LEVEL;
   trace_write_tail t = { 0 };
   pthread_t th;
   int split = size > TRACE_WRITE_SPLIT_ABOVE;
   size_t head = split ? size / 2 : size;
   if (split) {
      t = (trace_write_tail){ .dict = data + head - TRACE_WRITE_DICT, .dict_len = TRACE_WRITE_DICT,
                      .data = data + head, .size = size - head,
                      .level = level };
      split = pthread_create(&th, NULL, deflate_tail, &t) == 0;
      if (!split)
         head = size;
   }
   z_stream z;
   memset(&z, 0, sizeof z);
   uint64_t start = f->pos;
   trace_write_status st = deflateInit(&z, level) == Z_OK ? TRACE_WRITE_OK : TRACE_WRITE_ENOMEM;
   if (st == TRACE_WRITE_OK)
      st = deflate_into(&z, data, head, split ? Z_SYNC_FLUSH : Z_FINISH,
                        f->out, file_sink, f);
   uLong adler = z.adler;
   deflateEnd(&z);
   *crc = crc32_z(crc32_z(0L, Z_NULL, 0), data, head);
   if (split) {
      pthread_join(th, NULL);
      if (st == TRACE_WRITE_OK)
         st = t.st;
      if (st == TRACE_WRITE_OK)
         st = write_all(f, t.buf, t.len);
      uint8_t trailer[4];
      adler = adler32_combine(adler, t.adler, (z_off_t)t.size);
      trailer[0] = (uint8_t)(adler >> 24);   /* big-endian, as zlib's */
      trailer[1] = (uint8_t)(adler >> 16);
      trailer[2] = (uint8_t)(adler >> 8);
      trailer[3] = (uint8_t)adler;
      if (st == TRACE_WRITE_OK)
         st = write_all(f, trailer, sizeof trailer);
      *crc = crc32_combine(*crc, t.crc, (z_off_t)t.size);
      free(t.buf);
      free(t.out);
   }
   if (st == TRACE_WRITE_ENOMEM)
      return fail(f->err, f->errlen, TRACE_WRITE_ENOMEM,
                  "out of memory compressing a section (zlib)");
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

/* The sections of a written trace that a new write keeps before its own
 * (trace_write_add): the file, its table and where its data lie. */
typedef struct trace_write_keep {
   int fd;
   uint32_t n;
   const uint8_t *table;          /* n entries, as in the file */
   uint64_t data_start, size;
} trace_write_keep;

/* Copies the kept trace's data, as it is stored, to the end of f. */
static trace_write_status copy_kept(trace_write_file *f, const trace_write_keep *k)
{
   for (uint64_t at = k->data_start; at < k->size;) {
      size_t want = k->size - at < TRACE_WRITE_OUT_CHUNK ? (size_t)(k->size - at)
                                                         : TRACE_WRITE_OUT_CHUNK;
      ssize_t r = pread(k->fd, f->out, want, (off_t)at);
      if (r < 0 && errno == EINTR)
         continue;
      if (r <= 0)
         return fail(f->err, f->errlen, TRACE_WRITE_EIO, "%s: read back: %s", f->tmp,
                     r < 0 ? strerror(errno) : "the trace got shorter");
      trace_write_status st = write_all(f, f->out, (size_t)r);
      if (st != TRACE_WRITE_OK)
         return st;
      at += (uint64_t)r;
   }
   return TRACE_WRITE_OK;
}

static trace_write_status write_body(trace_write_file *f, const trace_write_keep *k,
                                     const trace_write_section *secs, size_t n)
{
   uint32_t kept = k ? k->n : 0;
   size_t total = kept + n;
   size_t hlen = CATS_HEADER_SIZE + total * CATS_SECTION_ENTRY_SIZE;
   uint8_t *head = calloc(1, hlen);
   if (!head)
      return fail(f->err, f->errlen, TRACE_WRITE_ENOMEM, "out of memory");
   trace_write_status st = write_all(f, head, hlen);
   if (st == TRACE_WRITE_OK && k) {
      /* The kept data move by the growth of the table. */
      st = copy_kept(f, k);
      for (uint32_t i = 0; i < kept; i++) {
         uint8_t *e = head + CATS_HEADER_SIZE + (size_t)i * CATS_SECTION_ENTRY_SIZE;
         memcpy(e, k->table + (size_t)i * CATS_SECTION_ENTRY_SIZE, CATS_SECTION_ENTRY_SIZE);
         le_put64(e + 8, le_u64(e + 8) - k->data_start + hlen);
      }
   }
   for (size_t i = 0; st == TRACE_WRITE_OK && i < n; i++) {
      uint64_t off = f->pos, stored = 0;
      uLong crc = 0;
      st = deflate_section(f, secs[i].data, secs[i].size, &stored, &crc);
      uint8_t *e = head + CATS_HEADER_SIZE + (kept + i) * CATS_SECTION_ENTRY_SIZE;
      le_put32(e, secs[i].type);
      le_put32(e + 4, CATS_SECFLAG_ZLIB);
      le_put64(e + 8, off);
      le_put64(e + 16, stored);
      le_put64(e + 24, secs[i].size);
      le_put32(e + 32, (uint32_t)crc);   /* + 36: reserved, 0 */
   }
   if (st == TRACE_WRITE_OK) {
      memcpy(head, CATS_MAGIC, CATS_MAGIC_LEN);
      le_put32(head + 8, CATS_VERSION);
      le_put32(head + 12, (uint32_t)total);
      st = pwrite_all(f, head, hlen, 0);
   }
   free(head);
   return st;
}

const char *trace_write_tmpdir(void)
{
   const char *dir = getenv("TMPDIR");
   return dir && *dir ? dir : "/tmp";
}

int trace_write_tmpfile(const char *name, char *path, size_t len)
{
   int n = snprintf(path, len, "%s/%s.XXXXXX", trace_write_tmpdir(), name);
   if (n < 0 || (size_t)n >= len) {
      errno = ENAMETOOLONG;
      return -1;
   }
   int fd = mkstemp(path);
   if (fd >= 0) {
      unlink(path);
      fcntl(fd, F_SETFD, FD_CLOEXEC);
   }
   return fd;
}

int trace_write_in_place(const char *path)
{
   struct stat st;
   return stat(path, &st) == 0 && !S_ISREG(st.st_mode);
}

/* Copies the finished trace in fd to path, opened as it is (a device or a
 * FIFO: no creation, no rename, nothing to sync). */
static trace_write_status copy_in_place(int fd, uint8_t *buf, const char *path,
                                        char *err, size_t errlen)
{
   int to = open(path, O_WRONLY | O_CLOEXEC);
   if (to < 0)
      return fail(err, errlen, TRACE_WRITE_EIO, "%s: %s", path, strerror(errno));
   trace_write_status st = TRACE_WRITE_OK;
   off_t at = 0;
   for (;;) {
      ssize_t r = pread(fd, buf, TRACE_WRITE_OUT_CHUNK, at);
      if (r < 0 && errno == EINTR)
         continue;
      if (r < 0) {
         st = fail(err, errlen, TRACE_WRITE_EIO, "%s: read back: %s", path, strerror(errno));
         break;
      }
      if (r == 0)
         break;
      at += r;
      for (ssize_t done = 0; done < r;) {
         ssize_t w = write(to, buf + done, (size_t)(r - done));
         if (w < 0 && errno == EINTR)
            continue;
         if (w <= 0) {
            st = fail(err, errlen, TRACE_WRITE_EIO, "%s: write: %s", path,
                      w < 0 ? strerror(errno) : "no progress");
            break;
         }
         done += w;
      }
      if (st != TRACE_WRITE_OK)
         break;
   }
   if (close(to) != 0 && st == TRACE_WRITE_OK)
      st = fail(err, errlen, TRACE_WRITE_EIO, "%s: close: %s", path, strerror(errno));
   return st;
}

/* The gate on its thread. */
typedef struct gate_run {
   trace_write_gate gate;
   void *arg;
   int rc;
   char msg[TRACE_WRITE_ERRLEN];
} gate_run;

static void *run_gate(void *p)
{
   gate_run *g = p;
   g->rc = g->gate(g->arg, g->msg, sizeof g->msg);
   return NULL;
}

static trace_write_status write_file(const char *path, const trace_write_keep *k,
                                     const trace_write_section *secs, size_t n,
                                     gate_run *g, char *err, size_t errlen);

trace_write_status trace_write(const char *path, const trace_write_section *secs, size_t n,
                               char *err, size_t errlen)
{
   return write_file(path, NULL, secs, n, NULL, err, errlen);
}

trace_write_status trace_write_gated(const char *path, const trace_write_section *secs,
                                     size_t n, trace_write_gate gate, void *arg, char *err,
                                     size_t errlen)
{
   gate_run g = { gate, arg, 0, "" };
   return write_file(path, NULL, secs, n, &g, err, errlen);
}

/* Writes the temporary file while the gate (if any) runs beside it, and
 * renames it into place only if both succeeded. Without a second thread
 * the gate runs first. */
static trace_write_status write_file(const char *path, const trace_write_keep *k,
                                     const trace_write_section *secs, size_t n,
                                     gate_run *g, char *err, size_t errlen)
{
   if (n > UINT32_MAX / CATS_SECTION_ENTRY_SIZE - (k ? k->n : 0))
      return fail(err, errlen, TRACE_WRITE_EARG, "too many sections (%zu)", n);
   for (size_t i = 0; i < n; i++) {
      if (secs[i].size > 0 && !secs[i].data)
         return fail(err, errlen, TRACE_WRITE_EARG, "section %u: no data",
                     secs[i].type);
   }

   /* A device or a FIFO is written in place (a rename would replace
    * it with a regular file): the trace is made in an unlinked file of
    * TMPDIR, whose header is written last, and copied to it. */
   int in_place = trace_write_in_place(path);
   if (in_place && k)
      return fail(err, errlen, TRACE_WRITE_EARG, "%s: not a regular file", path);
   size_t plen = strlen(in_place ? trace_write_tmpdir() : path);
   char *tmp = malloc(plen + 32);
   uint8_t *out = malloc(TRACE_WRITE_OUT_CHUNK);
   if (!tmp || !out) {
      free(tmp);
      free(out);
      return fail(err, errlen, TRACE_WRITE_ENOMEM, "out of memory");
   }
   int fd;
   if (in_place) {
      fd = trace_write_tmpfile("cats-trace", tmp, plen + 32);
   } else {
      snprintf(tmp, plen + 32, "%s.tmp.%ld", path, (long)getpid());
      /* O_EXCL refuses to follow a planted symlink; a stale file of an
       * earlier process with our pid is removed once and retried. */
      fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
      if (fd < 0 && errno == EEXIST && unlink(tmp) == 0)
         fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
   }
   if (fd < 0) {
      trace_write_status st = fail(err, errlen, TRACE_WRITE_EIO, "%s: %s", tmp,
                                   strerror(errno));
      free(tmp);
      free(out);
      return st;
   }

   pthread_t th;
   int threaded = g && pthread_create(&th, NULL, run_gate, g) == 0;
   if (g && !threaded)
      run_gate(g);
   trace_write_file f = { fd, tmp, 0, out, err, errlen };
   trace_write_status st = g && !threaded && g->rc ? TRACE_WRITE_EGATE
                                           : write_body(&f, k, secs, n);
   if (threaded)
      pthread_join(th, NULL);
   if (g && g->rc && (st == TRACE_WRITE_OK || st == TRACE_WRITE_EGATE))
      st = fail(err, errlen, TRACE_WRITE_EGATE, "%s", g->msg);
   if (in_place) {
      if (st == TRACE_WRITE_OK)
         st = copy_in_place(fd, out, path, err, errlen);
      close(fd);
   } else {
      /* Synced before the rename, so that OUT is never a file whose
       * blocks a crash can still lose; a copy made in place needs none. */
      if (st == TRACE_WRITE_OK && fsync(fd) != 0)
         st = fail(err, errlen, TRACE_WRITE_EIO, "%s: fsync: %s", tmp, strerror(errno));
      if (close(fd) != 0 && st == TRACE_WRITE_OK)
         st = fail(err, errlen, TRACE_WRITE_EIO, "%s: close: %s", tmp, strerror(errno));
      if (st == TRACE_WRITE_OK && rename(tmp, path) != 0)
         st = fail(err, errlen, TRACE_WRITE_EIO, "%s: rename to %s: %s", tmp, path,
                   strerror(errno));
      if (st != TRACE_WRITE_OK)
         unlink(tmp);
      else
         sync_dir(path);
   }
   free(tmp);
   free(out);
   return st;
}

/* Reads the header and table of the trace in fd (written by us: only
 * what the copy needs is checked; a reader checks the rest). */
static trace_write_status read_kept(int fd, const char *path, trace_write_keep *k,
                                    uint8_t **table, char *err, size_t errlen)
{
   struct stat sb;
   uint8_t head[CATS_HEADER_SIZE];
   if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode))
      return fail(err, errlen, TRACE_WRITE_EARG, "%s: not a regular file", path);
   if (pread(fd, head, sizeof head, 0) != (ssize_t)sizeof head ||
       memcmp(head, CATS_MAGIC, CATS_MAGIC_LEN) != 0 || le_u32(head + 8) != CATS_VERSION)
      return fail(err, errlen, TRACE_WRITE_EARG, "%s: not a trace of this version", path);
   uint32_t n = le_u32(head + 12);
   uint64_t start = CATS_HEADER_SIZE + (uint64_t)n * CATS_SECTION_ENTRY_SIZE;
   if (n > CATS_SEC_MAX || start > (uint64_t)sb.st_size)
      return fail(err, errlen, TRACE_WRITE_EARG, "%s: damaged section table", path);
   *table = malloc((size_t)n * CATS_SECTION_ENTRY_SIZE + 1);
   if (!*table)
      return fail(err, errlen, TRACE_WRITE_ENOMEM, "out of memory");
   size_t tlen = (size_t)n * CATS_SECTION_ENTRY_SIZE;
   if (pread(fd, *table, tlen, CATS_HEADER_SIZE) != (ssize_t)tlen)
      return fail(err, errlen, TRACE_WRITE_EIO, "%s: read back: %s", path,
                  strerror(errno));
   *k = (trace_write_keep){ fd, n, *table, start, (uint64_t)sb.st_size };
   return TRACE_WRITE_OK;
}

trace_write_status trace_write_add(const char *path, const trace_write_section *secs,
                                   size_t n, char *err, size_t errlen)
{
   int fd = open(path, O_RDONLY | O_CLOEXEC);
   if (fd < 0)
      return fail(err, errlen, TRACE_WRITE_EIO, "%s: %s", path, strerror(errno));
   trace_write_keep k;
   uint8_t *table = NULL;
   trace_write_status st = read_kept(fd, path, &k, &table, err, errlen);
   for (uint32_t i = 0; st == TRACE_WRITE_OK && i < k.n; i++)
      for (size_t j = 0; st == TRACE_WRITE_OK && j < n; j++)
         if (le_u32(table + (size_t)i * CATS_SECTION_ENTRY_SIZE) == secs[j].type)
            st = fail(err, errlen, TRACE_WRITE_EARG, "%s: already has section %u",
                      path, secs[j].type);
   if (st == TRACE_WRITE_OK)
      st = write_file(path, &k, secs, n, NULL, err, errlen);
   free(table);
   close(fd);
   return st;
}
