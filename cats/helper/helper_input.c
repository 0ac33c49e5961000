/* SPDX-License-Identifier: GPL-2.0-or-later */
/* helper_input.c: the tool's stream on a reading thread (see
 * helper_input.h). */
#define _POSIX_C_SOURCE 200809L

#include "helper_input.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cats/format/cats_format.h"

/* Chunks filled by the reader in reads of at most FRAME_READ_MAX (frame.c
 * says why), and emptied by the consumer. */
#define HELPER_INPUT_CHUNK ((size_t)1 << 20)

typedef struct helper_input_chunk {
   struct helper_input_chunk *next;
   size_t len;        /* bytes read into data; only the reader adds */
   size_t pos;        /* bytes used; only the consumer advances it */
   uint8_t data[HELPER_INPUT_CHUNK];
} helper_input_chunk;

/* The consumer frees a used-up chunk only if it is not the tail, which
 * the reader may be reading into (beyond len) at the same time. */
static struct {
   int fd;
   int started;
   pthread_mutex_t mu;
   pthread_cond_t more, room;
   helper_input_chunk *head, *tail;
   size_t chunks;     /* allocated */
   frame_status end;    /* FRAME_OK while reading, then FRAME_EOF or FRAME_EIO */
   int end_errno;
} hin = { .fd = -1, .mu = PTHREAD_MUTEX_INITIALIZER,
          .more = PTHREAD_COND_INITIALIZER,
          .room = PTHREAD_COND_INITIALIZER };

static void finish(frame_status end, int err)
{
   pthread_mutex_lock(&hin.mu);
   hin.end = end;
   hin.end_errno = err;
   pthread_cond_signal(&hin.more);
   pthread_mutex_unlock(&hin.mu);
}

/* The tail chunk with room to read into; NULL if out of memory. */
static helper_input_chunk *tail_with_room(void)
{
   pthread_mutex_lock(&hin.mu);
   while (hin.chunks * HELPER_INPUT_CHUNK >= HELPER_INPUT_MAX_BACKLOG &&
          (!hin.tail || hin.tail->len == HELPER_INPUT_CHUNK))
      pthread_cond_wait(&hin.room, &hin.mu);
   helper_input_chunk *t = hin.tail;
   pthread_mutex_unlock(&hin.mu);
   if (t && t->len < HELPER_INPUT_CHUNK)
      return t;
   t = malloc(sizeof *t);
   if (!t)
      return NULL;
   t->next = NULL;
   t->len = t->pos = 0;
   pthread_mutex_lock(&hin.mu);
   if (hin.tail)
      hin.tail->next = t;
   else
      hin.head = t;
   hin.tail = t;
   hin.chunks++;
   pthread_mutex_unlock(&hin.mu);
   return t;
}

static void *reader(void *arg)
{
   (void)arg;
   for (;;) {
      helper_input_chunk *t = tail_with_room();
      if (!t) {
         finish(FRAME_EIO, ENOMEM);
         return NULL;
      }
      size_t want = HELPER_INPUT_CHUNK - t->len;
      if (want > FRAME_READ_MAX)
         want = FRAME_READ_MAX;
      ssize_t r = read(hin.fd, t->data + t->len, want);
      if (r < 0 && errno == EINTR)
         continue;
      if (r <= 0) {
         finish(r == 0 ? FRAME_EOF : FRAME_EIO, r == 0 ? 0 : errno);
         return NULL;
      }
      pthread_mutex_lock(&hin.mu);
      t->len += (size_t)r;
      pthread_cond_signal(&hin.more);
      pthread_mutex_unlock(&hin.mu);
   }
}

int helper_input_start(int fd)
{
   hin.fd = fd;
   pthread_t th;
   /* Its stack only calls read(): a small one keeps the helper small. */
   pthread_attr_t attr;
   if (pthread_attr_init(&attr) != 0)
      return -1;
   (void)pthread_attr_setstacksize(&attr, (size_t)64 << 10);
   int rc = pthread_create(&th, &attr, reader, NULL);
   pthread_attr_destroy(&attr);
   if (rc != 0)
      return -1;
   pthread_detach(th);
   hin.started = 1;
   return 0;
}

/* Takes n bytes into buf (NULL: drops them). *got counts what was taken
 * before the input ended. Called with the lock held. */
static frame_status take(uint8_t *buf, uint64_t n, uint64_t *got)
{
   *got = 0;
   while (*got < n) {
      helper_input_chunk *h = hin.head;
      while (h && h->pos == h->len && h != hin.tail) {
         hin.head = h->next;
         hin.chunks--;
         free(h);
         pthread_cond_signal(&hin.room);
         h = hin.head;
      }
      if (!h || h->pos == h->len) {
         if (hin.end != FRAME_OK) {
            errno = hin.end_errno;
            return hin.end;
         }
         pthread_cond_wait(&hin.more, &hin.mu);
         continue;
      }
      size_t k = h->len - h->pos;
      if ((uint64_t)k > n - *got)
         k = (size_t)(n - *got);
      if (buf) {
         /* Bytes below len do not change and only this thread frees a
          * chunk: the reader may go on meanwhile. */
         pthread_mutex_unlock(&hin.mu);
         memcpy(buf + *got, h->data + h->pos, k);
         pthread_mutex_lock(&hin.mu);
      }
      h->pos += k;
      *got += k;
   }
   return FRAME_OK;
}

frame_status helper_input_read_full(void *buf, size_t n)
{
   if (!hin.started)
      return frame_read_full(hin.fd, buf, n);
   uint64_t got;
   pthread_mutex_lock(&hin.mu);
   frame_status st = take(buf, n, &got);
   pthread_mutex_unlock(&hin.mu);
   if (st == FRAME_EOF && got > 0)
      st = FRAME_ESHORT;
   return st;
}

frame_status helper_input_read_header(uint32_t *type, uint64_t *length)
{
   uint8_t h[CATS_FRAME_HEADER_SIZE];
   frame_status st = helper_input_read_full(h, sizeof h);
   if (st != FRAME_OK)
      return st;
   frame_decode_header(h, type, length);
   return FRAME_OK;
}

frame_status helper_input_skip(uint64_t n)
{
   if (!hin.started)
      return frame_skip(hin.fd, n);
   uint64_t got;
   pthread_mutex_lock(&hin.mu);
   frame_status st = take(NULL, n, &got);
   pthread_mutex_unlock(&hin.mu);
   return st == FRAME_EOF ? FRAME_ESHORT : st;
}
