# SPDX-License-Identifier: GPL-2.0-or-later
"""Checks of a trace's parts that no CRC covers, made by re-assembling a
real trace's container with one part changed: every command refuses a
damaged section table or PROJECT section with one clean line, a
conforming minimal record is accepted, and strings from a file never
break an error message across lines or reach the terminal as escapes."""
import json
import os
import struct
import subprocess

import tracefile
from catslib import CATS, WORK, check, check_eq, traced

ALL_READERS = (("stat",), ("dump",), ("dump", "--json"), ("export", "--cats-viz"),
               ("vcg",), ("project", "--ranks=2"), ("report",))


def _write(name, data):
    path = os.path.join(WORK, name)
    with open(path, "wb") as f:
        f.write(data)
    return path


def _run(cmd, path):
    args = list(cmd)
    out = []
    if cmd[0] == "export":
        out = ["-o", os.path.join(WORK, "export.json")]
    return subprocess.run([CATS] + args + [path] + out, capture_output=True, text=True, timeout=120)


def _rejected_by_all(path, what, needle):
    for cmd in ALL_READERS:
        p = _run(cmd, path)
        label = "cats %s on %s" % (" ".join(cmd), what)
        check_eq(p.returncode, 1, "%s: exit (stderr %r)" % (label, p.stderr[:300]))
        lines = p.stderr.splitlines()
        check_eq(len(lines), 1, "%s: one line, got %r" % (label, p.stderr[:400]))
        check(needle in lines[0], "%s: %r names %r" % (label, lines[0], needle))


def _projected():
    t, _ = traced("vf_stencil.c", tool_args=("--ranks=2,4",))
    with open(t.path, "rb") as f:
        return f.read()


def test_unknown_section_type_is_refused_by_every_command():
    secs = tracefile.sections(_projected())
    for victim in (7, 8):   # the optional VCG and PROJECT, which a reader used to skip
        changed = [[77 if ty == victim else ty, raw] for ty, raw in secs]
        path = _write("unknown-type.cats", tracefile.container(changed))
        _rejected_by_all(path, "section %d's type changed to 77" % victim, "unknown type 77")


def test_damaged_project_section_is_refused_by_every_command():
    secs = tracefile.sections(_projected())
    check(8 in [ty for ty, _ in secs], "the trace has a PROJECT section")
    changed = []
    for ty, raw in secs:
        if ty == 8:
            raw = raw[:4] + struct.pack("<I", 0x7FFFFFFF) + raw[8:]   # nresults
        changed.append([ty, raw])
    path = _write("project-count.cats", tracefile.container(changed))
    _rejected_by_all(path, "a PROJECT count of 0x7fffffff", "PROJECT")


def test_damaged_deps_section_is_refused_by_every_command():
    # Section 11 (DEPS): 32-byte records (from, to, alloc, 0, uses, bytes)
    # sorted by key; META dep_records counts them.
    secs = tracefile.sections(_projected())
    deps = [raw for ty, raw in secs if ty == 11]
    check_eq(len(deps), 1, "the value-flow trace has a DEPS section")
    raw = deps[0]
    n = struct.unpack_from("<I", raw, 0)[0]
    check(n >= 2, "at least two records")
    rec = [list(struct.unpack_from("<IIIIQQ", raw, 4 + 32 * i)) for i in range(n)]

    def with_records(recs, count=None):
        body = struct.pack("<I", len(recs) if count is None else count)
        body += b"".join(struct.pack("<IIIIQQ", *r) for r in recs)
        return tracefile.container([[ty, body if ty == 11 else r] for ty, r in secs])

    cases = [
        ("a context out of range", [[0xFFFF] + rec[0][1:]] + rec[1:], None, "DEPS: record 0: context"),
        ("an allocation out of range", [rec[0][:2] + [0xFFFFFF] + rec[0][3:]] + rec[1:], None,
         "DEPS: record 0: allocation"),
        ("a reserved field set", [rec[0][:3] + [1] + rec[0][4:]] + rec[1:], None, "reserved"),
        ("no uses", [rec[0][:4] + [0, 8]] + rec[1:], None, "DEPS: record 0: 0 uses"),
        ("fewer bytes than uses", [rec[0][:4] + [9, 8]] + rec[1:], None, "DEPS: record 0: 9 uses"),
        ("records out of order", [rec[1], rec[0]] + rec[2:], None, "not after the previous one"),
        ("a count of 0x7fffffff", rec, 0x7FFFFFFF, "DEPS: 2147483647 records"),
        ("one record fewer than META says", rec[1:], None, "but META dep_records"),
    ]
    for what, recs, count, needle in cases:
        _rejected_by_all(_write("deps.cats", with_records(recs, count)), "DEPS with " + what, needle)
    # META says the section was written: a trace without it is refused.
    missing = tracefile.container([[ty, r] for ty, r in secs if ty != 11])
    _rejected_by_all(_write("deps-missing.cats", missing), "a trace without its DEPS",
                     "META dep_records is set but section 11 (DEPS) is missing")


