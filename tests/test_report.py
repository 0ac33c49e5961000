# SPDX-License-Identifier: GPL-2.0-or-later
"""`cats report FILE`: each analysis on a trace whose answer follows from
the program's construction (tests/programs/report_*.c), the JSON against
the text, --top, and bad input."""
import json
import math
import os
import re
import subprocess

from catslib import CATS, WORK, cats_cmd, check, check_eq, traced
import tracefile

ALL = "1000000"   # --top that lists everything


def _report(name, flags=("-O0",), opts=(), tool_args=()):
    """(report JSON, report text, Trace) of tests/programs/NAME."""
    t, _ = traced(name, flags, tool_args=tool_args)
    tag = "-".join(o.strip("-").replace("=", "") for o in tuple(flags) + tuple(opts) + tuple(tool_args))
    out = os.path.join(WORK, "%s.%s.report.json" % (name, tag))
    text = cats_cmd("report", t.path, "--json", out, *opts).stdout
    with open(out) as f:
        return json.load(f), text, t


def _at(site, file, line):
    """SITE ("path/file.c:12") is FILE:LINE."""
    return site is not None and os.path.basename(site) == "%s:%d" % (file, line)


def _line(site):
    return int(site.rsplit(":", 1)[1])


def _in(site, file):
    return site is not None and os.path.basename(site).startswith(file + ":")


def _usage(t, alloc_id):
    """First and last access time of a container, from the dump."""
    ev = t.events_of(alloc_id)
    return min(e["first_time"] for e in ev), max(e["last_time"] for e in ev)


def _section(text, number):
    """The lines of text section NUMBER ("3. ..." up to the next one)."""
    m = re.search(r"^%d\. .*?(?=^\d\. |\Z)" % number, text, re.M | re.S)
    check(m is not None, "section %d in the text:\n%s" % (number, text[:3000]))
    return m.group(0)


def test_report_peak_footprint():
    # report_peak.c: a (1 MiB, line 10) and b (512 KiB, line 18) are live
    # together; the peak is b's allocation. The four p blocks (line 13) are
    # all allocated before it and all released after it: exactly 4 live.
    # The q blocks (line 15, one per iteration, b made in the second)
    # straddle it: 0 or 1 live as far as the folded record tells. c (line
    # 25) comes after b is released.
    j, text, t = _report("report_peak.c", opts=("--top=" + ALL,))
    a = t.alloc_by_name("main (report_peak.c:10)")
    b = t.alloc_by_name("main (report_peak.c:18)")
    p = j["peak"]
    check_eq(p["time"], int(t.meta["peak_time"]), "peak time vs META")
    check_eq(p["time"], b["first_alloc"], "the peak is b's allocation")
    check_eq(p["bytes"], int(t.meta["peak_footprint"]), "peak bytes vs META")
    live = {e["name"]: e for e in p["live"]}
    check_eq(len(p["live"]), p["total"], "every live record listed with --top=%s" % ALL)
    check_eq([(e["name"], e["bytes_min"], e["exact"]) for e in p["live"][:2]],
             [("main (report_peak.c:10)", 1 << 20, True), ("main (report_peak.c:18)", 1 << 19, True)],
             "the two largest contributors")
    pk = live.get("main (report_peak.c:13)")
    check(pk is not None, "the p blocks are live at the peak")
    check_eq((pk["count"], pk["live_min"], pk["live_max"], pk["bytes_min"], pk["exact"]),
             (4, 4, 4, 4000, True), "p blocks (count, live min, max, bytes, exact)")
    q = live.get("main (report_peak.c:15)")
    check(q is not None, "the q record is listed")
    check_eq((q["count"], q["live_min"], q["live_max"], q["bytes_max"], q["exact"]),
             (3, 0, 1, 100, False), "q record (count, live min, max, bytes max, exact)")
    check("main (report_peak.c:25)" not in live, "c, allocated after the peak, is not live at it")
    check_eq(p["upper_bytes"] - p["exact_bytes"], 100, "only the q record is uncertain")
    check_eq(p["exact_bytes"], sum(e["bytes_min"] for e in p["live"]), "exact bytes are the sum")
    check(p["exact_bytes"] >= (1 << 20) + (1 << 19) + 4000, "exact bytes hold a, b and p")
    check(p["exact_bytes"] <= p["bytes"], "exact bytes %d above the peak %d" % (p["exact_bytes"], p["bytes"]))
    sec = _section(text, 1)
    check("1. peak footprint: %d bytes at time %d" % (p["bytes"], p["time"]) in sec, "text headline:\n" + sec)
    check(re.search(r"^\s+1\.\s+1048576 B\s+malloc\s+live\s+\"main \(report_peak\.c:10\)\"$", sec, re.M),
          "text top contributor:\n" + sec)
    check(re.search(r"0-100 B\s+malloc\s+0-1 of 3 live\s+\"main \(report_peak\.c:15\)\"", sec),
          "text shows the q record as a range:\n" + sec)


