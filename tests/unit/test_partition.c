/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_partition.c: the projection's algorithms on graphs with known
 * answers (partition/): singleton detection, METIS cuts, communication
 * with redundancy pruning, collective costs, section 8 round trips. */
#include <stdlib.h>
#include <string.h>

#include "partition/part_comm.h"
#include "partition/part_graph.h"
#include "partition/part_grid.h"
#include "partition/part_mesh.h"
#include "partition/part_metis.h"
#include "partition/part_project.h"
#include "partition/part_section.h"
#include "partition/part_singleton.h"
#include "check.h"

CHECK_DEFINE_GLOBALS;

#define MAXV 1024
#define MAXE 2048

/* part_singleton_detect's reduction tails, of the groups of a tgraph. */
static uint32_t tail[MAXV];

/* A hand-made VCG: memory vertices of 8 bytes. */
typedef struct tgraph {
   trace_vcg_vertex v[MAXV];
   trace_vcg_edge e[MAXE];
   trace_vcg vcg;
} tgraph;

static void tg_init(tgraph *t, uint32_t nv)
{
   memset(t, 0, sizeof *t);
   for (uint32_t i = 0; i < nv; i++)
      t->v[i] = (trace_vcg_vertex){ 1, 0, 8 * i, 8, CATS_NONE, CATS_NONE, 1, 1 };
   t->vcg = (trace_vcg){ 8, nv, t->v, 0, t->e };
}

static void tg_edge(tgraph *t, uint32_t s, uint32_t d, uint64_t uses,
                    uint64_t versions)
{
   t->e[t->vcg.nedges++] = (trace_vcg_edge){ s, d, CATS_NONE, uses, versions };
}

static int cmp_edge(const void *a, const void *b)
{
   const trace_vcg_edge *x = a, *y = b;
   if (x->src != y->src)
      return x->src < y->src ? -1 : 1;
   return (x->dst > y->dst) - (x->dst < y->dst);
}

/* Edges sorted by (src, dst), as a trace holds them. */
static void tg_done(tgraph *t)
{
   qsort(t->e, t->vcg.nedges, sizeof t->e[0], cmp_edge);
}

static void detect(tgraph *t, uint8_t *kind, part_singleton_summary *s)
{
   part_graph g;
   CHECK(part_graph_build(&t->vcg, NULL, &g) == 0);
   CHECK(part_singleton_detect(&g, &t->vcg, 0.9, 1, kind, tail, s) == 0);
   part_graph_free(&g);
}

/* The centre of a star is a singleton whose kind follows its edges. */
static void star_centre_is_singleton(void)
{
   static tgraph t;
   for (int dir = 0; dir < 3; dir++) {
      tg_init(&t, 21);
      for (uint32_t i = 1; i <= 20; i++) {
         if (dir != 1)
            tg_edge(&t, 0, i, 1, 1);   /* read by all */
         if (dir != 0)
            tg_edge(&t, i, 0, 1, 1);   /* feeds from all */
      }
      tg_done(&t);
      uint8_t kind[21];
      part_singleton_summary s;
      detect(&t, kind, &s);
      int want = dir == 0 ? PART_SINGLETON_BROADCAST : dir == 1 ? PART_SINGLETON_REDUCE : PART_SINGLETON_ALLREDUCE;
      CHECK_EQ(kind[0], want);
      for (int i = 1; i <= 20; i++)
         CHECK_EQ(kind[i], PART_SINGLETON_NONE);
      CHECK_EQ(s.count[want], 1);
      CHECK(s.centroid == 1.0);   /* median degree 1 < mean 40/21 */
   }
}

/* A sum of everything read by a norm that everything reads: the sum is
 * allreduced, the norm computed on every rank from it. */
static void singleton_of_singleton_is_replicated(void)
{
   static tgraph t;
   tg_init(&t, 42);
   for (uint32_t i = 2; i < 42; i++) {
      tg_edge(&t, i, 0, 1, 1);
      tg_edge(&t, 1, i, 1, 1);
   }
   tg_edge(&t, 0, 1, 1, 1);
   tg_done(&t);
   uint8_t kind[42];
   part_singleton_summary s;
   detect(&t, kind, &s);
   CHECK_EQ(kind[0], PART_SINGLETON_ALLREDUCE);
   CHECK_EQ(kind[1], PART_SINGLETON_REPLICATED);
   CHECK_EQ(s.count[PART_SINGLETON_NONE], 40);
}

static void path_has_no_singleton(void)
{
   static tgraph t;
   tg_init(&t, 30);
   for (uint32_t i = 0; i + 1 < 30; i++)
      tg_edge(&t, i, i + 1, 3, 3);
   tg_done(&t);
   uint8_t kind[30];
   part_singleton_summary s;
   detect(&t, kind, &s);
   for (int i = 0; i < 30; i++)
      CHECK_EQ(kind[i], PART_SINGLETON_NONE);
   CHECK_EQ(s.connected, 30);
}

