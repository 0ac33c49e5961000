/* SPDX-License-Identifier: GPL-2.0-or-later */
/*--------------------------------------------------------------------*/
/*--- cats: where access records live.                 cats_spill.c ---*/
/*--------------------------------------------------------------------*/
/* Access records are numbered in creation order (the order the trace
   writes them) and live in slots of 1 MiB chunks, without an
   allocator's header and footer each. A program with much code run
   once (python3 starting up: 1.66 M records, 112 bytes each and a
   third of them a slow-path state besides, were half the tool's
   memory) keeps at most --records-in-memory of them in slots: when
   none is free, the quarter that was accessed longest ago goes to a
   spill file, whole (cats_events.c packs and unpacks one), and a record
   asked for again is read back into a slot. Nothing is lost or
   approximated: a record in the file is as it was, and the trace is
   the same to the byte whatever the limit.

   Pointers to records are held only by the access sites
   (cats_events.c); they are dropped (CATS_(events_forget)) before a
   record's slot is freed. The file is made in VG_(tmpdir)(), unlinked
   at once, and read and written at explicit offsets (lseek, then read
   or write: the tool runs one thread at a time). A forked child shares
   its parent's file offset, so it reopens the file for itself and
   spills to a new one of its own (spill_after_fork). */

#include "cats_tool.h"
#include "cats_access.h"
#include "pub_tool_vki.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcproc.h"

extern Int VG_(safe_fd)(Int oldfd);

UInt CATS_(clo_records_in_memory) = 1u << 18;

#define CHUNK      (1u << 20)
#define PER_CHUNK  (CHUNK / sizeof(Event))
#define NO_NUM     0xFFFFFFFFu

/* Slots, in chunks; slot_num[s] is the record in slot s, NO_NUM for a
   free one. Free slots are a list through their first word. */
static UChar** chunks;
static UInt    n_chunks, cap_chunks, n_slots;
static UInt*   slot_num;
static UInt*   chunk_live;      /* slots of each chunk holding a record */
static UInt    free_slot = NO_NUM, n_resident;
/* where[n]: record n's slot + 1, or 0 while it is in the file at
   spill_at[n] (file << 56 | offset). */
static UInt*   where;
static ULong*  spill_at;
static UInt    n_records, cap_records;
static ULong   spilled_count;   /* accesses of the records in the file */
static ULong   n_spilled, n_revived, n_evictions, spilled_bytes;

/* The files: the newest is written, the older ones (a forked child's
   parent's) are only read. */
#define MAX_FILES 64
static Int   fds[MAX_FILES];
static UInt  n_files;
static ULong file_end;          /* of the newest */
static Bool  spill_failed;      /* no file could be made or written: warned once */
static CatsBuf out;             /* a batch of packed records */
static struct _EventCold* peek_cold;   /* spill_peek's record's parts */
static ReuseHist* peek_hist;
/* The batches written, in file order, and what was read ahead of each
   at exit (spill_peek). */
typedef struct {
   UInt   file;
   ULong  start, end;
   UChar* ahead;
   ULong  ahead_off;
   UInt   ahead_len;
} Batch;
static XArray* batches;
static UChar* in;               /* one record read back */
static UInt   cap_in;

static inline Event* slot_at(UInt s)
{
   return (Event*)(chunks[s / PER_CHUNK] + (s % PER_CHUNK) * sizeof(Event));
}

UInt CATS_(spill_n_records)(void) { return n_records; }

static void grow_records(void)
{
   if (n_records < cap_records)
      return;
   cap_records = cap_records ? 2 * cap_records : 1u << 16;
   where = VG_(realloc)("cats.spill.where", where, cap_records * sizeof(UInt));
   if (spill_at != NULL)
      spill_at = VG_(realloc)("cats.spill.at", spill_at,
                              cap_records * sizeof(ULong));
}

/* A new slot (never a free one: the caller has tried the list). */
static UInt new_slot(void)
{
   if (n_slots == n_chunks * PER_CHUNK) {
      if (n_chunks == cap_chunks) {
         cap_chunks = cap_chunks ? 2 * cap_chunks : 4;
         chunks = VG_(realloc)("cats.eventchunks", chunks,
                               cap_chunks * sizeof(UChar*));
         slot_num = VG_(realloc)("cats.spill.slots", slot_num,
                                 cap_chunks * PER_CHUNK * sizeof(UInt));
         chunk_live = VG_(realloc)("cats.spill.live", chunk_live,
                                   cap_chunks * sizeof(UInt));
      }
      chunk_live[n_chunks] = 0;
      chunks[n_chunks++] = VG_(calloc)("cats.event", 1, CHUNK);
   }
   return n_slots++;
}

