/* SPDX-License-Identifier: GPL-2.0-or-later */
/* errmsg.h: one-line error messages for the host modules.
 *
 * Every host module reports errors as a status code plus a message in a
 * caller-supplied buffer; this is the one formatter they share. */
#ifndef CATS_TRACE_ERRMSG_H
#define CATS_TRACE_ERRMSG_H

#include <stdarg.h>
#include <stddef.h>

/* Formats into err[errlen] (nothing when err is NULL or errlen is 0). The
 * message stays one line and inert on a terminal: control characters
 * (a newline or an escape in a string read from a damaged file) become
 * '?'. */
void errmsg_format(char *err, size_t errlen, const char *fmt, ...)
   __attribute__((format(printf, 3, 4)));
void errmsg_vformat(char *err, size_t errlen, const char *fmt, va_list ap);

/* Replaces the control characters of s (C0, DEL and UTF-8 C1) with '?'. */
void errmsg_sanitize(char *s);

/* Formats the message and evaluates to the status st. */
#define ERRMSG_FAIL(err, errlen, st, ...) \
   (errmsg_format((err), (errlen), __VA_ARGS__), (st))

#endif
