/* SPDX-License-Identifier: GPL-2.0-or-later */
/* part_report.c: table, JSON and CSV of a projection (part_report.h). */
#include "part_report.h"

#include <inttypes.h>

#include "cats/trace/json_out.h"

static double per(const part_projection *p, double v)
{
   return p->region.iterations ? v / (double)p->region.iterations : v;
}

void part_report_table(FILE *fp, const part_projection *p, const char *prefix)
{
   const part_region *rg = &p->region;
   if (rg->found)
      fprintf(fp, "%sprojected communication per iteration of %s (%s; %" PRIu64
                  " iterations)\n",
              prefix, rg->name, rg->automatic ? "chosen automatically" : "as named",
              rg->iterations);
   else
      fprintf(fp, "%sprojected communication of the whole run\n", prefix);
   const part_singleton_summary *s = &p->singletons;
   fprintf(fp, "%ssingletons: %u broadcast, %u reduce (once, after the "
               "region), %u allreduce, %u "
               "replicated (threshold %.2f, centroid degree %.1f)\n",
           prefix, s->count[PART_SINGLETON_BROADCAST], s->count[PART_SINGLETON_REDUCE],
           s->count[PART_SINGLETON_ALLREDUCE], s->count[PART_SINGLETON_REPLICATED], p->opts.threshold,
           s->centroid);
   fprintf(fp, "%s%6s %14s %14s %14s %10s %9s %12s  %s\n", prefix, "ranks",
           "p2p bytes", "coll. bytes", "max/rank", "neighbours", "imbalance",
           "time (s)", "decomposition");
   for (uint32_t i = 0; i < p->nresults; i++) {
      const part_comm_result *r = &p->results[i];
      char nb[32], dec[64];
      snprintf(nb, sizeof nb, "%u/%.1f", r->max_neighbours, r->avg_neighbours);
      part_report_decomposition(r, dec, sizeof dec);
      fprintf(fp, "%s%6u %14.0f %14.0f %14.0f %10s %9.3f %12.3g  %s\n", prefix,
              r->nranks, per(p, (double)r->p2p_bytes),
              per(p, (double)r->coll_total), per(p, (double)r->max_rank_bytes),
              nb, r->imbalance, per(p, r->time_estimate), dec);
   }
   if (p->array_uses) {
      static const char *const how[PART_DECOMP_N] = { "automatic", "METIS asked for",
                                                      "grid asked for" };
      fprintf(fp, "%sdecomposition %s: %.0f%% of the reads of arrays per iteration are "
                  "direct, not through loaded indices (%u dimension%s)%s%s\n",
              prefix, how[p->opts.decomp],
              100.0 * (double)p->direct_uses / (double)p->array_uses, p->maxdims,
              p->maxdims == 1 ? "" : "s",
              p->opts.decomp != PART_DECOMP_AUTO ? ""
              : p->maxdims >= 2 && 4 * (p->array_uses - p->direct_uses) <= p->array_uses
                 ? ", so the cheapest process grid"
                                                     : ", so METIS's parts",
              p->opts.nnamed ? "; --grid names the grid of its rank count" : "");
   }
   for (uint32_t i = 0; i < p->nresults; i++)
      if (p->results[i].dealt)
         fprintf(fp, "%snote: %u ranks: only %u values outside the singletons, "
                     "dealt round-robin (METIS needs more values than parts)\n",
                 prefix, p->results[i].nranks, p->results[i].dealt);
}

void part_report_decomposition(const part_comm_result *r, char *buf, size_t len)
{
   static const char *const metis[PART_METIS_NMETHODS] = { "METIS k-way", "METIS rb", "METIS",
                                                       "METIS volume" };
   if (r->method == PART_PROJECT_GRID) {
      char g[48];
      part_grid_format(&r->grid, g, sizeof g);
      snprintf(buf, len, "grid %s", g);
   } else {
      snprintf(buf, len, "%s", r->method >= 0 && r->method < PART_METIS_NMETHODS
                                  ? metis[r->method] : "?");
   }
}

static void json_matrix(FILE *fp, const part_comm_result *r)
{
   fputs("[", fp);
   for (uint32_t i = 0; i < r->nranks; i++) {
      fputs(i ? ", [" : "[", fp);
      for (uint32_t j = 0; j < r->nranks; j++)
         fprintf(fp, "%s%" PRIu64, j ? ", " : "",
                 r->matrix[(size_t)i * r->nranks + j]);
      fputs("]", fp);
   }
   fputs("]", fp);
}

int part_report_json(FILE *fp, const part_projection *p, const char *program)
{
   fputs("{\n  \"cats_comm\": 1,\n  \"kind\": \"projected\",\n  \"program\": ",
         fp);
   if (program)
      json_out_string(fp, program);
   else
      fputs("null", fp);
   fputs(",\n  \"region\": ", fp);
   if (p->region.found)
      json_out_string(fp, p->region.name);
   else
      fputs("null", fp);
   fprintf(fp, ",\n  \"singleton_threshold\": %g,\n  \"results\": [",
           p->opts.threshold);
   for (uint32_t i = 0; i < p->nresults; i++) {
      const part_comm_result *r = &p->results[i];
      fprintf(fp,
              "%s\n    {\"ranks\": %u, \"iterations\": %" PRIu64
              ", \"p2p_bytes\": %" PRIu64 ", \"collective_bytes\": %" PRIu64
              ",\n     \"max_rank_bytes\": %" PRIu64
              ", \"max_neighbours\": %u, \"imbalance\": %.4f"
              ", \"time_estimate\": %.6g,\n     \"matrix\": ",
              i ? "," : "", r->nranks,
              p->region.found ? p->region.iterations : 0, r->p2p_bytes,
              r->coll_total, r->max_rank_bytes, r->max_neighbours,
              r->imbalance, r->time_estimate);
      json_matrix(fp, r);
      char dec[64];
      part_report_decomposition(r, dec, sizeof dec);
      fputs(",\n     \"decomposition\": ", fp);
      json_out_string(fp, dec);
      if (r->ncand) {
         fputs(", \"candidates\": [", fp);
         for (uint32_t c = 0; c < r->ncand; c++) {
            char g[48] = "METIS";
            if (r->cand[c].f[0]) {
               char f[40];
               part_grid_format(&r->cand[c], f, sizeof f);
               snprintf(g, sizeof g, "grid %s", f);
            }
            fprintf(fp, "%s{\"decomposition\": ", c ? ", " : "");
            json_out_string(fp, g);
            fprintf(fp, ", \"bytes\": %" PRIu64 "}", r->cand_bytes[c]);
         }
         fputs("]", fp);
      }
      fputs(",\n     \"collectives\": {", fp);
      int first = 1;
      for (int t = 0; t < PART_COMM_NCOLL; t++) {
         if (!r->coll_calls[t])
            continue;
         fprintf(fp, "%s\"%s\": {\"calls\": %" PRIu64 ", \"bytes\": %" PRIu64
                     "}",
                 first ? "" : ", ", part_comm_coll_name(t), r->coll_calls[t],
                 r->coll_bytes[t]);
         first = 0;
      }
      fputs("}}", fp);
   }
   fputs("\n  ]\n}\n", fp);
   return ferror(fp) ? -1 : 0;
}

int part_report_csv(FILE *fp, const part_comm_result *r)
{
   for (uint32_t i = 0; i < r->nranks; i++)
      for (uint32_t j = 0; j < r->nranks; j++)
         fprintf(fp, "%" PRIu64 "%s", r->matrix[(size_t)i * r->nranks + j],
                 j + 1 < r->nranks ? "," : "\n");
   return ferror(fp) ? -1 : 0;
}
