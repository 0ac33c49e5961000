# SPDX-License-Identifier: GPL-2.0-or-later
"""The cats command: export for the C.A.T.S. viewer and stat."""
import json
import os
import re

from catslib import WORK, cats_cmd, check, check_eq, example_trace, traced
import vizcheck

# Fields the viewer (spcl/cats-viz, src/access_timeline_view.ts) reads.
COMMON = {"type", "funcname", "filename", "line", "col"}
FIELDS = {
    "allocation": COMMON | {"buffer_name", "buffer_id", "size"},
    "deallocation": COMMON | {"buffer_id"},
    "access": COMMON | {"mode", "buffer_id", "offset", "bytes"},
    "scope_entry": COMMON | {"id", "scope_type"},
    "scope_exit": COMMON | {"id"},
}


def _export(t, page="timeline", *extra):
    out = os.path.join(WORK, "%s.%s%s.json" % (os.path.basename(t.path), page, "".join(extra)))
    cats_cmd("export", "--cats-viz", "--page=" + page, *extra, t.path, "-o", out)
    with open(out) as f:
        return json.load(f)


def _pos(ev, t, p, loop_id, main_id):
    """Where the malloc_loop events of interest are in the timeline."""
    pos = {}
    for i, e in enumerate(ev):
        key = None
        if e["type"] in ("allocation", "deallocation") and e["buffer_id"] == p["id"]:
            key = e["type"]
        elif e["type"] in ("scope_entry", "scope_exit") and e["id"] in (loop_id, main_id):
            key = (e["type"], "loop" if e["id"] == loop_id else "main")
        elif e["type"] == "access" and e["buffer_id"] == p["id"] and e["mode"] == "w":
            key = ("write", e["offset"])
        if key is not None:
            check(key not in pos, "duplicate %r" % (key,))
            pos[key] = i
    return pos


def test_export_cats_viz():
    # The timeline of malloc_loop.c loads in the viewer (tests/vizcheck.py:
    # every access between its container's allocation and deallocation,
    # scopes strictly nested) and shows the program's own work: from main,
    # the containers main's code touches (its frame, the malloc'd block,
    # the constant 1e9 in .rodata), none of ld.so's or libc's.
    t, _ = traced("malloc_loop.c")
    j = _export(t)
    check_eq(sorted(j), ["events"], "top-level keys")
    ev = j["events"]
    check_eq(vizcheck.check_timeline(j), [], "viewer invariants")
    for e in ev:
        missing = FIELDS[e["type"]] - set(e)
        check(not missing, "%s event lacks %r: %r" % (e["type"], sorted(missing), e))
    names = sorted({e["buffer_name"] for e in ev if e["type"] == "allocation"})
    check_eq([n.split(" #")[0] for n in names],
             ["frame of main", "main (malloc_loop.c:9)", os.path.basename(t.path)[:-5] + ":rodata"],
             "containers shown")
    scopes = sorted({(e["funcname"], e["scope_type"], e["line"]) for e in ev if e["type"] == "scope_entry"})
    check_eq(scopes, [("main", "func", 6), ("main", "loop", 8), ("main", "loop", 10)], "scopes shown")

    # The malloc in the loop: allocated inside the loop scope, first write at
    # offset 0, last at 72 (p[9]), released, then the loop and main end.
    p = t.alloc_by_name("main (malloc_loop.c:9)")
    loop_id = p["alloc_ctx"]
    main_id = t.ctxs[loop_id]["parent"]
    pos = _pos(ev, t, p, loop_id, main_id)
    order = [("scope_entry", "main"), ("scope_entry", "loop"), "allocation", ("write", 0), ("write", 72),
             "deallocation", ("scope_exit", "loop"), ("scope_exit", "main")]
    for k in order:
        check(k in pos, "missing %r in the export" % (k,))
    check_eq(sorted(order, key=lambda k: pos[k]), order, "order of the malloc_loop events")
    check_eq(ev[pos["allocation"]]["size"], 80, "allocation size")

    # --whole-run: the dynamic loader's and libc's containers and scopes
    # too, from the first instruction, and still valid for the viewer.
    w = _export(t, "timeline", "--whole-run")
    check_eq(vizcheck.check_timeline(w), [], "viewer invariants, whole run")
    allocs = [e for e in w["events"] if e["type"] == "allocation"]
    check_eq(len(allocs), len(t.allocs), "allocation events in the whole run (one per record)")
    check(any(e["buffer_name"] == "_rtld_local" for e in allocs), "ld.so's globals in the whole run")


