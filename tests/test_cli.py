# SPDX-License-Identifier: GPL-2.0-or-later
"""The cats command: export for the C.A.T.S. viewer and stat."""
import json
import os
import re

from catslib import WORK, cats_cmd, check, check_eq, traced

# Fields the viewer (spcl/cats-viz, src/access_timeline_view.ts) reads.
COMMON = {"type", "funcname", "filename", "line", "col"}
FIELDS = {
    "allocation": COMMON | {"buffer_name", "buffer_id", "size"},
    "deallocation": COMMON | {"buffer_id"},
    "access": COMMON | {"mode", "buffer_id", "offset", "bytes"},
    "scope_entry": COMMON | {"id", "scope_type"},
    "scope_exit": COMMON | {"id"},
}


def _export(t):
    out = os.path.join(WORK, "malloc_loop.viz.json")
    cats_cmd("export", "--cats-viz", t.path, "-o", out)
    with open(out) as f:
        return json.load(f)


def _last_offset(e):
    if e["pattern"] == "constant":
        return e["base"]
    if e["pattern"] == "irregular":
        return e["distinct"][-1] if e["distinct"] else e["max_offset"]
    for s in e["strides"]:
        if s:
            return e["min_offset"] if s < 0 else e["max_offset"]
    return e["max_offset"]


def test_export_cats_viz():
    t, _ = traced("malloc_loop.c")
    j = _export(t)
    check_eq(sorted(j), ["events"], "top-level keys")
    ev = j["events"]
    check(isinstance(ev, list) and ev, "events is a non-empty list")
    for e in ev:
        check(e.get("type") in FIELDS, "event type %r" % e.get("type"))
        missing = FIELDS[e["type"]] - set(e)
        check(not missing, "%s event lacks %r: %r" % (e["type"], sorted(missing), e))
        check(isinstance(e["line"], int) and isinstance(e["col"], int), "line/col are numbers: %r" % e)
    types = {e["type"] for e in ev}
    check_eq(types, set(FIELDS), "event types present")
    for e in ev:
        if e["type"] == "access":
            check(e["mode"] in ("r", "w"), "access mode %r" % e["mode"])
        if e["type"] == "scope_entry":
            check(e["scope_type"] in ("func", "loop", "conditional", "parallel"), "scope_type %r" % e["scope_type"])

    # One event per record end, as cli_export.c documents.
    n = {k: sum(1 for e in ev if e["type"] == k) for k in FIELDS}
    check_eq(n["allocation"], len(t.allocs), "allocation events (one per record)")
    scopes = [c for c in t.ctxs if c["kind"] != "thread"]
    check_eq(n["scope_entry"], len(scopes), "scope_entry events (one per non-thread context)")
    check_eq(n["scope_exit"], len(scopes), "scope_exit events")
    check_eq(n["access"], sum(2 if r["count"] > 1 else 1 for r in t.events), "access events (first and last)")

    # Sorted by logical time: give every event the time of the record end
    # it stands for and require a non-decreasing sequence.
    by_alloc = {}
    for r in t.events:
        by_alloc.setdefault(r["alloc"], []).append(r)
    prev = -1
    for i, e in enumerate(ev):
        if e["type"] == "allocation":
            times = [t.allocs[e["buffer_id"]]["first_alloc"]]
        elif e["type"] == "deallocation":
            times = [t.allocs[e["buffer_id"]]["last_free"]]
        elif e["type"] == "scope_entry":
            times = [t.ctxs[e["id"]]["first_time"]]
        elif e["type"] == "scope_exit":
            times = [t.ctxs[e["id"]]["last_time"]]
        else:
            times = []
            for r in by_alloc.get(e["buffer_id"], []):
                if (("w" if r["kind"] == "write" else "r") == e["mode"] and r["size"] == e["bytes"]
                        and t.loc_line(r["loc"]) == e["line"]):
                    if r["base"] == e["offset"]:
                        times.append(r["first_time"])
                    if r["count"] > 1 and _last_offset(r) == e["offset"]:
                        times.append(r["last_time"])
        later = [x for x in times if x >= prev]
        check(later, "event %d (%r) at times %r, before the previous event's time %d" % (i, e, times, prev))
        prev = min(later)

    # The malloc in the loop: allocated inside the loop scope, first write at
    # offset 0, last at 72 (p[9]), released, then the loop and main end.
    p = t.alloc_by_name("main (malloc_loop.c:9)")
    loop_id = p["alloc_ctx"]
    main_id = t.ctxs[loop_id]["parent"]
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
    order = [("scope_entry", "main"), ("scope_entry", "loop"), "allocation", ("write", 0), ("write", 72),
             "deallocation", ("scope_exit", "loop"), ("scope_exit", "main")]
    for k in order:
        check(k in pos, "missing %r in the export" % (k,))
    check_eq(sorted(order, key=lambda k: pos[k]), order, "order of the malloc_loop events")
    check_eq(ev[pos[("scope_entry", "loop")]]["scope_type"], "loop", "loop scope type")
    check_eq(ev[pos[("scope_entry", "main")]]["scope_type"], "func", "main scope type")
    check_eq(ev[pos["allocation"]]["size"], 80, "allocation size")


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