def test_minimal_event_records_are_accepted():
    # docs/FORMAT.md's EVENTS record with every field in one byte: 16 bytes
    # without a histogram bucket, 17 with one.
    t, _ = traced("vf_stencil.c", tool_args=("--reuse-distance=no", "--value-flow=no"))
    with open(t.path, "rb") as f:
        secs = [[ty, raw] for ty, raw in tracefile.sections(f.read()) if ty <= 6]
    # Without the INDEX section, META must not announce its pairs.
    strs = tracefile.strings(secs[0][1])
    meta = [s for s in secs if s[0] == 2][0]
    n = struct.unpack_from("<I", meta[1], 0)[0]
    pairs = [struct.unpack_from("<II", meta[1], 4 + 8 * i) for i in range(n)]
    pairs = [(k, v) for k, v in pairs if strs[k] != b"index_pairs"]
    meta[1] = struct.pack("<I", len(pairs)) + b"".join(struct.pack("<II", k, v) for k, v in pairs)
    for mask, hist, size in ((0, b"", 16), (1, b"\x01", 17)):
        rec = (b"\x00\x00\x00" + b"\x01\x01\x00\x00" + b"\x08\x00\x01\x05\x00"
               + b"\x00" + b"\x00\x00" + tracefile.put_uvar(mask) + hist)
        check_eq(len(rec), size, "record size")
        changed = [[ty, struct.pack("<I", 1) + rec if ty == 6 else raw] for ty, raw in secs]
        path = _write("minimal-event.cats", tracefile.container(changed))
        p = _run(("dump", "--json"), path)
        check_eq(p.returncode, 0, "a %d-byte record: %s" % (size, p.stderr))
        ev = json.loads(p.stdout)["events"]
        check_eq([(e["count"], e["size"], e["kind"], e["pattern"]) for e in ev],
                 [(1, 8, "write", "stride-1")], "the record")


def test_strings_from_the_file_stay_on_one_inert_line():
    # META's index_pairs value, quoted when it disagrees with the INDEX
    # section, made a newline and terminal escapes (ESC and the C1 CSI).
    secs = tracefile.sections(_projected())
    by = {ty: raw for ty, raw in secs}
    strs = tracefile.strings(by[1])
    meta = by[2]
    n = struct.unpack_from("<I", meta, 0)[0]
    pairs = [struct.unpack_from("<II", meta, 4 + 8 * i) for i in range(n)]
    value = [v for k, v in pairs if strs[k] == b"index_pairs"]
    check_eq(len(value), 1, "META index_pairs")
    strs[value[0]] = b"5\n\x1b[31mred\x1b[0m\xc2\x9b2J"
    changed = [[ty, tracefile.pack_strings(strs) if ty == 1 else raw] for ty, raw in secs]
    path = _write("evil-meta.cats", tracefile.container(changed))
    for cmd in ALL_READERS:
        p = _run(cmd, path)
        label = "cats %s" % " ".join(cmd)
        check_eq(p.returncode, 1, "%s: exit (%r)" % (label, p.stderr[:300]))
        check_eq(len(p.stderr.splitlines()), 1, "%s: one line, got %r" % (label, p.stderr))
        check("index_pairs" in p.stderr, "%s: the message names the field: %r" % (label, p.stderr))
        check("\x1b" not in p.stderr and "\x9b" not in p.stderr,
              "%s: an escape reached the terminal: %r" % (label, p.stderr))


def test_file_names_stay_on_one_inert_line():
    path = os.path.join(WORK, "evil\n\x1b[31m.cats")
    with open(path, "wb") as f:
        f.write(b"not a trace at all")
    for cmd in ALL_READERS:
        p = _run(cmd, path)
        check_eq(p.returncode, 1, "cats %s: exit" % cmd[0])
        check_eq(len(p.stderr.splitlines()), 1, "cats %s: one line, got %r" % (cmd[0], p.stderr))
        check("\x1b" not in p.stderr, "cats %s: an escape reached the terminal: %r" % (cmd[0], p.stderr))


def test_compare_refuses_what_the_json_format_does_not_allow():
    t = _projected_trace()
    proj = os.path.join(WORK, "cmp-proj.json")
    p = subprocess.run([CATS, "project", t, "--ranks=2", "--json", proj], capture_output=True, text=True)
    check_eq(p.returncode, 0, "project --json: " + p.stderr)
    with open(proj) as f:
        doc = json.load(f)
    good = dict(doc, kind="measured", results=[r for r in doc["results"] if r["ranks"] == 2])
    bad = []
    r0 = good["results"][0]
    bad.append(("p2p_bytes a string", dict(good, results=[dict(r0, p2p_bytes="x")]), "p2p_bytes"))
    bad.append(("p2p_bytes not the sum", dict(good, results=[dict(r0, p2p_bytes=r0["p2p_bytes"] + 1)]),
                "p2p_bytes"))
    bad.append(("an unknown collective", dict(good, results=[dict(r0, collectives={"allsum": {"calls": 1, "bytes": 8}},
                                                                 collective_bytes=8)]), "allsum"))
    diag = [row[:] for row in r0["matrix"]]
    diag[0][0] = 64
    bad.append(("a non-zero diagonal", dict(good, results=[dict(r0, matrix=diag,
                                                               p2p_bytes=r0["p2p_bytes"] + 64)]), "itself"))
    bad.append(("two measured results", dict(good, results=[r0, dict(r0, ranks=2)]), "one result"))
    bad.append(("an unknown kind", dict(good, kind="guessed"), "kind"))
    meas = os.path.join(WORK, "cmp-meas.json")
    with open(meas, "w") as f:
        json.dump(good, f)
    p = subprocess.run([CATS, "compare", proj, meas], capture_output=True, text=True)
    check_eq(p.returncode, 0, "compare on a conforming measured file: " + p.stderr)
    for what, doc_bad, needle in bad:
        with open(meas, "w") as f:
            json.dump(doc_bad, f)
        p = subprocess.run([CATS, "compare", proj, meas], capture_output=True, text=True)
        check_eq(p.returncode, 1, "compare with %s: exit (stdout %r)" % (what, p.stdout[:200]))
        check_eq(len(p.stderr.splitlines()), 1, "compare with %s: one line %r" % (what, p.stderr))
        check(needle in p.stderr, "compare with %s: %r names %r" % (what, p.stderr, needle))


def _projected_trace():
    t, _ = traced("vf_stencil.c", tool_args=("--ranks=2,4",))
    return t.path
