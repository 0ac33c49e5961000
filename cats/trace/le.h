/* SPDX-License-Identifier: GPL-2.0-or-later */
/* le.h: little-endian field access for the .cats format.
 *
 * The format is defined byte by byte (docs/FORMAT.md), so every field is
 * read and written through these helpers instead of casting structs; this
 * keeps the code independent of host endianness, alignment and padding. */
#ifndef CATS_TRACE_LE_H
#define CATS_TRACE_LE_H

#include <stdint.h>

static inline uint16_t le_u16(const uint8_t *p)
{
   return (uint16_t)(p[0] | (uint16_t)p[1] << 8);
}

static inline uint32_t le_u32(const uint8_t *p)
{
   return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
          (uint32_t)p[3] << 24;
}

static inline uint64_t le_u64(const uint8_t *p)
{
   return (uint64_t)le_u32(p) | (uint64_t)le_u32(p + 4) << 32;
}

static inline void le_put16(uint8_t *p, uint16_t v)
{
   p[0] = (uint8_t)v;
   p[1] = (uint8_t)(v >> 8);
}

static inline void le_put32(uint8_t *p, uint32_t v)
{
   p[0] = (uint8_t)v;
   p[1] = (uint8_t)(v >> 8);
   p[2] = (uint8_t)(v >> 16);
   p[3] = (uint8_t)(v >> 24);
}

static inline void le_put64(uint8_t *p, uint64_t v)
{
   le_put32(p, (uint32_t)v);
   le_put32(p + 4, (uint32_t)(v >> 32));
}

#endif /* CATS_TRACE_LE_H */
