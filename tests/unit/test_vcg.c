/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_vcg.c: the value communication graph builder, section 7 and its
 * decoder.
 *
 * usage: test_vcg WORKDIR
 * Writes WORKDIR/vcg.cats (the synthetic trace with the graph of
 * vfs_example) and WORKDIR/vcg_big.cats (20001 vertices) for the CLI
 * tests of run.sh. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cats/format/cats_format.h"
#include "cats/trace/le.h"
#include "cats/trace/trace.h"
#include "cats/trace/trace_write.h"
#include "vcg/vcg_build.h"
#include "vcg/vcg_idmap.h"
#include "vcg/vcg_pattern.h"
#include "vcg/vcg_section.h"
#include "check.h"
#include "synth.h"
#include "vfsynth.h"

CHECK_DEFINE_GLOBALS;

#define NONE CATS_NONE

static const char *workdir;

/* Feed vf (as one frame) and end; finish into g. */
static vcg_status build(const trace_buf *vf, const trace_buf *end, vcg_graph *g,
                        char *err, size_t errlen)
{
   memset(g, 0, sizeof *g);
   vcg_builder *b = vcg_builder_new();
   if (!b)
      return VCG_ENOMEM;
   size_t used = 0;
   vcg_status st = vcg_feed(b, vf->data, vf->len, 1, &used, err, errlen);
   if (st == VCG_OK && used != vf->len)
      st = VCG_EINPUT;
   if (st == VCG_OK)
      st = vcg_end(b, end->data, end->len, err, errlen);
   if (st == VCG_OK)
      st = vcg_finish(b, g, err, errlen);
   vcg_builder_free(b);
   return st;
}

/* The edge (src, dst, ctx) of g, or NULL. */
static const vcg_edge *edge(const vcg_graph *g, uint32_t src, uint32_t dst,
                            uint32_t ctx)
{
   for (uint32_t i = 0; i < g->nedges; i++)
      if (g->edges[i].src == src && g->edges[i].dst == dst &&
          g->edges[i].ctx == ctx)
         return &g->edges[i];
   return NULL;
}

/* VF_END with no allocation table and the given final versions. */
static int end_simple(trace_buf *e, uint32_t n, const uint32_t *ids,
                      const uint32_t *versions, const uint8_t *flags)
{
   return vfs_end(e, 8, 0, NULL, n, ids, versions, flags);
}

/* c = a + b: edges a -> c and b -> c with one use each. */
static void test_add(void)
{
   trace_buf vf = TRACE_BUF_INIT, end = TRACE_BUF_INIT;
   vfs_vertex(&vf, 7, CATS_VF_MEMORY_INPUT, NONE, 0, 8, 0, 0);
   vfs_vertex(&vf, 9, CATS_VF_MEMORY_INPUT, NONE, 8, 8, 0, 0);
   vfs_vertex(&vf, 5, CATS_VF_MEMORY, NONE, 16, 8, 1, 2);
   vfs_sources(&vf, 5, 1, 3, 2, (const uint32_t[]){ 7, 9 });
   end_simple(&end, 1, (const uint32_t[]){ 5 }, (const uint32_t[]){ 1 },
              (const uint8_t[]){ 1 });
   vcg_graph g;
   char err[VCG_ERRLEN] = "";
   CHECK_EQ(build(&vf, &end, &g, err, sizeof err), VCG_OK);
   CHECK_EQ(g.word_size, 8);
   CHECK_EQ(g.nvertices, 3);
   CHECK_EQ(g.nedges, 2);
   if (g.nvertices == 3 && g.nedges == 2) {
      /* Sorted by (alloc, offset): a, b, c. */
      CHECK_EQ(g.vertices[0].offset, 0);
      CHECK_EQ(g.vertices[0].flags, CATS_VCG_INPUT);
      CHECK_EQ(g.vertices[0].versions, 1);
      CHECK_EQ(g.vertices[1].flags, CATS_VCG_INPUT);
      CHECK_EQ(g.vertices[2].flags, CATS_VCG_OUTPUT);
      CHECK_EQ(g.vertices[2].versions, 1);
      CHECK_EQ(g.vertices[2].weight, 2);
      CHECK_EQ(g.vertices[2].ctx, 1);
      CHECK_EQ(g.vertices[2].loc, 2);
      CHECK_EQ(g.vertices[2].alloc, NONE);
      const vcg_edge *e = edge(&g, 0, 2, 3);
      CHECK(e != NULL);
      if (e) {
         CHECK_EQ(e->uses, 1);
         CHECK_EQ(e->versions, 1);
      }
      e = edge(&g, 1, 2, 3);
      CHECK(e != NULL && e->uses == 1 && e->versions == 1);
   }
   vcg_graph_free(&g);
   trace_buf_free(&vf);
   trace_buf_free(&end);
}

/* VF_END's runs: ids 10, 11, 12 as one run of 3 (5 versions, outputs)
 * and 13 alone (2 versions, an output read by a condition): every vertex
 * of a run gets its versions and flags, so x -> 10..12 have 5 uses each
 * and x -> 13 has 2. A run of 0,
 * one past id 2^32 - 1 and one over an unknown id are refused. */
static void test_end_runs(void)
{
   trace_buf vf = TRACE_BUF_INIT, end = TRACE_BUF_INIT;
   vfs_vertex(&vf, 1, CATS_VF_MEMORY_INPUT, NONE, 0, 8, 0, 0);
   for (uint32_t id = 10; id <= 13; id++) {
      vfs_vertex(&vf, id, CATS_VF_MEMORY, NONE, 8 * id, 8, 0, 0);
      vfs_sources(&vf, id, 1, 0, 1, (const uint32_t[]){ 1 });
   }
   trace_buf_put32(&end, 8);
   trace_buf_put32(&end, 0);
   trace_buf_put32(&end, 2);
   trace_buf_put32(&end, 10);
   trace_buf_put32(&end, 3);
   trace_buf_put32(&end, 5);
   trace_buf_put8(&end, CATS_VF_END_OUTPUT);
   trace_buf_put32(&end, 13);
   trace_buf_put32(&end, 1);
   trace_buf_put32(&end, 2);
   trace_buf_put8(&end, CATS_VF_END_OUTPUT | CATS_VF_END_CONTROL);
   vcg_graph g;
   char err[VCG_ERRLEN] = "";
   CHECK_EQ(build(&vf, &end, &g, err, sizeof err), VCG_OK);
   CHECK_EQ(g.nvertices, 5);
   CHECK_EQ(g.nedges, 4);
   for (uint32_t i = 1; i < g.nvertices && g.nvertices == 5; i++) {
      CHECK_EQ(g.vertices[i].versions, i < 4 ? 5 : 2);
      CHECK_EQ(g.vertices[i].flags,
               i < 4 ? CATS_VCG_OUTPUT : CATS_VCG_OUTPUT | CATS_VCG_CONTROL);
      const vcg_edge *e = edge(&g, 0, i, 0);
      CHECK(e != NULL && e->uses == (i < 4 ? 5 : 2));
   }
   vcg_graph_free(&g);
   const struct { uint32_t first, count; const char *msg; } bad[] = {
      { 10, 0, "a run of 0 vertices from 10" },
      { 0xFFFFFFFFu, 2, "a run of 2 vertices from 4294967295" },
      { 12, 3, "unknown vertex 14" },
   };
   for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
      end.len = 0;
      trace_buf_put32(&end, 8);
      trace_buf_put32(&end, 0);
      trace_buf_put32(&end, 1);
      trace_buf_put32(&end, bad[k].first);
      trace_buf_put32(&end, bad[k].count);
      trace_buf_put32(&end, 5);
      trace_buf_put8(&end, 0);
      err[0] = 0;
      CHECK_EQ(build(&vf, &end, &g, err, sizeof err), VCG_EINPUT);
      CHECK(strstr(err, bad[k].msg) != NULL);
   }
   trace_buf_free(&vf);
   trace_buf_free(&end);
}

/* SOURCES at version 1 {a} and 4 {a, b}, final versions 6: the records
 * cover versions 1-3 and 4-6, so a -> d has 6 uses, b -> d 3, and d's
 * weight is 3 x 1 + 3 x 2. */
static void test_versions(void)
{
   trace_buf vf = TRACE_BUF_INIT, end = TRACE_BUF_INIT;
   vfs_vertex(&vf, 1, CATS_VF_MEMORY_INPUT, NONE, 0, 8, 0, 0);
   vfs_vertex(&vf, 2, CATS_VF_MEMORY, NONE, 8, 8, 0, 0);
   vfs_vertex(&vf, 3, CATS_VF_MEMORY, NONE, 16, 8, 0, 0);
   vfs_sources(&vf, 2, 1, 0, 0, NULL); /* b = 0 (a constant) */
   vfs_sources(&vf, 2, 2, 0, 0, NULL);
   vfs_sources(&vf, 3, 1, 0, 1, (const uint32_t[]){ 1 });
   vfs_sources(&vf, 3, 4, 0, 2, (const uint32_t[]){ 1, 2 });
   end_simple(&end, 1, (const uint32_t[]){ 3 }, (const uint32_t[]){ 6 },
              (const uint8_t[]){ 0 });
   vcg_graph g;
   char err[VCG_ERRLEN] = "";
   CHECK_EQ(build(&vf, &end, &g, err, sizeof err), VCG_OK);
   CHECK_EQ(g.nvertices, 3);
   CHECK_EQ(g.nedges, 2);
   if (g.nvertices == 3) {
      CHECK_EQ(g.vertices[2].versions, 6);
      CHECK_EQ(g.vertices[2].weight, 9);
      /* b was not listed: it keeps version 2; two constants of 1 use. */
      CHECK_EQ(g.vertices[1].versions, 2);
      CHECK_EQ(g.vertices[1].weight, 2);
      CHECK_EQ(g.vertices[2].flags, 0);
      const vcg_edge *a = edge(&g, 0, 2, 0), *b = edge(&g, 1, 2, 0);
      CHECK(a && a->uses == 6 && a->versions == 1);
      CHECK(b && b->uses == 3 && b->versions == 2);
   }
   vcg_graph_free(&g);
   trace_buf_free(&vf);
   trace_buf_free(&end);
}

/* Records that repeat add to the same edges; a new context is a new
 * edge; memory stays with the graph, not the stream. */