def test_report_peak_lists_the_program_first():
    # report_peak.c at its peak: its own blocks are listed; libc's and
    # ld.so's tables live then are one line (records, bytes), and --all
    # lists them among the others, as before. The bytes add up either way.
    j, text, t = _report("report_peak.c", opts=("--top=" + ALL,))
    a, _, _ = _report("report_peak.c", opts=("--top=" + ALL, "--all"))
    p, pa = j["peak"], a["peak"]
    mine = {e["alloc"] for e in p["live"]}
    system = [e for e in pa["live"] if e["alloc"] not in mine]
    check(any(e["name"].startswith(("libc.so", "ld-linux", "_rtld")) for e in system),
          "libc's records live at the peak under --all: %r" % sorted(e["name"] for e in system))
    check(not any(e["name"].startswith(("libc.so", "ld-linux", "_rtld")) for e in p["live"]),
          "libc's records among the program's: %r" % [e["name"] for e in p["live"]])
    check_eq((p["system_records"], pa["system_records"]), (len(system), 0), "system records counted")
    check_eq(p["total"] + p["system_records"], pa["total"], "records live, split")
    check_eq(p["upper_bytes"] + p["system_bytes"], pa["upper_bytes"], "bytes live, split")
    check(re.search(r"^   and up to %d bytes in %d records of libc, ld.so and other system code"
                    % (p["system_bytes"], p["system_records"]), _section(text, 1), re.M),
          "the system's line:\n" + _section(text, 1))


def test_report_allocations_in_loops():
    # report_loops.c: malloc(48) in a 4 x 25 nest (line 12; the inner loop,
    # line 11, runs 100 iterations in all); malloc(100) on the even
    # iterations of a 10-iteration loop (line 19 in the if of line 18;
    # loop at line 17); malloc(1000) outside any loop (line 24).
    j, text, t = _report("report_loops.c", opts=("--top=" + ALL,))
    mine = [e for e in j["allocations_in_loops"]["entries"] if _in(e["site"], "report_loops.c")]
    got = [(_line(e["site"]), e["count"], e["size"], e["total_bytes"], _line(e["loop_site"]),
            e["iterations"], e["bytes_per_iteration"]) for e in mine]
    check_eq(got, [(12, 100, 48, 4800, 11, 100, 48.0), (19, 5, 100, 500, 17, 10, 50.0)],
             "allocations in loops (line, count, size, bytes, loop line, iterations, bytes/iteration)")
    loop = t.ctxs[mine[0]["loop"]]
    check_eq((loop["kind"], t.loc_line(loop["loc"])), ("loop", 11), "the innermost loop's context")
    sec = _section(text, 2)
    check(re.search(r"100 x malloc\s+4800 B in all, 48\.0 B per iteration of loop \S*report_loops\.c:11 "
                    r"\(100 iterations\)\s+\"main \(report_loops\.c:12\)\"", sec), "text line:\n" + sec)
    check("report_loops.c:24" not in sec, "the allocation outside loops is not listed:\n" + sec)


