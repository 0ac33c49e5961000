/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cli_loops.c: `cats loops OBJ`: what the helper answers to a LOOPS query
 * for OBJ, with ELF addresses (bias 0). First the region table, one line
 * per region: "ID KIND HEADER PARENT FUNCTION" (PARENT "-" for none);
 * then "ranges", one line per range: "START END REGION", [START, END).
 * Addresses in hex. */
#include <stdlib.h>

#include "cli.h"
#include "cats/binary/loops.h"

int cli_loops(int argc, char **argv)
{
   const char *obj = NULL;
   const cli_opt opts[] = { { NULL, NULL, NULL, NULL } };
   int rc = cli_parse(argc, argv, opts, &obj, 1, "cats loops OBJ");
   if (rc != CLI_OK)
      return rc == CLI_HELP ? CLI_OK : rc;
   loops_result res;
   char err[LOOPS_ERRLEN];
   if (loops_find(obj, 0, LOOPS_NO_BIAS, &res, err, sizeof err) != LOOPS_OK)
      return cli_error(CLI_EFILE, "%s: %s", obj, err);
   printf("regions %zu\n", res.nregions);
   for (size_t i = 0; i < res.nregions; i++) {
      const loops_region *g = &res.regions[i];
      const char *name = g->name < res.names_len ? res.names + g->name : "";
      printf("%zu %s 0x%llx ", i,
             g->kind == LOOPS_LOOP ? "loop" : "conditional",
             (unsigned long long)g->header);
      if (g->parent == LOOPS_NONE)
         printf("- ");
      else
         printf("%u ", g->parent);
      printf("%s\n", name[0] ? name : "?");
   }
   printf("ranges %zu\n", res.nranges);
   for (size_t i = 0; i < res.nranges; i++)
      printf("0x%llx 0x%llx %u\n", (unsigned long long)res.ranges[i].start,
             (unsigned long long)res.ranges[i].end, res.ranges[i].region);
   loops_result_free(&res);
   if (fflush(stdout) != 0 || ferror(stdout))
      return cli_error(CLI_EFILE, "stdout: write error");
   return CLI_OK;
}
