/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cli_export_timeline.c: the memory timeline page of spcl/cats-viz,
 * {"events": [...]} of allocation, deallocation, access, scope_entry and
 * scope_exit events, which the viewer replays in file order (its clock is
 * the number of accesses before an event).
 *
 * A trace holds folded records, not single events, so each record expands
 * to its first and last occurrence:
 *   event record   access at first_time (offset base), and if count > 1 at
 *                  last_time (the far end of an affine pattern, the last
 *                  distinct offset of an irregular one)
 *   alloc record   allocation at first_alloc and deallocation at last_free
 *                  (if instances were released and none was leaked), each
 *                  widened to the record's accesses: the tool makes a
 *                  global or a stack frame when it is first touched, one
 *                  tick after that access, and a global may be read by
 *                  libc's exit handlers after its mapping is gone
 *   context        scope_entry and scope_exit, strictly nested (the viewer
 *                  has one stack for all threads): a folded scope spans its
 *                  first entry to its last exit, so siblings overlap, and
 *                  each is cut short where its next sibling starts, and at
 *                  its parent's end (thread roots are not scopes)
 * At equal times: allocations, accesses, deallocations, then scope events
 * in the order of a depth-first tour (the tool stamps a scope with the
 * clock after the last access). Only what follows the view's start is
 * written, with the containers live at the start allocated there, and of
 * the program's containers and scopes (cli_export.h). */
#include <stdlib.h>
#include <string.h>

#include "cli_export.h"
#include "cats/trace/json_out.h"
#include "cats/trace/trace_class.h"

enum vz_type { VZ_ALLOC, VZ_ACCESS, VZ_DEALLOC, VZ_ENTRY, VZ_EXIT };

/* One event before sorting. */
typedef struct vz_item {
   uint64_t time;      /* logical time */
   uint64_t order;     /* tie-break: record order or tour position */
   int64_t offset;     /* accesses: offset in the container */
   uint32_t ref;       /* ALLOCS, EVENTS or CONTEXTS id */
   uint8_t type;       /* enum vz_type, also the rank at equal times */
} vz_item;

static int cmp_item(const void *pa, const void *pb)
{
   const vz_item *a = pa, *b = pb;
   if (a->time != b->time)
      return a->time < b->time ? -1 : 1;
   int ra = a->type == VZ_EXIT ? VZ_ENTRY : a->type;
   int rb = b->type == VZ_EXIT ? VZ_ENTRY : b->type;
   if (ra != rb)
      return ra < rb ? -1 : 1;
   return (a->order > b->order) - (a->order < b->order);
}

/* A scope's clipped span and tour positions. */
typedef struct vz_scope {
   uint64_t start, end;
   uint64_t enter, leave;
   int shown;
} vz_scope;