static void test_merge(void)
{
   trace_buf vf = TRACE_BUF_INIT, end = TRACE_BUF_INIT;
   vfs_vertex(&vf, 1, CATS_VF_MEMORY, NONE, 0, 8, 0, 0);
   vfs_vertex(&vf, 2, CATS_VF_MEMORY, NONE, 8, 8, 0, 0);
   vfs_vertex(&vf, 3, CATS_VF_MEMORY, NONE, 16, 8, 0, 0);
   vfs_sources(&vf, 3, 1, 0, 2, (const uint32_t[]){ 1, 2 });
   vfs_sources(&vf, 3, 2, 0, 2, (const uint32_t[]){ 2, 1 });
   vfs_sources(&vf, 3, 3, 5, 1, (const uint32_t[]){ 1 });
   end_simple(&end, 1, (const uint32_t[]){ 3 }, (const uint32_t[]){ 5 },
              (const uint8_t[]){ 0 });
   vcg_graph g;
   char err[VCG_ERRLEN] = "";
   CHECK_EQ(build(&vf, &end, &g, err, sizeof err), VCG_OK);
   CHECK_EQ(g.nedges, 3);
   const vcg_edge *e = edge(&g, 0, 2, 0);
   CHECK(e && e->uses == 2);
   e = edge(&g, 1, 2, 0);
   CHECK(e && e->uses == 2);
   e = edge(&g, 0, 2, 5);
   CHECK(e && e->uses == 3);
   /* Sorted by (src, dst, ctx). */
   if (g.nedges == 3) {
      CHECK(g.edges[0].src == 0 && g.edges[0].ctx == 0);
      CHECK(g.edges[1].src == 0 && g.edges[1].ctx == 5);
      CHECK(g.edges[2].src == 1);
   }
   vcg_graph_free(&g);

   /* A reduction over a million iterations: s = s + x[i % 64], its 64
    * records once, then as the tool sends a cycle of them, in STEPs of
    * 10000 versions. The builder must stay at graph size. */
   vcg_builder *b = vcg_builder_new();
   trace_buf chunk = TRACE_BUF_INIT;
   for (uint32_t i = 0; i < 65; i++)
      vfs_vertex(&chunk, i, i ? CATS_VF_MEMORY_INPUT : CATS_VF_MEMORY,
                 NONE, 8 * (uint64_t)i, 8, 0, 0);
   size_t used;
   CHECK_EQ(vcg_feed(b, chunk.data, chunk.len, 1, &used, err, sizeof err),
            VCG_OK);
   chunk.len = 0;
   for (uint32_t version = 1; version <= 64; version++)
      vfs_sources(&chunk, 0, version, 1, 2,
                  (const uint32_t[]){ 0, 1 + version % 64 });
   for (uint32_t version = 65; version <= 1000000; version += 10000)
      vfs_step(&chunk, 0, version, 1,
               version + 10000 > 1000001 ? 1000001 - version : 10000);
   CHECK_EQ(vcg_feed(b, chunk.data, chunk.len, 1, &used, err, sizeof err),
            VCG_OK);
   uint64_t records, kept;
   uint32_t nv;
   vcg_builder_counts(b, &records, &nv, &kept);
   CHECK_EQ(records, 65 + 64 + 100);
   CHECK_EQ(nv, 65);
   CHECK_EQ(kept, 64);
   /* Tables and arrays for 65 vertices and 64 distinct records, whatever
    * the stream. */
   CHECK(vcg_builder_bytes(b) < 20480);
   trace_buf_free(&end);
   end_simple(&end, 0, NULL, NULL, NULL);
   CHECK_EQ(vcg_end(b, end.data, end.len, err, sizeof err), VCG_OK);
   CHECK_EQ(vcg_finish(b, &g, err, sizeof err), VCG_OK);
   e = edge(&g, 0, 0, 1);
   CHECK(e && e->uses == 1000000);   /* s -> s every time */
   for (uint32_t k = 1; k <= 64; k++) {   /* each x every 64th time */
      e = edge(&g, k, 0, 1);
      CHECK(e && e->uses == 1000000 / 64);
   }
   CHECK_EQ(g.vertices[0].versions, 1000000);
   CHECK_EQ(g.vertices[0].weight, 2000000);
   vcg_graph_free(&g);
   vcg_builder_free(b);
   trace_buf_free(&chunk);
   trace_buf_free(&vf);
   trace_buf_free(&end);
}

/* Source lists are kept once, sorted, whatever their order; a source
 * named twice is found; the empty list (a constant) is a list. */
static void test_source_lists(void)
{
   vcg_pattern_pool p = VCG_PATTERN_POOL_INIT;
   uint32_t a[3] = { 5, 0xFFFFFFFFu, 1 }, b[3] = { 1, 5, 0xFFFFFFFFu },
            c[2] = { 1, 5 }, twice[3] = { 7, 2, 7 };
   uint32_t na, nb, nc, nt, ne;
   CHECK_EQ(vcg_pattern_intern(&p, a, 3, &na), VCG_PATTERN_OK);
   CHECK_EQ(vcg_pattern_intern(&p, b, 3, &nb), VCG_PATTERN_OK);
   CHECK_EQ(vcg_pattern_intern(&p, c, 2, &nc), VCG_PATTERN_OK);
   CHECK_EQ(vcg_pattern_intern(&p, NULL, 0, &ne), VCG_PATTERN_OK);
   CHECK_EQ(na, nb);
   CHECK(nc != na && ne != na && ne != nc);
   const uint32_t *l = vcg_pattern_at(&p, na);
   CHECK(l[0] == 3 && l[1] == 1 && l[2] == 5 && l[3] == 0xFFFFFFFFu);
   CHECK_EQ(vcg_pattern_at(&p, ne)[0], 0);
   CHECK_EQ(p.len, 4 + 3 + 1);
   CHECK_EQ(vcg_pattern_intern(&p, twice, 3, &nt), VCG_PATTERN_TWICE);
   CHECK_EQ(nt, 7);
   /* Many lists: the index grows and finds each again. */
   for (uint32_t k = 0; k < 5000; k++) {
      uint32_t d[2] = { k, k + 1 }, name;
      CHECK_EQ(vcg_pattern_intern(&p, d, 2, &name), VCG_PATTERN_OK);
   }
   for (uint32_t k = 0; k < 5000; k += 999) {
      uint32_t d[2] = { k + 1, k }, name;
      size_t before = p.len;
      CHECK_EQ(vcg_pattern_intern(&p, d, 2, &name), VCG_PATTERN_OK);
      CHECK(p.len == before && vcg_pattern_at(&p, name)[1] == k);
   }
   vcg_pattern_free(&p);
}

/* Memory per vertex and per record on a larger graph. The ids come in
 * dense runs, as the tool makes them (a chunk's sequence number and the
 * word in it), which the id map relies on, and a record's sources lie at
 * the same distances from each vertex (a loop's), so their list is kept
 * once. */
#define TOOL_ID(i) ((1u << 13) + (i))

/* Register intermediates made along a sweep (the links of a stencil's
 * sums, one per element, numbered as the tool makes them) lie at the same
 * distances from their sources: their lists are kept once too, and a
 * record of 16 sources costs its 16 bytes, not 68 more for a list of its
 * own (NPB MG's 5.5 M took 167 M words of lists). */
static void test_register_lists_shared(void)
{
   vcg_builder *b = vcg_builder_new();
   trace_buf s = TRACE_BUF_INIT;
   char err[VCG_ERRLEN] = "";
   size_t used;
   const uint32_t n = 100000, m = n - 16;
   for (uint32_t i = 0; i < n; i++)
      vfs_vertex(&s, TOOL_ID(i), CATS_VF_MEMORY, 0, 8 * (uint64_t)i, 8, 0, 0);
   for (uint32_t i = 0; i < m; i++)
      vfs_vertex(&s, TOOL_ID(n + i), CATS_VF_REGISTER, NONE, 0, 8, 0, 3);
   CHECK_EQ(vcg_feed(b, s.data, s.len, 1, &used, err, sizeof err), VCG_OK);
   size_t before = vcg_builder_bytes(b);
   s.len = 0;
   for (uint32_t i = 0; i < m; i++) {
      uint32_t src[16];
      for (uint32_t k = 0; k < 16; k++)
         src[k] = TOOL_ID(i + k);
      vfs_sources(&s, TOOL_ID(n + i), 1, 0, 16, src);
   }
   CHECK_EQ(vcg_feed(b, s.data, s.len, 1, &used, err, sizeof err), VCG_OK);
   double per_record = (double)(vcg_builder_bytes(b) - before) / m;
   printf("  memory: %.1f bytes per register record of 16 sources\n", per_record);
   CHECK(per_record <= 22);
   /* Each still has its own 16 edges. */
   trace_buf end = TRACE_BUF_INIT;
   vfs_end(&end, 8, 1, (const uint32_t[]){ 0 }, 0, NULL, NULL, NULL);
   CHECK_EQ(vcg_end(b, end.data, end.len, err, sizeof err), VCG_OK);
   vcg_graph g;
   CHECK_EQ(vcg_finish(b, &g, err, sizeof err), VCG_OK);
   CHECK_EQ(g.nedges, 16 * m);
   vcg_graph_free(&g);
   trace_buf_free(&end);
   trace_buf_free(&s);
   vcg_builder_free(b);
}
static void test_memory(void)
{
   vcg_builder *b = vcg_builder_new();
   trace_buf s = TRACE_BUF_INIT;
   char err[VCG_ERRLEN] = "";
   size_t used;
   const uint32_t n = 200000;
   for (uint32_t i = 0; i < n; i++)
      vfs_vertex(&s, TOOL_ID(i), CATS_VF_MEMORY, 0, 8 * (uint64_t)i, 8, 0,
                 0);
   CHECK_EQ(vcg_feed(b, s.data, s.len, 1, &used, err, sizeof err), VCG_OK);
   size_t after_vertices = vcg_builder_bytes(b);
   s.len = 0;
   /* Four distinct in-edges per vertex, each record sent twice. */
   for (uint32_t i = 0; i < n; i++) {
      uint32_t src[4];
      for (int k = 0; k < 4; k++)
         src[k] = TOOL_ID((i + 1 + (uint32_t)k * 977) % n);
      vfs_sources(&s, TOOL_ID(i), 1, 0, 4, src);
      vfs_sources(&s, TOOL_ID(i), 2, 0, 4, src);
   }
   CHECK_EQ(vcg_feed(b, s.data, s.len, 1, &used, err, sizeof err), VCG_OK);
   uint64_t records, kept;
   uint32_t nv;
   vcg_builder_counts(b, &records, &nv, &kept);
   CHECK_EQ(kept, 2 * n);
   double per_vertex = (double)after_vertices / n;
   double per_record = (double)(vcg_builder_bytes(b) - after_vertices) / kept;
   printf("  memory: %.1f bytes per vertex, %.1f per record of 4 sources\n",
          per_vertex, per_record);
   CHECK(per_vertex <= 64);
   /* 16 bytes a record and a quarter's slack; the lists are the loop's
    * one and those of the 3,908 vertices whose sources wrap round. */
   CHECK(per_record <= 22);

   /* The finished graph: every edge once, sorted by (src, dst, ctx) in
    * place, with a second context on every tenth vertex. */
   s.len = 0;
   for (uint32_t i = 0; i < n; i += 10)
      vfs_sources(&s, TOOL_ID(i), 3, 7, 1,
                  (const uint32_t[]){ TOOL_ID((i + 1) % n) });
   CHECK_EQ(vcg_feed(b, s.data, s.len, 1, &used, err, sizeof err), VCG_OK);
   trace_buf end = TRACE_BUF_INIT;
   vfs_end(&end, 8, 1, (const uint32_t[]){ 0 }, 0, NULL, NULL, NULL);
   CHECK_EQ(vcg_end(b, end.data, end.len, err, sizeof err), VCG_OK);
   vcg_graph g;
   CHECK_EQ(vcg_finish(b, &g, err, sizeof err), VCG_OK);
   CHECK_EQ(g.nedges, 4 * n + n / 10);
   uint32_t unsorted = 0, wrong = 0;
   for (uint32_t k = 0; k < g.nedges; k++) {
      const vcg_edge *e = &g.edges[k];
      if (k > 0) {
         const vcg_edge *p = &g.edges[k - 1];
         unsorted += !(p->src < e->src ||
                       (p->src == e->src &&
                        (p->dst < e->dst ||
                         (p->dst == e->dst && p->ctx < e->ctx))));
      }
      /* Vertex i (graph index i: one allocation, by offset) reads
       * i + 1 + 977 k; records 1 and 2 use ctx 0, record 3 ctx 7. */
      uint32_t d = (e->src + n - e->dst) % n;
      int ok = e->ctx == 0 ? (d - 1) % 977 == 0 && (d - 1) / 977 < 4 &&
                             e->uses == 2
                           : e->ctx == 7 && d == 1 && e->dst % 10 == 0 &&
                             e->uses == 1;
      wrong += !ok;
   }
   CHECK_EQ(unsorted, 0);
   CHECK_EQ(wrong, 0);
   vcg_graph_free(&g);
   trace_buf_free(&end);
   vcg_builder_free(b);
   trace_buf_free(&s);
}

/* A builder of n vertices, each computed from three others at distances
 * that change from vertex to vertex (no group repeats the one before),
 * ended: its section is about 20 bytes a vertex. */
