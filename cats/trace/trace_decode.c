/* SPDX-License-Identifier: GPL-2.0-or-later */
/* trace_decode.c: the decode layer of the trace reader.
 *
 * Parses raw section payloads into the arrays of trace_file and checks every
 * reference, so that consumers can index the arrays without tests. Sections
 * are parsed in dependency order (strings, locs, contexts, allocs, events),
 * which lets each record be checked against the sections it refers to as
 * soon as it is read; the optional sections come last (trace_decode_vcg.c,
 * trace_decode_reuse.c). Each section's size must equal exactly what its
 * count implies; EVENTS, whose records are of variable length, must end
 * with its last record. */
#include "errmsg.h"
#include "trace_class.h"
#include "trace_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "le.h"
#include "var.h"

#define NSEC (CATS_SEC_DEPS + 1)

/* The offsets below are written out per field; these pin the record ends
 * to the sizes in cats_format.h so the two cannot drift apart. */
_Static_assert(24 + 4 == TRACE_LOC_RECORD, "LOCS record size");
_Static_assert(48 + 8 == TRACE_CONTEXT_RECORD, "CONTEXTS record size");
_Static_assert(104 + 8 == TRACE_ALLOC_RECORD, "ALLOCS record size");

/* Check that a fixed-record section holds exactly `count` records and
 * return the count; records start at byte 4. */
static trace_status record_count(const trace_section *s, size_t recsize,
                                 uint32_t *count, char *err, size_t errlen)
{
   const char *nm = trace_section_name(s->type);
   if (s->size < 4)
      return trace_fail(err, errlen, TRACE_ERECORD,
                        "%s: %zu bytes, too short for its count", nm, s->size);
   uint32_t n = le_u32(s->data);
   uint64_t need = 4 + (uint64_t)n * recsize;
   if (need != s->size)
      return trace_fail(err, errlen, TRACE_ERECORD,
                        "%s: %u records of %zu bytes need %llu bytes, the "
                        "section has %zu", nm, n, recsize,
                        (unsigned long long)need, s->size);
   *count = n;
   return TRACE_OK;
}

/* Allocate n elements (at least one, so a zero count is not NULL). */
static void *alloc_array(size_t n, size_t elem)
{
   return calloc(n ? n : 1, elem);
}

static trace_status parse_strings(trace_file *t, const trace_section *s, char *err,
                                  size_t errlen)
{
   if (s->size < 4)
      return trace_fail(err, errlen, TRACE_ERECORD,
                        "STRINGS: %zu bytes, too short for its count", s->size);
   uint32_t n = le_u32(s->data);
   /* Each string takes at least its 4-byte length. */
   if ((uint64_t)n * 4 > s->size - 4)
      return trace_fail(err, errlen, TRACE_ERECORD,
                        "STRINGS: %u strings cannot fit in %zu bytes", n,
                        s->size);
   if (n == 0)
      return trace_fail(err, errlen, TRACE_EVALUE,
                        "STRINGS: no strings (string 0 must be empty)");
   t->strings = alloc_array(n, sizeof *t->strings);
   t->string_len = alloc_array(n, sizeof *t->string_len);
   /* The lengths take 4n of the payload bytes, and each string gains one
    * NUL, so the blob never exceeds the payload size. */
   t->string_blob = malloc(s->size + 1);
   if (!t->strings || !t->string_len || !t->string_blob)
      return trace_fail(err, errlen, TRACE_ENOMEM, "out of memory (strings)");
   t->nstrings = n;

   size_t pos = 4, out = 0;
   for (uint32_t i = 0; i < n; i++) {
      if (s->size - pos < 4)
         return trace_fail(err, errlen, TRACE_ERECORD,
                           "STRINGS: string %u: length runs past the section",
                           i);
      uint32_t len = le_u32(s->data + pos);
      pos += 4;
      if (len > s->size - pos)
         return trace_fail(err, errlen, TRACE_ERECORD,
                           "STRINGS: string %u: %u bytes run past the section",
                           i, len);
      memcpy(t->string_blob + out, s->data + pos, len);
      t->string_blob[out + len] = '\0';
      t->strings[i] = t->string_blob + out;
      t->string_len[i] = len;
      out += (size_t)len + 1;
      pos += len;
   }
   if (pos != s->size)
      return trace_fail(err, errlen, TRACE_ERECORD,
                        "STRINGS: %zu trailing bytes after %u strings",
                        s->size - pos, n);
   if (t->string_len[0] != 0)
      return trace_fail(err, errlen, TRACE_EVALUE,
                        "STRINGS: string 0 is not the empty string");
   return TRACE_OK;
}

