/* errmsg.c: see errmsg.h. */
#include "errmsg.h"

#include <stdio.h>

void cerr_vformat(char *err, size_t errlen, const char *fmt, va_list ap)
{
   if (err && errlen > 0)
      vsnprintf(err, errlen, fmt, ap);
}

void cerr_format(char *err, size_t errlen, const char *fmt, ...)
{
   va_list ap;
   va_start(ap, fmt);
   cerr_vformat(err, errlen, fmt, ap);
   va_end(ap);
}
