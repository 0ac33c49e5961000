/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cli_dump_json.c: `cats dump --json`, exactly the schema of docs/JSON.md.
 *
 * One record per line so that large dumps stay greppable and diffable. */
#include "cli.h"
#include "cats/trace/json_out.h"
#include "cats/trace/trace_names.h"

/* A u32 reference, or null for CATS_NONE. */
static void ref(FILE *fp, const char *key, uint32_t id)
{
   if (id == CATS_NONE)
      fprintf(fp, "\"%s\": null", key);
   else
      fprintf(fp, "\"%s\": %u", key, id);
}

static void key_str(FILE *fp, const char *key, const char *value)
{
   fprintf(fp, "\"%s\": ", key);
   json_out_string(fp, value);
}

static void key_u64(FILE *fp, const char *key, uint64_t v)
{
   fprintf(fp, "\"%s\": %llu", key, (unsigned long long)v);
}

static void key_bool(FILE *fp, const char *key, int v)
{
   fprintf(fp, "\"%s\": %s", key, v ? "true" : "false");
}

/* ", "reuse": {"cold": N, "buckets": [33 counts]}" */
static void json_reuse(FILE *fp, const trace_reuse_hist *h)
{
   fprintf(fp, ", \"reuse\": {\"cold\": %llu, \"buckets\": [",
           (unsigned long long)h->cold);
   for (unsigned b = 0; b < TRACE_REUSE_BUCKETS; b++)
      fprintf(fp, "%s%llu", b ? ", " : "", (unsigned long long)h->bucket[b]);
   fputs("]}", fp);
}

static void json_meta(const trace_file *t, FILE *fp)
{
   fputs("  \"meta\": {", fp);
   for (uint32_t i = 0; i < t->nmeta; i++) {
      fputs(i ? ",\n    " : "\n    ", fp);
      json_out_string(fp, trace_str(t, t->meta[i].key));
      fputs(": ", fp);
      json_out_string(fp, trace_str(t, t->meta[i].value));
   }
   fputs(t->nmeta ? "\n  },\n" : "},\n", fp);
}

static void json_locs(const trace_file *t, FILE *fp)
{
   fputs("  \"locs\": [", fp);
   for (uint32_t i = 0; i < t->nlocs; i++) {
      const trace_loc *l = &t->locs[i];
      fputs(i ? ",\n    { " : "\n    { ", fp);
      fprintf(fp, "\"id\": %u, \"addr\": \"0x%llx\", ", i,
              (unsigned long long)l->addr);
      key_str(fp, "function", trace_str(t, l->function));
      fputs(", ", fp);
      key_str(fp, "file", trace_str(t, l->file));
      fprintf(fp, ", \"line\": %u, ", l->line);
      key_str(fp, "object", trace_str(t, l->object));
      fputs(", ", fp);
      ref(fp, "inline_parent", l->inline_parent);
      fputs(" }", fp);
   }
   fputs(t->nlocs ? "\n  ],\n" : "],\n", fp);
}

static void json_contexts(const trace_file *t, FILE *fp)
{
   fputs("  \"contexts\": [", fp);
   for (uint32_t i = 0; i < t->ncontexts; i++) {
      const trace_context *c = &t->contexts[i];
      fputs(i ? ",\n    { " : "\n    { ", fp);
      fprintf(fp, "\"id\": %u, ", i);
      ref(fp, "parent", c->parent);
      fputs(", ", fp);
      key_str(fp, "kind", trace_names_ctx_kind(c->kind));
      fputs(", ", fp);
      key_str(fp, "name", trace_str(t, c->name));
      fputs(", ", fp);
      ref(fp, "loc", c->loc);
      fputs(", ", fp);
      key_u64(fp, "entries", c->entries);
      fputs(", ", fp);
      key_u64(fp, "iterations", c->iterations);
      fputs(", ", fp);
      key_u64(fp, "max_iterations", c->max_iterations);
      fputs(", ", fp);
      key_bool(fp, "recursive", c->flags & CATS_CTXFLAG_RECURSIVE);
      fprintf(fp, ", \"depth\": %u, ", c->depth);
      key_u64(fp, "first_time", c->first_time);
      fputs(", ", fp);
      key_u64(fp, "last_time", c->last_time);
      fputs(" }", fp);
   }
   fputs(t->ncontexts ? "\n  ],\n" : "],\n", fp);
}