def test_report_short_lifetime():
    # report_short.c: t (line 12) is allocated first and released last but
    # used only by the 64-iteration loop at the start; work (line 13) by
    # 21 x 1000 iterations from just after its allocation to its release.
    j, text, t = _report("report_short.c", opts=("--top=" + ALL,))
    a = t.alloc_by_name("main (report_short.c:12)")
    w = t.alloc_by_name("main (report_short.c:13)")
    got = {e["name"]: e for e in j["short_lifetimes"]["entries"]}
    check(w["name"] not in got, "work is used most of its life, not listed")
    e = got.get(a["name"])
    check(e is not None, "t is listed: %r" % sorted(got))
    us, ue = _usage(t, a["id"])
    check_eq((e["alloc_start"], e["alloc_end"], e["use_start"], e["use_end"]),
             (a["first_alloc"], a["last_free"], us, ue), "t's lifetimes (allocation, usage)")
    check_eq((e["alloc_lifetime"], e["use_lifetime"]), (a["last_free"] - a["first_alloc"], ue - us),
             "lifetime lengths")
    ratio = (ue - us) / (a["last_free"] - a["first_alloc"])
    check(math.isclose(e["ratio"], ratio, rel_tol=1e-12), "ratio %r, want %r" % (e["ratio"], ratio))
    check(e["ratio"] < 0.01, "64 of more than 21,000 iterations: ratio %r" % e["ratio"])
    check_eq(e["idle"], 512 * ((a["last_free"] - a["first_alloc"]) - (ue - us)), "idle byte-time")
    sec = _section(text, 3)
    want = "\"main (report_short.c:12)\" 512 B: allocated %d..%d (%d), used %d..%d (%d): %.2f%%" % (
        a["first_alloc"], a["last_free"], a["last_free"] - a["first_alloc"], us, ue, ue - us, 100 * ratio)
    check(want in sec, "text line %r in:\n%s" % (want, sec))
    # A threshold below t's ratio leaves it out.
    j2, _, _ = _report("report_short.c", opts=("--top=" + ALL, "--short-ratio=%.6f" % (ratio / 2)))
    check(a["name"] not in {x["name"] for x in j2["short_lifetimes"]["entries"]},
          "t not listed with --short-ratio below its ratio")
    check_eq(j2["short_ratio"], float("%.6f" % (ratio / 2)), "short_ratio in the JSON")


def test_report_buffer_sharing():
    # report_share.c: a (line 25) and b (line 26), 4096 bytes each, are
    # allocated together and used one after the other: one buffer saves
    # 4096 bytes. c (27) is used before a and after b; w (28) has another
    # size; d (40) and e (44) are never live together.
    j, text, t = _report("report_share.c", opts=("--top=" + ALL,))
    s = j["sharing"]
    mine = [g for g in s["groups"] if any(_in(m["site"], "report_share.c") for m in g["members"])]
    check_eq([(g["size"], g["saved"], [m["name"] for m in g["members"]]) for g in mine],
             [(4096, 4096, ["main (report_share.c:25)", "main (report_share.c:26)"])],
             "sharing groups (size, saved, members)")
    for m in mine[0]["members"]:
        a = t.alloc_by_name(m["name"])
        check_eq((m["use_start"], m["use_end"]), _usage(t, a["id"]), "usage of %s" % m["name"])
        check_eq((m["alloc_start"], m["alloc_end"]), (a["first_alloc"], a["last_free"]),
                 "allocation lifetime of %s" % m["name"])
    first, second = mine[0]["members"]
    check(first["use_end"] < second["use_start"], "the usage lifetimes are disjoint")
    check(max(first["alloc_start"], second["alloc_start"]) < min(first["alloc_end"], second["alloc_end"]),
          "the allocation lifetimes overlap")
    check_eq((s["total"], s["saved"]), (1, 4096), "groups and bytes saved in all")
    sec = _section(text, 4)
    check("1, saving 4096 bytes in all" in sec and "2 x 4096 B share one buffer, saving 4096 B:" in sec,
          "text:\n" + sec)
    check(re.search(r"\"main \(report_share\.c:25\)\" used %d\.\.%d\n\s+\"main \(report_share\.c:26\)\" used"
                    % (first["use_start"], first["use_end"]), sec), "text members:\n" + sec)


