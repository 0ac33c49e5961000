/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cli_view.c: `cats view FILE [-o OUT] [--project] [--ranks=LIST]
 *              [--max-records=N]`.
 *
 * Writes one self-contained HTML file (no network, opens from file://)
 * with the four views of viewer/view.js: memory timeline, data-access
 * statistics, control-flow data dependencies and communication. The page
 * is the viewer's template with its script and style inlined at build
 * time (viewer/embed.py makes view_assets.c: cvw_head and cvw_tail); this
 * command writes head, the data document, tail. The data sits in
 * <script id="cats-data" type="application/json"> and is
 *
 *   {"cats_view": 1,
 *    "trace": <exactly what `cats dump --json` writes, but for at most
 *              --max-records access records: those with the most
 *              accesses, in trace order>,
 *    "records": {"shown": N, "total": N, "accesses_shown": N,
 *                "accesses_total": N},
 *    "dependencies": [{"from": CTX, "to": CTX, "uses": N, "bytes": N}]
 *                    or null without section 11 (value flow off),
 *    "projection": <docs/COMM-JSON.md document> or null,
 *    "singleton_counts": {"broadcast": N, ...} or null,
 *    "singletons": [{"kind", "value", "degree", "versions", "members",
 *                    "ctx"}] or null}
 *
 * Dependencies are section 11's records (the loads in context `to` of
 * words whose last store was made in context `from`: the version
 * actually read) summed over containers, stack frames left out; the
 * trace document has them all, per container. The viewer rolls them up to collapsed ancestors.
 *
 * The projection is the one stored in the trace (section 8), which costs
 * nothing; --project (or --ranks=LIST) recomputes it like `cats project`
 * (stored options, else the defaults) and adds the singleton list.
 *
 * Inside a script element the HTML parser ends the data at the first
 * "</script" and changes state at "<!--", whatever JSON says; both can
 * only occur in strings of the document, so the data goes through a
 * stream that writes "</" as "<\/" and "<!" as "\u003c!", both valid
 * JSON escapes of the same text. */
#define _GNU_SOURCE   /* fopencookie */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "partition/part_project.h"
#include "partition/part_report.h"
#include "partition/part_section.h"
#include "cli.h"
#include "cli_program.h"
#include "cats/trace/json_out.h"
#include "cli_outfile.h"

/* The page around the data, generated from viewer/ at build time. */
extern const unsigned char cvw_head[];
extern const size_t cvw_head_len;
extern const unsigned char cvw_tail[];
extern const size_t cvw_tail_len;

#define VIEW_USAGE \
   "cats view FILE [-o OUT] [--project] [--ranks=LIST] [--max-records=N]"

/* Access records in a page by default: a large program has hundreds of
 * thousands, a page of hundreds of MB that no browser opens; these are
 * the ones with the most accesses. 0 is all. */
#define VIEW_MAX_RECORDS 20000

/* --- the escaping stream --------------------------------------------------- */

/* State of the stream: the sink and whether the last byte seen was a '<'
 * not yet written (its meaning depends on the next byte, which may come
 * in the next write). */
typedef struct cvw_escaper {
   FILE *out;
   int lt;
} cvw_escaper;

static void esc_after_lt(cvw_escaper *e, char c)
{
   if (c == '/')
      fputs("<\\/", e->out);
   else if (c == '!')
      fputs("\\u003c!", e->out);
   else if (c == '<')
      fputc('<', e->out);   /* the new '<' waits in turn */
   else {
      fputc('<', e->out);
      fputc(c, e->out);
   }
   e->lt = c == '<';
}

static ssize_t esc_write(void *cookie, const char *buf, size_t n)
{
   cvw_escaper *e = cookie;
   size_t i = 0;
   while (i < n) {
      if (e->lt) {
         esc_after_lt(e, buf[i++]);
         continue;
      }
      const char *lt = memchr(buf + i, '<', n - i);
      size_t run = lt ? (size_t)(lt - (buf + i)) : n - i;
      fwrite(buf + i, 1, run, e->out);
      i += run;
      if (lt) {
         e->lt = 1;
         i++;
      }
   }
   return ferror(e->out) ? -1 : (ssize_t)n;
}

static int esc_close(void *cookie)
{
   cvw_escaper *e = cookie;
   if (e->lt)
      fputc('<', e->out);
   e->lt = 0;
   return ferror(e->out) ? -1 : 0;
}