static void json_allocs(const trace_file *t, FILE *fp)
{
   fputs("  \"allocs\": [", fp);
   for (uint32_t i = 0; i < t->nallocs; i++) {
      const trace_alloc *a = &t->allocs[i];
      fputs(i ? ",\n    { " : "\n    { ", fp);
      fprintf(fp, "\"id\": %u, ", i);
      key_str(fp, "kind", trace_names_alloc_kind(a->kind));
      fputs(", ", fp);
      key_str(fp, "name", trace_str(t, a->name));
      fputs(", ", fp);
      key_u64(fp, "size", a->size);
      fputs(", ", fp);
      key_u64(fp, "count", a->count);
      fputs(", ", fp);
      key_u64(fp, "max_live", a->max_live);
      fputs(", ", fp);
      key_u64(fp, "total_bytes", a->total_bytes);
      fputs(", ", fp);
      ref(fp, "alloc_ctx", a->alloc_ctx);
      fputs(", ", fp);
      ref(fp, "alloc_loc", a->alloc_loc);
      fputs(", ", fp);
      ref(fp, "free_ctx", a->free_ctx);
      fputs(", ", fp);
      ref(fp, "free_loc", a->free_loc);
      fputs(", ", fp);
      ref(fp, "realloc_from", a->realloc_from);
      fputs(", ", fp);
      key_u64(fp, "first_alloc", a->first_alloc);
      fputs(", ", fp);
      key_u64(fp, "last_alloc", a->last_alloc);
      fputs(", ", fp);
      key_u64(fp, "first_free", a->first_free);
      fputs(", ", fp);
      key_u64(fp, "last_free", a->last_free);
      fputs(", ", fp);
      key_bool(fp, "never_freed", a->flags & CATS_ALLOCFLAG_LEAKED);
      fputs(", ", fp);
      key_bool(fp, "conditional", a->flags & CATS_ALLOCFLAG_CONDITIONAL);
      if (t->has_reuse)
         json_reuse(fp, &t->reuse.allocs[i]);
      fputs(" }", fp);
   }
   fputs(t->nallocs ? "\n  ],\n" : "],\n", fp);
}

static void json_event(const trace_event *e, FILE *fp)
{
   fprintf(fp, "\"ctx\": %u, \"loc\": %u, \"alloc\": %u, ", e->ctx, e->loc,
           e->alloc);
   key_str(fp, "kind", trace_names_access(e->kind));
   fputs(", ", fp);
   key_str(fp, "pattern", trace_names_pattern(e->pattern));
   fputs(", ", fp);
   key_str(fp, "class", trace_names_pattern(e->cls));
   fprintf(fp, ", \"size\": %u, ", e->size);
   key_u64(fp, "count", e->count);
   fputs(", ", fp);
   key_u64(fp, "first_time", e->first_time);
   fputs(", ", fp);
   key_u64(fp, "last_time", e->last_time);
   fprintf(fp, ", \"base\": %lld, \"strides\": [", (long long)e->base);
   for (unsigned k = 0; k < e->ndims; k++)
      fprintf(fp, "%s%lld", k ? ", " : "", (long long)e->stride[k]);
   fputs("], \"extents\": [", fp);
   for (unsigned k = 0; k < e->ndims; k++)
      fprintf(fp, "%s%llu", k ? ", " : "", (unsigned long long)e->extent[k]);
   fprintf(fp, "], \"min_offset\": %lld, \"max_offset\": %lld, ",
           (long long)e->min_offset, (long long)e->max_offset);
   fputs("\"distinct\": [", fp);
   for (unsigned k = 0; k < e->ndistinct; k++)
      fprintf(fp, "%s%lld", k ? ", " : "", (long long)e->distinct[k]);
   fputs("], \"histogram\": [", fp);
   for (unsigned k = 0; k < CATS_HIST_BUCKETS; k++)
      fprintf(fp, "%s%u", k ? ", " : "", e->hist[k]);
   fputs("]", fp);
}

static void json_events(const trace_file *t, FILE *fp)
{
   fputs("  \"events\": [", fp);
   for (uint32_t i = 0; i < t->nevents; i++) {
      fputs(i ? ",\n    { " : "\n    { ", fp);
      json_event(&t->events[i], fp);
      if (t->has_index && t->index_alloc[i] != CATS_NONE)
         fprintf(fp, ", \"index_container\": %u", t->index_alloc[i]);
      if (t->has_reuse)
         json_reuse(fp, &t->reuse.events[i]);
      fputs(" }", fp);
   }
   fputs(t->nevents ? "\n  ],\n" : "],\n", fp);
}

/* Section 11: null without it (no value flow). */
static void json_deps(const trace_file *t, FILE *fp)
{
   if (!t->has_deps) {
      fputs("  \"dependencies\": null\n", fp);
      return;
   }
   fputs("  \"dependencies\": [", fp);
   for (uint32_t i = 0; i < t->ndeps; i++) {
      const trace_dep *d = &t->deps[i];
      fprintf(fp, "%s{\"from\": %u, \"to\": %u, \"alloc\": %u, "
              "\"uses\": %llu, \"bytes\": %llu}", i ? ",\n    " : "\n    ",
              d->from, d->to, d->alloc, (unsigned long long)d->uses,
              (unsigned long long)d->bytes);
   }
   fputs(t->ndeps ? "\n  ]\n" : "]\n", fp);
}

int cli_dump_json(const trace_file *t, FILE *fp)
{
   fprintf(fp, "{\n  \"format\": \"cats\", \"version\": %d,\n", CATS_VERSION);
   json_meta(t, fp);
   if (t->has_reuse)
      fprintf(fp, "  \"reuse\": {\"line_size\": %u, \"sampling\": %u},\n",
              t->reuse.line_size, t->reuse.sampling);
   json_locs(t, fp);
   json_contexts(t, fp);
   json_allocs(t, fp);
   json_events(t, fp);
   json_deps(t, fp);
   fputs("}\n", fp);
   return ferror(fp) ? -1 : 0;
}