def test_export_statistics_and_control_flow_pages():
    # The two other pages of the viewer. Statistics: malloc_loop.c's block
    # is written 100 times stride-1 (p[i], line 11) and read 10 times at
    # one offset (p[3], line 12). Control flow: main's two nested loops,
    # 10 iterations of the outer and 10 x 10 of the inner.
    t, _ = traced("malloc_loop.c")
    s = _export(t, "stats")
    check_eq(vizcheck.check_stats(s), [], "viewer invariants, statistics")
    block = [c for c in s["all_cfg_stats"][0]["accesses"] if c["container"] == "main (malloc_loop.c:9)"]
    check_eq(len(block), 1, "the heap block listed once")
    sites = {k: [(x["name"], x["n_accesses"], x["accesses"][0]["mode"], x["accesses"][0]["multiplier"])
                 for x in block[0][k]]
             for k in ("constant_accesses", "linear_accesses", "strided_accesses", "indirect_accesses")}
    check_eq(sites, {"constant_accesses": [("main (malloc_loop.c:12)", 10, "read", 10)],
                     "linear_accesses": [("main (malloc_loop.c:11)", 100, "write", 100)],
                     "strided_accesses": [], "indirect_accesses": []}, "the block's access classes")
    check_eq(block[0]["n_total_accesses"], 110, "the block's accesses")
    cf = _export(t, "control-flow")
    check_eq(vizcheck.check_cfv(cf), [], "viewer invariants, control flow")
    loops = [c for c in cf["children"] if c["type"] == "Loop"]
    check_eq([c["ranges"] for c in loops], ["malloc_loop.c:8 in main: 10 iterations, 1 entries"], "outer loop")
    inner = [c for c in loops[0]["children"] if c["type"] == "Loop"]
    check_eq([c["ranges"] for c in inner], ["malloc_loop.c:10 in main: 100 iterations, 10 entries"], "inner loop")


def test_exports_of_the_test_programs_load_in_the_viewer():
    # Threads, recursion, signals, conditionals, OpenMP, C++: every page's
    # file keeps the viewer's invariants, by default and for the whole run.
    progs = [("threads.c", ("-O0",)), ("recursion.c", ("-O0",)), ("signal_handler.c", ("-O0",)),
             ("conditional.c", ("-O0",)), ("omp_stencil.c", ("-O2", "-fopenmp")),
             ("newdelete.cpp", ("-O0",)), ("report_csr.c", ("-O2",))]
    for name, flags in progs:
        t, _ = traced(name, flags)
        for extra in ((), ("--whole-run",)):
            for page, fn in (("timeline", vizcheck.check_timeline), ("stats", vizcheck.check_stats),
                             ("control-flow", vizcheck.check_cfv)):
                bad = fn(_export(t, page, *extra))
                check(not bad, "%s %s %s: %s" % (name, page, " ".join(extra), bad[:5]))


def test_export_errors():
    # An unknown page is a usage error; a trace without accesses has
    # nothing to draw: one line, no file.
    t, _ = traced("malloc_loop.c")
    r = cats_cmd("export", "--cats-viz", "--page=memory", t.path, check_rc=False)
    check(r.returncode != 0 and "unknown page 'memory'" in r.stderr, r.stderr)
    # --instr-atstart=no and no CATS_START request: no access recorded.
    t, _ = traced("malloc_loop.c", tool_args=("--instr-atstart=no",))
    for page in ("timeline", "stats"):
        out = os.path.join(WORK, "empty.%s.json" % page)
        for extra in ((), ("--whole-run",)):
            r = cats_cmd("export", "--cats-viz", "--page=" + page, *extra, t.path, "-o", out,
                         check_rc=False)
            check(r.returncode != 0 and r.stderr.count("\n") == 1 and "nothing to" in r.stderr,
                  "%s %s: %r" % (page, extra, r.stderr))
            check(not os.path.exists(out), "a file was left behind")


def _stat_value(text, label):
    m = re.search(r"^%s\s+(\d+)" % re.escape(label), text, re.M)
    check(m is not None, "cats stat prints %r:\n%s" % (label, text[:1500]))
    return int(m.group(1))


