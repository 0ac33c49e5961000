/* SPDX-License-Identifier: GPL-2.0-or-later */
/* errmsg.c: see errmsg.h. */
#include "errmsg.h"

#include <stdio.h>

void errmsg_vformat(char *err, size_t errlen, const char *fmt, va_list ap)
{
   if (err && errlen > 0)
      vsnprintf(err, errlen, fmt, ap);
}

void errmsg_format(char *err, size_t errlen, const char *fmt, ...)
{
   va_list ap;
   va_start(ap, fmt);
   errmsg_vformat(err, errlen, fmt, ap);
   va_end(ap);
}