/* Reference checks; `what` names the record for the message. */
#define CHECK_STR(id, what, i)                                              \
   do {                                                                     \
      if ((id) >= t->nstrings)                                              \
         return trace_fail(err, errlen, TRACE_EREF,                             \
                           "%s %u: string id %u out of range (%u strings)",   \
                           what, i, (id), t->nstrings);                       \
   } while (0)

#define CHECK_ID(id, limit, none_ok, what, i, field)                        \
   do {                                                                     \
      if (!((none_ok) && (id) == CATS_NONE) && (id) >= (limit))             \
         return trace_fail(err, errlen, TRACE_EREF,                             \
                           "%s %u: %s %u out of range (%u)", what, i, field,  \
                           (id), (limit));                                    \
   } while (0)

static trace_status parse_meta(trace_file *t, const trace_section *s, char *err,
                               size_t errlen)
{
   uint32_t n;
   trace_status st = record_count(s, 8, &n, err, errlen);
   if (st != TRACE_OK)
      return st;
   t->meta = alloc_array(n, sizeof *t->meta);
   if (!t->meta)
      return trace_fail(err, errlen, TRACE_ENOMEM, "out of memory (meta)");
   t->nmeta = n;
   for (uint32_t i = 0; i < n; i++) {
      const uint8_t *p = s->data + 4 + (size_t)i * 8;
      t->meta[i].key = le_u32(p);
      t->meta[i].value = le_u32(p + 4);
      CHECK_STR(t->meta[i].key, "meta", i);
      CHECK_STR(t->meta[i].value, "meta", i);
   }
   return TRACE_OK;
}

/* Following inline_parent must end; colour the chains so each loc is
 * walked once (O(n)) instead of walking every chain from every loc. */
static trace_status check_inline_cycles(const trace_file *t, char *err,
                                        size_t errlen)
{
   uint8_t *state = calloc(t->nlocs ? t->nlocs : 1, 1); /* 0 new, 1 on
                                                           path, 2 done */
   if (!state)
      return trace_fail(err, errlen, TRACE_ENOMEM, "out of memory (locs)");
   for (uint32_t i = 0; i < t->nlocs; i++) {
      uint32_t j = i;
      while (j != CATS_NONE && state[j] == 0) {
         state[j] = 1;
         j = t->locs[j].inline_parent;
      }
      if (j != CATS_NONE && state[j] == 1) {
         free(state);
         return trace_fail(err, errlen, TRACE_EREF,
                           "loc %u: inline_parent chain forms a cycle", j);
      }
      for (j = i; j != CATS_NONE && state[j] == 1;
           j = t->locs[j].inline_parent)
         state[j] = 2;
   }
   free(state);
   return TRACE_OK;
}

static trace_status parse_locs(trace_file *t, const trace_section *s, char *err,
                               size_t errlen)
{
   uint32_t n;
   trace_status st = record_count(s, TRACE_LOC_RECORD, &n, err, errlen);
   if (st != TRACE_OK)
      return st;
   t->locs = alloc_array(n, sizeof *t->locs);
   if (!t->locs)
      return trace_fail(err, errlen, TRACE_ENOMEM, "out of memory (locs)");
   t->nlocs = n;
   for (uint32_t i = 0; i < n; i++) {
      const uint8_t *p = s->data + 4 + (size_t)i * TRACE_LOC_RECORD;
      trace_loc *l = &t->locs[i];
      l->addr = le_u64(p);
      l->function = le_u32(p + 8);
      l->file = le_u32(p + 12);
      l->line = le_u32(p + 16);
      l->object = le_u32(p + 20);
      l->inline_parent = le_u32(p + 24);
      CHECK_STR(l->function, "loc", i);
      CHECK_STR(l->file, "loc", i);
      CHECK_STR(l->object, "loc", i);
      CHECK_ID(l->inline_parent, n, 1, "loc", i, "inline_parent");
   }
   return check_inline_cycles(t, err, errlen);
}

