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
/* ...and access per iteration this share of the data it touches. */
#define PART_REGION_MIN_TOUCH 0.25

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

/* Scratch for touch_share: per context, below the loop; per context,
 * the loop's share once computed. */
typedef struct touch_scratch {
   uint8_t *below;
   double *memo;        /* < 0 until computed */
   const uint8_t *program;
} touch_scratch;

/* The distinct bytes an access record touches, as far as the record
 * tells: one offset when constant; for an affine walk, the iterations of
 * the loop levels that move it (a vector lane walking rows touches its
 * 32 bytes of each row, not the span between them); the distinct offsets
 * when it kept all; at most its span and its accesses' bytes (a few
 * reads of a library's tables touch a few words). */
static double touched_bytes(const trace_event *e)
{
   double bytes = (double)e->count * e->size;
   double span = (double)e->max_offset - (double)e->min_offset + e->size;
   double d = span;
   if (e->pattern == CATS_PAT_CONSTANT) {
      d = e->size;
   } else if (e->pattern == CATS_PAT_STRIDE1 || e->pattern == CATS_PAT_STRIDEK) {
      d = e->size;
      for (uint32_t k = 0; k < e->ndims && k < CATS_MAX_DIMS; k++)
         if (e->stride[k] != 0 && e->extent[k] > 0)
            d *= (double)e->extent[k];
   } else if (e->ndistinct < CATS_MAX_DISTINCT) {
      d = (double)e->ndistinct * e->size;
   }
   d = d < span ? d : span;
   return d < bytes ? d : bytes;
}

/* The bytes a loop accesses per iteration against the bytes it touches,
 * over the access records of the program's code below it; records that
 * overlap count their bytes and their touched bytes alike, so the ratio
 * holds. A time loop goes over its state every iteration (1 or more); a
 * loop over elements, rows or atoms touches in each iteration a few of
 * its thousands of iterations' data. Stack frames are left out: a loop's
 * own counter at -O0 is touched in every iteration of any loop. */
static double touch_share(const trace_file *t, uint32_t loop,
                          touch_scratch *s)
{
   for (uint32_t c = 0; c < t->ncontexts; c++) {
      uint32_t p = t->contexts[c].parent;
      s->below[c] = s->program[c] &&
                    (c == loop || (p != CATS_NONE && s->below[p]));
   }
   double bytes = 0, touched = 0;
   for (uint32_t i = 0; i < t->nevents; i++) {
      const trace_event *e = &t->events[i];
      if (!s->below[e->ctx] ||
          t->allocs[e->alloc].kind == CATS_ALLOC_STACK_FRAME)
         continue;
      bytes += (double)e->count * e->size;
      touched += touched_bytes(e);
   }
   uint64_t it = t->contexts[loop].iterations;
   return touched > 0 && it ? bytes / (touched * (double)it) : 0;
}

/* A time loop goes over its data in every iteration, and so does every
 * loop around it: a loop inside one element of a loop over elements
 * (an element's quadrature points) goes over that element's small
 * buffer in each of its iterations, but it is a part of the element's
 * work, not a step of the program. */
static int time_loop(const trace_file *t, uint32_t c, touch_scratch *s)
{
   for (; c != CATS_NONE && s->program[c]; c = t->contexts[c].parent) {
      if (t->contexts[c].kind != CATS_CTX_LOOP)
         continue;
      if (s->memo[c] < 0)
         s->memo[c] = touch_share(t, c, s);
      if (s->memo[c] < PART_REGION_MIN_TOUCH)
         return 0;
   }
   return 1;
}

/* A CATS region the program marks (CATS_REGION_BEGIN, a time step) wins
 * when it holds at least half of the work, the outermost such; failing
 * that, of the time loops that repeat (PART_REGION_MIN_ITERATIONS per
 * entry) and hold at least PART_REGION_MIN_LOOP_SHARE of the work, the
 * one that holds the most. */
static uint32_t pick_automatic(const trace_file *t, const uint64_t *w,
                               const uint8_t *program, uint64_t total,
                               touch_scratch *s)
{
   uint32_t region = CATS_NONE, loop = CATS_NONE;
   for (uint32_t c = 0; c < t->ncontexts; c++) {
      const trace_context *x = &t->contexts[c];
      if (x->entries == 0 || !program[c])
         continue;
      if (x->kind == CATS_CTX_REGION) {
         if ((double)w[c] >= PART_REGION_MIN_SHARE * (double)total &&
             (region == CATS_NONE || x->depth < t->contexts[region].depth))
            region = c;
         continue;
      }
      if (x->kind != CATS_CTX_LOOP ||
          x->iterations < PART_REGION_MIN_ITERATIONS * x->entries ||
          (double)w[c] < PART_REGION_MIN_LOOP_SHARE * (double)total)
         continue;
      if (loop != CATS_NONE && (w[c] < w[loop] ||
          (w[c] == w[loop] && x->depth >= t->contexts[loop].depth)))
         continue;   /* it could not win */
      if (time_loop(t, c, s))
         loop = c;
   }
   return region != CATS_NONE ? region : loop;
}

/* The uses of the edges made in the program's contexts: those of its
 * outermost ones' subtrees. */
static uint64_t program_work(const trace_file *t, const uint64_t *w,
                             const uint8_t *program)
{
   uint64_t in = 0;
   for (uint32_t c = 0; c < t->ncontexts; c++) {
      uint32_t p = t->contexts[c].parent;
      if (program[c] && (p == CATS_NONE || !program[p]))
         in += w[c];
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
   uint64_t *work = subtree_work(t, &total);
   uint8_t *chosen = calloc(n, 1), *program = malloc(n);
   touch_scratch ts = { malloc(n), malloc(n * sizeof *ts.memo), program };
   int64_t nprogram = program ? trace_program_contexts(t, program) : -1;
   if (!work || !chosen || nprogram < 0 || !ts.below || !ts.memo) {
      free(work), free(chosen), free(program);
      free(ts.below), free(ts.memo);
      snprintf(err, errlen, "out of memory");
      return -1;
   }
   /* Without a main every context is the program's, and the edges made
    * in none (the kernel's writes) count too. */
   if (nprogram == 0)
      memset(program, 1, n);
   else
      total = program_work(t, work, program);
   for (size_t c = 0; c < n; c++)
      ts.memo[c] = -1;
   if (per && strcmp(per, "run") == 0) {
      /* the program's contexts, below */
   } else if (per) {
      for (uint32_t c = 0; c < t->ncontexts; c++)
         chosen[c] = (uint8_t)ctx_matches(t, c, per);
   } else {
      uint32_t c = pick_automatic(t, work, program, total, &ts);
      if (c != CATS_NONE)
         chosen[c] = 1;
      r->automatic = 1;
   }
   int rc = mark_scope(t, chosen, r);
   if (rc == 0 && per && strcmp(per, "run") != 0 && !r->found) {
      snprintf(err, errlen, "--per=%s: no function, region or loop of that "
                            "name in the trace", per);
      rc = -1;
   }
   if (rc == 0 && r->found) {
      describe(t, r->ctx, r->name, sizeof r->name);
   } else if (rc == 0) {
      /* The whole run: the program's contexts, start-up left out. */
      free(r->scope);
      r->scope = NULL;
      if (nprogram > 0) {
         r->scope = program;
         program = NULL;
      }
   } else if (!per) {
      snprintf(err, errlen, "out of memory");
   }
   free(work);
   free(chosen);
   free(program);
   free(ts.below), free(ts.memo);
   return rc;
}

void part_region_free(part_region *r)
{
   free(r->scope);
   r->scope = NULL;
}