static vcg_builder *spill_builder(uint32_t n)
{
   vcg_builder *b = vcg_builder_new();
   trace_buf s = TRACE_BUF_INIT, end = TRACE_BUF_INIT;
   char err[VCG_ERRLEN] = "";
   size_t used;
   for (uint32_t i = 0; i < n; i++)
      vfs_vertex(&s, TOOL_ID(i), CATS_VF_MEMORY, 0, 8 * (uint64_t)i, 8, 0, 0);
   for (uint32_t i = 0; i < n; i++) {
      uint32_t src[3] = { TOOL_ID((i + 1) % n), TOOL_ID((i * 7 + 3) % n),
                          TOOL_ID((i * 13 + 5) % n) };
      if (src[1] == src[0])
         src[1] = TOOL_ID((i + 2) % n);
      if (src[2] == src[0] || src[2] == src[1])
         src[2] = TOOL_ID((i + 3) % n);
      vfs_sources(&s, TOOL_ID(i), 1, i % 5, 3, src);
   }
   vfs_end(&end, 8, 1, (const uint32_t[]){ 0 }, 0, NULL, NULL, NULL);
   CHECK_EQ(vcg_feed(b, s.data, s.len, 1, &used, err, sizeof err), VCG_OK);
   CHECK_EQ(vcg_end(b, end.data, end.len, err, sizeof err), VCG_OK);
   trace_buf_free(&s);
   trace_buf_free(&end);
   return b;
}

/* A temporary file in the work folder, unlinked; flags as open's. */
static int spill_fd(int flags)
{
   char path[4096];
   snprintf(path, sizeof path, "%s/spill.tmp", workdir);
   int fd = open(path, flags | O_CREAT | O_TRUNC, 0600);
   unlink(path);
   return fd;
}

/* The section written through a spill file (every 4 KiB packed) is the
 * same to the byte as the section kept in memory; a file that takes no
 * write leaves the section in memory, the same, and says why; one that
 * cannot be read back is an error that names the cause. */
static void test_section_spill(void)
{
   const uint32_t n = 20000;
   char err[VCG_ERRLEN] = "";
   uint32_t nv, ne;
   trace_buf whole = TRACE_BUF_INIT, spilled = TRACE_BUF_INIT, unwritten = TRACE_BUF_INIT,
             unread = TRACE_BUF_INIT;
   vcg_builder *b = spill_builder(n);
   CHECK_EQ(vcg_finish_section(b, &whole, NULL, &nv, &ne, err, sizeof err), VCG_OK);
   CHECK_EQ(nv, n);
   CHECK_EQ(ne, 3 * n);
   CHECK(whole.len > 100 * 4096);
   vcg_builder_free(b);

   vcg_spill sp = { .fd = spill_fd(O_RDWR), .at = 4096 };
   CHECK(sp.fd >= 0);
   b = spill_builder(n);
   CHECK_EQ(vcg_finish_section(b, &spilled, &sp, &nv, &ne, err, sizeof err), VCG_OK);
   CHECK_EQ(sp.err, 0);
   /* All but the last part went to the file. */
   CHECK(sp.bytes > whole.len - 2 * 4096 && sp.bytes < whole.len);
   CHECK(spilled.len == whole.len && memcmp(spilled.data, whole.data, whole.len) == 0);
   close(sp.fd);
   vcg_builder_free(b);

   int fd = spill_fd(O_RDONLY);
   sp = (vcg_spill){ .fd = fd, .at = 4096 };
   b = spill_builder(n);
   CHECK_EQ(vcg_finish_section(b, &unwritten, &sp, &nv, &ne, err, sizeof err), VCG_OK);
   CHECK_EQ(sp.err, EBADF);
   CHECK_EQ(sp.bytes, 0);
   CHECK(unwritten.len == whole.len && memcmp(unwritten.data, whole.data, whole.len) == 0);
   close(fd);
   vcg_builder_free(b);

   sp = (vcg_spill){ .fd = spill_fd(O_WRONLY), .at = 4096 };
   b = spill_builder(n);
   CHECK_EQ(vcg_finish_section(b, &unread, &sp, &nv, &ne, err, sizeof err), VCG_ENOMEM);
   CHECK(strstr(err, "Bad file descriptor reading back the value communication graph's "
                     "section (20000 vertices, 60000 edges)") != NULL);
   close(sp.fd);
   vcg_builder_free(b);
   trace_buf_free(&whole);
   trace_buf_free(&spilled);
   trace_buf_free(&unwritten);
   trace_buf_free(&unread);
}

/* Two million records of vertex 5, its sources at random among vertices
 * 10..209 (each a new record, as a stream might send them): its ring
 * passes CATS_VF_RING_MAX again and again, and the records that leave it
 * are merged. */
static void churn_until_compacted(vcg_builder *b, trace_buf *s)
{
   char err[VCG_ERRLEN] = "";
   size_t used;
   uint32_t lcg = 12345, version = 1;
   for (int round = 0; round < 40; round++) {
      s->len = 0;
      for (int i = 0; i < 50000; i++, version++) {
         lcg = lcg * 1103515245u + 12345u;
         vfs_sources(s, 5, version, 0, 1,
                     (const uint32_t[]){ 10 + (lcg >> 16) % 200 });
      }
      CHECK_EQ(vcg_feed(b, s->data, s->len, 1, &used, err, sizeof err),
               VCG_OK);
   }
}

/* An edge whose record left its vertex's ring (SOURCES_ALONE) is made
 * again when a later record names it, and the two are one edge of the
 * graph. Vertex 1 gets records {2, 3} and, alone, {4}; vertex 5's
 * sources change at random among 200 lists; then vertex 1's first record
 * comes back. The builder holds a record per distinct (list, context) of
 * a vertex and its ring, whatever the stream's length. */
static void test_compacted_edges_merge(void)
{
   vcg_builder *b = vcg_builder_new();
   trace_buf s = TRACE_BUF_INIT, end = TRACE_BUF_INIT;
   char err[VCG_ERRLEN] = "";
   size_t used;
   for (uint32_t i = 1; i < 10 + 200; i++)
      vfs_vertex(&s, i, CATS_VF_MEMORY, NONE, 8 * (uint64_t)i, 8, 0, 0);
   vfs_sources(&s, 1, 1, 0, 2, (const uint32_t[]){ 2, 3 });
   vfs_record(&s, CATS_VF_SOURCES_ALONE, 1, 2, 0, 1, (const uint32_t[]){ 4 });
   CHECK_EQ(vcg_feed(b, s.data, s.len, 1, &used, err, sizeof err), VCG_OK);
   uint64_t records, kept;
   uint32_t nv;
   churn_until_compacted(b, &s);
   s.len = 0;
   vfs_sources(&s, 1, 3, 0, 2, (const uint32_t[]){ 2, 3 });
   CHECK_EQ(vcg_feed(b, s.data, s.len, 1, &used, err, sizeof err), VCG_OK);
   vcg_builder_counts(b, &records, &nv, &kept);
   /* Vertex 1: its ring of 2 and the record that left; vertex 5: a
    * ring of at most CATS_VF_RING_MAX, the 200 merged and at most
    * 2 x 200 + 1024 that left since. */
   CHECK(kept <= 3 + CATS_VF_RING_MAX + 200 + 2 * 200 + 1024);
   CHECK(vcg_builder_bytes(b) < 160 * 1024);
   end_simple(&end, 1, (const uint32_t[]){ 1 }, (const uint32_t[]){ 4 },
              (const uint8_t[]){ 0 });
   CHECK_EQ(vcg_end(b, end.data, end.len, err, sizeof err), VCG_OK);
   vcg_graph g;
   CHECK_EQ(vcg_finish(b, &g, err, sizeof err), VCG_OK);
   CHECK_EQ(g.nedges, 3 + 200);
   /* Graph indices: vertex i is index i - 1 (one allocation, by
    * offset). Versions 1, then 3 and 4, from {2, 3}. */
   const vcg_edge *e = edge(&g, 1, 0, 0);
   CHECK(e && e->uses == 3 && e->versions == 1);
   e = edge(&g, 2, 0, 0);
   CHECK(e && e->uses == 3);
   e = edge(&g, 3, 0, 0);
   CHECK(e && e->uses == 1);
   CHECK_EQ(g.vertices[0].weight, 3 * 2 + 1);
   vcg_graph_free(&g);
   vcg_builder_free(b);
   trace_buf_free(&s);
   trace_buf_free(&end);
}

/* A vertex whose sources never repeat as a list (six at random among
 * 200, five million records, as a stream might send them): its lists are
 * collected and its records' uses kept as its 200 edges, so the builder
 * stays far below the 5 M x 36 bytes its lists alone would take. */
static void test_random_lists_stay_bounded(void)
{
   vcg_builder *b = vcg_builder_new();
   trace_buf s = TRACE_BUF_INIT, end = TRACE_BUF_INIT;
   char err[VCG_ERRLEN] = "";
   size_t used;
   for (uint32_t i = 1; i < 210; i++)
      vfs_vertex(&s, i, CATS_VF_MEMORY, NONE, 8 * (uint64_t)i, 8, 0, 0);
   CHECK_EQ(vcg_feed(b, s.data, s.len, 1, &used, err, sizeof err), VCG_OK);
   uint32_t lcg = 777, version = 1;
   size_t peak = 0;
   for (int round = 0; round < 100; round++) {
      s.len = 0;
      for (int i = 0; i < 50000; i++, version++) {
         uint32_t src[6], n = 0;
         while (n < 6) {
            lcg = lcg * 1103515245u + 12345u;
            uint32_t x = 10 + (lcg >> 16) % 200, dup = 0;
            for (uint32_t k = 0; k < n; k++)
               dup |= src[k] == x;
            if (!dup)
               src[n++] = x;
         }
         vfs_record(&s, i % 256 ? CATS_VF_SOURCES : CATS_VF_SOURCES_ALONE, 5, version,
                    0, 6, src);
      }
      CHECK_EQ(vcg_feed(b, s.data, s.len, 1, &used, err, sizeof err), VCG_OK);
      if (vcg_builder_bytes(b) > peak)
         peak = vcg_builder_bytes(b);
   }
   printf("  builder peak %zu bytes over 5 M records\n", peak);
   CHECK(peak < 48u << 20);
   end_simple(&end, 1, (const uint32_t[]){ 5 }, (const uint32_t[]){ version - 1 },
              (const uint8_t[]){ 0 });
   CHECK_EQ(vcg_end(b, end.data, end.len, err, sizeof err), VCG_OK);
   vcg_graph g;
   CHECK_EQ(vcg_finish(b, &g, err, sizeof err), VCG_OK);
   /* Every version of vertex 5 read six sources: its 200 in-edges' uses
    * add up to 6 x 5 M, and its weight is the same. */
   uint64_t uses = 0;
   uint32_t in = 0;
   for (uint32_t k = 0; k < g.nedges; k++)
      if (g.edges[k].dst == 4) {
         uses += g.edges[k].uses;
         in++;
      }
   CHECK_EQ(in, 200);
   CHECK_EQ(uses, 6ull * 5000000);
   CHECK_EQ(g.vertices[4].weight, 6ull * 5000000);
   vcg_graph_free(&g);
   vcg_builder_free(b);
   trace_buf_free(&s);
   trace_buf_free(&end);
}

/* Vertex 4's records r0 {1}, r1 {2}, r2 {3} at versions 1-3, then STEP
 * runs: versions 4-10 follow the ring from r2 (r0 r1 r2 r0 r1 r2 r0),
 * version 11 repeats r0 (nothing sent), version 12 goes two along (r2),
 * and 13 is the last. The same graph as the stream of one SOURCES record
 * per change: r0 has versions 1, 4, 7, 10, 11 (5 uses), r1 2, 5, 8 (3),
 * r2 3, 6, 9, 12, 13 (5). */