/*------------------------------------------------------------*/
/*--- The spill file                                       ---*/
/*------------------------------------------------------------*/

static Bool open_file(void)
{
   HChar name[512];
   UInt k;
   if (n_files == MAX_FILES)
      return False;
   for (k = 0; k < 100; k++) {
      VG_(snprintf)(name, sizeof name, "%s/cats-records.%d.%u.%u",
                    VG_(tmpdir)(), VG_(getpid)(), n_files, k);
      SysRes r = VG_(open)(name, VKI_O_CREAT | VKI_O_EXCL | VKI_O_RDWR,
                           0600);
      if (sr_isError(r))
         continue;
      VG_(unlink)(name);
      Int fd = VG_(safe_fd)((Int)sr_Res(r));
      if (fd < 0)
         return False;
      fds[n_files++] = fd;
      file_end = 0;
      return True;
   }
   return False;
}

static Bool write_at(Int fd, ULong off, const UChar* p, SizeT n)
{
   if (VG_(lseek)(fd, (Off64T)off, VKI_SEEK_SET) != (Off64T)off)
      return False;
   while (n > 0) {
      Int w = VG_(write)(fd, p, n > (1u << 30) ? (1u << 30) : (Int)n);
      if (w <= 0)
         return False;
      p += w;
      n -= (SizeT)w;
   }
   return True;
}

/* Up to n bytes at off: how many there were (fewer at the file's end),
   or -1 on an error. */
static Long read_at(Int fd, ULong off, UChar* p, SizeT n)
{
   SizeT got = 0;
   if (VG_(lseek)(fd, (Off64T)off, VKI_SEEK_SET) != (Off64T)off)
      return -1;
   while (got < n) {
      Int r = VG_(read)(fd, p + got, (Int)(n - got));
      if (r < 0)
         return -1;
      if (r == 0)
         break;
      got += (SizeT)r;
   }
   return (Long)got;
}

/* A forked child shares the parent's open files, offsets included:
   each is opened again for reading, and the child spills to a file of
   its own. */
static void spill_after_fork(ThreadId tid)
{
   UInt i;
   (void)tid;
   for (i = 0; i < n_files; i++) {
      HChar path[64];
      VG_(snprintf)(path, sizeof path, "/proc/self/fd/%d", fds[i]);
      SysRes r = VG_(open)(path, VKI_O_RDONLY, 0);
      if (sr_isError(r))
         VG_(tool_panic)("cats: cannot reopen the records' spill file "
                         "after a fork");
      VG_(close)(fds[i]);
      fds[i] = VG_(safe_fd)((Int)sr_Res(r));
   }
   /* The next spill opens the child's file. */
   file_end = ~0ULL;
}

/*------------------------------------------------------------*/
/*--- Eviction                                             ---*/
/*------------------------------------------------------------*/

static inline UInt age_bucket(ULong now, ULong t)
{
   ULong a = now - t + 1;
   return 63 - (UInt)__builtin_clzll(a);
}

/* Record num when it is in memory and its age bucket is cut or more. */
static Event* victim(UInt num, ULong now, UInt cut)
{
   if (where[num] == 0)
      return NULL;
   Event* e = slot_at(where[num] - 1);
   return age_bucket(now, e->last_time) >= cut ? e : NULL;
}

/* Writes the records accessed longest ago, a quarter of the slots or
   more, to the file and frees their slots. False if no file could be
   had (the records then stay; warned once). */
