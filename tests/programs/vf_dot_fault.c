/* A dot product that runs into an unreadable page: the SIGSEGV arrives
   in the middle of the loop, whose accumulator's unions are logged, and
   the handler jumps out. The graph must be the one of a run without the
   log (--vf-loop-log=no). */
#include <setjmp.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static sigjmp_buf out;
double partial, after;

static void on_segv(int sig)
{
   (void)sig;
   siglongjmp(out, 1);
}

__attribute__((noipa)) static double dot(const double* p, const double* q,
                                         long n)
{
   double s = 0;
   for (long k = 0; k < n; k++)
      s += p[k] * q[k];
   return s;
}

int main(void)
{
   long page = sysconf(_SC_PAGESIZE);
   double* p = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
   double q[1024];
   long n = page / sizeof(double);
   for (long k = 0; k < n; k++)
      p[k] = k;
   for (long k = 0; k < 1024; k++)
      q[k] = 2;
   mprotect((char*)p + page, page, PROT_NONE);
   signal(SIGSEGV, on_segv);
   if (sigsetjmp(out, 1) == 0)
      partial = dot(p, q, n + 8);   /* faults at p[n] */
   after = dot(p, q, 64);
   return after > 0 ? 0 : 1;
}
/* SPDX-License-Identifier: GPL-2.0-or-later */
