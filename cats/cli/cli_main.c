/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cli_main.c: `cats`, the trace analysis command line.
 *
 * Subcommands are rows of one table; adding one (vcg, project, compare,
 * view, report) means one new file and one new row. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

typedef struct cli_command {
   const char *name;
   int (*run)(int argc, char **argv);
   const char *help;        /* one line for `cats --help` */
} cli_command;

static const cli_command commands[] = {
   { "dump", cli_dump,
     "dump [--json] FILE [-o OUT]   print a trace as text or JSON" },
   { "export", cli_export,
     "export --cats-viz FILE [-o OUT]  JSON for the C.A.T.S. viewer" },
   { "stat", cli_stat,
     "stat FILE                     counts, footprint, largest containers" },
   { "loops", cli_loops,
     "loops OBJ                     static loops and conditionals of an "
     "ELF object" },
   { "stackvars", cli_stackvars,
     "stackvars OBJ                 stack arrays (CFA offsets) from DWARF" },
   { "vcg", cli_vcg,
     "vcg FILE [OPTIONS]            value communication graph (see "
     "'cats vcg --help')" },
   { "project", cli_project,
     "project FILE [OPTIONS]        projected MPI communication for N ranks "
     "(see 'cats project --help')" },
   { "compare", cli_compare,
     "compare PROJECTED MEASURED    accuracy of a projection against an MPI "
     "run (libcats-mpi)" },
   { "view", cli_view,
     "view FILE [-o OUT.html]       the four views in one self-contained "
     "HTML page" },
   { "report", cli_report,
     "report FILE [OPTIONS]         findings to act on (see 'cats report "
     "--help')" },
};

#define NCOMMANDS (sizeof commands / sizeof commands[0])

static void usage(FILE *fp)
{
   fprintf(fp, "usage: cats COMMAND [ARGS]\n\ncommands:\n");
   for (size_t i = 0; i < NCOMMANDS; i++)
      fprintf(fp, "  %s\n", commands[i].help);
   fprintf(fp, "\n  --help       show this help\n"
               "  --version    show the version\n"
               "\nexit status: 0 ok, 1 file or data error, 2 usage error\n");
}

int main(int argc, char **argv)
{
   if (argc < 2)
      return cli_error(CLI_EUSAGE, "no command given (try 'cats --help')");
   const char *cmd = argv[1];
   if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 ||
       strcmp(cmd, "help") == 0) {
      usage(stdout);
      return fflush(stdout) == 0 ? CLI_OK : CLI_EFILE;
   }
   if (strcmp(cmd, "--version") == 0) {
      printf("cats %s\n", CLI_VERSION);
      return fflush(stdout) == 0 ? CLI_OK : CLI_EFILE;
   }
   for (size_t i = 0; i < NCOMMANDS; i++)
      if (strcmp(cmd, commands[i].name) == 0)
         return commands[i].run(argc - 1, argv + 1);
   if (cmd[0] == '-')
      return cli_error(CLI_EUSAGE, "unknown option '%s' (try 'cats --help')",
                       cmd);
   return cli_error(CLI_EUSAGE, "unknown command '%s' (try 'cats --help')",
                    cmd);
}
