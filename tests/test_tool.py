# SPDX-License-Identifier: GPL-2.0-or-later
"""Options and errors of the Valgrind tool itself."""
import os
import re
import shutil
import subprocess
import tempfile

from catslib import VGLIB, WORK, Trace, cats_cmd, check, check_eq, compile_program, run_cats, traced


def _own_lines(stderr):
    """stderr lines that are not Valgrind's '==PID==' commentary."""
    return [l for l in stderr.splitlines() if l.strip() and not re.match(r"^==\d+==", l)]


def test_unwritable_out_file():
    out = "/nonexistent-dir/x.cats"
    check(not os.path.exists("/nonexistent-dir"), "/nonexistent-dir must not exist for this test")
    _, proc = run_cats("/bin/true", out=out)
    check(proc.returncode > 0, "valgrind exit %d, want non-zero" % proc.returncode)
    lines = _own_lines(proc.stderr)
    check_eq(len(lines), 1, "error lines (%r)" % lines)
    check(out in lines[0], "the message names the file: %r" % lines[0])
    check("Traceback" not in proc.stderr and "assertion" not in proc.stderr.lower(),
          "no crash report: %r" % proc.stderr[-500:])
    check(not os.path.exists(out), "no trace file")


def test_out_file_pid_expansion():
    binary = compile_program("malloc_loop.c")
    d = tempfile.mkdtemp(prefix="pid-", dir=WORK)
    _, proc = run_cats(binary, tool_args=["--cats-out-file=trace.%p.cats"], cwd=d, out_option=False)
    check_eq(proc.returncode, 0, "valgrind exit")
    files = os.listdir(d)
    check_eq(len(files), 1, "files written (%r)" % files)
    m = re.match(r"^trace\.(\d+)\.cats$", files[0])
    check(m is not None, "file name %r has the pid in place of %%p" % files[0])
    pid = m.group(1)
    vg = re.search(r"^==(\d+)==", proc.stderr, re.M)
    check(vg is not None, "valgrind's pid prefix on stderr")
    check_eq(pid, vg.group(1), "pid in the file name vs valgrind's pid")
    t = Trace(os.path.join(d, files[0]))
    check_eq(t.meta.get("pid"), pid, "META pid")
    shutil.rmtree(d)


def test_instr_atstart_no_records_no_accesses():
    # malloc_loop.c has no client requests, so instrumentation never starts.
    binary = compile_program("malloc_loop.c")
    out = os.path.join(WORK, "malloc_loop.atstart-no.cats")
    path, proc = run_cats(binary, tool_args=["--instr-atstart=no"], out=out)
    check_eq(proc.returncode, 0, "valgrind exit")
    t = Trace(path)
    check_eq(t.meta.get("accesses_total"), "0", "META accesses_total")
    check_eq(t.meta.get("instr_atstart"), "no", "META instr_atstart")
    check_eq(len(t.events), 0, "event records")
    check_eq(t.meta.get("exit"), "exit 0", "META exit")


def test_missing_program():
    out = os.path.join(WORK, "missing-program.cats")
    _, proc = run_cats(os.path.join(WORK, "no-such-program"), out=out)
    check(proc.returncode > 0, "valgrind exit %d, want non-zero" % proc.returncode)
    check("no-such-program" in proc.stderr and "No such file" in proc.stderr,
          "valgrind's error names the program: %r" % proc.stderr[-500:])


def test_help_lists_options():
    env = dict(os.environ, VALGRIND_LIB=VGLIB)
    p = subprocess.run(["valgrind", "--tool=cats", "--help"], env=env, capture_output=True, text=True, timeout=60)
    check_eq(p.returncode, 0, "valgrind --help exit")
    for opt in ("--cats-out-file", "--instr-atstart"):
        check(opt in p.stdout, "--help mentions %s" % opt)


def test_start_and_stop_requests_bound_the_recording():
    # startstop.c with --instr-atstart=no: only the loop between
    # CATS_START_INSTRUMENTATION and CATS_STOP_INSTRUMENTATION (line 13,
    # 100 reads and 100 writes of a) is recorded; the allocation and the
    # loops themselves are tracked throughout.
    t, _ = traced("startstop.c", tool_args=("--instr-atstart=no",))
    a = t.alloc_by_name("main (startstop.c:8)")
    lines = sorted({(t.loc_line(e["loc"]), e["kind"], e["count"]) for e in t.events_of(a["id"])})
    check_eq(lines, [(13, "read", 100), (13, "write", 100)], "recorded accesses to a")
    check_eq(len([c for c in t.loops_of("main") if t.ctx_in_file(c["id"], "startstop.c")]), 3,
             "all three loops tracked")


def test_fork_and_exec_children_leave_no_trace():
    # spawns.c calls system("true"): the forked child only execs, so only
    # the parent's trace is written (one file for %p).
    binary = compile_program("spawns.c")
    d = tempfile.mkdtemp(dir=WORK)
    _, proc = run_cats(binary, tool_args=("--cats-out-file=%s/t.%%p.cats" % d,), out_option=False,
                       expect_rc=0)
    files = sorted(os.listdir(d))
    check_eq(len(files), 1, "trace files (%r)" % files)
    check("cats-helper" not in proc.stderr, "no helper complaint: %s" % proc.stderr[-500:])


def _without_strcspn(dump):
    """The text dump without the records of ld.so's strcspn: its unrolled
    loop reads up to three bytes past the end of LD_PRELOAD's value, and
    those are the AT_RANDOM bytes the kernel (and Valgrind) put right
    after it, used as indices into its 256-byte table. Which table
    entries it reads therefore changes from run to run: the program's
    own accesses are not reproducible there."""
    out, skip = [], None
    for line in dump.splitlines():
        indent = len(line) - len(line.lstrip())
        if skip is not None and indent > skip:
            continue
        skip = indent if line.lstrip().startswith("[") and "strcspn" in line else None
        if skip is None and line.split()[:1] not in (["pid"], ["ppid"]):
            out.append(line)
    return out


def test_trace_and_graph_are_reproducible():
    # Two runs of one program give the same trace and the same graph,
    # but for the pid and what ld.so's start-up reads at random (above).
    # Same command line and environment: the environment's strings are on
    # the guest's stack, so their lengths move the words that ld.so reads
    # at start-up (input vertices of [argv, envp and auxv]).
    binary = compile_program("vf_heat2d.c")
    dumps, graphs = [], []
    out = os.path.join(WORK, "vf_heat2d.repro.cats")
    for run in range(2):
        path, _ = run_cats(binary, tool_args=["--reuse-distance=no"], out=out, expect_rc=0)
        dumps.append(_without_strcspn(cats_cmd("dump", path).stdout))
        graphs.append(cats_cmd("vcg", "--edges", "--vertices", path).stdout)
    check(len(dumps[0]) > 1000, "a trace of %d lines" % len(dumps[0]))
    diff = [(a, b) for a, b in zip(dumps[0], dumps[1]) if a != b]
    check_eq(len(dumps[0]), len(dumps[1]), "lines of the two dumps")
    check(not diff, "the two dumps differ first at %r" % (diff[:1],))
    check(graphs[0].count("\n") > 20, "a graph of %d lines" % graphs[0].count("\n"))
    check(graphs[0] == graphs[1], "the two graphs differ")
