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
#include "cli_program.h"

/* Distinct container names: a name shared by several ALLOCS records gets
 * " #id" appended. dup[i] says whether record i's does; NULL if out of
 * memory. */
uint8_t *cli_export_shared_names(const trace_file *t);
void cli_export_buffer_name(const trace_file *t, FILE *fp, uint32_t id,
                            const uint8_t *dup);

/* The reason for a file with nothing in it: -1, err set. */
int cli_export_nothing(const cli_program *v, char *err, size_t errlen);

int cli_export_timeline(const trace_file *t, const cli_program *v,
                        FILE *fp, char *err, size_t errlen);
int cli_export_stats(const trace_file *t, const cli_program *v,
                     FILE *fp, char *err, size_t errlen);
int cli_export_control_flow(const trace_file *t, const cli_program *v,
                            FILE *fp, char *err, size_t errlen);

#endif /* CATS_CLI_EXPORT_H */
