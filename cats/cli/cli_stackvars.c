/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cli_stackvars.c: `cats stackvars OBJ`: what the helper answers to a
 * STACKVARS query for OBJ, with ELF addresses (bias 0). One array per
 * line: "ENTRY FUNCTION CFA_OFFSET SIZE NAME", the entry in hex, the
 * function's DWARF name ("?" if it has none), the offset signed decimal. */
#include <stdlib.h>

#include "cli.h"
#include "cats/binary/stackvars.h"

/* The function name is a middle column: spaces ("operator delete") are
 * escaped like control bytes so every line splits into five fields. */
static void print_fn_name(const char *s)
{
   char buf[2] = { 0, 0 };
   for (; *s; s++) {
      if (*s == ' ') {
         fputs("\\x20", stdout);
         continue;
      }
      buf[0] = *s;
      cli_text(stdout, buf);
   }
}

int cli_stackvars(int argc, char **argv)
{
   const char *obj = NULL;
   const cli_opt opts[] = { { NULL, NULL, NULL, NULL } };
   int rc = cli_parse(argc, argv, opts, &obj, 1, "cats stackvars OBJ");
   if (rc != CLI_OK)
      return rc == CLI_HELP ? CLI_OK : rc;
   stackvars_var *v;
   size_t n;
   char err[STACKVARS_ERRLEN];
   stackvars_status st = stackvars_find(obj, 0, STACKVARS_NO_BIAS, NULL, &v, &n, err,
                                        sizeof err);
   /* No debug info is an answer (no arrays known), not a failure. */
   if (st == STACKVARS_ENODEBUG)
      cli_error(CLI_OK, "%s: %s", obj, err);
   else if (st != STACKVARS_OK)
      return cli_error(CLI_EFILE, "%s: %s", obj, err);
   for (size_t i = 0; i < n; i++) {
      printf("0x%llx ", (unsigned long long)v[i].fn_entry);
      print_fn_name(v[i].fn_name ? v[i].fn_name : "?");
      printf(" %lld %llu ", (long long)v[i].cfa_offset,
             (unsigned long long)v[i].size);
      cli_text(stdout, v[i].name);
      putchar('\n');
   }
   stackvars_free(v, n);
   if (fflush(stdout) != 0 || ferror(stdout))
      return cli_error(CLI_EFILE, "stdout: write error");
   return CLI_OK;
}
