/* SPDX-License-Identifier: GPL-2.0-or-later */
/* part_region.c: the per-iteration scope of a projection (part_region.h). */
#include "part_region.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cats/trace/trace_scope.h"

/* A loop must average this many iterations per entry to be a time loop. */
#define PART_REGION_MIN_ITERATIONS 2
/* A region the program marks must hold this share of the work. */
#define PART_REGION_MIN_SHARE 0.5
/* A loop, this share (a time loop can hold less than a set-up that
 * assembles a matrix)... */
#define PART_REGION_MIN_LOOP_SHARE 0.1
/* ...and its average edge must be used in this share of its iterations. */
#define PART_REGION_MIN_REPEAT 0.2

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

/* Per context, over the VCG edges made in its subtree: their uses, and
 * for the repeat test their number and their versions (how many of the
 * sink's versions each fed). */
typedef struct subtree_flow {
   uint64_t uses, edges, versions;
} subtree_flow;

static subtree_flow *subtree_flows(const trace_file *t, uint64_t *total)
{
   subtree_flow *w = calloc(t->ncontexts ? t->ncontexts : 1, sizeof *w);
   if (!w)
      return NULL;
   *total = 0;
   for (uint32_t e = 0; e < t->vcg.nedges; e++) {
      const trace_vcg_edge *ed = &t->vcg.edges[e];
      *total += ed->uses;
      if (ed->ctx != CATS_NONE) {
         w[ed->ctx].uses += ed->uses;
         w[ed->ctx].edges++;
         w[ed->ctx].versions += ed->versions;
      }
   }
   /* Parents have smaller ids: one backward pass sums the subtrees. */
   for (uint32_t c = t->ncontexts; c-- > 0;) {
      uint32_t p = t->contexts[c].parent;
      if (p != CATS_NONE) {
         w[p].uses += w[c].uses;
         w[p].edges += w[c].edges;
         w[p].versions += w[c].versions;
      }
   }
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

/* The share of a loop's iterations in which its average edge is used:
 * a time loop re-makes its state every iteration (1; 1/2 when two
 * arrays swap), a loop over space makes each value in a few of its
 * iterations (a few / iterations). */
static double repeat_share(const trace_context *x, const subtree_flow *f)
{
   if (f->edges == 0 || x->iterations == 0)
      return 0;
   return (double)f->versions / ((double)f->edges * (double)x->iterations);
}

/* A CATS region the program marks (CATS_REGION_BEGIN, a time step) wins
 * when it holds at least half of the work, the outermost such; failing
 * that, of the loops that repeat (PART_REGION_MIN_ITERATIONS per entry)
 * and re-make their values in many iterations (PART_REGION_MIN_REPEAT:
 * a time loop, not a loop over elements that makes the most values),
 * the one that holds the most work, at least PART_REGION_MIN_LOOP_SHARE. */
static uint32_t pick_automatic(const trace_file *t, const subtree_flow *w,
                               const uint8_t *program, uint64_t total)
{
   uint32_t region = CATS_NONE, loop = CATS_NONE;
   for (uint32_t c = 0; c < t->ncontexts; c++) {
      const trace_context *x = &t->contexts[c];
      if (x->entries == 0 || !program[c])
         continue;
      if (x->kind == CATS_CTX_REGION) {
         if ((double)w[c].uses >= PART_REGION_MIN_SHARE * (double)total &&
             (region == CATS_NONE || x->depth < t->contexts[region].depth))
            region = c;
         continue;
      }
      if (x->kind != CATS_CTX_LOOP ||
          x->iterations < PART_REGION_MIN_ITERATIONS * x->entries ||
          (double)w[c].uses < PART_REGION_MIN_LOOP_SHARE * (double)total)
         continue;
      if (repeat_share(x, &w[c]) < PART_REGION_MIN_REPEAT)
         continue;
      if (loop == CATS_NONE || w[c].uses > w[loop].uses ||
          (w[c].uses == w[loop].uses && x->depth < t->contexts[loop].depth))
         loop = c;
   }
   return region != CATS_NONE ? region : loop;
}

/* The uses of the edges made in the program's contexts: those of its
 * outermost ones' subtrees. */
static uint64_t program_work(const trace_file *t, const subtree_flow *w,
                             const uint8_t *program)
{
   uint64_t in = 0;
   for (uint32_t c = 0; c < t->ncontexts; c++) {
      uint32_t p = t->contexts[c].parent;
      if (program[c] && (p == CATS_NONE || !program[p]))
         in += w[c].uses;
   }
   return in;
}

int part_region_select(const trace_file *t, const char *per, part_region *r, char *err,
                       size_t errlen)
{
   memset(r, 0, sizeof *r);
   snprintf(r->name, sizeof r->name, "whole run");
   uint64_t total = 0;
   size_t n = t->ncontexts ? t->ncontexts : 1;
   subtree_flow *work = subtree_flows(t, &total);
   uint8_t *chosen = calloc(n, 1), *program = malloc(n);
   int64_t nprogram = program ? trace_program_contexts(t, program) : -1;
   if (!work || !chosen || nprogram < 0) {
      free(work), free(chosen), free(program);
      snprintf(err, errlen, "out of memory");
      return -1;
   }
   /* Without a main every context is the program's, and the edges made
    * in none (the kernel's writes) count too. */
   if (nprogram == 0)
      memset(program, 1, n);
   else
      total = program_work(t, work, program);
   int rc = 0;
   if (per && strcmp(per, "run") == 0) {
      /* the program's contexts, below */
   } else if (per) {
      for (uint32_t c = 0; c < t->ncontexts; c++)
         chosen[c] = (uint8_t)ctx_matches(t, c, per);
   } else {
      uint32_t c = pick_automatic(t, work, program, total);
      if (c != CATS_NONE)
         chosen[c] = 1;
      r->automatic = 1;
   }
   rc = mark_scope(t, chosen, r);
   if (rc == 0 && per && strcmp(per, "run") != 0 && !r->found) {
      snprintf(err, errlen, "--per=%s: no function, region or loop of that "
                            "name in the trace", per);
      rc = -1;
   }
   if (rc == 0 && r->found) {
      r->work_share = total ? (double)program_work(t, work, r->scope) / (double)total : 0;
      describe(t, r->ctx, r->name, sizeof r->name);
   } else if (rc == 0) {
      /* The whole run: the program's contexts, start-up left out. */
      free(r->scope);
      r->scope = nprogram == 0 ? NULL : program;
      program = NULL;
      r->work_share = 1;
   } else if (!per) {
      snprintf(err, errlen, "out of memory");
   }
   free(work);
   free(chosen);
   free(program);
   return rc;
}

void part_region_free(part_region *r)
{
   free(r->scope);
   r->scope = NULL;
}
