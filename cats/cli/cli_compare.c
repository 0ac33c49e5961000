/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cli_compare.c: `cats compare PROJECTED MEASURED`, how close a projection
 * is to what an MPI run really sent (both in docs/COMM-JSON.md form).
 *
 * Accuracy is 1 - |projected - measured| / measured (at least 0), per
 * iteration when both files count iterations. METIS numbers its parts
 * differently from MPI ranks, so matrix entries and neighbour counts are
 * compared as sorted lists, which does not depend on the numbering. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_outfile.h"

#define CMP_USAGE "cats compare PROJECTED.json MEASURED.json [--ranks=N] " \
                  "[--json OUT]"

typedef struct cmp_side {
   uint32_t n;
   uint64_t iterations;
   double scale;           /* 1 / iterations when comparing per iteration */
   uint64_t *matrix;       /* n*n */
   uint64_t p2p, coll;
   json_t *collectives;    /* borrowed */
} cmp_side;

static int cmp_desc(const void *a, const void *b)
{
   uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
   return (x < y) - (x > y);
}

static double accuracy(double projected, double measured)
{
   if (measured <= 0)
      return projected <= 0 ? 1.0 : 0.0;
   double a = 1.0 - (projected > measured ? projected - measured
                                          : measured - projected) / measured;
   return a < 0 ? 0 : a;
}

static int get_u64(json_t *o, const char *key, uint64_t *out)
{
   json_t *v = json_object_get(o, key);
   if (!json_is_integer(v) || json_integer_value(v) < 0)
      return -1;
   *out = (uint64_t)json_integer_value(v);
   return 0;
}

/* The collective types of docs/COMM-JSON.md. */
static int known_collective(const char *name)
{
   static const char *const known[] = { "broadcast", "reduce", "gather",
      "scatter", "allreduce", "allgather", "alltoall", "reduce_scatter",
      "barrier" };
   for (size_t i = 0; i < sizeof known / sizeof *known; i++)
      if (strcmp(name, known[i]) == 0)
         return 1;
   return 0;
}

/* One result as docs/COMM-JSON.md defines it: the matrix's diagonal 0,
 * p2p_bytes its sum, each collective of a known type with its calls and
 * bytes, collective_bytes their sum. A file that says otherwise is
 * refused rather than half read. */
static int check_result(const char *path, json_t *r, size_t idx)
{
   uint64_t rk, it, p2p, coll, sum = 0, csum = 0;
   json_t *m = json_object_get(r, "matrix");
   if (get_u64(r, "ranks", &rk) || rk < 1 || rk > 65536 || get_u64(r, "iterations", &it) ||
       !json_is_array(m) || json_array_size(m) != rk)
      return cli_error(CLI_EFILE, "%s: result %zu: no ranks, iterations or matrix of "
                       "that size", path, idx);
   for (size_t a = 0; a < rk; a++) {
      json_t *row = json_array_get(m, a);
      if (!json_is_array(row) || json_array_size(row) != rk)
         return cli_error(CLI_EFILE, "%s: result %zu: matrix row %zu malformed", path,
                          idx, a);
      for (size_t b = 0; b < rk; b++) {
         json_t *v = json_array_get(row, b);
         if (!json_is_integer(v) || json_integer_value(v) < 0)
            return cli_error(CLI_EFILE, "%s: result %zu: matrix entry [%zu][%zu] is "
                             "not a byte count", path, idx, a, b);
         if (a == b && json_integer_value(v) != 0)
            return cli_error(CLI_EFILE, "%s: result %zu: matrix entry [%zu][%zu] is "
                             "%lld, but a rank sends nothing to itself", path, idx, a,
                             b, (long long)json_integer_value(v));
         sum += (uint64_t)json_integer_value(v);
      }
   }
   if (get_u64(r, "p2p_bytes", &p2p) || p2p != sum)
      return cli_error(CLI_EFILE, "%s: result %zu: p2p_bytes is not the matrix's "
                       "sum (%llu)", path, idx, (unsigned long long)sum);
   json_t *cs = json_object_get(r, "collectives");
   if (cs && !json_is_object(cs))
      return cli_error(CLI_EFILE, "%s: result %zu: collectives is not an object",
                       path, idx);
   const char *key;
   json_t *c;
   json_object_foreach(cs, key, c) {
      uint64_t calls, b;
      if (!known_collective(key))
         return cli_error(CLI_EFILE, "%s: result %zu: unknown collective type %s",
                          path, idx, key);
      if (get_u64(c, "calls", &calls) || get_u64(c, "bytes", &b))
         return cli_error(CLI_EFILE, "%s: result %zu: collective %s needs calls and "
                          "bytes", path, idx, key);
      csum += b;
   }
   if (get_u64(r, "collective_bytes", &coll) || coll != csum)
      return cli_error(CLI_EFILE, "%s: result %zu: collective_bytes is not the "
                       "collectives' sum (%llu)", path, idx, (unsigned long long)csum);
   return CLI_OK;
}