static trace_status parse_contexts(trace_file *t, const trace_section *s,
                                   char *err, size_t errlen)
{
   uint32_t n;
   trace_status st = record_count(s, TRACE_CONTEXT_RECORD, &n, err, errlen);
   if (st != TRACE_OK)
      return st;
   t->contexts = alloc_array(n, sizeof *t->contexts);
   if (!t->contexts)
      return trace_fail(err, errlen, TRACE_ENOMEM, "out of memory (contexts)");
   t->ncontexts = n;
   for (uint32_t i = 0; i < n; i++) {
      const uint8_t *p = s->data + 4 + (size_t)i * TRACE_CONTEXT_RECORD;
      trace_context *c = &t->contexts[i];
      c->parent = le_u32(p);
      c->kind = p[4];
      c->flags = p[5];
      c->loc = le_u32(p + 8);
      c->name = le_u32(p + 12);
      c->entries = le_u64(p + 16);
      c->iterations = le_u64(p + 24);
      c->max_iterations = le_u64(p + 32);
      c->first_time = le_u64(p + 40);
      c->last_time = le_u64(p + 48);
      /* Parents before children makes the tree acyclic by construction
       * and lets depth be computed in one pass. */
      if (c->parent != CATS_NONE && c->parent >= i)
         return trace_fail(err, errlen, TRACE_EREF,
                           "context %u: parent %u is not smaller than its "
                           "own id", i, c->parent);
      if (c->kind > CATS_CTX_SIGNAL)
         return trace_fail(err, errlen, TRACE_EVALUE,
                           "context %u: unknown kind %u", i, c->kind);
      CHECK_ID(c->loc, t->nlocs, 1, "context", i, "loc");
      CHECK_STR(c->name, "context", i);
      c->depth = c->parent == CATS_NONE ? 0
                                        : t->contexts[c->parent].depth + 1;
   }
   return TRACE_OK;
}

static trace_status parse_allocs(trace_file *t, const trace_section *s, char *err,
                                 size_t errlen)
{
   uint32_t n;
   trace_status st = record_count(s, TRACE_ALLOC_RECORD, &n, err, errlen);
   if (st != TRACE_OK)
      return st;
   t->allocs = alloc_array(n, sizeof *t->allocs);
   if (!t->allocs)
      return trace_fail(err, errlen, TRACE_ENOMEM, "out of memory (allocs)");
   t->nallocs = n;
   for (uint32_t i = 0; i < n; i++) {
      const uint8_t *p = s->data + 4 + (size_t)i * TRACE_ALLOC_RECORD;
      trace_alloc *a = &t->allocs[i];
      a->kind = p[0];
      a->flags = p[1];
      a->name = le_u32(p + 4);
      a->alloc_ctx = le_u32(p + 8);
      a->alloc_loc = le_u32(p + 12);
      a->free_ctx = le_u32(p + 16);
      a->free_loc = le_u32(p + 20);
      a->realloc_from = le_u32(p + 24);
      /* p + 28: reserved2 */
      a->size = le_u64(p + 32);
      a->count = le_u64(p + 40);
      a->max_live = le_u64(p + 48);
      a->first_alloc = le_u64(p + 56);
      a->last_alloc = le_u64(p + 64);
      a->first_free = le_u64(p + 72);
      a->last_free = le_u64(p + 80);
      a->base = le_u64(p + 88);
      /* p + 96: reserved3 */
      a->total_bytes = le_u64(p + 104);
      if (a->kind >= CATS_ALLOC_KIND_COUNT)
         return trace_fail(err, errlen, TRACE_EVALUE,
                           "alloc %u: unknown kind %u", i, a->kind);
      CHECK_STR(a->name, "alloc", i);
      CHECK_ID(a->alloc_ctx, t->ncontexts, 1, "alloc", i, "alloc_ctx");
      CHECK_ID(a->alloc_loc, t->nlocs, 1, "alloc", i, "alloc_loc");
      CHECK_ID(a->free_ctx, t->ncontexts, 1, "alloc", i, "free_ctx");
      CHECK_ID(a->free_loc, t->nlocs, 1, "alloc", i, "free_loc");
      CHECK_ID(a->realloc_from, n, 1, "alloc", i, "realloc_from");
   }
   return TRACE_OK;
}

static int get_u8(var_in *in, uint8_t *v)
{
   if (in->p == in->end)
      return -1;
   *v = *in->p++;
   return 0;
}

/* The smallest record: its 16 fields one byte each (ctx, loc, alloc,
 * kind, pattern, ndims, flags, size, ndistinct, count, first_time, span,
 * base, min and max offset, the histogram's mask), no dimensions, no
 * distinct offsets, no histogram bucket. Bounds the count before
 * allocating. */
#define EVENT_MIN_BYTES 16

