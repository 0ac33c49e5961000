/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cli_util.c: helpers shared by the `cats` subcommands (see cli.h). */
#include "cli.h"

#include "cats/trace/errmsg.h"
#include "partition/part_section.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

int cli_error(int code, const char *fmt, ...)
{
   char msg[2048];
   va_list ap;
   va_start(ap, fmt);
   errmsg_vformat(msg, sizeof msg, fmt, ap);   /* one line, no escapes */
   va_end(ap);
   fprintf(stderr, "cats: %s\n", msg);
   return code;
}

static const cli_opt *find_opt(const cli_opt *opts, const char *arg,
                               size_t len)
{
   for (; opts->name; opts++) {
      if (strlen(opts->name) == len && strncmp(opts->name, arg, len) == 0)
         return opts;
      if (opts->alias && strlen(opts->alias) == len &&
          strncmp(opts->alias, arg, len) == 0)
         return opts;
   }
   return NULL;
}

int cli_parse(int argc, char **argv, const cli_opt *opts, const char **pos,
              int npos, const char *usage)
{
   const char *cmd = argv[0];
   int got = 0, only_pos = 0;
   for (int i = 1; i < argc; i++) {
      const char *a = argv[i];
      if (!only_pos && strcmp(a, "--") == 0) {
         only_pos = 1;
         continue;
      }
      if (only_pos || a[0] != '-' || a[1] == '\0') {
         if (got == npos)
            return cli_error(CLI_EUSAGE, "%s: unexpected argument '%s' "
                             "(usage: %s)", cmd, a, usage);
         pos[got++] = a;
         continue;
      }
      if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
         printf("usage: %s\n", usage);
         return CLI_HELP;
      }
      /* --name=value, -oVALUE, or the name alone */
      const char *eq = a[1] == '-' ? strchr(a, '=') : NULL;
      size_t len = eq ? (size_t)(eq - a) : strlen(a);
      const cli_opt *o = find_opt(opts, a, len);
      const char *inline_val = eq ? eq + 1 : NULL;
      if (!o && a[1] != '-' && len > 2) {
         o = find_opt(opts, a, 2);
         if (o && o->value)
            inline_val = a + 2;
         else
            o = NULL;
      }
      if (!o)
         return cli_error(CLI_EUSAGE, "%s: unknown option '%s' (usage: %s)",
                          cmd, a, usage);
      if (o->flag) {
         if (inline_val)
            return cli_error(CLI_EUSAGE, "%s: option '%s' takes no value",
                             cmd, o->name);
         *o->flag = 1;
         continue;
      }
      if (!inline_val) {
         if (i + 1 >= argc)
            return cli_error(CLI_EUSAGE, "%s: option '%s' needs a value",
                             cmd, a);
         inline_val = argv[++i];
      }
      *o->value = inline_val;
   }
   if (got < npos)
      return cli_error(CLI_EUSAGE, "%s: missing argument (usage: %s)", cmd,
                       usage);
   return CLI_OK;
}

static int load(const char *path, int keep_graph, trace_file **out)
{
   char err[TRACE_ERRLEN];
   trace_status st = keep_graph ? trace_open(path, out, err, sizeof err)
                              : trace_open_without_graph(path, out, err,
                                                         sizeof err);
   if (st != TRACE_OK)
      return cli_error(CLI_EFILE, "%s: %s", path, err);
   /* The PROJECT section is the partition layer's to decode: checked here
    * for every command, so that none accepts a damaged one. */
   if ((*out)->has_projection) {
      part_projection p;
      if (part_section_read((*out)->projection, (*out)->projection_len, &p, err,
                            sizeof err) != 0) {
         trace_free(*out);
         *out = NULL;
         return cli_error(CLI_EFILE, "%s: %s", path, err);
      }
      part_project_free(&p);
   }
   return CLI_OK;
}

int cli_load(const char *path, trace_file **out)
{
   return load(path, 1, out);
}

int cli_load_without_graph(const char *path, trace_file **out)
{
   return load(path, 0, out);
}

