/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cats_mpi_json.c: at MPI_Finalize, gathers every rank's counters to rank
 * 0 of MPI_COMM_WORLD over the private communicator and writes the JSON of
 * docs/COMM-JSON.md (kind "measured", one result) to $CATS_MPI_OUT or
 * cats-mpi.<N>.json. The file is replaced atomically (temporary file in
 * the same directory, fsync, rename) so a reader never sees half of it. A
 * failure is one line on stderr; the program's own exit status is not
 * touched, since a measurement must never break the run it measures. */
#define _POSIX_C_SOURCE 200809L

#include "cats_mpi.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* What rank 0 writes. */
struct cmpi_result {
   int ranks;
   uint64_t iterations;       /* region entries on rank 0, 0 for the whole run */
   const char *region;        /* "MPI_Pcontrol" or NULL (JSON null) */
   const uint64_t *matrix;    /* ranks x ranks, row = sender */
   const uint64_t *calls;     /* per cmpi_kind, summed over the ranks */
   const uint64_t *bytes;     /* per cmpi_kind, summed over the ranks */
};

/* ------------------------------------------------------------------ */
/* JSON text                                                           */
/* ------------------------------------------------------------------ */

/* Length of the valid UTF-8 sequence at S, or 0 if it is not one. */
static int cmpi_utf8_len(const unsigned char *s)
{
   int n = s[0] >= 0xF0 && s[0] <= 0xF4 ? 4
         : s[0] >= 0xE0 ? 3
         : s[0] >= 0xC2 && s[0] <= 0xDF ? 2 : 0;
   for (int i = 1; i < n; i++)
      if ((s[i] & 0xC0) != 0x80)
         return 0;
   return n;
}

/* S as a JSON string; invalid UTF-8 (a path may hold any bytes) becomes
 * U+FFFD so the file stays valid JSON. */
static void cmpi_json_string(FILE *fp, const char *str)
{
   const unsigned char *s = (const unsigned char *)str;
   fputc('"', fp);
   while (*s) {
      if (*s == '"' || *s == '\\') {
         fprintf(fp, "\\%c", *s++);
      } else if (*s < 0x20) {
         fprintf(fp, "\\u%04x", *s++);
      } else if (*s < 0x80) {
         fputc(*s++, fp);
      } else {
         int n = cmpi_utf8_len(s);
         if (n == 0) {
            fputs("\\ufffd", fp);
            s++;
         } else {
            fwrite(s, 1, (size_t)n, fp);
            s += n;
         }
      }
   }
   fputc('"', fp);
}

static void cmpi_json(FILE *fp, const char *program, const struct cmpi_result *r)
{
   size_t n = (size_t)r->ranks;
   uint64_t p2p = 0, coll = 0;
   for (size_t i = 0; i < n * n; i++)
      p2p += r->matrix[i];
   for (int k = 0; k < CMPI_NKINDS; k++)
      coll += r->bytes[k];

   fprintf(fp, "{\n  \"cats_comm\": 1,\n  \"kind\": \"measured\",\n"
           "  \"program\": ");
   cmpi_json_string(fp, program);
   fprintf(fp, ",\n  \"region\": ");
   if (r->region)
      cmpi_json_string(fp, r->region);
   else
      fputs("null", fp);
   fprintf(fp, ",\n  \"results\": [\n    {\n"
           "      \"ranks\": %d,\n"
           "      \"iterations\": %" PRIu64 ",\n"
           "      \"p2p_bytes\": %" PRIu64 ",\n"
           "      \"collective_bytes\": %" PRIu64 ",\n"
           "      \"matrix\": [",
           r->ranks, r->iterations, p2p, coll);
   for (size_t i = 0; i < n; i++) {
      fprintf(fp, "%s\n        [", i ? "," : "");
      for (size_t j = 0; j < n; j++)
         fprintf(fp, "%s%" PRIu64, j ? ", " : "", r->matrix[i * n + j]);
      fputc(']', fp);
   }
   fprintf(fp, "\n      ],\n      \"collectives\": {");
   int first = 1;
   for (int k = 0; k < CMPI_NKINDS; k++) {
      if (r->calls[k] == 0)
         continue;   /* only the types that occurred */
      fprintf(fp, "%s\n        \"%s\": {\"calls\": %" PRIu64
              ", \"bytes\": %" PRIu64 "}",
              first ? "" : ",", cmpi_kind_names[k], r->calls[k], r->bytes[k]);
      first = 0;
   }
   fprintf(fp, "%s}\n    }\n  ]\n}\n", first ? "" : "\n      ");
}

/* ------------------------------------------------------------------ */
/* Atomic file                                                         */
/* ------------------------------------------------------------------ */