/* --- the data document ----------------------------------------------------- */

static void write_ref(FILE *fp, uint32_t id)
{
   if (id == CATS_NONE)
      fputs("null", fp);
   else
      fprintf(fp, "%u", id);
}

/* Section 11's records summed over containers: they are sorted by
 * (from, to, alloc), so a pair's records are consecutive. Stack frames
 * (a function's scalar locals and spills: a loop reading its own
 * counter, its function's arguments) are left out: the view is about
 * the program's data. */
static void write_deps(FILE *fp, const trace_file *t)
{
   fputs("[", fp);
   size_t n = 0;
   for (uint32_t i = 0; i < t->ndeps;) {
      const trace_dep *d = &t->deps[i];
      uint64_t uses = 0, bytes = 0;
      for (; i < t->ndeps && t->deps[i].from == d->from
             && t->deps[i].to == d->to; i++) {
         if (t->allocs[t->deps[i].alloc].kind == CATS_ALLOC_STACK_FRAME)
            continue;
         uses = cli_add_sat(uses, t->deps[i].uses);
         bytes = cli_add_sat(bytes, t->deps[i].bytes);
      }
      if (uses == 0)
         continue;
      fprintf(fp, "%s\n  {\"from\": %u, \"to\": %u, \"uses\": %llu, "
                  "\"bytes\": %llu}",
              n++ ? "," : "", d->from, d->to, (unsigned long long)uses,
              (unsigned long long)bytes);
   }
   fputs(n ? "\n]" : "]", fp);
}

static void write_singleton_counts(FILE *fp, const part_projection *p)
{
   fputs("{", fp);
   for (int k = PART_SINGLETON_BROADCAST; k < PART_SINGLETON_NKINDS; k++)
      fprintf(fp, "%s\"%s\": %u", k > PART_SINGLETON_BROADCAST ? ", " : "",
              part_singleton_kind_name(k), p->singletons.count[k]);
   fputs("}", fp);
}

static void write_singletons(FILE *fp, const trace_file *t,
                             const part_projection *p)
{
   fputs("[", fp);
   for (uint32_t i = 0; i < p->nslist; i++) {
      const part_project_singleton *s = &p->slist[i];
      char label[CLI_VCG_LABEL];
      cli_vcg_label(t, s->vertex, label, sizeof label);
      fprintf(fp, "%s\n  {\"kind\": \"%s\", \"value\": ", i ? "," : "",
              part_singleton_kind_name((int)s->kind));
      json_out_string(fp, label);
      fprintf(fp, ", \"degree\": %llu, \"versions\": %llu, \"members\": %u, "
                  "\"ctx\": ",
              (unsigned long long)s->degree, (unsigned long long)s->versions,
              s->members);
      write_ref(fp, t->vcg.vertices[s->vertex].ctx);
      fputs("}", fp);
   }
   fputs(p->nslist ? "\n]" : "]", fp);
}

/* --- the records shown ------------------------------------------------------ */

/* The trace as the page shows it: t itself, or a copy that shares all
 * but the per-record arrays, which hold the kept records. */
typedef struct cvw_shown {
   trace_file t;
   uint64_t accesses_shown, accesses_total;
   uint32_t total;
   int owned;              /* the arrays below are ours */
} cvw_shown;

typedef struct cvw_rank {
   uint64_t count;
   uint32_t index;
} cvw_rank;

static int by_count_desc(const void *a, const void *b)
{
   const cvw_rank *x = a, *y = b;
   if (x->count != y->count)
      return x->count < y->count ? 1 : -1;
   return (x->index > y->index) - (x->index < y->index);
}

static int by_index(const void *a, const void *b)
{
   const cvw_rank *x = a, *y = b;
   return (x->index > y->index) - (x->index < y->index);
}

/* Keeps the `max` records with the most accesses (ties: the earlier),
 * in trace order; all of them when max is 0 or not fewer. */
