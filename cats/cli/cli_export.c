/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cli_export.c: `cats export --cats-viz FILE [-o OUT]`.
 *
 * Writes {"events": [...]} for the public C.A.T.S. viewer (spcl/cats-viz),
 * using its event fields: every event has "type", "funcname", "filename",
 * "line" and "col"; allocations add buffer_name and size, deallocations
 * buffer_name, accesses mode ("r"/"w"), buffer_name, offset and bytes,
 * scope entries scope_type ("func", "loop", "conditional") and id, scope
 * exits id. buffer_id (the ALLOCS id) is added to the buffer events.
 *
 * A trace holds folded records, not single events, so each record expands
 * to its first and last occurrence:
 *   alloc record   allocation at first_alloc; deallocation at last_free if
 *                  instances were released and none was leaked
 *   event record   access at first_time (offset base), and if count > 1 at
 *                  last_time (the far end of an affine pattern, the last
 *                  distinct offset of an irregular one)
 *   context        scope_entry at first_time, scope_exit at last_time
 *                  (thread roots are not scopes)
 * Events are sorted by logical time. The tool stamps a scope with the
 * clock after the last event, so at equal times accesses come first, then
 * scope events in tree order (children by first entry), which keeps
 * entries before exits and children inside parents. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cats/trace/json_out.h"
#include "cli_outfile.h"

enum vz_type { VZ_ALLOC, VZ_DEALLOC, VZ_ACCESS, VZ_ENTRY, VZ_EXIT };

/* One exported event before sorting. */
typedef struct vz_item {
   uint64_t time;      /* logical time */
   uint64_t order;     /* tie-break: record sequence or tree position */
   int64_t offset;     /* accesses: offset in the container */
   uint32_t ref;       /* ALLOCS, EVENTS or CONTEXTS id */
   uint8_t phase;      /* 0 buffer events, 1 scope events */
   uint8_t type;       /* enum vz_type */
} vz_item;

static int cmp_item(const void *pa, const void *pb)
{
   const vz_item *a = pa, *b = pb;
   if (a->time != b->time)
      return a->time < b->time ? -1 : 1;
   if (a->phase != b->phase)
      return a->phase < b->phase ? -1 : 1;
   return (a->order > b->order) - (a->order < b->order);
}

/* Sort key for children: parent, then first entry, then id. Keys are
 * copied into the array so qsort needs no context pointer. */
typedef struct vz_child {
   uint32_t parent;
   uint32_t id;
   uint64_t first_time;
} vz_child;

static int cmp_child(const void *pa, const void *pb)
{
   const vz_child *a = pa, *b = pb;
   if (a->parent != b->parent)
      return a->parent < b->parent ? -1 : 1;
   if (a->first_time != b->first_time)
      return a->first_time < b->first_time ? -1 : 1;
   return (a->id > b->id) - (a->id < b->id);
}

/* Position of each context's entry and exit in a depth-first tour where
 * siblings are visited by first entry. */
static int tour(const trace_file *t, uint64_t *enter, uint64_t *leave)
{
   size_t n = t->ncontexts;
   vz_child *keys = malloc((n + 1) * sizeof *keys);
   uint32_t *ids = malloc((n + 1) * sizeof *ids);
   uint32_t *first = malloc((n + 1) * sizeof *first);   /* into ids[] */
   uint32_t *count = calloc(n + 1, sizeof *count);
   uint32_t *stack = malloc((n + 1) * sizeof *stack);
   uint32_t *pos = malloc((n + 1) * sizeof *pos);
   if (!keys || !ids || !first || !count || !stack || !pos) {
      free(keys);
      free(ids);
      free(first);
      free(count);
      free(stack);
      free(pos);
      return -1;
   }
   for (uint32_t i = 0; i < n; i++)
      keys[i] = (vz_child){ t->contexts[i].parent, i,
                            t->contexts[i].first_time };
   qsort(keys, n, sizeof *keys, cmp_child);
   for (size_t k = 0; k < n; k++)
      ids[k] = keys[k].id;
   free(keys);
   /* Children of p are ids[first[p] .. first[p] + count[p]); roots (parent
    * NONE) sort last. */
   size_t roots = n;
   for (size_t k = n; k-- > 0;) {
      uint32_t p = t->contexts[ids[k]].parent;
      if (p == CATS_NONE) {
         roots = k;
         continue;
      }
      first[p] = (uint32_t)k;
      count[p]++;
   }
   uint64_t clock = 0;
   for (size_t r = roots; r < n; r++) {
      size_t sp = 0;
      stack[sp] = ids[r];
      pos[sp++] = 0;
      enter[ids[r]] = clock++;
      while (sp > 0) {
         uint32_t c = stack[sp - 1];
         if (pos[sp - 1] < count[c]) {
            uint32_t ch = ids[first[c] + pos[sp - 1]++];
            enter[ch] = clock++;
            stack[sp] = ch;
            pos[sp++] = 0;
         } else {
            leave[c] = clock++;
            sp--;
         }
      }
   }
   free(ids);
   free(first);
   free(count);
   free(stack);
   free(pos);
   return 0;
}

