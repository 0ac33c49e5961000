# SPDX-License-Identifier: GPL-2.0-or-later
"""Access records beyond --records-in-memory go to a spill file and come
back when used: the trace is the same to the byte, the memory is not."""
import glob
import os
import re
import subprocess

from catslib import WORK, cats_cmd, check, check_eq, compile_program, run_cats

SPILL = re.compile(r"records: ([\d,]+), ([\d,]+) in memory at most; ([\d,]+) written to the "
                   r"spill file in ([\d,]+) batches, ([\d,]+) read back")


def _num(s):
    return int(s.replace(",", ""))


def _body(trace):
    """The trace's access records in the program's own contexts (under
    main), as the dump prints them. The loader's start-up reads the
    auxiliary vector's random bytes, which differ from run to run."""
    text = cats_cmd("dump", trace).stdout
    at = text.find("\nevents:")
    check(at >= 0, "no access records in the dump of " + trace)
    kept, keep = [], False
    for line in text[at + 1:].splitlines()[1:]:
        if not line.startswith("  "):
            break
        if re.match(r"  \[\d+\] ", line):
            keep = " > main" in line
        if keep:
            kept.append(line)
    check(len(kept) > 10000, "%d lines of records under main in %s" % (len(kept), trace))
    return kept


def _spill_stats(stderr):
    m = SPILL.search(stderr)
    check(m is not None, "no records line in -v output:\n" + stderr[-1500:])
    return [_num(g) for g in m.groups()]


def test_trace_is_the_same_with_few_records_in_memory():
    # many_records.c: 64 callers x 64 callees, each callee's accesses a
    # record per context, all used again in a second pass. With 1,024
    # records in memory, all but 1,024 are in the file at the end, and
    # the second pass reads the first's back: every record of a callee's
    # context was used once since (4,096 contexts apart), so it was
    # spilled unless it is among the last 1,024.
    binary = compile_program("many_records.c")
    full, p1 = run_cats(binary, out=os.path.join(WORK, "many_full.cats"), tool_args=("-v",),
                        expect_rc=0)
    few, p2 = run_cats(binary, out=os.path.join(WORK, "many_few.cats"),
                       tool_args=("-v", "--records-in-memory=1024"), expect_rc=0)
    check_eq(p2.stdout, p1.stdout, "the program's output")
    records, limit, written, batches, read_back = _spill_stats(p2.stderr)
    check_eq(limit, 1024, "the limit")
    check(records > 4 * 4096, "%d records for 4,096 callee contexts" % records)
    check(written >= records - 1024, "%d written of %d records" % (written, records))
    check(batches >= 2, "%d batches" % batches)
    check(read_back >= records // 2, "%d read back of %d records" % (read_back, records))
    check_eq(_spill_stats(p1.stderr)[2], 0, "records written with the default limit")
    check(_body(few) == _body(full), "the traces differ")


def test_forked_child_reads_the_parents_records():
    # After the first pass the program forks; child and parent each make
    # the second pass. The child reads the parent's spilled records from
    # a file of its own opening (the parent's offset is not shared) and
    # spills to a new file: both traces are as without spilling.
    binary = compile_program("many_records.c")
    traces = {}
    for tag, extra in (("full", ()), ("few", ("--records-in-memory=1024",))):
        pattern = os.path.join(WORK, "many_fork_%s.%%p.cats" % tag)
        for old in glob.glob(pattern.replace("%p", "*")):
            os.unlink(old)
        _, proc = run_cats(binary, args=("fork",), out_option=False, expect_rc=0,
                           tool_args=("--cats-out-file=" + pattern,) + extra)
        check_eq(sorted(l.split()[0] for l in proc.stdout.splitlines()), ["child", "parent"],
                 "the outputs: " + proc.stdout)
        # The parent waits for the child, whose trace is in place before
        # it exits: the older trace is the child's.
        paths = sorted(glob.glob(pattern.replace("%p", "*")), key=os.path.getmtime)
        check_eq(len(paths), 2, "traces %s: %s" % (paths, proc.stderr[-1500:]))
        traces[tag] = {"child": paths[0], "parent": paths[1]}
    for role in ("child", "parent"):
        check(_body(traces["few"][role]) == _body(traces["full"][role]),
              "the %s's traces differ" % role)


def test_bad_limit_is_refused():
    binary = compile_program("many_records.c")
    _, proc = run_cats(binary, tool_args=("--records-in-memory=10",))
    check(proc.returncode != 0, "a limit below 1024 is refused")
    check("records-in-memory" in proc.stderr, "the error names the option: " + proc.stderr[-600:])


def test_full_disk_keeps_the_records_in_memory():
    # $TMPDIR on a 256 KiB file system that is almost full: the first
    # batch cannot be written, so the run says so once and keeps every
    # record in memory; the guest finishes and the trace is whole.
    binary = compile_program("many_records.c")
    tmp = os.path.join(WORK, "small_tmp")
    os.makedirs(tmp, exist_ok=True)
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", tmp], check=True)
    try:
        with open(os.path.join(tmp, "fill"), "wb") as f:
            f.write(b"\0" * (200 << 10))
        out, proc = run_cats(binary, out=os.path.join(WORK, "many_disk_full.cats"),
                             tool_args=("--records-in-memory=1024",), env={"TMPDIR": tmp})
        # The same environment (TMPDIR is in the guest's), no limit.
        full, _ = run_cats(binary, out=os.path.join(WORK, "many_disk_full_ref.cats"),
                           env={"TMPDIR": tmp}, expect_rc=0)
    finally:
        subprocess.run(["umount", tmp], check=True)
    check_eq(proc.returncode, 0, "exit: " + proc.stderr[-800:])
    warnings = [l for l in proc.stderr.splitlines() if "spill file" in l]
    check_eq(len(warnings), 1, "warnings:\n" + proc.stderr[-1500:])
    check("disk full" in warnings[0] and "stay in memory" in warnings[0], warnings[0])
    check(_body(out) == _body(full), "the traces differ")
