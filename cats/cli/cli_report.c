/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cli_report.c: `cats report FILE`: the findings a performance engineer
 * acts on, each section ranked and cut to the top N (cli_report.h):
 *
 *   1 the peak footprint and the containers live at the peak
 *   2 allocations inside loops, with bytes per iteration
 *   3 containers used for a small part of the time they are allocated
 *   4 same-size containers that could share one buffer
 *   5 stride-k and indirect access sites
 *   6 the heaviest dependencies between code: bytes read, by the loop or
 *     function that stored them and the one that read them
 *   7 reuse distances per container and access site, with misses
 *
 * Text goes to stdout. `--json OUT` writes the same content as JSON,
 * atomically (cli_outfile.h); with OUT "-" the JSON goes to stdout instead of
 * the text. Exit status: 0, 1 file or data error, 2 usage error.
 *
 * JSON (version 2: section 6 became "dependencies"). Ids are those of
 * `cats dump --json`; a location
 * ("site") is "file:line" as the text prints it, or null; "total" is the
 * number found before the cut to "top".
 *
 *   { "report": 2, "file": F, "command": C, "top": N,
 *     "scope": "main" | "all", "short_ratio": R,
 *     "peak": null | { "time", "bytes", "exact_bytes", "upper_bytes",
 *        "total", "live": [ { "alloc", "name", "kind", "site", "size",
 *        "count", "live_min", "live_max", "bytes_min", "bytes_max",
 *        "exact" } ] },
 *     "allocations_in_loops": { "total", "entries": [ { "alloc", "name",
 *        "kind", "site", "size", "count", "total_bytes", "loop",
 *        "loop_site", "iterations", "bytes_per_iteration" } ] },
 *     "short_lifetimes": { "total", "entries": [ { "alloc", "name",
 *        "kind", "site", "size", "count", "alloc_start", "alloc_end",
 *        "alloc_lifetime", "used", "use_start", "use_end", "use_lifetime",
 *        "ratio", "idle" } ] },         (use_start/use_end null if unused)
 *     "sharing": { "total", "saved", "groups": [ { "size", "saved",
 *        "members": [ { "alloc", "name", "site", "alloc_start",
 *        "alloc_end", "use_start", "use_end" } ] } ] },
 *     "access_sites": { "total", "unrolled_records", "entries": [
 *        { "site", "function", "alloc", "name", "kind" ("read"|"write"),
 *        "pattern" ("stride-k"|"indirect"), "size", "stride", "elements",
 *        "loop", "loop_site", "index", "count", "records" } ] },
 *        (stride: bytes, elements: stride / size when it divides, loop:
 *        the context of the stride's loop level; null for indirect.
 *        index: { "alloc", "name", "site" }: the container the address
 *        was computed from and the load that read it (trace section 10),
 *        null when the trace does not say)
 *     "dependencies": null | { "total", "entries": [ { "bytes", "uses",
 *        "alloc", "name", "from_site", "from_function", "from",
 *        "to_site", "to_function", "to", "self", "records" } ] },
 *        (from/to: the heaviest storing and reading contexts' labels;
 *        the sites are their loop headers or function entries; self:
 *        one line both stores and reads; records: section 11 records
 *        merged; null without value flow)
 *     "reuse": null }
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cats/trace/json_out.h"
#include "cli_outfile.h"
#include "cats/trace/trace_scope.h"
#include "cli_report.h"
#include "cli_program.h"
#include "cats/trace/trace_names.h"

#define REPORT_USAGE                                                    \
   "cats report FILE [--top=N] [--short-ratio=R] [--cache=LINES] [--all] "  \
   "[--json OUT]"

#define LOC_LEN 512

/* ------------------------------------------------------------------ */
/* Scope and options                                                  */
/* ------------------------------------------------------------------ */

static int parse_top(const char *s, uint32_t *top)
{
   char *end;
   errno = 0;
   unsigned long long v = strtoull(s, &end, 10);
   if (s[0] < '0' || s[0] > '9' || *end || errno || v < 1 ||
       v > CLI_REPORT_TOP_MAX)
      return cli_error(CLI_EUSAGE, "report: --top=%s: expected a whole "
                       "number from 1 to %u", s, CLI_REPORT_TOP_MAX);
   *top = (uint32_t)v;
   return CLI_OK;
}