/* Degrees are per iteration of the region: a vertex that coalesces 20
 * iterations and met each of 30 neighbours once is not a hub, one that
 * met all 30 in each of them is. */
static void degree_is_per_iteration(void)
{
   static tgraph t;
   for (int every = 0; every < 2; every++) {
      tg_init(&t, 41);
      t.v[0].alloc = 2;   /* a scalar of its own */
      for (uint32_t i = 1; i < 40; i++)
         tg_edge(&t, i, i + 1, 20, 20);
      for (uint32_t i = 1; i <= 30; i++)
         tg_edge(&t, 0, i, every ? 20 : 1, 1);
      tg_done(&t);
      part_graph g;
      CHECK(part_graph_build(&t.vcg, NULL, &g) == 0);
      uint8_t kind[41];
      part_singleton_summary s;
      CHECK(part_singleton_detect(&g, &t.vcg, 0.9, 20, kind, tail, &s) == 0);
      CHECK_EQ(kind[g.group[0]], every ? PART_SINGLETON_BROADCAST : PART_SINGLETON_NONE);
      part_graph_free(&g);
   }
}

/* Sixteen rows that each sum 24 inputs (a matrix-vector product's
 * output) stand out from a graph of degree 2, but not from each other:
 * none is a singleton. A scalar summing 24 inputs has no peers: it is. */
static void singleton_stands_out_from_its_array(void)
{
   static tgraph t;
   enum { PATH = 150, ROWS = 16, READS = 24 };
   uint32_t nv = PATH + ROWS + 1 + (ROWS + 1) * READS;
   tg_init(&t, nv);
   for (uint32_t i = 0; i + 1 < PATH; i++)
      tg_edge(&t, i, i + 1, 1, 1);                 /* alloc 1, degree 2 */
   uint32_t leaf = PATH + ROWS + 1;
   for (uint32_t r = 0; r <= ROWS; r++) {
      uint32_t v = PATH + r;
      t.v[v].alloc = r < ROWS ? 2 : 3;             /* the rows; the scalar */
      for (uint32_t j = 0; j < READS; j++, leaf++) {
         t.v[leaf].alloc = 4;                      /* inputs, read once */
         tg_edge(&t, leaf, v, 1, 1);
      }
   }
   tg_done(&t);
   part_graph g;
   CHECK(part_graph_build(&t.vcg, NULL, &g) == 0);
   static uint8_t kind[MAXV];
   part_singleton_summary s;
   CHECK(part_singleton_detect(&g, &t.vcg, 0.9, 1, kind, tail, &s) == 0);
   CHECK(s.centroid == 2.0);
   for (uint32_t r = 0; r < ROWS; r++)
      CHECK_EQ(kind[g.group[PATH + r]], PART_SINGLETON_NONE);
   CHECK_EQ(kind[g.group[PATH + ROWS]], PART_SINGLETON_REDUCE);
   CHECK_EQ(s.count[PART_SINGLETON_REDUCE], 1);
   CHECK_EQ(s.count[PART_SINGLETON_NONE], g.ng - 1);
   part_graph_free(&g);
}

static void scores(void)
{
   CHECK(part_singleton_score(0, 2.0, 100) == 0.0);
   CHECK(part_singleton_score(2, 2.0, 100) == 2.0 / 99);          /* density only */
   CHECK(part_singleton_score(40, 4.0, 1000) == 1.0 - 4.0 / 40);  /* distance */
   CHECK(part_singleton_score(9, 1.0, 10) == 1.0);                /* adjacent to all */
}

/* A chain of register intermediates made at one location is one group. */
static void intermediate_chain_is_one_group(void)
{
   static tgraph t;
   tg_init(&t, 12);
   for (uint32_t i = 8; i < 12; i++) {
      t.v[i].flags = CATS_VCG_REGISTER;
      t.v[i].loc = 7;
   }
   for (uint32_t i = 0; i < 8; i++)          /* two sources per link */
      tg_edge(&t, i, 8 + i / 2, 1, 1);
   for (uint32_t i = 8; i < 11; i++)
      tg_edge(&t, i, i + 1, 1, 1);
   tg_done(&t);
   part_graph g;
   CHECK(part_graph_build(&t.vcg, NULL, &g) == 0);
   CHECK_EQ(g.ng, 9);
   CHECK_EQ(g.group[8], g.group[11]);
   CHECK_EQ(g.members[g.group[8]], 4);
   CHECK_EQ(g.xadj[g.group[8] + 1] - g.xadj[g.group[8]], 8);
   CHECK_EQ(g.dir[g.group[8]], PART_GRAPH_IN);
   part_graph_free(&g);
}

