# SPDX-License-Identifier: GPL-2.0-or-later
"""Allocation records (containers): folding by site and context, kinds,
sizes, counts, realloc chains and source names."""
from catslib import check, check_eq, traced


def _program_heap(t, file):
    """Heap records allocated at a site in FILE, from main on."""
    return [a for a in t.heap_allocs_in_main() if t.loc_file(a["alloc_loc"]) == file]


def test_malloc_loop_one_record_count_10():
    # malloc_loop.c: malloc(80) / free in a 10-iteration loop.
    t, _ = traced("malloc_loop.c")
    recs = _program_heap(t, "malloc_loop.c")
    check_eq(len(recs), 1, "heap records allocated in malloc_loop.c")
    a = recs[0]
    check_eq(a["kind"], "malloc", "kind")
    check_eq(a["name"], "main (malloc_loop.c:9)", "name")
    check_eq(a["size"], 80, "size")
    check_eq(a["count"], 10, "count")
    check_eq(a["max_live"], 1, "max_live (freed each iteration)")
    check_eq(a["never_freed"], False, "never_freed")
    check_eq(t.loc_line(a["alloc_loc"]), 9, "alloc_loc line")
    check_eq(t.loc_line(a["free_loc"]), 13, "free_loc line")
    path = t.program_path(a["alloc_ctx"], "malloc_loop.c")
    check_eq([k for k, _, _ in path], ["function", "loop"], "alloc_ctx kinds from main")
    check_eq(path[0][1], "main", "alloc_ctx function")
    check_eq(a["free_ctx"], a["alloc_ctx"], "freed in the same loop context")
    # The loop of the record is the outer one: the p[i] write loop is its child.
    inner = [e for e in t.events_where(11, "malloc_loop.c", "write", a["id"])]
    check_eq(len(inner), 1, "write records to p at line 11")
    check_eq(t.ctxs[inner[0]["ctx"]]["parent"], a["alloc_ctx"], "inner loop's parent is the allocation loop")


def test_newdelete_new_and_array_new_records():
    # newdelete.cpp: new Particle (32 bytes) and new double[100] (800 bytes)
    # in a 4-iteration loop, all deleted.
    t, _ = traced("newdelete.cpp")
    recs = _program_heap(t, "newdelete.cpp")
    by_kind = {}
    for a in recs:
        by_kind.setdefault(a["kind"], []).append(a)
    check_eq(sorted(by_kind), ["new", "new[]"], "kinds of heap records allocated in newdelete.cpp")
    for kind, size, line in (("new", 32, 18), ("new[]", 800, 19)):
        check_eq(len(by_kind[kind]), 1, "%s records" % kind)
        a = by_kind[kind][0]
        check_eq(a["size"], size, "%s size" % kind)
        check_eq(a["count"], 4, "%s count" % kind)
        check_eq(a["max_live"], 1, "%s max_live" % kind)
        check_eq(a["never_freed"], False, "%s never_freed" % kind)
        check_eq(a["name"], "main (newdelete.cpp:%d)" % line, "%s name" % kind)
        check(a["first_free"] > 0 and a["last_free"] >= a["last_alloc"],
              "%s: every instance released (first_free %r, last_free %r, last_alloc %r)"
              % (kind, a["first_free"], a["last_free"], a["last_alloc"]))
        path = t.kinds_path(a["alloc_ctx"], "newdelete.cpp")
        check_eq([k for k, _ in path], ["function", "loop"], "%s alloc_ctx kinds from main" % kind)
        check_eq(path[0], ("function", "main"), "%s alloc function" % kind)


def test_realloc_chain_links_back_to_malloc():
    # realloc_grow.c: malloc(128), then 4 reallocs doubling to 2048.
    t, _ = traced("realloc_grow.c")
    recs = _program_heap(t, "realloc_grow.c")
    by_id = {a["id"]: a for a in recs}
    # the end of the chain: the record nobody grew from
    sources = {a["realloc_from"] for a in recs}
    ends = [a for a in recs if a["id"] not in sources]
    check_eq(len(ends), 1, "chain ends among %r" % [(a["name"], a["size"]) for a in recs])
    chain = []
    a = ends[0]
    while a is not None:
        chain.append(a)
        nxt = a["realloc_from"]
        check(nxt is None or nxt in by_id, "realloc_from %r points at a program record" % nxt)
        a = by_id.get(nxt) if nxt is not None else None
        check(len(chain) <= 10, "realloc chain loops")
    chain.reverse()
    check_eq([a["size"] for a in chain], [128, 256, 512, 1024, 2048], "sizes along the chain")
    check_eq([a["kind"] for a in chain], ["malloc"] + ["realloc"] * 4, "kinds along the chain")
    check_eq(chain[0]["name"], "main (realloc_grow.c:7)", "first record")
    check_eq(chain[0]["realloc_from"], None, "malloc record has no realloc_from")
    for a in chain[1:]:
        check_eq(a["name"], "main (realloc_grow.c:12)", "realloc record name")
        check_eq(t.loc_line(a["alloc_loc"]), 12, "realloc site line")
    for a in chain:
        check_eq(a["count"], 1, "count of %s" % a["size"])
        check_eq(a["never_freed"], False, "never_freed of %s" % a["size"])
    check_eq(len(recs), 5, "heap records of realloc_grow.c")
    check_eq(t.loc_line(chain[-1]["free_loc"]), 14, "last block freed at line 14")


