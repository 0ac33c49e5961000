/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cli_stat.c: `cats stat FILE`: a one-screen summary of a trace.
 *
 * Record counts by kind and pattern, access totals, the peak footprint the
 * tool measured (META), the largest containers by size x max_live (the
 * memory they can pin at once), the busiest access sites and the deepest
 * context paths. Containers are the program's own (cli_program.h), sites
 * and paths those under `main` when the trace has one: start-up code and
 * the tables of ld.so and libc are not what a reader looks for; --all
 * shows them. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_program.h"
#include "cats/trace/trace_names.h"
#include "cats/trace/trace_scope.h"

#define STAT_TOP_CONTAINERS 10
#define STAT_TOP_PATHS 5
#define STAT_TOP_SITES 10

/* Sort keys copied into the array so qsort needs no context. */
typedef struct st_key {
   uint64_t key;     /* larger first */
   uint32_t id;      /* then smaller id first */
} st_key;

static int cmp_key(const void *pa, const void *pb)
{
   const st_key *a = pa, *b = pb;
   if (a->key != b->key)
      return a->key > b->key ? -1 : 1;
   return (a->id > b->id) - (a->id < b->id);
}

static void print_meta(const trace_file *t, FILE *fp, const char *label,
                       const char *key, const char *unit)
{
   const char *v = trace_meta_get(t, key);
   fprintf(fp, "%-24s ", label);
   cli_text(fp, v ? v : "n/a");
   fprintf(fp, "%s\n", v ? unit : "");
}

static void counts(const trace_file *t, FILE *fp)
{
   uint64_t ctx[CATS_CTX_SIGNAL + 1] = { 0 };
   for (uint32_t i = 0; i < t->ncontexts; i++)
      ctx[t->contexts[i].kind]++;
   fprintf(fp, "%-24s %u\n", "contexts", t->ncontexts);
   for (int k = 0; k <= CATS_CTX_SIGNAL; k++)
      if (ctx[k])
         fprintf(fp, "  %-22s %llu\n", trace_names_ctx_kind((uint8_t)k),
                 (unsigned long long)ctx[k]);

   uint64_t rec[CATS_ALLOC_KIND_COUNT] = { 0 }, inst[CATS_ALLOC_KIND_COUNT] =
      { 0 }, total_inst = 0;
   for (uint32_t i = 0; i < t->nallocs; i++) {
      rec[t->allocs[i].kind]++;
      inst[t->allocs[i].kind] += t->allocs[i].count;
      total_inst += t->allocs[i].count;
   }
   fprintf(fp, "%-24s %u records, %llu instances\n", "allocations",
           t->nallocs, (unsigned long long)total_inst);
   for (int k = 0; k < CATS_ALLOC_KIND_COUNT; k++)
      if (rec[k])
         fprintf(fp, "  %-22s %llu records, %llu instances\n",
                 trace_names_alloc_kind((uint8_t)k), (unsigned long long)rec[k],
                 (unsigned long long)inst[k]);

   uint64_t pat[CATS_PAT_IRREGULAR + 1] = { 0 }, accesses = 0;
   for (uint32_t i = 0; i < t->nevents; i++) {
      pat[t->events[i].cls]++;
      accesses += t->events[i].count;
   }
   fprintf(fp, "%-24s %u\n", "event records", t->nevents);
   for (int k = 0; k <= CATS_PAT_IRREGULAR; k++)
      if (pat[k])
         fprintf(fp, "  %-22s %llu\n", trace_names_pattern((uint8_t)k),
                 (unsigned long long)pat[k]);
   fprintf(fp, "%-24s %llu\n", "accesses", (unsigned long long)accesses);
   print_meta(t, fp, "unattributed accesses", "accesses_unattributed", "");
   print_meta(t, fp, "peak footprint", "peak_footprint", " bytes");
}

/* The program's own containers (cli_program.h), or all of them; the
 * others are counted in one line. */
static int largest(const trace_file *t, const cli_program *prog, FILE *fp)
{
   st_key *k = malloc(((size_t)t->nallocs + 1) * sizeof *k);
   if (!k)
      return -1;
   uint32_t n = 0, others = 0;
   uint64_t other_bytes = 0;
   for (uint32_t i = 0; i < t->nallocs; i++) {
      uint64_t bytes = cli_mul_sat(t->allocs[i].size, t->allocs[i].max_live);
      if (prog->ours[i]) {
         k[n++] = (st_key){ bytes, i };
      } else {
         others++;
         other_bytes = other_bytes + bytes < other_bytes ? UINT64_MAX
                                                         : other_bytes + bytes;
      }
   }
   qsort(k, n, sizeof *k, cmp_key);
   fprintf(fp, "\nlargest containers (size x max live)%s:\n",
           others ? " of the program" : "");
   for (uint32_t r = 0; r < n && r < STAT_TOP_CONTAINERS; r++) {
      const trace_alloc *a = &t->allocs[k[r].id];
      fprintf(fp, "  %2u. %-11s %llu B x %llu = %llu B  \"", r + 1,
              trace_names_alloc_kind(a->kind), (unsigned long long)a->size,
              (unsigned long long)a->max_live, (unsigned long long)k[r].key);
      cli_text(fp, trace_str(t, a->name));
      fputs("\"\n", fp);
   }
   if (others)
      fprintf(fp, "  and %u containers of libc, ld.so and other system code, "
                  "%llu B (--all lists them)\n", others,
              (unsigned long long)other_bytes);
   free(k);
   return 0;
}