static int parse_ratio(const char *s, double *r)
{
   char *end;
   errno = 0;
   double v = strtod(s, &end);
   if (!s[0] || *end || errno || !isfinite(v) || v <= 0 || v > 1)
      return cli_error(CLI_EUSAGE, "report: --short-ratio=%s: expected a "
                       "fraction above 0, at most 1", s);
   *r = v;
   return CLI_OK;
}

/* ------------------------------------------------------------------ */
/* Shared bits of both writers                                        */
/* ------------------------------------------------------------------ */

static void loc_str(const trace_file *t, uint32_t loc, char *buf)
{
   cli_loc_str(t, loc, buf, LOC_LEN);
}

static const char *loc_function(const trace_file *t, uint32_t loc)
{
   return loc == CATS_NONE ? "" : trace_str(t, t->locs[loc].function);
}

static const char *alloc_name(const trace_file *t, uint32_t alloc)
{
   return alloc == CATS_NONE ? "" : trace_str(t, t->allocs[alloc].name);
}

static uint64_t lifetime_of(const cli_report_lifetime *l)
{
   return l->alloc_end - l->alloc_start;
}

static uint64_t usage_of(const cli_report_lifetime *l)
{
   return l->used ? l->use_end - l->use_start : 0;
}

static void more(FILE *fp, uint32_t shown, uint32_t total)
{
   if (total > shown)
      fprintf(fp, "   (%u more; --top=N shows more)\n", total - shown);
}

static void quoted(FILE *fp, const char *s)
{
   fputc('"', fp);
   cli_text(fp, s);
   fputc('"', fp);
}

/* ------------------------------------------------------------------ */
/* Text                                                               */
/* ------------------------------------------------------------------ */

static void text_peak(FILE *fp, const trace_file *t, const cli_report_peak *p)
{
   if (!p->known) {
      fputs("1. peak footprint: not recorded in this trace (META "
            "peak_time)\n", fp);
      return;
   }
   fprintf(fp, "1. peak footprint: %llu bytes at time %llu\n",
           (unsigned long long)p->bytes, (unsigned long long)p->time);
   fprintf(fp, "   live then: %llu bytes in %u records%s",
           (unsigned long long)p->exact_bytes, p->total,
           p->system ? " of the program" : "");
   if (p->upper_bytes > p->exact_bytes)
      fprintf(fp, ", up to %llu more in records whose instances straddle "
                  "the peak",
              (unsigned long long)(p->upper_bytes - p->exact_bytes));
   fputc('\n', fp);
   if (p->system)
      fprintf(fp, "   and up to %llu bytes in %u records of libc, ld.so and "
                  "other system code (--all lists them)\n",
              (unsigned long long)p->system_bytes, p->system);
   /* The records should explain the whole peak. They do not when the
    * tool's running footprint kept bytes no record holds then: a global
    * released by a mapping laid over it still counts (cats_mem.c,
    * release_range subtracts mappings only). Say so, do not hide it. */
   uint64_t held = cli_add_sat(p->upper_bytes, p->system_bytes);
   if (p->bytes > held)
      fprintf(fp, "   %llu bytes of the peak are in no record live "
                  "then\n",
              (unsigned long long)(p->bytes - held));
   for (uint32_t i = 0; i < p->n; i++) {
      const cli_report_live *l = &p->live[i];
      const trace_alloc *a = &t->allocs[l->alloc];
      char bytes[64], live[96];
      if (l->min == l->max) {
         snprintf(bytes, sizeof bytes, "%llu B",
                  (unsigned long long)cli_mul_sat(l->min, a->size));
         if (a->count == 1)
            snprintf(live, sizeof live, "live");
         else
            snprintf(live, sizeof live, "%llu of %llu live",
                     (unsigned long long)l->min,
                     (unsigned long long)a->count);
      } else {
         snprintf(bytes, sizeof bytes, "%llu-%llu B",
                  (unsigned long long)cli_mul_sat(l->min, a->size),
                  (unsigned long long)cli_mul_sat(l->max, a->size));
         snprintf(live, sizeof live, "%llu-%llu of %llu live",
                  (unsigned long long)l->min, (unsigned long long)l->max,
                  (unsigned long long)a->count);
      }
      fprintf(fp, "  %2u. %14s  %-8s %-18s ", i + 1, bytes,
              trace_names_alloc_kind(a->kind), live);
      quoted(fp, alloc_name(t, l->alloc));
      fputc('\n', fp);
   }
   more(fp, p->n, p->total);
}