static void grid(tgraph *t, uint32_t side)
{
   tg_init(t, side * side);
   for (uint32_t i = 0; i < side; i++)
      for (uint32_t j = 0; j < side; j++) {
         uint32_t v = i * side + j;
         if (j + 1 < side) {
            tg_edge(t, v, v + 1, 1, 1);
            tg_edge(t, v + 1, v, 1, 1);
         }
         if (i + 1 < side) {
            tg_edge(t, v, v + side, 1, 1);
            tg_edge(t, v + side, v, 1, 1);
         }
      }
   tg_done(t);
}

/* An 8x8 grid in four parts: two straight cuts of 8 edges each, and
 * every value on a cut goes once to the one neighbouring rank. */
static void grid_in_four(void)
{
   static tgraph t;
   grid(&t, 8);
   part_graph g;
   CHECK(part_graph_build(&t.vcg, NULL, &g) == 0);
   uint8_t none[64] = { 0 };
   part_metis_graph *m = part_metis_graph_build(&g, none, NULL);
   CHECK(m != NULL);
   CHECK(part_metis_graph_connected(m));
   part_metis_options o = { PART_METIS_KWAY, 1, 30, 1, 0 };
   uint32_t part[64];
   part_metis_result r;
   char err[256];
   CHECK(part_metis_partition(m, 4, &o, part, &r, err, sizeof err) == 0);
   CHECK_EQ(r.cut, 2 * 16);   /* 16 grid edges, uses 1 each way */
   uint32_t count[4] = { 0 };
   for (int v = 0; v < 64; v++)
      count[part[v] < 4 ? part[v] : 0]++;
   for (int p = 0; p < 4; p++)
      CHECK_EQ(count[p], 16);
   part_comm_cost cost = { 1e-6, 1e-9 };
   part_comm_result res;
   part_comm_plan plan;
   CHECK(part_comm_plan_build(&plan, &t.vcg, &g, none, NULL, NULL, 0) == 0);
   CHECK(part_comm_compute(&plan, part, 4, &cost, &res) == 0);
   part_comm_plan_free(&plan);
   CHECK_EQ(res.p2p_bytes, 32 * 8);
   CHECK_EQ(res.max_neighbours, 2);
   CHECK_EQ(res.coll_total, 0);
   part_comm_result_free(&res);
   /* The same seed gives the same parts. */
   uint32_t again[64];
   CHECK(part_metis_partition(m, 4, &o, again, &r, err, sizeof err) == 0);
   CHECK(memcmp(part, again, sizeof part) == 0);
   CHECK_EQ(r.dealt, 0);
   /* METIS's own refusal is named, not a bare "failed" (a load imbalance
    * of less than none is no input METIS takes). */
   part_metis_options bad = o;
   bad.ufactor = -5;
   CHECK(part_metis_partition(m, 4, &bad, again, &r, err, sizeof err) != 0);
   CHECK(strstr(err, "METIS refused its input") != NULL);
   /* More parts than values: dealt round-robin, and said so in r. */
   uint32_t many[64];
   CHECK(part_metis_partition(m, 64, &o, many, &r, err, sizeof err) == 0);
   CHECK_EQ(r.dealt, 64);
   part_metis_graph_free(m);
   part_graph_free(&g);
}

/* Contiguity is asked for (auto) on a sparse connected graph, and best
 * tries all three methods there; on a dense one (a complete graph of
 * 700 vertices: 4E^2/V = 3.4e8) neither contiguity nor the volume
 * objective, which would take minutes on a matrix product's graph. */
static void dense_graph_skips_contig(void)
{
   static tgraph t;
   grid(&t, 8);
   part_graph g;
   CHECK(part_graph_build(&t.vcg, NULL, &g) == 0);
   uint8_t none[700] = { 0 };
   part_metis_graph *m = part_metis_graph_build(&g, none, NULL);
   CHECK(m != NULL && !part_metis_graph_dense(m));
   int methods[3];
   CHECK_EQ(part_metis_best_methods(m, methods), 3);
   CHECK_EQ(methods[1], PART_METIS_VOLUME);
   part_metis_options o = { PART_METIS_KWAY, 1, 30, PART_METIS_CONTIG_AUTO, 0 };
   uint32_t part[700];
   part_metis_result r;
   char err[256];
   CHECK(part_metis_partition(m, 4, &o, part, &r, err, sizeof err) == 0);
   CHECK_EQ(r.contiguous, 1);
   part_metis_graph_free(m);
   part_graph_free(&g);

   const uint32_t nv = 700;
   trace_vcg_vertex *v = calloc(nv, sizeof *v);
   trace_vcg_edge *e = calloc((size_t)nv * (nv - 1), sizeof *e);
   CHECK(v != NULL && e != NULL);
   uint64_t ne = 0;
   for (uint32_t i = 0; i < nv; i++) {
      v[i] = (trace_vcg_vertex){ 1, 0, 8 * i, 8, CATS_NONE, CATS_NONE, 1, 1 };
      for (uint32_t j = 0; j < nv; j++)
         if (j != i)
            e[ne++] = (trace_vcg_edge){ i, j, CATS_NONE, 1, 1 };
   }
   trace_vcg dense = { 8, nv, v, ne, e };
   CHECK(part_graph_build(&dense, NULL, &g) == 0);
   m = part_metis_graph_build(&g, none, NULL);
   CHECK(m != NULL && part_metis_graph_connected(m) && part_metis_graph_dense(m));
   CHECK_EQ(part_metis_best_methods(m, methods), 2);
   CHECK_EQ(methods[0], PART_METIS_KWAY);
   CHECK_EQ(methods[1], PART_METIS_RB);
   CHECK(part_metis_partition(m, 4, &o, part, &r, err, sizeof err) == 0);
   CHECK_EQ(r.contiguous, 0);
   uint32_t count[4] = { 0 };
   for (uint32_t i = 0; i < nv; i++)
      count[part[i] < 4 ? part[i] : 0]++;
   for (int p = 0; p < 4; p++)
      CHECK(count[p] > 0 && count[p] <= 181);   /* 175 + 3% */
   part_metis_graph_free(m);
   part_graph_free(&g);
   free(v);
   free(e);
}