static void test_steps(void)
{
   const uint32_t r[3][1] = { { 1 }, { 2 }, { 3 } };
   trace_buf vf = TRACE_BUF_INIT, plain = TRACE_BUF_INIT, end = TRACE_BUF_INIT;
   for (int i = 0; i < 2; i++) {
      trace_buf *s = i ? &plain : &vf;
      for (uint32_t v = 1; v <= 3; v++)
         vfs_vertex(s, v, CATS_VF_MEMORY_INPUT, NONE, 8 * (uint64_t)v - 8,
                    8, 0, 0);
      vfs_vertex(s, 4, CATS_VF_MEMORY, NONE, 24, 8, 0, 0);
      for (uint32_t v = 1; v <= 3; v++)
         vfs_sources(s, 4, v, 0, 1, r[v - 1]);
   }
   vfs_step(&vf, 4, 4, 1, 7);
   vfs_step(&vf, 4, 12, 2, 1);
   for (uint32_t v = 4; v <= 10; v++)
      vfs_sources(&plain, 4, v, 0, 1, r[(v - 1) % 3]);
   vfs_sources(&plain, 4, 12, 0, 1, r[2]);
   end_simple(&end, 1, (const uint32_t[]){ 4 }, (const uint32_t[]){ 13 },
              (const uint8_t[]){ 0 });
   vcg_graph g, want;
   char err[VCG_ERRLEN] = "";
   CHECK_EQ(build(&vf, &end, &g, err, sizeof err), VCG_OK);
   CHECK_EQ(build(&plain, &end, &want, err, sizeof err), VCG_OK);
   CHECK_EQ(g.nedges, 3);
   CHECK_EQ(want.nedges, 3);
   if (g.nedges == 3 && want.nedges == 3) {
      CHECK(memcmp(g.edges, want.edges, 3 * sizeof *g.edges) == 0);
      CHECK(memcmp(g.vertices, want.vertices,
                   4 * sizeof *g.vertices) == 0);
      const uint32_t uses[3] = { 5, 3, 5 };
      for (uint32_t k = 0; k < 3; k++) {
         const vcg_edge *e = edge(&g, k, 3, 0);
         CHECK(e && e->uses == uses[k]);
      }
      CHECK_EQ(g.vertices[3].versions, 13);
      CHECK_EQ(g.vertices[3].weight, 13);
   }
   vcg_graph_free(&g);
   vcg_graph_free(&want);

   /* A run of many turns: 3 + 3000 versions, then nothing more. */
   vf.len = end.len = 0;
   for (uint32_t v = 1; v <= 3; v++)
      vfs_vertex(&vf, v, CATS_VF_MEMORY_INPUT, NONE, 8 * (uint64_t)v - 8,
                 8, 0, 0);
   vfs_vertex(&vf, 4, CATS_VF_MEMORY, NONE, 24, 8, 0, 0);
   for (uint32_t v = 1; v <= 3; v++)
      vfs_sources(&vf, 4, v, 0, 1, r[v - 1]);
   vfs_step(&vf, 4, 4, 1, 3000);
   end_simple(&end, 1, (const uint32_t[]){ 4 }, (const uint32_t[]){ 3003 },
              (const uint8_t[]){ 0 });
   CHECK_EQ(build(&vf, &end, &g, err, sizeof err), VCG_OK);
   for (uint32_t k = 0; k < 3 && g.nedges == 3; k++) {
      const vcg_edge *e = edge(&g, k, 3, 0);
      CHECK(e && e->uses == 1001);
   }
   vcg_graph_free(&g);
   trace_buf_free(&vf);
   trace_buf_free(&plain);
   trace_buf_free(&end);
}

/* The rings that STEP walks keep their order while another vertex's
 * records churn: vertex 1 has records {2}, {3}, {4}; vertex 5's sources
 * change at random two million times; then vertex 1 steps twice round
 * its ring. */
static void test_rings_survive_compaction(void)
{
   vcg_builder *b = vcg_builder_new();
   trace_buf s = TRACE_BUF_INIT, end = TRACE_BUF_INIT;
   char err[VCG_ERRLEN] = "";
   size_t used;
   for (uint32_t i = 1; i < 10 + 200; i++)
      vfs_vertex(&s, i, CATS_VF_MEMORY, NONE, 8 * (uint64_t)i, 8, 0, 0);
   for (uint32_t v = 1; v <= 3; v++)
      vfs_sources(&s, 1, v, 0, 1, (const uint32_t[]){ 1 + v });
   CHECK_EQ(vcg_feed(b, s.data, s.len, 1, &used, err, sizeof err), VCG_OK);
   churn_until_compacted(b, &s);
   s.len = 0;
   vfs_step(&s, 1, 4, 1, 6);   /* {2} {3} {4} {2} {3} {4} */
   CHECK_EQ(vcg_feed(b, s.data, s.len, 1, &used, err, sizeof err), VCG_OK);
   end_simple(&end, 1, (const uint32_t[]){ 1 }, (const uint32_t[]){ 9 },
              (const uint8_t[]){ 0 });
   CHECK_EQ(vcg_end(b, end.data, end.len, err, sizeof err), VCG_OK);
   vcg_graph g;
   CHECK_EQ(vcg_finish(b, &g, err, sizeof err), VCG_OK);
   /* The STEP laid the rings out again (two million records made):
    * vertex 1's walks and vertex 5's ring of the churn's last records
    * come through whole. */
   CHECK_EQ(g.nedges, 3 + 200);
   for (uint32_t k = 1; k <= 3 && g.nedges == 203; k++) {
      const vcg_edge *e = edge(&g, k, 0, 0);
      CHECK(e && e->uses == 3);
   }
   CHECK_EQ(g.vertices[4].weight, 2000000);   /* vertex 5: one source a version */
   vcg_graph_free(&g);
   vcg_builder_free(b);
   trace_buf_free(&s);
   trace_buf_free(&end);
}

/* A vertex's second record names its first record's source again after
 * 40000 other vertices' records; STEPs round the ring of the two add to
 * both, and the shared source is one edge. */
static void test_far_edges(void)
{
   vcg_builder *b = vcg_builder_new();
   trace_buf s = TRACE_BUF_INIT, end = TRACE_BUF_INIT;
   char err[VCG_ERRLEN] = "";
   size_t used;
   const uint32_t far = 40000;
   for (uint32_t i = 1; i <= 3 + far; i++)
      vfs_vertex(&s, i, CATS_VF_MEMORY, NONE, 8 * (uint64_t)i, 8, 0, 0);
   vfs_sources(&s, 1, 1, 0, 1, (const uint32_t[]){ 2 });
   for (uint32_t i = 4; i <= 3 + far; i++)
      vfs_sources(&s, i, 1, 0, 1, (const uint32_t[]){ 2 });
   vfs_sources(&s, 1, 2, 0, 2, (const uint32_t[]){ 2, 3 });
   vfs_step(&s, 1, 3, 1, 5);   /* {2} {2, 3} {2} {2, 3} {2} */
   CHECK_EQ(vcg_feed(b, s.data, s.len, 1, &used, err, sizeof err), VCG_OK);
   end_simple(&end, 1, (const uint32_t[]){ 1 }, (const uint32_t[]){ 7 },
              (const uint8_t[]){ 0 });
   CHECK_EQ(vcg_end(b, end.data, end.len, err, sizeof err), VCG_OK);
   vcg_graph g;
   CHECK_EQ(vcg_finish(b, &g, err, sizeof err), VCG_OK);
   /* Versions 1-7 of vertex 1 from 2; 2, 4 and 6 also from 3. */
   const vcg_edge *e = edge(&g, 1, 0, 0);
   CHECK(e && e->uses == 7);
   e = edge(&g, 2, 0, 0);
   CHECK(e && e->uses == 3);
   CHECK_EQ(g.vertices[0].weight, 4 * 1 + 3 * 2);
   vcg_graph_free(&g);
   vcg_builder_free(b);
   trace_buf_free(&s);
   trace_buf_free(&end);
}

/* Tool allocation ids go through the VF_END table; vertices sort by the
 * trace's ids, then intermediates by (loc, tool id). */
static void test_remap(void)
{
   trace_buf vf = TRACE_BUF_INIT, end = TRACE_BUF_INIT;
   vfs_vertex(&vf, 1, CATS_VF_MEMORY, 5, 8, 8, 0, 0);
   vfs_vertex(&vf, 2, CATS_VF_MEMORY, 7, 16, 8, 0, 0);
   vfs_vertex(&vf, 3, CATS_VF_MEMORY, 5, 0, 8, 0, 0);
   vfs_vertex(&vf, 4, CATS_VF_REGISTER, 5, 24, 8, 0, 9); /* alloc ignored */
   vfs_vertex(&vf, 6, CATS_VF_REGISTER, NONE, 0, 8, 0, 4);
   vfs_vertex(&vf, 5, CATS_VF_REGISTER, NONE, 0, 8, 0, 4);
   vfs_vertex(&vf, 8, CATS_VF_MEMORY, 6, 0, 8, 0, 0);   /* no record */
   vfs_vertex(&vf, 9, CATS_VF_MEMORY, NONE, 0, 8, 0, 0);
   vfs_sources(&vf, 4, 1, 0, 2, (const uint32_t[]){ 1, 2 });
   uint32_t table[8] = { NONE, NONE, NONE, NONE, NONE, 1, NONE, 0 };
   vfs_end(&end, 4, 8, table, 0, NULL, NULL, NULL);
   vcg_graph g;
   char err[VCG_ERRLEN] = "";
   CHECK_EQ(build(&vf, &end, &g, err, sizeof err), VCG_OK);
   CHECK_EQ(g.word_size, 4);
   CHECK_EQ(g.nvertices, 8);
   if (g.nvertices == 8) {
      /* alloc 0 (tool 7): id 2; alloc 1 (tool 5): ids 3, 1; NONE: ids 8
       * (mapped to NONE) and 9 by id; then loc 4: ids 5, 6; loc 9: 4. */
      static const uint32_t alloc[8] = { 0, 1, 1, NONE, NONE, NONE, NONE,
                                         NONE };
      static const uint64_t off[8] = { 16, 0, 8, 0, 0, 0, 0, 0 };
      static const uint32_t loc[8] = { 0, 0, 0, 0, 0, 4, 4, 9 };
      for (int i = 0; i < 8; i++) {
         CHECK_EQ(g.vertices[i].alloc, alloc[i]);
         CHECK_EQ(g.vertices[i].offset, off[i]);
         CHECK_EQ(g.vertices[i].loc, loc[i]);
         CHECK_EQ(!!(g.vertices[i].flags & CATS_VCG_REGISTER), i >= 5);
      }
      /* Edges follow the new indices: 1 -> index 2, 2 -> index 0, the
       * intermediate 4 -> index 7. */
      CHECK(edge(&g, 2, 7, 0) != NULL);
      CHECK(edge(&g, 0, 7, 0) != NULL);
   }
   vcg_graph_free(&g);
   trace_buf_free(&vf);
   trace_buf_free(&end);
}

/* A stream fed in pieces cut anywhere gives the same graph. */
static void test_pieces(void)
{
   trace_buf vf = TRACE_BUF_INIT, end = TRACE_BUF_INIT;
   vfs_example(&vf, &end);
   vcg_graph whole;
   char err[VCG_ERRLEN] = "";
   CHECK_EQ(build(&vf, &end, &whole, err, sizeof err), VCG_OK);
   for (size_t cut = 1; cut < vf.len; cut += 3) {
      vcg_builder *b = vcg_builder_new();
      size_t used, used2;
      CHECK_EQ(vcg_feed(b, vf.data, cut, 0, &used, err, sizeof err),
               VCG_OK);
      CHECK(used <= cut && cut - used < VCG_MAX_RECORD);
      /* The caller keeps the cut record and prepends it to the rest. */
      CHECK_EQ(vcg_feed(b, vf.data + used, vf.len - used, 1, &used2, err,
                        sizeof err), VCG_OK);
      CHECK_EQ(used + used2, vf.len);
      vcg_graph g;
      CHECK_EQ(vcg_end(b, end.data, end.len, err, sizeof err), VCG_OK);
      CHECK_EQ(vcg_finish(b, &g, err, sizeof err), VCG_OK);
      CHECK_EQ(g.nvertices, whole.nvertices);
      CHECK_EQ(g.nedges, whole.nedges);
      if (g.nvertices == whole.nvertices && g.nedges == whole.nedges) {
         CHECK(memcmp(g.vertices, whole.vertices,
                      g.nvertices * sizeof *g.vertices) == 0);
         for (uint32_t i = 0; i < g.nedges; i++) {
            CHECK_EQ(g.edges[i].src, whole.edges[i].src);
            CHECK_EQ(g.edges[i].uses, whole.edges[i].uses);
            CHECK_EQ(g.edges[i].versions, whole.edges[i].versions);
         }
      }
      vcg_graph_free(&g);
      vcg_builder_free(b);
   }
   vcg_graph_free(&whole);
   trace_buf_free(&vf);
   trace_buf_free(&end);
}

