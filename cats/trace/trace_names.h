/* SPDX-License-Identifier: GPL-2.0-or-later */
/* trace_names.h: printable names of the enumerations in a trace.
 *
 * These are the spellings of docs/JSON.md; the text dump and `stat` use the
 * same words so that all outputs agree. */
#ifndef CATS_TRACE_TRACE_NAMES_H
#define CATS_TRACE_TRACE_NAMES_H

#include <stdint.h>

const char *trace_names_ctx_kind(uint8_t kind);      /* "thread", "function", ... */
const char *trace_names_alloc_kind(uint8_t kind);    /* "malloc", ..., "client" */
const char *trace_names_pattern(uint8_t pattern);    /* "constant", ... */
const char *trace_names_access(uint8_t kind);        /* "read", "write" */

#endif /* CATS_TRACE_TRACE_NAMES_H */