/* The offset of the last access of a record. */
static int64_t last_offset(const trace_event *e)
{
   if (e->pattern == CATS_PAT_CONSTANT)
      return e->base;
   if (e->pattern == CATS_PAT_IRREGULAR)
      return e->ndistinct ? e->distinct[e->ndistinct - 1] : e->max_offset;
   for (unsigned k = 0; k < e->ndims; k++)
      if (e->stride[k] != 0)
         return e->stride[k] < 0 ? e->min_offset : e->max_offset;
   return e->max_offset;
}

static vz_item *collect(const trace_file *t, size_t *nout)
{
   size_t cap = 2 * ((size_t)t->nallocs + t->nevents + t->ncontexts) + 1;
   vz_item *v = malloc(cap * sizeof *v);
   uint64_t *enter = malloc(((size_t)t->ncontexts + 1) * sizeof *enter);
   uint64_t *leave = malloc(((size_t)t->ncontexts + 1) * sizeof *leave);
   if (!v || !enter || !leave || tour(t, enter, leave) != 0) {
      free(v);
      free(enter);
      free(leave);
      return NULL;
   }
   size_t n = 0;
   uint64_t seq = 0;
   for (uint32_t i = 0; i < t->nallocs; i++) {
      const trace_alloc *a = &t->allocs[i];
      v[n++] = (vz_item){ a->first_alloc, seq++, 0, i, 0, VZ_ALLOC };
      if ((a->first_free || a->last_free) &&
          !(a->flags & CATS_ALLOCFLAG_LEAKED))
         v[n++] = (vz_item){ a->last_free, seq++, 0, i, 0, VZ_DEALLOC };
   }
   for (uint32_t i = 0; i < t->nevents; i++) {
      const trace_event *e = &t->events[i];
      v[n++] = (vz_item){ e->first_time, seq++, e->base, i, 0, VZ_ACCESS };
      if (e->count > 1)
         v[n++] = (vz_item){ e->last_time, seq++, last_offset(e), i, 0,
                             VZ_ACCESS };
   }
   for (uint32_t i = 0; i < t->ncontexts; i++) {
      const trace_context *c = &t->contexts[i];
      if (c->kind == CATS_CTX_THREAD)
         continue;
      v[n++] = (vz_item){ c->first_time, enter[i], 0, i, 1, VZ_ENTRY };
      v[n++] = (vz_item){ c->last_time, leave[i], 0, i, 1, VZ_EXIT };
   }
   free(enter);
   free(leave);
   qsort(v, n, sizeof *v, cmp_item);
   *nout = n;
   return v;
}

/* Distinct buffer names: a name shared by several ALLOCS records gets the
 * record id appended, since the viewer tells buffers apart by name. */
typedef struct vz_name {
   const char *name;
   uint32_t id;
} vz_name;

static int cmp_name(const void *pa, const void *pb)
{
   const vz_name *a = pa, *b = pb;
   int r = strcmp(a->name, b->name);
   return r ? r : (a->id > b->id) - (a->id < b->id);
}

static uint8_t *shared_names(const trace_file *t)
{
   uint8_t *dup = calloc((size_t)t->nallocs + 1, 1);
   vz_name *v = malloc(((size_t)t->nallocs + 1) * sizeof *v);
   if (!dup || !v) {
      free(dup);
      free(v);
      return NULL;
   }
   for (uint32_t i = 0; i < t->nallocs; i++)
      v[i] = (vz_name){ trace_str(t, t->allocs[i].name), i };
   qsort(v, t->nallocs, sizeof *v, cmp_name);
   for (uint32_t k = 1; k < t->nallocs; k++)
      if (strcmp(v[k].name, v[k - 1].name) == 0)
         dup[v[k].id] = dup[v[k - 1].id] = 1;
   free(v);
   return dup;
}

/* "type", funcname, filename, line, col of a code location. */
static void common(const trace_file *t, FILE *fp, const char *type,
                   uint32_t loc, const char *fallback_func)
{
   const char *func = fallback_func, *file = "";
   uint32_t line = 0;
   if (loc != CATS_NONE) {
      func = trace_str(t, t->locs[loc].function);
      file = trace_str(t, t->locs[loc].file);
      line = t->locs[loc].line;
   }
   fprintf(fp, "{\"type\": \"%s\", \"funcname\": ", type);
   json_out_string(fp, func);
   fputs(", \"filename\": ", fp);
   json_out_string(fp, file);
   fprintf(fp, ", \"line\": %u, \"col\": 0", line);
}

