# SPDX-License-Identifier: GPL-2.0-or-later
"""The context tree: loops, recursion, longjmp, exceptions, regions,
threads, and -O0 against -O2."""
import re
from collections import Counter

import subprocess

from catslib import Trace, check, check_eq, compile_program, run_cats, traced


def _program_contexts(t, name, file, kind="function"):
    return [c for c in t.contexts_named(name, kind) if t.ctx_in_file(c["id"], file)]


def test_recursion_direct_folds_into_one_node():
    # recursion.c: depth_sum(buf, 5000) calls itself down to n == 0: 5001 calls.
    t, _ = traced("recursion.c")
    ds = _program_contexts(t, "depth_sum", "recursion.c")
    check_eq(len(ds), 1, "depth_sum contexts")
    c = ds[0]
    check_eq(c["recursive"], True, "recursive flag")
    check_eq(c["entries"], 5001, "entries")
    check_eq(t.kinds_path(c["id"], "recursion.c"), [("function", "main"), ("function", "depth_sum")], "path")
    # all of its accesses to buf are attributed to that one node
    buf = t.alloc_by_name("main (recursion.c:18)")
    check_eq({e["ctx"] for e in t.events_of(buf["id"])}, {c["id"]}, "contexts of the buf accesses")


def test_recursion_mutual_even_odd():
    # even(100) -> odd(99) -> ... -> even(0): 51 calls of even, 50 of odd.
    t, _ = traced("recursion.c")
    ev = _program_contexts(t, "even", "recursion.c")
    od = _program_contexts(t, "odd", "recursion.c")
    check(ev and od, "even and odd contexts exist")
    check_eq(sum(c["entries"] for c in ev), 51, "calls of even")
    check_eq(sum(c["entries"] for c in od), 50, "calls of odd")
    for c in ev + od:
        p = t.kinds_path(c["id"], "recursion.c")
        check_eq(p[0], ("function", "main"), "even/odd under main")
        check(all(x in (("function", "even"), ("function", "odd")) for x in p[1:]),
              "only even/odd below main: %r" % p[:6])
    first = [c for c in ev if t.kinds_path(c["id"], "recursion.c") == [("function", "main"), ("function", "even")]]
    check_eq(len(first), 1, "even called from main")


def test_longjmp_resumes_in_main():
    # jump.c: inner(3) longjmps back to main's setjmp; after() then runs
    # from main, its loop writes data[0..7] at line 20.
    t, _ = traced("jump.c")
    after = _program_contexts(t, "after", "jump.c")
    check_eq(len(after), 1, "after contexts")
    check_eq(t.kinds_path(after[0]["id"], "jump.c"), [("function", "main"), ("function", "after")],
             "after is a child of main")
    check_eq(t.ctxs[after[0]["parent"]]["name"], "main", "after's parent context")
    data = t.alloc_by_name("main (jump.c:25)")
    w = t.events_where(20, "jump.c", "write", data["id"])
    check_eq(len(w), 1, "write records at line 20")
    e = w[0]
    check_eq((e["count"], e["pattern"], e["strides"][0]), (8, "stride-1", 8), "(count, pattern, stride)")
    p = t.kinds_path(e["ctx"], "jump.c")
    check_eq([x if x[0] != "loop" else "loop" for x in p], [("function", "main"), ("function", "after"), "loop"],
             "context of the line-20 write")
    # the calls before the jump: middle/inner 5 times each, data[k+1] = 0
    # only when inner returned (k != 3)
    for name in ("middle", "inner"):
        cs = _program_contexts(t, name, "jump.c")
        check_eq(sum(c["entries"] for c in cs), 5, "calls of %s" % name)
    w15 = t.events_where(15, "jump.c", "write", data["id"])
    check_eq(sum(e["count"] for e in w15), 4, "data[k + 1] = 0 writes")
    # nothing that ran after the jump hangs below inner/middle
    for c in t.ctxs:
        p = t.kinds_path(c["id"], "jump.c")
        if p and ("function", "after") in p:
            check(("function", "inner") not in p and ("function", "middle") not in p,
                  "after below inner/middle: %r" % p)


