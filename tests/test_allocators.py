# SPDX-License-Identifier: GPL-2.0-or-later
"""The allocators beyond malloc: aligned allocation and anonymous
mappings."""
from catslib import check, check_eq, traced


def _by_line(t, file, line):
    return [a for a in t.allocs if a["alloc_loc"] is not None
            and t.loc_file(a["alloc_loc"]) == file and t.loc_line(a["alloc_loc"]) == line]


def test_aligned_allocations():
    t, _ = traced("allocators.c")
    for line, size in ((10, 1000), (12, 1024), (13, 512), (14, 4096)):
        recs = _by_line(t, "allocators.c", line)
        check_eq([(a["kind"], a["size"], a["count"]) for a in recs], [("memalign", size, 1)],
                 "allocation at line %d" % line)
        check_eq(recs[0]["never_freed"], False, "freed (line %d)" % line)


def test_anonymous_mmap_and_mremap():
    t, _ = traced("allocators.c")
    # the mmap call spans lines 15-16; its call instruction has either
    first = _by_line(t, "allocators.c", 15) + _by_line(t, "allocators.c", 16)
    check_eq([(a["kind"], a["size"]) for a in first], [("mmap", 1 << 16)], "the mapping")
    w = t.events_where(18, "allocators.c", "write", first[0]["id"])
    check_eq([(e["count"], e["pattern"], e["strides"][:1]) for e in w], [(100, "stride-1", [8])],
             "writes into the mapping")
    grown = [a for a in t.allocs if a["realloc_from"] == first[0]["id"]]
    check_eq([(a["kind"], a["size"]) for a in grown], [("mmap", 1 << 17)], "the remapped block")
    w2 = t.events_where(20, "allocators.c", "write", grown[0]["id"])
    check_eq([(e["count"], e["base"]) for e in w2], [(1, 9000 * 8)], "write into the grown mapping")
    check(grown[0]["last_free"] > 0 and not grown[0]["never_freed"], "munmap released it")
