# SPDX-License-Identifier: GPL-2.0-or-later
"""Event records: one record per access site and container, folded into
affine patterns over the enclosing loops, with exact counts."""
import json
import os
import tempfile

from catslib import cats_cmd, check, check_eq, traced


def _one(events, what):
    check_eq(len(events), 1, "number of %s records" % what)
    return events[0]


def _strides(e, n):
    """The first N strides; the remaining ones must be 0."""
    s = e["strides"]
    check(all(x == 0 for x in s[n:]), "unused strides not 0: %r" % s)
    return (s + [0] * n)[:n]


def test_malloc_loop_inner_write_stride1():
    # malloc_loop.c:11  p[i] = i + k, 10 x 10 iterations, 8-byte doubles.
    t, _ = traced("malloc_loop.c")
    p = t.alloc_by_name("main (malloc_loop.c:9)")
    e = _one(t.events_where(11, "malloc_loop.c", "write", p["id"]), "p[i] write")
    check_eq(e["pattern"], "stride-1", "pattern")
    check_eq(e["size"], 8, "size")
    check_eq(e["count"], 100, "count")
    check_eq(e["strides"][0], 8, "innermost stride")
    check_eq(e["base"], 0, "base")
    check_eq((e["min_offset"], e["max_offset"]), (0, 72), "offset range")
    check_eq([k for k, _ in t.kinds_path(e["ctx"], "malloc_loop.c")], ["function", "loop", "loop"],
             "context kinds from main")
    # p[3] read once per outer iteration, same offset every time
    r = _one(t.events_where(12, "malloc_loop.c", "read", p["id"]), "p[3] read")
    check_eq((r["pattern"], r["count"], r["base"]), ("constant", 10, 24), "p[3] read (pattern, count, base)")


def test_stride1_O0_one_record():
    # stride1.c:10  a[i] = i over N = 1000000 doubles.
    t, _ = traced("stride1.c", ("-O0",))
    a = t.alloc_by_name("main (stride1.c:8)")
    check_eq(a["size"], 8000000, "container size")
    e = _one(t.events_where(10, "stride1.c", "write", a["id"]), "line-10 write")
    check_eq(len(t.events_where(10, "stride1.c", "write")), 1, "write records at line 10 (any container)")
    check_eq(e["pattern"], "stride-1", "pattern")
    check_eq(e["size"], 8, "size")
    check_eq(e["count"], 1000000, "count")
    check_eq(e["strides"][0], 8, "stride")
    check_eq((e["base"], e["min_offset"], e["max_offset"]), (0, 0, 7999992), "base/min/max")
    check_eq(e["extents"][0], 1000000, "innermost extent")


def test_stride1_O2_covers_array_contiguously():
    # stride1.c at -O2: gcc may vectorise (and unroll) the loop. Every
    # write record at line 10 must be affine; together they must write the
    # 8,000,000 bytes exactly once. One record: pattern stride-1 with stride
    # == its access size. Several (one per store instruction of an unrolled
    # body): equal size s and stride k*s for k records, bases 0, s, .. (k-1)s.
    t, _ = traced("stride1.c", ("-O2",))
    a = t.alloc_by_name("main (stride1.c:8)")
    recs = t.events_where(10, "stride1.c", "write", a["id"])
    check(recs, "no write records at line 10")
    check_eq(len(t.events_where(10, "stride1.c", "write")), len(recs), "line-10 writes all go to the array")
    check_eq(sum(e["count"] * e["size"] for e in recs), 8000000, "bytes written at line 10")
    size = recs[0]["size"]
    for e in recs:
        check(e["pattern"] in ("stride-1", "stride-k"), "pattern %r not affine" % e["pattern"])
        check_eq(e["size"], size, "access size of all records")
        check_eq(e["strides"][0], size * len(recs), "stride of each of %d records" % len(recs))
    check_eq(sorted(e["base"] for e in recs), [k * size for k in range(len(recs))], "bases")
    if len(recs) == 1:
        check_eq(recs[0]["pattern"], "stride-1", "single record pattern")
    check_eq(min(e["min_offset"] for e in recs), 0, "lowest offset")
    check_eq(max(e["max_offset"] + e["size"] for e in recs), 8000000, "end of the highest access")


