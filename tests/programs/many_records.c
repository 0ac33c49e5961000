/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Many access records, each used once per pass: 64 callers call each
   of 64 callees, so a callee's accesses have 64 contexts (4,096
   contexts, a record for each access site in each), and the whole is
   done twice: with few records kept in memory, the first pass's go to
   the spill file and the second reads them back. With an argument the
   second pass is made by a forked child and then by the parent. */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#define N 64
typedef void (*fn)(double*);
static double data[N + 8];

#define CALLEE(j) __attribute__((noinline)) static void callee##j(double* a) \
   { a[j % 8] += j; a[8 + j % 5] *= 1.5; }
#define CALLER(i) __attribute__((noinline)) static void caller##i(double* a) \
   { for (int j = 0; j < N; j++) callees[j](a + i % 8); }
#define EIGHT(M, p) M(p##0) M(p##1) M(p##2) M(p##3) M(p##4) M(p##5) M(p##6) M(p##7)
#define ALL(M) EIGHT(M, 1) EIGHT(M, 2) EIGHT(M, 3) EIGHT(M, 4) \
               EIGHT(M, 5) EIGHT(M, 6) EIGHT(M, 7) EIGHT(M, 8)
#define NAME_CALLEE(j) callee##j,
#define NAME_CALLER(i) caller##i,

ALL(CALLEE)
static fn callees[N] = { ALL(NAME_CALLEE) };
ALL(CALLER)
static fn callers[N] = { ALL(NAME_CALLER) };

static void pass(void)
{
   for (int i = 0; i < N; i++)
      callers[i](data);
}

int main(int argc, char** argv)
{
   (void)argv;
   pass();
   pid_t child = argc > 1 ? fork() : -1;
   pass();
   double s = 0;
   for (int k = 0; k < N + 8; k++)
      s += data[k];
   if (child > 0)
      waitpid(child, NULL, 0);
   printf("%s %g\n", child == 0 ? "child" : "parent", s);
   return 0;
}
