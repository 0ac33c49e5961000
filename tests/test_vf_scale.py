# SPDX-License-Identifier: GPL-2.0-or-later
"""Value flow at scale: the memory of a run (the larger of the tool and
its helper, in bytes) follows the program's data, not its run length."""
import os
import re
import subprocess
import time

from catslib import VGLIB, Vcg, cats_cmd, check, compile_program, traced

MIB = 1 << 20


def _start(binary, args, out):
    """Starts BINARY under cats with value flow, writing OUT."""
    if os.path.exists(out):
        os.unlink(out)
    env = dict(os.environ, VALGRIND_LIB=VGLIB)
    return subprocess.Popen(["valgrind", "-q", "--tool=cats", "--cats-out-file=" + out, binary]
                            + [str(a) for a in args], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)


def peak_bytes(binary, args, out):
    """Runs BINARY under cats with value flow; returns the peak resident
    memory of valgrind and its helper (the largest of the two), in bytes,
    and the trace's path."""
    proc = _start(binary, args, out)
    _, status, usage = os.wait4(proc.pid, 0)
    err = proc.stderr.read().decode(errors="replace")
    proc.stderr.close()
    check(os.waitstatus_to_exitcode(status) == 0, "cats %s %s failed: %s" % (binary, args, err[-1500:]))
    check(os.path.exists(out), "no trace: %s" % err[-1500:])
    return usage.ru_maxrss * 1024, out


def sum_links(path):
    """Register intermediates made by the sum's line of vf_running_sum.c."""
    label = re.compile(r"\[tmp#\d+ main vf_running_sum\.c:%d\] " % SUM_LINE)
    return sum(1 for l in cats_cmd("vcg", path, "--vertices").stdout.splitlines()
               if label.match(l))


SUM_LINE = 22   # s += a[...] in tests/programs/vf_running_sum.c


def test_running_sum_memory_is_flat():
    # s += a[i % 1000]: a chain of register intermediates, one link per
    # 15 new sources. Its links are keyed by their sources less their
    # predecessor, so after three passes over a (lcm(1000, 15) = 3000
    # sources) the chain reuses its first links: 100 times the
    # iterations cost no more memory and make no more intermediates.
    # Before, every 15 iterations made a new link (16M iterations: 1.07M
    # intermediates, 225 MB in the tool and 420 MB in the helper).
    binary = compile_program("vf_running_sum.c", ("-O2",))
    small, t1 = peak_bytes(binary, [200000], binary + ".p1.cats")
    large, t100 = peak_bytes(binary, [20000000], binary + ".p100.cats")
    check(large - small <= 8 * MIB,
          "100x the iterations took %.1f MiB more (%.1f -> %.1f MiB)"
          % ((large - small) / MIB, small / MIB, large / MIB))
    # The sum's links: one per window of 15 sources in the period of
    # 3000 (200) and the first link of 16, at most; the same at 100x.
    r1, r100 = sum_links(t1), sum_links(t100)
    check(r1 == r100, "the sum's intermediates: %d at 1x, %d at 100x" % (r1, r100))
    check(0 < r100 <= 201, "%d intermediates for a sum over 1000 values" % r100)


def test_running_sum_in_an_order_that_never_repeats_is_bounded():
    # The same sum with j from a xorshift generator: its windows of 15
    # sources never repeat, so its chain would grow for ever; once the
    # intermediates outnumber the words with values (at least 65536,
    # reached after about a million iterations) it goes on in its last
    # link, whose records the helper forgets when they pass 32 bytes per
    # edge of the graph (reached by 20M iterations). 20M and 60M
    # iterations then take the same memory.
    binary = compile_program("vf_running_sum.c", ("-O2",))
    small, t1 = peak_bytes(binary, [20000000, "random"], binary + ".r1.cats")
    large, t3 = peak_bytes(binary, [60000000, "random"], binary + ".r3.cats")
    check(large - small <= 8 * MIB,
          "3x the iterations took %.1f MiB more (%.1f -> %.1f MiB)"
          % ((large - small) / MIB, small / MIB, large / MIB))
    r1, r3 = sum_links(t1), sum_links(t3)
    check(r1 == r3, "the sum's intermediates: %d at 20M iterations, %d at 60M" % (r1, r3))