/* The result for n ranks (n == 0: the only one). */
static int load_side(const char *path, json_t *doc, uint32_t n, cmp_side *s)
{
   memset(s, 0, sizeof *s);
   json_t *results = json_object_get(doc, "results");
   if (!json_is_integer(json_object_get(doc, "cats_comm")) ||
       !json_is_array(results))
      return cli_error(CLI_EFILE, "%s: not a cats communication file "
                                  "(docs/COMM-JSON.md)", path);
   const char *kind = json_string_value(json_object_get(doc, "kind"));
   if (!kind || (strcmp(kind, "projected") != 0 && strcmp(kind, "measured") != 0))
      return cli_error(CLI_EFILE, "%s: kind is neither \"projected\" nor "
                                  "\"measured\"", path);
   if (strcmp(kind, "measured") == 0 && json_array_size(results) != 1)
      return cli_error(CLI_EFILE, "%s: a measured file holds one result, this "
                                  "one %zu", path, json_array_size(results));
   {
      size_t k;
      json_t *r;
      json_array_foreach(results, k, r) {
         int rc = check_result(path, r, k);
         if (rc != CLI_OK)
            return rc;
      }
   }
   json_t *r = NULL;
   size_t i;
   json_t *it;
   json_array_foreach(results, i, it) {
      uint64_t rk;
      if (get_u64(it, "ranks", &rk) == 0 && (n == 0 || rk == n)) {
         r = it;
         break;
      }
   }
   if (!r)
      return cli_error(CLI_EFILE, "%s: no result for %u ranks", path, n);
   /* check_result has vouched for every field read here. */
   uint64_t rk = 0;
   json_t *m = json_object_get(r, "matrix");
   get_u64(r, "ranks", &rk);
   get_u64(r, "iterations", &s->iterations);
   get_u64(r, "p2p_bytes", &s->p2p);
   get_u64(r, "collective_bytes", &s->coll);
   s->n = (uint32_t)rk;
   s->matrix = calloc((size_t)rk * rk, sizeof *s->matrix);
   if (!s->matrix)
      return cli_error(CLI_EFILE, "out of memory");
   for (uint32_t a = 0; a < rk; a++)
      for (uint32_t b = 0; b < rk; b++)
         s->matrix[(size_t)a * rk + b] =
            (uint64_t)json_integer_value(json_array_get(json_array_get(m, a), b));
   s->collectives = json_object_get(r, "collectives");
   return CLI_OK;
}

/* Off-diagonal entries, largest first. */
static uint64_t *sorted_entries(const cmp_side *s, uint32_t n)
{
   uint64_t *e = calloc((size_t)n * n, sizeof *e);
   if (!e)
      return NULL;
   size_t k = 0;
   for (uint32_t a = 0; a < s->n; a++)
      for (uint32_t b = 0; b < s->n; b++)
         if (a != b)
            e[k++] = s->matrix[(size_t)a * s->n + b];
   qsort(e, (size_t)n * n, sizeof *e, cmp_desc);
   return e;
}

