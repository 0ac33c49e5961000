/* SPDX-License-Identifier: GPL-2.0-or-later */
/* part_section.h: section 8 (PROJECT) of a .cats trace, the projection
 * computed at the end of the run (docs/FORMAT.md). */
#ifndef CATS_PARTITION_PART_SECTION_H
#define CATS_PARTITION_PART_SECTION_H

#include <stddef.h>
#include <stdint.h>

#include "cats/trace/trace_buf.h"
#include "part_project.h"

#define PART_SECTION_VERSION 2

/* Append the payload. 0, or -1 out of memory. */
int part_section_write(const part_projection *p, trace_buf *out);

/* Decode a payload into p (results, region name and iterations, options;
 * region.scope stays NULL). -1 with a message on a malformed payload. */
int part_section_read(const uint8_t *data, size_t len, part_projection *p, char *err,
                      size_t errlen);

#endif /* CATS_PARTITION_PART_SECTION_H */
