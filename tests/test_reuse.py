# SPDX-License-Identifier: GPL-2.0-or-later
"""Reuse (LRU stack) distances at 64-byte line granularity (section 9) and
the index containers of indirect accesses (section 10)."""
import math
import re
import struct

from catslib import check, check_eq, traced
import tracefile

LINE = 64
HASH = 0x9E3779B97F4A7C15   # the tool's line hash (docs/FORMAT.md, REUSE)
BUCKETS = 33


def _hist(h):
    """{"cold": c, "buckets": [...]} as (cold, {bucket: count}) without zeros."""
    check_eq(len(h["buckets"]), BUCKETS, "number of buckets")
    return h["cold"], {b: n for b, n in enumerate(h["buckets"]) if n}


def _bucket(d):
    return 0 if d == 0 else min(d.bit_length(), BUCKETS - 1)


def _sampled(line, n):
    k = n.bit_length() - 1
    return k == 0 or ((line * HASH) % (1 << 64)) >> (64 - k) == 0


def _section_types(path):
    with open(path, "rb") as f:
        head = f.read(16)
        check_eq(head[:8], b"CATSTRC\0", "magic")
        count = struct.unpack("<I", head[12:16])[0]
        table = f.read(tracefile.ENTRY * count)
    return [struct.unpack_from("<I", table, tracefile.ENTRY * i)[0] for i in range(count)]


# --- exact distances of known sequences (tests/programs/reuse_known.c) ----

KNOWN = {   # container: (cold, {bucket: count}), 10 passes each
    "walk": (4, {0: 280, 2: 36}),     # 4 lines x 8 doubles: 7 at d=0, then d=3
    "pair": (2, {1: 18}),             # A B A B: d=1
    "ring5": (5, {3: 45}),            # 5 lines round-robin: d=4 in [4, 8)
    "ring9": (9, {4: 81}),            # d=8, the first beyond the tool's MRU list
    "big": (3000, {12: 27000}),       # d=2999 in [2048, 4096), with renumbering
}


def _check_known(t):
    check_eq(t.j["reuse"], {"line_size": 64, "sampling": 1}, "reuse header")
    check_eq(t.meta.get("reuse_sampling"), "1", "META reuse_sampling")
    for name, want in KNOWN.items():
        a = t.alloc_by_name(name)
        check_eq(_hist(a["reuse"]), want, "reuse histogram of %s" % name)
    # Exact mode: every access of every record is counted once.
    for e in t.events:
        cold, b = _hist(e["reuse"])
        check_eq(cold + sum(b.values()), e["count"],
                 "histogram total of the record at %s" % t.loc_str(e["loc"]))
    # A B A B: each of the two reads is cold once, then at distance 1.
    pair = t.alloc_by_name("pair")
    evs = t.events_of(pair["id"], "read")
    check_eq(sorted(_hist(e["reuse"]) for e in evs), [(1, {1: 9}), (1, {1: 9})],
             "the two reads of pair")


def test_reuse_exact_known_sequences():
    t, _ = traced("reuse_known.c", ("-O2",), tool_args=("--reuse-sampling=1", "--value-flow=no"))
    _check_known(t)


def test_reuse_exact_with_value_flow():
    # The value-flow hooks record accesses too: the same histograms.
    t, _ = traced("reuse_known.c", ("-O2",), tool_args=("--reuse-sampling=1",))
    _check_known(t)


# --- sampling (tests/programs/reuse_stream.c) ------------------------------

def _accesses_per_line(t, alloc_id, base_addr):
    """{line: accesses} over the affine records of one container."""
    per_line = {}
    for e in t.events_of(alloc_id):
        check(e["pattern"] in ("stride-1", "stride-k"), "affine record: %r" % e["pattern"])
        extent, stride = e["extents"][0], e["strides"][0]
        check_eq(e["count"] % extent, 0, "count a multiple of the innermost extent")
        reps = e["count"] // extent
        for j in range(extent):
            line = (base_addr + e["base"] + stride * j) // LINE
            per_line[line] = per_line.get(line, 0) + reps
    return per_line


