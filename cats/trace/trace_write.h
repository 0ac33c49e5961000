/* trace_write.h: write the .cats container atomically (docs/FORMAT.md).
 *
 * The caller provides raw section payloads; the writer compresses each with
 * zlib, writes OUT.tmp.<pid> beside OUT, fsyncs it and renames it to OUT,
 * so OUT is either absent, the previous file, or a complete trace. On any
 * error the temporary file is removed. */
#ifndef CATS_TRACE_WRITE_H
#define CATS_TRACE_WRITE_H

#include <stddef.h>
#include <stdint.h>

#define CTW_ERRLEN 256
#define CTW_LEVEL 6   /* zlib level: a good ratio at moderate cost */
/* Sections above this size (a large value graph) are written at level 1:
 * the guest waits for the write, and level 6 costs four times as long for
 * a tenth less. */
#define CTW_FAST_ABOVE (16u << 20)
#define CTW_FAST_LEVEL 1
/* Sections above this size are deflated on two threads. */
#define CTW_SPLIT_ABOVE (16u << 20)

typedef enum ctw_status {
   CTW_OK = 0,
   CTW_EARG,     /* a section is larger than 4 GiB or has no data */
   CTW_ENOMEM,   /* out of memory */
   CTW_EIO,      /* creating, writing, syncing or renaming failed */
   CTW_EGATE     /* the gate refused the contents (ctw_write_gated) */
} ctw_status;

/* One raw section payload, written in array order. */
typedef struct ctw_section {
   uint32_t type;          /* enum cats_section */
   const uint8_t *data;    /* payload (may be NULL when size is 0) */
   size_t size;            /* bytes; at most UINT32_MAX */
} ctw_section;

/* Write the sections to `path`. err (may be NULL) gets a one-line message
 * naming the failing file on error. */
ctw_status ctw_write(const char *path, const ctw_section *secs, size_t n,
                     char *err, size_t errlen);

/* A check of the sections' contents, run on a second thread while they
 * are compressed: 0 if they may be written, else nonzero with a one-line
 * message in msg. */
typedef int (*ctw_gate)(void *arg, char *msg, size_t msglen);

/* ctw_write, but `path` is replaced only if gate(arg) passes; if it does
 * not, CTW_EGATE and its message. The gate only reads the payloads. */
ctw_status ctw_write_gated(const char *path, const ctw_section *secs,
                           size_t n, ctw_gate gate, void *arg, char *err,
                           size_t errlen);

#endif /* CATS_TRACE_WRITE_H */
