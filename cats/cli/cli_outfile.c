/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cli_outfile.c: atomic command output (see cli_outfile.h). */
#define _POSIX_C_SOURCE 200809L

#include "cli_outfile.h"

#include "cats/trace/trace_write.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int cli_outfile_open(cli_outfile *f, const char *path, char *err, size_t errlen)
{
   f->fp = NULL;
   f->path = f->tmp = NULL;
   if (!path || strcmp(path, "-") == 0) {
      f->fp = stdout;
      return 0;
   }
   if (trace_write_in_place(path)) {
      /* A device, a FIFO or /dev/stdout: written as it is (a rename would
       * replace it with a regular file). */
      f->fp = fopen(path, "w");
      if (!f->fp) {
         snprintf(err, errlen, "%s: %s", path, strerror(errno));
         return -1;
      }
      f->path = strdup(path);
      if (!f->path) {
         fclose(f->fp);
         f->fp = NULL;
         snprintf(err, errlen, "%s: out of memory", path);
         return -1;
      }
      return 0;
   }
   size_t n = strlen(path) + 32;
   f->path = strdup(path);
   f->tmp = malloc(n);
   if (!f->path || !f->tmp) {
      snprintf(err, errlen, "%s: out of memory", path);
      goto fail;
   }
   snprintf(f->tmp, n, "%s.tmp.%ld", path, (long)getpid());
   int fd = open(f->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
   if (fd < 0 && errno == EEXIST && unlink(f->tmp) == 0)
      fd = open(f->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
   if (fd < 0) {
      snprintf(err, errlen, "%s: %s", path, strerror(errno));
      goto fail;
   }
   f->fp = fdopen(fd, "w");
   if (!f->fp) {
      snprintf(err, errlen, "%s: %s", path, strerror(errno));
      close(fd);
      unlink(f->tmp);
      goto fail;
   }
   return 0;
fail:
   free(f->path);
   free(f->tmp);
   f->path = f->tmp = NULL;
   return -1;
}

int cli_outfile_close(cli_outfile *f, int ok, char *err, size_t errlen)
{
   int rc = 0;
   if (!f->path) {
      /* stdout: report errors such as a full disk behind a redirection */
      if (fflush(f->fp) != 0 || ferror(f->fp)) {
         if (ok)
            snprintf(err, errlen, "stdout: %s", strerror(errno));
         rc = -1;
      }
      return ok ? rc : -1;
   }
   if (!f->tmp) {
      /* written in place: nothing to sync or rename */
      if (ok && (fflush(f->fp) != 0 || ferror(f->fp))) {
         snprintf(err, errlen, "%s: %s", f->path, strerror(errno));
         ok = 0;
      }
      if (fclose(f->fp) != 0 && ok) {
         snprintf(err, errlen, "%s: %s", f->path, strerror(errno));
         ok = 0;
      }
      free(f->path);
      f->fp = NULL;
      f->path = NULL;
      return ok ? 0 : -1;
   }
   if (ok && (fflush(f->fp) != 0 || ferror(f->fp) ||
              fsync(fileno(f->fp)) != 0)) {
      snprintf(err, errlen, "%s: %s", f->path, strerror(errno));
      ok = 0;
      rc = -1;
   }
   if (fclose(f->fp) != 0 && ok) {
      snprintf(err, errlen, "%s: %s", f->path, strerror(errno));
      ok = 0;
      rc = -1;
   }
   if (ok && rename(f->tmp, f->path) != 0) {
      snprintf(err, errlen, "%s: %s", f->path, strerror(errno));
      ok = 0;
      rc = -1;
   }
   if (!ok) {
      unlink(f->tmp);
      if (rc == 0)
         rc = -1;
   }
   free(f->path);
   free(f->tmp);
   f->fp = NULL;
   f->path = f->tmp = NULL;
   return rc;
}