/* One EVENTS record into e; 0, or the get_* error. */
static int get_event(var_in *in, trace_event *e)
{
   uint64_t span = 0;
   int r = var_get_u32(in, &e->ctx);
   if (!r) r = var_get_u32(in, &e->loc);
   if (!r) r = var_get_u32(in, &e->alloc);
   if (!r) r = get_u8(in, &e->kind);
   if (!r) r = get_u8(in, &e->pattern);
   if (!r) r = get_u8(in, &e->ndims);
   if (!r) r = get_u8(in, &e->flags);
   if (!r) r = var_get_u32(in, &e->size);
   if (!r) r = var_get_u32(in, &e->ndistinct);
   if (!r) r = var_get_u(in, &e->count);
   if (!r) r = var_get_u(in, &e->first_time);
   if (!r) r = var_get_u(in, &span);
   if (!r && span > UINT64_MAX - e->first_time)
      r = -2;
   e->last_time = e->first_time + span;
   if (!r) r = var_get_s(in, &e->base);
   if (r || e->ndims > CATS_MAX_DIMS || e->ndistinct > CATS_MAX_DISTINCT)
      return r;   /* the caller names the bad count */
   for (int k = 0; k < CATS_MAX_DIMS; k++) {
      e->stride[k] = 0;
      e->extent[k] = 0;
      if (!r && k < e->ndims) {
         r = var_get_s(in, &e->stride[k]);
         if (!r) r = var_get_u(in, &e->extent[k]);
      }
   }
   if (!r) r = var_get_s(in, &e->min_offset);
   if (!r) r = var_get_s(in, &e->max_offset);
   for (uint32_t k = 0; k < CATS_MAX_DISTINCT; k++) {
      e->distinct[k] = 0;
      if (!r && k < e->ndistinct)
         r = var_get_s(in, &e->distinct[k]);
   }
   uint32_t mask = 0;
   if (!r) r = var_get_u32(in, &mask);
   if (!r && mask >> CATS_HIST_BUCKETS)
      r = -2;
   for (int k = 0; k < CATS_HIST_BUCKETS; k++) {
      e->hist[k] = 0;
      if (!r && (mask >> k & 1)) {
         r = var_get_u32(in, &e->hist[k]);
         if (!r && e->hist[k] == 0)
            r = -2;   /* a bucket marked as not empty */
      }
   }
   return r;
}

/* Without keep (a check), each record is checked and only its key is
 * kept: a large program's million records would otherwise be held twice
 * by the helper, raw and decoded. */
static trace_status parse_events(trace_file *t, const trace_section *s, int keep,
                                 char *err, size_t errlen)
{
   if (s->size < 4)
      return trace_fail(err, errlen, TRACE_ERECORD,
                        "EVENTS: %zu bytes, too short for its count", s->size);
   uint32_t n = le_u32(s->data);
   if ((uint64_t)n * EVENT_MIN_BYTES > s->size - 4)
      return trace_fail(err, errlen, TRACE_ERECORD,
                        "EVENTS: %u records cannot fit in %zu bytes", n,
                        s->size);
   t->events = keep ? alloc_array(n, sizeof *t->events) : NULL;
   t->event_keys = alloc_array(n, sizeof *t->event_keys);
   if ((keep && !t->events) || !t->event_keys)
      return trace_fail(err, errlen, TRACE_ENOMEM, "out of memory (events)");
   t->nevents = n;
   var_in in = { s->data + 4, s->data + s->size };
   trace_event scratch;
   for (uint32_t i = 0; i < n; i++) {
      trace_event *e = keep ? &t->events[i] : &scratch;
      int r = get_event(&in, e);
      if (r == -1)
         return trace_fail(err, errlen, TRACE_ERECORD,
                           "event %u: the section ends inside the record", i);
      if (r != 0)
         return trace_fail(err, errlen, TRACE_EVALUE,
                           "event %u: a field is malformed or too large", i);
      CHECK_ID(e->ctx, t->ncontexts, 0, "event", i, "ctx");
      CHECK_ID(e->loc, t->nlocs, 0, "event", i, "loc");
      CHECK_ID(e->alloc, t->nallocs, 0, "event", i, "alloc");
      if (e->kind > CATS_WRITE)
         return trace_fail(err, errlen, TRACE_EVALUE,
                           "event %u: unknown access kind %u", i, e->kind);
      if (e->pattern > CATS_PAT_IRREGULAR)
         return trace_fail(err, errlen, TRACE_EVALUE,
                           "event %u: unknown pattern %u", i, e->pattern);
      if (e->ndims > CATS_MAX_DIMS)
         return trace_fail(err, errlen, TRACE_EVALUE,
                           "event %u: ndims %u exceeds %d", i, e->ndims,
                           CATS_MAX_DIMS);
      if (e->ndistinct > CATS_MAX_DISTINCT)
         return trace_fail(err, errlen, TRACE_EVALUE,
                           "event %u: ndistinct %u exceeds %d", i,
                           e->ndistinct, CATS_MAX_DISTINCT);
      t->event_keys[i] = (trace_event_key){ e->count, e->loc, e->alloc,
                                          e->kind };
   }
   if (in.p != in.end)
      return trace_fail(err, errlen, TRACE_ERECORD,
                        "EVENTS: %zu bytes after the last of its %u records",
                        (size_t)(in.end - in.p), n);
   return TRACE_OK;
}

