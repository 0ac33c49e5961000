/* SPDX-License-Identifier: GPL-2.0-or-later */
/* json_out.c: JSON string escaping (see json_out.h). */
#include "json_out.h"

#include <stdint.h>

/* Length of the valid UTF-8 sequence at s, or 0 if it is not valid
 * (overlong forms, surrogates and values above U+10FFFF are invalid). */
static int utf8_len(const unsigned char *s)
{
   unsigned c = s[0];
   if (c < 0x80)
      return 1;
   int n;
   uint32_t cp;
   if (c >= 0xC2 && c <= 0xDF) {
      n = 2;
      cp = c & 0x1F;
   } else if (c >= 0xE0 && c <= 0xEF) {
      n = 3;
      cp = c & 0x0F;
   } else if (c >= 0xF0 && c <= 0xF4) {
      n = 4;
      cp = c & 0x07;
   } else {
      return 0;
   }
   for (int i = 1; i < n; i++) {
      if ((s[i] & 0xC0) != 0x80)
         return 0;   /* also stops at the terminating NUL */
      cp = cp << 6 | (s[i] & 0x3F);
   }
   if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
       (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF)
      return 0;
   return n;
}

void json_out_string(FILE *fp, const char *str)
{
   const unsigned char *s = (const unsigned char *)str;
   putc('"', fp);
   while (*s) {
      unsigned c = *s;
      if (c == '"' || c == '\\') {
         putc('\\', fp);
         putc((int)c, fp);
         s++;
      } else if (c < 0x20) {
         switch (c) {
         case '\n': fputs("\\n", fp); break;
         case '\t': fputs("\\t", fp); break;
         case '\r': fputs("\\r", fp); break;
         default:   fprintf(fp, "\\u%04x", c); break;
         }
         s++;
      } else {
         int n = utf8_len(s);
         if (n == 0) {
            fputs("\\ufffd", fp);
            s++;
         } else {
            fwrite(s, 1, (size_t)n, fp);
            s += n;
         }
      }
   }
   putc('"', fp);
}
