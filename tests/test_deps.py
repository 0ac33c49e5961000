# SPDX-License-Identifier: GPL-2.0-or-later
"""Dependencies between contexts from the version read (trace section 11,
docs/FORMAT.md): which loop stored the values each loop reads. The
expected bytes follow from tests/programs/dep_steps.c's constants; they
are the same at -O0, -O2 and -O3 (vectorised with AVX2), which load the
same bytes in different widths."""
import json
import os
import re

from catslib import SRC, WORK, browse, cats_cmd, check, check_eq, traced

OPT_LEVELS = [("-O0",), ("-O2",), ("-O3", "-mavx2")]
PROGRAM = "dep_steps.c"
N, S, H = 1000, 5, 2     # as in dep_steps.c
W = 8                    # bytes of a double
DATA = ("a", "b", "u0", "u1")


def _marker_lines():
    """Source line of each loop, by the comment that names it."""
    lines = {}
    with open(os.path.join(SRC, "programs", PROGRAM)) as f:
        for no, text in enumerate(f, 1):
            m = re.search(r"for \(.*/\* (.+) \*/", text)
            if m:
                lines[m.group(1)] = no
    check_eq(sorted(lines), ["L1", "L2", "halo copy", "init", "stencil init", "sweep"],
             "the loops of " + PROGRAM)
    return lines


def _loop_at(trace, function, line):
    found = [c["id"] for c in trace.ctxs if c["kind"] == "loop" and c["loc"] is not None
             and trace.locs[c["loc"]]["line"] == line and trace.under_main(c["id"]) is not None
             and ("function", function) in [(k, n) for k, n, _ in trace.under_main(c["id"])]]
    check(len(found) <= 1, "at most one loop at %s:%d, found %r" % (function, line, found))
    return found[0] if found else None


def _contexts(trace):
    """Name -> context id of each loop, and main. gcc -O2 unrolls the
    halo copy's two iterations into the time-step loop around it, whose
    context then holds the copies."""
    lines = _marker_lines()
    ctx = {}
    for name in ("init", "L1", "L2"):
        ctx[name] = _loop_at(trace, "two_loops", lines[name])
    for name in ("stencil init", "halo copy", "sweep"):
        ctx[name] = _loop_at(trace, "halo", lines[name])
    if ctx["halo copy"] is None:
        step = trace.ctxs[ctx["sweep"]]["parent"]
        while step is not None and trace.ctxs[step]["kind"] != "loop":
            step = trace.ctxs[step]["parent"]
        check(step is not None, "the sweep's step loop")
        ctx["halo copy"] = step
    mains = [c["id"] for c in trace.ctxs if c["kind"] == "function" and c["name"] == "main"]
    check_eq(len(mains), 1, "one main")
    ctx["main"] = mains[0]
    check(all(v is not None for v in ctx.values()), "every loop found: %r" % ctx)
    return ctx


def _expected():
    """(from, to, container) -> bytes. The sweep reads 5 cells per output
    cell, of which 6 a step are ghosts (u[0] and u[N+3] once, u[1] and
    u[N+2] twice); the halo copy reads 2H interior cells a step. Steps
    alternate u0 and u1 as u: steps 0, 2, 4 read u0, steps 1, 3 u1. main
    prints a[N/2], u0[N/2] and u1[N/2]."""
    ghosts, interior = 6, 5 * N - 6
    even, odd = (S + 1) // 2, S // 2
    return {
        ("init", "L1", "a"): N * W,
        ("L2", "L1", "a"): (S - 1) * N * W,
        ("L1", "L2", "b"): S * N * W,
        ("L2", "main", "a"): W,
        ("stencil init", "halo copy", "u0"): 2 * H * W,
        ("sweep", "halo copy", "u0"): (even - 1) * 2 * H * W,
        ("sweep", "halo copy", "u1"): odd * 2 * H * W,
        ("stencil init", "sweep", "u0"): interior * W,
        ("halo copy", "sweep", "u0"): even * ghosts * W,
        ("halo copy", "sweep", "u1"): odd * ghosts * W,
        ("sweep", "sweep", "u0"): (even - 1) * interior * W,
        ("sweep", "sweep", "u1"): odd * interior * W,
        ("sweep", "main", "u0"): W,
        ("sweep", "main", "u1"): W,
    }


def _program_deps(trace, ctx):
    """Records that read the program's arrays, by context name; a context
    that is not one of ctx (start-up code, the C library) is kept by its
    id, so that any such edge makes the comparison fail."""
    name_of = {v: k for k, v in ctx.items()}
    got = {}
    for d in trace.j["dependencies"]:
        a = trace.allocs[d["alloc"]]
        if a.get("name") not in DATA:
            continue
        key = (name_of.get(d["from"], d["from"]), name_of.get(d["to"], d["to"]), a["name"])
        check(key not in got, "one record per key: %r" % (key,))
        # one use per double read, whatever width the loads had
        check_eq(d["uses"] * W, d["bytes"], "uses and bytes of %r" % (key,))
        got[key] = d["bytes"]
    return got


def test_dependencies_follow_the_version_read():
    want = _expected()
    for flags in OPT_LEVELS:
        trace, _ = traced(PROGRAM, flags, tool_args=("--value-flow=yes",))
        ctx = _contexts(trace)
        check_eq(_program_deps(trace, ctx), want,
                 "bytes read per (stored in, read in, array) %s" % " ".join(flags))
        check_eq(trace.meta["dep_records"], str(len(trace.j["dependencies"])),
                 "META dep_records")


