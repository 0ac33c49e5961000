# SPDX-License-Identifier: GPL-2.0-or-later
"""Scopes beyond plain calls: signal handlers, inlined frames, conditional
scopes, tail calls."""
from catslib import check, check_eq, traced


def test_signal_handler_runs_under_a_signal_frame():
    # signal_handler.c: raise(SIGUSR1) three times from main's loop; the
    # handler adds to hits[0..3] (line 11): 4 reads and 4 writes per call.
    t, _ = traced("signal_handler.c")
    hits = t.alloc_by_name("main (signal_handler.c:16)")
    w = t.events_where(11, "signal_handler.c", "write", hits["id"])
    check_eq(sum(e["count"] for e in w), 12, "handler writes")
    for e in w:
        kinds = [(k, n) for k, n, _ in t.path_of(e["ctx"])]
        names = [n for k, n in kinds]
        check("signal 10" in names, "a signal frame on the handler's stack: %r" % kinds)
        i = names.index("signal 10")
        check_eq(kinds[i + 1], ("function", "on_usr1"), "the handler right under the signal frame")
        check(("function", "main") in kinds[:i], "main below the signal frame")
    # after each handler returned, main's loop goes on in main's context
    after = t.events_where(20, "signal_handler.c", "write", hits["id"])
    check_eq(sum(e["count"] for e in after), 3, "writes after the signal")
    for e in after:
        check_eq(t.kinds_path(e["ctx"], "signal_handler.c"), [("function", "main"), ("loop", 18)],
                 "context after the handler")


def test_inlined_frame_names_the_call_site():
    # inlined.c at -O2: scale() is inlined into main; the access at line 8
    # carries an inline parent location at main's call site (line 17).
    t, _ = traced("inlined.c", flags=("-O2",))
    v = t.alloc_by_name("main (inlined.c:14)")
    ev = [e for e in t.events_of(v["id"]) if t.loc_line(e["loc"]) == 8]
    check(ev, "accesses at line 8")
    for e in ev:
        loc = t.locs[e["loc"]]
        check_eq(loc["function"], "scale", "innermost function of the access")
        parent = loc["inline_parent"]
        check(parent is not None, "an inlined frame")
        check_eq((t.locs[parent]["function"], t.locs[parent]["line"]), ("main", 17), "inline call site")
    check_eq(sum(e["count"] for e in ev if e["kind"] == "write") * ev[0]["size"], 256 * 8,
             "bytes written by scale")


def test_conditional_scope_inside_loop():
    # conditional.c: in the second loop, pos[i] (line 21) is written only
    # when flag[i] is set and neg[i] (line 24) otherwise; both are under a
    # conditional scope inside that loop, and together they cover N = 1000.
    t, _ = traced("conditional.c")
    pos = t.writer_of(21, "conditional.c")
    neg = t.writer_of(24, "conditional.c")
    wp = t.events_where(21, "conditional.c", "write", pos["id"])
    wn = t.events_where(24, "conditional.c", "write", neg["id"])
    check_eq(sum(e["count"] for e in wp) + sum(e["count"] for e in wn), 1000, "guarded writes")
    for e in wp + wn:
        kinds = [k for k, _ in t.kinds_path(e["ctx"], "conditional.c")]
        check_eq(kinds[:2], ["function", "loop"], "under main's loop")
        check("conditional" in kinds[2:], "a conditional scope inside the loop: %r" % kinds)
    # the flag test (line 20) runs every iteration, outside the scope
    flag = t.writer_of(20, "conditional.c", kind="read")
    reads = t.events_where(20, "conditional.c", "read", flag["id"])
    check_eq(sum(e["count"] for e in reads), 1000, "flag reads")
    for e in reads:
        check("conditional" not in [k for k, _ in t.kinds_path(e["ctx"], "conditional.c")],
              "the branch condition is not inside its own scope")


def test_tail_call_replaces_the_frame():
    # tailcall.c at -O2: middle() jumps to leaf(); leaf's write (line 9) is
    # under main's loop, directly or through middle, never under a stale
    # frame, and counts 8 writes.
    t, _ = traced("tailcall.c", flags=("-O2",))
    data = t.alloc_by_name("main (tailcall.c:21)")
    w = t.events_where(9, "tailcall.c", "write", data["id"])
    check_eq(sum(e["count"] for e in w), 8, "leaf writes")
    for e in w:
        p = t.kinds_path(e["ctx"], "tailcall.c")
        check_eq(p[0], ("function", "main"), "under main")
        check_eq(p[-1], ("function", "leaf"), "innermost function")
        check(all(k in ("function", "loop") for k, _ in p), "only functions and loops: %r" % p)
        check(len([x for x in p if x == ("function", "leaf")]) == 1, "leaf once: %r" % p)


def test_rep_string_instruction_is_a_loop():
    # repstring.c: `rep stosb` over 1000 bytes (line 10) is one loop scope
    # of 1000 iterations with one stride-1 write record of 1000 bytes.
    t, _ = traced("repstring.c")
    buf = t.alloc_by_name("main (repstring.c:7)")
    w = t.events_where(10, "repstring.c", "write", buf["id"])
    check_eq([(e["count"], e["size"], e["pattern"], e["strides"][:1]) for e in w],
             [(1000, 1, "stride-1", [1])], "writes of rep stosb")
    loops = [c for c in t.ctxs if c["kind"] == "loop" and c["loc"] is not None
             and t.loc_file(c["loc"]) == "repstring.c" and t.loc_line(c["loc"]) == 10]
    check_eq([(c["entries"], c["iterations"]) for c in loops], [(1, 1000)], "the rep loop")
    check_eq(w[0]["ctx"], loops[0]["id"], "the writes are in the rep loop")