def _main_loop(t):
    """newdelete.cpp: the context of main's k loop (the one whose writes
    to v[i] happen in a child loop)."""
    v = t.alloc_by_name("main (newdelete.cpp:19)")
    w = t.events_where(21, "newdelete.cpp", "write", v["id"])
    check_eq(len(w), 1, "v[i] write records")
    inner = t.ctxs[w[0]["ctx"]]
    check_eq(inner["kind"], "loop", "v[i] written in a loop")
    outer = t.ctxs[inner["parent"]]
    check_eq(outer["kind"], "loop", "inner loop's parent")
    return outer


def test_exception_leaves_no_stale_frames():
    # newdelete.cpp: thrower(2) throws, main catches; later code of main
    # must not be attributed below thrower.
    t, _ = traced("newdelete.cpp")
    thrower = _program_contexts(t, "thrower(int)", "newdelete.cpp")
    check(thrower, "thrower has a context")
    check_eq(sum(c["entries"] for c in thrower), 4, "calls of thrower")
    for c in thrower:
        check_eq(t.kinds_path(c["id"], "newdelete.cpp")[0], ("function", "main"), "thrower under main")
    for e in t.events:
        loc = t.locs[e["loc"]]
        if t.loc_file(e["loc"]) == "newdelete.cpp" and loc["function"] == "main":
            p = t.kinds_path(e["ctx"], "newdelete.cpp")
            check(("function", "thrower(int)") not in p, "main's access at line %d below thrower: %r"
                  % (loc["line"], p))
    for c in t.ctxs:
        p = t.kinds_path(c["id"], "newdelete.cpp")
        if p and ("function", "thrower(int)") in p:
            i = p.index(("function", "thrower(int)"))
            check(all(x == ("function", "thrower(int)") for x in p[i:]),
                  "program scopes below thrower: %r" % p)
    # the 4th iteration (after the catch) still allocates in the loop
    check_eq(t.alloc_by_name("main (newdelete.cpp:18)")["count"], 4, "Particle allocations")


def test_exception_catch_continues_in_loop_context():
    # The catch block (lines 25-27) and the deletes after it (lines 28-29)
    # are inside the k loop; the loop is entered once and runs 4 times.
    t, _ = traced("newdelete.cpp")
    loop = _main_loop(t)
    check_eq(t.kinds_path(loop["id"], "newdelete.cpp")[0], ("function", "main"), "loop in main")
    bad = []
    for e in t.events:
        loc = t.locs[e["loc"]]
        if t.loc_file(e["loc"]) == "newdelete.cpp" and loc["function"] == "main" and 25 <= loc["line"] <= 29:
            cid = e["ctx"]
            while cid is not None and cid != loop["id"]:
                cid = t.ctxs[cid]["parent"]
            if cid is None:
                bad.append((loc["line"], e["kind"], t.kinds_path(e["ctx"], "newdelete.cpp")))
    check(not bad, "accesses of main at lines 25-29 outside the k loop: %r" % bad)
    check_eq(loop["iterations"], 4, "iterations of the k loop")
    check_eq(loop["entries"], 1, "entries of the k loop")