def test_report_stride_k():
    # report_stride.c: the column walk at line 18 moves by a row, 300
    # doubles (2400 bytes), per step of the inner loop (line 17); the row
    # walk at line 14 is contiguous, also when -O2 vectorises and unrolls
    # it into interleaved 16-byte stores.
    for flags in (("-O0",), ("-O2",)):
        j, text, _ = _report("report_stride.c", flags)
        tag = " ".join(flags)
        mine = [e for e in j["access_sites"]["entries"] if _in(e["site"], "report_stride.c")]
        got = [(_line(e["site"]), e["name"], e["kind"], e["pattern"], e["stride"], e["elements"], e["count"])
               for e in mine]
        check_eq(got, [(18, "main (report_stride.c:11)", "read", "stride-k", 2400, 300, 60000)],
                 "stride-k sites %s (line, container, kind, pattern, stride, elements, count)" % tag)
        check(_line(mine[0]["loop_site"]) in (17, 18), "the stride's loop %r %s" % (mine[0]["loop_site"], tag))
        sec = _section(text, 5)
        check(re.search(r"60000 r\s+8 B\s+\S*report_stride\.c:18\s+\"main \(report_stride\.c:11\)\"\s+"
                        r"stride 2400 B \(300 x 8 B\)", sec), "text %s:\n%s" % (tag, sec))


def test_report_indirect():
    # report_csr.c: y[i] += val[k] * x[col[k]] at line 29 reads x (line 13)
    # at col[k], 500 rows x 4 entries; val and col are read contiguously.
    j, text, t = _report("report_csr.c")
    mine = [e for e in j["access_sites"]["entries"] if _in(e["site"], "report_csr.c")]
    got = [(_line(e["site"]), e["name"], e["kind"], e["pattern"], e["stride"], e["count"]) for e in mine]
    check_eq(got, [(29, "main (report_csr.c:13)", "read", "indirect", None, 2000)],
             "indirect sites (line, container, kind, pattern, stride, count)")
    if mine[0]["index"] is not None:   # when the trace records index containers (section 10)
        check_eq(mine[0]["index"]["name"], "main (report_csr.c:11)", "x's index container is col")
    sec = _section(text, 5)
    check(re.search(r"2000 r\s+8 B\s+\S*report_csr\.c:29\s+\"main \(report_csr\.c:13\)\"\s+indirect", sec),
          "text:\n" + sec)


def test_report_dependencies_between_code():
    # report_comm.c: init's loop (line 10; at -O2 its header block is the
    # body, line 11) stores a and b; add's loop (line 18 or 19) reads all
    # 16 of each, 8 bytes apiece, and stores c; main reads c[3]. Those are
    # all the program's rows: nothing before main reads a, b or c. gcc
    # -O2 reads c[3] twice (two ucomisd, one per operand order, for the
    # NaN case of ==).
    for flags in (("-O0",), ("-O2",)):
        c_reads = 1 if flags == ("-O0",) else 2
        j, text, _ = _report("report_comm.c", flags, opts=("--top=" + ALL,))
        tag = " ".join(flags)
        d = j["dependencies"]
        check(d is not None, "the trace has section 11 %s" % tag)
        mine = [e for e in d["entries"] if e["name"] in ("a", "b", "c")]
        got = sorted((e["name"], e["from_function"], e["to_function"], e["bytes"], e["uses"], e["self"],
                      e["records"]) for e in mine)
        check_eq(got, [("a", "init", "add", 128, 16, False, 1),
                       ("b", "init", "add", 128, 16, False, 1),
                       ("c", "add", "main", 8 * c_reads, c_reads, False, 1)],
                 "rows %s (container, from, to, bytes, uses, self, records)" % tag)
        for e in mine:
            lines = {"init": (10, 11), "add": (18, 19), "main": (23,)}
            for end in ("from", "to"):
                check(_in(e[end + "_site"], "report_comm.c")
                      and _line(e[end + "_site"]) in lines[e[end + "_function"]],
                      "%s site %r of %r %s" % (end, e[end + "_site"], e["name"], tag))
            check(e["from"].startswith("loop (") and e["from"].endswith(" in " + e["from_function"]),
                  "the storing node %r %s" % (e["from"], tag))
        sec = _section(text, 6)
        for name in ("a", "b"):
            check(re.search(r"128 B\s+16 uses\s+\"%s\"\s+loop \(\S*report_comm\.c:1[01]\) in init -> "
                            r"loop \(\S*report_comm\.c:1[89]\) in add\n" % name, sec),
                  "text %s:\n%s" % (tag, sec))
        check(re.search(r"%d B\s+%s\s+\"c\"\s+loop \(\S*report_comm\.c:1[89]\) in add -> main\n"
                        % (8 * c_reads, "1 use" if c_reads == 1 else "2 uses"), sec),
              "text %s:\n%s" % (tag, sec))


