/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cli_project.c: `cats project FILE`, the projected SPMD communication of
 * a trace for a list of rank counts (partition/part_project.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "partition/part_project.h"
#include "partition/part_report.h"
#include "partition/part_section.h"
#include "cli.h"
#include "cli_outfile.h"

#define PROJECT_USAGE                                                       \
   "cats project FILE [--ranks=2,4,8] [--per=NAME|FILE:LINE|run] "          \
   "[--singleton-threshold=0.9] [--partitioner=best|kway|volume|rb] "       \
   "[--decomposition=auto|metis|grid] [--grid=AxB[xC],...] "                \
   "[--seed=N] [--tries=N] [--imbalance=1.03] [--contig=auto|yes|no] "      \
   "[--alpha=S] [--beta=S/B] "                                              \
   "[--json OUT] [--csv PREFIX] [--parts PREFIX] [--singletons] [--stored]"

/* Projection options in the order of part_project_set_option's names. */
static const char *const opt_names[] = { "ranks", "per",
                                         "singleton-threshold",
                                         "partitioner", "decomposition", "grid",
                                         "seed", "tries",
                                         "imbalance",
                                         "contig", "alpha", "beta" };
#define NOPTS (sizeof opt_names / sizeof opt_names[0])

static int write_json(const part_projection *p, const char *path,
                      const char *program)
{
   char err[512];
   cli_outfile f;
   if (cli_outfile_open(&f, path, err, sizeof err) != 0)
      return cli_error(CLI_EFILE, "%s", err);
   int ok = part_report_json(f.fp, p, program) == 0;
   if (cli_outfile_close(&f, ok, err, sizeof err) != 0)
      return cli_error(CLI_EFILE, "%s", err);
   return CLI_OK;
}

static int write_csv(const part_projection *p, const char *prefix)
{
   for (uint32_t i = 0; i < p->nresults; i++) {
      char path[4096], err[512];
      snprintf(path, sizeof path, "%s.%u.csv", prefix, p->results[i].nranks);
      cli_outfile f;
      if (cli_outfile_open(&f, path, err, sizeof err) != 0)
         return cli_error(CLI_EFILE, "%s", err);
      int ok = part_report_csv(f.fp, &p->results[i]) == 0;
      if (cli_outfile_close(&f, ok, err, sizeof err) != 0)
         return cli_error(CLI_EFILE, "%s", err);
   }
   return CLI_OK;
}

static void print_singletons(const trace_file *t, const part_projection *p)
{
   printf("singletons (kind, degree, versions, members, value):\n");
   for (uint32_t i = 0; i < p->nslist; i++) {
      const part_project_singleton *s = &p->slist[i];
      char label[CLI_VCG_LABEL];
      cli_vcg_label(t, s->vertex, label, sizeof label);
      printf("  %-10s %8llu %8llu %6u  %s", part_singleton_kind_name((int)s->kind),
             (unsigned long long)s->degree, (unsigned long long)s->versions,
             s->members, label);
      uint32_t c = t->vcg.vertices[s->vertex].ctx;
      if (c != CATS_NONE) {
         fputs("  in ", stdout);
         cli_print_path(t, c, stdout);
      }
      putchar('\n');
   }
}

/* PREFIX.N.txt per rank count: "RANK VALUE" per vertex, the value as
 * `cats vcg --vertices` names it; "-" for singletons (on every rank). */
static int write_parts(const trace_file *t, const part_projection *p,
                       const char *prefix)
{
   for (uint32_t i = 0; i < p->nresults; i++) {
      const part_comm_result *r = &p->results[i];
      char path[4096], err[512], label[CLI_VCG_LABEL];
      snprintf(path, sizeof path, "%s.%u.txt", prefix, r->nranks);
      cli_outfile f;
      if (cli_outfile_open(&f, path, err, sizeof err) != 0)
         return cli_error(CLI_EFILE, "%s", err);
      for (uint32_t v = 0; v < t->vcg.nvertices; v++) {
         cli_vcg_label(t, v, label, sizeof label);
         if (r->vertex_part[v] == UINT32_MAX)
            fprintf(f.fp, "- %s\n", label);
         else
            fprintf(f.fp, "%u %s\n", r->vertex_part[v], label);
      }
      if (cli_outfile_close(&f, 1, err, sizeof err) != 0)
         return cli_error(CLI_EFILE, "%s", err);
   }
   return CLI_OK;
}

/* With no options the projection stored in the trace is recomputed with
 * the options it was made with, which reproduces it exactly. */
static int options_from_stored(const trace_file *t, const char *file,
                               part_project_options *o, char *spec, size_t speclen)
{
   part_projection s;
   char err[256];
   if (part_section_read(t->projection, t->projection_len, &s, err, sizeof err))
      return cli_error(CLI_EFILE, "%s: %s", file, err);
   const char *per = s.opts.per;
   snprintf(spec, speclen, "%s", per ? per : "");
   *o = s.opts;
   o->per = per ? spec : NULL;
   part_project_free(&s);
   return CLI_OK;
}

static int show_stored(const trace_file *t, const char *file,
                       const char *json, const char *csv)
{
   if (!t->has_projection)
      return cli_error(CLI_EFILE, "%s: no stored projection (run the tool "
                                  "with --ranks=LIST)", file);
   part_projection p;
   char err[256];
   if (part_section_read(t->projection, t->projection_len, &p, err, sizeof err))
      return cli_error(CLI_EFILE, "%s: %s", file, err);
   part_report_table(stdout, &p, "");
   int rc = CLI_OK;
   if (json)
      rc = write_json(&p, json, trace_meta_get(t, "command"));
   if (rc == CLI_OK && csv)
      rc = write_csv(&p, csv);
   part_project_free(&p);
   return rc;
}

int cli_project(int argc, char **argv)
{
   const char *file = NULL, *json = NULL, *csv = NULL, *parts = NULL;
   const char *vals[NOPTS] = { NULL };
   int stored = 0, singletons = 0;
   cli_opt opts[NOPTS + 6];
   char names[NOPTS][32];
   for (size_t i = 0; i < NOPTS; i++) {
      snprintf(names[i], sizeof names[i], "--%s", opt_names[i]);
      opts[i] = (cli_opt){ names[i], NULL, NULL, &vals[i] };
   }
   opts[NOPTS] = (cli_opt){ "--json", NULL, NULL, &json };
   opts[NOPTS + 1] = (cli_opt){ "--csv", NULL, NULL, &csv };
   opts[NOPTS + 2] = (cli_opt){ "--stored", NULL, &stored, NULL };
   opts[NOPTS + 3] = (cli_opt){ "--singletons", NULL, &singletons, NULL };
   opts[NOPTS + 4] = (cli_opt){ "--parts", NULL, NULL, &parts };
   opts[NOPTS + 5] = (cli_opt){ NULL, NULL, NULL, NULL };
   int rc = cli_parse(argc, argv, opts, &file, 1, PROJECT_USAGE);
   if (rc != CLI_OK)
      return rc == CLI_HELP ? CLI_OK : rc;
   part_project_options o;
   part_project_defaults(&o);
   char err[512];
   int any = 0;
   for (size_t i = 0; i < NOPTS; i++) {
      if (!vals[i])
         continue;
      any = 1;
      if (part_project_set_option(&o, opt_names[i], vals[i], err, sizeof err) != 0)
         return cli_error(CLI_EUSAGE, "project: %s", err);
   }
   trace_file *t;
   if ((rc = cli_load(file, &t)) != CLI_OK)
      return rc;
   if (stored) {
      rc = show_stored(t, file, json, csv);
      trace_free(t);
      return rc == CLI_OK && fflush(stdout) != 0
                ? cli_error(CLI_EFILE, "stdout: write error")
                : rc;
   }
   char spec[PART_REGION_NAMELEN];
   if (!any && t->has_projection &&
       (rc = options_from_stored(t, file, &o, spec, sizeof spec)) != CLI_OK) {
      trace_free(t);
      return rc;
   }
   o.keep_parts = parts != NULL;
   part_projection p;
   if (part_project(t, &o, &p, err, sizeof err) != 0) {
      trace_free(t);
      return cli_error(CLI_EFILE, "%s: %s", file, err);
   }
   part_report_table(stdout, &p, "");
   const char *cut = trace_meta_get(t, "vcg_cut");
   if (cut)
      printf("note: %s; the projection is of that part of the run\n", cut);
   if (singletons)
      print_singletons(t, &p);
   if (json)
      rc = write_json(&p, json, trace_meta_get(t, "command"));
   if (rc == CLI_OK && csv)
      rc = write_csv(&p, csv);
   if (rc == CLI_OK && parts)
      rc = write_parts(t, &p, parts);
   part_project_free(&p);
   trace_free(t);
   if (rc == CLI_OK && (fflush(stdout) != 0 || ferror(stdout)))
      rc = cli_error(CLI_EFILE, "stdout: write error");
   return rc;
}
