/* SPDX-License-Identifier: GPL-2.0-or-later */
/* check.h: minimal assertions for the unit tests.
 *
 * CHECK records a failure with its location and lets the test go on, so
 * one run reports every broken expectation; each test prints "ok NAME" or
 * "FAIL NAME" and the program exits non-zero if any failed. */
#ifndef CATS_TESTS_UNIT_CHECK_H
#define CATS_TESTS_UNIT_CHECK_H

#include <stdio.h>

extern int chk_failures;   /* failures in the current test */
extern int chk_failed;     /* tests that failed in this program */

#define CHECK(cond)                                                         \
   do {                                                                     \
      if (!(cond)) {                                                        \
         fprintf(stderr, "  %s:%d: check failed: %s\n", __FILE__,           \
                 __LINE__, #cond);                                          \
         chk_failures++;                                                    \
      }                                                                     \
   } while (0)

#define CHECK_EQ(a, b)                                                      \
   do {                                                                     \
      unsigned long long chk_a_ = (unsigned long long)(a);                  \
      unsigned long long chk_b_ = (unsigned long long)(b);                  \
      if (chk_a_ != chk_b_) {                                               \
         fprintf(stderr, "  %s:%d: %s == %s failed: %llu != %llu\n",        \
                 __FILE__, __LINE__, #a, #b, chk_a_, chk_b_);               \
         chk_failures++;                                                    \
      }                                                                     \
   } while (0)

/* Run one test function and print its verdict. */
#define RUN(fn)                                                             \
   do {                                                                     \
      chk_failures = 0;                                                     \
      fn();                                                                 \
      printf("%s %s\n", chk_failures ? "FAIL" : "ok", #fn);                 \
      fflush(stdout);                                                       \
      if (chk_failures)                                                     \
         chk_failed++;                                                      \
   } while (0)

#define CHECK_DEFINE_GLOBALS int chk_failures, chk_failed

#endif /* CATS_TESTS_UNIT_CHECK_H */