def test_report_without_vcg():
    j, text, _ = _report("report_comm.c", tool_args=("--value-flow=no",))
    check_eq(j["dependencies"], None, "no dependencies without value flow")
    check("6. dependencies between code: not recorded: the run had --value-flow=no" in text,
          "text note:\n" + text)
    check_eq((j["reuse"]["line_size"], j["reuse"]["sampling"]), (64, 16),
             "reuse distances are recorded without a VCG too")


def test_report_json_matches_text():
    # Every section's count and every listed entry appear in both forms.
    j, text, _ = _report("report_share.c")
    heads = {2: ("allocations_in_loops", r"allocations inside loops: (\d+)"),
             3: ("short_lifetimes", r"short usage lifetimes .*?: (\d+)"),
             4: ("sharing", r"buffer sharing .*?: (\d+), saving"),
             5: ("access_sites", r"access sites: (\d+)"),
             6: ("dependencies", r"dependencies between code .*?: (\d+)")}
    for n, (key, rx) in heads.items():
        sec = _section(text, n)
        m = re.match(r"%d\. .*?" % n + rx, sec)
        check(m is not None, "section %d headline:\n%s" % (n, sec))
        check_eq(int(m.group(1)), j[key]["total"], "section %d count, text vs JSON" % n)
        listed = len(re.findall(r"^\s+\d+\. ", sec, re.M))
        entries = j[key]["groups"] if key == "sharing" else j[key]["entries"]
        check_eq(listed, len(entries), "section %d entries, text vs JSON" % n)
        check(len(entries) <= j["top"], "section %d holds at most --top entries" % n)
    check_eq(len(re.findall(r"^\s+\d+\. ", _section(text, 1), re.M)), len(j["peak"]["live"]), "peak entries")
    # --json - writes the JSON alone to stdout, the same as the file.
    t, _ = traced("report_share.c")
    only = cats_cmd("report", t.path, "--json", "-").stdout
    check_eq(json.loads(only), j, "--json - vs --json FILE")


def test_report_top():
    t, _ = traced("report_peak.c")
    for n in (1, 3):
        p = cats_cmd("report", t.path, "--top=%d" % n, "--json", "-")
        j = json.loads(p.stdout)
        check_eq(j["top"], n, "top in the JSON")
        check_eq(len(j["peak"]["live"]), min(n, j["peak"]["total"]), "peak entries with --top=%d" % n)
        for key in ("allocations_in_loops", "short_lifetimes", "access_sites"):
            check_eq(len(j[key]["entries"]), min(n, j[key]["total"]), "%s entries with --top=%d" % (key, n))
    text = cats_cmd("report", t.path, "--top", "1").stdout
    m = re.search(r"^\s+\((\d+) more; --top=N shows more\)$", _section(text, 1), re.M)
    check(m is not None, "the peak section says how many more:\n" + text[:2000])
    check_eq(int(m.group(1)), json.loads(cats_cmd("report", t.path, "--json", "-").stdout)["peak"]["total"] - 1,
             "how many more")
    everything = json.loads(cats_cmd("report", t.path, "--all", "--json", "-").stdout)
    check_eq(everything["scope"], "all", "scope with --all")
    check(everything["access_sites"]["total"] > 0, "--all also reports the start-up code's sites")


def _fails(args, code, what, names=None):
    p = subprocess.run([CATS, "report"] + list(args), capture_output=True, text=True)
    check(p.returncode >= 0, "%s: killed by signal %d" % (what, -p.returncode))
    check_eq(p.returncode, code, "%s: exit status" % what)
    lines = p.stderr.splitlines()
    check_eq(len(lines), 1, "%s: one line on stderr (%r)" % (what, p.stderr[:500]))
    check(lines[0].startswith("cats: ") and "Traceback" not in p.stderr, "%s: message %r" % (what, lines[0]))
    if names:
        check(names in lines[0], "%s: message names %r: %r" % (what, names, lines[0]))
    check_eq(p.stdout, "", "%s: nothing on stdout" % what)