/* One source read by two sinks on another rank crosses once per version. */
static void redundancy_pruned(void)
{
   static tgraph t;
   tg_init(&t, 4);
   t.v[0].versions = 5;
   tg_edge(&t, 0, 1, 5, 5);   /* rank 0 -> rank 1, all 5 versions */
   tg_edge(&t, 0, 2, 3, 3);   /* rank 0 -> rank 1 again, 3 of them */
   tg_edge(&t, 0, 3, 2, 2);   /* rank 0 -> rank 2 */
   tg_edge(&t, 1, 0, 1, 1);   /* rank 1 -> rank 0, one version */
   tg_done(&t);
   part_graph g;
   CHECK(part_graph_build(&t.vcg, NULL, &g) == 0);
   uint8_t none[4] = { 0 };
   uint32_t part[4] = { 0, 1, 1, 2 };
   part_comm_cost cost = { 1e-6, 1e-9 };
   part_comm_result r;
   part_comm_plan plan;
   CHECK(part_comm_plan_build(&plan, &t.vcg, &g, none, NULL, NULL, 0) == 0);
   CHECK(part_comm_compute(&plan, part, 3, &cost, &r) == 0);
   part_comm_plan_free(&plan);
   CHECK_EQ(r.matrix[0 * 3 + 1], 5 * 8);
   CHECK_EQ(r.matrix[0 * 3 + 2], 2 * 8);
   CHECK_EQ(r.matrix[1 * 3 + 0], 1 * 8);
   CHECK_EQ(r.p2p_bytes, 8 * 8);
   CHECK_EQ(r.rounds[0 * 3 + 1], 5);
   CHECK_EQ(r.max_rank_bytes, 7 * 8);
   part_comm_result_free(&r);
   part_graph_free(&g);
}

/* A broadcast-only singleton costs one broadcast per version; its edges
 * carry no point-to-point traffic. */
static void broadcast_singleton_costed(void)
{
   static tgraph t;
   tg_init(&t, 41);
   t.v[0].versions = 3;
   for (uint32_t i = 1; i <= 40; i++)
      tg_edge(&t, 0, i, 3, 3);
   for (uint32_t i = 1; i < 40; i++)
      tg_edge(&t, i, i + 1, 1, 1);
   tg_done(&t);
   part_graph g;
   CHECK(part_graph_build(&t.vcg, NULL, &g) == 0);
   uint8_t kind[41];
   part_singleton_summary s;
   CHECK(part_singleton_detect(&g, &t.vcg, 0.9, 1, kind, tail, &s) == 0);
   CHECK_EQ(kind[0], PART_SINGLETON_BROADCAST);
   CHECK_EQ(s.count[PART_SINGLETON_BROADCAST], 1);
   uint32_t part[41];
   part[0] = UINT32_MAX;
   for (int i = 1; i <= 40; i++)
      part[i] = (i - 1) / 10;   /* four blocks of the path */
   part_comm_cost cost = { 1e-6, 1e-9 };
   part_comm_result r;
   part_comm_plan plan;
   CHECK(part_comm_plan_build(&plan, &t.vcg, &g, kind, NULL, NULL, 0) == 0);
   CHECK(part_comm_compute(&plan, part, 4, &cost, &r) == 0);
   part_comm_plan_free(&plan);
   CHECK_EQ(r.coll_calls[PART_COMM_BROADCAST], 3);
   CHECK_EQ(r.coll_bytes[PART_COMM_BROADCAST], 3 * 8 * 3);   /* S (N-1) per call */
   CHECK_EQ(r.coll_calls[PART_COMM_ALLREDUCE] + r.coll_calls[PART_COMM_REDUCE], 0);
   CHECK_EQ(r.p2p_bytes, 3 * 8);                     /* the path's cuts */
   part_comm_result_free(&r);
   CHECK_EQ(part_comm_coll_bytes(PART_COMM_ALLREDUCE, 8, 4), 48);
   part_graph_free(&g);
}

