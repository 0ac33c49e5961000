/* buf.c: growable byte buffer (see buf.h). */
#include "buf.h"

#include <stdlib.h>
#include <string.h>

#include "le.h"

int cbuf_reserve(cbuf *b, size_t extra)
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

int cbuf_append(cbuf *b, const void *src, size_t n)
{
   if (n == 0)
      return 0;
   if (cbuf_reserve(b, n) != 0)
      return -1;
   memcpy(b->data + b->len, src, n);
   b->len += n;
   return 0;
}

int cbuf_zero(cbuf *b, size_t n)
{
   if (n == 0)
      return 0;
   if (cbuf_reserve(b, n) != 0)
      return -1;
   memset(b->data + b->len, 0, n);
   b->len += n;
   return 0;
}

int cbuf_put8(cbuf *b, uint8_t v)
{
   return cbuf_append(b, &v, 1);
}

int cbuf_put16(cbuf *b, uint16_t v)
{
   uint8_t t[2];
   cle_put16(t, v);
   return cbuf_append(b, t, sizeof t);
}

int cbuf_put32(cbuf *b, uint32_t v)
{
   uint8_t t[4];
   cle_put32(t, v);
   return cbuf_append(b, t, sizeof t);
}

int cbuf_put64(cbuf *b, uint64_t v)
{
   uint8_t t[8];
   cle_put64(t, v);
   return cbuf_append(b, t, sizeof t);
}

void cbuf_free(cbuf *b)
{
   free(b->data);
   b->data = NULL;
   b->len = b->cap = 0;
}
