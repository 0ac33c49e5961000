/* trace_names.h: printable names of the enumerations in a trace.
 *
 * These are the spellings of docs/JSON.md; the text dump and `stat` use the
 * same words so that all outputs agree. */
#ifndef CATS_TRACE_NAMES_H
#define CATS_TRACE_NAMES_H

#include <stdint.h>

const char *ctn_ctx_kind(uint8_t kind);      /* "thread", "function", ... */
const char *ctn_alloc_kind(uint8_t kind);    /* "malloc", ..., "client" */
const char *ctn_pattern(uint8_t pattern);    /* "constant", ... */
const char *ctn_access(uint8_t kind);        /* "read", "write" */

#endif /* CATS_TRACE_NAMES_H */