typedef struct vz_child {
   uint32_t parent;    /* the nearest ancestor that is not a thread root */
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

/* The nearest ancestor that is shown (threads and libc's scopes are
 * not: their children take their place). */
static uint32_t scope_parent(const trace_file *t, const cli_program *view,
                             uint32_t i)
{
   uint32_t p = t->contexts[i].parent;
   while (p != CATS_NONE && !cli_program_context_shown(view, t, p))
      p = t->contexts[p].parent;
   return p;
}

/* Clips every scope into its parent and before its next sibling, in a
 * depth-first tour from a virtual root (the thread roots' children are
 * siblings: the viewer has one stack). A scope that starts before
 * `start` (main's callers) is not shown, but its children are. Returns -1 if out of
 * memory. */
static int clip_scopes(const trace_file *t, const cli_program *view,
                       vz_scope *sc)
{
   uint64_t start = view->start;
   size_t n = t->ncontexts;
   vz_child *keys = malloc((n + 1) * sizeof *keys);
   uint32_t *stack = malloc((n + 2) * sizeof *stack);
   size_t *next = malloc((n + 2) * sizeof *next);
   uint32_t *first = malloc((n + 2) * sizeof *first);
   if (!keys || !stack || !next || !first) {
      free(keys);
      free(stack);
      free(next);
      free(first);
      return -1;
   }
   size_t nk = 0;
   for (uint32_t i = 0; i < n; i++) {
      sc[i] = (vz_scope){ 0, 0, 0, 0, 0 };
      if (cli_program_context_shown(view, t, i))
         keys[nk++] = (vz_child){ scope_parent(t, view, i), i,
                                  t->contexts[i].first_time };
   }
   /* Children of the virtual root (parent NONE) sort last. */
   qsort(keys, nk, sizeof *keys, cmp_child);
   for (size_t k = 0; k <= n; k++)
      first[k] = UINT32_MAX;
   for (size_t k = nk; k-- > 0;) {
      uint32_t p = keys[k].parent == CATS_NONE ? (uint32_t)n : keys[k].parent;
      first[p] = (uint32_t)k;
   }
   /* The tour: stack[d] is a node (n for the root) and next[d] the key of
    * its next child. */
   uint64_t clock = 0;
   size_t sp = 0;
   stack[sp] = (uint32_t)n;
   next[sp++] = first[n];
   uint64_t root_end = UINT64_MAX;
   while (sp > 0) {
      uint32_t p = stack[sp - 1];
      size_t k = next[sp - 1];
      uint32_t parent_key = p == n ? CATS_NONE : p;
      if (k >= nk || keys[k].parent != parent_key) {
         if (p != n)
            sc[p].leave = clock++;
         sp--;
         continue;
      }
      uint32_t c = keys[k].id;
      next[sp - 1] = k + 1;
      uint64_t ps = p == n ? 0 : sc[p].start;
      uint64_t pe = p == n ? root_end : sc[p].end;
      const trace_context *x = &t->contexts[c];
      uint64_t s = x->first_time > ps ? x->first_time : ps;
      uint64_t e = x->last_time < pe ? x->last_time : pe;
      if (k + 1 < nk && keys[k + 1].parent == parent_key) {
         uint64_t ns = keys[k + 1].first_time > ps ? keys[k + 1].first_time : ps;
         if (ns < e)
            e = ns;
      }
      if (s >= e)
         continue;      /* nothing left of it, nor of its children */
      sc[c].start = s;
      sc[c].end = e;
      sc[c].shown = s >= start;
      sc[c].enter = clock++;
      stack[sp] = c;
      next[sp++] = first[c];
   }
   free(keys);
   free(stack);
   free(next);
   free(first);
   return 0;
}

/* The offset of the last access of a record. */
static int64_t last_offset(const trace_event *e)
{
   if (e->pattern == CATS_PAT_CONSTANT)
      return e->base;
   if (e->pattern == CATS_PAT_IRREGULAR)
      return e->ndistinct ? e->distinct[e->ndistinct - 1] : e->max_offset;
   return trace_class_stride(e) < 0 ? e->min_offset : e->max_offset;
}

/* The events after `start`, sorted; NULL if out of memory. */
static vz_item *collect(const trace_file *t, const cli_program *view,
                        size_t *nout, size_t *naccess, size_t *nalloc)
{
   uint64_t start = view->start;
   size_t cap = 2 * ((size_t)t->nallocs + t->nevents + t->ncontexts) + 1;
   vz_item *v = malloc(cap * sizeof *v);
   vz_scope *sc = malloc(((size_t)t->ncontexts + 1) * sizeof *sc);
   uint64_t *lo = malloc(((size_t)t->nallocs + 1) * sizeof *lo);
   uint64_t *hi = calloc((size_t)t->nallocs + 1, sizeof *hi);
   if (!v || !sc || !lo || !hi || clip_scopes(t, view, sc) != 0) {
      free(v);
      free(sc);
      free(lo);
      free(hi);
      return NULL;
   }
   size_t n = 0;
   *naccess = *nalloc = 0;
   for (uint32_t i = 0; i < t->nallocs; i++)
      lo[i] = UINT64_MAX;
   for (uint32_t i = 0; i < t->nevents; i++) {
      const trace_event *e = &t->events[i];
      if (e->alloc >= t->nallocs || !view->ours[e->alloc])
         continue;
      if (e->first_time < lo[e->alloc])
         lo[e->alloc] = e->first_time;
      if (e->last_time > hi[e->alloc])
         hi[e->alloc] = e->last_time;
      if (e->first_time > start || start == 0) {
         v[n++] = (vz_item){ e->first_time, i, e->base, i, VZ_ACCESS };
         ++*naccess;
      }
      if (e->count > 1 && (e->last_time > start || start == 0)) {
         v[n++] = (vz_item){ e->last_time, i, last_offset(e), i, VZ_ACCESS };
         ++*naccess;
      }
   }
   for (uint32_t i = 0; i < t->nallocs; i++) {
      const trace_alloc *a = &t->allocs[i];
      if (!view->ours[i] || (lo[i] == UINT64_MAX && start != 0))
         continue;      /* libc's, or never accessed */
      uint64_t born = a->first_alloc < lo[i] ? a->first_alloc : lo[i];
      int freed = (a->first_free || a->last_free) &&
                  !(a->flags & CATS_ALLOCFLAG_LEAKED);
      uint64_t gone = a->last_free > hi[i] ? a->last_free : hi[i];
      if (freed && gone <= start && start != 0)
         continue;      /* gone before the exported part */
      v[n++] = (vz_item){ born > start ? born : start, i, 0, i, VZ_ALLOC };
      ++*nalloc;
      if (freed)
         v[n++] = (vz_item){ gone, i, 0, i, VZ_DEALLOC };
   }
   for (uint32_t i = 0; i < t->ncontexts; i++) {
      if (!sc[i].shown)
         continue;
      v[n++] = (vz_item){ sc[i].start, sc[i].enter, 0, i, VZ_ENTRY };
      v[n++] = (vz_item){ sc[i].end, sc[i].leave, 0, i, VZ_EXIT };
   }
   free(sc);
   free(lo);
   free(hi);
   qsort(v, n, sizeof *v, cmp_item);
   *nout = n;
   return v;
}

/* "type", funcname, filename, line of a code location. */
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
   fputs(", \"buffer_name\": ", fp);
   cli_export_buffer_name(t, fp, id, dup);
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
      /* The record's footprint: its instances live at once (a recursive
         function's frames, a block allocated again before the last is
         freed) at their largest. */
      uint64_t live = a->max_live ? a->max_live : 1;
      fprintf(fp, ", \"size\": %llu}",
              (unsigned long long)(a->size * live));
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

int cli_export_timeline(const trace_file *t, const cli_program *view,
                        FILE *fp, char *err, size_t errlen)
{
   size_t n, naccess, nalloc;
   vz_item *v = collect(t, view, &n, &naccess, &nalloc);
   uint8_t *dup = v ? cli_export_shared_names(t) : NULL;
   if (!v || !dup) {
      free(v);
      snprintf(err, errlen, "out of memory");
      return -1;
   }
   if (naccess == 0 || nalloc == 0) {
      free(v);
      free(dup);
      return cli_export_nothing(view, err, errlen);
   }
   fputs("{\"events\": [", fp);
   for (size_t i = 0; i < n; i++) {
      fputs(i ? ",\n  " : "\n  ", fp);
      write_item(t, fp, &v[i], dup);
   }
   fputs("\n]}\n", fp);
   free(v);
   free(dup);
   return ferror(fp) ? -1 : 0;
}
