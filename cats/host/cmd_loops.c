/* cmd_loops.c: `cats loops OBJ`: what the helper answers to a LOOPS query
 * for OBJ, with ELF addresses (bias 0). One range per line:
 * "START END KIND", hex addresses, [START, END). */
#include <stdlib.h>

#include "cli.h"
#include "loops.h"

int cli_cmd_loops(int argc, char **argv)
{
   const char *obj = NULL;
   const cli_opt opts[] = { { NULL, NULL, NULL, NULL } };
   int rc = cli_parse(argc, argv, opts, &obj, 1, "cats loops OBJ");
   if (rc != CLI_OK)
      return rc == CLI_HELP ? CLI_OK : rc;
   clp_range *r;
   size_t n;
   char err[CLP_ERRLEN];
   if (clp_find(obj, 0, CLP_NO_BIAS, &r, &n, err, sizeof err) != CLP_OK)
      return cli_error(CLI_EFILE, "%s: %s", obj, err);
   for (size_t i = 0; i < n; i++)
      printf("0x%llx 0x%llx %s\n", (unsigned long long)r[i].start,
             (unsigned long long)r[i].end,
             r[i].kind == CLP_LOOP ? "loop" : "conditional");
   free(r);
   if (fflush(stdout) != 0 || ferror(stdout))
      return cli_error(CLI_EFILE, "stdout: write error");
   return CLI_OK;
}
