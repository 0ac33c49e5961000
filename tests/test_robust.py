# SPDX-License-Identifier: GPL-2.0-or-later
"""Robustness: a guest killed by a signal, damaged trace files, trace size
independent of the run length."""
import os
import struct

from catslib import CATS, WORK, check, check_eq, traced
import tracefile
import subprocess


def test_segv_trace_survives():
    # segv.c writes a[0..99] at line 8, then stores through address 16.
    t, proc = traced("segv.c", expect_rc=None)
    check(proc.returncode != 0, "valgrind exit %d for a guest killed by SIGSEGV" % proc.returncode)
    check(os.path.getsize(t.path) > 0, "trace file is empty")
    a = t.alloc_by_name("main (segv.c:6)")
    w = t.events_where(8, "segv.c", "write", a["id"])
    check_eq(len(w), 1, "write records at line 8")
    check_eq((w[0]["count"], w[0]["pattern"], w[0]["strides"][0]), (100, "stride-1", 8),
             "line-8 writes (count, pattern, stride)")
    check_eq(a["never_freed"], True, "the array was never freed")


def test_segv_meta_records_the_signal():
    # docs/FORMAT.md: META exit is "exit N", or "signal" for a guest killed
    # by a signal (Valgrind's fini callback does not say which one).
    t, _ = traced("segv.c", expect_rc=None)
    check_eq(t.meta.get("exit"), "signal", "META exit")


def _good_trace():
    t, _ = traced("malloc_loop.c")
    with open(t.path, "rb") as f:
        return f.read()


def _check_rejected(data, what, cmds=(("dump", "--json"), ("stat",)), same_as=None):
    """The damaged DATA gives a one-line error and exit 1 for each of CMDS;
    with SAME_AS (cmd -> output of the intact trace), a run that succeeds
    must print exactly that: a change that leaves the decoded content
    intact (a deflate bit zlib ignores) is no corruption."""
    path = os.path.join(WORK, "damaged.cats")
    if data is None:
        path = os.path.join(WORK, "no-such-trace.cats")
        if os.path.exists(path):
            os.unlink(path)
    elif isinstance(data, str):
        path = data
    else:
        with open(path, "wb") as f:
            f.write(data)
    for cmd in cmds:
        p = subprocess.run([CATS] + list(cmd) + [path], capture_output=True, text=True, timeout=60)
        label = "cats %s on %s" % (" ".join(cmd), what)
        check(p.returncode >= 0, "%s: killed by signal %d" % (label, -p.returncode))
        if same_as is not None and p.returncode == 0:
            check(p.stdout == same_as[cmd], "%s: accepted, but decodes differently" % label)
            continue
        check_eq(p.returncode, 1, "%s: exit status (1 = file or data error)" % label)
        lines = p.stderr.splitlines()
        check_eq(len(lines), 1, "%s: stderr lines (%r)" % (label, p.stderr[:500]))
        check(lines[0].startswith("cats: ") and "Traceback" not in p.stderr, "%s: message %r" % (label, lines[0]))
        check(path in lines[0] or os.path.basename(path) in lines[0], "%s: message names the file: %r"
              % (label, lines[0]))