/* Expect the stream (vf, then end) to fail with status st and a message
 * containing `want`. */
static void expect_fail(const trace_buf *vf, const trace_buf *end, vcg_status st,
                        const char *want)
{
   vcg_graph g;
   char err[VCG_ERRLEN] = "";
   vcg_status got = build(vf, end, &g, err, sizeof err);
   CHECK_EQ(got, st);
   if (!strstr(err, want)) {
      fprintf(stderr, "  expected '%s' in '%s'\n", want, err);
      chk_failures++;
   }
   if (got == VCG_OK)
      vcg_graph_free(&g);
}

/* Two vertices 1 and 2 followed by `rest`, then an empty VF_END. */
static void prefix(trace_buf *vf, trace_buf *end)
{
   vf->len = end->len = 0;
   vfs_vertex(vf, 1, CATS_VF_MEMORY, NONE, 0, 8, 0, 0);
   vfs_vertex(vf, 2, CATS_VF_MEMORY, NONE, 8, 8, 0, 0);
   end_simple(end, 0, NULL, NULL, NULL);
}

/* The longest SOURCES record the format allows (65535 sources, each
 * difference in five bytes) fits VCG_MAX_RECORD, waits whole when cut,
 * and builds. */
static void test_longest_record(void)
{
   trace_buf vf = TRACE_BUF_INIT, end = TRACE_BUF_INIT;
   enum { N = 65535 };
   static uint32_t src[N], ids[N + 1], versions[N + 1];
   static uint8_t flags[N + 1];
   vfs_vertex(&vf, 1, CATS_VF_MEMORY, NONE, 0, 8, 0, 0);
   for (uint32_t k = 0; k < N; k++) {
      src[k] = 0x80000000u + k;   /* 2^31 from vertex 1: five bytes */
      vfs_vertex(&vf, src[k], CATS_VF_MEMORY_INPUT, NONE, 8 * (k + 1), 8,
                 0, 0);
      ids[k] = src[k];
      versions[k] = 1;
   }
   size_t at = vf.len;
   vfs_sources(&vf, 1, 1, 0, N, src);
   size_t rec = vf.len - at;
   CHECK(rec > 4 * (size_t)N + 15 && rec <= VCG_MAX_RECORD);
   ids[N] = 1;
   versions[N] = 1;
   end_simple(&end, N + 1, ids, versions, flags);
   vcg_builder *b = vcg_builder_new();
   char err[VCG_ERRLEN] = "";
   size_t used = 0, used2 = 0;
   CHECK_EQ(vcg_feed(b, vf.data, vf.len - 1, 0, &used, err, sizeof err),
            VCG_OK);
   CHECK_EQ(used, at);
   CHECK_EQ(vcg_feed(b, vf.data + used, vf.len - used, 1, &used2, err,
                     sizeof err), VCG_OK);
   CHECK_EQ(used2, rec);
   vcg_graph g;
   CHECK_EQ(vcg_end(b, end.data, end.len, err, sizeof err), VCG_OK);
   CHECK_EQ(vcg_finish(b, &g, err, sizeof err), VCG_OK);
   CHECK_EQ(g.nedges, (uint32_t)N);
   vcg_graph_free(&g);
   vcg_builder_free(b);
   trace_buf_free(&vf);
   trace_buf_free(&end);
}

/* A SOURCES record's head with fields of any width (vfs_sources takes
   only what a valid record holds). */
static void sources_head(trace_buf *vf, uint64_t dst, uint64_t version,
                         uint64_t ctx, uint64_t n)
{
   trace_buf_put8(vf, CATS_VF_SOURCES);
   vfs_var(vf, dst);
   vfs_var(vf, version);
   vfs_var(vf, ctx);
   vfs_var(vf, n);
}

static void test_malformed(void)
{
   trace_buf vf = TRACE_BUF_INIT, end = TRACE_BUF_INIT;

   prefix(&vf, &end);
   trace_buf_put8(&vf, 9);
   expect_fail(&vf, &end, VCG_EINPUT, "unknown tag 9");

   prefix(&vf, &end);
   vfs_sources(&vf, 2, 1, 0, 1, (const uint32_t[]){ 1 });
   vf.len -= 2;   /* truncated record */
   expect_fail(&vf, &end, VCG_EINPUT, "truncated");

   prefix(&vf, &end);
   vfs_vertex(&vf, 3, CATS_VF_MEMORY, NONE, 0, 8, 0, 0);
   vf.len -= 1;
   expect_fail(&vf, &end, VCG_EINPUT, "VERTEX record truncated");

   prefix(&vf, &end);
   /* n = 1000 in a frame that holds one source. */
   sources_head(&vf, 2, 1, 0, 1000);
   vfs_var(&vf, 2);
   expect_fail(&vf, &end, VCG_EINPUT, "frame ends 7 bytes into it");

   prefix(&vf, &end);
   /* A version of more than 32 bits. */
   sources_head(&vf, 2, 1ull << 32, 0, 0);
   expect_fail(&vf, &end, VCG_EINPUT, "SOURCES record malformed");

   prefix(&vf, &end);
   /* A field of six bytes, each saying another follows. */
   trace_buf_put8(&vf, CATS_VF_SOURCES);
   for (int i = 0; i < 6; i++)
      trace_buf_put8(&vf, 0x80);
   trace_buf_put8(&vf, 0);
   expect_fail(&vf, &end, VCG_EINPUT, "SOURCES record malformed");

   prefix(&vf, &end);
   /* More sources than a record may have. */
   sources_head(&vf, 2, 1, 0, 65536);
   expect_fail(&vf, &end, VCG_EINPUT, "more than 65535 sources");

   prefix(&vf, &end);
   vfs_sources(&vf, 3, 1, 0, 1, (const uint32_t[]){ 1 });
   expect_fail(&vf, &end, VCG_EINPUT, "unknown vertex 3");

   prefix(&vf, &end);
   vfs_sources(&vf, 2, 1, 0, 1, (const uint32_t[]){ 4 });
   expect_fail(&vf, &end, VCG_EINPUT, "unknown source vertex 4");

   prefix(&vf, &end);
   vfs_sources(&vf, 2, 3, 0, 1, (const uint32_t[]){ 1 });
   vfs_sources(&vf, 2, 3, 0, 1, (const uint32_t[]){ 1 });
   expect_fail(&vf, &end, VCG_EINPUT, "not after version 3");

   prefix(&vf, &end);
   vfs_sources(&vf, 2, 0, 0, 1, (const uint32_t[]){ 1 });
   expect_fail(&vf, &end, VCG_EINPUT, "at version 0");

   prefix(&vf, &end);
   vfs_sources(&vf, 2, 1, 0, 2, (const uint32_t[]){ 1, 1 });
   expect_fail(&vf, &end, VCG_EINPUT, "names source 1 twice");

   /* The same in a vertex's second record (its edges are in the index)
    * and in a record too long to check pairwise. */
   prefix(&vf, &end);
   vfs_sources(&vf, 2, 1, 0, 1, (const uint32_t[]){ 1 });
   vfs_sources(&vf, 2, 2, 0, 2, (const uint32_t[]){ 1, 1 });
   expect_fail(&vf, &end, VCG_EINPUT, "names source 1 twice");

   prefix(&vf, &end);
   uint32_t many[70];
   for (uint32_t i = 0; i < 70; i++) {
      vfs_vertex(&vf, 100 + i, CATS_VF_MEMORY, NONE, 16 + 8 * (uint64_t)i,
                 8, 0, 0);
      many[i] = 100 + i;
   }
   many[69] = 103;
   vfs_sources(&vf, 2, 1, 0, 70, many);
   expect_fail(&vf, &end, VCG_EINPUT, "names source 103 twice");

   prefix(&vf, &end);
   vfs_vertex(&vf, 1, CATS_VF_MEMORY, NONE, 0, 8, 0, 0);
   expect_fail(&vf, &end, VCG_EINPUT, "vertex 1 sent twice");

   prefix(&vf, &end);
   vfs_vertex(&vf, 3, CATS_VF_MEMORY, NONE, 16, 0, 0, 0);
   expect_fail(&vf, &end, VCG_EINPUT, "vertex 3 has 0 bytes");
   prefix(&vf, &end);
   vfs_vertex(&vf, 3, CATS_VF_MEMORY, NONE, 16, 4097, 0, 0);
   expect_fail(&vf, &end, VCG_EINPUT, "vertex 3 has 4097 bytes");

   prefix(&vf, &end);
   vfs_vertex(&vf, 3, 3, NONE, 0, 8, 0, 0);
   expect_fail(&vf, &end, VCG_EINPUT, "unknown kind 3");

   /* STEP problems. Vertex 2's ring: {1}, then alone {1} again. */
   prefix(&vf, &end);
   vfs_step(&vf, 3, 1, 1, 1);
   expect_fail(&vf, &end, VCG_EINPUT, "STEP names unknown vertex 3");
   prefix(&vf, &end);
   vfs_step(&vf, 2, 2, 1, 1);
   expect_fail(&vf, &end, VCG_EINPUT, "which has no record");
   for (int alone = 0; alone < 2; alone++) {
      prefix(&vf, &end);
      vfs_sources(&vf, 2, 1, 0, 1, (const uint32_t[]){ 1 });
      vfs_record(&vf, alone ? CATS_VF_SOURCES_ALONE : CATS_VF_SOURCES, 2, 3,
                 0, 0, NULL);
      vfs_step(&vf, 2, 5, 2, 1);
      expect_fail(&vf, &end, VCG_EINPUT,
                  alone ? "by 2 records along its ring of 1"
                        : "by 2 records along its ring of 2");
   }
   prefix(&vf, &end);
   vfs_sources(&vf, 2, 1, 0, 1, (const uint32_t[]){ 1 });
   vfs_sources(&vf, 2, 3, 0, 0, NULL);
   vfs_step(&vf, 2, 3, 1, 1);
   expect_fail(&vf, &end, VCG_EINPUT, "at version 3, not after version 3");
   prefix(&vf, &end);
   vfs_sources(&vf, 2, 1, 0, 1, (const uint32_t[]){ 1 });
   vfs_sources(&vf, 2, 3, 0, 0, NULL);
   vfs_step(&vf, 2, 4, 0, 1);
   expect_fail(&vf, &end, VCG_EINPUT, "by 0 records");
   prefix(&vf, &end);
   vfs_sources(&vf, 2, 1, 0, 1, (const uint32_t[]){ 1 });
   vfs_sources(&vf, 2, 3, 0, 0, NULL);
   vfs_step(&vf, 2, 4, 1, 0);
   expect_fail(&vf, &end, VCG_EINPUT, "over 0 versions");
   prefix(&vf, &end);
   vfs_sources(&vf, 2, 1, 0, 1, (const uint32_t[]){ 1 });
   vfs_sources(&vf, 2, 3, 0, 0, NULL);
   vfs_step(&vf, 2, 0xFFFFFFF0u, 1, 100);
   expect_fail(&vf, &end, VCG_EINPUT, "over 100 versions");
   prefix(&vf, &end);
   vfs_step(&vf, 2, 4, 1, 1);
   vf.len -= 1;
   expect_fail(&vf, &end, VCG_EINPUT, "STEP record truncated");
   prefix(&vf, &end);
   trace_buf_put8(&vf, CATS_VF_STEP);
   vfs_var(&vf, 2);
   vfs_var(&vf, 1ull << 32);
   vfs_var(&vf, 1);
   vfs_var(&vf, 1);
   expect_fail(&vf, &end, VCG_EINPUT, "STEP record malformed");

   /* VF_END problems. */
   prefix(&vf, &end);
   end.len = 0;
   end_simple(&end, 1, (const uint32_t[]){ 3 }, (const uint32_t[]){ 1 },
              (const uint8_t[]){ 0 });
   expect_fail(&vf, &end, VCG_EINPUT, "VF_END: unknown vertex 3");

   prefix(&vf, &end);
   vfs_sources(&vf, 2, 5, 0, 1, (const uint32_t[]){ 1 });
   end.len = 0;
   end_simple(&end, 1, (const uint32_t[]){ 2 }, (const uint32_t[]){ 4 },
              (const uint8_t[]){ 0 });
   expect_fail(&vf, &end, VCG_EINPUT, "starts at version 5");

   prefix(&vf, &end);
   end.len = 0;
   end_simple(&end, 2, (const uint32_t[]){ 2, 2 },
              (const uint32_t[]){ 1, 1 }, (const uint8_t[]){ 0, 0 });
   expect_fail(&vf, &end, VCG_EINPUT, "listed twice");

   prefix(&vf, &end);
   end.len = 0;
   end_simple(&end, 1, (const uint32_t[]){ 2 }, (const uint32_t[]){ 1 },
              (const uint8_t[]){ 4 });
   expect_fail(&vf, &end, VCG_EINPUT, "unknown flags");

   prefix(&vf, &end);
   end.len = 0;
   vfs_end(&end, 3, 0, NULL, 0, NULL, NULL, NULL);
   expect_fail(&vf, &end, VCG_EINPUT, "word size 3");

   prefix(&vf, &end);
   vfs_vertex(&vf, 3, CATS_VF_MEMORY, 4, 0, 8, 0, 0);
   end.len = 0;
   vfs_end(&end, 8, 2, (const uint32_t[]){ 0, 1 }, 0, NULL, NULL, NULL);
   expect_fail(&vf, &end, VCG_EINPUT, "beyond the table of 2");

   prefix(&vf, &end);
   trace_buf_put8(&end, 0);   /* a stray byte */
   expect_fail(&vf, &end, VCG_EINPUT, "VF_END: 0 runs of vertices need 0 bytes");

   prefix(&vf, &end);
   end.len = 0;
   trace_buf_put32(&end, 8);
   trace_buf_put32(&end, 0x40000000);   /* an allocation table too large */
   expect_fail(&vf, &end, VCG_EINPUT, "does not fit");

   /* Order of calls. */
   prefix(&vf, &end);
   vcg_builder *b = vcg_builder_new();
   char err[VCG_ERRLEN];
   size_t used;
   vcg_graph g;
   CHECK_EQ(vcg_feed(b, vf.data, vf.len, 1, &used, err, sizeof err), VCG_OK);
   CHECK_EQ(vcg_finish(b, &g, err, sizeof err), VCG_ESTATE);
   vcg_builder_free(b);
   b = vcg_builder_new();
   CHECK_EQ(vcg_end(b, end.data, end.len, err, sizeof err), VCG_OK);
   CHECK_EQ(vcg_feed(b, vf.data, vf.len, 1, &used, err, sizeof err),
            VCG_ESTATE);
   CHECK(strstr(err, "after VF_END") != NULL);
   vcg_builder_free(b);
   b = vcg_builder_new();
   CHECK_EQ(vcg_end(b, end.data, end.len, err, sizeof err), VCG_OK);
   CHECK_EQ(vcg_end(b, end.data, end.len, err, sizeof err), VCG_ESTATE);
   vcg_builder_free(b);
   /* After an error nothing more is accepted. */
   b = vcg_builder_new();
   CHECK_EQ(vcg_feed(b, (const uint8_t *)"\x09", 1, 1, &used, err,
                     sizeof err), VCG_EINPUT);
   CHECK_EQ(vcg_feed(b, vf.data, vf.len, 1, &used, err, sizeof err),
            VCG_ESTATE);
   CHECK_EQ(vcg_end(b, end.data, end.len, err, sizeof err), VCG_ESTATE);
   vcg_builder_free(b);

   trace_buf_free(&vf);
   trace_buf_free(&end);
}

