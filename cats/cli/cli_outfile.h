/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cli_outfile.h: command output that is either complete or absent.
 *
 * `-o OUT` output is written to OUT.tmp.<pid> and renamed to OUT only when
 * every byte was written, so a failed command never leaves a partial file.
 * Without a path (or with "-") output goes to stdout; an OUT that exists
 * and is not a regular file (a device, a FIFO) is written in place. */
#ifndef CATS_CLI_CLI_OUTFILE_H
#define CATS_CLI_CLI_OUTFILE_H

#include <stddef.h>
#include <stdio.h>

typedef struct cli_outfile {
   FILE *fp;           /* where to write */
   char *path;         /* final path, NULL for stdout */
   char *tmp;          /* temporary path, NULL for stdout and in place */
} cli_outfile;

/* Open; on failure returns -1 with a message (naming the file) in err. */
int cli_outfile_open(cli_outfile *f, const char *path, char *err, size_t errlen);

/* Finish: flush, check for write errors, sync and rename (or, when ok is
 * 0, discard the temporary file). Returns 0 on success, -1 with err. */
int cli_outfile_close(cli_outfile *f, int ok, char *err, size_t errlen);

#endif /* CATS_CLI_CLI_OUTFILE_H */
