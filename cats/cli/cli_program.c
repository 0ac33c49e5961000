/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cli_program.c: what of a run is the program's own work (cli_program.h),
 * for the exports and the views. */
#include <stdlib.h>
#include <string.h>

#include "cli_program.h"

static uint32_t loc_object(const trace_file *t, uint32_t loc)
{
   return loc == CATS_NONE ? CATS_NONE : t->locs[loc].object;
}

/* Code of the program's own source: in main's object and with a line (the
 * start-up files linked into it, crt1.o and the PLT, have none). */
static int own_code(const cli_program *v, const trace_file *t, uint32_t loc)
{
   return loc_object(t, loc) == v->object && t->locs[loc].line != 0;
}

int cli_program_init(cli_program *v, const trace_file *t, int whole_run)
{
   *v = (cli_program){ 0, CATS_NONE, NULL };
   for (uint32_t i = 0; i < t->ncontexts && !whole_run; i++) {
      const trace_context *c = &t->contexts[i];
      if (c->kind == CATS_CTX_FUNCTION &&
          strcmp(trace_str(t, c->name), "main") == 0) {
         v->start = c->first_time;
         v->object = loc_object(t, c->loc);
         break;
      }
   }
   if (!(v->ours = calloc((size_t)t->nallocs + 1, 1)))
      return -1;
   for (uint32_t i = 0; i < t->nallocs; i++)
      v->ours[i] = v->object == CATS_NONE ||
                   own_code(v, t, t->allocs[i].alloc_loc);
   for (uint32_t i = 0; i < t->nevents; i++) {
      const trace_event *e = &t->events[i];
      if (e->alloc < t->nallocs && v->object != CATS_NONE &&
          own_code(v, t, e->loc))
         v->ours[e->alloc] = 1;
   }
   return 0;
}

void cli_program_free(cli_program *v)
{
   free(v->ours);
   v->ours = NULL;
}

int cli_program_event_shown(const cli_program *v, const trace_file *t,
                            uint32_t event)
{
   const trace_event *e = &t->events[event];
   return e->alloc < t->nallocs && v->ours[e->alloc] &&
          (v->start == 0 || e->last_time > v->start);
}

int cli_program_context_shown(const cli_program *v, const trace_file *t,
                              uint32_t ctx)
{
   const trace_context *c = &t->contexts[ctx];
   return c->kind != CATS_CTX_THREAD &&
          (v->object == CATS_NONE || own_code(v, t, c->loc));
}