/* Damaged streams (bytes flipped, cut short) fail cleanly or build a
 * graph; run under a sanitizer this also checks the bounds. */
static void test_damage(void)
{
   trace_buf vf = TRACE_BUF_INIT, end = TRACE_BUF_INIT;
   vfs_example(&vf, &end);
   uint32_t seed = 12345;
   int ok = 0, bad = 0;
   for (int round = 0; round < 4000; round++) {
      trace_buf a = TRACE_BUF_INIT, e = TRACE_BUF_INIT;
      trace_buf_append(&a, vf.data, vf.len);
      trace_buf_append(&e, end.data, end.len);
      trace_buf *t = round % 3 == 0 ? &e : &a;
      for (int k = 0; k < 1 + round % 4; k++) {
         seed = seed * 1103515245u + 12345u;
         t->data[(seed >> 8) % t->len] ^= (uint8_t)(1u << (seed >> 28) % 8);
      }
      if (round % 7 == 0)
         t->len = (seed >> 4) % t->len;
      vcg_graph g;
      char err[VCG_ERRLEN] = "";
      vcg_status st = build(&a, &e, &g, err, sizeof err);
      if (st == VCG_OK) {
         ok++;
         vcg_graph_free(&g);
      } else {
         bad++;
         CHECK(err[0] != '\0');
      }
      trace_buf_free(&a);
      trace_buf_free(&e);
   }
   CHECK(bad > 0);
   trace_buf_free(&vf);
   trace_buf_free(&end);
   (void)ok;
}

/* --- section 7 ------------------------------------------------------------ */

/* The synthetic trace's sections plus the given section 7, decoded. */
static trace_status decode_with(const trace_buf *vcg, trace_file **t, char *err)
{
   syn_trace s;
   syn_opts o;
   syn_default_opts(&o);
   if (syn_build(&s, &o) != 0)
      return TRACE_ENOMEM;
   trace_section secs[SYN_NSEC + 1];
   for (int i = 0; i < SYN_NSEC; i++)
      secs[i] = (trace_section){ s.type[i], s.sec[i].data, s.sec[i].len };
   secs[SYN_NSEC] = (trace_section){ CATS_SEC_VCG, vcg->data, vcg->len };
   trace_status st = trace_decode(secs, SYN_NSEC + 1, t, err, TRACE_ERRLEN);
   /* The check without a decoded trace (the helper's) agrees. */
   char cerr[TRACE_ERRLEN] = "";
   CHECK_EQ(trace_check(secs, SYN_NSEC + 1, cerr, sizeof cerr), st);
   CHECK(strcmp(cerr, st == TRACE_OK ? "" : err) == 0);
   syn_free(&s);
   return st;
}

/* The example graph (vfs_example) built. */
static int example_graph(vcg_graph *g)
{
   trace_buf vf = TRACE_BUF_INIT, end = TRACE_BUF_INIT;
   char err[VCG_ERRLEN];
   int r = vfs_example(&vf, &end) != 0 || build(&vf, &end, g, err, sizeof err) != VCG_OK;
   trace_buf_free(&vf);
   trace_buf_free(&end);
   return r;
}

/* The example graph's section 7. */
static int example_section(trace_buf *sec)
{
   vcg_graph g;
   int r = example_graph(&g);
   if (!r) {
      r = vcg_section_write(&g, sec);
      CHECK_EQ(sec->len, vcg_section_size(&g));
      /* Written as the edges are made (the helper's way): the same
       * bytes. */
      trace_buf vf = TRACE_BUF_INIT, end = TRACE_BUF_INIT, streamed = TRACE_BUF_INIT;
      char err[VCG_ERRLEN] = "";
      size_t used;
      uint32_t nv = 0, ne = 0;
      vcg_builder *b = vcg_builder_new();
      CHECK(b && vfs_example(&vf, &end) == 0 && g.nedges > 0);
      CHECK_EQ(vcg_feed(b, vf.data, vf.len, 1, &used, err, sizeof err), VCG_OK);
      CHECK_EQ(vcg_end(b, end.data, end.len, err, sizeof err), VCG_OK);
      CHECK_EQ(vcg_finish_section(b, &streamed, NULL, &nv, &ne, err, sizeof err), VCG_OK);
      CHECK(nv == g.nvertices && ne == g.nedges);
      CHECK(streamed.len == sec->len &&
            memcmp(streamed.data, sec->data, sec->len) == 0);
      vcg_builder_free(b);
      trace_buf_free(&vf);
      trace_buf_free(&end);
      trace_buf_free(&streamed);
      vcg_graph_free(&g);
   }
   return r;
}

static void test_roundtrip(void)
{
   trace_buf sec = TRACE_BUF_INIT;
   trace_file *t = NULL;
   char err[TRACE_ERRLEN] = "";
   CHECK_EQ(example_section(&sec), 0);
   CHECK_EQ(decode_with(&sec, &t, err), TRACE_OK);
   if (t) {
      const trace_vcg *g = &t->vcg;
      CHECK(t->has_vcg);
      CHECK_EQ(g->word_size, 8);
      CHECK_EQ(g->nvertices, 5);
      CHECK_EQ(g->nedges, 8);
      if (g->nvertices == 5 && g->nedges == 8) {
         /* buf+0, buf+8, buf+16, glob+0, the intermediate */
         static const uint32_t flags[5] = {
            CATS_VCG_INPUT, CATS_VCG_INPUT, CATS_VCG_OUTPUT,
            CATS_VCG_OUTPUT, CATS_VCG_REGISTER
         };
         static const uint32_t versions[5] = { 1, 1, 2, 4, 1 };
         static const uint64_t weight[5] = { 0, 0, 3, 6, 2 };
         for (int i = 0; i < 5; i++) {
            CHECK_EQ(g->vertices[i].flags, flags[i]);
            CHECK_EQ(g->vertices[i].versions, versions[i]);
            CHECK_EQ(g->vertices[i].weight, weight[i]);
         }
         CHECK_EQ(g->vertices[3].alloc, 1);
         CHECK_EQ(g->vertices[3].loc, 5);
         CHECK_EQ(g->vertices[3].ctx, 1);
         CHECK_EQ(g->vertices[2].offset, 16);
         CHECK_EQ(g->vertices[4].alloc, NONE);
         /* (src, dst, ctx, uses, versions) in order */
         static const uint32_t want[8][5] = {
            { 0, 2, 2, 1, 1 }, { 0, 4, 2, 1, 1 }, { 1, 2, 2, 1, 1 },
            { 1, 3, 2, 2, 1 }, { 2, 2, 2, 1, 1 }, { 2, 4, 2, 1, 1 },
            { 4, 3, 1, 2, 1 }, { 4, 3, 2, 2, 1 },
         };
         for (int i = 0; i < 8; i++) {
            const trace_vcg_edge *e = &g->edges[i];
            CHECK_EQ(e->src, want[i][0]);
            CHECK_EQ(e->dst, want[i][1]);
            CHECK_EQ(e->ctx, want[i][2]);
            CHECK_EQ(e->uses, want[i][3]);
            CHECK_EQ(e->versions, want[i][4]);
         }
      }
   }
   trace_free(t);

   /* Without section 7 the trace has no graph. */
   syn_trace s;
   syn_opts o;
   syn_default_opts(&o);
   CHECK_EQ(syn_build(&s, &o), 0);
   trace_section secs[SYN_NSEC];
   for (int i = 0; i < SYN_NSEC; i++)
      secs[i] = (trace_section){ s.type[i], s.sec[i].data, s.sec[i].len };
   CHECK_EQ(trace_decode(secs, SYN_NSEC, &t, err, sizeof err), TRACE_OK);
   if (t)
      CHECK(!t->has_vcg);
   trace_free(t);
   syn_free(&s);

   /* An empty graph (VF_END alone) is valid. */
   trace_buf vf = TRACE_BUF_INIT, end = TRACE_BUF_INIT;
   vcg_graph g;
   char verr[VCG_ERRLEN];
   end_simple(&end, 0, NULL, NULL, NULL);
   CHECK_EQ(build(&vf, &end, &g, verr, sizeof verr), VCG_OK);
   sec.len = 0;
   CHECK_EQ(vcg_section_write(&g, &sec), 0);
   CHECK_EQ(decode_with(&sec, &t, err), TRACE_OK);
   if (t)
      CHECK(t->has_vcg && t->vcg.nvertices == 0 && t->vcg.nedges == 0);
   trace_free(t);
   vcg_graph_free(&g);
   trace_buf_free(&end);
   trace_buf_free(&sec);
}