typedef trace_status (*parse_fn)(trace_file *, const trace_section *, char *,
                                 size_t);

/* keep: the events and the graph are kept; a check only checks them.
 * keep_graph: the graph too (a trace opened without it has none). */
static trace_status decode(const trace_section *secs, size_t n, int keep,
                           int keep_graph, trace_file **out, char *err, size_t errlen)
{
   *out = NULL;
   const trace_section *by_type[NSEC] = { NULL };
   for (size_t i = 0; i < n; i++) {
      uint32_t ty = secs[i].type;
      if (ty < CATS_SEC_STRINGS || ty >= NSEC)
         return trace_fail(err, errlen, TRACE_ETABLE,
                           "section %zu has the unknown type %u", i, ty);
      if (by_type[ty])
         return trace_fail(err, errlen, TRACE_ETABLE,
                           "section %u (%s) appears twice", ty,
                           trace_section_name(ty));
      if (secs[i].size > 0 && !secs[i].data)
         return trace_fail(err, errlen, TRACE_ERECORD, "section %s has no data",
                           trace_section_name(ty));
      by_type[ty] = &secs[i];
   }
   /* Dependency order: each parser checks references to earlier ones. */
   static const struct {
      uint32_t type;
      parse_fn parse;
   } order[] = {
      { CATS_SEC_STRINGS, parse_strings },
      { CATS_SEC_META, parse_meta },
      { CATS_SEC_LOCS, parse_locs },
      { CATS_SEC_CONTEXTS, parse_contexts },
      { CATS_SEC_ALLOCS, parse_allocs },
   };
   for (uint32_t ty = CATS_SEC_STRINGS; ty <= CATS_SEC_EVENTS; ty++)
      if (!by_type[ty])
         return trace_fail(err, errlen, TRACE_EMISSING,
                           "required section %s is missing",
                           trace_section_name(ty));

   trace_file *t = calloc(1, sizeof *t);
   if (!t)
      return trace_fail(err, errlen, TRACE_ENOMEM, "out of memory");
   for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
      trace_status st = order[i].parse(t, by_type[order[i].type], err, errlen);
      if (st != TRACE_OK) {
         trace_free(t);
         return st;
      }
   }
   /* Events last: they refer to all of the above. */
   trace_status est = parse_events(t, by_type[CATS_SEC_EVENTS], keep,
                                   err, errlen);
   if (est == TRACE_OK && keep)
      est = trace_class_events(t, err, errlen);
   if (est != TRACE_OK) {
      trace_free(t);
      return est;
   }
   if (by_type[CATS_SEC_VCG]) {
      trace_status st = trace_decode_vcg(t, by_type[CATS_SEC_VCG],
                                         keep && keep_graph, err, errlen);
      if (st != TRACE_OK) {
         trace_free(t);
         return st;
      }
      if (!keep_graph) {
         t->has_vcg = 0;   /* checked, not kept */
         memset(&t->vcg, 0, sizeof t->vcg);
      }
   }
   /* Sections 9 to 11 refer to events, allocs, contexts and locs only. */
   trace_status rst = trace_decode_reuse(t, by_type[CATS_SEC_REUSE], keep, err, errlen);
   if (rst == TRACE_OK)
      rst = trace_decode_index(t, by_type[CATS_SEC_INDEX], err, errlen);
   if (rst == TRACE_OK)
      rst = trace_decode_deps(t, by_type[CATS_SEC_DEPS], err, errlen);
   if (rst != TRACE_OK) {
      trace_free(t);
      return rst;
   }
   /* Section 8 is kept raw: partition/part_section.c decodes and checks
    * it for the commands that use it. */
   const trace_section *pj = by_type[CATS_SEC_PROJECT];
   if (pj) {
      t->projection = malloc(pj->size ? pj->size : 1);
      if (!t->projection) {
         trace_free(t);
         return trace_fail(err, errlen, TRACE_ENOMEM, "out of memory");
      }
      if (pj->size)
         memcpy(t->projection, pj->data, pj->size);
      t->projection_len = pj->size;
      t->has_projection = 1;
   }
   *out = t;
   return TRACE_OK;
}

