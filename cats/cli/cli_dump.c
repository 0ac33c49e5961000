/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cli_dump.c: `cats dump [--json] FILE [-o OUT]`.
 *
 * The text form is for people: the run's metadata, the context tree
 * indented by depth, the containers, then the access records grouped under
 * the context they happened in (in tree order), one line each. The JSON
 * form (cli_dump_json.c) is for programs. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_outfile.h"
#include "cats/trace/trace_names.h"

#define DUMP_MAX_INDENT 32   /* deeper levels are indented like level 32 */

/* Contexts in depth-first order (children by id); NULL if out of memory. */
static uint32_t *preorder(const trace_file *t, const cli_tree *tree)
{
   size_t n = t->ncontexts ? t->ncontexts : 1;
   uint32_t *order = malloc(n * sizeof *order);
   uint32_t *stack = malloc(n * sizeof *stack);
   if (!order || !stack) {
      free(order);
      free(stack);
      return NULL;
   }
   size_t k = 0;
   for (uint32_t r = 0; r < t->ncontexts; r++) {
      if (t->contexts[r].parent != CATS_NONE)
         continue;
      size_t sp = 0;
      stack[sp++] = r;
      while (sp > 0) {
         uint32_t c = stack[--sp];
         order[k++] = c;
         /* Push children in reverse so the smallest id is visited first. */
         size_t base = sp;
         for (uint32_t ch = tree->first[c]; ch != CATS_NONE;
              ch = tree->next[ch])
            stack[sp++] = ch;
         for (size_t a = base, b = sp; a + 1 < b; a++, b--) {
            uint32_t tmp = stack[a];
            stack[a] = stack[b - 1];
            stack[b - 1] = tmp;
         }
      }
   }
   free(stack);
   return order;
}

static void indent(FILE *fp, uint32_t depth)
{
   uint32_t d = depth > DUMP_MAX_INDENT ? DUMP_MAX_INDENT : depth;
   fprintf(fp, "%*s", (int)(2 + 2 * d), "");
}

static void dump_context(const trace_file *t, uint32_t id, FILE *fp)
{
   const trace_context *c = &t->contexts[id];
   char where[512];
   cli_loc_str(t, c->loc, where, sizeof where);
   indent(fp, c->depth);
   fprintf(fp, "[%u] ", id);
   /* Loops and conditionals are named by where they are; the others by
    * their name ("thread 1", the function, region or handler). */
   if (c->kind == CATS_CTX_LOOP)
      fputs("loop", fp);
   else if (c->kind == CATS_CTX_CONDITIONAL)
      fputs("if", fp);
   else {
      if (c->kind != CATS_CTX_THREAD)
         fprintf(fp, "%s ", trace_names_ctx_kind(c->kind));
      cli_text(fp, trace_str(t, c->name));
   }
   if (where[0]) {
      fputs("  ", fp);
      cli_text(fp, where);
   }
   fprintf(fp, "  entries %llu", (unsigned long long)c->entries);
   if (c->kind == CATS_CTX_LOOP)
      fprintf(fp, "  iterations %llu (max %llu)",
              (unsigned long long)c->iterations,
              (unsigned long long)c->max_iterations);
   fprintf(fp, "  time %llu..%llu", (unsigned long long)c->first_time,
           (unsigned long long)c->last_time);
   if (c->flags & CATS_CTXFLAG_RECURSIVE)
      fputs("  recursive", fp);
   if (c->depth > DUMP_MAX_INDENT)
      fprintf(fp, "  (depth %u)", c->depth);
   fputc('\n', fp);
}

/* A reuse histogram on one line: cold count, then "b:count" for the
 * non-empty log2 buckets (b 0: distance 0; b: 2^(b-1) <= d < 2^b). */
static void dump_reuse(FILE *fp, const char *pad, const trace_reuse_hist *h)
{
   fprintf(fp, "%sreuse cold %llu", pad, (unsigned long long)h->cold);
   for (unsigned b = 0; b < TRACE_REUSE_BUCKETS; b++)
      if (h->bucket[b])
         fprintf(fp, " %u:%llu", b, (unsigned long long)h->bucket[b]);
   fputc('\n', fp);
}