void cli_text(FILE *fp, const char *s)
{
   for (; *s; s++) {
      unsigned char c = (unsigned char)*s;
      if (c < 0x20 || c == 0x7f)
         fprintf(fp, "\\x%02x", c);
      else
         putc(c, fp);
   }
}

void cli_text_buf(char *buf, size_t n, const char *s)
{
   if (n == 0)
      return;
   size_t k = 0;
   for (; *s; s++) {
      unsigned char c = (unsigned char)*s;
      int esc = c < 0x20 || c == 0x7f;
      if (k + (esc ? 4 : 1) >= n)
         break;
      if (esc)
         k += (size_t)snprintf(buf + k, n - k, "\\x%02x", c);
      else
         buf[k++] = (char)c;
   }
   buf[k] = '\0';
}

void cli_loc_str(const trace_file *t, uint32_t loc, char *buf, size_t n)
{
   if (loc == CATS_NONE || loc >= t->nlocs) {
      snprintf(buf, n, "%s", "");
      return;
   }
   const trace_loc *l = &t->locs[loc];
   const char *file = trace_str(t, l->file);
   if (file[0])
      snprintf(buf, n, "%s:%u", file, l->line);
   else
      snprintf(buf, n, "0x%llx", (unsigned long long)l->addr);
}

void cli_ctx_label(const trace_file *t, uint32_t ctx, char *buf, size_t n)
{
   const trace_context *c = &t->contexts[ctx];
   const char *name = trace_str(t, c->name);
   if (c->kind == CATS_CTX_LOOP || c->kind == CATS_CTX_CONDITIONAL) {
      char where[256];
      cli_loc_str(t, c->loc, where, sizeof where);
      if (where[0]) {
         snprintf(buf, n, "%s (%s)", name, where);
         return;
      }
   }
   snprintf(buf, n, "%s", name);
}

int cli_tree_build(const trace_file *t, cli_tree *tree)
{
   size_t n = t->ncontexts ? t->ncontexts : 1;
   tree->first = malloc(n * sizeof *tree->first);
   tree->next = malloc(n * sizeof *tree->next);
   uint32_t *last = malloc(n * sizeof *last);
   if (!tree->first || !tree->next || !last) {
      free(last);
      cli_tree_free(tree);
      return -1;
   }
   for (uint32_t i = 0; i < t->ncontexts; i++)
      tree->first[i] = tree->next[i] = last[i] = CATS_NONE;
   /* Parents precede children, so appending keeps children in id order. */
   for (uint32_t i = 0; i < t->ncontexts; i++) {
      uint32_t p = t->contexts[i].parent;
      if (p == CATS_NONE)
         continue;
      if (last[p] == CATS_NONE)
         tree->first[p] = i;
      else
         tree->next[last[p]] = i;
      last[p] = i;
   }
   free(last);
   return 0;
}

void cli_tree_free(cli_tree *tree)
{
   free(tree->first);
   free(tree->next);
   tree->first = tree->next = NULL;
}

void cli_print_path(const trace_file *t, uint32_t id, FILE *fp)
{
   uint32_t depth = t->contexts[id].depth;
   uint32_t *chain = malloc(((size_t)depth + 1) * sizeof *chain);
   if (!chain)
      return;
   uint32_t n = 0;
   for (uint32_t c = id; c != CATS_NONE; c = t->contexts[c].parent)
      chain[n++] = c;
   int first = 1;
   for (uint32_t k = n; k-- > 0;) {
      if (t->contexts[chain[k]].kind == CATS_CTX_THREAD && n > 1)
         continue;
      char label[512];
      cli_ctx_label(t, chain[k], label, sizeof label);
      fputs(first ? "" : " > ", fp);
      cli_text(fp, label);
      first = 0;
   }
   free(chain);
}

uint64_t cli_mul_sat(uint64_t a, uint64_t b)
{
   if (a != 0 && b > UINT64_MAX / a)
      return UINT64_MAX;
   return a * b;
}