static int busiest(const trace_file *t, const uint8_t *in_main, FILE *fp)
{
   st_key *k = malloc(((size_t)t->nevents + 1) * sizeof *k);
   if (!k)
      return -1;
   uint32_t n = 0;
   for (uint32_t i = 0; i < t->nevents; i++)
      if (in_main[t->events[i].ctx])
         k[n++] = (st_key){ t->events[i].count, i };
   qsort(k, n, sizeof *k, cmp_key);
   fprintf(fp, "\nbusiest access sites:\n");
   for (uint32_t r = 0; r < n && r < STAT_TOP_SITES; r++) {
      const trace_event *e = &t->events[k[r].id];
      char where[512];
      cli_loc_str(t, e->loc, where, sizeof where);
      fprintf(fp, "  %2u. %12llu %c %-9s %3u B  ", r + 1,
              (unsigned long long)e->count, e->kind == CATS_WRITE ? 'w' : 'r',
              trace_names_pattern(e->cls), e->size);
      cli_text(fp, where);
      fputs("  \"", fp);
      cli_text(fp, trace_str(t, t->allocs[e->alloc].name));
      /* Where in the container: the instructions of one line that read
         a stencil's neighbours differ only there. */
      fprintf(fp, "\" from offset %lld\n", (long long)e->base);
   }
   free(k);
   return 0;
}

static int deepest(const trace_file *t, const uint8_t *in_main, FILE *fp)
{
   cli_tree tree;
   if (cli_tree_build(t, &tree) != 0)
      return -1;
   st_key *k = malloc(((size_t)t->ncontexts + 1) * sizeof *k);
   if (!k) {
      cli_tree_free(&tree);
      return -1;
   }
   /* Leaves only: an inner node's path is a prefix of a deeper one. */
   uint32_t n = 0;
   for (uint32_t i = 0; i < t->ncontexts; i++)
      if (tree.first[i] == CATS_NONE && in_main[i])
         k[n++] = (st_key){ t->contexts[i].depth, i };
   qsort(k, n, sizeof *k, cmp_key);
   fprintf(fp, "\ndeepest contexts:\n");
   for (uint32_t r = 0; r < n && r < STAT_TOP_PATHS; r++) {
      fprintf(fp, "  %2llu  ", (unsigned long long)k[r].key);
      cli_print_path(t, k[r].id, fp);
      fputc('\n', fp);
   }
   free(k);
   cli_tree_free(&tree);
   return 0;
}

int cli_stat(int argc, char **argv)
{
   const char *file = NULL;
   int all = 0;
   const cli_opt opts[] = { { "--all", NULL, &all, NULL },
                            { NULL, NULL, NULL, NULL } };
   int rc = cli_parse(argc, argv, opts, &file, 1, "cats stat [--all] FILE");
   if (rc != CLI_OK)
      return rc == CLI_HELP ? CLI_OK : rc;
   trace_file *t;
   if ((rc = cli_load_without_graph(file, &t)) != CLI_OK)
      return rc;
   counts(t, stdout);
   uint8_t *in_main = malloc((size_t)t->ncontexts + 1);
   cli_program prog = { 0, CATS_NONE, NULL };
   int bad = in_main == NULL || cli_program_init(&prog, t, all) != 0;
   int64_t n = bad || all ? 0 : trace_program_contexts(t, in_main);
   bad = bad || n < 0;
   if (!bad && n == 0)
      memset(in_main, 1, t->ncontexts);   /* no main: everything counts */
   bad = bad || largest(t, &prog, stdout) != 0 ||
         busiest(t, in_main, stdout) != 0 || deepest(t, in_main, stdout) != 0;
   cli_program_free(&prog);
   free(in_main);
   trace_free(t);
   if (bad)
      return cli_error(CLI_EFILE, "%s: out of memory", file);
   if (fflush(stdout) != 0 || ferror(stdout))
      return cli_error(CLI_EFILE, "stdout: write error");
   return CLI_OK;
}