static void neighbour_counts(const cmp_side *s, uint64_t *cnt)
{
   for (uint32_t a = 0; a < s->n; a++) {
      cnt[a] = 0;
      for (uint32_t b = 0; b < s->n; b++)
         cnt[a] += a != b && (s->matrix[(size_t)a * s->n + b] ||
                              s->matrix[(size_t)b * s->n + a]);
   }
   qsort(cnt, s->n, sizeof *cnt, cmp_desc);
}

typedef struct cmp_out {
   double total_p, total_m, acc, p2p_acc, coll_acc, entry_acc;
   int neighbours_agree;
} cmp_out;

static int compare(const cmp_side *p, const cmp_side *m, cmp_out *o)
{
   uint32_t n = p->n;
   o->total_p = (double)(p->p2p + p->coll) * p->scale;
   o->total_m = (double)(m->p2p + m->coll) * m->scale;
   o->acc = accuracy(o->total_p, o->total_m);
   o->p2p_acc = accuracy((double)p->p2p * p->scale, (double)m->p2p * m->scale);
   o->coll_acc = accuracy((double)p->coll * p->scale,
                          (double)m->coll * m->scale);
   uint64_t *ep = sorted_entries(p, n), *em = sorted_entries(m, n);
   uint64_t *np = calloc(n, sizeof *np), *nm = calloc(n, sizeof *nm);
   if (!ep || !em || !np || !nm) {
      free(ep), free(em), free(np), free(nm);
      return -1;
   }
   double diff = 0, sum = 0;
   for (size_t k = 0; k < (size_t)n * n; k++) {
      double a = (double)ep[k] * p->scale, b = (double)em[k] * m->scale;
      diff += a > b ? a - b : b - a;
      sum += b;
   }
   o->entry_acc = sum > 0 ? (diff / sum > 1 ? 0 : 1 - diff / sum)
                          : (diff > 0 ? 0 : 1);
   neighbour_counts(p, np);
   neighbour_counts(m, nm);
   o->neighbours_agree = memcmp(np, nm, n * sizeof *np) == 0;
   printf("neighbours per rank (sorted): projected");
   for (uint32_t i = 0; i < n; i++)
      printf(" %llu", (unsigned long long)np[i]);
   printf(", measured");
   for (uint32_t i = 0; i < n; i++)
      printf(" %llu", (unsigned long long)nm[i]);
   printf(": %s\n", o->neighbours_agree ? "agree" : "differ");
   free(ep), free(em), free(np), free(nm);
   return 0;
}

static void print_collectives(const cmp_side *p, const cmp_side *m)
{
   const cmp_side *sides[2] = { p, m };
   const char *label[2] = { "projected", "measured" };
   for (int s = 0; s < 2; s++) {
      printf("collectives %s:", label[s]);
      const char *key;
      json_t *c;
      int any = 0;
      json_object_foreach(sides[s]->collectives, key, c) {
         uint64_t calls = 0, bytes = 0;
         get_u64(c, "calls", &calls);
         get_u64(c, "bytes", &bytes);
         printf(" %s %.1f calls %.1f bytes;", key,
                (double)calls * sides[s]->scale,
                (double)bytes * sides[s]->scale);
         any = 1;
      }
      printf("%s\n", any ? "" : " none");
   }
}

