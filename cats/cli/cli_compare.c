/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cli_compare.c: `cats compare PROJECTED MEASURED`, how close a projection
 * is to what an MPI run really sent (both in docs/COMM-JSON.md form).
 *
 * Each component apart, per iteration when both files count iterations:
 * point-to-point bytes, collective bytes in all and per kind (calls and
 * bytes), communicating pairs, the most bytes one rank sends, matrix
 * entries and neighbour counts (as sorted lists: METIS numbers its parts
 * differently from MPI ranks). A component's accuracy is 1 - |projected -
 * measured| / measured (at least 0); the headline (headline()) charges
 * bytes of the wrong kind twice, so it cannot be high when the kinds
 * are wrong. */
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

/* The collective kinds of docs/COMM-JSON.md, in its order. */
static const char *const cmp_kinds[] = { "broadcast", "reduce", "gather",
   "scatter", "allreduce", "allgather", "alltoall", "reduce_scatter",
   "barrier" };
#define CMP_NKINDS (sizeof cmp_kinds / sizeof *cmp_kinds)

static int known_collective(const char *name)
{
   for (size_t i = 0; i < CMP_NKINDS; i++)
      if (strcmp(name, cmp_kinds[i]) == 0)
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

typedef struct cmp_kind {
   double calls_p, bytes_p, calls_m, bytes_m, acc;
} cmp_kind;

typedef struct cmp_out {
   double p2p_p, p2p_m, coll_p, coll_m, total_p, total_m;
   double acc, p2p_acc, coll_acc, entry_acc, max_rank_acc;
   double max_rank_p, max_rank_m;   /* most bytes one rank sends */
   uint64_t pairs_p, pairs_m;       /* ordered pairs that communicate */
   cmp_kind kind[CMP_NKINDS];
   int kinds_agree;                 /* the same collective kinds, calls */
   int neighbours_agree;
} cmp_out;

static void kind_of(const cmp_side *s, const char *name, double *calls,
                    double *bytes)
{
   json_t *c = json_object_get(s->collectives, name);
   uint64_t n = 0, b = 0;
   if (c) {
      get_u64(c, "calls", &n);
      get_u64(c, "bytes", &b);
   }
   *calls = (double)n * s->scale;
   *bytes = (double)b * s->scale;
}

static void matrix_shape(const cmp_side *s, uint64_t *pairs, double *max_rank)
{
   *pairs = 0;
   *max_rank = 0;
   for (uint32_t a = 0; a < s->n; a++) {
      double row = 0;
      for (uint32_t b = 0; b < s->n; b++) {
         uint64_t v = s->matrix[(size_t)a * s->n + b];
         *pairs += v != 0;
         row += (double)v;
      }
      if (row * s->scale > *max_rank)
         *max_rank = row * s->scale;
   }
}

/* The headline: 1 - (|p2p error| + the sum over collective kinds of their
 * byte errors) / all measured bytes. Bytes projected as the wrong kind
 * count as an error twice (missing where they are, extra where they are
 * not), so a projection of the wrong kind never scores well, however
 * well its total matches. */
static double headline(const cmp_out *o)
{
   double err = o->p2p_p > o->p2p_m ? o->p2p_p - o->p2p_m : o->p2p_m - o->p2p_p;
   for (size_t k = 0; k < CMP_NKINDS; k++) {
      const cmp_kind *c = &o->kind[k];
      err += c->bytes_p > c->bytes_m ? c->bytes_p - c->bytes_m
                                     : c->bytes_m - c->bytes_p;
   }
   if (o->total_m <= 0)
      return err > 0 ? 0 : 1;
   return err >= o->total_m ? 0 : 1 - err / o->total_m;
}

static int compare(const cmp_side *p, const cmp_side *m, cmp_out *o)
{
   uint32_t n = p->n;
   memset(o, 0, sizeof *o);
   o->p2p_p = (double)p->p2p * p->scale;
   o->p2p_m = (double)m->p2p * m->scale;
   o->coll_p = (double)p->coll * p->scale;
   o->coll_m = (double)m->coll * m->scale;
   o->total_p = o->p2p_p + o->coll_p;
   o->total_m = o->p2p_m + o->coll_m;
   o->p2p_acc = accuracy(o->p2p_p, o->p2p_m);
   o->coll_acc = accuracy(o->coll_p, o->coll_m);
   o->kinds_agree = 1;
   for (size_t k = 0; k < CMP_NKINDS; k++) {
      cmp_kind *c = &o->kind[k];
      kind_of(p, cmp_kinds[k], &c->calls_p, &c->bytes_p);
      kind_of(m, cmp_kinds[k], &c->calls_m, &c->bytes_m);
      c->acc = accuracy(c->bytes_p, c->bytes_m);
      o->kinds_agree &= (c->calls_p > 0) == (c->calls_m > 0);
   }
   o->acc = headline(o);
   matrix_shape(p, &o->pairs_p, &o->max_rank_p);
   matrix_shape(m, &o->pairs_m, &o->max_rank_m);
   o->max_rank_acc = accuracy(o->max_rank_p, o->max_rank_m);
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
   printf("point-to-point:  projected %.1f, measured %.1f, accuracy %.1f%%\n",
          o->p2p_p, o->p2p_m, 100 * o->p2p_acc);
   printf("collectives:     projected %.1f, measured %.1f, accuracy %.1f%%%s\n",
          o->coll_p, o->coll_m, 100 * o->coll_acc,
          o->kinds_agree ? "" : " (other kinds)");
   for (size_t k = 0; k < CMP_NKINDS; k++) {
      const cmp_kind *c = &o->kind[k];
      if (c->calls_p > 0 || c->calls_m > 0)
         printf("  %-14s projected %.1f calls %.1f bytes, measured %.1f calls "
                "%.1f bytes, accuracy %.1f%%\n", cmp_kinds[k], c->calls_p,
                c->bytes_p, c->calls_m, c->bytes_m, 100 * c->acc);
   }
   printf("pairs:           projected %llu, measured %llu\n",
          (unsigned long long)o->pairs_p, (unsigned long long)o->pairs_m);
   printf("most from a rank: projected %.1f, measured %.1f, accuracy %.1f%%\n",
          o->max_rank_p, o->max_rank_m, 100 * o->max_rank_acc);
   printf("matrix entries (sorted): accuracy %.1f%%\n", 100 * o->entry_acc);
   printf("neighbours per rank (sorted): projected");
   for (uint32_t i = 0; i < n; i++)
      printf(" %llu", (unsigned long long)np[i]);
   printf(", measured");
   for (uint32_t i = 0; i < n; i++)
      printf(" %llu", (unsigned long long)nm[i]);
   printf(": %s\n", o->neighbours_agree ? "agree" : "differ");
   printf("accuracy %.1f%% (each kind's bytes apart: docs/PROJECTION.md)\n",
          100 * o->acc);
   free(ep), free(em), free(np), free(nm);
   return 0;
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
           "\"measured_bytes\": %.3f, \"accuracy\": %.6f,\n"
           " \"p2p_projected\": %.3f, \"p2p_measured\": %.3f, "
           "\"p2p_accuracy\": %.6f,\n"
           " \"collective_projected\": %.3f, \"collective_measured\": %.3f, "
           "\"collective_accuracy\": %.6f, \"collective_kinds_agree\": %s,\n"
           " \"collectives\": {",
           n, per_iter ? "true" : "false", o->total_p, o->total_m, o->acc,
           o->p2p_p, o->p2p_m, o->p2p_acc, o->coll_p, o->coll_m, o->coll_acc,
           o->kinds_agree ? "true" : "false");
   int first = 1;
   for (size_t k = 0; k < CMP_NKINDS; k++) {
      const cmp_kind *c = &o->kind[k];
      if (c->calls_p <= 0 && c->calls_m <= 0)
         continue;
      fprintf(f.fp, "%s\"%s\": {\"projected_calls\": %.3f, \"projected_bytes\": "
              "%.3f, \"measured_calls\": %.3f, \"measured_bytes\": %.3f, "
              "\"accuracy\": %.6f}", first ? "" : ", ", cmp_kinds[k],
              c->calls_p, c->bytes_p, c->calls_m, c->bytes_m, c->acc);
      first = 0;
   }
   fprintf(f.fp,
           "},\n \"pairs_projected\": %llu, \"pairs_measured\": %llu, "
           "\"max_rank_projected\": %.3f, \"max_rank_measured\": %.3f, "
           "\"max_rank_accuracy\": %.6f,\n \"entry_accuracy\": %.6f, "
           "\"neighbours_agree\": %s}\n",
           (unsigned long long)o->pairs_p, (unsigned long long)o->pairs_m,
           o->max_rank_p, o->max_rank_m, o->max_rank_acc, o->entry_acc,
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