def test_report_ranks_dependencies_by_code():
    # `cats report` section 6 merges section 11 by (storing loop's line,
    # reading loop's line, container): here one context per loop, so its
    # rows for the arrays are _expected()'s, the sweep's reads of its own
    # previous steps marked "self".
    want = _expected()
    for flags in (("-O0",), ("-O3", "-mavx2")):
        tag = " ".join(flags)
        trace, _ = traced(PROGRAM, flags, tool_args=("--value-flow=yes",))
        ctx = _contexts(trace)
        line = {n: trace.locs[trace.ctxs[c]["loc"]]["line"] for n, c in ctx.items()}
        proc = cats_cmd("report", trace.path, "--top=1000000", "--json", "-")
        rows = json.loads(proc.stdout)["dependencies"]["entries"]
        got = {}
        for r in rows:
            if r["name"] in DATA:
                got[(int(r["from_site"].rsplit(":", 1)[1]), int(r["to_site"].rsplit(":", 1)[1]), r["name"])] = \
                    (r["bytes"], r["self"])
        check_eq(got, {(line[f], line[t], a): (b, f == t) for (f, t, a), b in want.items()},
                 "report rows (stored at line, read at line, array) -> (bytes, self) %s" % tag)
        text = cats_cmd("report", trace.path, "--top=1000000").stdout
        sweep = (want[("sweep", "sweep", "u0")], line["sweep"])
        check(re.search(r"%d B .*\"u0\"\s+loop \(\S*dep_steps\.c:%d\) in halo -> itself" % sweep, text),
              "the sweep's row in the text %s:\n%s" % (tag, text))


def test_view_shows_the_self_dependency_of_the_sweep():
    # The page sums records over containers, stack frames left out (a
    # loop reading its own counter at -O0): the sweep's self-dependency
    # is its reads of u0 and u1 made by its previous steps.
    trace, _ = traced(PROGRAM, ("-O0",), tool_args=("--value-flow=yes",))
    ctx = _contexts(trace)
    page = os.path.join(WORK, "deps.html")
    cats_cmd("view", trace.path, "-o", page)
    with open(page, encoding="utf-8") as f:
        text = f.read()
    m = re.search(r'<script id="cats-data" type="application/json">(.*?)</script>', text, re.S)
    check(m is not None, "the page's data")
    data = json.loads(m.group(1))
    pairs = {(d["from"], d["to"]): d["bytes"] for d in data["dependencies"]}
    want = _expected()

    def pair_bytes(a, b):
        return sum(v for (f, t, _), v in want.items() if (f, t) == (a, b))

    for a, b in (("sweep", "sweep"), ("halo copy", "sweep"), ("sweep", "halo copy"), ("L2", "L1")):
        check_eq(pairs.get((ctx[a], ctx[b])), pair_bytes(a, b), "bytes of %s -> %s on the page" % (a, b))

    # In Chromium: the sweep's box shows its self-dependency (drawn as a
    # loop on its head, listed in the side panel) and the halo copy's
    # edges both ways; the halo copy shows the sweep's.
    sweep, halo = ctx["sweep"], ctx["halo copy"]
    shot = os.path.join(WORK, "deps-flow.png")
    r = browse([
        {"click": "button[data-tab=flow]"},
        {"eval": "catsView.flow.select(%d)" % sweep},                                     # 0
        {"eval": "document.querySelectorAll('#fl-graph svg path[data-from=\"%d\"][data-to=\"%d\"]').length"
                 % (sweep, sweep)},                                                        # 1
        {"eval": "document.querySelector('#fl-side .self-dep').textContent"},              # 2
        {"screenshot": shot},
        {"eval": "catsView.flow.select(%d)" % halo},                                      # 3
    ], url="file://" + page)
    edges = {(e["dir"], e["from"], e["to"]): e["bytes"] for e in r[0]}
    check_eq(edges.get(("self", sweep, sweep)), pair_bytes("sweep", "sweep"), "the sweep's self-dependency")
    check_eq(edges.get(("in", halo, sweep)), pair_bytes("halo copy", "sweep"), "the sweep reads the halo copy")
    check_eq(edges.get(("out", sweep, halo)), pair_bytes("sweep", "halo copy"), "the halo copy reads the sweep")
    check_eq(r[1], 1, "the self-dependency is drawn")
    check("reads its own values" in r[2], "the side panel names it: %r" % r[2])
    edges = {(e["dir"], e["from"], e["to"]): e["bytes"] for e in r[3]}
    check_eq(edges.get(("in", sweep, halo)), pair_bytes("sweep", "halo copy"), "the halo copy reads the sweep")
    check_eq(edges.get(("in", ctx["stencil init"], halo)), pair_bytes("stencil init", "halo copy"),
             "the halo copy reads the initialisation in the first step")
    print("    screenshot of the dependency view: %s" % shot)


def test_no_dependencies_without_value_flow():
    trace, _ = traced(PROGRAM, ("-O0",), tool_args=("--value-flow=no",))
    check(trace.j["dependencies"] is None, "no section 11 without value flow")
    check("dep_records" not in trace.meta, "no META dep_records")
