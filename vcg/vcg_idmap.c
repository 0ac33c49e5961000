/* vcg_idmap.c: vertex id map (see vcg_idmap.h). */
#include "vcg_idmap.h"

#include <stdlib.h>
#include <string.h>

#define VIM_TOP ((size_t)1 << (32 - VIM_PAGE_BITS))
#define VIM_PAGE ((size_t)1 << VIM_PAGE_BITS)

int vim_set(vim_map *m, uint32_t id, uint32_t i)
{
   if (!m->page) {
      /* calloc of this size maps zero pages: untouched parts are free. */
      m->page = calloc(VIM_TOP, sizeof *m->page);
      if (!m->page)
         return -1;
   }
   uint32_t **slot = &m->page[id >> VIM_PAGE_BITS];
   if (!*slot) {
      if (m->pages == m->cap_used) {
         size_t cap = m->cap_used ? 2 * m->cap_used : 64;
         uint32_t *used = realloc(m->used, cap * sizeof *used);
         if (!used)
            return -1;
         m->used = used;
         m->cap_used = cap;
      }
      uint32_t *p = malloc(VIM_PAGE * sizeof *p);
      if (!p)
         return -1;
      memset(p, 0xFF, VIM_PAGE * sizeof *p);   /* all VIM_NONE */
      *slot = p;
      m->used[m->pages++] = id >> VIM_PAGE_BITS;
   }
   (*slot)[id & (VIM_PAGE - 1)] = i;
   return 0;
}

size_t vim_bytes(const vim_map *m)
{
   return m->page ? m->pages * VIM_PAGE * sizeof(uint32_t) +
                    m->cap_used * sizeof *m->used : 0;
}

void vim_free(vim_map *m)
{
   if (m->page) {
      for (size_t k = 0; k < m->pages; k++)
         free(m->page[m->used[k]]);
      free(m->page);
   }
   free(m->used);
   m->page = NULL;
   m->pages = 0;
   m->used = NULL;
   m->cap_used = 0;
}
