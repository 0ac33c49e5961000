/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cli_export_pages.c: the access statistics and control-flow pages of
 * spcl/cats-viz.
 *
 * Statistics: {"all_cfg_stats": [one entry for the program]}, with one
 * entry per container (the viewer merges entries of one name across its
 * list by replacing them, so each container is listed once) and its
 * access sites in the four classes of the C.A.T.S. statistics: constant,
 * linear (stride-1), strided (stride-k) and indirect (irregular), as the
 * trace's EVENTS records classify them. A site is a record: its source
 * location, and one record of the viewer {"mode", "multiplier": count}.
 *
 * Control flow: the program's loops as the tree the viewer draws, a root
 * sequence of Loop blocks ("ranges" says where and how often it ran)
 * nested as the loops are, through the functions they call; a loop or the
 * root whose own code accesses memory starts with a BasicBlock. The
 * viewer draws no function or conditional block (a conditional recurses
 * for ever at its commit 0b1f69f), so their loops are lifted into the
 * enclosing one; dependencies are not written (any non-empty list throws
 * there). Both show what the view shows (cli_export.h). */
#include <stdlib.h>
#include <string.h>

#include "cli_export.h"
#include "cats/trace/json_out.h"

static const char *const class_key[] = {
   [CATS_PAT_CONSTANT] = "constant_accesses",
   [CATS_PAT_STRIDE1] = "linear_accesses",
   [CATS_PAT_STRIDEK] = "strided_accesses",
   [CATS_PAT_IRREGULAR] = "indirect_accesses",
};

static void site_name(const trace_file *t, FILE *fp, uint32_t loc)
{
   char buf[512];
   if (loc == CATS_NONE) {
      json_out_string(fp, "?");
      return;
   }
   const trace_loc *l = &t->locs[loc];
   snprintf(buf, sizeof buf, "%s (%s:%u)", trace_str(t, l->function),
            trace_str(t, l->file), l->line);
   json_out_string(fp, buf);
}

int cli_export_stats(const trace_file *t, const cli_program *view,
                     FILE *fp, char *err, size_t errlen)
{
   uint64_t *total = calloc((size_t)t->nallocs + 1, sizeof *total);
   uint8_t *dup = cli_export_shared_names(t);
   if (!total || !dup) {
      free(total);
      free(dup);
      snprintf(err, errlen, "out of memory");
      return -1;
   }
   uint64_t all = 0;
   for (uint32_t i = 0; i < t->nevents; i++) {
      const trace_event *e = &t->events[i];
      if (cli_program_event_shown(view, t, i)) {
         total[e->alloc] += e->count;
         all += e->count;
      }
   }
   if (all == 0) {
      free(total);
      free(dup);
      return cli_export_nothing(view, err, errlen);
   }
   fprintf(fp, "{\"all_cfg_stats\": [{\"name\": \"program\", \"id\": 0, "
               "\"n_total_accesses\": %llu, \"accesses\": [",
           (unsigned long long)all);
   int first_container = 1;
   for (uint32_t a = 0; a < t->nallocs; a++) {
      if (total[a] == 0)
         continue;
      fputs(first_container ? "\n  {\"container\": " : ",\n  {\"container\": ",
            fp);
      first_container = 0;
      cli_export_buffer_name(t, fp, a, dup);
      fprintf(fp, ", \"n_total_accesses\": %llu",
              (unsigned long long)total[a]);
      for (int c = CATS_PAT_CONSTANT; c <= CATS_PAT_IRREGULAR; c++) {
         fprintf(fp, ",\n   \"%s\": [", class_key[c]);
         int first_site = 1;
         for (uint32_t i = 0; i < t->nevents; i++) {
            const trace_event *e = &t->events[i];
            if (e->alloc != a || e->cls != c ||
                !cli_program_event_shown(view, t, i))
               continue;
            fputs(first_site ? "{\"name\": " : ", {\"name\": ", fp);
            first_site = 0;
            site_name(t, fp, e->loc);
            fprintf(fp, ", \"n_accesses\": %llu, \"accesses\": [{\"mode\": "
                        "\"%s\", \"multiplier\": %llu}]}",
                    (unsigned long long)e->count,
                    e->kind == CATS_WRITE ? "write" : "read",
                    (unsigned long long)e->count);
         }
         fputc(']', fp);
      }
      fputc('}', fp);
   }
   fputs("\n]}]}\n", fp);
   free(total);
   free(dup);
   return ferror(fp) ? -1 : 0;
}

/* The loop a context's code runs in, through functions and conditionals
 * (NONE: the root); a context before `start` is in none. */
typedef struct cf_tree {
   uint32_t *loop_of;   /* per context: enclosing shown loop or NONE */
   uint8_t *own;        /* per context + root: code of its own accesses */
   uint32_t *kids;      /* shown loops by parent loop, then first entry */
   uint32_t *first;     /* per loop + root: index into kids, or NONE */
   uint32_t *count;
} cf_tree;

