/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cli_program.h: the program's own work in a trace. */
#ifndef CATS_CLI_PROGRAM_H
#define CATS_CLI_PROGRAM_H

#include <stdint.h>

#include "cli.h"

/* What of a run the exports and views show by default: the program's own
 * work. The run from main's first entry (not the dynamic loader's and
 * libc's start-up), the containers that the program's source code (main's
 * ELF object, lines known) touches or allocates, with every access to them
 * (libc's memcpy included), and the scopes of that code. With whole_run,
 * everything. */
typedef struct cli_program {
   uint64_t start;      /* main's first entry, or 0 */
   uint32_t object;     /* main's ELF object (string id), or NONE: all */
   uint8_t *ours;       /* per ALLOCS record: shown */
} cli_program;

/* 0, or -1 if out of memory. */
int cli_program_init(cli_program *v, const trace_file *t, int whole_run);
void cli_program_free(cli_program *v);
/* Whether an EVENTS record or a context is shown. */
int cli_program_event_shown(const cli_program *v, const trace_file *t,
                            uint32_t event);
int cli_program_context_shown(const cli_program *v, const trace_file *t,
                              uint32_t ctx);

#endif /* CATS_CLI_PROGRAM_H */
