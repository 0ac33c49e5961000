/* SPDX-License-Identifier: GPL-2.0-or-later */
/* trace_status.c: the trace reader's error results and section names,
 * shared by the container layer (trace_read.c) and the section decoders
 * (trace_decode*.c), which otherwise do not call each other back. */
#include "errmsg.h"
#include "trace_int.h"

#include <stdarg.h>

trace_status trace_fail(char *err, size_t errlen, trace_status st,
                        const char *fmt, ...)
{
   va_list ap;
   va_start(ap, fmt);
   errmsg_vformat(err, errlen, fmt, ap);
   va_end(ap);
   return st;
}

const char *trace_section_name(uint32_t type)
{
   switch (type) {
   case CATS_SEC_STRINGS:  return "STRINGS";
   case CATS_SEC_META:     return "META";
   case CATS_SEC_LOCS:     return "LOCS";
   case CATS_SEC_CONTEXTS: return "CONTEXTS";
   case CATS_SEC_ALLOCS:   return "ALLOCS";
   case CATS_SEC_EVENTS:   return "EVENTS";
   case CATS_SEC_VCG:      return "VCG";
   case CATS_SEC_PROJECT:  return "PROJECT";
   case CATS_SEC_REUSE:    return "REUSE";
   case CATS_SEC_INDEX:    return "INDEX";
   case CATS_SEC_DEPS:     return "DEPS";
   default:                return "unknown";
   }
}
