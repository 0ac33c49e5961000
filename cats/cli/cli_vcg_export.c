/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cli_vcg_export.c: graph files for `cats vcg`.
 *
 * METIS (the input of gpmetis and of partitioners that read its format):
 * the graph made undirected, header "n m 011", then one line per vertex,
 * "WEIGHT NEIGHBOUR EDGE-WEIGHT ...": vertex weights max(1, computation),
 * neighbours 1-based in increasing order, the weight of {u, v} the uses
 * of u -> v plus those of v -> u over all contexts; no self loops (the
 * format forbids them). DOT and GraphML keep the direction, one edge per
 * (src, dst) pair. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* An undirected pair a < b with its weight. */
typedef struct mt_pair {
   uint32_t a, b;
   uint64_t w;
} mt_pair;

/* A neighbour in the adjacency lists. */
typedef struct mt_adj {
   uint32_t v;
   uint64_t w;
} mt_adj;

static uint64_t add_sat(uint64_t a, uint64_t b)
{
   return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static int cmp_pair(const void *pa, const void *pb)
{
   const mt_pair *x = pa, *y = pb;
   if (x->a != y->a)
      return x->a < y->a ? -1 : 1;
   return (x->b > y->b) - (x->b < y->b);
}

/* The undirected pairs, sorted and merged; *n gets their count. */
static mt_pair *undirected(const trace_vcg *g, uint32_t *n)
{
   mt_pair *p = malloc(((size_t)g->nedges + 1) * sizeof *p);
   if (!p)
      return NULL;
   uint32_t k = 0;
   for (uint32_t i = 0; i < g->nedges; i++) {
      const trace_vcg_edge *e = &g->edges[i];
      if (e->src == e->dst)
         continue;
      p[k++] = (mt_pair){ e->src < e->dst ? e->src : e->dst,
                          e->src < e->dst ? e->dst : e->src, e->uses };
   }
   qsort(p, k, sizeof *p, cmp_pair);
   uint32_t m = 0;
   for (uint32_t i = 0; i < k; i++) {
      if (m > 0 && p[m - 1].a == p[i].a && p[m - 1].b == p[i].b)
         p[m - 1].w = add_sat(p[m - 1].w, p[i].w);
      else
         p[m++] = p[i];
   }
   *n = m;
   return p;
}

int cli_vcg_metis(const trace_file *t, FILE *fp)
{
   const trace_vcg *g = &t->vcg;
   uint32_t m = 0;
   mt_pair *p = undirected(g, &m);
   size_t *start = calloc((size_t)g->nvertices + 2, sizeof *start);
   mt_adj *adj = p ? malloc(((size_t)m * 2 + 1) * sizeof *adj) : NULL;
   if (!p || !start || !adj) {
      free(p);
      free(start);
      free(adj);
      return -1;
   }
   /* Adjacency in CSR form. Pairs are sorted by (a, b), so each list
    * fills in increasing order: the neighbours below a vertex (where it
    * is b) come before those above it (where it is a). */
   for (uint32_t i = 0; i < m; i++) {
      start[p[i].a + 2]++;
      start[p[i].b + 2]++;
   }
   for (uint32_t v = 0; v < g->nvertices; v++)
      start[v + 2] += start[v + 1];
   for (uint32_t i = 0; i < m; i++) {
      adj[start[p[i].a + 1]++] = (mt_adj){ p[i].b, p[i].w };
      adj[start[p[i].b + 1]++] = (mt_adj){ p[i].a, p[i].w };
   }
   fprintf(fp, "%u %u 011\n", g->nvertices, m);
   for (uint32_t v = 0; v < g->nvertices; v++) {
      uint64_t w = g->vertices[v].weight;
      fprintf(fp, "%llu", (unsigned long long)(w ? w : 1));
      for (size_t k = start[v]; k < start[v + 1]; k++)
         fprintf(fp, " %u %llu", adj[k].v + 1, (unsigned long long)adj[k].w);
      fputc('\n', fp);
   }
   free(p);
   free(start);
   free(adj);
   return 0;
}

/* A label inside a DOT string: quote and backslash escaped. */
static void dot_str(FILE *fp, const char *s)
{
   for (; *s; s++) {
      if (*s == '"' || *s == '\\')
         fputc('\\', fp);
      fputc(*s, fp);
   }
}

int cli_vcg_dot(const trace_file *t, FILE *fp)
{
   const trace_vcg *g = &t->vcg;
   cli_vcg_pair *p;
   uint32_t np;
   if (cli_vcg_pairs(t, &p, &np) != 0)
      return -1;
   char label[CLI_VCG_LABEL];
   fputs("digraph vcg {\n", fp);
   for (uint32_t v = 0; v < g->nvertices; v++) {
      const trace_vcg_vertex *x = &g->vertices[v];
      cli_vcg_label(t, v, label, sizeof label);
      fprintf(fp, "  v%u [shape=%s, label=\"", v,
              x->flags & CATS_VCG_REGISTER ? "box" : "ellipse");
      dot_str(fp, label);
      fprintf(fp, "\\nflags=%s versions=%u weight=%llu\"];\n",
              cli_vcg_flags(x->flags), x->versions,
              (unsigned long long)x->weight);
   }
   for (uint32_t i = 0; i < np; i++)
      fprintf(fp, "  v%u -> v%u [label=\"uses=%llu versions=%llu\"];\n",
              p[i].src, p[i].dst, (unsigned long long)p[i].uses,
              (unsigned long long)p[i].versions);
   fputs("}\n", fp);
   free(p);
   return 0;
}

/* Text for XML character data and attributes. */
static void xml_str(FILE *fp, const char *s)
{
   for (; *s; s++) {
      switch (*s) {
      case '&': fputs("&amp;", fp); break;
      case '<': fputs("&lt;", fp); break;
      case '>': fputs("&gt;", fp); break;
      case '"': fputs("&quot;", fp); break;
      default: fputc(*s, fp);
      }
   }
}

int cli_vcg_graphml(const trace_file *t, FILE *fp)
{
   const trace_vcg *g = &t->vcg;
   cli_vcg_pair *p;
   uint32_t np;
   if (cli_vcg_pairs(t, &p, &np) != 0)
      return -1;
   char label[CLI_VCG_LABEL];
   fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
         "<graphml xmlns=\"http://graphml.graphdrawing.org/xmlns\">\n"
         "  <key id=\"label\" for=\"node\" attr.name=\"label\" "
         "attr.type=\"string\"/>\n"
         "  <key id=\"flags\" for=\"node\" attr.name=\"flags\" "
         "attr.type=\"string\"/>\n"
         "  <key id=\"versions\" for=\"node\" attr.name=\"versions\" "
         "attr.type=\"long\"/>\n"
         "  <key id=\"weight\" for=\"node\" attr.name=\"weight\" "
         "attr.type=\"long\"/>\n"
         "  <key id=\"uses\" for=\"edge\" attr.name=\"uses\" "
         "attr.type=\"long\"/>\n"
         "  <key id=\"consumed\" for=\"edge\" attr.name=\"versions\" "
         "attr.type=\"long\"/>\n"
         "  <graph id=\"vcg\" edgedefault=\"directed\">\n", fp);
   for (uint32_t v = 0; v < g->nvertices; v++) {
      const trace_vcg_vertex *x = &g->vertices[v];
      cli_vcg_label(t, v, label, sizeof label);
      fprintf(fp, "    <node id=\"v%u\"><data key=\"label\">", v);
      xml_str(fp, label);
      fprintf(fp, "</data><data key=\"flags\">%s</data>"
                  "<data key=\"versions\">%u</data>"
                  "<data key=\"weight\">%llu</data></node>\n",
              cli_vcg_flags(x->flags), x->versions,
              (unsigned long long)x->weight);
   }
   for (uint32_t i = 0; i < np; i++)
      fprintf(fp, "    <edge source=\"v%u\" target=\"v%u\">"
                  "<data key=\"uses\">%llu</data>"
                  "<data key=\"consumed\">%llu</data></edge>\n",
              p[i].src, p[i].dst, (unsigned long long)p[i].uses,
              (unsigned long long)p[i].versions);
   fputs("  </graph>\n</graphml>\n", fp);
   free(p);
   return 0;
}