def test_stat_matches_meta():
    # stride1.c keeps an 8,000,000-byte array live: the peak is at least that.
    t, _ = traced("stride1.c", ("-O0",))
    out = cats_cmd("stat", t.path).stdout
    meta = t.meta
    check_eq(_stat_value(out, "peak footprint"), int(meta["peak_footprint"]), "peak footprint vs META")
    check(int(meta["peak_footprint"]) >= 8000000, "peak footprint %s below the 8 MB array" % meta["peak_footprint"])
    a = t.alloc_by_name("main (stride1.c:8)")
    check(a["first_alloc"] <= int(meta["peak_time"]) <= a["last_free"],
          "peak time %s outside the array's lifetime [%d, %d]" % (meta["peak_time"], a["first_alloc"], a["last_free"]))
    check_eq(_stat_value(out, "contexts"), len(t.ctxs), "contexts")
    check_eq(_stat_value(out, "allocations"), int(meta["alloc_records"]), "allocation records vs META")
    check_eq(int(meta["alloc_records"]), len(t.allocs), "META alloc_records vs records")
    m = re.search(r"^allocations\s+\d+ records, (\d+) instances", out, re.M)
    check(m is not None, "allocation instances line")
    check_eq(int(m.group(1)), sum(x["count"] for x in t.allocs), "allocation instances")
    check_eq(_stat_value(out, "event records"), int(meta["event_records"]), "event records vs META")
    check_eq(int(meta["event_records"]), len(t.events), "META event_records vs records")
    check_eq(_stat_value(out, "accesses"), sum(e["count"] for e in t.events), "accesses")
    check_eq(_stat_value(out, "unattributed accesses"), int(meta["accesses_unattributed"]), "unattributed vs META")
    check_eq(_stat_value(out, "accesses") + int(meta["accesses_unattributed"]), int(meta["accesses_total"]),
             "attributed + unattributed == META accesses_total")
    # 1,000,000 writes + 1 read of the array are among them
    check(sum(e["count"] for e in t.events_of(a["id"])) == 1000001, "accesses of the array")
    m = re.search(r"^\s+1\.\s+(\S+)\s+(\d+) B x (\d+)", out, re.M)
    check(m is not None, "largest containers list")
    check_eq((m.group(1), int(m.group(2)), int(m.group(3))), ("malloc", 8000000, 1), "largest container")
    # The program's containers by default, the system's counted in one
    # line; --all lists everything.
    listed = re.findall(r'^\s+\d+\.\s+\S+\s+\d+ B x \d+ = \d+ B\s+"(.*)"$', out, re.M)
    check(listed and not any(n.startswith(("libc.so", "ld-linux", "ld.so", "_rtld")) for n in listed),
          "system containers among the program's: %r" % listed)
    others = sum(1 for a in t.allocs if a["name"].startswith(("libc.so", "ld-linux", "_rtld")))
    m = re.search(r"^  and (\d+) containers of libc, ld.so and other system code", out, re.M)
    check(m is not None and int(m.group(1)) >= others > 0, "the system's containers counted: %r" % out[-800:])
    full = cats_cmd("stat", "--all", t.path).stdout
    listed = re.findall(r'^\s+\d+\.\s+\S+\s+\d+ B x \d+ = \d+ B\s+"(.*)"$', full, re.M)
    check(any(n.startswith("libc.so") for n in listed) and " and " not in full.split("busiest")[0][-200:],
          "--all lists libc's containers: %r" % listed)


def test_stat_tells_a_lines_accesses_apart():
    # examples/heat.c's stencil reads five neighbours of u on lines 42-44;
    # the busiest sites were five identical rows. Each now says where in
    # the container it starts: u[i*N+j] at row 1, column 1 of the 128 x 128
    # grid is byte 1032, its neighbours 8 (above), 2056 (below), 1024
    # (left) and 1040 (right).
    trace = example_trace(("--value-flow=no",))
    out = cats_cmd("stat", trace).stdout
    rows = set(re.findall(r'^\s+\d+\.\s+\d+ r stride-1\s+8 B\s+heat\.c:(\d+)\s+"temperature" from offset (\d+)$',
                          out, re.M))
    check_eq(rows, {("42", "1032"), ("43", "8"), ("43", "2056"), ("43", "1024"), ("44", "1040")},
             "the stencil's reads of u by line and first offset")