def test_named_globals_stack_array_and_client_name():
    # named.c: double grid[256]; static int counters[32]; double local_buf[64];
    # malloc(512 doubles) named "pressure" by CATS_NAME_BLOCK.
    t, _ = traced("named.c")
    grid = t.alloc_by_name("grid")
    check_eq((grid["kind"], grid["size"], grid["count"]), ("global", 2048, 1), "grid (kind, size, count)")
    counters = t.alloc_by_name("counters")
    check_eq((counters["kind"], counters["size"], counters["count"]), ("global", 128, 1),
             "counters (kind, size, count)")
    lb = t.alloc_by_name("local_buf")
    check_eq((lb["kind"], lb["size"], lb["count"]), ("stack-var", 512, 1), "local_buf (kind, size, count)")
    check_eq(t.kinds_path(lb["alloc_ctx"], "named.c"), [("function", "main")], "local_buf lives in main")
    pr = t.alloc_by_name("pressure")
    check(pr["kind"] in ("malloc", "client"), "pressure kind %r" % pr["kind"])
    check_eq((pr["size"], pr["count"]), (4096, 1), "pressure (size, count)")
    check(not [a for a in t.allocs if a["name"] == "main (named.c:23)"],
          "the block is only known under its client name")
    # the accesses really land in these containers
    check_eq(t.writer_of(20, "named.c")["id"], grid["id"], "line 20 writes grid")
    check_eq(t.writer_of(28, "named.c")["id"], pr["id"], "line 28 writes pressure")
    w = [e for e in t.events_where(29, "named.c", "write") if e["alloc"] == counters["id"]]
    check_eq(sum(e["count"] for e in w), 3, "counters[step]++ writes")
    w = t.events_where(22, "named.c", "write", lb["id"])
    check_eq(sum(e["count"] for e in w), 64, "local_buf writes at line 22")


def test_fortran_two_allocatables():
    # fortran_axpy.f90: allocate(x(1000), y(1000)) of real(8).
    t, _ = traced("fortran_axpy.f90")
    recs = _program_heap(t, "fortran_axpy.f90")
    check_eq(sorted((a["kind"], a["size"], a["count"]) for a in recs),
             [("malloc", 8000, 1), ("malloc", 8000, 1)], "heap records of fortran_axpy.f90")
    for a in recs:
        check_eq(t.loc_line(a["alloc_loc"]), 7, "allocate line")
        check_eq(a["never_freed"], False, "deallocated")
        check_eq(t.loc_line(a["free_loc"]), 18, "deallocate line")


def test_stripped_program_data_is_attributed():
    # named.c without symbols: grid[] and counters[] live in .bss; their
    # accesses land in the program's "<binary>:.bss" container (or
    # ":data" when .bss shares the writable page of .data) instead of
    # being lost, and almost nothing stays unattributed.
    import subprocess
    from catslib import WORK, Trace, compile_program, run_cats
    binary = compile_program("named.c", ("-O0",), out=WORK + "/named_stripped")
    subprocess.run(["strip", binary], check=True)
    path, _ = run_cats(binary, expect_rc=0)
    t = Trace(path)
    data = [a for a in t.allocs if a["name"] in ("named_stripped:.bss", "named_stripped:data")]
    check(data, "a container for the program's data")
    writes = sum(e["count"] for a in data for e in t.events_of(a["id"], "write") if e["size"] == 8)
    check(writes >= 256, "grid's 256 writes land in .bss (got %d)" % writes)
    total = int(t.meta["accesses_total"])
    lost = int(t.meta["accesses_unattributed"])
    check(lost * 100 < total, "unattributed accesses: %d of %d" % (lost, total))
