# SPDX-License-Identifier: GPL-2.0-or-later
"""The host programs under AddressSanitizer and UndefinedBehaviorSanitizer:
a second tree configured with --enable-sanitizers (every report fatal)
builds the helper, the CLI and the unit tests; the unit tests run in it,
and so does every CLI command on a corpus of damaged traces made here from
real ones (truncated files; per section, absurd counts, flipped bytes and
cut payloads under a valid CRC, which reach the decoders). Any sanitizer
report, crash or hang fails the test; a damaged trace may only be refused
with exit 1 or read (exit 0)."""
import concurrent.futures
import os
import random
import struct
import subprocess

import tracefile
from catslib import BUILD, SRC, WORK, TestFailure, check, check_eq, traced

TOP = os.path.abspath(os.path.join(SRC, ".."))
SAN = os.path.join(WORK, "sanitize")
ENV = dict(os.environ,
           ASAN_OPTIONS="abort_on_error=0:halt_on_error=1:exitcode=99:detect_leaks=1",
           UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:exitcode=99")
COMMANDS = (("stat",), ("stat", "--all"), ("dump",), ("dump", "--json"), ("export", "--cats-viz"),
            ("export", "--cats-viz", "--page=stats"), ("export", "--cats-viz", "--page=control-flow"),
            ("export", "--cats-viz", "--whole-run"), ("vcg",), ("vcg", "--edges", "--vertices", "--contexts"),
            ("project", "--ranks=2,4"), ("project",), ("report",), ("view",))


def _build():
    if os.path.exists(os.path.join(SAN, "bin", "cats")):
        return
    os.makedirs(SAN, exist_ok=True)
    for cmd in ([os.path.join(TOP, "configure"), "-q", "--enable-sanitizers", "CFLAGS=-O1 -g"],
                ["make", "-s", "-j%d" % (os.cpu_count() or 2), "host"]):
        p = subprocess.run(cmd, cwd=SAN, capture_output=True, text=True)
        if p.returncode != 0:
            raise TestFailure("%s: %s" % (" ".join(cmd[:2]), (p.stdout + p.stderr)[-1500:]))


def _sanitizer_report(text):
    return any(s in text for s in ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer",
                                   "runtime error:", "SUMMARY: UndefinedBehaviorSanitizer"))


def test_unit_tests_under_sanitizers():
    _build()
    p = subprocess.run(["sh", os.path.join(SRC, "unit", "run.sh"), SAN],
                       capture_output=True, text=True, env=ENV)
    check(not _sanitizer_report(p.stderr), "a sanitizer report:\n" + p.stderr[-3000:])
    fails = [l for l in p.stdout.splitlines() if l.startswith("FAIL")]
    oks = [l for l in p.stdout.splitlines() if l.startswith("ok")]
    check_eq((p.returncode, fails), (0, []), "unit tests under sanitizers (%d ok): %s"
             % (len(oks), p.stderr[-1500:]))
    check(len(oks) >= 40, "only %d unit checks ran" % len(oks))


def _corpus(data, rng):
    """(name, bytes) of damaged versions of the trace DATA."""
    out = []
    for cut in sorted(rng.sample(range(1, len(data)), 12)):
        out.append(("cut%d" % cut, data[:cut]))
    secs = tracefile.sections(data)
    for i, (ty, raw) in enumerate(secs):
        def with_raw(new, i=i, ty=ty):
            return tracefile.container([(t, new if j == i else r) for j, (t, r) in enumerate(secs)])
        for v in (0, 1, 0x7FFFFFFF, 0xFFFFFFFF):
            if len(raw) >= 4:
                out.append(("s%d-count%x" % (ty, v), with_raw(struct.pack("<I", v) + raw[4:])))
        for k in range(6):
            if raw:
                b = bytearray(raw)
                pos = rng.randrange(len(b))
                b[pos] ^= rng.choice((0x01, 0x80, 0xFF))
                out.append(("s%d-flip%d" % (ty, pos), with_raw(bytes(b))))
        if len(raw) > 8:
            out.append(("s%d-half" % ty, with_raw(raw[:len(raw) // 2])))
            out.append(("s%d-less1" % ty, with_raw(raw[:-1])))
            out.append(("s%d-more" % ty, with_raw(raw + b"\x01\x02\x03")))
    return out


def _run_one(args):
    cmd, path = args
    cats = os.path.join(SAN, "bin", "cats")
    argv = [cats] + list(cmd) + [path]
    if cmd[0] in ("export", "view"):
        argv += ["-o", "%s.out%d" % (path, COMMANDS.index(cmd))]   # one file per command
    try:
        p = subprocess.run(argv, capture_output=True, text=True, errors="replace", env=ENV,
                           timeout=120)
    except subprocess.TimeoutExpired:
        return "%s: hangs" % " ".join(argv)
    if _sanitizer_report(p.stderr) or p.returncode not in (0, 1):
        return "%s: exit %d\n%s" % (" ".join(argv), p.returncode, p.stderr[-2500:])
    if p.returncode == 1 and len(p.stderr.splitlines()) != 1:
        return "%s: refused without one line: %r" % (" ".join(argv), p.stderr[:500])
    return None


def test_every_command_on_damaged_traces_under_sanitizers():
    _build()
    rng = random.Random(20261126)
    files = []
    for prog, tool_args in (("vf_stencil.c", ("--ranks=2,4",)), ("report_csr.c", ())):
        t, _ = traced(prog, tool_args=tool_args)
        with open(t.path, "rb") as f:
            data = f.read()
        for name, damaged in _corpus(data, rng):
            path = os.path.join(WORK, "damaged-%s-%s.cats" % (prog[:-2], name))
            with open(path, "wb") as f:
                f.write(damaged)
            files.append(path)
    check(len(files) >= 200, "corpus of %d files" % len(files))
    jobs = [(cmd, path) for path in files for cmd in COMMANDS]
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as ex:
        bad = [r for r in ex.map(_run_one, jobs) if r]
    if bad:
        raise TestFailure("%d of %d runs failed; the first:\n%s" % (len(bad), len(jobs), bad[0]))


def test_report_on_extreme_strides_under_sanitizers():
    # Two stride-k records of one loop, container and kind whose stride is
    # INT64_MIN and whose bases are negative: `cats report` works out
    # whether they cover a stride period between them (cli_report_access.c)
    # and must not overflow a signed add doing so.
    _build()
    t, _ = traced("report_stride.c", tool_args=("--reuse-distance=no", "--value-flow=no"))
    with open(t.path, "rb") as f:
        secs = tracefile.sections(f.read())
    raw = dict(secs)[6]
    evs = tracefile.events(raw)
    check_eq(tracefile.pack_events(evs), raw, "the EVENTS codec round trip")
    locs = {i for i, l in enumerate(t.locs) if l["file"] == "report_stride.c" and l["line"] == 18}
    kk = [e for e in evs if e["loc"] in locs and e["pattern"] == 2 and e["ndims"] >= 1]
    check(kk, "the stride-k record of line 18")
    twin = dict(kk[0], size=4, dims=list(kk[0]["dims"]))
    for e, base in ((kk[0], -8), (twin, -4)):
        e["dims"][0] = (-(1 << 63), e["dims"][0][1])
        e["base"] = base
    evs.append(twin)
    path = os.path.join(WORK, "extreme-stride.cats")
    with open(path, "wb") as f:
        f.write(tracefile.container([(ty, tracefile.pack_events(evs) if ty == 6 else r) for ty, r in secs]))
    for cmd in (("report",), ("report", "--json", path + ".json"), ("view",)):
        err = _run_one((cmd, path))
        check(err is None, err or "")
