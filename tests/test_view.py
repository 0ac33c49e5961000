# SPDX-License-Identifier: GPL-2.0-or-later
"""`cats view`: the self-contained HTML viewer (viewer/), opened from
file:// in headless Chromium (Debian's /usr/bin/chromium driven by
playwright-core from tests/node/). The page tells what it drew through
window.catsView.stats(); the tests compare that with numbers known by
construction of tests/programs/view_kernel.c, or computed from the
trace's JSON where the C library and loader add their own records.
Every page load also checks that there were no page errors, no console
errors and no network requests. Screenshots of the tabs are saved in the
test work directory."""
import json
import os
import re
import subprocess

from catslib import (CATS, WORK, browse, cats_cmd, check, check_eq, compile_program, example_trace, run_cats,
                     traced)

HEAP = {"malloc", "calloc", "realloc", "memalign", "new", "new[]", "mmap", "client"}
DATA_RE = re.compile(r'<script id="cats-data" type="application/json">(.*?)</script>', re.S)


def _kernel():
    """The known trace: view_kernel.c at -O0 with a stored projection."""
    return traced("view_kernel.c", ("-O0",), tool_args=("--ranks=2,4",))[0]


def _page(trace_path, name, *args):
    out = os.path.join(WORK, name)
    cats_cmd("view", trace_path, "-o", out, *args)
    return out


def _data_of(html_path):
    with open(html_path, encoding="utf-8") as f:
        text = f.read()
    m = DATA_RE.search(text)
    check(m is not None, "no cats-data element in " + html_path)
    return json.loads(m.group(1)), text


def _ctx(trace, kind, function=None, parent_function=None):
    """The one context of KIND named FUNCTION, or the outermost loop
    directly inside PARENT_FUNCTION."""
    if function is not None:
        found = [c["id"] for c in trace.ctxs if c["kind"] == kind and c["name"] == function]
    else:
        found = [c["id"] for c in trace.ctxs if c["kind"] == kind and c["parent"] is not None
                 and trace.ctxs[c["parent"]]["kind"] == "function"
                 and trace.ctxs[c["parent"]]["name"] == parent_function]
    check(len(found) == 1, "one %s %s, found %r" % (kind, function or "in " + parent_function, found))
    return found[0]


def _malloc_of(trace, size):
    found = [a for a in trace.allocs if a["kind"] == "malloc" and a["size"] == size]
    check(len(found) == 1, "one malloc of %d bytes, found %d" % (size, len(found)))
    return found[0]


def test_view_page_holds_the_data():
    # The page is one file: the template with script and style inlined,
    # and the data document; the trace in it is exactly `dump --json`.
    trace = _kernel()
    path = _page(trace.path, "kernel.html")
    data, text = _data_of(path)
    check(text.startswith("<!DOCTYPE html>"), "an HTML document")
    check(not re.search(r"<script[^>]*\ssrc=|<link\b|<img\b|<iframe\b|@import|url\((?!#)", text),
          "nothing loaded from elsewhere")
    check_eq(data["cats_view"], 1, "document version")
    check(data["trace"] == trace.j, "the trace is what `cats dump --json` writes")
    # The producer loop's values are read by the consumer's inner loop:
    # 512 elements of a, 8 bytes each.
    prod = _ctx(trace, "loop", parent_function="produce")
    cons_outer = _ctx(trace, "loop", parent_function="consume")
    cons_inner = [c["id"] for c in trace.ctxs if c["parent"] == cons_outer and c["kind"] == "loop"]
    check_eq(len(cons_inner), 1, "one inner loop in consume")
    got = [(d["to"], d["uses"], d["bytes"]) for d in data["dependencies"] if d["from"] == prod]
    check_eq(got, [(cons_inner[0], 512, 4096)], "dependencies of the producer loop")
    pairs = [(d["from"], d["to"]) for d in data["dependencies"]]
    check_eq(pairs, sorted(set(pairs)), "one entry per context pair, sorted")
    check(all(d["bytes"] >= d["uses"] > 0 for d in data["dependencies"]), "uses and bytes counted")
    # The projection is the stored one, as `cats project --stored` writes it.
    stored = os.path.join(WORK, "kernel-stored.json")
    cats_cmd("project", trace.path, "--stored", "--json", stored)
    with open(stored) as f:
        check_eq(data["projection"], json.load(f), "the stored projection")
    check_eq(data["singletons"], None, "no singleton list without --project")
    check_eq(sorted(data["singleton_counts"]), ["allreduce", "broadcast", "reduce", "replicated"],
             "singleton counts per kind")
    # -o - writes the same page to stdout.
    proc = subprocess.run([CATS, "view", trace.path, "-o", "-"], capture_output=True)
    check_eq(proc.returncode, 0, "exit status of -o -")
    with open(path, "rb") as f:
        check(proc.stdout == f.read(), "the page on stdout is the file's")