static void dump_alloc(const trace_file *t, uint32_t id, FILE *fp)
{
   const trace_alloc *a = &t->allocs[id];
   char where[512], ctx[512];
   fprintf(fp, "  [%u] %s \"", id, trace_names_alloc_kind(a->kind));
   cli_text(fp, trace_str(t, a->name));
   fprintf(fp, "\"  %llu B x %llu (max live %llu)\n",
           (unsigned long long)a->size, (unsigned long long)a->count,
           (unsigned long long)a->max_live);
   cli_loc_str(t, a->alloc_loc, where, sizeof where);
   fputs("      allocated ", fp);
   cli_text(fp, where);
   fputs(where[0] ? " " : "", fp);
   if (a->alloc_ctx != CATS_NONE) {
      cli_ctx_label(t, a->alloc_ctx, ctx, sizeof ctx);
      fprintf(fp, "in [%u] ", a->alloc_ctx);
      cli_text(fp, ctx);
      fputs("  ", fp);
   }
   fprintf(fp, "time %llu..%llu  total %llu B\n",
           (unsigned long long)a->first_alloc,
           (unsigned long long)a->last_alloc,
           (unsigned long long)a->total_bytes);
   if (a->free_ctx != CATS_NONE || a->free_loc != CATS_NONE ||
       a->last_free != 0) {
      cli_loc_str(t, a->free_loc, where, sizeof where);
      if (a->free_ctx != CATS_NONE)
         cli_ctx_label(t, a->free_ctx, ctx, sizeof ctx);
      fputs("      released ", fp);
      cli_text(fp, where);
      fputs(where[0] ? " " : "", fp);
      if (a->free_ctx != CATS_NONE) {
         fprintf(fp, "in [%u] ", a->free_ctx);
         cli_text(fp, ctx);
         fputs("  ", fp);
      }
      fprintf(fp, "time %llu..%llu\n", (unsigned long long)a->first_free,
              (unsigned long long)a->last_free);
   }
   if (a->flags || a->realloc_from != CATS_NONE) {
      fputs("     ", fp);
      if (a->flags & CATS_ALLOCFLAG_LEAKED)
         fputs(" never-freed", fp);
      if (a->flags & CATS_ALLOCFLAG_CONDITIONAL)
         fputs(" conditional", fp);
      if (a->realloc_from != CATS_NONE)
         fprintf(fp, " realloc-from [%u]", a->realloc_from);
      fputc('\n', fp);
   }
   if (t->has_reuse)
      dump_reuse(fp, "      ", &t->reuse.allocs[id]);
}

static void dump_i64_list(FILE *fp, const char *label, const int64_t *v,
                          unsigned n)
{
   fprintf(fp, " %s [", label);
   for (unsigned k = 0; k < n; k++)
      fprintf(fp, "%s%lld", k ? ", " : "", (long long)v[k]);
   fputc(']', fp);
}

static void dump_event(const trace_file *t, uint32_t id, FILE *fp)
{
   const trace_event *e = &t->events[id];
   const trace_loc *l = &t->locs[e->loc];
   char where[512];
   cli_loc_str(t, e->loc, where, sizeof where);
   fputs("      ", fp);
   cli_text(fp, where);
   fputc(' ', fp);
   cli_text(fp, trace_str(t, l->function));
   fprintf(fp, "  %s \"", e->kind == CATS_WRITE ? "w" : "r");
   cli_text(fp, trace_str(t, t->allocs[e->alloc].name));
   fprintf(fp, "\"  %s  %u B x %llu  time %llu..%llu\n",
           trace_names_pattern(e->pattern), e->size, (unsigned long long)e->count,
           (unsigned long long)e->first_time,
           (unsigned long long)e->last_time);
   fprintf(fp, "        base %lld", (long long)e->base);
   dump_i64_list(fp, "strides", e->stride, e->ndims);
   fputs(" extents [", fp);
   for (unsigned k = 0; k < e->ndims; k++)
      fprintf(fp, "%s%llu", k ? ", " : "", (unsigned long long)e->extent[k]);
   fprintf(fp, "] offsets %lld..%lld", (long long)e->min_offset,
           (long long)e->max_offset);
   if (e->pattern == CATS_PAT_IRREGULAR) {
      dump_i64_list(fp, "distinct", e->distinct, e->ndistinct);
      fputs(" histogram [", fp);
      for (unsigned k = 0; k < CATS_HIST_BUCKETS; k++)
         fprintf(fp, "%s%u", k ? " " : "", e->hist[k]);
      fputc(']', fp);
   }
   if (e->flags & CATS_EVFLAG_HELPER)
      fputs(" helper", fp);
   fputc('\n', fp);
   if (t->has_index && t->index_alloc[id] != CATS_NONE) {
      fprintf(fp, "        index from [%u] \"", t->index_alloc[id]);
      cli_text(fp, trace_str(t, t->allocs[t->index_alloc[id]].name));
      fputs("\"\n", fp);
   }
   if (t->has_reuse)
      dump_reuse(fp, "        ", &t->reuse.events[id]);
}

