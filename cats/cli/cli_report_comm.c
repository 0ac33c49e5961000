/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cli_report_comm.c: section 6 of `cats report`: the heaviest communication
 * of the value communication graph (docs/VCG.md) by source location.
 *
 * An edge src -> dst says that `uses` versions of dst were computed from
 * src. Were src and dst owned by different ranks, each use would move the
 * source value, so uses x size(src) bounds the bytes the edge can cost
 * (a version is sent once, so a projection that dedups versions moves
 * less: `cats project`). Edges are merged by (the code location that
 * created the source vertex's first version, the location of the context
 * where the sink's versions were made: a loop header or a function
 * entry), both as source lines (cli_report_canon_locs: two instructions of one
 * line make one row), which is what a reader finds in the code. Each row
 * names the containers and the context of its heaviest edge and says
 * when others share the row. Exact: the sums over the graph. The row key
 * takes one location per source vertex (its first creation), so a vertex
 * rewritten elsewhere later counts at its first location.
 *
 * Edges are in scope when their sink's context is; an edge without a
 * context only when every context is in scope. */
#include <stdlib.h>

#include "cli.h"
#include "cli_report.h"

typedef struct comm_item {
   uint32_t src_loc, sink_loc;
   uint32_t edge;              /* index in t->vcg.edges */
   uint64_t bytes;
} comm_item;

/* By row key, then heaviest edge first. */
static int cmp_item(const void *pa, const void *pb)
{
   const comm_item *a = pa, *b = pb;
   if (a->src_loc != b->src_loc)
      return a->src_loc < b->src_loc ? -1 : 1;
   if (a->sink_loc != b->sink_loc)
      return a->sink_loc < b->sink_loc ? -1 : 1;
   if (a->bytes != b->bytes)
      return a->bytes > b->bytes ? -1 : 1;
   return (a->edge > b->edge) - (a->edge < b->edge);
}

static int cmp_row(const void *pa, const void *pb)
{
   const cli_report_edge *a = pa, *b = pb;
   if (a->bytes != b->bytes)
      return a->bytes > b->bytes ? -1 : 1;
   if (a->src_loc != b->src_loc)
      return a->src_loc < b->src_loc ? -1 : 1;
   return (a->sink_loc > b->sink_loc) - (a->sink_loc < b->sink_loc);
}

int cli_report_comm(const trace_file *t, const cli_report_options *o, cli_report_data *r)
{
   r->has_vcg = t->has_vcg;
   if (!t->has_vcg)
      return 0;
   const trace_vcg *g = &t->vcg;
   comm_item *it = malloc(((size_t)g->nedges + 1) * sizeof *it);
   uint32_t *canon = NULL;
   r->edges = malloc(((size_t)g->nedges + 1) * sizeof *r->edges);
   if (!it || !r->edges || cli_report_canon_locs(t, &canon) != 0) {
      free(it);
      return -1;
   }
   uint32_t n = 0;
   for (uint32_t i = 0; i < g->nedges; i++) {
      const trace_vcg_edge *e = &g->edges[i];
      if (e->ctx == CATS_NONE ? !o->all : !o->in_scope[e->ctx])
         continue;
      const trace_vcg_vertex *src = &g->vertices[e->src];
      uint32_t sink = e->ctx == CATS_NONE ? CATS_NONE
                                          : t->contexts[e->ctx].loc;
      it[n++] = (comm_item){ src->loc == CATS_NONE ? CATS_NONE
                                                   : canon[src->loc],
                             sink == CATS_NONE ? CATS_NONE : canon[sink], i,
                             cli_mul_sat(e->uses, src->size) };
   }
   free(canon);
   qsort(it, n, sizeof *it, cmp_item);
   uint32_t m = 0;
   for (uint32_t i = 0, j; i < n; i = j) {
      const trace_vcg_edge *top = &g->edges[it[i].edge];
      cli_report_edge *row = &r->edges[m++];
      *row = (cli_report_edge){ .src_loc = it[i].src_loc,
                         .sink_loc = it[i].sink_loc, .sink_ctx = top->ctx,
                         .src_alloc = g->vertices[top->src].alloc,
                         .dst_alloc = g->vertices[top->dst].alloc };
      for (j = i; j < n && it[j].src_loc == it[i].src_loc &&
                  it[j].sink_loc == it[i].sink_loc;
           j++) {
         const trace_vcg_edge *e = &g->edges[it[j].edge];
         row->bytes = cli_add_sat(row->bytes, it[j].bytes);
         row->uses = cli_add_sat(row->uses, e->uses);
         row->edges++;
         row->more_src |= g->vertices[e->src].alloc != row->src_alloc;
         row->more_dst |= g->vertices[e->dst].alloc != row->dst_alloc;
      }
   }
   free(it);
   qsort(r->edges, m, sizeof *r->edges, cmp_row);
   r->edges_total = m;
   r->nedges = m < o->top ? m : o->top;
   return 0;
}