trace_status trace_decode(const trace_section *secs, size_t n, trace_file **out,
                          char *err, size_t errlen)
{
   return decode(secs, n, 1, 1, out, err, errlen);
}

trace_status trace_decode_without_graph(const trace_section *secs, size_t n,
                                        trace_file **out, char *err,
                                        size_t errlen)
{
   return decode(secs, n, 1, 0, out, err, errlen);
}

trace_status trace_check(const trace_section *secs, size_t n, char *err,
                         size_t errlen)
{
   trace_file *t;
   trace_status st = decode(secs, n, 0, 0, &t, err, errlen);
   trace_free(t);
   return st;
}

void trace_free(trace_file *t)
{
   if (!t)
      return;
   free(t->strings);
   free(t->string_len);
   free(t->string_blob);
   free(t->meta);
   free(t->locs);
   free(t->contexts);
   free(t->allocs);
   free(t->events);
   free(t->event_keys);
   free(t->vcg.vertices);
   free(t->vcg.edges);
   free(t->projection);
   free(t->reuse.events);
   free(t->reuse.allocs);
   free(t->index_loc);
   free(t->index_alloc);
   free(t->deps);
   free(t);
}

const char *trace_str(const trace_file *t, uint32_t id)
{
   if (id >= t->nstrings)
      return "";
   return t->strings[id];
}

const char *trace_meta_get(const trace_file *t, const char *key)
{
   for (uint32_t i = 0; i < t->nmeta; i++)
      if (strcmp(t->strings[t->meta[i].key], key) == 0)
         return t->strings[t->meta[i].value];
   return NULL;
}

long long trace_meta_number(const trace_file *t, const char *key)
{
   const char *v = trace_meta_get(t, key);
   if (!v)
      return -1;
   if (!*v || strspn(v, "0123456789") != strlen(v) || strlen(v) > 18)
      return -2;
   return strtoll(v, NULL, 10);
}

trace_status trace_counted_section(const trace_file *t, const trace_section *s,
                                   const char *key, uint32_t type, const char *noun,
                                   unsigned size, int required, uint32_t *n,
                                   char *err, size_t errlen)
{
   const char *nm = trace_section_name(type);
   long long meta = trace_meta_number(t, key);
   *n = 0;
   if (!s && meta != -1)
      return trace_fail(err, errlen, TRACE_EMISSING,
                        "META %s is set but section %u (%s) is missing", key,
                        type, nm);
   if (!s)
      return TRACE_OK;
   if (s->size < 4)
      return trace_fail(err, errlen, TRACE_ERECORD,
                        "%s: %zu bytes, too short for its count", nm, s->size);
   uint32_t count = le_u32(s->data);
   uint64_t need = 4 + (uint64_t)count * size;
   if (need != s->size)
      return trace_fail(err, errlen, TRACE_ERECORD,
                        "%s: %u %s of %u bytes need %llu bytes, the section "
                        "has %zu", nm, count, noun, size,
                        (unsigned long long)need, s->size);
   if ((required || meta != -1) && meta != (long long)count)
      return trace_fail(err, errlen, TRACE_EVALUE,
                        "%s: %u %s, but META %s is %s", nm, count, noun, key,
                        meta == -1 ? "absent" : trace_meta_get(t, key));
   *n = count;
   return TRACE_OK;
}

const char *trace_no_graph_reason(const trace_file *t, char *buf, size_t len)
{
   const char *left = trace_meta_get(t, "vcg_left_out");
   const char *vf = trace_meta_get(t, "value_flow");
   if (left)
      snprintf(buf, len, "the value communication graph was left out of "
               "this trace at the end of the run: %s", left);
   else if (vf && strcmp(vf, "no") == 0)
      snprintf(buf, len, "no value communication graph: the run had "
               "--value-flow=no");
   else
      snprintf(buf, len, "no value communication graph in this trace");
   errmsg_sanitize(buf);
   return buf;
}
