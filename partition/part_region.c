/* SPDX-License-Identifier: GPL-2.0-or-later */
/* part_region.c: the per-iteration scope of a projection (part_region.h). */
#include "part_region.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A loop must average this many iterations per entry to be a time loop. */
#define PART_REGION_MIN_ITERATIONS 2
/* ...and hold at least this share of the work. */
#define PART_REGION_MIN_SHARE 0.5

static const char *kind_word(uint8_t kind)
{
   switch (kind) {
   case CATS_CTX_LOOP: return "loop";
   case CATS_CTX_FUNCTION: return "function";
   case CATS_CTX_REGION: return "region";
   default: return "context";
   }
}

static uint64_t iterations_of(const trace_context *c)
{
   return c->kind == CATS_CTX_LOOP ? c->iterations : c->entries;
}

static const char *basename_of(const char *path)
{
   const char *s = strrchr(path, '/');
   return s ? s + 1 : path;
}

/* FILE:LINE of a loop: the file matches by its full name or base name. */
static int loc_matches(const trace_file *t, uint32_t loc, const char *file,
                       unsigned long line)
{
   if (loc == CATS_NONE || t->locs[loc].line != line)
      return 0;
   const char *f = trace_str(t, t->locs[loc].file);
   return strcmp(f, file) == 0 || strcmp(basename_of(f), file) == 0;
}

static int ctx_matches(const trace_file *t, uint32_t c, const char *per)
{
   const trace_context *x = &t->contexts[c];
   const char *colon = strrchr(per, ':');
   if (colon && colon[1]) {
      char *end;
      unsigned long line = strtoul(colon + 1, &end, 10);
      if (*end == '\0') {
         char file[PART_REGION_NAMELEN];
         snprintf(file, sizeof file, "%.*s", (int)(colon - per), per);
         return x->kind == CATS_CTX_LOOP && loc_matches(t, x->loc, file, line);
      }
   }
   return (x->kind == CATS_CTX_FUNCTION || x->kind == CATS_CTX_REGION) &&
          strcmp(trace_str(t, x->name), per) == 0;
}

static void describe(const trace_file *t, uint32_t c, char *buf, size_t n)
{
   const trace_context *x = &t->contexts[c];
   if (x->kind == CATS_CTX_LOOP && x->loc != CATS_NONE)
      snprintf(buf, n, "loop %s:%u", basename_of(trace_str(t, t->locs[x->loc].file)),
               t->locs[x->loc].line);
   else
      snprintf(buf, n, "%s %s", kind_word(x->kind), trace_str(t, x->name));
}

/* Uses of the VCG edges made in each context's subtree. */
static uint64_t *subtree_work(const trace_file *t, uint64_t *total)
{
   uint64_t *w = calloc(t->ncontexts ? t->ncontexts : 1, sizeof *w);
   if (!w)
      return NULL;
   *total = 0;
   for (uint32_t e = 0; e < t->vcg.nedges; e++) {
      const trace_vcg_edge *ed = &t->vcg.edges[e];
      *total += ed->uses;
      if (ed->ctx != CATS_NONE)
         w[ed->ctx] += ed->uses;
   }
   /* Parents have smaller ids: one backward pass sums the subtrees. */
   for (uint32_t c = t->ncontexts; c-- > 0;)
      if (t->contexts[c].parent != CATS_NONE)
         w[t->contexts[c].parent] += w[c];
   return w;
}

static int mark_scope(const trace_file *t, const uint8_t *chosen,
                      part_region *r)
{
   r->scope = calloc(t->ncontexts ? t->ncontexts : 1, 1);
   if (!r->scope)
      return -1;
   for (uint32_t c = 0; c < t->ncontexts; c++) {
      uint32_t p = t->contexts[c].parent;
      int under = p != CATS_NONE && r->scope[p];
      if (chosen[c] && !under) {
         if (!r->found)
            r->ctx = c;
         r->found = 1;
         r->nmatched++;
         r->iterations += iterations_of(&t->contexts[c]);
      }
      r->scope[c] = chosen[c] || under;
   }
   return 0;
}

/* A CATS region the program marks (CATS_REGION_BEGIN, a time step) wins
 * over loops; among either, the outermost that holds the work. */
static uint32_t pick_automatic(const trace_file *t, const uint64_t *work,
                               uint64_t total)
{
   uint32_t best[2] = { CATS_NONE, CATS_NONE };   /* region, loop */
   for (uint32_t c = 0; c < t->ncontexts; c++) {
      const trace_context *x = &t->contexts[c];
      int region = x->kind == CATS_CTX_REGION;
      if ((!region && x->kind != CATS_CTX_LOOP) || x->entries == 0 ||
          (double)work[c] < PART_REGION_MIN_SHARE * (double)total)
         continue;
      /* A region the program marks counts even when entered once (one
       * matrix product); a loop must repeat to be a time loop. */
      if (!region && x->iterations < PART_REGION_MIN_ITERATIONS * x->entries)
         continue;
      uint32_t *b = &best[region ? 0 : 1];
      if (*b == CATS_NONE || x->depth < t->contexts[*b].depth)
         *b = c;
   }
   return best[0] != CATS_NONE ? best[0] : best[1];
}

int part_region_select(const trace_file *t, const char *per, part_region *r, char *err,
                       size_t errlen)
{
   memset(r, 0, sizeof *r);
   snprintf(r->name, sizeof r->name, "whole run");
   if (per && strcmp(per, "run") == 0)
      return 0;
   uint64_t total;
   uint64_t *work = subtree_work(t, &total);
   uint8_t *chosen = calloc(t->ncontexts ? t->ncontexts : 1, 1);
   if (!work || !chosen) {
      free(work), free(chosen);
      snprintf(err, errlen, "out of memory");
      return -1;
   }
   if (per) {
      for (uint32_t c = 0; c < t->ncontexts; c++)
         chosen[c] = (uint8_t)ctx_matches(t, c, per);
   } else {
      uint32_t c = pick_automatic(t, work, total);
      if (c != CATS_NONE)
         chosen[c] = 1;
      r->automatic = 1;
   }
   int rc = mark_scope(t, chosen, r);
   if (rc == 0 && per && !r->found) {
      snprintf(err, errlen, "--per=%s: no function, region or loop of that "
                            "name in the trace", per);
      rc = -1;
   }
   if (rc == 0 && r->found) {
      uint64_t in = 0;
      for (uint32_t c = 0; c < t->ncontexts; c++) {
         uint32_t p = t->contexts[c].parent;
         if (r->scope[c] && (p == CATS_NONE || !r->scope[p]))
            in += work[c];
      }
      r->work_share = total ? (double)in / (double)total : 0;
      describe(t, r->ctx, r->name, sizeof r->name);
   } else if (rc == 0) {
      free(r->scope);
      r->scope = NULL;
   } else if (!per) {
      snprintf(err, errlen, "out of memory");
   }
   free(work);
   free(chosen);
   return rc;
}

void part_region_free(part_region *r)
{
   free(r->scope);
   r->scope = NULL;
}