static void text_loops(FILE *fp, const trace_file *t, const cli_report_data *r)
{
   fprintf(fp, "\n2. allocations inside loops: %u\n", r->loops_total);
   for (uint32_t i = 0; i < r->nloops; i++) {
      const cli_report_loop_alloc *l = &r->loops[i];
      const trace_alloc *a = &t->allocs[l->alloc];
      const trace_context *c = &t->contexts[l->loop];
      char where[LOC_LEN];
      loc_str(t, c->loc, where);
      fprintf(fp, "  %2u. %llu x %-8s %llu B in all, %.1f B per iteration "
                  "of loop ",
              i + 1, (unsigned long long)a->count, trace_names_alloc_kind(a->kind),
              (unsigned long long)a->total_bytes, l->bytes_per_iter);
      cli_text(fp, where);
      fprintf(fp, " (%llu iterations)  ", (unsigned long long)c->iterations);
      quoted(fp, alloc_name(t, l->alloc));
      fputc('\n', fp);
   }
   more(fp, r->nloops, r->loops_total);
}

static void text_shorts(FILE *fp, const trace_file *t, const cli_report_data *r,
                        double threshold)
{
   fprintf(fp, "\n3. short usage lifetimes (used for less than %g%% of the "
               "time allocated): %u\n",
           100 * threshold, r->shorts_total);
   for (uint32_t i = 0; i < r->nshorts; i++) {
      const cli_report_lifetime *l = &r->shorts[i];
      const trace_alloc *a = &t->allocs[l->alloc];
      fprintf(fp, "  %2u. ", i + 1);
      quoted(fp, alloc_name(t, l->alloc));
      fprintf(fp, " %llu B", (unsigned long long)a->size);
      if (a->count > 1)
         fprintf(fp, " x %llu", (unsigned long long)a->count);
      fprintf(fp, ": allocated %llu..%llu (%llu)", 
              (unsigned long long)l->alloc_start,
              (unsigned long long)l->alloc_end,
              (unsigned long long)lifetime_of(l));
      if (l->used)
         fprintf(fp, ", used %llu..%llu (%llu): %.2f%%\n",
                 (unsigned long long)l->use_start,
                 (unsigned long long)l->use_end,
                 (unsigned long long)usage_of(l), 100 * l->ratio);
      else
         fputs(", never accessed\n", fp);
   }
   more(fp, r->nshorts, r->shorts_total);
}

static void text_shares(FILE *fp, const trace_file *t, const cli_report_data *r)
{
   fprintf(fp, "\n4. buffer sharing (same size, allocated together, used "
               "one after another): %u, saving %llu bytes in all\n",
           r->shares_total, (unsigned long long)r->shares_saved);
   for (uint32_t i = 0; i < r->nshares; i++) {
      const cli_report_share *s = &r->shares[i];
      fprintf(fp, "  %2u. %u x %llu B share one buffer, saving %llu B:\n",
              i + 1, s->n, (unsigned long long)s->size,
              (unsigned long long)s->saved);
      for (uint32_t k = 0; k < s->n; k++) {
         const cli_report_lifetime *m = &s->members[k];
         fputs("        ", fp);
         quoted(fp, alloc_name(t, m->alloc));
         fprintf(fp, " used %llu..%llu\n", (unsigned long long)m->use_start,
                 (unsigned long long)m->use_end);
      }
   }
   more(fp, r->nshares, r->shares_total);
}

