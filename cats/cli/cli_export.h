/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cli_export.h: the three files of `cats export --cats-viz`, one per page
 * of the public C.A.T.S. viewer (spcl/cats-viz): the memory timeline, the
 * access statistics and the control-flow view. Each returns 0, or -1 with
 * a one-line reason in err (nothing to draw, out of memory). */
#ifndef CATS_CLI_EXPORT_H
#define CATS_CLI_EXPORT_H

#include <stdint.h>
#include <stdio.h>

#include "cli.h"

/* What the files show. By default the program's own work: the run from
 * main's first entry (not the dynamic loader's and libc's start-up), the
 * containers that the program's source code (main's ELF object, lines
 * known) touches or allocates, with every access to them (libc's memcpy
 * included), and the scopes of that code; --whole-run shows everything. */
typedef struct cli_export_view {
   uint64_t start;      /* main's first entry, or 0 */
   uint32_t object;     /* main's ELF object (string id), or NONE: all */
   uint8_t *ours;       /* per ALLOCS record: shown */
} cli_export_view;

/* 0, or -1 if out of memory. */
int cli_export_view_init(cli_export_view *v, const trace_file *t,
                         int whole_run);
void cli_export_view_free(cli_export_view *v);
/* Whether an EVENTS record or a context is shown. */
int cli_export_event_shown(const cli_export_view *v, const trace_file *t,
                           uint32_t event);
int cli_export_context_shown(const cli_export_view *v, const trace_file *t,
                             uint32_t ctx);

/* Distinct container names: a name shared by several ALLOCS records gets
 * " #id" appended. dup[i] says whether record i's does; NULL if out of
 * memory. */
uint8_t *cli_export_shared_names(const trace_file *t);
void cli_export_buffer_name(const trace_file *t, FILE *fp, uint32_t id,
                            const uint8_t *dup);

int cli_export_timeline(const trace_file *t, const cli_export_view *v,
                        FILE *fp, char *err, size_t errlen);
int cli_export_stats(const trace_file *t, const cli_export_view *v,
                     FILE *fp, char *err, size_t errlen);
int cli_export_control_flow(const trace_file *t, const cli_export_view *v,
                            FILE *fp, char *err, size_t errlen);

#endif /* CATS_CLI_EXPORT_H */