static const trace_file *cf_sort;   /* qsort has no context argument */
static const uint32_t *cf_parent;

static int cmp_loop(const void *pa, const void *pb)
{
   uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
   if (cf_parent[a] != cf_parent[b])
      return cf_parent[a] < cf_parent[b] ? -1 : 1;
   uint64_t fa = cf_sort->contexts[a].first_time;
   uint64_t fb = cf_sort->contexts[b].first_time;
   if (fa != fb)
      return fa < fb ? -1 : 1;
   return (a > b) - (a < b);
}

static int cf_shown(const trace_file *t, const cli_program *view,
                    uint32_t i)
{
   return t->contexts[i].kind == CATS_CTX_LOOP &&
          t->contexts[i].first_time >= view->start &&
          cli_program_context_shown(view, t, i);
}

static void cf_block(const trace_file *t, const cf_tree *tr, FILE *fp,
                     uint32_t loop, int depth);

static void cf_children(const trace_file *t, const cf_tree *tr, FILE *fp,
                        uint32_t node, int depth)
{
   uint32_t slot = node == CATS_NONE ? (uint32_t)t->ncontexts : node;
   int any = 0;
   fputs("\"children\": [", fp);
   if (tr->own[slot]) {
      fprintf(fp, "\n%*s{\"type\": \"BasicBlock\"}", 2 * depth, "");
      any = 1;
   }
   for (uint32_t k = 0; k < tr->count[slot]; k++) {
      fputs(any ? ",\n" : "\n", fp);
      any = 1;
      cf_block(t, tr, fp, tr->kids[tr->first[slot] + k], depth);
   }
   fputc(']', fp);
}

static void cf_block(const trace_file *t, const cf_tree *tr, FILE *fp,
                     uint32_t loop, int depth)
{
   const trace_context *c = &t->contexts[loop];
   char ranges[512];
   const char *file = "?", *func = "?";
   uint32_t line = 0;
   if (c->loc != CATS_NONE) {
      file = trace_str(t, t->locs[c->loc].file);
      func = trace_str(t, t->locs[c->loc].function);
      line = t->locs[c->loc].line;
   }
   snprintf(ranges, sizeof ranges, "%s:%u in %s: %llu iterations, %llu "
            "entries", file, line, func, (unsigned long long)c->iterations,
            (unsigned long long)c->entries);
   fprintf(fp, "%*s{\"type\": \"Loop\", \"ranges\": ", 2 * depth, "");
   json_out_string(fp, ranges);
   fputs(", ", fp);
   cf_children(t, tr, fp, loop, depth + 1);
   fputc('}', fp);
}

int cli_export_control_flow(const trace_file *t, const cli_program *view,
                            FILE *fp, char *err, size_t errlen)
{
   size_t n = t->ncontexts;
   cf_tree tr = {
      malloc((n + 1) * sizeof *tr.loop_of), calloc(n + 1, 1),
      malloc((n + 1) * sizeof *tr.kids), malloc((n + 1) * sizeof *tr.first),
      calloc(n + 1, sizeof *tr.count),
   };
   if (!tr.loop_of || !tr.own || !tr.kids || !tr.first || !tr.count) {
      snprintf(err, errlen, "out of memory");
      free(tr.loop_of);
      free(tr.own);
      free(tr.kids);
      free(tr.first);
      free(tr.count);
      return -1;
   }
   /* Parents come before children in CONTEXTS (parent < own id). */
   size_t nk = 0;
   for (uint32_t i = 0; i < n; i++) {
      uint32_t p = t->contexts[i].parent;
      uint32_t up = p == CATS_NONE ? CATS_NONE
                    : cf_shown(t, view, p) ? p : tr.loop_of[p];
      tr.loop_of[i] = up;
      if (cf_shown(t, view, i))
         tr.kids[nk++] = i;
   }
   for (uint32_t i = 0; i < t->nevents; i++) {
      const trace_event *e = &t->events[i];
      if (e->ctx >= n || !cli_program_event_shown(view, t, i))
         continue;
      uint32_t l = cf_shown(t, view, e->ctx) ? e->ctx : tr.loop_of[e->ctx];
      tr.own[l == CATS_NONE ? n : l] = 1;
   }
   /* The loops in the order of their parent loop (the root last), then
    * of their first entry. */
   cf_sort = t;
   cf_parent = tr.loop_of;
   qsort(tr.kids, nk, sizeof *tr.kids, cmp_loop);
   for (size_t k = nk; k-- > 0;) {
      uint32_t p = tr.loop_of[tr.kids[k]];
      uint32_t slot = p == CATS_NONE ? (uint32_t)n : p;
      tr.first[slot] = (uint32_t)k;
      tr.count[slot]++;
   }
   fputs("{\"type\": \"Sequence\", ", fp);
   cf_children(t, &tr, fp, CATS_NONE, 1);
   fputs("}\n", fp);
   free(tr.loop_of);
   free(tr.own);
   free(tr.kids);
   free(tr.first);
   free(tr.count);
   return ferror(fp) ? -1 : 0;
}