def test_truncated_traces_rejected():
    d = _good_trace()
    table_end = tracefile.table_end(d)
    cuts = {1, 7, 8, 11, 12, 15, 16, 17, table_end - 1, table_end, table_end + 1, len(d) - 1}
    for _type, _flags, off, stored, _raw, _crc, _res in tracefile.entries(d):
        cuts.update({off, off + 1, off + stored // 2, off + stored - 1})
    for cut in sorted(c for c in cuts if 0 < c < len(d)):
        _check_rejected(d[:cut], "a trace cut at %d of %d bytes" % (cut, len(d)),
                        cmds=(("dump", "--json"), ("dump",), ("stat",)))


def _outputs(data, cmds):
    path = os.path.join(WORK, "intact.cats")
    with open(path, "wb") as f:
        f.write(data)
    return {cmd: subprocess.run([CATS] + list(cmd) + [path], capture_output=True, text=True,
                                check=True).stdout.replace(path, os.path.join(WORK, "damaged.cats"))
            for cmd in cmds}


def test_flipped_bytes_rejected():
    d = _good_trace()
    intact = _outputs(d, (("dump", "--json"), ("stat",)))
    table_end = tracefile.table_end(d)
    positions = list(range(0, table_end))                       # header and section table
    step = max(1, (len(d) - table_end) // 48)
    positions += list(range(table_end, len(d), step)) + [len(d) - 1]  # section data
    for pos in positions:
        b = bytearray(d)
        b[pos] ^= 0xFF
        _check_rejected(bytes(b), "a trace with byte %d flipped" % pos, cmds=(("dump", "--json"),),
                        same_as=intact)
    for pos in positions[::7]:
        b = bytearray(d)
        b[pos] ^= 0x01
        _check_rejected(bytes(b), "a trace with bit 0 of byte %d flipped" % pos, cmds=(("stat",),),
                        same_as=intact)


def test_empty_missing_and_foreign_files_rejected():
    _check_rejected(b"", "an empty file")
    _check_rejected(None, "a missing file")
    _check_rejected("/bin/ls", "/bin/ls")
    _check_rejected(b"CATSTRC\0", "a bare magic")
    _check_rejected(b"CATSTRC\0" + struct.pack("<II", 3, 0), "version 3 (before 64-bit section sizes)")
    _check_rejected(b"CATSTRC\0" + struct.pack("<II", 2, 0), "a trace with no sections")


def test_trace_size_independent_of_steps():
    # timesteps.c: 10x more time steps must not grow the trace (folding).
    t10, _ = traced("timesteps.c", args=("10",))
    t100, _ = traced("timesteps.c", args=("100",))
    s10, s100 = os.path.getsize(t10.path), os.path.getsize(t100.path)
    check(abs(s100 - s10) <= 0.05 * s10, "trace sizes %d (10 steps) and %d (100 steps) differ by more than 5%%"
          % (s10, s100))


def test_exec_writes_the_trace_before_the_image_is_replaced():
    # execs.c writes a[0..49] (line 10) and execs /bin/true: Valgrind does
    # not call the tool's fini then, so the trace is written at the execve.
    t, _ = traced("execs.c")
    check_eq(t.meta.get("exit"), "exec", "META exit")
    a = t.alloc_by_name("main (execs.c:8)")
    w = t.events_where(10, "execs.c", "write", a["id"])
    check_eq([(e["count"], e["pattern"]) for e in w], [(50, "stride-1")], "writes before the exec")


def test_exec_that_fails_after_the_trace_was_written():
    # execbadformat.c writes a[0..49] (line 14), execs a regular file with
    # an execute bit that is not a program (ENOEXEC, after the tool wrote
    # the trace), then reads a[] (line 24) and exits 0. The guest must
    # finish normally with the trace of what ran before the exec, and the
    # tool says once that the rest is not in it.
    t, proc = traced("execbadformat.c")
    check_eq(proc.stdout.strip(), "2450", "the guest's output after the failed exec")
    check_eq(t.meta.get("exit"), "exec", "META exit")
    a = t.alloc_by_name("main (execbadformat.c:12)")
    w = t.events_where(14, "execbadformat.c", "write", a["id"])
    check_eq([(e["count"], e["pattern"]) for e in w], [(50, "stride-1")], "writes before the exec")
    check_eq(t.events_where(24, "execbadformat.c", "read", a["id"]), [], "reads after the failed exec")
    check_eq(proc.stderr.count("execve failed after the trace was written"), 1, "warnings")


def test_exec_that_cannot_run_does_not_end_the_trace():
    # execfails.c writes a[0..49] (line 11), tries to exec a missing file
    # and a directory, then updates a[0..29] (line 15)
    # and exits: both loops are in the trace and the run ended normally.
    t, proc = traced("execfails.c")
    check_eq(t.meta.get("exit"), "exit 0", "META exit")
    a = t.alloc_by_name("main (execfails.c:9)")
    w = t.events_where(11, "execfails.c", "write", a["id"])
    check_eq([(e["count"], e["pattern"]) for e in w], [(50, "stride-1")], "writes before the tries")
    w = t.events_where(15, "execfails.c", "write", a["id"])
    check_eq([(e["count"], e["pattern"]) for e in w], [(30, "stride-1")], "writes after the tries")
    check("execve failed" not in proc.stderr, "a warning about an exec that was never tried: " + proc.stderr[-500:])