static int shown_records(const trace_file *t, uint32_t max, cvw_shown *s)
{
   s->t = *t;
   s->owned = 0;
   s->total = t->nevents;
   s->accesses_total = 0;
   for (uint32_t i = 0; i < t->nevents; i++)
      s->accesses_total += t->events[i].count;
   s->accesses_shown = s->accesses_total;
   if (max == 0 || t->nevents <= max)
      return 0;
   cvw_rank *r = malloc((size_t)t->nevents * sizeof *r);
   trace_file *v = &s->t;
   v->events = malloc((size_t)max * sizeof *v->events);
   v->index_loc = malloc((size_t)max * sizeof *v->index_loc);
   v->index_alloc = malloc((size_t)max * sizeof *v->index_alloc);
   v->reuse.events = t->has_reuse ? malloc((size_t)max * sizeof
                                           *v->reuse.events)
                                  : NULL;
   v->event_keys = NULL;
   s->owned = 1;
   if (!r || !v->events || !v->index_loc || !v->index_alloc ||
       (t->has_reuse && !v->reuse.events)) {
      free(r);
      return -1;
   }
   for (uint32_t i = 0; i < t->nevents; i++)
      r[i] = (cvw_rank){ t->events[i].count, i };
   qsort(r, t->nevents, sizeof *r, by_count_desc);
   qsort(r, max, sizeof *r, by_index);
   s->accesses_shown = 0;
   for (uint32_t k = 0; k < max; k++) {
      uint32_t i = r[k].index;
      v->events[k] = t->events[i];
      v->index_loc[k] = t->index_loc[i];
      v->index_alloc[k] = t->index_alloc[i];
      if (t->has_reuse)
         v->reuse.events[k] = t->reuse.events[i];
      s->accesses_shown += t->events[i].count;
   }
   v->nevents = max;
   free(r);
   return 0;
}

static void shown_free(cvw_shown *s)
{
   if (!s->owned)
      return;
   free(s->t.events);
   free(s->t.index_loc);
   free(s->t.index_alloc);
   free(s->t.reuse.events);
}

/* The document into fp (the escaping stream). p is NULL without a
 * projection; `listed` says whether p->slist was computed. */
static int write_data(FILE *fp, const cvw_shown *s,
                      const part_projection *p, int listed)
{
   const trace_file *t = &s->t;
   fputs("{\"cats_view\": 1,\n\"trace\": ", fp);
   if (cli_dump_json(t, fp) != 0)
      return -1;
   fprintf(fp, ",\n\"records\": {\"shown\": %u, \"total\": %u, "
               "\"accesses_shown\": %llu, \"accesses_total\": %llu}",
           t->nevents, s->total, (unsigned long long)s->accesses_shown,
           (unsigned long long)s->accesses_total);
   cli_program prog;
   if (cli_program_init(&prog, t, 0) != 0)
      return -1;
   fprintf(fp, ",\n\"program\": {\"start\": %llu, \"containers\": [",
           (unsigned long long)prog.start);
   for (uint32_t i = 0, first = 1; i < t->nallocs; i++)
      if (prog.ours[i]) {
         fprintf(fp, first ? "%u" : ", %u", i);
         first = 0;
      }
   fputs("], \"scopes\": [", fp);
   for (uint32_t i = 0, first = 1; i < t->ncontexts; i++)
      if (cli_program_context_shown(&prog, t, i)) {
         fprintf(fp, first ? "%u" : ", %u", i);
         first = 0;
      }
   fputs("]}", fp);
   cli_program_free(&prog);
   fputs(",\n\"dependencies\": ", fp);
   if (t->has_deps)
      write_deps(fp, t);
   else
      fputs("null", fp);
   fputs(",\n\"projection\": ", fp);
   if (!p)
      fputs("null", fp);
   else if (part_report_json(fp, p, trace_meta_get(t, "command")) != 0)
      return -1;
   fputs(",\n\"singleton_counts\": ", fp);
   if (p)
      write_singleton_counts(fp, p);
   else
      fputs("null", fp);
   fputs(",\n\"singletons\": ", fp);
   if (p && listed)
      write_singletons(fp, t, p);
   else
      fputs("null", fp);
   fputs("}\n", fp);
   return ferror(fp) ? -1 : 0;
}

/* The page: template head, escaped data, template tail. */
static int write_page(FILE *out, const cvw_shown *t,
                      const part_projection *p, int listed)
{
   if (fwrite(cvw_head, 1, cvw_head_len, out) != cvw_head_len)
      return -1;
   cvw_escaper e = { out, 0 };
   cookie_io_functions_t io = { NULL, esc_write, NULL, esc_close };
   FILE *js = fopencookie(&e, "w", io);
   if (!js)
      return -1;
   int rc = write_data(js, t, p, listed);
   if (fclose(js) != 0)
      rc = -1;
   if (rc == 0 && fwrite(cvw_tail, 1, cvw_tail_len, out) != cvw_tail_len)
      rc = -1;
   return rc == 0 && !ferror(out) ? 0 : -1;
}