/* Writes the JSON to PATH through a temporary file next to it. Returns 0,
 * or -1 with errno set. */
static int cmpi_write_atomic(const char *path, const struct cmpi_result *r)
{
   size_t len = strlen(path) + sizeof ".XXXXXX";
   char *tmp = malloc(len);
   if (!tmp)
      return -1;
   snprintf(tmp, len, "%s.XXXXXX", path);
   int fd = mkstemp(tmp);
   if (fd < 0) {
      int e = errno;
      free(tmp);
      errno = e;
      return -1;
   }
   /* mkstemp makes the file 0600; give it the mode a plain create would */
   mode_t mask = umask(0);
   umask(mask);
   int e = 0;
   if (fchmod(fd, 0666 & ~mask) != 0)
      e = errno;
   FILE *fp = e ? NULL : fdopen(fd, "w");
   if (!fp) {
      e = e ? e : errno;
      close(fd);
   } else {
      cmpi_json(fp, cmpi.program, r);
      errno = 0;
      if (fflush(fp) != 0 || ferror(fp) || fsync(fileno(fp)) != 0)
         e = errno ? errno : EIO;
      if (fclose(fp) != 0 && !e)
         e = errno;
   }
   if (!e && rename(tmp, path) != 0)
      e = errno;
   if (e)
      unlink(tmp);
   free(tmp);
   errno = e;
   return e ? -1 : 0;
}

/* ------------------------------------------------------------------ */
/* Gathering                                                           */
/* ------------------------------------------------------------------ */

static void cmpi_fail(const char *path, const char *reason)
{
   fprintf(stderr, "libcats-mpi: cannot write %s: %s\n", path, reason);
}

static void cmpi_fail_mpi(const char *path, int rc)
{
   char msg[MPI_MAX_ERROR_STRING];
   int len = 0;
   if (PMPI_Error_string(rc, msg, &len) != MPI_SUCCESS)
      snprintf(msg, sizeof msg, "MPI error %d", rc);
   cmpi_fail(path, msg);
}

void cmpi_report(void)
{
   const int n = cmpi.world_size, rank0 = cmpi.world_rank == 0;
   char path[4096];
   const char *env = getenv("CATS_MPI_OUT");
   if (env && *env)
      snprintf(path, sizeof path, "%s", env);
   else
      snprintf(path, sizeof path, "cats-mpi.%d.json", n);

   /* Every rank must learn whether any rank marked a region (to pick the
    * same set of counters) and whether rank 0 has room for the matrix
    * (or the gather below would write through NULL). */
   uint64_t *matrix = NULL;
   int flags[2] = { cmpi.region_used, 0 }, agreed[2] = { 0, 0 };
   if (rank0) {
      matrix = calloc((size_t)n * (size_t)n, sizeof *matrix);
      flags[1] = matrix == NULL;
   }
   int rc = PMPI_Allreduce(flags, agreed, 2, MPI_INT, MPI_MAX, cmpi.comm);
   if (rc != MPI_SUCCESS || agreed[1]) {
      if (rank0 && rc != MPI_SUCCESS)
         cmpi_fail_mpi(path, rc);
      else if (rank0)
         cmpi_fail(path, strerror(ENOMEM));
      free(matrix);
      return;
   }

   pthread_mutex_lock(&cmpi.lock);
   const struct cmpi_counters *c = agreed[0] ? &cmpi.region : &cmpi.whole;
   uint64_t mine[2 * CMPI_NKINDS], sum[2 * CMPI_NKINDS];
   memcpy(mine, c->calls, sizeof c->calls);
   memcpy(mine + CMPI_NKINDS, c->bytes, sizeof c->bytes);
   pthread_mutex_unlock(&cmpi.lock);

   rc = PMPI_Gather(c->row, n, MPI_UINT64_T, matrix, n, MPI_UINT64_T, 0,
                    cmpi.comm);
   int rc2 = PMPI_Reduce(mine, sum, 2 * CMPI_NKINDS, MPI_UINT64_T, MPI_SUM, 0,
                         cmpi.comm);
   if (!rank0)
      return;
   if (rc != MPI_SUCCESS || rc2 != MPI_SUCCESS) {
      cmpi_fail_mpi(path, rc != MPI_SUCCESS ? rc : rc2);
      free(matrix);
      return;
   }
   struct cmpi_result r = {
      .ranks = n,
      .iterations = agreed[0] ? cmpi.iterations : 0,
      .region = agreed[0] ? "MPI_Pcontrol" : NULL,
      .matrix = matrix,
      .calls = sum,
      .bytes = sum + CMPI_NKINDS,
   };
   if (cmpi_write_atomic(path, &r) != 0)
      cmpi_fail(path, strerror(errno));
   free(matrix);
}
