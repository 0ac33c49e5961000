/* SPDX-License-Identifier: GPL-2.0-or-later */
/*--------------------------------------------------------------------*/
/*--- cats: strings and code locations.                cats_locs.c ---*/
/*--------------------------------------------------------------------*/
/* Every name in the trace is an interned string, and every code address
   that appears in it is an interned location (function, file, line,
   object). Inlined frames are chains of locations: the location of an
   instruction inside inlined code points to the location of the call
   site it was inlined into, so a stack never needs per-instruction
   frame pushes for inlining. */

#include "cats_tool.h"

typedef struct {
   Addr addr;
   UInt fn, file, line, obj, inline_parent;
   UInt label;           /* "fn (file:line)", made at first need */
} Loc;

static XArray* strs;        /* of HChar* */
static CatsMap str_map;     /* (hash, len+1) -> id */
static XArray* locs;        /* of Loc */
static CatsMap loc_map;     /* (addr, variant) -> id + 1 */

static ULong fnv1a(const HChar* s, SizeT* len)
{
   ULong h = 0xcbf29ce484222325ULL;
   SizeT n = 0;
   for (; s[n]; n++)
      h = (h ^ (UChar)s[n]) * 0x100000001b3ULL;
   *len = n;
   return h;
}

UInt CATS_(intern_str)(const HChar* s)
{
   SizeT len;
   ULong h = fnv1a(s, &len);
   for (;;) {
      Bool found;
      UWord* slot = CATS_(map_slot)(&str_map, h, len + 1, &found);
      if (!found) {
         HChar* copy = VG_(strdup)("cats.str", s);
         *slot = VG_(sizeXA)(strs);
         VG_(addToXA)(strs, &copy);
         return (UInt)*slot;
      }
      if (VG_(strcmp)(*(HChar**)VG_(indexXA)(strs, *slot), s) == 0)
         return (UInt)*slot;
      h++;   /* 64-bit collision: probe the next hash */
   }
}

const HChar* CATS_(str)(UInt id)
{
   return *(HChar**)VG_(indexXA)(strs, id);
}

UInt CATS_(n_strs)(void) { return (UInt)VG_(sizeXA)(strs); }

void CATS_(locs_init)(void)
{
   strs = VG_(newXA)(VG_(malloc), "cats.strs", VG_(free), sizeof(HChar*));
   CATS_(map_init)(&str_map, "cats.strmap");
   locs = VG_(newXA)(VG_(malloc), "cats.locs", VG_(free), sizeof(Loc));
   CATS_(map_init)(&loc_map, "cats.locmap");
   (void)CATS_(intern_str)("");   /* string 0 is the empty string */
}

static UInt add_loc(Addr a, ULong variant, UInt fn, UInt file, UInt line,
                    UInt obj, UInt parent)
{
   Bool found;
   UWord* slot = CATS_(map_slot)(&loc_map, (ULong)a, variant + 1, &found);
   if (found)
      return (UInt)(*slot - 1);
   Loc l = { a, fn, file, line, obj, parent, CATS_NONE };
   UInt id = (UInt)VG_(sizeXA)(locs);
   VG_(addToXA)(locs, &l);
   *slot = id + 1;
   return id;
}

static UInt obj_str(DiEpoch ep, Addr a)
{
   const HChar* obj;
   return VG_(get_objname)(ep, a, &obj) ? CATS_(intern_str)(obj)
                                        : CATS_(intern_str)("???");
}

/* Function, file and line of 'a' from the symbol table and line info. */
static void plain_describe(DiEpoch ep, Addr a, UInt* fn, UInt* file,
                           UInt* line)
{
   const HChar* name;
   const HChar* f;
   const HChar* dir;
   UInt ln;
   *fn = VG_(get_fnname)(ep, a, &name) ? CATS_(intern_str)(name)
                                       : CATS_(intern_str)("???");
   if (VG_(get_filename_linenum)(ep, a, &f, &dir, &ln)) {
      *file = CATS_(intern_str)(f);
      *line = ln;
   } else {
      *file = 0;
      *line = 0;
   }
}

/* Parses one line of VG_(describe_IP): "0xADDR: fn (file:line)" or
   "0xADDR: fn (in object)". It is the only public way to read the
   function name and call-site line of an inlined frame. */
