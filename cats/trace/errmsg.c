/* SPDX-License-Identifier: GPL-2.0-or-later */
/* errmsg.c: see errmsg.h. */
#include "errmsg.h"

#include <stdio.h>

void errmsg_sanitize(char *s)
{
   unsigned char *p = (unsigned char *)s;
   for (; *p; p++) {
      if (*p < 0x20 || *p == 0x7f)
         *p = '?';
      else if (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f) {
         p[0] = '?';   /* a C1 control in UTF-8, such as U+009B (CSI) */
         p[1] = '?';
         p++;
      }
   }
}

void errmsg_vformat(char *err, size_t errlen, const char *fmt, va_list ap)
{
   if (err && errlen > 0) {
      vsnprintf(err, errlen, fmt, ap);
      errmsg_sanitize(err);
   }
}

void errmsg_format(char *err, size_t errlen, const char *fmt, ...)
{
   va_list ap;
   va_start(ap, fmt);
   errmsg_vformat(err, errlen, fmt, ap);
   va_end(ap);
}
