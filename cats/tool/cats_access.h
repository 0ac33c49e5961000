/* SPDX-License-Identifier: GPL-2.0-or-later */
/*--------------------------------------------------------------------*/
/*--- cats: the trace's work per access.              cats_access.h ---*/
/*--------------------------------------------------------------------*/
/* The common path of recording an access (cats_events.c), inline in
   every hook that traces one: the trace's own and the value-flow hooks,
   which would otherwise make a call per access into cats_events.c for
   a few compares and stores. */

#ifndef CATS_ACCESS_H
#define CATS_ACCESS_H

#include "cats_tool.h"

typedef struct _EventCold EventCold;   /* the slow path's (cats_events.c) */

/* 112 bytes (a large program has millions: python3 starting up 1.66 M,
   136 bytes each were half its peak). */
struct _Event {
   /* Hot: what the fast path reads and writes, in the first 80 bytes. */
   ULong count, last_time;
   Long  last_off, run_stride;
   /* Loop instances of the last access, modulo 2^32: only compared for
      equality with the current ones (CATS_EV_INST), so a record would
      miss a new instance only if it next ran exactly 2^32 entries of
      its loop later. */
   UInt  inst[CATS_MAX_DIMS];
   UInt  ctx;                         /* the key, with loc, alloc, size */
   ULong iter[CATS_MAX_DIMS];
   UChar ndims, irregular, kind, flags;
   UChar hist_shift;                  /* log2 of the histogram bucket width */
   UChar known;                       /* bit k: stride[k] learnt */
   UShort size;                       /* one instruction's: at most 64 KiB */
   UInt  loc, alloc;
   ULong first_time;
   ReuseHist* reuse;                  /* cats_reuse.c; NULL until sampled */
   EventCold* c;
};
#define CATS_EV_INST(i) ((UInt)(i))

/* The paths out of line (cats_events.c). An irregular record's update
   is inline in the trace's own hooks (cats_events.c defines
   CATS_EVENT_IRREGULAR before it includes this), where it is the work
   of every access of an indirect stream. */
void   CATS_(event_update_irregular)(Event* e, Long off);
#ifndef CATS_EVENT_IRREGULAR
#define CATS_EVENT_IRREGULAR(e, off) CATS_(event_update_irregular)(e, off)
#endif
void   CATS_(event_update_slow)(Event* e, Long off);
Event* CATS_(access_slow)(Site* s, Addr a, ULong now);
/* An access to a line in the reuse sample: apart, so that the common
   path is the record's update plus the hash test (nothing stays live
   across the record's update). */
Event* CATS_(access_sampled)(Site* s, Addr a);

/* The common cases inline: the innermost loop moved one iteration and
   the offset one stride, or nothing moved. The innermost loop instance
   being the same implies that no outer loop moved. */
static inline void CATS_(event_update)(Event* e, Long off, ULong now)
{
   e->count++;
   e->last_time = now;
   if (UNLIKELY(e->irregular)) {
      CATS_EVENT_IRREGULAR(e, off);
      return;
   }
   if (e->ndims == 0) {
      if (off == e->last_off)
         return;
   } else if (CATS_EV_INST(CATS_(cur_inst0)) == e->inst[0]) {
      ULong it = CATS_(cur_iter0);
      if (it == e->iter[0] + 1 && off == e->last_off + e->run_stride
          && (e->known & 1)) {
         e->iter[0] = it;
         e->last_off = off;
         return;
      }
      if (it == e->iter[0] && off == e->last_off && e->run_stride == 0)
         return;
   }
   CATS_(event_update_slow)(e, off);
}

/* Records an access; returns its record, or NULL when no container
   holds it. */
static inline Event* CATS_(trace_access)(Site* s, Addr a)
{
   ULong now = ++CATS_(time);
   Block* b = s->blk;
   if (LIKELY(b != NULL && s->blk_epoch == b->epoch
              && a - b->lo < b->hi - b->lo && s->ctx == CATS_(cur_ctx))) {
      CATS_(event_update)(s->ev, (Long)(a - b->origin), now);
      return s->ev;
   }
   return CATS_(access_slow)(s, a, now);
}

/* The same with reuse distances (--reuse-distance=yes). */
static inline Event* CATS_(trace_access_reuse)(Site* s, Addr a)
{
   if (UNLIKELY(CATS_(reuse_sampled)(a)))
      return CATS_(access_sampled)(s, a);
   return CATS_(trace_access)(s, a);
}

#endif /* CATS_ACCESS_H */
