/* outfile.h: command output that is either complete or absent.
 *
 * `-o OUT` output is written to OUT.tmp.<pid> and renamed to OUT only when
 * every byte was written, so a failed command never leaves a partial file.
 * Without a path (or with "-") output goes to stdout. */
#ifndef CATS_OUTFILE_H
#define CATS_OUTFILE_H

#include <stddef.h>
#include <stdio.h>

typedef struct cof_file {
   FILE *fp;           /* where to write */
   char *path;         /* final path, NULL for stdout */
   char *tmp;          /* temporary path, NULL for stdout */
} cof_file;

/* Open; on failure returns -1 with a message (naming the file) in err. */
int cof_open(cof_file *f, const char *path, char *err, size_t errlen);

/* Finish: flush, check for write errors, sync and rename (or, when ok is
 * 0, discard the temporary file). Returns 0 on success, -1 with err. */
int cof_close(cof_file *f, int ok, char *err, size_t errlen);

#endif /* CATS_OUTFILE_H */