def test_region_timestep():
    # named.c: CATS_REGION_BEGIN/END("timestep") around the body of a
    # 3-iteration loop.
    t, _ = traced("named.c")
    regs = t.contexts_named("timestep", "region")
    check_eq(len(regs), 1, "timestep region contexts")
    r = regs[0]
    check_eq(r["entries"], 3, "region entries")
    p = t.kinds_path(r["id"], "named.c")
    check_eq([k for k, _ in p], ["function", "loop", "region"], "region path kinds")
    check_eq(p[0], ("function", "main"), "region under main")
    check_eq(t.ctxs[r["parent"]]["kind"], "loop", "region's parent")
    check_eq(t.ctxs[r["parent"]]["iterations"], 3, "iterations of the step loop")
    pr = t.alloc_by_name("pressure")
    w = t.events_where(28, "named.c", "write", pr["id"])
    check_eq(len(w), 1, "pressure write records")
    check_eq((w[0]["count"], w[0]["pattern"]), (1536, "stride-1"), "pressure writes (count, pattern)")
    check_eq([k for k, _ in t.kinds_path(w[0]["ctx"], "named.c")], ["function", "loop", "region", "loop"],
             "pressure writes inside the region")
    check_eq(t.ctxs[w[0]["ctx"]]["parent"], r["id"], "inner loop's parent is the region")


def _global_and_heap(t):
    # Source-level data objects: globals named by symbols (not the
    # "<object>:.bss/data/rodata" containers for unnamed data, whose
    # names carry the binary's name) and the heap.
    c = Counter()
    for a in t.allocs:
        if a["kind"] == "global" and not re.search(r":(\.bss|data|rodata)$", a["name"]):
            c[(a["kind"], a["name"], a["size"], a["count"])] += 1
    for a in t.heap_allocs_in_main():
        c[(a["kind"], a["name"], a["size"], a["count"])] += 1
    return c


def _loops_around(t, ctx_id):
    """Loop contexts from ctx_id up to main (innermost first)."""
    out = []
    while ctx_id is not None:
        c = t.ctxs[ctx_id]
        if c["kind"] == "function" and c["name"] == "main":
            return out
        if c["kind"] == "loop":
            out.append(c)
        ctx_id = c["parent"]
    return None


def test_loops_O0_and_O2_agree():
    # loops.c: loop 1 (line 13) writes A, loops 2/3 (lines 15/16) update B,
    # loop 4 (line 18) writes c.
    t0, _ = traced("loops.c", ("-O0",))
    t2, _ = traced("loops.c", ("-O2",))
    c0, c2 = _global_and_heap(t0), _global_and_heap(t2)
    check_eq(c0 - c2, Counter(), "containers only at -O0")
    check_eq(c2 - c0, Counter(), "containers only at -O2")
    for opt, t in (("-O0", t0), ("-O2", t2)):
        A, B = t.alloc_by_name("A"), t.alloc_by_name("B")
        check_eq((A["kind"], A["size"], B["kind"], B["size"]), ("global", 8000, "global", 8000), opt + " A/B")
        c = t.alloc_by_name("main (loops.c:12)")
        main_loops = [x for x in t.loops_of("main") if t.ctx_in_file(x["id"], "loops.c")]
        check(len(main_loops) >= 4, "%s: loop contexts in main: %d" % (opt, len(main_loops)))

        def loops_for(line, kind, alloc, depth):
            recs = t.events_where(line, "loops.c", kind, alloc["id"])
            check(recs, "%s: no %s of %s at line %d" % (opt, kind, alloc["name"], line))
            for e in recs:
                ls = _loops_around(t, e["ctx"])
                check(ls is not None and len(ls) >= depth,
                      "%s: %s of %s at line %d under %r loops, want >= %d"
                      % (opt, kind, alloc["name"], line, ls and len(ls), depth))
            check_eq(sum(e["count"] * e["size"] for e in recs), {14: 8000, 17: 40000, 19: 8000}[line],
                     "%s: bytes of %s at line %d" % (opt, kind, line))
            return {e["ctx"] for e in recs}, [_loops_around(t, e["ctx"]) for e in recs]

        ctx1, l1 = loops_for(14, "write", A, 1)      # loop 1
        ctx23, l23 = loops_for(17, "write", B, 2)    # loops 2 and 3
        ctx4, l4 = loops_for(19, "write", c, 1)      # loop 4
        inner1 = {ls[0]["id"] for ls in l1}
        inner23 = {ls[0]["id"] for ls in l23}
        outer23 = {ls[1]["id"] for ls in l23}
        inner4 = {ls[0]["id"] for ls in l4}
        check(not (inner1 & inner23) and not (inner1 & inner4) and not (inner23 & inner4),
              "%s: the source loops map to distinct loop contexts" % opt)
        check(not (outer23 & (inner1 | inner4)), "%s: t loop distinct from loops 1 and 4" % opt)
        # loop 3 is entered once per iteration of loop 2 (t = 0..4)
        for cid in inner23:
            check_eq(t.ctxs[cid]["entries"], 5, "%s: entries of the i loop nested in the t loop" % opt)
        for cid in outer23:
            check_eq(t.ctxs[cid]["entries"], 1, "%s: entries of the t loop" % opt)
        # each loop context is named by its for's line, at -O0 and at -O2
        # (where gcc's rotated loop has its header on the body's first line)
        for ids, want, what in ((inner1, 13, "loop 1"), (outer23, 15, "loop 2"),
                                (inner23, 16, "loop 3"), (inner4, 18, "loop 4")):
            for cid in ids:
                line = t.loc_line(t.ctxs[cid]["loc"])
                check_eq(line, want, "%s: %s context's line" % (opt, what))