static void buffer(const trace_file *t, FILE *fp, uint32_t id,
                   const uint8_t *dup)
{
   const char *name = trace_str(t, t->allocs[id].name);
   fputs(", \"buffer_name\": ", fp);
   if (!dup[id]) {
      json_out_string(fp, name);
   } else {
      size_t n = strlen(name) + 16;
      char *s = malloc(n);
      if (s) {
         snprintf(s, n, "%s #%u", name, id);
         json_out_string(fp, s);
         free(s);
      } else {
         json_out_string(fp, name);
      }
   }
   fprintf(fp, ", \"buffer_id\": %u", id);
}

static const char *scope_type(uint8_t kind)
{
   if (kind == CATS_CTX_LOOP)
      return "loop";
   if (kind == CATS_CTX_CONDITIONAL)
      return "conditional";
   return "func";   /* function, region, signal handler */
}

static void write_item(const trace_file *t, FILE *fp, const vz_item *it,
                       const uint8_t *dup)
{
   switch (it->type) {
   case VZ_ALLOC: {
      const trace_alloc *a = &t->allocs[it->ref];
      common(t, fp, "allocation", a->alloc_loc, "");
      buffer(t, fp, it->ref, dup);
      fprintf(fp, ", \"size\": %llu}", (unsigned long long)a->size);
      break;
   }
   case VZ_DEALLOC:
      common(t, fp, "deallocation", t->allocs[it->ref].free_loc, "");
      buffer(t, fp, it->ref, dup);
      fputc('}', fp);
      break;
   case VZ_ACCESS: {
      const trace_event *e = &t->events[it->ref];
      common(t, fp, "access", e->loc, "");
      fprintf(fp, ", \"mode\": \"%s\"", e->kind == CATS_WRITE ? "w" : "r");
      buffer(t, fp, e->alloc, dup);
      fprintf(fp, ", \"offset\": %lld, \"bytes\": %u}",
              (long long)it->offset, e->size);
      break;
   }
   case VZ_ENTRY: {
      const trace_context *c = &t->contexts[it->ref];
      common(t, fp, "scope_entry", c->loc, trace_str(t, c->name));
      fprintf(fp, ", \"scope_type\": \"%s\", \"id\": %u}",
              scope_type(c->kind), it->ref);
      break;
   }
   case VZ_EXIT: {
      const trace_context *c = &t->contexts[it->ref];
      common(t, fp, "scope_exit", c->loc, trace_str(t, c->name));
      fprintf(fp, ", \"id\": %u}", it->ref);
      break;
   }
   }
}

static int export_viz(const trace_file *t, FILE *fp)
{
   size_t n;
   vz_item *v = collect(t, &n);
   uint8_t *dup = v ? shared_names(t) : NULL;
   if (!v || !dup) {
      free(v);
      return -1;
   }
   fputs("{\"events\": [", fp);
   for (size_t i = 0; i < n; i++) {
      fputs(i ? ",\n  " : "\n  ", fp);
      write_item(t, fp, &v[i], dup);
   }
   fputs(n ? "\n]}\n" : "]}\n", fp);
   free(v);
   free(dup);
   return ferror(fp) ? -1 : 0;
}

int cli_export(int argc, char **argv)
{
   int viz = 0;
   const char *out = NULL, *file = NULL;
   const cli_opt opts[] = {
      { "--cats-viz", NULL, &viz, NULL },
      { "-o", "--output", NULL, &out },
      { NULL, NULL, NULL, NULL },
   };
   const char *usage = "cats export --cats-viz FILE [-o OUT]";
   int rc = cli_parse(argc, argv, opts, &file, 1, usage);
   if (rc != CLI_OK)
      return rc == CLI_HELP ? CLI_OK : rc;
   if (!viz)
      return cli_error(CLI_EUSAGE, "export: choose a format: --cats-viz "
                       "(usage: %s)", usage);

   trace_file *t;
   if ((rc = cli_load_without_graph(file, &t)) != CLI_OK)
      return rc;
   char err[512];
   cli_outfile f;
   if (cli_outfile_open(&f, out, err, sizeof err) != 0) {
      trace_free(t);
      return cli_error(CLI_EFILE, "%s", err);
   }
   int ok = export_viz(t, f.fp) == 0;
   trace_free(t);
   if (cli_outfile_close(&f, ok, err, sizeof err) != 0) {
      if (ok)
         return cli_error(CLI_EFILE, "%s", err);
      return cli_error(CLI_EFILE, "%s: cannot write the export",
                       out ? out : "stdout");
   }
   return CLI_OK;
}