/* Events bucketed by context: idx[start[c] .. start[c+1]) are the events
 * of context c in id order (a counting sort, O(events + contexts)). */
static int bucket_events(const trace_file *t, uint32_t **start_out,
                         uint32_t **idx_out)
{
   uint32_t *start = calloc((size_t)t->ncontexts + 1, sizeof *start);
   uint32_t *idx = malloc(((size_t)t->nevents + 1) * sizeof *idx);
   if (!start || !idx) {
      free(start);
      free(idx);
      return -1;
   }
   for (uint32_t i = 0; i < t->nevents; i++)
      start[t->events[i].ctx + 1]++;
   for (uint32_t c = 0; c < t->ncontexts; c++)
      start[c + 1] += start[c];
   uint32_t *fill = malloc(((size_t)t->ncontexts + 1) * sizeof *fill);
   if (!fill) {
      free(start);
      free(idx);
      return -1;
   }
   memcpy(fill, start, ((size_t)t->ncontexts + 1) * sizeof *fill);
   for (uint32_t i = 0; i < t->nevents; i++)
      idx[fill[t->events[i].ctx]++] = i;
   free(fill);
   *start_out = start;
   *idx_out = idx;
   return 0;
}

int cli_dump_text(const trace_file *t, FILE *fp)
{
   cli_tree tree;
   if (cli_tree_build(t, &tree) != 0)
      return -1;
   uint32_t *order = preorder(t, &tree);
   uint32_t *start = NULL, *idx = NULL;
   if (!order || bucket_events(t, &start, &idx) != 0) {
      free(order);
      cli_tree_free(&tree);
      return -1;
   }

   fprintf(fp, "meta:\n");
   for (uint32_t i = 0; i < t->nmeta; i++) {
      const char *k = trace_str(t, t->meta[i].key);
      fputs("  ", fp);
      cli_text(fp, k);
      fprintf(fp, "%*s ", strlen(k) < 24 ? (int)(24 - strlen(k)) : 0, "");
      cli_text(fp, trace_str(t, t->meta[i].value));
      fputc('\n', fp);
   }

   fprintf(fp, "\ncontexts: %u\n", t->ncontexts);
   for (uint32_t k = 0; k < t->ncontexts; k++)
      dump_context(t, order[k], fp);

   if (t->has_reuse)
      fprintf(fp, "\nreuse: %u-byte lines, 1 in %u sampled; buckets by "
                  "log2 distance (0: distance 0, b: 2^(b-1) <= d < 2^b)\n",
              t->reuse.line_size, t->reuse.sampling);

   fprintf(fp, "\nallocations: %u\n", t->nallocs);
   for (uint32_t i = 0; i < t->nallocs; i++)
      dump_alloc(t, i, fp);

   fprintf(fp, "\nevents: %u\n", t->nevents);
   for (uint32_t k = 0; k < t->ncontexts; k++) {
      uint32_t c = order[k];
      if (start[c] == start[c + 1])
         continue;
      fprintf(fp, "  [%u] ", c);
      cli_print_path(t, c, fp);
      fputc('\n', fp);
      for (uint32_t j = start[c]; j < start[c + 1]; j++)
         dump_event(t, idx[j], fp);
   }

   free(start);
   free(idx);
   free(order);
   cli_tree_free(&tree);
   return ferror(fp) ? -1 : 0;
}

int cli_dump(int argc, char **argv)
{
   int json = 0;
   const char *out = NULL, *file = NULL;
   const cli_opt opts[] = {
      { "--json", NULL, &json, NULL },
      { "-o", "--output", NULL, &out },
      { NULL, NULL, NULL, NULL },
   };
   int rc = cli_parse(argc, argv, opts, &file, 1,
                      "cats dump [--json] FILE [-o OUT]");
   if (rc != CLI_OK)
      return rc == CLI_HELP ? CLI_OK : rc;

   trace_file *t;
   if ((rc = cli_load_without_graph(file, &t)) != CLI_OK)
      return rc;
   char err[512];
   cli_outfile f;
   if (cli_outfile_open(&f, out, err, sizeof err) != 0) {
      trace_free(t);
      return cli_error(CLI_EFILE, "%s", err);
   }
   int ok = (json ? cli_dump_json(t, f.fp) : cli_dump_text(t, f.fp)) == 0;
   trace_free(t);
   if (cli_outfile_close(&f, ok, err, sizeof err) != 0) {
      if (ok)
         return cli_error(CLI_EFILE, "%s", err);
      return cli_error(CLI_EFILE, "%s: cannot write the dump",
                       out ? out : "stdout");
   }
   return CLI_OK;
}