static void parse_described(const HChar* s, UInt* fn, UInt* file,
                            UInt* line)
{
   HChar buf[1024];
   const HChar* p = VG_(strstr)(s, ": ");
   p = p ? p + 2 : s;
   VG_(strncpy)(buf, p, sizeof(buf) - 1);
   buf[sizeof(buf) - 1] = 0;
   HChar* open = NULL;
   HChar* q;
   for (q = buf; (q = VG_(strstr)(q, " (")) != NULL; q++)
      open = q;
   *file = 0;
   *line = 0;
   if (open == NULL) {
      *fn = CATS_(intern_str)(buf);
      return;
   }
   *open = 0;
   *fn = CATS_(intern_str)(buf);
   HChar* inner = open + 2;
   HChar* close = VG_(strrchr)(inner, ')');
   if (close)
      *close = 0;
   if (VG_(strncmp)(inner, "in ", 3) == 0)
      return;
   HChar* colon = VG_(strrchr)(inner, ':');
   if (colon) {
      *colon = 0;
      *line = (UInt)VG_(strtoll10)(colon + 1, NULL);
   }
   const HChar* slash = VG_(strrchr)(inner, '/');
   *file = CATS_(intern_str)(slash ? slash + 1 : inner);
}

#define MAX_INLINE_DEPTH 16

UInt CATS_(loc_of_addr)(Addr a)
{
   UWord* hit = CATS_(map_find)(&loc_map, (ULong)a, 1);
   if (hit)
      return (UInt)(*hit - 1);

   DiEpoch ep = VG_(current_DiEpoch)();
   UInt obj = obj_str(ep, a);
   HChar* lines[MAX_INLINE_DEPTH];
   Int n = 0, i;
   InlIPCursor* iipc = VG_(new_IIPC)(ep, a);
   do {
      if (n < MAX_INLINE_DEPTH)
         lines[n++] = VG_(strdup)("cats.iipc", VG_(describe_IP)(ep, a, iipc));
   } while (VG_(next_IIPC)(iipc));
   VG_(delete_IIPC)(iipc);

   UInt fn, file, line, parent = CATS_NONE;
   if (n <= 1) {
      plain_describe(ep, a, &fn, &file, &line);
   } else {
      /* Outermost (the real function) first, so parents exist. */
      for (i = n - 1; i >= 1; i--) {
         parse_described(lines[i], &fn, &file, &line);
         parent = add_loc(a, 1 + (ULong)i, fn, file, line, obj, parent);
      }
      parse_described(lines[0], &fn, &file, &line);
   }
   for (i = 0; i < n; i++)
      VG_(free)(lines[i]);
   return add_loc(a, 0, fn, file, line, obj, parent);
}

UInt CATS_(loc_of_fn_entry)(Addr a)
{
   UWord* hit = CATS_(map_find)(&loc_map, (ULong)a, 1 + MAX_INLINE_DEPTH + 1);
   if (hit)
      return (UInt)(*hit - 1);
   DiEpoch ep = VG_(current_DiEpoch)();
   UInt fn, file, line;
   plain_describe(ep, a, &fn, &file, &line);
   return add_loc(a, MAX_INLINE_DEPTH + 1, fn, file, line, obj_str(ep, a),
                  CATS_NONE);
}

UInt CATS_(loc_fn)(UInt loc)
{
   return ((const Loc*)VG_(indexXA)(locs, loc))->fn;
}

UInt CATS_(n_locs)(void) { return (UInt)VG_(sizeXA)(locs); }

UInt CATS_(loc_label)(UInt loc)
{
   Loc* l = VG_(indexXA)(locs, loc);
   HChar buf[512];
   if (l->label != CATS_NONE)
      return l->label;
   if (l->line)
      VG_(snprintf)(buf, sizeof(buf), "%s (%s:%u)", CATS_(str)(l->fn),
                    CATS_(str)(l->file), l->line);
   else
      VG_(snprintf)(buf, sizeof(buf), "%s", CATS_(str)(l->fn));
   UInt id = CATS_(intern_str)(buf);
   ((Loc*)VG_(indexXA)(locs, loc))->label = id;   /* locs did not move */
   return id;
}

void CATS_(write_strings)(CatsBuf* b)
{
   UInt i, n = CATS_(n_strs)();
   CATS_(put_u32)(b, n);
   for (i = 0; i < n; i++) {
      const HChar* s = CATS_(str)(i);
      SizeT len = VG_(strlen)(s);
      CATS_(put_u32)(b, (UInt)len);
      CATS_(put_bytes)(b, s, len);
   }
}

void CATS_(write_locs)(CatsBuf* b)
{
   UInt i, n = CATS_(n_locs)();
   CATS_(put_u32)(b, n);
   for (i = 0; i < n; i++) {
      const Loc* l = VG_(indexXA)(locs, i);
      CATS_(put_u64)(b, l->addr);
      CATS_(put_u32)(b, l->fn);
      CATS_(put_u32)(b, l->file);
      CATS_(put_u32)(b, l->line);
      CATS_(put_u32)(b, l->obj);
      CATS_(put_u32)(b, l->inline_parent);
   }
}
