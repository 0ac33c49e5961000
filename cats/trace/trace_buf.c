/* SPDX-License-Identifier: GPL-2.0-or-later */
/* trace_buf.c: growable byte buffer (see trace_buf.h). */
#include "trace_buf.h"

#include <stdlib.h>
#include <string.h>

#include "le.h"

int trace_buf_reserve(trace_buf *b, size_t extra)
{
   if (extra > SIZE_MAX - b->len)
      return -1;
   size_t need = b->len + extra;
   if (need <= b->cap)
      return 0;
   /* Doubling keeps appends amortised O(1). */
   size_t cap = b->cap ? b->cap : 256;
   while (cap < need)
      cap = cap > SIZE_MAX / 2 ? need : cap * 2;
   uint8_t *p = realloc(b->data, cap);
   if (!p)
      return -1;
   b->data = p;
   b->cap = cap;
   return 0;
}

int trace_buf_append(trace_buf *b, const void *src, size_t n)
{
   if (n == 0)
      return 0;
   if (trace_buf_reserve(b, n) != 0)
      return -1;
   memcpy(b->data + b->len, src, n);
   b->len += n;
   return 0;
}

int trace_buf_zero(trace_buf *b, size_t n)
{
   if (n == 0)
      return 0;
   if (trace_buf_reserve(b, n) != 0)
      return -1;
   memset(b->data + b->len, 0, n);
   b->len += n;
   return 0;
}

int trace_buf_put8(trace_buf *b, uint8_t v)
{
   return trace_buf_append(b, &v, 1);
}

int trace_buf_put16(trace_buf *b, uint16_t v)
{
   uint8_t t[2];
   le_put16(t, v);
   return trace_buf_append(b, t, sizeof t);
}

int trace_buf_put32(trace_buf *b, uint32_t v)
{
   uint8_t t[4];
   le_put32(t, v);
   return trace_buf_append(b, t, sizeof t);
}

int trace_buf_put64(trace_buf *b, uint64_t v)
{
   uint8_t t[8];
   le_put64(t, v);
   return trace_buf_append(b, t, sizeof t);
}

void trace_buf_free(trace_buf *b)
{
   free(b->data);
   b->data = NULL;
   b->len = b->cap = 0;
}
