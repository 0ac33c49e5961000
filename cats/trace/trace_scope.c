/* SPDX-License-Identifier: GPL-2.0-or-later */
/* trace_scope.c: the program's own contexts (trace_scope.h). */
#include "trace_scope.h"

#include <stdlib.h>
#include <string.h>

/* The dynamic linker resolving a symbol (lazy binding) and the tool's
 * preload libraries, by the object of a function's entry. */
static int foreign_code(const trace_file *t, const trace_context *c)
{
   if (c->kind != CATS_CTX_FUNCTION || c->loc == CATS_NONE)
      return 0;
   const char *obj = trace_str(t, t->locs[c->loc].object);
   const char *base = strrchr(obj, '/');
   base = base ? base + 1 : obj;
   return strncmp(base, "ld-linux", 8) == 0 ||
          strncmp(base, "ld.so", 5) == 0 ||
          strncmp(base, "vgpreload_", 10) == 0;
}

static int is_main(const trace_file *t, const trace_context *c)
{
   return c->kind == CATS_CTX_FUNCTION &&
          strcmp(trace_str(t, c->name), "main") == 0;
}

int64_t trace_program_contexts(const trace_file *t, uint8_t *in)
{
   uint8_t *main_root = calloc((size_t)t->ncontexts + 1, 1);
   if (!main_root)
      return -1;
   int any = 0;
   for (uint32_t i = 0; i < t->ncontexts; i++) {
      if (!is_main(t, &t->contexts[i]))
         continue;
      uint32_t r = i;
      while (t->contexts[r].parent != CATS_NONE)
         r = t->contexts[r].parent;
      main_root[r] = 1;   /* in main's thread only main's subtree counts */
      any = 1;
   }
   int64_t n = 0;
   /* Parents precede their children. */
   for (uint32_t i = 0; i < t->ncontexts; i++) {
      const trace_context *c = &t->contexts[i];
      int yes = any && (c->parent == CATS_NONE ? !main_root[i]
                                               : is_main(t, c) || in[c->parent]);
      in[i] = (uint8_t)(yes && !foreign_code(t, c));
      n += in[i];
   }
   free(main_root);
   return n;
}