static void text_sites(FILE *fp, const trace_file *t, const cli_report_data *r)
{
   fprintf(fp, "\n5. stride-k and indirect access sites: %u\n",
           r->sites_total);
   if (r->sites_unrolled)
      fprintf(fp, "   (%llu stride-k records counted as stride-1: parts of unrolled "
                  "loops that walk contiguously together)\n",
              (unsigned long long)r->sites_unrolled);
   for (uint32_t i = 0; i < r->nsites; i++) {
      const cli_report_site *s = &r->sites[i];
      char where[LOC_LEN], how[LOC_LEN + 96];
      if (s->pattern == CATS_PAT_IRREGULAR) {
         snprintf(how, sizeof how, "indirect");
      } else {
         char loop[LOC_LEN] = "";
         int n = snprintf(how, sizeof how, "stride %lld B",
                          (long long)s->stride);
         if (s->size && s->stride % (int64_t)s->size == 0)
            n += snprintf(how + n, sizeof how - (size_t)n, " (%lld x %u B)",
                          (long long)(s->stride / (int64_t)s->size),
                          s->size);
         if (s->loop != CATS_NONE)
            loc_str(t, t->contexts[s->loop].loc, loop);
         if (loop[0])
            snprintf(how + n, sizeof how - (size_t)n, " in loop %s", loop);
      }
      loc_str(t, s->loc, where);
      fprintf(fp, "  %2u. %12llu %c %3u B  ", i + 1,
              (unsigned long long)s->count, s->kind == CATS_WRITE ? 'w' : 'r',
              s->size);
      cli_text(fp, where);
      fputs("  ", fp);
      quoted(fp, alloc_name(t, s->alloc));
      fputs("  ", fp);
      cli_text(fp, how);
      if (s->index != CATS_NONE) {
         char at[LOC_LEN];
         loc_str(t, s->index_loc, at);
         fputs(" via ", fp);
         quoted(fp, alloc_name(t, s->index));
         if (at[0]) {
            fputs(" read at ", fp);
            cli_text(fp, at);
         }
      }
      fputc('\n', fp);
   }
   more(fp, r->nsites, r->sites_total);
}

/* A control-flow node as a reader finds it: "loop (x.c:12) in f", or a
 * function's name. */
static void node_label(const trace_file *t, uint32_t ctx, char *buf,
                       size_t n)
{
   const trace_context *c = &t->contexts[ctx];
   size_t k;
   cli_ctx_label(t, ctx, buf, n);
   k = strlen(buf);
   const char *fn = c->kind == CATS_CTX_FUNCTION || c->loc == CATS_NONE
                       ? "" : loc_function(t, c->loc);
   if (fn[0] && k < n)
      snprintf(buf + k, n - k, " in %s", fn);
}

static void text_deps(FILE *fp, const trace_file *t, const cli_report_data *r)
{
   if (!r->has_deps) {
      const char *vf = trace_meta_get(t, "value_flow");
      fprintf(fp, "\n6. dependencies between code: %s\n",
              vf && strcmp(vf, "no") == 0
                 ? "not recorded: the run had --value-flow=no"
                 : "not recorded in this trace");
      return;
   }
   fprintf(fp, "\n6. heaviest dependencies between code (bytes read, by "
               "the node that stored them -> the node that read them): %u\n",
           r->deps_total);
   for (uint32_t i = 0; i < r->ndeps; i++) {
      const cli_report_dep *d = &r->deps[i];
      char from[LOC_LEN], to[LOC_LEN];
      fprintf(fp, "  %2u. %12llu B  %llu use%s  ", i + 1,
              (unsigned long long)d->bytes, (unsigned long long)d->uses,
              d->uses == 1 ? "" : "s");
      quoted(fp, alloc_name(t, d->alloc));
      node_label(t, d->from_ctx, from, sizeof from);
      node_label(t, d->to_ctx, to, sizeof to);
      fputs("  ", fp);
      cli_text(fp, from);
      fputs(" -> ", fp);
      cli_text(fp, d->from_loc == d->to_loc ? "itself (earlier iterations)"
                                            : to);
      if (d->records > 1)
         fprintf(fp, "  (%u context pairs)", d->records);
      fputc('\n', fp);
   }
   more(fp, r->ndeps, r->deps_total);
}