/* Section 8 reads back what was written; damaged copies are refused. */
static void section_round_trip(void)
{
   part_projection p;
   memset(&p, 0, sizeof p);
   part_project_defaults(&p.opts);
   p.region.found = 1;
   p.region.ctx = 3;
   p.region.iterations = 100;
   snprintf(p.region.name, sizeof p.region.name, "loop heat.c:29");
   snprintf(p.per_spec, sizeof p.per_spec, "heat.c:29");
   p.nresults = 1;
   part_comm_result *r = &p.results[0];
   r->nranks = 2;
   uint64_t m[4] = { 0, 80, 96, 0 }, rd[4] = { 0, 10, 12, 0 };
   r->matrix = m;
   r->rounds = rd;
   r->coll_calls[PART_COMM_ALLREDUCE] = 100;
   r->coll_bytes[PART_COMM_ALLREDUCE] = 1600;
   r->imbalance = 1.25;
   trace_buf b = TRACE_BUF_INIT;
   CHECK(part_section_write(&p, &b) == 0);
   part_projection q;
   char err[256];
   CHECK(part_section_read(b.data, b.len, &q, err, sizeof err) == 0);
   CHECK_EQ(q.nresults, 1);
   CHECK_EQ(q.results[0].matrix[1], 80);
   CHECK_EQ(q.results[0].matrix[2], 96);
   CHECK_EQ(q.results[0].rounds[2], 12);
   CHECK_EQ(q.results[0].p2p_bytes, 176);
   CHECK_EQ(q.results[0].coll_total, 1600);
   CHECK_EQ(q.region.iterations, 100);
   CHECK(strcmp(q.region.name, "loop heat.c:29") == 0);
   CHECK(q.opts.per && strcmp(q.opts.per, "heat.c:29") == 0);
   CHECK(q.results[0].imbalance == 1.25);
   part_project_free(&q);
   for (size_t cut = 0; cut < b.len; cut++) {
      if (part_section_read(b.data, cut, &q, err, sizeof err) == 0) {
         CHECK(!"a truncated section 8 was accepted");
         part_project_free(&q);
      }
   }
   b.data[1 * 8 * 0 + 4] = 99;   /* 99 results */
   CHECK(part_section_read(b.data, b.len, &q, err, sizeof err) != 0);
   trace_buf_free(&b);
}

static void options(void)
{
   part_project_options o;
   part_project_defaults(&o);
   char err[256];
   CHECK(part_project_set_option(&o, "ranks", "2,4,8", err, sizeof err) == 0);
   CHECK_EQ(o.nranks, 3);
   CHECK_EQ(o.ranks[2], 8);
   CHECK(part_project_set_option(&o, "ranks", "2,,4", err, sizeof err) == -1);
   CHECK(part_project_set_option(&o, "ranks", "2,", err, sizeof err) == -1);
   CHECK(part_project_set_option(&o, "ranks", "0", err, sizeof err) == -1);
   CHECK(part_project_set_option(&o, "ranks", "-2", err, sizeof err) == -1);
   CHECK(part_project_set_option(&o, "imbalance", "1.05", err, sizeof err) == 0);
   CHECK_EQ(o.metis.ufactor, 50);
   CHECK(part_project_set_option(&o, "singleton-threshold", "1.5", err, sizeof err) == -1);
   CHECK(part_project_set_option(&o, "partitioner", "best", err, sizeof err) == 0);
   CHECK_EQ(o.metis.method, PART_METIS_BEST);
   CHECK_EQ(o.metis.contig, PART_METIS_CONTIG_AUTO);
   CHECK(part_project_set_option(&o, "contig", "no", err, sizeof err) == 0);
   CHECK_EQ(o.metis.contig, PART_METIS_CONTIG_NO);
   CHECK(part_project_set_option(&o, "contig", "maybe", err, sizeof err) == -1);
   CHECK(part_project_set_option(&o, "bogus", "1", err, sizeof err) == 1);
}

/* Owner computes on a grid: eight words of one array in two blocks (a
 * 1-D grid of 2), a register value R read from words 5 and 6 (rank 1)
 * and feeding a singleton S, which words 0 and 1 (rank 0) feed most. S
 * is on every rank: R goes with its words, not with S. */
