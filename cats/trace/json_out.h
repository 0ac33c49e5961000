/* SPDX-License-Identifier: GPL-2.0-or-later */
/* json_out.h: small helpers for writing JSON with stdio. */
#ifndef CATS_TRACE_JSON_OUT_H
#define CATS_TRACE_JSON_OUT_H

#include <stdio.h>

/* Write s as a JSON string literal with quotes. Control characters are
 * escaped and invalid UTF-8 bytes become U+FFFD, so the output is valid
 * JSON whatever the trace's strings hold. */
void json_out_string(FILE *fp, const char *s);

#endif /* CATS_TRACE_JSON_OUT_H */
