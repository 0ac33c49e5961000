/* part_section.h: section 8 (PROJECT) of a .cats trace, the projection
 * computed at the end of the run (docs/FORMAT.md). */
#ifndef CATS_PART_SECTION_H
#define CATS_PART_SECTION_H

#include <stddef.h>
#include <stdint.h>

#include "../cats/host/buf.h"
#include "part_project.h"

#define PSEC_VERSION 1

/* Append the payload. 0, or -1 out of memory. */
int psec_write(const pp_projection *p, cbuf *out);

/* Decode a payload into p (results, region name and iterations, options;
 * region.scope stays NULL). -1 with a message on a malformed payload. */
int psec_read(const uint8_t *data, size_t len, pp_projection *p, char *err,
              size_t errlen);

#endif /* CATS_PART_SECTION_H */
