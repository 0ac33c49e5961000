/* SPDX-License-Identifier: GPL-2.0-or-later */
/* trace_write.h: write the .cats container atomically (docs/FORMAT.md).
 *
 * The caller provides raw section payloads; the writer compresses each with
 * zlib, writes OUT.tmp.<pid> beside OUT, fsyncs it and renames it to OUT,
 * so OUT is either absent, the previous file, or a complete trace. On any
 * error the temporary file is removed. An OUT that exists and is not a
 * regular file (a device, a FIFO, /dev/stdout) is written in place, as a
 * rename would replace it. */
#ifndef CATS_TRACE_TRACE_WRITE_H
#define CATS_TRACE_TRACE_WRITE_H

#include <stddef.h>
#include <stdint.h>

#define TRACE_WRITE_ERRLEN 256
#define TRACE_WRITE_LEVEL 6   /* zlib level: a good ratio at moderate cost */
/* Sections above this size (a large value graph) are written at level 1:
 * the guest waits for the write, and level 6 costs four times as long for
 * a tenth less. */
#define TRACE_WRITE_FAST_ABOVE (16u << 20)
#define TRACE_WRITE_FAST_LEVEL 1
/* Sections above this size are deflated on two threads. */
#define TRACE_WRITE_SPLIT_ABOVE (16u << 20)

typedef enum trace_write_status {
   TRACE_WRITE_OK = 0,
   TRACE_WRITE_EARG,     /* a section has no data, or too many sections */
   TRACE_WRITE_ENOMEM,   /* out of memory */
   TRACE_WRITE_EIO,      /* creating, writing, syncing or renaming failed */
   TRACE_WRITE_EGATE     /* the gate refused the contents (trace_write_gated) */
} trace_write_status;

/* One raw section payload, written in array order. */
typedef struct trace_write_section {
   uint32_t type;          /* enum cats_section */
   const uint8_t *data;    /* payload (may be NULL when size is 0) */
   size_t size;            /* bytes; at most UINT32_MAX */
} trace_write_section;

/* Write the sections to `path`. err (may be NULL) gets a one-line message
 * naming the failing file on error. */
trace_write_status trace_write(const char *path, const trace_write_section *secs, size_t n,
                               char *err, size_t errlen);

/* Adds sections to the trace at `path` (a regular file written by
 * trace_write): its sections are copied as they are stored, the new ones
 * are compressed after them, and the result replaces `path` as atomically
 * as trace_write's. `path` keeps its old contents on any error. */
trace_write_status trace_write_add(const char *path, const trace_write_section *secs,
                                   size_t n, char *err, size_t errlen);

/* Whether output to path is written in place (it exists and is not a
 * regular file) rather than through a temporary file and a rename. */
int trace_write_in_place(const char *path);

/* The folder of temporary files: $TMPDIR, or /tmp. */
const char *trace_write_tmpdir(void);

/* A new file of the temporary folder, "NAME.XXXXXX" with the Xs made
 * unique, already unlinked (it goes with its last descriptor): its
 * descriptor (close-on-exec) and its path in path[0..len), or -1 with
 * errno set. */
int trace_write_tmpfile(const char *name, char *path, size_t len);

/* A check of the sections' contents, run on a second thread while they
 * are compressed: 0 if they may be written, else nonzero with a one-line
 * message in msg. */
typedef int (*trace_write_gate)(void *arg, char *msg, size_t msglen);

/* trace_write, but `path` is replaced only if gate(arg) passes; if it does
 * not, TRACE_WRITE_EGATE and its message. The gate only reads the payloads. */
trace_write_status trace_write_gated(const char *path, const trace_write_section *secs,
                                     size_t n, trace_write_gate gate, void *arg, char *err,
                                     size_t errlen);

#endif /* CATS_TRACE_TRACE_WRITE_H */