/* --- the projection --------------------------------------------------------- */

/* Recompute like `cats project`: the stored options when there are any,
 * then --ranks. Returns CLI_OK with *p filled. */
static int recompute(const trace_file *t, const char *file, const char *ranks,
                     part_projection *p)
{
   part_project_options o;
   part_project_defaults(&o);
   char err[512], spec[PART_REGION_NAMELEN];
   if (t->has_projection) {
      part_projection s;
      if (part_section_read(t->projection, t->projection_len, &s, err, sizeof err))
         return cli_error(CLI_EFILE, "%s: %s", file, err);
      snprintf(spec, sizeof spec, "%s", s.opts.per ? s.opts.per : "");
      o = s.opts;
      o.per = s.opts.per ? spec : NULL;
      part_project_free(&s);
   }
   if (ranks && part_project_parse_ranks(ranks, &o, err, sizeof err) != 0)
      return cli_error(CLI_EUSAGE, "view: %s", err);
   if (!t->has_vcg) {
      char why[512];
      return cli_error(CLI_EFILE, "%s: nothing to project: %s", file,
                       trace_no_graph_reason(t, why, sizeof why));
   }
   if (part_project(t, &o, p, err, sizeof err) != 0)
      return cli_error(CLI_EFILE, "%s: %s", file, err);
   return CLI_OK;
}

int cli_view(int argc, char **argv)
{
   const char *file = NULL, *out = NULL, *ranks = NULL, *max_s = NULL;
   int project = 0;
   const cli_opt opts[] = {
      { "-o", "--output", NULL, &out },
      { "--project", NULL, &project, NULL },
      { "--ranks", NULL, NULL, &ranks },
      { "--max-records", NULL, NULL, &max_s },
      { NULL, NULL, NULL, NULL },
   };
   int rc = cli_parse(argc, argv, opts, &file, 1, VIEW_USAGE);
   if (rc != CLI_OK)
      return rc == CLI_HELP ? CLI_OK : rc;
   uint32_t max_records = VIEW_MAX_RECORDS;
   if (max_s) {
      char *end;
      unsigned long long m = strtoull(max_s, &end, 10);
      if (*max_s < '0' || *max_s > '9' || *end || m > UINT32_MAX)
         return cli_error(CLI_EUSAGE, "view: --max-records=%s: expected a "
                          "number of records (0: all)", max_s);
      max_records = (uint32_t)m;
   }
   if (ranks) {
      part_project_options check;
      char err[256];
      part_project_defaults(&check);
      if (part_project_parse_ranks(ranks, &check, err, sizeof err) != 0)
         return cli_error(CLI_EUSAGE, "view: %s", err);
      project = 1;
   }

   trace_file *t;
   if ((rc = cli_load(file, &t)) != CLI_OK)
      return rc;
   part_projection proj, *p = NULL;
   char err[512];
   if (project) {
      if ((rc = recompute(t, file, ranks, &proj)) != CLI_OK) {
         trace_free(t);
         return rc;
      }
      p = &proj;
   } else if (t->has_projection) {
      if (part_section_read(t->projection, t->projection_len, &proj, err,
                            sizeof err) != 0) {
         trace_free(t);
         return cli_error(CLI_EFILE, "%s: %s", file, err);
      }
      p = &proj;
   }
   cvw_shown shown;
   cli_outfile f;
   if (shown_records(t, max_records, &shown) != 0) {
      rc = cli_error(CLI_EFILE, "%s: out of memory", file);
   } else if (cli_outfile_open(&f, out, err, sizeof err) != 0) {
      rc = cli_error(CLI_EFILE, "%s", err);
   } else {
      int ok = write_page(f.fp, &shown, p, project) == 0;
      if (cli_outfile_close(&f, ok, err, sizeof err) != 0)
         rc = ok ? cli_error(CLI_EFILE, "%s", err)
                 : cli_error(CLI_EFILE, "%s: cannot write the page",
                             out && strcmp(out, "-") ? out : "stdout");
   }
   shown_free(&shown);
   if (p)
      part_project_free(p);
   trace_free(t);
   return rc;
}
