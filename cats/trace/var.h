/* SPDX-License-Identifier: GPL-2.0-or-later */
/* var.h: the format's variable-length numbers (docs/FORMAT.md): a uvar is
 * unsigned LEB128, seven bits a byte, low bits first; an svar is the uvar
 * of a signed number's zigzag form (0, -1, 1, -2, ... as 0, 1, 2, 3, ...).
 * Readers check every byte against the end of their section. */
#ifndef CATS_TRACE_VAR_H
#define CATS_TRACE_VAR_H

#include <stdint.h>

/* The longest uvar: a 64-bit value in 10 bytes. */
#define VAR_MAX_BYTES 10

/* A cursor over a variable-length payload. */
typedef struct var_in {
   const uint8_t *p, *end;
} var_in;

/* 0 on success, -1 if the payload ends inside it, -2 if it does not fit
 * 64 bits. */
static inline int var_get_u(var_in *in, uint64_t *v)
{
   uint64_t x = 0;
   for (unsigned shift = 0; shift < 64; shift += 7) {
      if (in->p == in->end)
         return -1;
      uint8_t c = *in->p++;
      if (shift == 63 && c > 1)
         return -2;
      x |= (uint64_t)(c & 0x7F) << shift;
      if (!(c & 0x80)) {
         *v = x;
         return 0;
      }
   }
   return -2;
}

static inline int var_get_s(var_in *in, int64_t *v)
{
   uint64_t z = 0;   /* unset on error; the caller checks the result */
   int r = var_get_u(in, &z);
   *v = (int64_t)(z >> 1) ^ -(int64_t)(z & 1);
   return r;
}

/* A field of 32 bits: -2 also when the value does not fit them. */
static inline int var_get_u32(var_in *in, uint32_t *v)
{
   uint64_t x = 0;
   int r = var_get_u(in, &x);
   if (r == 0 && x > UINT32_MAX)
      r = -2;
   *v = (uint32_t)x;
   return r;
}

/* Writes v at p (room for VAR_MAX_BYTES); returns the byte after it. */
static inline uint8_t *var_put_u(uint8_t *p, uint64_t v)
{
   while (v >= 0x80) {
      *p++ = (uint8_t)(v | 0x80);
      v >>= 7;
   }
   *p++ = (uint8_t)v;
   return p;
}

static inline uint8_t *var_put_s(uint8_t *p, int64_t v)
{
   return var_put_u(p, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

#endif /* CATS_TRACE_VAR_H */