static int write_json(const char *path, uint32_t n, int per_iter,
                      const cmp_out *o)
{
   char err[512];
   cli_outfile f;
   if (cli_outfile_open(&f, path, err, sizeof err) != 0)
      return cli_error(CLI_EFILE, "%s", err);
   fprintf(f.fp,
           "{\"ranks\": %u, \"per_iteration\": %s, \"projected_bytes\": %.3f, "
           "\"measured_bytes\": %.3f, \"accuracy\": %.6f, \"p2p_accuracy\": "
           "%.6f, \"collective_accuracy\": %.6f, \"entry_accuracy\": %.6f, "
           "\"neighbours_agree\": %s}\n",
           n, per_iter ? "true" : "false", o->total_p, o->total_m, o->acc,
           o->p2p_acc, o->coll_acc, o->entry_acc,
           o->neighbours_agree ? "true" : "false");
   if (cli_outfile_close(&f, 1, err, sizeof err) != 0)
      return cli_error(CLI_EFILE, "%s", err);
   return CLI_OK;
}

static json_t *load_json(const char *path)
{
   json_error_t e;
   json_t *doc = json_load_file(path, 0, &e);
   if (!doc)
      cli_error(CLI_EFILE, "%s: %s (line %d)", path, e.text, e.line);
   return doc;
}

int cli_compare(int argc, char **argv)
{
   const char *pos[2] = { NULL, NULL }, *ranks = NULL, *json = NULL;
   const cli_opt opts[] = {
      { "--ranks", NULL, NULL, &ranks },
      { "--json", NULL, NULL, &json },
      { NULL, NULL, NULL, NULL },
   };
   int rc = cli_parse(argc, argv, opts, pos, 2, CMP_USAGE);
   if (rc != CLI_OK)
      return rc == CLI_HELP ? CLI_OK : rc;
   uint32_t n = 0;
   if (ranks) {
      char *end;
      unsigned long v = strtoul(ranks, &end, 10);
      if (*end || v < 1 || v > 65536 || ranks[0] == '-')
         return cli_error(CLI_EUSAGE, "compare: --ranks=%s: expected a rank "
                                      "count", ranks);
      n = (uint32_t)v;
   }
   json_t *dp = load_json(pos[0]), *dm = dp ? load_json(pos[1]) : NULL;
   cmp_side p = { 0 }, m = { 0 };
   rc = !dp || !dm ? CLI_EFILE : CLI_OK;
   /* The measured file names the rank count unless --ranks does. */
   if (rc == CLI_OK)
      rc = load_side(pos[1], dm, n, &m);
   if (rc == CLI_OK)
      rc = load_side(pos[0], dp, m.n, &p);
   cmp_out o;
   if (rc == CLI_OK) {
      int per_iter = p.iterations && m.iterations;
      p.scale = per_iter ? 1.0 / (double)p.iterations : 1.0;
      m.scale = per_iter ? 1.0 / (double)m.iterations : 1.0;
      printf("%u ranks, %s\n", m.n,
             per_iter ? "bytes per iteration" : "total bytes (an input has no "
                                                "iteration count)");
      if (compare(&p, &m, &o) != 0) {
         rc = cli_error(CLI_EFILE, "out of memory");
      } else {
         print_collectives(&p, &m);
         printf("point-to-point: projected %.1f, measured %.1f, accuracy "
                "%.1f%%\n", (double)p.p2p * p.scale, (double)m.p2p * m.scale,
                100 * o.p2p_acc);
         printf("collectives:    projected %.1f, measured %.1f, accuracy "
                "%.1f%%\n", (double)p.coll * p.scale,
                (double)m.coll * m.scale, 100 * o.coll_acc);
         printf("matrix entries (sorted): accuracy %.1f%%\n",
                100 * o.entry_acc);
         printf("total: projected %.1f, measured %.1f, accuracy %.1f%%\n",
                o.total_p, o.total_m, 100 * o.acc);
         if (json)
            rc = write_json(json, m.n, per_iter, &o);
      }
   }
   free(p.matrix);
   free(m.matrix);
   json_decref(dp);
   json_decref(dm);
   if (rc == CLI_OK && (fflush(stdout) != 0 || ferror(stdout)))
      rc = cli_error(CLI_EFILE, "stdout: write error");
   return rc;
}