def test_view_draws_the_four_views():
    trace = _kernel()
    path = _page(trace.path, "kernel-browser.html")
    url = "file://" + path
    j = trace.j
    tmp = _malloc_of(trace, 64)                 # allocated T = 5 times in a loop
    a, m = _malloc_of(trace, 8000), _malloc_of(trace, 4096)
    x = trace.alloc_by_name("x")
    prod = _ctx(trace, "loop", parent_function="produce")
    consume = _ctx(trace, "function", "consume")
    shots = {k: os.path.join(WORK, "view-%s.png" % k) for k in ("timeline", "access", "flow", "comm")}
    steps = [
        {"frame": True},
        {"eval": "[catsView.stats().timeline, catsView.timeline.blocks()]"},    # 0: default
        {"screenshot": shots["timeline"], "fullPage": True},
        {"click": "#tl-system"},
        {"click": "#tl-reset"},
        {"frame": True},
        {"eval": "catsView.stats().timeline"},                                     # 1
        {"eval": "catsView.timeline.setView(%d, %d), catsView.stats().timeline"
                 % (tmp["first_alloc"] - 2, tmp["last_free"] + 2)},              # 2
        {"mouse": "down", "x": 700, "y": 300},
        {"mouse": "up", "x": 500, "y": 300},
        {"frame": True},
        {"eval": "catsView.stats().timeline.view"},                              # 3
        {"wheel": {"x": 700, "y": 300, "deltaY": 300}},
        {"frame": True},
        {"eval": "catsView.stats().timeline.view"},                              # 4
        {"click": "#tl-reset"},
        {"click": "#tl-hidefn"},
        {"frame": True},
        {"eval": "catsView.stats().timeline"},                                    # 5
        {"select": "#tl-scale", "value": "linear"},
        {"frame": True},
        {"eval": "catsView.stats().timeline.scale"},                              # 6
        {"click": "button[data-tab=access]"},
        {"eval": "catsView.stats().access"},                                      # 7
        {"eval": "[%s].map(n => catsView.access.row(n))"
                 % ", ".join(json.dumps(v["name"]) for v in (a, m, tmp, x))},      # 8
        {"click": "#ac-tree th[data-col='2']"},
        {"eval": "document.querySelector('#ac-tree tbody tr.node td.name').title"},  # 9
        {"click": "#ac-tree th[data-col='3']"},
        {"eval": "catsView.access.expand(%s), document.querySelector('#ac-tree tbody').innerText"
                 % json.dumps(x["name"])},                                        # 10
        {"screenshot": shots["access"]},
        {"select": "#ac-group", "value": "flow"},
        {"eval": "catsView.access.row('thread 1')"},                              # 11
        {"click": "button[data-tab=flow]"},
        {"click": ".fnode[data-ctx='%d'] > .fhead" % prod},
        {"eval": "[catsView.flow.edges(), catsView.flow.stats()]"},               # 12
        {"screenshot": shots["flow"]},
        {"dblclick": ".fnode[data-ctx='%d'] > .fhead .flabel" % consume},
        {"click": ".fnode[data-ctx='%d'] > .fhead" % prod},
        {"eval": "[catsView.flow.edges(), catsView.flow.stats()]"},               # 13
        {"eval": "document.querySelector('.fnode[data-ctx=\"%d\"] > .fhead').title" % prod},  # 14
        {"click": "button[data-tab=comm]"},
        {"eval": "catsView.stats().comm"},                                        # 15
        {"screenshot": shots["comm"], "fullPage": True},
        {"select": "#cm-scale", "value": "median"},
        {"eval": "catsView.stats().comm.matrices"},                               # 16
        {"select": "#cm-scale", "value": "histogram"},
        {"select": "#cm-palette", "value": "cividis"},
        {"eval": "catsView.stats().comm.matrices"},                               # 17
    ]
    r = browse(steps, url=url)
    for k, p in shots.items():
        check(os.path.getsize(p) > 0, "screenshot " + p)
        print("    screenshot of the %s view: %s" % (k, p))

    # 1. Memory timeline. By default the program's own work, from main:
    # its heap blocks and globals (view_kernel.c's a, m, tmp, flags,
    # rowptr, col, x, y, u, v) and its own data sections, none of libc's
    # or ld.so's, in bytes; a and m (8000 and 4096 bytes) labelled.
    default, drawn = r[0]
    names = {d["name"] for d in drawn}
    mine = {"main (view_kernel.c:68)", "main (view_kernel.c:69)", "main (view_kernel.c:77)",
            "main (view_kernel.c:83)", "rowptr", "col", "x", "y", "u", "v"}
    check(mine <= names, "the program's containers in the default timeline: missing %r"
          % sorted(mine - names))
    check(all(n in mine or n.startswith("view_kernel.O0:") for n in names),
          "other containers in the default timeline: %r" % sorted(names - mine))
    check_eq(default["scale"], "linear", "bytes by default")
    main = [c for c in j["contexts"] if c["name"] == "main" and c["kind"] == "function"][0]
    check_eq(default["view"], [main["first_time"], main["last_time"] + 1], "the default view is main's run")
    check({"main (view_kernel.c:68)", "main (view_kernel.c:69)"} <= set(default["labels"]),
          "labels: %r" % default["labels"])
    # With the system's objects and the whole run: every heap, global and
    # stack-array container is a block, every scope a bar.
    tl = r[1]
    want_blocks = sum(1 for c in j["allocs"] if c["kind"] in HEAP or c["kind"] in ("global", "stack-var"))
    check_eq(tl["blocks"], want_blocks, "allocation blocks drawn")
    check(_malloc_of(trace, 100)["conditional"], "the malloc under the if is conditional")
    check_eq(tl["stripedBlocks"], sum(1 for c in j["allocs"] if c["conditional"] and
                                      (c["kind"] in HEAP or c["kind"] in ("global", "stack-var"))),
             "conditional blocks drawn striped")
    kinds = [c["kind"] for c in j["contexts"]]
    check_eq((tl["icicleBars"], tl["loopBars"], tl["conditionalBars"], tl["functionBars"]),
             (len(kinds), kinds.count("loop"), kinds.count("conditional"), kinds.count("function")),
             "icicle bars: all, loops, conditionals, functions")
    check(tl["accessLines"] > 0 and tl["writeLines"] > 0 and tl["readLines"] > 0,
          "access lines, solid and dashed: %r" % tl)
    check_eq((tl["peakShown"], tl["peakFootprint"], tl["peakTime"]),
             (True, int(j["meta"]["peak_footprint"]), int(j["meta"]["peak_time"])), "peak marked")
    check_eq(tl["scale"], "log", "automatic log heights (4 B to 152 KiB containers)")
    # Zoomed onto the loop that allocates tmp: its 5 instances appear.
    check_eq(r[2]["instances"], 5, "instances of the malloc in a loop")
    # Dragging left moves the view later; the wheel zooms out around the mouse.
    v0, v1 = r[2]["view"]
    d0, d1 = r[3]
    check(d0 > v0 and abs((d1 - d0) - (v1 - v0)) < 1e-6, "drag pans: %r -> %r" % ((v0, v1), (d0, d1)))
    w0, w1 = r[4]
    check(w1 - w0 > d1 - d0, "wheel down zooms out: %r -> %r" % ((d0, d1), (w0, w1)))
    # Without function scopes: no function bars, and a row per loop or
    # conditional nesting level (the thread root is the top row).
    nofn = r[5]
    rows = 0
    for c in j["contexts"]:
        if c["kind"] == "function":
            continue
        depth, p = 0, c["parent"]
        while p is not None:
            depth += j["contexts"][p]["kind"] != "function"
            p = j["contexts"][p]["parent"]
        rows = max(rows, depth + 1)
    check_eq((nofn["functionBars"], nofn["loopBars"], nofn["icicleRows"]),
             (0, kinds.count("loop"), rows), "icicle without function scopes")
    check_eq(r[6], "linear", "height scale switched")

    # 2. Data-access statistics: the histogram of the whole trace, and the
    # containers' rows known by construction: [constant, stride-1,
    # stride-k, indirect, total].
    acc = r[7]
    want = {p: sum(e["count"] for e in j["events"] if e["pattern"] == p)
            for p in ("constant", "stride-1", "stride-k", "irregular")}
    check_eq(acc["histogram"], want, "histogram of accesses by class")
    check_eq(acc["records"], {p: sum(1 for e in j["events"] if e["pattern"] == p) for p in want},
             "histogram of records by class")
    check_eq(r[8], [[0, 1512, 0, 0, 1512],       # a: 1000 writes, 512 reads
                    [0, 512, 512, 0, 1024],      # m: written by rows, read by columns
                    [5, 40, 0, 0, 45],           # tmp: 5 x 8 writes, tmp[3] read 5 times
                    [0, 48, 0, 7, 55]],          # x: 8 + 40 stride-1, 7 gathered
             "rows of a, m, tmp and x")
    check_eq(r[9], m["name"], "sorted by stride-k, m comes first")
    xe = [e for e in j["events"] if e["alloc"] == x["id"] and e["pattern"] == "irregular"]
    if any(e.get("index_container") is not None for e in xe):
        # the trace knows where the indices come from: col
        check("indices from col (7)" in r[10], "index container of x shown:\n" + r[10][:2000])
        check("index from col" in r[10], "index container on the record:\n" + r[10][:2000])
    check(re.search(r"read indirect, 8 B \u00d7 7", r[10]) is not None, "x's gather record listed:\n" + r[10][:2000])
    check_eq(r[11], [want["constant"], want["stride-1"], want["stride-k"],
                     want["irregular"], sum(want.values())], "the thread root holds every access")

    # 3. Control-flow dependencies: the producer loop's values are read by
    # the consumer's inner loop; with consume collapsed, by consume.
    cons_outer = _ctx(trace, "loop", parent_function="consume")
    inner = [c["id"] for c in j["contexts"] if c["parent"] == cons_outer and c["kind"] == "loop"][0]
    edges, st = r[12]
    check_eq([(e["dir"], e["from"], e["to"], e["uses"], e["bytes"]) for e in edges],
             [("out", prod, inner, 512, 4096)], "edges of the producer loop")
    check_eq((st["selected"], st["edges"]), (prod, 1), "one edge drawn for the selection")
    edges, st2 = r[13]
    check_eq([(e["dir"], e["from"], e["to"], e["uses"], e["bytes"]) for e in edges],
             [("out", prod, consume, 512, 4096)], "edges rolled up to the collapsed consume")
    check(st2["nodes"] < st["nodes"], "collapsing removed boxes")
    check_eq(r[14].split("\n")[1:], ["deepest loop nest: 1", "loops: 1", "stride-k accesses: 0",
                                     "indirect accesses: 0", "footprint: 0 B in 0 allocations"],
             "summary of the producer loop")

    # 4. Communication: one heat map per rank count, cells N x N, scaled
    # around the mean, the median or by histogram buckets.
    comm = r[15]
    proj = cats_cmd("project", trace.path, "--stored", "--json", os.path.join(WORK, "kernel-p.json"))
    with open(os.path.join(WORK, "kernel-p.json")) as f:
        results = json.load(f)["results"]

    def observed(res):
        it = res["iterations"] or 1
        n = res["ranks"]
        return sorted(res["matrix"][i][k] / it for i in range(n) for k in range(n) if i != k and res["matrix"][i][k])

    check_eq([(c["ranks"], c["cells"], c["nonzero"], c["scale"]) for c in comm["matrices"]],
             [(res["ranks"], res["ranks"] ** 2, len(observed(res)), "mean") for res in results],
             "heat maps: ranks, cells, non-zero cells")
    check(all(len(observed(res)) > 0 for res in results), "the stencil exchanges values: %r" % proj.stdout)
    for c, res in zip(comm["matrices"], results):
        obs = observed(res)
        check(abs(c["center"] - sum(obs) / len(obs)) < 1e-9, "mean centre for %d ranks" % res["ranks"])
    for c, res in zip(r[16], results):
        obs = observed(res)
        med = obs[len(obs) // 2] if len(obs) % 2 else (obs[len(obs) // 2 - 1] + obs[len(obs) // 2]) / 2
        check_eq((c["scale"], c["center"]), ("median", med), "median centre for %d ranks" % res["ranks"])
    for c, res in zip(r[17], results):
        check_eq((c["scale"], c["buckets"]), ("histogram", len(set(observed(res)))),
                 "histogram buckets for %d ranks" % res["ranks"])
    check_eq(comm["chartPoints"], 2 * len(results), "volume chart: p2p and collective per rank count")


def test_view_hostile_names():
    # Names holding "</script>", "<!--<script>" and markup stay data: the
    # page loads without running them and shows them as text.
    trace, _ = traced("view_hostile.c")
    path = _page(trace.path, "hostile.html")
    evil = "</script><script>window.pwned=1</script><!--<script>"
    evil_region = "</SCRIPT ><img src=x onerror=\"window.pwned=2\">"
    check_eq(sorted(a["name"] for a in trace.allocs if a["name"] == evil), [evil], "the block is named")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    check_eq(text.count("</script>"), 2, "only the page's own two script elements end")
    check_eq(text.lower().count("<!--"), 1, "only the template's comment")
    data, _ = _data_of(path)
    check(data["trace"] == trace.j, "the names survive the escaping")
    r = browse([
        {"eval": "[typeof window.pwned, document.images.length, document.scripts.length]"},
        {"eval": "catsView.data.trace.allocs.some(a => a.name === %s)" % json.dumps(evil)},
        {"click": "button[data-tab=access]"},
        {"eval": "catsView.access.row(%s)" % json.dumps(evil)},
        {"click": "button[data-tab=flow]"},
        {"eval": "Array.from(document.querySelectorAll('.flabel')).some(e => e.textContent === %s)"
                 % json.dumps("region " + evil_region)},
        {"eval": "[typeof window.pwned, document.images.length]"},
    ], url="file://" + path)
    check_eq(r[0], ["undefined", 0, 2], "nothing ran, nothing was added")
    check(r[1], "the block's name is in the data")
    check_eq(r[2], [1, 64, 0, 0, 65], "the block's row (64 writes, p[7] read), named as in the trace")
    check(r[3], "the region shown as text in the control-flow view")
    check_eq(r[4], ["undefined", 0], "still nothing ran")


def test_view_without_and_with_projection():
    # A trace without a projection says how to get one; --project adds the
    # list of singletons (one per counted singleton group).
    trace, _ = traced("view_hostile.c")
    path = _page(trace.path, "noproj.html")
    data, _ = _data_of(path)
    check_eq((data["projection"], data["singletons"], data["singleton_counts"]), (None, None, None),
             "no projection stored")
    r = browse([{"click": "button[data-tab=comm]"},
                {"eval": "[catsView.stats().comm, document.getElementById('cm-body').innerText]"}],
               url="file://" + path)
    check_eq(r[0][0]["projection"], False, "no projection")
    check("--ranks=" in r[0][1] and "no communication projection" in r[0][1], "how to get one:\n" + r[0][1])

    # By default the projection is per step of the stencil's time loop,
    # which has no singletons; the whole run (--per=run) has colsum's sum
    # and spmv's row sums.
    stored = os.path.join(WORK, "kernel-stored.json")
    cats_cmd("project", _kernel().path, "--stored", "--json", stored)
    with open(stored) as f:
        region = json.load(f)["region"]
    check(region == "loop view_kernel.c:58", "the stored projection is per step of the time loop: %r" % region)
    kernel = traced("view_kernel.c", ("-O0",), tool_args=("--ranks=2,4", "--per=run"))[0]
    path = _page(kernel.path, "project.html", "--project")
    data, _ = _data_of(path)
    check(data["singletons"] is not None and len(data["singletons"]) == sum(data["singleton_counts"].values()),
          "one listed singleton per group counted: %r" % data["singleton_counts"])
    check(len(data["singletons"]) > 0, "the kernel has singletons (the reductions)")
    check_eq([r["ranks"] for r in data["projection"]["results"]], [2, 4], "the stored rank counts")
    r = browse([{"click": "button[data-tab=comm]"}, {"eval": "catsView.stats().comm.singletonRows"}],
               url="file://" + path)
    check_eq(r[0], len(data["singletons"]), "a table row per singleton")
    data8, _ = _data_of(_page(kernel.path, "project8.html", "--ranks=8"))
    check_eq([r["ranks"] for r in data8["projection"]["results"]], [8], "--ranks recomputes")


def test_view_keeps_the_busiest_records():
    # --max-records=N keeps the N access records with the most accesses
    # (ties: the earlier), in trace order, says so in the document and on
    # the page, and the default (20000) keeps all of a small trace.
    trace = _kernel()
    events = trace.j["events"]
    full, _ = _data_of(_page(trace.path, "all.html"))
    check_eq(full["trace"]["events"], events, "a small trace: every record")
    total = sum(e["count"] for e in events)
    check_eq(full["records"], {"shown": len(events), "total": len(events), "accesses_shown": total,
                               "accesses_total": total}, "records of the full page")
    n = 5
    ranked = sorted(range(len(events)), key=lambda i: (-events[i]["count"], i))[:n]
    want = [events[i] for i in sorted(ranked)]
    path = _page(trace.path, "top.html", "--max-records=%d" % n)
    data, _ = _data_of(path)
    check_eq(data["trace"]["events"], want, "the five busiest records, in trace order")
    check_eq(data["records"], {"shown": n, "total": len(events),
                               "accesses_shown": sum(e["count"] for e in want), "accesses_total": total},
             "records of the cut page")
    check_eq({k: v for k, v in data["trace"].items() if k != "events"},
             {k: v for k, v in trace.j.items() if k != "events"}, "the rest of the trace is whole")
    r = browse([{"eval": "document.getElementById('records-note').textContent"}], url="file://" + path)
    check("Showing the 5 access records with the most accesses, of {:,}".format(len(events)) in r[0],
          "the page says it: %r" % r[0])
    for bad in ("--max-records=-1", "--max-records=x", "--max-records=99999999999"):
        proc = subprocess.run([CATS, "view", trace.path, "-o", os.path.join(WORK, "bad.html"), bad],
                              capture_output=True, text=True)
        check_eq(proc.returncode, 2, "%s is a usage error" % bad)
        check(proc.stderr.count("\n") == 1 and "--max-records" in proc.stderr, "one line: " + proc.stderr)


def test_view_bad_input():
    # One line on stderr, a non-zero exit and no file left behind.
    trace = _kernel()
    d = os.path.join(WORK, "view-bad")
    os.makedirs(d, exist_ok=True)
    with open(trace.path, "rb") as f:
        raw = bytearray(f.read())
    corrupt = os.path.join(d, "corrupt.cats")
    bad = bytearray(raw)
    bad[len(bad) // 2] ^= 0xFF
    with open(corrupt, "wb") as f:
        f.write(bad)
    truncated = os.path.join(d, "truncated.cats")
    with open(truncated, "wb") as f:
        f.write(raw[:len(raw) // 3])
    afile = os.path.join(d, "a-file")
    with open(afile, "w") as f:
        f.write("x")
    out = os.path.join(d, "out.html")
    cases = [
        ((os.path.join(d, "missing.cats"), "-o", out), 1),
        ((corrupt, "-o", out), 1),
        ((truncated, "-o", out), 1),
        ((trace.path, "-o", os.path.join(d, "no-such-dir", "out.html")), 1),
        ((trace.path, "-o", os.path.join(afile, "out.html")), 1),
        ((trace.path, "--ranks=0", "-o", out), 2),
        ((trace.path, "--bogus", "-o", out), 2),
        (("-o", out), 2),
    ]
    for args, rc in cases:
        proc = cats_cmd("view", *args, check_rc=False)
        check_eq(proc.returncode, rc, "exit status of cats view %s" % " ".join(args))
        lines = proc.stderr.splitlines()
        check(len(lines) == 1 and lines[0].startswith("cats: "), "one error line for %r: %r" % (args, proc.stderr))
        check_eq(proc.stdout, "", "nothing on stdout for %r" % (args,))
    check_eq(sorted(os.listdir(d)), ["a-file", "corrupt.cats", "truncated.cats"], "no file left behind")
    # A trace without a value communication graph cannot be projected.
    binary = compile_program("view_hostile.c")
    novf, _ = run_cats(binary, tool_args=("--value-flow=no",), out=os.path.join(d, "novf.cats"), expect_rc=0)
    proc = cats_cmd("view", novf, "--project", "-o", out, check_rc=False)
    check_eq(proc.returncode, 1, "--project without a graph")
    check(len(proc.stderr.splitlines()) == 1 and "value communication graph" in proc.stderr, proc.stderr)
    check(not os.path.exists(out), "no page written")
    data, _ = _data_of(_page(novf, "novf.html"))
    check_eq(data["dependencies"], None, "no dependencies without a graph")


def test_view_of_the_bundled_example_shows_its_arrays():
    # examples/heat.c as the README runs it: without any option changed the
    # timeline shows the program's work from main, its two 128 KiB grids
    # (temperature, temperature_next) labelled in bytes, and the 2 KiB
    # buffer boundary_flux allocates each step; nothing of libc's or
    # ld.so's (their tables were most of the plot, on a log scale).
    trace = example_trace(("--value-flow=no",))
    path = _page(trace, "heat-example.html")
    shot = os.path.join(WORK, "heat-timeline.png")
    r = browse([{"frame": True}, {"eval": "[catsView.stats().timeline, catsView.timeline.blocks()]"},
                {"eval": "document.getElementById('tl-legend').textContent"},
                {"screenshot": shot}], url="file://" + path)
    stats, drawn = r[0]
    names = {d["name"] for d in drawn}
    check({"temperature", "temperature_next", "boundary_flux (heat.c:17)"} <= names,
          "the example's arrays: %r" % sorted(names))
    check(not any(n.startswith(("libc.so", "ld-linux", "ld.so", "_rtld", "_IO_", "_dl_")) for n in names),
          "system containers in the default timeline: %r" % sorted(names))
    check({"temperature", "temperature_next"} <= set(stats["labels"]), "labels: %r" % stats["labels"])
    check_eq(stats["scale"], "linear", "heights in bytes")
    # Reuse as a user acts on it: the share of the program's accesses an
    # LRU cache of 32 KiB, 1 MiB and 32 MiB would hit (first accesses
    # miss), from the trace's per-container histograms of distances in
    # 64-byte lines (bucket b: 2^(b-1) .. 2^b - 1; bucket 0: 0).
    data = _data_of(path)[0]
    j, ours = data["trace"], set(data["program"]["containers"])
    buckets, cold = [0] * 64, 0
    for i, a in enumerate(j["allocs"]):
        if i in ours and a.get("reuse"):
            for b, v in enumerate(a["reuse"]["buckets"]):
                buckets[b] += v
            cold += a["reuse"]["cold"]
    total = sum(buckets) + cold
    want = []
    for name, size in (("L1 32 KiB", 32 << 10), ("L2 1 MiB", 1 << 20), ("32 MiB", 32 << 20)):
        hit = sum(v for b, v in enumerate(buckets) if b == 0 or 2 ** b - 1 < size // 64)
        want.append("%s %d%%" % (name, round(100 * hit / total)))
    check(" \u00b7 ".join(want) in r[1], "the legend's cache shares, want %r: %r" % (want, r[1]))
    print("    screenshot of the example's timeline: %s" % shot)
