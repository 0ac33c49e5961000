/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cli_export.c: `cats export --cats-viz [--page=P] [--whole-run] FILE
 * [-o OUT]`, the files the public C.A.T.S. viewer (spcl/cats-viz) loads:
 * the memory timeline (cli_export_timeline.c), the access statistics and
 * the control-flow view (cli_export_pages.c), each in the form that page's
 * parser reads (tests/vizcheck.py holds its rules). By default the files
 * show the program's own work (cli_export.h): the dynamic loader's and
 * libc's start-up and globals otherwise take most of the timeline. */
#include <stdlib.h>
#include <string.h>

#include "cli_export.h"
#include "cli_outfile.h"
#include "cats/trace/json_out.h"

typedef struct cli_export_name {
   const char *name;
   uint32_t id;
} cli_export_name;

static int cmp_name(const void *pa, const void *pb)
{
   const cli_export_name *a = pa, *b = pb;
   int r = strcmp(a->name, b->name);
   return r ? r : (a->id > b->id) - (a->id < b->id);
}

uint8_t *cli_export_shared_names(const trace_file *t)
{
   uint8_t *dup = calloc((size_t)t->nallocs + 1, 1);
   cli_export_name *v = malloc(((size_t)t->nallocs + 1) * sizeof *v);
   if (!dup || !v) {
      free(dup);
      free(v);
      return NULL;
   }
   for (uint32_t i = 0; i < t->nallocs; i++)
      v[i] = (cli_export_name){ trace_str(t, t->allocs[i].name), i };
   qsort(v, t->nallocs, sizeof *v, cmp_name);
   for (uint32_t k = 1; k < t->nallocs; k++)
      if (strcmp(v[k].name, v[k - 1].name) == 0)
         dup[v[k].id] = dup[v[k - 1].id] = 1;
   free(v);
   return dup;
}

void cli_export_buffer_name(const trace_file *t, FILE *fp, uint32_t id,
                            const uint8_t *dup)
{
   const char *name = trace_str(t, t->allocs[id].name);
   if (!dup[id]) {
      json_out_string(fp, name);
      return;
   }
   size_t n = strlen(name) + 16;
   char *s = malloc(n);
   if (!s) {
      json_out_string(fp, name);
      return;
   }
   snprintf(s, n, "%s #%u", name, id);
   json_out_string(fp, s);
   free(s);
}

int cli_export_nothing(const cli_program *v, char *err, size_t errlen)
{
   snprintf(err, errlen, "nothing to draw: no container is accessed%s",
            v->start ? " after main (--whole-run exports the whole run)" : "");
   return -1;
}

int cli_export(int argc, char **argv)
{
   int viz = 0, whole = 0;
   const char *out = NULL, *file = NULL, *page = "timeline";
   const cli_opt opts[] = {
      { "--cats-viz", NULL, &viz, NULL },
      { "--whole-run", NULL, &whole, NULL },
      { "--page", NULL, NULL, &page },
      { "-o", "--output", NULL, &out },
      { NULL, NULL, NULL, NULL },
   };
   const char *usage = "cats export --cats-viz [--page=timeline|stats|"
                       "control-flow] [--whole-run] FILE [-o OUT]";
   int rc = cli_parse(argc, argv, opts, &file, 1, usage);
   if (rc != CLI_OK)
      return rc == CLI_HELP ? CLI_OK : rc;
   if (!viz)
      return cli_error(CLI_EUSAGE, "export: choose a format: --cats-viz "
                       "(usage: %s)", usage);
   int (*write)(const trace_file *, const cli_program *, FILE *, char *,
                size_t) =
      strcmp(page, "timeline") == 0       ? cli_export_timeline
      : strcmp(page, "stats") == 0        ? cli_export_stats
      : strcmp(page, "control-flow") == 0 ? cli_export_control_flow
                                          : NULL;
   if (!write)
      return cli_error(CLI_EUSAGE, "export: unknown page '%s': timeline, "
                       "stats or control-flow", page);

   trace_file *t;
   if ((rc = cli_load_without_graph(file, &t)) != CLI_OK)
      return rc;
   char err[512] = "";
   cli_outfile f;
   if (cli_outfile_open(&f, out, err, sizeof err) != 0) {
      trace_free(t);
      return cli_error(CLI_EFILE, "%s", err);
   }
   char why[512] = "";
   cli_program v;
   int ok = cli_program_init(&v, t, whole) == 0;
   if (!ok)
      snprintf(why, sizeof why, "out of memory");
   ok = ok && write(t, &v, f.fp, why, sizeof why) == 0;
   cli_program_free(&v);
   trace_free(t);
   if (cli_outfile_close(&f, ok, err, sizeof err) != 0) {
      if (ok)
         return cli_error(CLI_EFILE, "%s", err);
      if (why[0])
         return cli_error(CLI_EFILE, "%s: %s", file, why);
      return cli_error(CLI_EFILE, "%s: cannot write the export",
                       out ? out : "stdout");
   }
   return CLI_OK;
}
