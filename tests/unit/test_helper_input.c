/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_helper_input.c: the helper's reading thread (helper_input.h).
 *
 * A writer thread sends a known byte pattern through a pipe in writes of
 * varying sizes; the reads take it back in pieces smaller and larger than
 * the reader's 1 MiB chunks, with skips across chunk boundaries, and see
 * the input end inside a read (short) and then at its start (end of
 * input). More than the 64 MiB backlog is sent, so the reader also
 * waits for room.
 *
 * usage: test_helper_input */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cats/helper/helper_input.h"
#include "check.h"

CHECK_DEFINE_GLOBALS;

#define TOTAL ((uint64_t)80 << 20)   /* past the 64 MiB backlog */

static int pipe_fd[2];

/* Byte k of the stream: its position's bytes mixed, so that a piece
 * taken from the wrong place does not match by accident. */
static uint8_t pattern(uint64_t k)
{
   uint64_t x = k * 0x9E3779B97F4A7C15ull;
   return (uint8_t)(x >> 56);
}

static void *writer(void *arg)
{
   (void)arg;
   static uint8_t buf[200000];
   uint64_t k = 0;
   size_t sizes[] = { 1, 7, 4096, 65536, 100000, 200000, 16 };
   for (unsigned i = 0; k < TOTAL; i++) {
      size_t n = sizes[i % (sizeof sizes / sizeof sizes[0])];
      if (n > TOTAL - k)
         n = (size_t)(TOTAL - k);
      for (size_t j = 0; j < n; j++)
         buf[j] = pattern(k + j);
      for (size_t off = 0; off < n;) {
         ssize_t w = write(pipe_fd[1], buf + off, n - off);
         if (w <= 0)
            return NULL;
         off += (size_t)w;
      }
      k += n;
   }
   close(pipe_fd[1]);
   return NULL;
}

/* Reads n bytes at stream position *k and checks them. */
static void take_and_check(uint8_t *buf, size_t n, uint64_t *k)
{
   CHECK_EQ(helper_input_read_full(buf, n), FRAME_OK);
   size_t bad = 0;
   for (size_t j = 0; j < n; j++)
      bad += buf[j] != pattern(*k + j);
   CHECK_EQ(bad, 0);
   *k += n;
}

static void test_stream(void)
{
   CHECK_EQ(pipe(pipe_fd), 0);
   CHECK_EQ(helper_input_start(pipe_fd[0]), 0);
   pthread_t th;
   CHECK_EQ(pthread_create(&th, NULL, writer, NULL), 0);
   /* Let the backlog fill up to its bound before anything is taken. */
   sleep(1);
   uint8_t *buf = malloc((size_t)3 << 20);
   CHECK(buf != NULL);
   uint64_t k = 0;
   size_t reads[] = { 16, 1, (size_t)3 << 20, 65535, 1 << 20, 5 };
   uint64_t skips[] = { 0, 1, (uint64_t)3 << 20, 12345, 0, 1 << 20 };
   for (unsigned i = 0; buf && k + ((size_t)8 << 20) < TOTAL; i++) {
      unsigned m = i % (sizeof reads / sizeof reads[0]);
      take_and_check(buf, reads[m], &k);
      CHECK_EQ(helper_input_skip(skips[m]), FRAME_OK);
      k += skips[m];
   }
   /* The last bytes: a header's worth first. */
   uint32_t type;
   uint64_t len;
   CHECK_EQ(helper_input_read_header(&type, &len), FRAME_OK);
   uint8_t h[16];
   for (int j = 0; j < 16; j++)
      h[j] = pattern(k + (uint64_t)j);
   CHECK_EQ(type, (uint32_t)h[0] | (uint32_t)h[1] << 8 | (uint32_t)h[2] << 16 |
                  (uint32_t)h[3] << 24);
   k += 16;
   uint64_t left = TOTAL - k;
   CHECK_EQ(helper_input_skip(left - 4), FRAME_OK);
   /* Four bytes remain: a read of ten ends inside, then the input is
    * over, and a skip past the end is short. */
   CHECK_EQ(helper_input_read_full(buf, 10), FRAME_ESHORT);
   CHECK_EQ(helper_input_read_full(buf, 1), FRAME_EOF);
   CHECK_EQ(helper_input_skip(1), FRAME_ESHORT);
   CHECK_EQ(helper_input_read_full(buf, 0), FRAME_OK);
   pthread_join(th, NULL);
   free(buf);
}

int main(void)
{
   RUN(test_stream);
   return chk_failed ? 1 : 0;
}
