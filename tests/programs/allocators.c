/* Every allocator: aligned ones, anonymous mmap and mremap. */
#define _GNU_SOURCE
#include <malloc.h>
#include <stdlib.h>
#include <sys/mman.h>

int main(void)
{
   void *p = NULL;
   if (posix_memalign(&p, 64, 1000) != 0)    /* line 10 */
      return 1;
   void *q = aligned_alloc(128, 1024);      /* line 12 */
   void *r = memalign(256, 512);            /* line 13 */
   void *v = valloc(4096);                  /* line 14 */
   double *m = mmap(NULL, 1 << 16, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);   /* line 16 */
   for (int i = 0; i < 100; i++)
      m[i] = i;                             /* line 18 */
   m = mremap(m, 1 << 16, 1 << 17, MREMAP_MAYMOVE);
   m[9000] = 1;                             /* line 20 */
   munmap(m, 1 << 17);
   free(p);
   free(q);
   free(r);
   free(v);
   return 0;
}
/* SPDX-License-Identifier: GPL-2.0-or-later */
