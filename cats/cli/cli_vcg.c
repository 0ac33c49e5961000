/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cli_vcg.c: `cats vcg FILE`: the value communication graph (section 7).
 *
 * Default output: statistics, one "key value" line each, for scripts:
 *   vertices N, edges N ((src, dst) pairs merged across contexts),
 *   inputs N, outputs N, register-intermediates N, versions N (sum),
 *   coalescing R (versions per vertex), uses N (sum), in-degree and
 *   out-degree "MIN MEAN MAX" over the pairs, weight N (sum),
 *   context-edges N ((src, dst, ctx) records), word-size N.
 * --vertices: "LABEL flags=F versions=V weight=W" per vertex, in the
 *   graph's order (memory by allocation and offset, then intermediates);
 *   F is "in", "out", "reg", "in|out" or "-".
 * --edges: "SRC -> DST uses=U versions=V" per pair, sorted by the text
 *   (after the vertices when both are asked for).
 * A label is "NAME+OFFSET" for memory, "[tmp#K FUNCTION FILE:LINE]" for
 * the K-th register intermediate (from 0, in the graph's order).
 * --metis/--dot/--graphml OUT write graph files (cli_vcg_export.c); the
 *   statistics are printed unless a list or a file goes to stdout. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_outfile.h"

/* DOT and GraphML are for looking at; layout tools give up long before. */
#define VCG_DRAW_MAX 20000

int cli_vcg_pairs(const trace_file *t, cli_vcg_pair **out, uint32_t *n)
{
   const trace_vcg *g = &t->vcg;
   cli_vcg_pair *p = malloc(((size_t)g->nedges + 1) * sizeof *p);
   if (!p)
      return -1;
   uint32_t k = 0;
   /* Edges are sorted by (src, dst, ctx): a pair's contexts are adjacent. */
   for (uint32_t i = 0; i < g->nedges; i++) {
      const trace_vcg_edge *e = &g->edges[i];
      if (k > 0 && p[k - 1].src == e->src && p[k - 1].dst == e->dst) {
         p[k - 1].uses = cli_add_sat(p[k - 1].uses, e->uses);
         p[k - 1].versions = cli_add_sat(p[k - 1].versions, e->versions);
      } else {
         p[k++] = (cli_vcg_pair){ e->src, e->dst, e->uses, e->versions };
      }
   }
   /* The same source version may feed the sink in several contexts. */
   for (uint32_t i = 0; i < k; i++) {
      uint64_t sv = g->vertices[p[i].src].versions;
      if (p[i].versions > sv)
         p[i].versions = sv;
   }
   *out = p;
   *n = k;
   return 0;
}

/* Index of the first register intermediate (they follow the memory
 * vertices), or nvertices. */
static uint32_t first_register(const trace_vcg *g)
{
   uint32_t lo = 0, hi = g->nvertices;
   while (lo < hi) {
      uint32_t mid = lo + (hi - lo) / 2;
      if (g->vertices[mid].flags & CATS_VCG_REGISTER)
         hi = mid;
      else
         lo = mid + 1;
   }
   return lo;
}

void cli_vcg_label(const trace_file *t, uint32_t v, char *buf, size_t n)
{
   const trace_vcg_vertex *x = &t->vcg.vertices[v];
   /* Intermediates are numbered: many can share one code location. */
   uint32_t k = v - first_register(&t->vcg);
   char raw[CLI_VCG_LABEL];
   if (!(x->flags & CATS_VCG_REGISTER)) {
      const char *name = x->alloc == CATS_NONE
                            ? "?"
                            : trace_str(t, t->allocs[x->alloc].name);
      snprintf(raw, sizeof raw, "%.900s+%llu", name,
               (unsigned long long)x->offset);
   } else if (x->loc == CATS_NONE) {
      snprintf(raw, sizeof raw, "[tmp#%u ?]", k);
   } else {
      char where[512];
      cli_loc_str(t, x->loc, where, sizeof where);
      snprintf(raw, sizeof raw, "[tmp#%u %.400s %s]", k,
               trace_str(t, t->locs[x->loc].function), where);
   }
   cli_text_buf(buf, n, raw);
}

const char *cli_vcg_flags(uint32_t flags)
{
   /* One name per flag bit (CATS_VCG_INPUT, _OUTPUT, _REGISTER,
    * _CONTROL), joined by '|'. */
   static const char *const names[] = { "in", "out", "reg", "cond" };
   _Static_assert(CATS_VCG_FLAGS == 15u, "a name per flag bit");
   static char buf[32];
   size_t o = 0;
   for (unsigned b = 0; b < sizeof names / sizeof names[0]; b++)
      if (flags & (1u << b))
         o += (size_t)snprintf(buf + o, sizeof buf - o, "%s%s", o ? "|" : "", names[b]);
   return o ? buf : "-";
}

/* --- statistics ---------------------------------------------------------- */

static void degree_line(FILE *fp, const char *key, const uint32_t *deg,
                        uint32_t nv, uint32_t npairs)
{
   uint32_t lo = nv ? UINT32_MAX : 0, hi = 0;
   for (uint32_t i = 0; i < nv; i++) {
      lo = deg[i] < lo ? deg[i] : lo;
      hi = deg[i] > hi ? deg[i] : hi;
   }
   fprintf(fp, "%s %u %.2f %u\n", key, lo, nv ? (double)npairs / nv : 0.0,
           hi);
}

static int print_stats(const trace_file *t, FILE *fp)
{
   const trace_vcg *g = &t->vcg;
   cli_vcg_pair *p;
   uint32_t np;
   uint32_t *in = calloc((size_t)g->nvertices + 1, sizeof *in);
   uint32_t *out = calloc((size_t)g->nvertices + 1, sizeof *out);
   if (!in || !out || cli_vcg_pairs(t, &p, &np) != 0) {
      free(in);
      free(out);
      return -1;
   }
   uint64_t inputs = 0, outputs = 0, regs = 0, versions = 0, weight = 0;
   for (uint32_t i = 0; i < g->nvertices; i++) {
      const trace_vcg_vertex *v = &g->vertices[i];
      inputs += (v->flags & CATS_VCG_INPUT) != 0;
      outputs += (v->flags & CATS_VCG_OUTPUT) != 0;
      regs += (v->flags & CATS_VCG_REGISTER) != 0;
      versions += v->versions;
      weight = cli_add_sat(weight, v->weight);
   }
   uint64_t uses = 0;
   for (uint32_t i = 0; i < g->nedges; i++)
      uses = cli_add_sat(uses, g->edges[i].uses);
   for (uint32_t i = 0; i < np; i++) {
      out[p[i].src]++;
      in[p[i].dst]++;
   }
   const char *cut = trace_meta_get(t, "vcg_cut");
   if (cut)
      fprintf(fp, "cut %s\n", cut);
   fprintf(fp, "vertices %u\n", g->nvertices);
   fprintf(fp, "edges %u\n", np);
   fprintf(fp, "inputs %llu\n", (unsigned long long)inputs);
   fprintf(fp, "outputs %llu\n", (unsigned long long)outputs);
   fprintf(fp, "register-intermediates %llu\n", (unsigned long long)regs);
   fprintf(fp, "versions %llu\n", (unsigned long long)versions);
   fprintf(fp, "coalescing %.2f\n",
           g->nvertices ? (double)versions / g->nvertices : 0.0);
   fprintf(fp, "uses %llu\n", (unsigned long long)uses);
   degree_line(fp, "in-degree", in, g->nvertices, np);
   degree_line(fp, "out-degree", out, g->nvertices, np);
   fprintf(fp, "weight %llu\n", (unsigned long long)weight);
   fprintf(fp, "context-edges %u\n", g->nedges);
   fprintf(fp, "word-size %u\n", g->word_size);
   free(p);
   free(in);
   free(out);
   return 0;
}

/* --- lists --------------------------------------------------------------- */

static int print_vertices(const trace_file *t, FILE *fp)
{
   char label[CLI_VCG_LABEL];
   for (uint32_t i = 0; i < t->vcg.nvertices; i++) {
      const trace_vcg_vertex *v = &t->vcg.vertices[i];
      cli_vcg_label(t, i, label, sizeof label);
      fprintf(fp, "%s flags=%s versions=%u weight=%llu\n", label,
              cli_vcg_flags(v->flags), v->versions,
              (unsigned long long)v->weight);
   }
   return 0;
}

/* Every vertex label once, in one pool. */
typedef struct vl_labels {
   char *pool;
   size_t *off;
} vl_labels;

static int labels_make(const trace_file *t, vl_labels *l)
{
   uint32_t nv = t->vcg.nvertices;
   size_t cap = 4096, len = 0;
   l->pool = malloc(cap);
   l->off = malloc(((size_t)nv + 1) * sizeof *l->off);
   int bad = !l->pool || !l->off;
   char label[CLI_VCG_LABEL];
   for (uint32_t i = 0; !bad && i < nv; i++) {
      cli_vcg_label(t, i, label, sizeof label);
      size_t n = strlen(label) + 1;
      if (len + n > cap) {
         cap = (len + n) * 2;
         char *p = realloc(l->pool, cap);
         if (!p) {
            bad = 1;
            break;
         }
         l->pool = p;
      }
      memcpy(l->pool + len, label, n);
      l->off[i] = len;
      len += n;
   }
   if (bad) {
      free(l->pool);
      free(l->off);
      return -1;
   }
   return 0;
}

/* A line of --edges, compared as the text it prints as. */
typedef struct el_line {
   const char *src, *dst;
   uint64_t uses, versions;
} el_line;

/* Walks the text of a line; the " uses=..." tail is formatted only when
 * a comparison gets that far. */
typedef struct el_cursor {
   const el_line *l;
   int piece;
   const char *p;
   char tail[64];
} el_cursor;

static int el_next(el_cursor *c)
{
   for (;;) {
      if (c->p && *c->p)
         return (unsigned char)*c->p++;
      switch (c->piece++) {
      case 0: c->p = c->l->src; break;
      case 1: c->p = " -> "; break;
      case 2: c->p = c->l->dst; break;
      case 3:
         snprintf(c->tail, sizeof c->tail, " uses=%llu versions=%llu",
                  (unsigned long long)c->l->uses,
                  (unsigned long long)c->l->versions);
         c->p = c->tail;
         break;
      default: return -1;
      }
   }
}

static int cmp_line(const void *pa, const void *pb)
{
   el_cursor a = { pa, 0, NULL, "" }, b = { pb, 0, NULL, "" };
   for (;;) {
      int x = el_next(&a), y = el_next(&b);
      if (x != y)
         return x < y ? -1 : 1;
      if (x < 0)
         return 0;
   }
}

static int print_edges(const trace_file *t, FILE *fp)
{
   vl_labels lb;
   if (labels_make(t, &lb) != 0)
      return -1;
   cli_vcg_pair *p = NULL;
   el_line *l = NULL;
   uint32_t np = 0;
   int bad = cli_vcg_pairs(t, &p, &np) != 0 ||
             !(l = malloc(((size_t)np + 1) * sizeof *l));
   if (!bad) {
      for (uint32_t i = 0; i < np; i++)
         l[i] = (el_line){ lb.pool + lb.off[p[i].src],
                           lb.pool + lb.off[p[i].dst], p[i].uses,
                           p[i].versions };
      qsort(l, np, sizeof *l, cmp_line);
      for (uint32_t i = 0; i < np; i++)
         fprintf(fp, "%s -> %s uses=%llu versions=%llu\n", l[i].src,
                 l[i].dst, (unsigned long long)l[i].uses,
                 (unsigned long long)l[i].versions);
   }
   free(p);
   free(l);
   free(lb.pool);
   free(lb.off);
   return bad ? -1 : 0;
}

/* --- files --------------------------------------------------------------- */

/* Per context that created values: its edges and their uses, most uses
 * first, one line each: "uses=U edges=E PATH". */
typedef struct ctx_total {
   uint32_t ctx;
   uint64_t uses, edges;
} ctx_total;

static int cmp_ctx_total(const void *pa, const void *pb)
{
   const ctx_total *a = pa, *b = pb;
   if (a->uses != b->uses)
      return a->uses < b->uses ? 1 : -1;
   return (a->ctx > b->ctx) - (a->ctx < b->ctx);
}

static int print_contexts(const trace_file *t, FILE *fp)
{
   uint32_t n = t->ncontexts + 1;   /* the last slot: no context */
   ctx_total *c = calloc(n, sizeof *c);
   if (!c)
      return -1;
   for (uint32_t i = 0; i < n; i++)
      c[i].ctx = i;
   for (uint64_t i = 0; i < t->vcg.nedges; i++) {
      const trace_vcg_edge *e = &t->vcg.edges[i];
      ctx_total *x = &c[e->ctx == CATS_NONE ? n - 1 : e->ctx];
      x->uses = cli_add_sat(x->uses, e->uses);
      x->edges++;
   }
   qsort(c, n, sizeof *c, cmp_ctx_total);
   for (uint32_t i = 0; i < n && c[i].edges > 0; i++) {
      fprintf(fp, "uses=%llu edges=%llu ", (unsigned long long)c[i].uses,
              (unsigned long long)c[i].edges);
      if (c[i].ctx == n - 1)
         fputs("(no context)", fp);
      else
         cli_print_path(t, c[i].ctx, fp);
      fputc('\n', fp);
   }
   free(c);
   return 0;
}

typedef struct vcg_file {
   const char *opt;        /* "--metis" */
   const char *path;       /* from the command line, or NULL */
   int (*write)(const trace_file *, FILE *);
   int drawing;            /* refused above VCG_DRAW_MAX vertices */
} vcg_file;

static int write_file(const trace_file *t, const char *file,
                      const vcg_file *f)
{
   char err[512] = "";
   cli_outfile out;
   if (cli_outfile_open(&out, f->path, err, sizeof err) != 0)
      return cli_error(CLI_EFILE, "%s", err);
   int ok = f->write(t, out.fp) == 0;
   if (cli_outfile_close(&out, ok, err, sizeof err) != 0 || !ok)
      return ok ? cli_error(CLI_EFILE, "%s", err)
                : cli_error(CLI_EFILE, "%s: out of memory writing %s", file,
                            f->opt);
   return CLI_OK;
}

static int is_stdout(const char *path)
{
   return path && strcmp(path, "-") == 0;
}

int cli_vcg(int argc, char **argv)
{
   const char *file = NULL;
   int edges = 0, vertices = 0, contexts = 0;
   vcg_file files[] = {
      { "--metis", NULL, cli_vcg_metis, 0 },
      { "--dot", NULL, cli_vcg_dot, 1 },
      { "--graphml", NULL, cli_vcg_graphml, 1 },
   };
   const size_t nfiles = sizeof files / sizeof files[0];
   const cli_opt opts[] = {
      { "--edges", NULL, &edges, NULL },
      { "--vertices", NULL, &vertices, NULL },
      { "--contexts", NULL, &contexts, NULL },
      { "--metis", NULL, NULL, &files[0].path },
      { "--dot", NULL, NULL, &files[1].path },
      { "--graphml", NULL, NULL, &files[2].path },
      { NULL, NULL, NULL, NULL },
   };
   int rc = cli_parse(argc, argv, opts, &file, 1,
                      "cats vcg FILE [--edges] [--vertices] [--contexts] [--metis OUT] "
                      "[--dot OUT] [--graphml OUT]");
   if (rc != CLI_OK)
      return rc == CLI_HELP ? CLI_OK : rc;
   trace_file *t;
   if ((rc = cli_load(file, &t)) != CLI_OK)
      return rc;
   if (!t->has_vcg) {
      char why[512];
      trace_no_graph_reason(t, why, sizeof why);
      trace_free(t);
      return cli_error(CLI_EFILE, "%s: %s", file, why);
   }
   int to_stdout = edges || vertices || contexts;
   for (size_t i = 0; i < nfiles; i++) {
      to_stdout |= is_stdout(files[i].path);
      if (files[i].path && files[i].drawing &&
          t->vcg.nvertices > VCG_DRAW_MAX) {
         rc = cli_error(CLI_EFILE, "%s: %s draws at most %d vertices, the "
                                   "graph has %u (use --metis)", file,
                        files[i].opt, VCG_DRAW_MAX, t->vcg.nvertices);
         trace_free(t);
         return rc;
      }
   }
   for (size_t i = 0; i < nfiles && rc == CLI_OK; i++)
      if (files[i].path)
         rc = write_file(t, file, &files[i]);
   if (rc == CLI_OK) {
      int bad = (!to_stdout && print_stats(t, stdout) != 0) ||
                (vertices && print_vertices(t, stdout) != 0) ||
                (edges && print_edges(t, stdout) != 0) ||
                (contexts && print_contexts(t, stdout) != 0);
      if (bad)
         rc = cli_error(CLI_EFILE, "%s: out of memory", file);
   }
   trace_free(t);
   if (rc == CLI_OK && (fflush(stdout) != 0 || ferror(stdout)))
      rc = cli_error(CLI_EFILE, "stdout: write error");
   return rc;
}
