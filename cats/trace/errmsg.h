/* SPDX-License-Identifier: GPL-2.0-or-later */
/* errmsg.h: one-line error messages for the host modules.
 *
 * Every host module reports errors as a status code plus a message in a
 * caller-supplied buffer; this is the one formatter they share. */
#ifndef CATS_TRACE_ERRMSG_H
#define CATS_TRACE_ERRMSG_H

#include <stdarg.h>
#include <stddef.h>

/* Formats into err[errlen] (nothing when err is NULL or errlen is 0). */
void errmsg_format(char *err, size_t errlen, const char *fmt, ...)
   __attribute__((format(printf, 3, 4)));
void errmsg_vformat(char *err, size_t errlen, const char *fmt, va_list ap);

/* Formats the message and evaluates to the status st. */
#define ERRMSG_FAIL(err, errlen, st, ...) \
   (errmsg_format((err), (errlen), __VA_ARGS__), (st))

#endif