def _graph_size(path):
    """(vertices, register intermediates, edges) of a trace's graph."""
    g = Vcg(path)
    regs = sum(1 for v in g.vertices if v.startswith("[tmp#"))
    return int(g.stats["vertices"]), regs, int(g.stats["edges"])


def test_cg_iterations_add_no_vertices():
    # vf_cg_steps.c: alpha = rro / pw and beta = rrn / rro, made from the
    # dot products of this and the last iteration. Two faults made the
    # graph grow with the iterations (at -O2, 39K -> 63K vertices and
    # 0.41M -> 0.93M edges at 10 -> 40 iterations): a coefficient of 15
    # sources times each element became a link per element (the site
    # noted the filled set, not the coefficient, so never saw the
    # coefficient again), and s += r * r read what r was computed from
    # (alpha's links among them) instead of the r just stored, so each
    # iteration's links were new. At -O0 the graph is now the same at 10
    # and 40 iterations; at -O2 the vertices are, and a few dozen edges
    # of the 80,000 differ (a dot product's last links, which the loop
    # of logged accumulators ends in two ways).
    for flags in (("-O0",), ("-O2",)):
        small = _graph_size(traced("vf_cg_steps.c", flags, args=("10",))[0].path)
        large = _graph_size(traced("vf_cg_steps.c", flags, args=("40",))[0].path)
        what = "%s: (vertices, intermediates, edges) %r at 10 iterations, %r at 40" \
            % (flags[0], small, large)
        check(small[:2] == large[:2], what)
        check(small[2] <= large[2] <= small[2] + (0 if flags == ("-O0",) else small[2] // 1000),
              what)


def _tree(pid):
    """PID and its descendants."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        try:
            for t in os.listdir("/proc/%d/task" % p):
                with open("/proc/%d/task/%s/children" % (p, t)) as f:
                    todo += [int(x) for x in f.read().split()]
        except OSError:
            pass
    return out


def component_peaks(binary, args, out):
    """Runs BINARY under cats; returns the peak resident bytes of the tool
    (valgrind's process) and of its helper, from the kernel's high-water
    marks (VmHWM), read until each process ends."""
    proc = _start(binary, args, out)
    peaks = {}
    while proc.poll() is None:
        for p in _tree(proc.pid):
            try:
                with open("/proc/%d/status" % p) as f:
                    st = f.read()
            except OSError:
                continue
            name = "helper" if "cats-helper" in st.split("\n")[0] else "tool"
            for line in st.splitlines():
                if line.startswith("VmHWM:"):
                    peaks[name] = max(peaks.get(name, 0), int(line.split()[1]) * 1024)
        time.sleep(0.02)
    proc.stderr.close()
    check(proc.returncode == 0, "cats %s %s failed" % (binary, args))
    check("tool" in peaks and "helper" in peaks, "no peaks read: %r" % peaks)
    return peaks["tool"], peaks["helper"]


def test_streaming_kernel_memory_bounds():
    # a[i] = b[i] + 3 c[i] over 1M doubles, 3 times, after a set-up loop:
    # 3M words with values, each set up and a third of them computed
    # again. The tool keeps 12 bytes of shadow per word (provenance,
    # version, signature), 4 for the context of its last store (section
    # 11's dependencies) and 4 more for a word whose sources changed
    # once (the first record's signature): at most the data, 20 bytes a
    # word and Valgrind's own 64 MiB. (Before, each such word had a
    # history of 56 bytes: 193 MB here.) The helper keeps each vertex,
    # its records and its edges (docs/VCG.md): at most 120 bytes a word
    # and 32 MiB; this bound is where the graph stands, not where it
    # should be (issue 28: per program structure, not per word).
    n, words = 1000000, 3000000
    binary = compile_program("vf_stream.c", ("-O2",))
    tool, helper = component_peaks(binary, [n, 3], binary + ".cats")
    data = 3 * 8 * n
    check(tool <= data + 20 * words + 64 * MIB,
          "the tool took %.1f MiB for %.1f MiB of data" % (tool / MIB, data / MIB))
    check(helper <= 120 * words + 32 * MIB,
          "the helper took %.1f MiB for %d words" % (helper / MIB, words))


def test_graph_section_goes_through_a_temporary_file():
    # vf_stream's 3M words make a builder past 64 MiB, so the helper
    # writes the graph's section to an unlinked file in $TMPDIR as it
    # makes it and reads it back once the builder is freed: nothing is
    # left in the folder. On a 1 MiB file system the file takes its
    # first MiB and no more: the rest stays in memory, one warning line
    # names the folder and the cause, and the graph is the same. (Folders
    # of equal names' length: the environment moves the guest's stack.
    # Mounting needs root, as CI is.)
    import tempfile
    from catslib import run_cats
    binary = compile_program("vf_stream.c", ("-O2",))
    base = tempfile.mkdtemp(prefix="cats-spill-")
    spill, small = os.path.join(base, "spillA"), os.path.join(base, "spillB")
    os.mkdir(spill)
    os.mkdir(small)
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", small], check=True)
    graphs = {}
    try:
        for name, tmpdir in (("file", spill), ("full", small)):
            out, proc = run_cats(binary, args=("1000000", "3"), env={"TMPDIR": tmpdir},
                                 out=binary + "." + name + ".cats")
            check(proc.returncode == 0, "exit %d: %s" % (proc.returncode, proc.stderr[-1500:]))
            warnings = [l for l in proc.stderr.splitlines() if "warning" in l]
            check(os.listdir(tmpdir) == [], "left in %s: %r" % (tmpdir, os.listdir(tmpdir)))
            if name == "file":
                check(not warnings, "warnings: %r" % warnings)
            else:
                check(len(warnings) == 1 and "the value graph's section could not be written "
                      "to a temporary file in %s (No space left on device): it was kept in "
                      "memory" % small in warnings[0], "warnings: %r" % warnings)
            graphs[name] = cats_cmd("vcg", out, "--edges").stdout
    finally:
        subprocess.run(["umount", small], check=True)
    check(len(graphs["file"].splitlines()) > 2000000, "edges: %d" % len(graphs["file"].splitlines()))
    check(graphs["file"] == graphs["full"], "the graphs differ")


def test_cut_graph_keeps_the_trace_and_says_so():
    # --vf-max-memory=1: the helper's graph passes 1 MiB early in the
    # set-up loop and is cut there. The run ends as it would natively,
    # with one warning line naming the limit; the trace has all its
    # other sections and the graph up to the cut, which `cats vcg` and
    # `cats project` report as cut.
    from catslib import run_cats
    binary = compile_program("vf_stream.c", ("-O2",))
    full, proc = run_cats(binary, args=("100000", "2"), out=binary + ".full.cats")
    check(proc.returncode == 0, proc.stderr[-1500:])
    out, proc = run_cats(binary, args=("100000", "2"), tool_args=("--vf-max-memory=1",),
                         out=binary + ".cut.cats")
    check(proc.returncode == 0, "exit %d: %s" % (proc.returncode, proc.stderr[-1500:]))
    warnings = [l for l in proc.stderr.splitlines() if "warning" in l]
    check(len(warnings) == 1 and "was cut where it reached its memory limit of 1 MiB "
          "(--vf-max-memory)" in warnings[0], "warnings: %r" % warnings)
    stats = dict(l.partition(" ")[::2] for l in cats_cmd("vcg", out).stdout.splitlines())
    full_stats = dict(l.partition(" ")[::2] for l in cats_cmd("vcg", full).stdout.splitlines())
    check(stats.get("cut", "").startswith("the value communication graph was cut"),
          "cats vcg does not say the graph is cut: %r" % stats)
    check("cut" not in full_stats, "the full graph says it is cut")
    check(0 < int(stats["vertices"]) < int(full_stats["vertices"]),
          "cut graph: %s vertices, full: %s" % (stats["vertices"], full_stats["vertices"]))
    proj = cats_cmd("project", out, "--ranks=2").stdout
    check("note: the value communication graph was cut" in proj, proj)
    # The trace's other sections are all there: the same heap blocks as
    # the full run's.
    for cmd in (["stat"], ["report"]):
        check(cats_cmd(*cmd, out).returncode == 0, "cats %s failed" % cmd[0])
    allocs = [l for l in cats_cmd("stat", out).stdout.splitlines() if l.startswith("  malloc")]
    full_allocs = [l for l in cats_cmd("stat", full).stdout.splitlines()
                   if l.startswith("  malloc")]
    check(allocs and allocs == full_allocs, "heap blocks: %r, full: %r" % (allocs, full_allocs))