def test_colwalk_row_stride():
    # colwalk.c:16  s += m[i * COLS + j]; inner i < 200, outer j < 300, doubles.
    t, _ = traced("colwalk.c")
    m = t.alloc_by_name("main (colwalk.c:10)")
    e = _one(t.events_where(16, "colwalk.c", "read", m["id"]), "line-16 read")
    check_eq(e["pattern"], "stride-k", "pattern")
    check_eq(_strides(e, 2), [2400, 8], "strides (innermost first)")
    check_eq(e["count"], 60000, "count")
    check_eq(e["size"], 8, "size")
    check_eq(e["extents"][:2], [200, 300], "extents")
    check_eq((e["min_offset"], e["max_offset"]), (0, 479992), "offset range")
    check_eq([k for k, _ in t.kinds_path(e["ctx"], "colwalk.c")], ["function", "loop", "loop"], "context")
    w = _one(t.events_where(12, "colwalk.c", "write", m["id"]), "line-12 write")
    check_eq((w["pattern"], w["count"], w["strides"][0]), ("stride-1", 60000, 8), "row-wise init")


def _bucket(offset, container_size):
    """Histogram bucket of OFFSET (docs/FORMAT.md, EVENTS hist): offset >> s
    with 2^s the smallest power of two such that 16 * 2^s >= the container
    size; the last bucket takes the rest, negative offsets go to bucket 0."""
    s = 0
    while 16 * (1 << s) < container_size:
        s += 1
    if offset < 0:
        return 0
    return min(offset >> s, 15)


def _indirect_offsets():
    """The x offsets indirect.c reads at line 18, computed as the program does."""
    r, idx = 12345, []
    for _ in range(1000):
        r = (r * 1103515245 + 12345) & 0xFFFFFFFF
        idx.append((r >> 8) % 1000)
    return [i * 8 for i in idx]


def test_indirect_gather_irregular():
    # indirect.c:18  s += x[idx[i]]
    t, _ = traced("indirect.c")
    x = t.alloc_by_name("main (indirect.c:8)")
    idx = t.alloc_by_name("main (indirect.c:9)")
    ri = _one(t.events_where(18, "indirect.c", "read", idx["id"]), "idx read")
    check_eq((ri["pattern"], ri["count"], ri["size"], ri["strides"][0]), ("stride-1", 1000, 4, 4),
             "idx read (pattern, count, size, stride)")
    rx = _one(t.events_where(18, "indirect.c", "read", x["id"]), "x read")
    check_eq(rx["pattern"], "irregular", "x pattern")
    check_eq(rx["count"], 1000, "x count")
    check_eq(rx["size"], 8, "x size")
    offs = _indirect_offsets()
    first = []
    for o in offs:
        if o not in first:
            first.append(o)
    check(1 <= len(rx["distinct"]) <= 8, "distinct offsets kept: %d" % len(rx["distinct"]))
    check_eq(rx["distinct"], first[:8], "first distinct offsets")
    check_eq(len(rx["histogram"]), 16, "histogram buckets")
    check_eq(sum(rx["histogram"]), 1000, "histogram total")
    hist = [0] * 16
    for o in offs:
        hist[_bucket(o, x["size"])] += 1
    check_eq(rx["histogram"], hist, "histogram")
    check_eq((rx["min_offset"], rx["max_offset"]), (min(offs), max(offs)), "offset range")