def test_report_bad_input():
    t, _ = traced("report_peak.c")
    missing = os.path.join(WORK, "no-such-trace.cats")
    _fails([missing], 1, "a missing file", missing)
    with open(t.path, "rb") as f:
        good = f.read()
    corrupt = os.path.join(WORK, "report-corrupt.cats")
    bad = bytearray(good)
    bad[tracefile.table_end(good) + 40] ^= 0xFF   # in the first section's data: CRC or zlib error
    with open(corrupt, "wb") as f:
        f.write(bytes(bad))
    _fails([corrupt], 1, "a corrupt trace", corrupt)
    with open(corrupt, "wb") as f:
        f.write(good[:len(good) // 2])
    _fails([corrupt], 1, "a truncated trace", corrupt)
    _fails(["/bin/ls"], 1, "not a trace", "/bin/ls")
    for top in ("0", "-1", "abc", "10x", "", "1000001", "99999999999999999999999", " 5"):
        _fails([t.path, "--top=" + top], 2, "--top=%r" % top, "--top")
    for ratio in ("0", "-0.5", "1.5", "x", "nan", "inf", ""):
        _fails([t.path, "--short-ratio=" + ratio], 2, "--short-ratio=%r" % ratio, "--short-ratio")
    _fails([t.path, "--frobnicate"], 2, "an unknown option", "--frobnicate")
    _fails([], 2, "no file")
    _fails([t.path, t.path], 2, "two files")
    _fails([t.path, "--top"], 2, "--top without a value", "--top")
    out = os.path.join(WORK, "no-such-dir", "r.json")
    _fails([t.path, "--json", out], 1, "an unwritable --json", "no-such-dir")
    check(not os.path.exists(os.path.dirname(out)), "nothing created for a failed --json")
    p = subprocess.run([CATS, "report", "--help"], capture_output=True, text=True)
    check_eq((p.returncode, p.stdout.startswith("usage: cats report FILE")), (0, True), "--help")


def test_report_scope_takes_other_threads():
    # threads.c: four threads each write their slice of shared (line 12, in
    # worker's loop at line 11): work outside main's subtree, in scope.
    t, _ = traced("threads.c")
    j = json.loads(cats_cmd("report", t.path, "--top=" + ALL, "--json", "-").stdout)
    check_eq(j["scope"], "main", "scope")
    sinks = {e["to_site"] and os.path.basename(e["to_site"]) for e in j["dependencies"]["entries"]}
    check("threads.c:11" in sinks, "the workers' loop is in scope: %r" % sorted(s for s in sinks if s))
    lazy = ("_dl_runtime_resolve", "_dl_fixup", "_dl_lookup_symbol_x", "do_lookup_x")
    check(not [e for e in j["access_sites"]["entries"] if e["function"].startswith(lazy)],
          "no sites of the dynamic linker's lazy binding in scope")
    everything = json.loads(cats_cmd("report", t.path, "--top=" + ALL, "--all", "--json", "-").stdout)
    check([e for e in everything["access_sites"]["entries"] if e["function"].startswith(lazy)],
          "--all takes the lazy binding's sites")


def test_report_reuse_misses_known_sequence():
    # reuse_known.c, exact: ring9 is 9 lines read round-robin, 10 passes:
    # 9 cold, then 81 reads at distance 8. A cache of 8 lines misses them
    # all (8 >= 8), one of 16 lines none of them.
    t, _ = traced("reuse_known.c", ("-O2",), tool_args=("--reuse-sampling=1", "--value-flow=no"))
    for lines, capacity in ((8, 81), (16, 0)):
        out = os.path.join(WORK, "reuse-report-%d.json" % lines)
        cats_cmd("report", t.path, "--cache=%d" % lines, "--top=1000", "--all", "--json", out)
        with open(out) as f:
            rep = json.load(f)["reuse"]
        check_eq((rep["sampling"], rep["cache_lines"]), (1, lines), "header")
        ring = [c for c in rep["containers"] if c["name"] == "ring9"]
        check_eq(len(ring), 1, "ring9 listed")
        check_eq((ring[0]["cold_misses"], ring[0]["capacity_misses"]), (9, capacity),
                 "ring9 misses with %d lines" % lines)
    text = cats_cmd("report", t.path, "--cache=8", "--top=1000", "--all").stdout
    check("ring9" in text and "misses of a 8-line LRU cache" in text, "text section 7")
    p = cats_cmd("report", t.path, "--cache=0", check_rc=False)
    check(p.returncode == 2 and p.stderr.count("\n") == 1, "bad --cache: %r" % p.stderr)