static void write_text(FILE *fp, const trace_file *t, const char *file,
                       const cli_report_options *o, const cli_report_data *r)
{
   const char *cmd = trace_meta_get(t, "command");
   fputs("report of ", fp);
   cli_text(fp, file);
   if (cmd) {
      fputs(" (", fp);
      cli_text(fp, cmd);
      fputc(')', fp);
   }
   fprintf(fp, "\nscope: %s; times are logical (a tick per access, "
               "allocation, release)\n\n",
           o->all ? "the whole process"
                  : "main and below and other threads, without ld.so and "
                    "the tool's preload; the program's containers, not "
                    "libc's (--all: everything)");
   text_peak(fp, t, &r->peak);
   text_loops(fp, t, r);
   text_shorts(fp, t, r, o->short_ratio);
   text_shares(fp, t, r);
   text_sites(fp, t, r);
   text_deps(fp, t, r);
   cli_report_reuse_text(fp, t, o->top, o->cache_lines);
}

/* ------------------------------------------------------------------ */
/* JSON                                                               */
/* ------------------------------------------------------------------ */

static void j_u64(FILE *fp, const char *key, uint64_t v)
{
   fprintf(fp, ", \"%s\": %llu", key, (unsigned long long)v);
}

static void j_str(FILE *fp, const char *key, const char *s)
{
   fprintf(fp, ", \"%s\": ", key);
   json_out_string(fp, s);
}

static void j_loc(FILE *fp, const trace_file *t, const char *key,
                  uint32_t loc)
{
   char where[LOC_LEN];
   loc_str(t, loc, where);
   if (where[0])
      j_str(fp, key, where);
   else
      fprintf(fp, ", \"%s\": null", key);
}

/* The fields every container entry starts with. */
static void j_alloc(FILE *fp, const trace_file *t, uint32_t id)
{
   const trace_alloc *a = &t->allocs[id];
   fprintf(fp, "{\"alloc\": %u", id);
   j_str(fp, "name", trace_str(t, a->name));
   j_str(fp, "kind", trace_names_alloc_kind(a->kind));
   j_loc(fp, t, "site", a->alloc_loc);
   j_u64(fp, "size", a->size);
   j_u64(fp, "count", a->count);
}

static void json_peak(FILE *fp, const trace_file *t, const cli_report_peak *p)
{
   fputs(",\n \"peak\": ", fp);
   if (!p->known) {
      fputs("null", fp);
      return;
   }
   fprintf(fp, "{\"time\": %llu", (unsigned long long)p->time);
   j_u64(fp, "bytes", p->bytes);
   j_u64(fp, "exact_bytes", p->exact_bytes);
   j_u64(fp, "upper_bytes", p->upper_bytes);
   j_u64(fp, "total", p->total);
   j_u64(fp, "system_records", p->system);
   j_u64(fp, "system_bytes", p->system_bytes);
   fputs(", \"live\": [", fp);
   for (uint32_t i = 0; i < p->n; i++) {
      const cli_report_live *l = &p->live[i];
      uint64_t size = t->allocs[l->alloc].size;
      fputs(i ? ",\n   " : "\n   ", fp);
      j_alloc(fp, t, l->alloc);
      j_u64(fp, "live_min", l->min);
      j_u64(fp, "live_max", l->max);
      j_u64(fp, "bytes_min", cli_mul_sat(l->min, size));
      j_u64(fp, "bytes_max", cli_mul_sat(l->max, size));
      fprintf(fp, ", \"exact\": %s}", l->min == l->max ? "true" : "false");
   }
   fputs("]}", fp);
}