static Bool evict(void)
{
   UInt hist[64], s, cut;
   ULong now = CATS_(time), want = n_resident / 4, seen = 0;
   if (spill_failed)
      return False;
   if (n_files == 0 || file_end == ~0ULL) {
      if (!open_file()) {
         spill_failed = True;
         VG_(umsg)("cats: warning: no file for the access records in %s; "
                   "they all stay in memory (--records-in-memory is not "
                   "kept)\n", VG_(tmpdir)());
         return False;
      }
   }
   VG_(memset)(hist, 0, sizeof hist);
   for (s = 0; s < n_slots; s++)
      if (slot_num[s] != NO_NUM)
         hist[age_bucket(now, slot_at(s)->last_time)]++;
   for (cut = 64; cut > 0 && seen < want; cut--)
      seen += hist[cut - 1];
   if (seen == 0)
      return False;
   /* Records of age bucket >= cut go. Packed and written first (a
      write that fails, a full disk, changes nothing: the records stay
      and spilling stops, with a warning), then marked (count 0), then
      the sites drop their pointers, then the slots are freed. A
      resident record's spill_at means nothing, so packing may set it. */
   if (spill_at == NULL)
      spill_at = VG_(malloc)("cats.spill.at", cap_records * sizeof(ULong));
   out.len = 0;
   ULong base = file_end;
   UInt f = n_files - 1, num;
   /* In number order, the order the trace is written in at exit. */
   for (num = 0; num < n_records; num++) {
      Event* e = victim(num, now, cut);
      if (e == NULL)
         continue;
      spill_at[num] = (ULong)f << 56 | (base + out.len);
      CATS_(event_pack)(e, &out);
   }
   if (!write_at(fds[f], base, out.data, out.len)) {
      spill_failed = True;
      VG_(umsg)("cats: warning: cannot write the access records' spill file "
                "in %s (is the disk full?); the records stay in memory from "
                "now on\n", VG_(tmpdir)());
      CATS_(buf_free)(&out);
      CATS_(buf_init)(&out);
      return False;
   }
   for (num = 0; num < n_records; num++) {
      Event* e = victim(num, now, cut);
      if (e == NULL)
         continue;
      where[num] = 0;
      spilled_count += e->count;
      e->count = 0;
      n_spilled++;
   }
   file_end = base + out.len;
   spilled_bytes += out.len;
   tl_assert(file_end < (1ULL << 56));
   Batch batch = { f, base, file_end, NULL, 0, 0 };
   VG_(addToXA)(batches, &batch);
   CATS_(buf_free)(&out);
   CATS_(buf_init)(&out);
   CATS_(events_forget)();
   for (s = 0; s < n_slots; s++) {
      if (slot_num[s] == NO_NUM || slot_at(s)->count != 0)
         continue;
      CATS_(event_drop)(slot_at(s));
      slot_num[s] = NO_NUM;
      chunk_live[s / PER_CHUNK]--;
      *(UInt*)slot_at(s) = free_slot;
      free_slot = s;
      n_resident--;
   }
   n_evictions++;
   return True;
}

/* A zeroed slot for record num. */
static Event* take_slot(UInt num)
{
   if (free_slot == NO_NUM && n_resident >= CATS_(clo_records_in_memory))
      (void)evict();
   UInt s;
   if (free_slot != NO_NUM) {
      s = free_slot;
      free_slot = *(UInt*)slot_at(s);
   } else {
      s = new_slot();
   }
   slot_num[s] = num;
   chunk_live[s / PER_CHUNK]++;
   where[num] = s + 1;
   n_resident++;
   Event* e = slot_at(s);
   VG_(memset)(e, 0, sizeof *e);
   return e;
}

Event* CATS_(spill_new)(void)
{
   grow_records();
   UInt num = n_records++;
   where[num] = 0;   /* not in a slot yet: evict() passes it by */
   return take_slot(num);
}

/* Record num's packed bytes, read into 'in' (as many as a record can
   take, or up to the file's end); their number in *len. */
static const UChar* read_back(UInt num, SizeT* len)
{
   ULong at = spill_at[num], off = at & ((1ULL << 56) - 1);
   UInt f = (UInt)(at >> 56);
   SizeT need = CATS_(event_packed_max)();
   if (cap_in < need) {
      cap_in = need;
      in = VG_(realloc)("cats.spill.in", in, cap_in);
   }
   Long got = read_at(fds[f], off, in, need);
   if (got <= 0)
      VG_(tool_panic)("cats: cannot read the access records' spill file");
   *len = (SizeT)got;
   return in;
}

/* The same at exit, when every record is asked for in number order: a
   batch holds its records in that order, so each batch is read ahead
   AHEAD bytes at a time (a read per record was a third of python3's
   run), as long as there are at most MAX_AHEAD batches. */
#define AHEAD     (64u << 10)
#define MAX_AHEAD 256

static Int cmp_batch(const void* key, const void* elem)
{
   const Batch* k = key;
   const Batch* b = elem;
   if (k->file != b->file)
      return k->file < b->file ? -1 : 1;
   if (k->start < b->start)
      return -1;
   return k->start >= b->end ? 1 : 0;
}

