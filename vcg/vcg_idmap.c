/* SPDX-License-Identifier: GPL-2.0-or-later */
/* vcg_idmap.c: vertex id map (see vcg_idmap.h). */
#include "vcg_idmap.h"

#include <stdlib.h>
#include <string.h>

#define VCG_IDMAP_TOP ((size_t)1 << (32 - VCG_IDMAP_PAGE_BITS))
#define VCG_IDMAP_PAGE ((size_t)1 << VCG_IDMAP_PAGE_BITS)

int vcg_idmap_set(vcg_idmap *m, uint32_t id, uint32_t i)
{
   if (!m->page) {
      /* calloc of this size maps zero pages: untouched parts are free. */
      m->page = calloc(VCG_IDMAP_TOP, sizeof *m->page);
      if (!m->page)
         return -1;
   }
   uint32_t **slot = &m->page[id >> VCG_IDMAP_PAGE_BITS];
   if (!*slot) {
      if (m->pages == m->cap_used) {
         size_t cap = m->cap_used ? 2 * m->cap_used : 64;
         uint32_t *used = realloc(m->used, cap * sizeof *used);
         if (!used)
            return -1;
         m->used = used;
         m->cap_used = cap;
      }
      uint32_t *p = malloc(VCG_IDMAP_PAGE * sizeof *p);
      if (!p)
         return -1;
      memset(p, 0xFF, VCG_IDMAP_PAGE * sizeof *p);   /* all VCG_IDMAP_NONE */
      *slot = p;
      m->used[m->pages++] = id >> VCG_IDMAP_PAGE_BITS;
   }
   (*slot)[id & (VCG_IDMAP_PAGE - 1)] = i;
   return 0;
}

size_t vcg_idmap_bytes(const vcg_idmap *m)
{
   return m->page ? m->pages * VCG_IDMAP_PAGE * sizeof(uint32_t) +
                    m->cap_used * sizeof *m->used : 0;
}

void vcg_idmap_free(vcg_idmap *m)
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