static void json_loops(FILE *fp, const trace_file *t, const cli_report_data *r)
{
   fprintf(fp, ",\n \"allocations_in_loops\": {\"total\": %u, "
               "\"entries\": [",
           r->loops_total);
   for (uint32_t i = 0; i < r->nloops; i++) {
      const cli_report_loop_alloc *l = &r->loops[i];
      const trace_context *c = &t->contexts[l->loop];
      fputs(i ? ",\n   " : "\n   ", fp);
      j_alloc(fp, t, l->alloc);
      j_u64(fp, "total_bytes", t->allocs[l->alloc].total_bytes);
      fprintf(fp, ", \"loop\": %u", l->loop);
      j_loc(fp, t, "loop_site", c->loc);
      j_u64(fp, "iterations", c->iterations);
      fprintf(fp, ", \"bytes_per_iteration\": %.17g}", l->bytes_per_iter);
   }
   fputs("]}", fp);
}

static void json_lifetime(FILE *fp, const cli_report_lifetime *l)
{
   j_u64(fp, "alloc_start", l->alloc_start);
   j_u64(fp, "alloc_end", l->alloc_end);
   if (l->used) {
      j_u64(fp, "use_start", l->use_start);
      j_u64(fp, "use_end", l->use_end);
   } else {
      fputs(", \"use_start\": null, \"use_end\": null", fp);
   }
}

static void json_shorts(FILE *fp, const trace_file *t, const cli_report_data *r)
{
   fprintf(fp, ",\n \"short_lifetimes\": {\"total\": %u, \"entries\": [",
           r->shorts_total);
   for (uint32_t i = 0; i < r->nshorts; i++) {
      const cli_report_lifetime *l = &r->shorts[i];
      fputs(i ? ",\n   " : "\n   ", fp);
      j_alloc(fp, t, l->alloc);
      json_lifetime(fp, l);
      j_u64(fp, "alloc_lifetime", lifetime_of(l));
      fprintf(fp, ", \"used\": %s", l->used ? "true" : "false");
      j_u64(fp, "use_lifetime", usage_of(l));
      fprintf(fp, ", \"ratio\": %.17g", l->ratio);
      j_u64(fp, "idle", l->idle);
      fputc('}', fp);
   }
   fputs("]}", fp);
}

static void json_shares(FILE *fp, const trace_file *t, const cli_report_data *r)
{
   fprintf(fp, ",\n \"sharing\": {\"total\": %u, \"saved\": %llu, "
               "\"groups\": [",
           r->shares_total, (unsigned long long)r->shares_saved);
   for (uint32_t i = 0; i < r->nshares; i++) {
      const cli_report_share *s = &r->shares[i];
      fprintf(fp, "%s{\"size\": %llu, \"saved\": %llu, \"members\": [",
              i ? ",\n   " : "\n   ", (unsigned long long)s->size,
              (unsigned long long)s->saved);
      for (uint32_t k = 0; k < s->n; k++) {
         const cli_report_lifetime *m = &s->members[k];
         const trace_alloc *a = &t->allocs[m->alloc];
         fprintf(fp, "%s{\"alloc\": %u", k ? ", " : "", m->alloc);
         j_str(fp, "name", trace_str(t, a->name));
         j_loc(fp, t, "site", a->alloc_loc);
         json_lifetime(fp, m);
         fputc('}', fp);
      }
      fputs("]}", fp);
   }
   fputs("]}", fp);
}