static const UChar* read_ahead(UInt num, SizeT* len)
{
   Word nb = VG_(sizeXA)(batches);
   if (nb > MAX_AHEAD)
      return read_back(num, len);
   ULong at = spill_at[num];
   Batch key = { (UInt)(at >> 56), at & ((1ULL << 56) - 1), 0, NULL, 0, 0 };
   Word lo = 0, hi = nb - 1;
   Batch* b = NULL;
   while (lo <= hi) {
      Word mid = (lo + hi) / 2;
      Batch* m = VG_(indexXA)(batches, mid);
      Int c = cmp_batch(&key, m);
      if (c == 0) {
         b = m;
         break;
      }
      if (c < 0)
         hi = mid - 1;
      else
         lo = mid + 1;
   }
   tl_assert(b != NULL);
   ULong off = key.start;
   SizeT need = CATS_(event_packed_max)();
   if (off + need > b->end)
      need = (SizeT)(b->end - off);
   if (b->ahead == NULL)
      b->ahead = VG_(malloc)("cats.spill.ahead", AHEAD);
   if (off < b->ahead_off || off + need > b->ahead_off + b->ahead_len) {
      ULong n = b->end - off < AHEAD ? b->end - off : AHEAD;
      if (read_at(fds[b->file], off, b->ahead, (SizeT)n) != (Long)n)
         VG_(tool_panic)("cats: cannot read the access records' spill file");
      b->ahead_off = off;
      b->ahead_len = (UInt)n;
   }
   *len = need;
   return b->ahead + (off - b->ahead_off);
}

Event* CATS_(spill_get)(UInt num)
{
   tl_assert(num < n_records);
   if (LIKELY(where[num] != 0))
      return slot_at(where[num] - 1);
   SizeT len;
   const UChar* p = read_back(num, &len);
   Event* e = take_slot(num);
   CATS_(event_unpack)(e, p, len, True, NULL, NULL);
   spilled_count -= e->count;
   n_revived++;
   return e;
}

const Event* CATS_(spill_peek)(UInt num, Event* tmp)
{
   tl_assert(num < n_records);
   if (where[num] != 0)
      return slot_at(where[num] - 1);
   SizeT len;
   const UChar* p = read_ahead(num, &len);
   if (peek_cold == NULL) {
      peek_cold = VG_(malloc)("cats.spill.peek", CATS_(event_cold_bytes)());
      peek_hist = VG_(malloc)("cats.spill.peek", sizeof(ReuseHist)
                              + (1 + CATS_REUSE_BUCKETS) * sizeof(ULong));
   }
   CATS_(event_unpack)(tmp, p, len, False, peek_cold, peek_hist);
   return tmp;
}

ULong CATS_(spill_accesses)(void)
{
   ULong total = spilled_count;
   UInt s;
   for (s = 0; s < n_slots; s++)
      if (slot_num[s] != NO_NUM)
         total += slot_at(s)->count;
   return total;
}

/* Record num has been written for the last time (the process ends and
   the records go in number order): its chunk is freed once it holds no
   other, so that the section's buffer grows into the room they leave;
   after the last, everything is. Nothing takes a slot any more. */
void CATS_(spill_done)(UInt num, Bool last)
{
   UInt c;
   free_slot = NO_NUM;   /* the list runs through chunks freed here */
   if (where[num] != 0) {
      UInt s = where[num] - 1;
      slot_num[s] = NO_NUM;
      where[num] = 0;
      n_resident--;
      c = s / PER_CHUNK;
      if (--chunk_live[c] == 0) {
         VG_(free)(chunks[c]);
         chunks[c] = NULL;
      }
   }
   if (!last)
      return;
   for (c = 0; c < n_chunks; c++)
      if (chunks[c] != NULL)
         VG_(free)(chunks[c]);
   VG_(free)(chunks);
   VG_(free)(slot_num);
   VG_(free)(chunk_live);
   VG_(free)(where);
   if (spill_at != NULL)
      VG_(free)(spill_at);
   chunks = NULL;
   slot_num = chunk_live = where = NULL;
   spill_at = NULL;
   n_chunks = cap_chunks = n_slots = 0;
   for (c = 0; c < n_files; c++)
      VG_(close)(fds[c]);
   n_files = 0;
   Word k;
   for (k = 0; k < VG_(sizeXA)(batches); k++) {
      Batch* b = VG_(indexXA)(batches, k);
      if (b->ahead != NULL)
         VG_(free)(b->ahead);
   }
   VG_(deleteXA)(batches);
   batches = NULL;
   CATS_(buf_free)(&out);
   VG_(free)(in);
   in = NULL;
   cap_in = 0;
}

void CATS_(spill_init)(void)
{
   CATS_(buf_init)(&out);
   batches = VG_(newXA)(VG_(malloc), "cats.spill.batches", VG_(free),
                        sizeof(Batch));
   VG_(atfork)(NULL, NULL, spill_after_fork);
}

void CATS_(spill_stats)(void)
{
   VG_(umsg)("cats: records: %'u, %'u in memory at most; %'llu written "
             "to the spill file in %'llu batches, %'llu read back; %'llu "
             "bytes\n", n_records, CATS_(clo_records_in_memory), n_spilled,
             n_evictions, n_revived, spilled_bytes);
}