static void grid_owner_computes_past_singletons(void)
{
   static tgraph t;
   tg_init(&t, 10);
   for (uint32_t i = 8; i < 10; i++) {
      t.v[i].flags = CATS_VCG_REGISTER;
      t.v[i].alloc = CATS_NONE;
      t.v[i].loc = i;                        /* R and S: two groups */
   }
   tg_edge(&t, 5, 8, 1, 1);
   tg_edge(&t, 6, 8, 1, 1);
   tg_edge(&t, 8, 9, 10, 1);
   tg_edge(&t, 0, 9, 20, 1);
   tg_edge(&t, 1, 9, 20, 1);
   tg_done(&t);
   for (uint32_t i = 0; i < 8; i++)
      t.v[i].alloc = 0;
   trace_file tf;
   memset(&tf, 0, sizeof tf);
   tf.vcg = t.vcg;
   part_grid_shape shape = { 1, 1, 1, { 8, 0, 0 } };
   part_grid_info gi = { .nallocs = 1, .shape = &shape, .maxdims = 1 };
   part_graph g;
   CHECK(part_graph_build(&t.vcg, NULL, &g) == 0);
   uint8_t skind[16] = { 0 };
   skind[g.group[9]] = PART_SINGLETON_ALLREDUCE;
   uint32_t part[16];
   part_grid grid = { { 2, 0, 0 } };
   part_grid_groups gg;
   CHECK(part_grid_groups_init(&gg, &tf, &g, &gi, skind) == 0);
   CHECK(part_grid_assign(&gg, &grid, 2, part) == 0);
   CHECK_EQ(part[g.group[0]], 0);
   CHECK_EQ(part[g.group[3]], 0);
   CHECK_EQ(part[g.group[4]], 1);
   CHECK_EQ(part[g.group[8]], 1);
   part_grid_groups_free(&gg);
   part_graph_free(&g);
}

/* A 2 x 2 grid over one container holding two arrays: A of 4 x 4 words
 * (0-15) and B of 2 x 2 (16-19), word 5 never made a value. A's
 * quadrants and B's words land on ranks 0-3 (rank = row block x 2 +
 * column block). A register value R1 reads A's word 15 (rank 3); R2,
 * at another code location, reads only R1: it follows R1 one pass later
 * (rank 3, not its group's round-robin rank). Every grid candidate of 4
 * ranks, projected at once, matches its own projection alone. */
static void grid_segments_and_chains(void)
{
   static tgraph t;
   tg_init(&t, 21);
   /* Vertices 0-18: words 0-4 and 6-19; 19 and 20: R1, R2. */
   for (uint32_t i = 0; i < 19; i++)
      t.v[i].alloc = 0, t.v[i].offset = 8 * (i < 5 ? i : i + 1);
   for (uint32_t i = 19; i < 21; i++)
      t.v[i] = (trace_vcg_vertex){ CATS_VCG_REGISTER, CATS_NONE, 0, 8, CATS_NONE, i, 1, 1 };
   tg_edge(&t, 14, 19, 5, 1);   /* word 15 -> R1 */
   tg_edge(&t, 19, 20, 1, 1);   /* R1 -> R2 */
   for (uint32_t i = 0; i < 18; i++)
      if (i != 14)
         tg_edge(&t, i, i + 1, 1, 1);   /* a path through the words */
   tg_done(&t);
   trace_file tf;
   memset(&tf, 0, sizeof tf);
   tf.vcg = t.vcg;
   part_grid_shape shape = { 1, 1, 1, { 20, 0, 0 } };
   uint32_t seg_first[2] = { 0, 2 };
   part_grid_seg seg[2] = { { 0, 0, { 2, 1, 1, { 4, 4, 0 } }, 0 },
                            { 16, 16, { 2, 1, 1, { 2, 2, 0 } }, 0 } };
   part_grid_info gi = { .nallocs = 1, .shape = &shape, .maxdims = 2,
                         .seg_first = seg_first, .seg = seg };
   part_graph g;
   CHECK(part_graph_build(&t.vcg, NULL, &g) == 0);
   CHECK_EQ(g.ng, 21);
   uint8_t skind[32] = { 0 };
   part_grid_groups gg;
   CHECK(part_grid_groups_init(&gg, &tf, &g, &gi, skind) == 0);
   static const uint32_t want[21] = { 0, 0, 1, 1, 0, /* word 5 */ 1, 1,
                                      2, 2, 3, 3, 2, 2, 3, 3,
                                      0, 1, 2, 3, 3, 3 };
   part_grid grid = { { 2, 2, 0 } };
   uint32_t part[32];
   CHECK(part_grid_assign(&gg, &grid, 4, part) == 0);
   for (uint32_t v = 0; v < 21; v++)
      CHECK_EQ(part[g.group[v]], want[v]);
   /* All candidates at once give what each gives alone. */
   part_grid cand[PART_GRID_MAX_CANDIDATES];
   uint32_t nc = part_grid_candidates(4, 2, cand, PART_GRID_MAX_CANDIDATES);
   CHECK(nc >= 3);
   static uint32_t parts[PART_GRID_MAX_CANDIDATES][32];
   const uint32_t *pp[PART_GRID_MAX_CANDIDATES];
   for (uint32_t c = 0; c < nc; c++) {
      CHECK(part_grid_assign(&gg, &cand[c], 4, parts[c]) == 0);
      pp[c] = parts[c];
   }
   part_comm_plan plan;
   part_comm_cost cost = { 1e-6, 1e-9 };
   part_comm_result many[PART_GRID_MAX_CANDIDATES], one;
   CHECK(part_comm_plan_build(&plan, &t.vcg, &g, skind, NULL, NULL, 0) == 0);
   CHECK(part_comm_compute_many(&plan, pp, nc, 4, &cost, many) == 0);
   for (uint32_t c = 0; c < nc; c++) {
      CHECK(part_comm_compute(&plan, parts[c], 4, &cost, &one) == 0);
      CHECK(memcmp(one.matrix, many[c].matrix, 16 * sizeof *one.matrix) == 0);
      CHECK_EQ(one.p2p_bytes, many[c].p2p_bytes);
      part_comm_result_free(&one);
      part_comm_result_free(&many[c]);
   }
   /* The 2 x 2 grid: the path (with no step from word 15 to 16) crosses
    * ranks at words 1-2 (0 -> 1), 3-4 (1 -> 0), 4-6 (0 -> 1), 7-8 (1 ->
    * 2), 9-10 (2 -> 3), 11-12 (3 -> 2), 13-14 (2 -> 3), 16-17 (0 -> 1),
    * 17-18 (1 -> 2), 18-19 (2 -> 3): 10 words of 8 bytes; R1 and R2 are
    * on word 15's rank. */
   CHECK(part_comm_compute(&plan, part, 4, &cost, &one) == 0);
   CHECK_EQ(one.p2p_bytes, 10 * 8);
   part_comm_result_free(&one);
   part_comm_plan_free(&plan);
   part_grid_groups_free(&gg);
   part_graph_free(&g);
}

