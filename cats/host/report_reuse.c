/* report_reuse.c: section 7 of `cats report`: reuse (stack) distances.
 *
 * PLACEHOLDER. Reuse distances are another engineer's part of the tool
 * (paper 001, §V.E: per element at cache-line granularity, a first touch
 * counting as an infinite distance). When the trace carries them,
 * cmd_report.c passes one histogram per container here; until then it
 * passes none and the section says that this report does not show them.
 * These writers print only what they are given. */
#include "cli.h"
#include "json_out.h"
#include "report.h"

void rpt_reuse_text(FILE *fp, const ctr_trace *t, const rpt_reuse_hist *h,
                    uint32_t n, uint32_t top)
{
   fputs("\n7. reuse distances\n", fp);
   if (n == 0) {
      fputs("   not part of this report yet\n", fp);
      return;
   }
   for (uint32_t i = 0; i < n && i < top; i++) {
      fprintf(fp, "  %2u. \"", i + 1);
      cli_text(fp, ctr_str(t, t->allocs[h[i].alloc].name));
      fprintf(fp, "\"  cold %llu", (unsigned long long)h[i].cold);
      for (uint32_t b = 0; b < h[i].nbuckets && b < 64; b++) {
         if (!h[i].count[b])
            continue;
         if (b > 0 && b + 1 == h[i].nbuckets)   /* the last is open */
            fprintf(fp, "  >=%llu: %llu", 1ull << (b - 1),
                    (unsigned long long)h[i].count[b]);
         else
            fprintf(fp, "  <%llu: %llu", 1ull << b,
                    (unsigned long long)h[i].count[b]);
      }
      fputc('\n', fp);
   }
}

void rpt_reuse_json(FILE *fp, const ctr_trace *t, const rpt_reuse_hist *h,
                    uint32_t n, uint32_t top)
{
   if (n == 0) {
      fputs("null", fp);
      return;
   }
   fputs("[", fp);
   for (uint32_t i = 0; i < n && i < top; i++) {
      fprintf(fp, "%s{\"alloc\": %u, \"name\": ", i ? ", " : "", h[i].alloc);
      cjo_string(fp, ctr_str(t, t->allocs[h[i].alloc].name));
      fprintf(fp, ", \"cold\": %llu, \"buckets\": [",
              (unsigned long long)h[i].cold);
      for (uint32_t b = 0; b < h[i].nbuckets; b++)
         fprintf(fp, "%s%llu", b ? ", " : "",
                 (unsigned long long)h[i].count[b]);
      fputs("]}", fp);
   }
   fputs("]", fp);
}