def test_reuse_sampled_stream():
    # 2^20 doubles written once, then read in 4 sweeps; default sampling
    # 1 in 16 lines. Between two visits of a line every other line of the
    # array is touched once, so with S the array's lines the hash samples,
    # each sampled line has one cold access, PASSES visits at distance
    # (|S| - 1) * 16 and the rest at 0, every access counting 16.
    n, passes = 16, 4
    t, proc = traced("reuse_stream.c", ("-O2",), tool_args=("--value-flow=no",))
    check_eq(t.j["reuse"], {"line_size": 64, "sampling": n}, "reuse header")
    base = int(re.match(r"0x([0-9a-f]+) ", proc.stdout).group(1), 16)
    a = [x for x in t.heap_allocs_in_main() if x["name"].startswith("main (reuse_stream.c")]
    check_eq(len(a), 1, "one array")
    a = a[0]
    per_line = _accesses_per_line(t, a["id"], base)
    count = sum(per_line.values())
    check_eq(count, sum(e["count"] for e in t.events_of(a["id"])), "accesses")
    lines = len(per_line)
    s = [l for l in per_line if _sampled(l, n)]
    cold = n * len(s)
    far = n * passes * len(s)
    zero = n * sum(per_line[l] for l in s) - cold - far
    want = (cold, {0: zero, _bucket((len(s) - 1) * n): far})
    got = _hist(a["reuse"])
    check_eq(got, want, "sampled histogram (exact for the fixed hash)")
    # As an estimator: the total (accesses of the sampled lines, times 16)
    # estimates the access count with a relative standard deviation of
    # sqrt((n - 1) / lines) (binomial choice of lines, equal accesses per
    # line); 4 of them is the stated tolerance.
    total = got[0] + sum(got[1].values())
    tol = 4 * math.sqrt((n - 1) / lines)
    check(abs(total / count - 1) <= tol,
          "estimated total %d vs %d accesses: beyond %.2f%%" % (total, count, 100 * tol))
    # The container's histogram is the sum of its records'.
    summed = [0] * (BUCKETS + 1)
    for e in t.events_of(a["id"]):
        summed[0] += e["reuse"]["cold"]
        for b, v in enumerate(e["reuse"]["buckets"]):
            summed[b + 1] += v
    check_eq(summed, [a["reuse"]["cold"]] + a["reuse"]["buckets"], "sum of the records")


def test_reuse_off_writes_no_section():
    t, _ = traced("reuse_known.c", ("-O2",), tool_args=("--reuse-distance=no", "--value-flow=no"))
    types = _section_types(t.path)
    check(9 not in types, "section 9 written with --reuse-distance=no: %r" % types)
    check(10 in types, "section 10 missing: %r" % types)
    check("reuse" not in t.j, "top-level reuse in the dump")
    check("reuse_sampling" not in t.meta, "META reuse_sampling without section 9")
    check("index_pairs" in t.meta, "META index_pairs")
    check(all("reuse" not in e for e in t.events), "reuse in an event")
    check(all("reuse" not in a for a in t.allocs), "reuse in an alloc")


def test_reuse_bad_sampling_rejected():
    from catslib import compile_program, run_cats
    exe = compile_program("reuse_known.c", ("-O2",))
    for bad in ("3", "2048", "0"):
        _, proc = run_cats(exe, tool_args=("--reuse-sampling=" + bad,), out=exe + ".bad.cats")
        check(proc.returncode != 0, "--reuse-sampling=%s accepted" % bad)
        check("reuse-sampling" in proc.stderr, "no message for --reuse-sampling=%s" % bad)


# --- index containers (tests/programs/reuse_csr.c) -------------------------

def _check_csr(flags):
    t, _ = traced("reuse_csr.c", flags)
    col = t.alloc_by_name("col")
    x = t.alloc_by_name("x")
    gather = t.events_where(33, "reuse_csr.c", "read", x["id"])
    check(gather, "no x read at line 33 (%s)" % " ".join(flags))
    for e in gather:
        check_eq(e.get("index_container"), col["id"], "index container of x[col[k]] (%s)" % " ".join(flags))
    fill = t.events_where(20, "reuse_csr.c", "write", x["id"])
    check(fill, "no x write at line 20")
    for e in fill:
        check("index_container" not in e, "stride-1 x[i] = i has an index container (%s)" % " ".join(flags))
    # Nothing else in the program has one: direct accesses, and at -O0
    # indices loaded from the stack frame (not index arrays).
    others = [e for e in t.events
              if t.loc_file(e["loc"]) == "reuse_csr.c" and "index_container" in e
              and not (t.loc_line(e["loc"]) == 33 and e["alloc"] == x["id"])]
    check_eq([(t.loc_line(e["loc"]), t.allocs[e["alloc"]]["name"]) for e in others], [],
             "other records with an index container (%s)" % " ".join(flags))


def test_index_container_csr_O0():
    _check_csr(("-O0",))


def test_index_container_csr_O2():
    _check_csr(("-O2",))


def test_index_container_csr_O3_avx2():
    _check_csr(("-O3", "-mavx2"))
