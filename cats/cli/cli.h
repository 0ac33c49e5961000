/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cli.h: the `cats` command line: command table and shared helpers.
 *
 * Each subcommand lives in its own file as `int cli_NAME(int argc,
 * char **argv)` (argv[0] is the command name) and is listed once in the
 * table of cli_main.c. Exit codes: 0 success, 1 file or data error,
 * 2 usage error. Every error is one line on stderr starting "cats: ". */
#ifndef CATS_CLI_CLI_H
#define CATS_CLI_CLI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cats/trace/trace.h"

#define CLI_VERSION "0.1.0"

enum { CLI_HELP = -1, CLI_OK = 0, CLI_EFILE = 1, CLI_EUSAGE = 2 };

/* The commands. */
int cli_dump(int argc, char **argv);
int cli_export(int argc, char **argv);
int cli_stat(int argc, char **argv);
int cli_loops(int argc, char **argv);
int cli_stackvars(int argc, char **argv);
int cli_vcg(int argc, char **argv);
int cli_project(int argc, char **argv);
int cli_compare(int argc, char **argv);
int cli_view(int argc, char **argv);
int cli_report(int argc, char **argv);

/* Writers used by `dump` (cli_dump.c, cli_dump_json.c). */
int cli_dump_text(const trace_file *t, FILE *fp);
int cli_dump_json(const trace_file *t, FILE *fp);

/* Used by `vcg` (cli_vcg.c, cli_vcg_export.c) on a trace with a VCG. */
#define CLI_VCG_LABEL 1024   /* room for one vertex label */

/* An edge of the graph merged across contexts: the (src, dst) pair. */
typedef struct cli_vcg_pair {
   uint32_t src, dst;      /* vertex indices */
   uint64_t uses;          /* summed over the contexts */
   uint64_t versions;      /* summed, at most the versions of src */
} cli_vcg_pair;

/* The pairs in (src, dst) order; -1 if out of memory. */
int cli_vcg_pairs(const trace_file *t, cli_vcg_pair **out, uint32_t *n);

/* A vertex as text: "NAME+OFFSET" for memory (NAME the allocation's name,
 * "?" without one), "[tmp#K FUNCTION FILE:LINE]" for the K-th register
 * intermediate (the location as cli_loc_str writes it). Control bytes are
 * escaped as by cli_text. */
void cli_vcg_label(const trace_file *t, uint32_t v, char *buf, size_t n);

/* "in|out|reg|cond", a subset of it, or "-" (valid until the next
 * call). */
const char *cli_vcg_flags(uint32_t flags);

/* Graph files: METIS (undirected, 1-based), Graphviz DOT, GraphML. */
int cli_vcg_metis(const trace_file *t, FILE *fp);
int cli_vcg_dot(const trace_file *t, FILE *fp);
int cli_vcg_graphml(const trace_file *t, FILE *fp);

/* One option of a command: a flag (`flag` set to 1) or an option with a
 * value (`value` set). `alias` may be NULL. */
typedef struct cli_opt {
   const char *name;       /* e.g. "--json" or "-o" */
   const char *alias;      /* e.g. "--output" */
   int *flag;
   const char **value;
} cli_opt;

/* Parse argv[1..] against opts (terminated by a zero entry); exactly
 * `npos` positional arguments are stored in pos[]. Prints the error and
 * returns CLI_EUSAGE on misuse; prints the usage to stdout and returns
 * CLI_HELP for --help; CLI_OK otherwise. */
int cli_parse(int argc, char **argv, const cli_opt *opts, const char **pos,
              int npos, const char *usage);

/* "cats: ..." on stderr; returns `code`. */
int cli_error(int code, const char *fmt, ...)
   __attribute__((format(printf, 2, 3)));

/* Load a trace, printing "cats: FILE: reason" on failure. */
int cli_load(const char *path, trace_file **out);
/* The same without keeping the value communication graph (it is still
 * checked), for the commands that do not use it. */
int cli_load_without_graph(const char *path, trace_file **out);

/* Print a trace string for a terminal: control bytes become \xNN so a
 * hostile or odd name cannot break lines or emit escape sequences. */
void cli_text(FILE *fp, const char *s);

/* The same into buf[n] (cut short if it does not fit). */
void cli_text_buf(char *buf, size_t n, const char *s);

/* "file:line", or the function when the file is unknown, or "" */
void cli_loc_str(const trace_file *t, uint32_t loc, char *buf, size_t n);

/* A context as one path element: "main", "loop (x.c:12)", "if (x.c:14)". */
void cli_ctx_label(const trace_file *t, uint32_t ctx, char *buf, size_t n);

/* The path of a context, "main > loop (x.c:12) > f", leaving out the
 * thread root unless it is the context itself. */
void cli_print_path(const trace_file *t, uint32_t ctx, FILE *fp);

/* Children of each context in id order, as first/next arrays (CATS_NONE
 * terminated); returns -1 when out of memory. */
typedef struct cli_tree {
   uint32_t *first;        /* first child of each node */
   uint32_t *next;         /* next sibling of each node */
} cli_tree;
int cli_tree_build(const trace_file *t, cli_tree *tree);
void cli_tree_free(cli_tree *tree);

/* u64 multiply and add that saturate instead of wrapping. */
uint64_t cli_mul_sat(uint64_t a, uint64_t b);
static inline uint64_t cli_add_sat(uint64_t a, uint64_t b)
{
   return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

#endif /* CATS_CLI_CLI_H */
