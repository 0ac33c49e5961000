/* SPDX-License-Identifier: GPL-2.0-or-later */
/* trace_names.c: enumeration names (see trace_names.h). Values outside
 * the enumerations cannot reach here from a validated trace; "?" keeps the
 * functions total anyway. */
#include "trace_names.h"

#include "cats/format/cats_format.h"

const char *trace_names_ctx_kind(uint8_t kind)
{
   static const char *const names[] = {
      "thread", "function", "loop", "conditional", "region", "signal"
   };
   return kind < sizeof names / sizeof names[0] ? names[kind] : "?";
}

const char *trace_names_alloc_kind(uint8_t kind)
{
   static const char *const names[CATS_ALLOC_KIND_COUNT] = {
      "malloc", "calloc", "realloc", "memalign", "new", "new[]", "mmap",
      "global", "stack-var", "stack-frame", "client"
   };
   return kind < CATS_ALLOC_KIND_COUNT ? names[kind] : "?";
}

const char *trace_names_pattern(uint8_t pattern)
{
   static const char *const names[] = {
      "constant", "stride-1", "stride-k", "irregular"
   };
   return pattern < sizeof names / sizeof names[0] ? names[pattern] : "?";
}

const char *trace_names_access(uint8_t kind)
{
   return kind == CATS_READ ? "read" : kind == CATS_WRITE ? "write" : "?";
}