static void json_sites(FILE *fp, const trace_file *t, const cli_report_data *r)
{
   fprintf(fp, ",\n \"access_sites\": {\"total\": %u, \"unrolled_records\": "
               "%llu, \"entries\": [",
           r->sites_total, (unsigned long long)r->sites_unrolled);
   for (uint32_t i = 0; i < r->nsites; i++) {
      const cli_report_site *s = &r->sites[i];
      int strided = s->pattern == CATS_PAT_STRIDEK;
      fputs(i ? ",\n   " : "\n   ", fp);
      fputs("{", fp);
      char where[LOC_LEN];
      loc_str(t, s->loc, where);
      fputs("\"site\": ", fp);
      if (where[0])
         json_out_string(fp, where);
      else
         fputs("null", fp);
      j_str(fp, "function", loc_function(t, s->loc));
      fprintf(fp, ", \"alloc\": %u", s->alloc);
      j_str(fp, "name", alloc_name(t, s->alloc));
      j_str(fp, "kind", trace_names_access(s->kind));
      j_str(fp, "pattern", strided ? "stride-k" : "indirect");
      fprintf(fp, ", \"size\": %u", s->size);
      if (strided) {
         fprintf(fp, ", \"stride\": %lld", (long long)s->stride);
         if (s->size && s->stride % (int64_t)s->size == 0)
            fprintf(fp, ", \"elements\": %lld",
                    (long long)(s->stride / (int64_t)s->size));
         else
            fputs(", \"elements\": null", fp);
      } else {
         fputs(", \"stride\": null, \"elements\": null", fp);
      }
      if (s->loop != CATS_NONE) {
         fprintf(fp, ", \"loop\": %u", s->loop);
         j_loc(fp, t, "loop_site", t->contexts[s->loop].loc);
      } else {
         fputs(", \"loop\": null, \"loop_site\": null", fp);
      }
      if (s->index != CATS_NONE) {
         fprintf(fp, ", \"index\": {\"alloc\": %u", s->index);
         j_str(fp, "name", alloc_name(t, s->index));
         j_loc(fp, t, "site", s->index_loc);
         fputc('}', fp);
      } else {
         fputs(", \"index\": null", fp);
      }
      j_u64(fp, "count", s->count);
      j_u64(fp, "records", s->records);
      fputc('}', fp);
   }
   fputs("]}", fp);
}

static void json_node(FILE *fp, const trace_file *t, const char *key,
                      uint32_t ctx, uint32_t line)
{
   char label[LOC_LEN], k[32];
   node_label(t, ctx, label, sizeof label);
   snprintf(k, sizeof k, "%s_site", key);
   j_loc(fp, t, k, line);
   snprintf(k, sizeof k, "%s_function", key);
   j_str(fp, k, loc_function(t, line));
   j_str(fp, key, label);
}

static void json_deps(FILE *fp, const trace_file *t, const cli_report_data *r)
{
   fputs(",\n \"dependencies\": ", fp);
   if (!r->has_deps) {
      fputs("null", fp);
      return;
   }
   fprintf(fp, "{\"total\": %u, \"entries\": [", r->deps_total);
   for (uint32_t i = 0; i < r->ndeps; i++) {
      const cli_report_dep *d = &r->deps[i];
      fprintf(fp, "%s{\"bytes\": %llu", i ? ",\n   " : "\n   ",
              (unsigned long long)d->bytes);
      j_u64(fp, "uses", d->uses);
      fprintf(fp, ", \"alloc\": %u", d->alloc);
      j_str(fp, "name", alloc_name(t, d->alloc));
      json_node(fp, t, "from", d->from_ctx, d->from_loc);
      json_node(fp, t, "to", d->to_ctx, d->to_loc);
      fprintf(fp, ", \"self\": %s, \"records\": %u}",
              d->from_loc == d->to_loc ? "true" : "false", d->records);
   }
   fputs("]}", fp);
}

static void write_json(FILE *fp, const trace_file *t, const char *file,
                       const cli_report_options *o, const cli_report_data *r)
{
   const char *cmd = trace_meta_get(t, "command");
   fputs("{\"report\": 2", fp);
   j_str(fp, "file", file);
   if (cmd)
      j_str(fp, "command", cmd);
   else
      fputs(", \"command\": null", fp);
   fprintf(fp, ", \"top\": %u, \"scope\": \"%s\", \"short_ratio\": %.17g",
           o->top, o->all ? "all" : "main", o->short_ratio);
   json_peak(fp, t, &r->peak);
   json_loops(fp, t, r);
   json_shorts(fp, t, r);
   json_shares(fp, t, r);
   json_sites(fp, t, r);
   json_deps(fp, t, r);
   fputs(",\n \"reuse\": ", fp);
   cli_report_reuse_json(fp, t, o->top, o->cache_lines);
   fputs("}\n", fp);
}