/* A minimum whose inner candidates are made at its own code location
 * (m = MIN(m, MIN(a, b)), CloverLeaf's time step): each candidate is a
 * member of the reduction's group with no predecessor in it, a chain
 * start, 50 of them in a loop entered once per step for 10 steps. The
 * starts counted 500 calls; the loop's 10 entries bound them. A link made
 * in the step's own body (the division after the reduction) does not
 * add calls, and a graph without scope keeps the starts' count. */
static void calls_bounded_by_loop_entries(void)
{
   enum { K = 50 };
   tgraph t;
   tg_init(&t, 1 + 2 * K + 1);
   for (uint32_t i = 1; i <= 2 * K + 1; i++) {
      t.v[i].flags = CATS_VCG_REGISTER;
      t.v[i].alloc = CATS_NONE;
      t.v[i].loc = 7;
      t.v[i].versions = 10;
   }
   /* x_k = 1 + 2k from the input 0; m_k = 2 + 2k from x_k and m_(k-1);
    * the last, 2K + 1, from m_(K-1), in the step's body. */
   for (uint32_t k = 0; k < K; k++) {
      tg_edge(&t, 0, 1 + 2 * k, 10, 1);
      tg_edge(&t, 1 + 2 * k, 2 + 2 * k, 10, 10);
      if (k > 0)
         tg_edge(&t, 2 * k, 2 + 2 * k, 10, 10);
   }
   tg_edge(&t, 2 * K, 2 * K + 1, 10, 10);
   /* Contexts: 0 main, 1 the step loop (the scope), 2 the loop over the
    * elements, 3 an `if` in it. */
   trace_context c[4];
   memset(c, 0, sizeof c);
   c[0] = (trace_context){ .parent = CATS_NONE, .kind = CATS_CTX_FUNCTION, .entries = 1 };
   c[1] = (trace_context){ .parent = 0, .kind = CATS_CTX_LOOP, .entries = 1, .iterations = 10 };
   c[2] = (trace_context){ .parent = 1, .kind = CATS_CTX_LOOP, .entries = 10,
                           .iterations = 10 * K };
   c[3] = (trace_context){ .parent = 2, .kind = CATS_CTX_CONDITIONAL, .entries = 200 };
   for (uint32_t e = 0; e < t.vcg.nedges; e++)
      t.e[e].ctx = t.e[e].dst == 2 * K + 1 ? 1 : t.e[e].dst % 4 == 1 ? 3 : 2;
   tg_done(&t);
   trace_file tf;
   memset(&tf, 0, sizeof tf);
   tf.vcg = t.vcg;
   tf.contexts = c;
   tf.ncontexts = 4;
   uint8_t scope[4] = { 0, 1, 1, 1 };
   part_graph g;
   CHECK(part_graph_build(&t.vcg, scope, &g) == 0);
   uint32_t k = g.group[1];
   CHECK_EQ(g.group[2 * K], k);
   CHECK_EQ(g.group[2 * K + 1], k);
   CHECK_EQ(g.calls[k], 10u * K);
   CHECK(part_graph_bound_calls(&g, &tf) == 0);
   CHECK_EQ(g.calls[k], 10u);
   part_graph_free(&g);
   /* Without a scope (the whole run) nothing is bounded. */
   CHECK(part_graph_build(&t.vcg, NULL, &g) == 0);
   CHECK(part_graph_bound_calls(&g, &tf) == 0);
   CHECK_EQ(g.calls[g.group[1]], 10u * K);
   part_graph_free(&g);
}