/* Offsets beyond 32 bits order like any other, whatever order the
 * vertices came in: words with no allocation (another thread's stack,
 * at its address) and an allocation over 4 GiB. The written section
 * passes the trace's check (vertices by (alloc, offset)). */
static void test_wide_offsets(void)
{
   static const uint32_t alloc[5] = { NONE, NONE, 0, 0, 0 };
   static const uint64_t offset[5] = { 0x1fff000568, 0x1fff000558,
                                       (5ull << 30) + 8, 5ull << 30, 16 };
   static const uint32_t want[5] = { 4, 3, 2, 1, 0 };   /* creation no. */
   trace_buf vf = TRACE_BUF_INIT, end = TRACE_BUF_INIT, sec = TRACE_BUF_INIT;
   for (uint32_t i = 0; i < 5; i++)
      vfs_vertex(&vf, 10 + i, CATS_VF_MEMORY_INPUT, alloc[i], offset[i], 8,
                 0, 0);
   vfs_end(&end, 8, 1, (const uint32_t[]){ 0 }, 0, NULL, NULL, NULL);
   vcg_graph g;
   char err[VCG_ERRLEN] = "";
   CHECK_EQ(build(&vf, &end, &g, err, sizeof err), VCG_OK);
   CHECK_EQ(g.nvertices, 5);
   for (uint32_t i = 0; i < 5 && g.nvertices == 5; i++) {
      CHECK_EQ(g.vertices[i].alloc, alloc[want[i]]);
      CHECK_EQ(g.vertices[i].offset, offset[want[i]]);
   }
   CHECK_EQ(vcg_section_write(&g, &sec), 0);
   trace_file *t = NULL;
   char cerr[TRACE_ERRLEN] = "";
   CHECK_EQ(decode_with(&sec, &t, cerr), TRACE_OK);
   trace_free(t);
   vcg_graph_free(&g);
   trace_buf_free(&vf);
   trace_buf_free(&end);
   trace_buf_free(&sec);
}

/* The trace the CLI tests of run.sh read. */
static void test_write_trace(void)
{
   syn_trace s;
   syn_opts o;
   syn_default_opts(&o);
   trace_buf sec = TRACE_BUF_INIT;
   CHECK_EQ(syn_build(&s, &o), 0);
   CHECK_EQ(example_section(&sec), 0);
   trace_write_section w[SYN_NSEC + 1];
   for (int i = 0; i < SYN_NSEC; i++)
      w[i] = (trace_write_section){ s.type[i], s.sec[i].data, s.sec[i].len };
   w[SYN_NSEC] = (trace_write_section){ CATS_SEC_VCG, sec.data, sec.len };
   char path[4096], err[TRACE_WRITE_ERRLEN];
   snprintf(path, sizeof path, "%s/vcg.cats", workdir);
   CHECK_EQ(trace_write(path, w, SYN_NSEC + 1, err, sizeof err), TRACE_WRITE_OK);
   trace_file *t = NULL;
   char rerr[TRACE_ERRLEN];
   CHECK_EQ(trace_open(path, &t, rerr, sizeof rerr), TRACE_OK);
   CHECK(t && t->has_vcg && t->vcg.nedges == 8);
   trace_free(t);
   /* Opened without the graph: checked, not kept. */
   CHECK_EQ(trace_open_without_graph(path, &t, rerr, sizeof rerr), TRACE_OK);
   CHECK(t && !t->has_vcg && t->vcg.vertices == NULL && t->nevents > 0);
   trace_free(t);

   /* The same trace with vertex 0 in the second allocation (out of
    * order), for the CLI's tests (run.sh): every command checks the
    * graph. */
   vcg_graph g;
   CHECK_EQ(example_graph(&g), 0);
   g.vertices[0].alloc = 1;
   sec.len = 0;
   CHECK_EQ(vcg_section_write(&g, &sec), 0);
   vcg_graph_free(&g);
   w[SYN_NSEC] = (trace_write_section){ CATS_SEC_VCG, sec.data, sec.len };
   snprintf(path, sizeof path, "%s/vcg-bad.cats", workdir);
   CHECK_EQ(trace_write(path, w, SYN_NSEC + 1, err, sizeof err), TRACE_WRITE_OK);
   CHECK_EQ(trace_open_without_graph(path, &t, rerr, sizeof rerr), TRACE_EVALUE);
   CHECK(strstr(rerr, "VCG vertex 1: out of order") != NULL);
   trace_free(t);
   syn_free(&s);
   trace_buf_free(&sec);
}

/* A graph too large to draw: 20001 vertices, no edges (vcg_big.cats). */
static void test_write_big_trace(void)
{
   trace_buf vf = TRACE_BUF_INIT, end = TRACE_BUF_INIT, sec = TRACE_BUF_INIT;
   for (uint32_t i = 0; i < 20001; i++)
      vfs_vertex(&vf, i, CATS_VF_MEMORY, 0, 8 * (uint64_t)i, 8, NONE, NONE);
   vfs_end(&end, 8, 1, (const uint32_t[]){ 0 }, 0, NULL, NULL, NULL);
   vcg_graph g;
   char err[VCG_ERRLEN];
   CHECK_EQ(build(&vf, &end, &g, err, sizeof err), VCG_OK);
   CHECK_EQ(vcg_section_write(&g, &sec), 0);
   vcg_graph_free(&g);
   syn_trace s;
   syn_opts o;
   syn_default_opts(&o);
   CHECK_EQ(syn_build(&s, &o), 0);
   trace_write_section w[SYN_NSEC + 1];
   for (int i = 0; i < SYN_NSEC; i++)
      w[i] = (trace_write_section){ s.type[i], s.sec[i].data, s.sec[i].len };
   w[SYN_NSEC] = (trace_write_section){ CATS_SEC_VCG, sec.data, sec.len };
   char path[4096], werr[TRACE_WRITE_ERRLEN];
   snprintf(path, sizeof path, "%s/vcg_big.cats", workdir);
   CHECK_EQ(trace_write(path, w, SYN_NSEC + 1, werr, sizeof werr), TRACE_WRITE_OK);
   syn_free(&s);
   trace_buf_free(&vf);
   trace_buf_free(&end);
   trace_buf_free(&sec);
}

/* A graph of three vertices and three edges, and its packed section 7
 * worked out by hand from docs/FORMAT.md. */
static const vcg_vertex hand_vertices[3] = {
   { .alloc = 0, .flags = CATS_VCG_INPUT, .offset = 0, .size = 8, .ctx = NONE,
     .loc = NONE, .versions = 1, .weight = 0 },
   { .alloc = 0, .flags = CATS_VCG_OUTPUT, .offset = 8, .size = 8, .ctx = 0,
     .loc = 0, .versions = 3, .weight = 300 },
   { .alloc = NONE, .flags = CATS_VCG_REGISTER, .offset = 0, .size = 8, .ctx = 0,
     .loc = 1, .versions = 1, .weight = 2 },
};
static const vcg_edge hand_edges[3] = {
   { .src = 0, .dst = 1, .ctx = 0, .uses = 3, .versions = 1 },
   { .src = 0, .dst = 2, .ctx = 0, .uses = 1, .versions = 1 },
   { .src = 2, .dst = 1, .ctx = NONE, .uses = 2, .versions = 1 },
};
static const uint8_t hand_section[56] = {
   8, 0, 0, 0, 3, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0,   /* header */
   /* flags, alloc + 1, offset (from the vertex before in the same
    * allocation), size, ctx + 1, loc + 1, versions, weight */
   1, 1, 0, 8, 0, 0, 1, 0,
   2, 1, 8, 8, 1, 1, 3, 0xAC, 0x02,                 /* weight 300 */
   4, 0, 0, 8, 1, 2, 1, 2,
   /* in (dst, src, ctx) order: twice dst's step from the edge before
    * (not a repeat); src from the edge before (same dst) or as an svar
    * from dst; ctx + 1 as an svar from the one before; uses;
    * uses - versions */
   2, 1, 2, 3, 2,                                    /* 0 -> 1: src 1 - 1, ctx 1 */
   0, 2, 1, 2, 1,                                    /* 2 -> 1: src 0 + 2, ctx NONE */
   2, 3, 2, 1, 0,                                    /* 0 -> 2: src 2 - 2, ctx 1 */
};
#define HAND_EDGE(i, f) (16 + 8 + 9 + 8 + 5 * (i) + (f))

/* Decode hand_section with byte `at` set to `value` (at < 0: as it is),
 * cut to `len` bytes and `extra` bytes of `fill` appended; expect st and
 * a message with `want`. */
static void expect_packed2(int at, uint8_t value, int at2, uint8_t value2, size_t len,
                           size_t extra, uint8_t fill, trace_status st, const char *want)
{
   trace_buf sec = TRACE_BUF_INIT;
   CHECK_EQ(trace_buf_append(&sec, hand_section, len), 0);
   for (size_t i = 0; i < extra; i++)
      CHECK_EQ(trace_buf_put8(&sec, fill), 0);
   if (at >= 0)
      sec.data[at] = value;
   if (at2 >= 0)
      sec.data[at2] = value2;
   trace_file *t = NULL;
   char err[TRACE_ERRLEN] = "";
   CHECK_EQ(decode_with(&sec, &t, err), st);
   if (!strstr(err, want)) {
      fprintf(stderr, "  expected '%s' in '%s'\n", want, err);
      chk_failures++;
   }
   trace_free(t);
   trace_buf_free(&sec);
}

static void expect_packed(int at, uint8_t value, size_t len, size_t extra, uint8_t fill,
                          trace_status st, const char *want)
{
   expect_packed2(at, value, -1, 0, len, extra, fill, st, want);
}