/* ------------------------------------------------------------------ */
/* The command                                                        */
/* ------------------------------------------------------------------ */

void cli_report_free(cli_report_data *r)
{
   free(r->peak.live);
   free(r->loops);
   free(r->shorts);
   for (uint32_t i = 0; i < r->shares_total; i++)
      free(r->shares[i].members);
   free(r->shares);
   free(r->sites);
   free(r->deps);
   memset(r, 0, sizeof *r);
}

int cli_report(int argc, char **argv)
{
   const char *file = NULL, *top_s = NULL, *ratio_s = NULL, *json = NULL;
   const char *cache_s = NULL;
   int all = 0;
   const cli_opt opts[] = {
      { "--top", NULL, NULL, &top_s },
      { "--cache", NULL, NULL, &cache_s },
      { "--short-ratio", NULL, NULL, &ratio_s },
      { "--all", NULL, &all, NULL },
      { "--json", NULL, NULL, &json },
      { NULL, NULL, NULL, NULL },
   };
   int rc = cli_parse(argc, argv, opts, &file, 1, REPORT_USAGE);
   if (rc != CLI_OK)
      return rc == CLI_HELP ? CLI_OK : rc;
   /* 32 KiB of 64-byte lines: a level-1 data cache. */
   cli_report_options o = { CLI_REPORT_TOP_DEFAULT, CLI_REPORT_SHORT_DEFAULT, 512, NULL, all,
                            NULL };
   if (cache_s) {
      char *end;
      unsigned long long c = strtoull(cache_s, &end, 10);
      if (*end || end == cache_s || c < 1 || c > (1ull << 40) ||
          cache_s[0] == '-')
         return cli_error(CLI_EUSAGE, "report: --cache=%s: expected a cache "
                                      "size in 64-byte lines", cache_s);
      o.cache_lines = c;
   }
   if ((top_s && (rc = parse_top(top_s, &o.top)) != CLI_OK) ||
       (ratio_s && (rc = parse_ratio(ratio_s, &o.short_ratio)) != CLI_OK))
      return rc;
   if (json && !json[0])
      return cli_error(CLI_EUSAGE, "report: --json needs a file name");

   trace_file *t;
   if ((rc = cli_load(file, &t)) != CLI_OK)
      return rc;
   uint8_t *in_scope = malloc((size_t)t->ncontexts + 1);
   cli_program prog = { 0, CATS_NONE, NULL };
   cli_report_data r;
   memset(&r, 0, sizeof r);
   int bad = in_scope == NULL;
   if (!bad) {
      int64_t n = all ? 0 : trace_program_contexts(t, in_scope);
      if (n == 0) {
         memset(in_scope, 1, t->ncontexts);
         o.all = 1;
      }
      o.in_scope = in_scope;
      bad = n < 0 || cli_program_init(&prog, t, all) != 0;
      o.ours = prog.ours;
      bad = bad || cli_report_memory(t, &o, &r) != 0 ||
            cli_report_access(t, &o, &r) != 0 || cli_report_deps(t, &o, &r) != 0;
   }
   if (bad) {
      rc = cli_error(CLI_EFILE, "%s: out of memory", file);
   } else {
      /* Open the JSON file first: a path that cannot be written is one
       * error line and no output at all. */
      char err[512];
      cli_outfile f = { NULL, NULL, NULL };
      if (json && cli_outfile_open(&f, json, err, sizeof err) != 0) {
         rc = cli_error(CLI_EFILE, "%s", err);
      } else {
         if (!json || strcmp(json, "-") != 0)
            write_text(stdout, t, file, &o, &r);
         if (json) {
            write_json(f.fp, t, file, &o, &r);
            if (cli_outfile_close(&f, 1, err, sizeof err) != 0)
               rc = cli_error(CLI_EFILE, "%s", err);
         }
         if (rc == CLI_OK && (fflush(stdout) != 0 || ferror(stdout)))
            rc = cli_error(CLI_EFILE, "stdout: write error");
      }
   }
   cli_report_free(&r);
   cli_program_free(&prog);
   free(in_scope);
   trace_free(t);
   return rc;
}