def test_irregular_histogram_counts_every_access():
    # named.c:28  field[i] = local_buf[i % 64] + step: 3 x 512 reads of
    # local_buf, affine for the first 64 then wrapping around, so irregular.
    # The summary must still count all 1536 accesses (96 per bucket).
    t, _ = traced("named.c")
    lb = t.alloc_by_name("local_buf")
    e = _one(t.events_where(28, "named.c", "read", lb["id"]), "local_buf read")
    check_eq((e["pattern"], e["count"]), ("irregular", 1536), "(pattern, count)")
    check_eq(sum(e["histogram"]), e["count"], "histogram total")
    hist = [0] * 16
    for i in range(3 * 512):
        hist[_bucket(i % 64 * 8, lb["size"])] += 1
    check_eq(e["histogram"], hist, "histogram")
    check_eq(e["distinct"], [0, 8, 16, 24, 32, 40, 48, 56], "first distinct offsets in access order")


def test_same_offset_then_moving_counts_every_access():
    # samethenmove.c:10  get(i) reads g[i] (4 doubles) for i = 0, 0, 0, 2,
    # 2, 1 from straight-line code: the first three are at one offset, so
    # the record's folding state is only made at the fourth, and must
    # still count them. Irregular (the offset moves with no loop moving);
    # the histogram's buckets are 2 bytes wide (16 cover 32 bytes).
    t, _ = traced("samethenmove.c")
    g = t.alloc_by_name("g")
    e = _one(t.events_where(10, "samethenmove.c", "read", g["id"]), "g read")
    check_eq((e["pattern"], e["count"], e["base"]), ("irregular", 6, 0), "(pattern, count, base)")
    check_eq((e["min_offset"], e["max_offset"]), (0, 16), "offset range")
    check_eq(e["distinct"], [0, 16, 8], "distinct offsets in access order")
    hist = [0] * 16
    for off in (0, 0, 0, 16, 16, 8):
        hist[off // 2] += 1
    check_eq(e["histogram"], hist, "histogram")


def test_recursion_buf_accesses_exact():
    # recursion.c: depth_sum(buf, 5000) runs lines 8-9 for n = 5000 .. 1:
    # line 8 buf[n % 16] += n reads and writes, line 9 reads it again.
    t, _ = traced("recursion.c")
    buf = t.alloc_by_name("main (recursion.c:18)")
    r8 = t.events_where(8, "recursion.c", "read", buf["id"])
    w8 = t.events_where(8, "recursion.c", "write", buf["id"])
    r9 = t.events_where(9, "recursion.c", "read", buf["id"])
    check_eq(sum(e["count"] for e in r8), 5000, "reads at line 8")
    check_eq(sum(e["count"] for e in w8), 5000, "writes at line 8")
    check_eq(sum(e["count"] for e in r9), 5000, "reads at line 9")
    check_eq(sum(e["count"] for e in t.events_of(buf["id"], "read")), 10000, "all reads of buf")
    check_eq(sum(e["count"] for e in t.events_of(buf["id"], "write")), 5000, "all writes of buf")
    # offsets n % 16 * 4: residues 1..8 occur 313 times, the others 312
    hist = [0] * 16
    for n in range(1, 5001):
        hist[_bucket(n % 16 * 4, buf["size"])] += 1
    check_eq(hist, [313 if 1 <= b <= 8 else 312 for b in range(16)], "expected histogram (64-byte buf)")
    for e in r8 + w8 + r9:
        check_eq(e["pattern"], "irregular", "pattern")
        check_eq(e["histogram"], hist, "histogram")
        check_eq(e["distinct"], [32, 28, 24, 20, 16, 12, 8, 4], "first distinct offsets")


def test_threads_each_worker_writes_its_slice():
    # threads.c:12  shared[t * 1000 + i] = t in 4 threads.
    t, _ = traced("threads.c")
    sh = t.alloc_by_name("main (threads.c:19)")
    recs = t.events_where(12, "threads.c", "write", sh["id"])
    check_eq(sum(e["count"] for e in recs), 4000, "writes at line 12 over all threads")
    check_eq(len(recs), 4, "write records at line 12 (one per worker thread)")
    for e in recs:
        check_eq((e["pattern"], e["count"], e["strides"][0], e["size"]), ("stride-1", 1000, 8, 8),
                 "worker record (pattern, count, stride, size)")
    check_eq(sorted(e["base"] for e in recs), [0, 8000, 16000, 24000], "slice bases")
    roots = {t.thread_root(e["ctx"]) for e in recs}
    check_eq(len(roots), 4, "distinct thread roots of the 4 records")


def test_threads_update_an_array_on_mains_stack():
    # threadstack.c:14  j->grid[i] = 2 * j->grid[i] + 1 in 2 threads, grid[1000]
    # a local of main (as OpenMP shares a parallel region's variables): the
    # accesses belong to grid, not to no container.
    t, _ = traced("threadstack.c")
    grid = t.alloc_by_name("grid")
    check_eq((grid["kind"], grid["size"]), ("stack-var", 8000), "grid (kind, size)")
    for kind in ("read", "write"):
        recs = t.events_where(14, "threadstack.c", kind, grid["id"])
        check_eq(sorted((e["base"], e["count"], e["pattern"]) for e in recs),
                 [(0, 500, "stride-1"), (4000, 500, "stride-1")], "%s records at line 14" % kind)
        check_eq(len({t.thread_root(e["ctx"]) for e in recs}), 2, "thread roots of the %ss" % kind)


def test_timesteps_stencil_write_count():
    # timesteps.c:9  out[i] = ... for i in 1..N-2 (N = 4096) per step; a and
    # b swap roles, so each container takes half of the steps.
    for steps in (10, 100):
        t, _ = traced("timesteps.c", args=(str(steps),))
        recs = t.events_where(9, "timesteps.c", "write")
        check_eq(sum(e["count"] for e in recs), 4094 * steps, "stencil writes for %d steps" % steps)
        for name in ("main (timesteps.c:15)", "main (timesteps.c:16)"):
            a = t.alloc_by_name(name)
            mine = [e for e in recs if e["alloc"] == a["id"]]
            check_eq(sum(e["count"] for e in mine), 4094 * steps // 2, "writes into %s" % name)
            for e in mine:
                check_eq((e["pattern"], e["strides"][0], e["min_offset"], e["max_offset"]),
                         ("stride-1", 8, 8, 8 * 4094), "record into %s" % name)


def test_fortran_axpy_update_stride1():
    # fortran_axpy.f90:14  y(i) = y(i) + 2.0d0 * x(i), k = 1..5, i = 1..1000.
    t, _ = traced("fortran_axpy.f90")
    x = t.writer_of(9, "fortran_axpy.f90")
    y = t.writer_of(10, "fortran_axpy.f90")
    check(x["id"] != y["id"], "x and y are different containers")
    rx = _one(t.events_where(14, "fortran_axpy.f90", "read", x["id"]), "x read at line 14")
    check_eq((rx["pattern"], rx["count"], rx["size"], rx["strides"][0]), ("stride-1", 5000, 8, 8),
             "x read (pattern, count, size, stride)")
    check_eq((rx["min_offset"], rx["max_offset"]), (0, 7992), "x offset range")
    wy = t.events_where(14, "fortran_axpy.f90", "write", y["id"])
    check_eq(sum(e["count"] for e in wy), 5000, "y writes at line 14")
    ry = t.events_where(14, "fortran_axpy.f90", "read", y["id"])
    check_eq(sum(e["count"] for e in ry), 5000, "y reads at line 14")
    path = t.kinds_path(rx["ctx"], "fortran_axpy.f90")
    check_eq(path[:2], [("function", "main"), ("function", "MAIN__")], "main, then the program unit")
    check_eq([k for k, _ in path[2:]], ["loop", "loop"], "loops around line 14")


def _marker_line(name, marker):
    """The line of tests/programs/NAME that holds /* MARKER */."""
    with open(os.path.join(os.path.dirname(__file__), "programs", name)) as f:
        for no, line in enumerate(f, 1):
            if "/* %s */" % marker in line:
                return no
    raise AssertionError("no marker %s in %s" % (marker, name))


def test_one_class_for_every_command():
    # class_walks.c at -O0: a[i] and a[i + 1] stored by two instructions
    # (each alone stride 16 B, together every byte: stride-1), b[i] for
    # every fourth i (stride-k, 32 B), and b[idx[i]] with idx[i] = i
    # (stride-1 by its addresses, indexed through idx). Before, `cats
    # report` left the unrolled pair out while the view and the export
    # counted them stride-k, and the view showed an index only for
    # irregular accesses.
    name = "class_walks.c"
    t, _ = traced(name)
    a, b = t.alloc_by_name("main (%s:14)" % name), t.alloc_by_name("main (%s:15)" % name)
    idx = t.alloc_by_name("main (%s:16)" % name)
    for marker in ("WALK_A0", "WALK_A1"):
        e = _one(t.events_where(_marker_line(name, marker), name, "write", a["id"]), marker)
        check_eq((e["pattern"], e["strides"][0], e["class"]), ("stride-k", 16, "stride-1"), marker)
    strided = _one(t.events_where(_marker_line(name, "WALK_STRIDED"), name, "read", b["id"]),
                   "WALK_STRIDED")
    check_eq((strided["pattern"], strided["strides"][0], strided["class"]),
             ("stride-k", 32, "stride-k"), "b[i], every fourth i")
    indexed = _one(t.events_where(_marker_line(name, "WALK_INDEXED"), name, "read", b["id"]),
                   "WALK_INDEXED")
    check_eq((indexed["class"], indexed.get("index_container")), ("stride-1", idx["id"]),
             "b[idx[i]]: class and the container of its index")

    # cats stat counts the records of each class as the dump gives them.
    want = {}
    for e in t.events:
        want[e["class"]] = want.get(e["class"], 0) + 1
    got, lines = {}, cats_cmd("stat", t.path).stdout.splitlines()
    at = lines.index(next(l for l in lines if l.startswith("event records")))
    for line in lines[at + 1:]:
        if not line.startswith("  "):
            break
        cls, n = line.split()
        got[cls] = int(n)
    check_eq(got, want, "cats stat's event records per class")

    # cats report lists the stride-k site, not the unrolled pair.
    with tempfile.TemporaryDirectory() as d:
        cats_cmd("report", t.path, "--json", os.path.join(d, "r.json"))
        with open(os.path.join(d, "r.json")) as f:
            sites = json.load(f)["access_sites"]
        cats_cmd("export", "--cats-viz", "--page=stats", t.path, "-o", os.path.join(d, "s.json"))
        with open(os.path.join(d, "s.json")) as f:
            stats = json.load(f)["all_cfg_stats"][0]["accesses"]
    ours = [s for s in sites["entries"] if s["site"].startswith(name + ":")]
    check_eq([(s["site"], s["pattern"]) for s in ours],
             [("%s:%d" % (name, _marker_line(name, "WALK_STRIDED")), "stride-k")],
             "report: the program's stride-k and indirect sites")
    check(sites["unrolled_records"] >= 2, "report: unrolled records %r" % sites["unrolled_records"])

    # The viewer's statistics page: the pair stride-1, b[i] strided.
    by_name = {c["container"]: c for c in stats}
    lin = {s["name"] for s in by_name[a["name"]]["linear_accesses"]}
    for marker in ("WALK_A0", "WALK_A1"):
        check("main (%s:%d)" % (name, _marker_line(name, marker)) in lin, "stats page: %s linear" % marker)
    check_eq(by_name[a["name"]]["strided_accesses"], [], "stats page: strided sites of a")
    check_eq([s["name"] for s in by_name[b["name"]]["strided_accesses"]],
             ["main (%s:%d)" % (name, _marker_line(name, "WALK_STRIDED"))], "stats page: strided sites of b")