/* The strides of a grid from the index distances between a value and
 * its sources: a 7-point and a 27-point operator on 41^3 (miniFE's
 * mesh), a 5-point one on 100 x 60, noise, and distances that are no
 * grid's. */
static uint32_t strides_of(const uint64_t *d, const uint64_t *c, uint32_t n, uint64_t other,
                           uint64_t s[PART_GRID_MAXD])
{
   memset(s, 0, PART_GRID_MAXD * sizeof *s);
   return part_mesh_strides(d, c, n, other, s);
}

static void mesh_strides(void)
{
   uint64_t s[PART_GRID_MAXD];
   static const uint64_t d7[] = { 1, 41, 1681 }, c7[] = { 100, 100, 100 };
   CHECK_EQ(strides_of(d7, c7, 3, 0, s), 3u);
   CHECK(s[0] == 1 && s[1] == 41 && s[2] == 1681);
   static const uint64_t d27[] = { 1, 40, 41, 42, 1640, 1641, 1642, 1680, 1681, 1682,
                                   1721, 1722, 1723 };
   uint64_t c27[13];
   for (int i = 0; i < 13; i++)
      c27[i] = 90 + (uint64_t)i % 3;
   CHECK_EQ(strides_of(d27, c27, 13, 0, s), 3u);
   CHECK(s[0] == 1 && s[1] == 41 && s[2] == 1681);
   static const uint64_t d5[] = { 1, 100 }, c5[] = { 50, 50 };
   CHECK_EQ(strides_of(d5, c5, 2, 0, s), 2u);
   CHECK(s[0] == 1 && s[1] == 100);
   /* Noise: distances seen rarely (under 1 %) may be a tenth of all. */
   static const uint64_t dn[] = { 1, 41, 1681, 5000 }, cn[] = { 100, 100, 100, 2 };
   CHECK_EQ(strides_of(dn, cn, 4, 25, s), 3u);
   CHECK_EQ(strides_of(dn, cn, 4, 40, s), 0u);
   /* A frequent distance outside the clusters, a line (no grid), no
    * neighbour at distance 1, a cluster that is no stride give or take
    * the ones below it, a stride that the next does not divide, four
    * dimensions. */
   static const uint64_t dx[] = { 1, 41, 1681, 5000 }, cx[] = { 100, 100, 100, 100 };
   CHECK_EQ(strides_of(dx, cx, 4, 0, s), 0u);
   static const uint64_t d1[] = { 1 }, c1[] = { 10 };
   CHECK_EQ(strides_of(d1, c1, 1, 0, s), 0u);
   static const uint64_t d2[] = { 2, 41 }, c2[] = { 10, 10 };
   CHECK_EQ(strides_of(d2, c2, 2, 0, s), 0u);
   static const uint64_t d3[] = { 1, 3, 5 }, c3[] = { 10, 10, 10 };
   CHECK_EQ(strides_of(d3, c3, 3, 0, s), 0u);
   static const uint64_t d4[] = { 1, 41, 1000 }, c4[] = { 10, 10, 10 };
   CHECK_EQ(strides_of(d4, c4, 3, 0, s), 0u);
   static const uint64_t d8[] = { 1, 8, 64, 512 }, c8[] = { 10, 10, 10, 10 };
   CHECK_EQ(strides_of(d8, c8, 4, 0, s), 0u);
}

int main(void)
{
   RUN(star_centre_is_singleton);
   RUN(path_has_no_singleton);
   RUN(singleton_of_singleton_is_replicated);
   RUN(scores);
   RUN(degree_is_per_iteration);
   RUN(singleton_stands_out_from_its_array);
   RUN(intermediate_chain_is_one_group);
   RUN(grid_in_four);
   RUN(mesh_strides);
   RUN(grid_owner_computes_past_singletons);
   RUN(dense_graph_skips_contig);
   RUN(redundancy_pruned);
   RUN(broadcast_singleton_costed);
   RUN(section_round_trip);
   RUN(options);
   RUN(calls_bounded_by_loop_entries);
   RUN(grid_segments_and_chains);
   return chk_failed ? 1 : 0;
}