def test_threads_have_their_own_roots():
    # threads.c: 4 pthreads run worker(); each must get its own thread root.
    t, _ = traced("threads.c")
    roots = [c for c in t.ctxs if c["kind"] == "thread"]
    check(len(roots) >= 5, "thread roots: %d (%r)" % (len(roots), [c["name"] for c in roots]))
    workers = [c for c in t.contexts_named("worker") if t.ctx_in_file(c["id"], "threads.c")]
    check_eq(sum(c["entries"] for c in workers), 4, "calls of worker")
    wroots = [t.thread_root(c["id"]) for c in workers]
    check_eq(len(set(wroots)), 4, "distinct roots of the worker contexts")
    main_root = {t.thread_root(c["id"]) for c in t.contexts_named("main")}
    check(not (main_root & set(wroots)), "workers not under the main thread's root")
    for c in workers:
        check_eq(c["entries"], 1, "worker entries per thread root")
    check(int(t.meta["threads"]) >= 5, "META threads %r" % t.meta["threads"])


def test_code_without_symbols_takes_its_callers_context():
    # stripped.c with work's symbol and all debug info removed: work calls
    # fill 100 times and reads buf's 4096 bytes after each call. fill's
    # frame is popped when it returns, so work's 409,600 reads belong to
    # main's context (the innermost known function), fill's 409,600
    # writes to fill's; work's superblocks make no call into the tool
    # unless a frame returned or a call is pending.
    binary = compile_program("stripped.c", ("-O1",))
    bare = binary + ".nosym"
    subprocess.run(["objcopy", "--strip-debug", "--strip-symbol=work", binary, bare], check=True)
    path, proc = run_cats(bare, tool_args=("--value-flow=no",))
    check_eq(proc.returncode, 0, "exit status")
    t = Trace(path)
    main = [c for c in t.contexts_named("main") if t.under_main(c["id"]) is not None]
    check_eq(len(main), 1, "main contexts")
    fill = [c for c in t.contexts_named("fill")]
    check_eq(len(fill), 1, "fill contexts")
    check_eq(fill[0]["entries"], 100, "calls of fill")
    check_eq(fill[0]["parent"], main[0]["id"], "fill called from main's context")
    check_eq(t.contexts_named("work"), [], "no context for work")
    buf = t.alloc_by_name("buf")
    reads = t.events_of(buf["id"], "read")
    writes = t.events_of(buf["id"], "write")
    check_eq([(e["ctx"], e["count"]) for e in reads], [(main[0]["id"], 409600)], "work's reads")
    check_eq(len(writes), 1, "fill's write records")
    check_eq(writes[0]["count"], 409600, "fill's writes")
    check_eq(t.kinds_under_main(writes[0]["ctx"]), ["function", "function", "loop"],
             "fill's writes in its loop")