static void test_packed_section(void)
{
   vcg_graph g = { 8, 3, 3, (vcg_vertex *)hand_vertices, (vcg_edge *)hand_edges };
   CHECK_EQ(vcg_section_size(&g), sizeof hand_section);
   trace_buf sec = TRACE_BUF_INIT;
   CHECK_EQ(vcg_section_write(&g, &sec), 0);
   CHECK(sec.len == sizeof hand_section && memcmp(sec.data, hand_section, sec.len) == 0);
   trace_buf_free(&sec);
   /* Read back. */
   expect_packed(-1, 0, sizeof hand_section, 0, 0, TRACE_OK, "");
   trace_buf in = TRACE_BUF_INIT;
   CHECK_EQ(trace_buf_append(&in, hand_section, sizeof hand_section), 0);
   trace_file *t = NULL;
   char err[TRACE_ERRLEN] = "";
   CHECK_EQ(decode_with(&in, &t, err), TRACE_OK);
   if (t && t->vcg.nvertices == 3 && t->vcg.nedges == 3) {
      for (int i = 0; i < 3; i++) {
         const trace_vcg_vertex *v = &t->vcg.vertices[i];
         const vcg_vertex *w = &hand_vertices[i];
         CHECK(v->alloc == w->alloc && v->flags == w->flags && v->offset == w->offset &&
               v->size == w->size && v->ctx == w->ctx && v->loc == w->loc &&
               v->versions == w->versions && v->weight == w->weight);
         const trace_vcg_edge *e = &t->vcg.edges[i];
         const vcg_edge *f = &hand_edges[i];
         CHECK(e->src == f->src && e->dst == f->dst && e->ctx == f->ctx &&
               e->uses == f->uses && e->versions == f->versions);
      }
   } else {
      CHECK(0);
   }
   trace_free(t);
   trace_buf_free(&in);
   /* Each number is checked against the section's end, its field and
    * the graph; nothing may follow the last edge. The synthetic trace
    * has 2 allocations, 3 contexts and 6 locations. */
   size_t n = sizeof hand_section;
   const int v1 = 16 + 8, v2 = v1 + 9;
   expect_packed(-1, 0, 10, 0, 0, TRACE_ERECORD, "too short for its header");
   expect_packed(12, 2, n, 0, 0, TRACE_EVALUE, "VCG: reserved word is 2, not 0");
   expect_packed(0, 6, n, 0, 0, TRACE_EVALUE, "word size 6");
   expect_packed(7, 0x7F, n, 0, 0, TRACE_ERECORD, "need at least");
   expect_packed(-1, 0, n - 1, 0, 0, TRACE_ERECORD, "VCG edge 2: versions cut short");
   expect_packed(-1, 0, n, 1, 0, TRACE_ERECORD, "1 bytes after the last edge");
   expect_packed(16 + 1, 3, n, 0, 0, TRACE_EREF, "VCG vertex 0: alloc 2");
   expect_packed(v1, 16, n, 0, 0, TRACE_EVALUE, "VCG vertex 1: unknown flags");
   expect_packed(v1 + 4, 4, n, 0, 0, TRACE_EREF, "VCG vertex 1: ctx 3");
   expect_packed(v1 + 5, 7, n, 0, 0, TRACE_EREF, "VCG vertex 1: loc 6");
   expect_packed(v2 + 6, 0, n, 0, 0, TRACE_EVALUE, "VCG vertex 2: no versions");
   expect_packed(16 + 1, 2, n, 0, 0, TRACE_EVALUE, "VCG vertex 1: out of order");
   expect_packed(v2, CATS_VCG_REGISTER | CATS_VCG_INPUT, n, 0, 0, TRACE_EVALUE,
                 "register intermediate");
   expect_packed(HAND_EDGE(2, 0), 4, n, 0, 0, TRACE_EREF, "VCG edge 2: dst out of range");
   /* Repeats: none before the first edge, nor of the same dst; a group
    * that passes the count of edges. */
   expect_packed(HAND_EDGE(0, 0), 3, n, 0, 0, TRACE_EVALUE, "VCG edge 0: repeats no group");
   expect_packed(HAND_EDGE(1, 0), 1, n, 0, 0, TRACE_EVALUE, "VCG edge 1: repeats no group");
   expect_packed(HAND_EDGE(2, 0), 3, n, 0, 0, TRACE_ERECORD,
                 "a repeated group of edges passes the 3 edges");
   expect_packed(HAND_EDGE(1, 1), 3, n, 0, 0, TRACE_EREF, "VCG edge 1: src out of range");
   expect_packed(HAND_EDGE(2, 1), 5, n, 0, 0, TRACE_EREF, "VCG edge 2: src out of range");
   expect_packed(HAND_EDGE(0, 2), 20, n, 0, 0, TRACE_EREF, "VCG edge 0: ctx 9");
   expect_packed(HAND_EDGE(2, 2), 3, n, 0, 0, TRACE_ERECORD, "VCG edge 2: ctx out of range");
   expect_packed(HAND_EDGE(1, 3), 0, n, 0, 0, TRACE_EVALUE, "VCG edge 1: uses 0");
   expect_packed(HAND_EDGE(0, 4), 3, n, 0, 0, TRACE_EVALUE, "VCG edge 0: uses 3, versions 0");
   /* Edge 2 as (dst 1, src 2, ctx 0): after edge 1's (1, 2, NONE) in
    * the order of unsigned ids, so not after it. */
   expect_packed2(HAND_EDGE(2, 0), 0, HAND_EDGE(2, 1), 0, n, 0, 0, TRACE_EVALUE,
                  "VCG edge 2: not after edge 1");
   /* A register intermediate after a memory vertex without an
    * allocation (another thread's stack word, at its address): both
    * have alloc NONE, and the intermediate's offset 0 is its own, not a
    * step back from the word's. */
   const vcg_vertex pair[2] = {
      { .alloc = NONE, .flags = CATS_VCG_INPUT, .offset = 0x1fff000568, .size = 8,
        .ctx = NONE, .loc = NONE, .versions = 1 },
      { .alloc = NONE, .flags = CATS_VCG_REGISTER, .offset = 0, .size = 8,
        .ctx = NONE, .loc = 0, .versions = 1 },
   };
   vcg_graph pg = { 8, 2, 0, (vcg_vertex *)pair, NULL };
   trace_buf ps = TRACE_BUF_INIT;
   CHECK_EQ(vcg_section_write(&pg, &ps), 0);
   CHECK_EQ(decode_with(&ps, &t, err), TRACE_OK);
   CHECK(t && t->vcg.nvertices == 2 && t->vcg.vertices[0].offset == 0x1fff000568 &&
         t->vcg.vertices[1].offset == 0);
   trace_free(t);
   trace_buf_free(&ps);
   /* A loop's groups: vertices 2..5 each read their neighbours i - 1 and
    * i + 1 in one context; vertex 1 reads 0 and 2 in another. The
    * groups of 3, 4 and 5 are each the one before moved by one: a byte
    * each, and read back as edges. */
   vcg_vertex row[7];
   for (int i = 0; i < 7; i++)
      row[i] = (vcg_vertex){ .alloc = 0, .offset = 8 * (uint64_t)i, .size = 8,
                             .ctx = NONE, .loc = NONE, .versions = 2 };
   vcg_edge loop[10];
   uint32_t nl = 0;
   for (uint32_t src = 0; src < 7; src++)   /* (src, dst, ctx) order */
      for (uint32_t dst = 1; dst <= 5; dst++)
         if (src + 1 == dst || src == dst + 1)
            loop[nl++] = (vcg_edge){ .src = src, .dst = dst, .ctx = dst == 1 ? 1 : 0,
                                     .uses = 2, .versions = 2 };
   CHECK_EQ(nl, 10);
   vcg_graph lg = { 8, 7, nl, row, loop };
   trace_buf ls = TRACE_BUF_INIT;
   CHECK_EQ(vcg_section_write(&lg, &ls), 0);
   /* Vertices: 8 bytes and 7 x 8; edges: dst 1's two and dst 2's two
    * (5 bytes each), then three repeats. */
   CHECK_EQ(ls.len, 16 + 7 * 8 + 4 * 5 + 3);
   CHECK_EQ(vcg_section_size(&lg), ls.len);
   CHECK_EQ(decode_with(&ls, &t, err), TRACE_OK);
   CHECK(t && t->vcg.nedges == nl);
   for (uint32_t k = 0; t && k < nl && k < t->vcg.nedges; k++) {
      const trace_vcg_edge *e = &t->vcg.edges[k];
      CHECK(e->src == loop[k].src && e->dst == loop[k].dst && e->ctx == loop[k].ctx &&
            e->uses == 2 && e->versions == 2);
   }
   trace_free(t);
   /* The last repeat two vertices on (dst 6, not 5): dst 4's group
    * moved by 2, whose second source (5 + 2) is past the last vertex. */
   ls.data[ls.len - 1] = 2 * 2 + 1;
   CHECK_EQ(decode_with(&ls, &t, err), TRACE_EREF);
   CHECK(strstr(err, "VCG edge 9: src out of range (7)") != NULL);
   trace_free(t);
   /* A group of more than CATS_VCG_REPEAT_MAX edges is not repeated. */
   uint32_t wide = CATS_VCG_REPEAT_MAX + 1;
   vcg_vertex *wv = calloc(2 * wide + 2, sizeof *wv);
   vcg_edge *we = calloc(2 * (size_t)wide, sizeof *we);
   CHECK(wv && we);
   for (uint32_t i = 0; wv && i < 2 * wide + 2; i++)
      wv[i] = (vcg_vertex){ .alloc = 0, .offset = 8 * (uint64_t)i, .size = 8,
                            .ctx = NONE, .loc = NONE, .versions = 1 };
   for (uint32_t k = 0; we && k < wide; k++) {   /* 0 + 2k -> 0, 1 + 2k -> 1 */
      we[2 * k] = (vcg_edge){ .src = 2 + 2 * k, .dst = 0, .ctx = 0, .uses = 1, .versions = 1 };
      we[2 * k + 1] = (vcg_edge){ .src = 3 + 2 * k, .dst = 1, .ctx = 0, .uses = 1,
                                  .versions = 1 };
   }
   vcg_graph wg = { 8, 2 * wide + 2, 2 * wide, wv, we };
   trace_buf ws = TRACE_BUF_INIT;
   if (wv && we) {
      CHECK_EQ(vcg_section_write(&wg, &ws), 0);
      CHECK(ws.len > 16 + (2 * wide + 2) * 8 + 2 * wide * 5 - 1);
      CHECK_EQ(decode_with(&ws, &t, err), TRACE_OK);
      CHECK(t && t->vcg.nedges == 2 * wide);
      trace_free(t);
   }
   free(wv);
   free(we);
   trace_buf_free(&ws);
   trace_buf_free(&ls);
   /* A number past 64 bits. */
   trace_buf big = TRACE_BUF_INIT;
   CHECK_EQ(trace_buf_append(&big, hand_section, 16), 0);
   for (int i = 0; i < 9; i++)
      CHECK_EQ(trace_buf_put8(&big, 0xFF), 0);
   CHECK_EQ(trace_buf_put8(&big, 0x7F), 0);
   for (int i = 0; i < 46; i++)
      CHECK_EQ(trace_buf_put8(&big, 0), 0);
   CHECK_EQ(decode_with(&big, &t, err), TRACE_ERECORD);
   CHECK(strstr(err, "VCG vertex 0: flags out of range") != NULL);
   trace_free(t);
   trace_buf_free(&big);
}

/* The id map: ids in dense runs and far apart (a register
 * intermediate's id has bit 30 set), one page per 1024 ids, each page
 * freed once (the map lists them rather than reading its whole table). */
static void test_id_map(void)
{
   vcg_idmap m = VCG_IDMAP_INIT;
   CHECK_EQ(vcg_idmap_get(&m, 5), VCG_IDMAP_NONE);
   const uint32_t ids[] = { 0, 1, 1023, 1024, 70000, 0x40000003u,
                            0xFFFFFFFEu };
   const size_t n = sizeof ids / sizeof ids[0];
   for (size_t k = 0; k < n; k++)
      CHECK_EQ(vcg_idmap_set(&m, ids[k], (uint32_t)(10 * k)), 0);
   for (size_t k = 0; k < n; k++)
      CHECK_EQ(vcg_idmap_get(&m, ids[k]), 10 * k);
   CHECK_EQ(vcg_idmap_get(&m, 2), VCG_IDMAP_NONE);
   CHECK_EQ(vcg_idmap_get(&m, 0x40000004u), VCG_IDMAP_NONE);
   CHECK_EQ(vcg_idmap_get(&m, 123456789u), VCG_IDMAP_NONE);
   CHECK_EQ(m.pages, 5);   /* 0-1023, 1024-, 70000, bit 30, top */
   CHECK(vcg_idmap_bytes(&m) >= 5 * 1024 * sizeof(uint32_t));
   CHECK_EQ(vcg_idmap_set(&m, 1000, 7), 0);   /* an existing page */
   CHECK_EQ(m.pages, 5);
   CHECK_EQ(vcg_idmap_get(&m, 1000), 7);
   vcg_idmap_free(&m);
   CHECK_EQ(m.pages, 0);
   CHECK_EQ(vcg_idmap_bytes(&m), 0);
   CHECK_EQ(vcg_idmap_get(&m, 1), VCG_IDMAP_NONE);
   CHECK_EQ(vcg_idmap_set(&m, 1, 3), 0);   /* usable again */
   CHECK_EQ(vcg_idmap_get(&m, 1), 3);
   vcg_idmap_free(&m);
}

int main(int argc, char **argv)
{
   if (argc != 2) {
      fprintf(stderr, "usage: test_vcg WORKDIR\n");
      return 2;
   }
   workdir = argv[1];
   RUN(test_add);
   RUN(test_end_runs);
   RUN(test_versions);
   RUN(test_merge);
   RUN(test_source_lists);
   RUN(test_memory);
   RUN(test_register_lists_shared);
   RUN(test_section_spill);
   RUN(test_compacted_edges_merge);
   RUN(test_random_lists_stay_bounded);
   RUN(test_steps);
   RUN(test_rings_survive_compaction);
   RUN(test_far_edges);
   RUN(test_remap);
   RUN(test_pieces);
   RUN(test_longest_record);
   RUN(test_malformed);
   RUN(test_damage);
   RUN(test_roundtrip);
   RUN(test_wide_offsets);
   RUN(test_write_trace);
   RUN(test_write_big_trace);
   RUN(test_packed_section);
   RUN(test_id_map);
   return chk_failed ? 1 : 0;
}
