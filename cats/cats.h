/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cats.h: client requests for the cats Valgrind tool.
 *
 * Include this header in a program to steer cats. Every macro is a no-op
 * (a few instructions) when the program does not run under Valgrind, so
 * the requests can stay in production builds.
 *
 *   CATS_START_INSTRUMENTATION / CATS_STOP_INSTRUMENTATION
 *       Record memory accesses from here on / stop recording them
 *       (see --instr-atstart=no). Allocations and control flow are
 *       always tracked.
 *   CATS_NAME_BLOCK(addr, size, name)
 *       Give the container holding addr a name (a heap block, global or
 *       stack array); an address in no container becomes a new container
 *       of `size` bytes.
 *   CATS_REGION_BEGIN(name) / CATS_REGION_END(name)
 *       Open and close a named region that appears in control-flow stacks,
 *       for example a time step. `name` must be a string literal or other
 *       string that lives as long as the request.
 */
#ifndef CATS_H
#define CATS_H

#include <valgrind/valgrind.h>

typedef enum {
   VG_USERREQ__CATS_START_INSTRUMENTATION = VG_USERREQ_TOOL_BASE('C', 'T'),
   VG_USERREQ__CATS_STOP_INSTRUMENTATION,
   VG_USERREQ__CATS_NAME_BLOCK,
   VG_USERREQ__CATS_REGION_BEGIN,
   VG_USERREQ__CATS_REGION_END
} Vg_CatsClientRequest;

#define CATS_START_INSTRUMENTATION                                        \
   VALGRIND_DO_CLIENT_REQUEST_STMT(VG_USERREQ__CATS_START_INSTRUMENTATION, \
                                   0, 0, 0, 0, 0)

#define CATS_STOP_INSTRUMENTATION                                         \
   VALGRIND_DO_CLIENT_REQUEST_STMT(VG_USERREQ__CATS_STOP_INSTRUMENTATION,  \
                                   0, 0, 0, 0, 0)

#define CATS_NAME_BLOCK(addr, size, name)                                 \
   VALGRIND_DO_CLIENT_REQUEST_STMT(VG_USERREQ__CATS_NAME_BLOCK,            \
                                   (addr), (size), (name), 0, 0)

#define CATS_REGION_BEGIN(name)                                           \
   VALGRIND_DO_CLIENT_REQUEST_STMT(VG_USERREQ__CATS_REGION_BEGIN,          \
                                   (name), 0, 0, 0, 0)

#define CATS_REGION_END(name)                                             \
   VALGRIND_DO_CLIENT_REQUEST_STMT(VG_USERREQ__CATS_REGION_END,            \
                                   (name), 0, 0, 0, 0)

#endif /* CATS_H */
