# SPDX-License-Identifier: GPL-2.0-or-later
"""Failures around the guest: the helper dying under a running guest, the
guest's own signals, output to files that are not regular files, output
paths that cannot be written. The guest always finishes as it would
natively, and cats says in one line what was lost."""
import json
import os
import signal
import stat
import subprocess
import threading
import time

from catslib import VGLIB, WORK, cats_cmd, check, check_eq, compile_program, run_cats, traced


def _children(pid):
    try:
        with open("/proc/%d/task/%d/children" % (pid, pid)) as f:
            return [int(x) for x in f.read().split()]
    except OSError:
        return []


def _start_with_helper(args):
    """Starts valgrind ARGS (a guest under cats) and waits for its helper
    process: (the running valgrind, the helper's pid)."""
    proc = subprocess.Popen(["valgrind", "--tool=cats"] + args,
                            env=dict(os.environ, VALGRIND_LIB=VGLIB),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    helper = []
    while not helper and proc.poll() is None:
        helper = _children(proc.pid)
        time.sleep(0.05)
    check(helper, "no helper process under valgrind (exit %s)" % proc.returncode)
    return proc, helper[0]


def test_helper_killed_under_a_running_guest():
    binary = compile_program("helper_dies.c", flags=("-O2",))
    go = os.path.join(WORK, "helper_dies.go")
    out = os.path.join(WORK, "helper_dies.cats")
    for p in (go, out):
        if os.path.exists(p):
            os.unlink(p)
    native = subprocess.run([binary, "/"], capture_output=True, text=True)
    proc, helper = _start_with_helper(["--cats-out-file=" + out, binary, go])
    os.kill(helper, signal.SIGKILL)
    open(go, "w").close()
    stdout, stderr = proc.communicate()
    check_eq(proc.returncode, 0, "the guest's exit status (stderr: %s)" % stderr[-600:])
    check_eq(stdout, native.stdout, "the guest's output")
    lost = [l for l in stderr.splitlines() if "helper process failed" in l]
    check_eq(len(lost), 1, "lines saying the helper failed:\n" + stderr[-1500:])
    check("no trace is written" in lost[0], "the line says what is lost: " + lost[0])
    check(not os.path.exists(out), "a trace file without its helper")
    check(not [f for f in os.listdir(WORK) if f.startswith("helper_dies.cats.tmp")],
          "a temporary trace left behind")


def test_guests_own_sigpipe_still_ends_it():
    binary = compile_program("own_sigpipe.c")
    out = os.path.join(WORK, "own_sigpipe.cats")
    native = subprocess.run([binary], capture_output=True)
    check_eq(native.returncode, -signal.SIGPIPE, "native exit")
    proc = subprocess.run(["valgrind", "--tool=cats", "--cats-out-file=" + out, binary],
                          env=dict(os.environ, VALGRIND_LIB=VGLIB), capture_output=True, text=True)
    check_eq(proc.returncode, -signal.SIGPIPE, "exit under cats (stderr: %s)" % proc.stderr[-600:])
    check_eq(proc.stdout, "", "output after the signal")
    check(os.path.getsize(out) > 0, "the trace of what ran")


def _special_node(name):
    """A character device like /dev/null in WORK (as root, as CI runs), else
    None; a test never writes to the system's own /dev/null."""
    path = os.path.join(WORK, name)
    if os.path.lexists(path):
        os.unlink(path)
    try:
        os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    except PermissionError:
        return None
    return path


# Each command's way of naming its output file.
_OUTPUT_COMMANDS = (
    ("dump", "{t}", "-o", "{o}"),
    ("dump", "--json", "{t}", "-o", "{o}"),
    ("export", "--cats-viz", "{t}", "-o", "{o}"),
    ("export", "--cats-viz", "--page=stats", "{t}", "-o", "{o}"),
    ("export", "--cats-viz", "--page=control-flow", "{t}", "-o", "{o}"),
    ("view", "{t}", "-o", "{o}"),
    ("project", "{t}", "--ranks=2,4", "--json", "{o}"),
    ("report", "{t}", "--json", "{o}"),
)


def test_commands_write_into_a_device_node_and_a_fifo():
    t, _ = traced("vf_stencil.c")
    node = _special_node("outdev")
    fifo = os.path.join(WORK, "outfifo")
    if os.path.lexists(fifo):
        os.unlink(fifo)
    os.mkfifo(fifo)
    for cmd in _OUTPUT_COMMANDS:
        if node:
            args = [a.format(t=t.path, o=node) for a in cmd]
            proc = cats_cmd(*args, check_rc=False)
            check_eq(proc.returncode, 0, "cats %s: %s" % (" ".join(cmd), proc.stderr))
            check(stat.S_ISCHR(os.stat(node).st_mode), "cats %s replaced the device node" % cmd[0])
        # A FIFO gets the whole output, the same as a regular file's.
        plain = os.path.join(WORK, "outplain")
        want = cats_cmd(*[a.format(t=t.path, o=plain) for a in cmd])
        with open(plain, "rb") as f:
            want_bytes = f.read()
        got = {}
        reader = threading.Thread(target=lambda: got.update(data=open(fifo, "rb").read()))
        reader.start()
        proc = cats_cmd(*[a.format(t=t.path, o=fifo) for a in cmd], check_rc=False)
        reader.join()
        check_eq(proc.returncode, 0, "cats %s into a FIFO: %s" % (" ".join(cmd), proc.stderr))
        check(stat.S_ISFIFO(os.stat(fifo).st_mode), "cats %s replaced the FIFO" % cmd[0])
        check_eq(len(got.get("data", b"")), len(want_bytes), "bytes through the FIFO for %s" % " ".join(cmd))


def test_trace_into_a_device_node_and_a_full_device():
    binary = compile_program("vf_add.c")
    node = _special_node("tracedev")
    if node:
        _, proc = run_cats(binary, out=node, out_option=False, tool_args=("--cats-out-file=" + node,))
        check_eq(proc.returncode, 0, "exit with the trace into a device: " + proc.stderr[-800:])
        check(stat.S_ISCHR(os.stat(node).st_mode), "the trace replaced the device node")
        check("trace written to " + node in proc.stderr, "says where the trace went:\n" + proc.stderr[-800:])
    # /dev/full: every write fails; one line says so, the guest is unharmed.
    _, proc = run_cats(binary, out="/dev/full", out_option=False, tool_args=("--cats-out-file=/dev/full",))
    check_eq(proc.returncode, 0, "the guest's exit with /dev/full: " + proc.stderr[-800:])
    check(stat.S_ISCHR(os.stat("/dev/full").st_mode), "/dev/full is still a device")
    lines = [l for l in proc.stderr.splitlines() if "/dev/full" in l and "No space left" in l]
    check_eq(len(lines), 1, "the line naming /dev/full's error:\n" + proc.stderr[-800:])


def test_output_that_is_a_directory_is_refused_at_start():
    binary = compile_program("vf_add.c")
    d = os.path.join(WORK, "outdir.cats")
    os.makedirs(d, exist_ok=True)
    _, proc = run_cats(binary, out_option=False, tool_args=("--cats-out-file=" + d,))
    check_eq(proc.returncode, 1, "exit status")
    check("cannot write the trace file %s: it is a directory" % d in proc.stderr,
          "the reason, before the guest runs:\n" + proc.stderr[-800:])
    check("vf_add" not in proc.stdout, "the guest did not run")
    check(os.path.isdir(d), "the directory is untouched")


def _warnings(stderr):
    return [l for l in stderr.splitlines() if "another process wrote" in l]


def test_two_runs_sharing_an_output_file_say_so():
    out = os.path.join(WORK, "shared.cats")
    if os.path.exists(out):
        os.unlink(out)
    waiter = compile_program("waits_for.c")
    quick = compile_program("vf_add.c")
    second, _ = _start_with_helper(["--cats-out-file=" + out, waiter, out])
    _, first = run_cats(quick, out_option=False, tool_args=("--cats-out-file=" + out,))
    _, stderr = second.communicate()
    check_eq(first.returncode, 0, "the first run's exit")
    check_eq(_warnings(first.stderr), [], "the first writer's warnings")
    check_eq(second.returncode, 0, "the second run's exit: " + stderr[-600:])
    w = _warnings(stderr)
    check_eq(len(w), 1, "the second writer's warnings:\n" + stderr[-800:])
    check(out in w[0], "the warning names the file: " + w[0])
    # One run after another replaces the file as any tool's output: no warning.
    _, again = run_cats(quick, out_option=False, tool_args=("--cats-out-file=" + out,))
    check_eq(_warnings(again.stderr), [], "a later run's warnings")


def test_forked_child_sharing_the_output_file_says_so():
    binary = compile_program("forks.c")
    out = os.path.join(WORK, "forks.cats")
    _, proc = run_cats(binary, out=out)
    check_eq(proc.returncode, 0, "exit")
    check_eq(sorted(proc.stdout.split("\n")), ["", "child 2475.0", "parent 49.5"], "the outputs")
    check_eq(len(_warnings(proc.stderr)), 1, "warnings:\n" + proc.stderr[-1500:])
    _, proc = run_cats(binary, out_option=False,
                       tool_args=("--cats-out-file=" + os.path.join(WORK, "forks.%p.cats"),))
    check_eq(_warnings(proc.stderr), [], "warnings with %p")


def test_static_binary_is_warned_about():
    # malloc_loop.c allocates in a loop: natively linked, its blocks are
    # containers; linked statically, Valgrind cannot replace malloc.
    dynamic = compile_program("malloc_loop.c")
    static = compile_program("malloc_loop.c", flags=("-O0", "-static"))
    _, proc = run_cats(static)
    check_eq(proc.returncode, 0, "exit: " + proc.stderr[-600:])
    lines = [l for l in proc.stderr.splitlines() if "statically linked" in l]
    check_eq(len(lines), 1, "the warning:\n" + proc.stderr[-1200:])
    check(static in lines[0] and "malloc" in lines[0], "it names the program and why: " + lines[0])
    _, proc = run_cats(dynamic)
    check_eq([l for l in proc.stderr.splitlines() if "statically linked" in l], [],
             "no warning for a dynamic program")


def test_helper_busy_longer_than_the_timeout_is_waited_for():
    # The projection of a 3-D stencil for five rank counts keeps the helper
    # busy for seconds after the guest ends: with --helper-timeout=1 the
    # tool still waits, as the helper makes progress, and the trace comes.
    src = os.path.join(os.path.dirname(__file__), "validation", "stencil3d_serial.c")
    binary = os.path.join(WORK, "stencil3d_serial")
    subprocess.run(["gcc", "-O2", "-g", "-I" + os.path.join(os.path.dirname(__file__), "..", "cats"),
                    src, "-o", binary, "-lm"], check=True)
    out, proc = run_cats(binary, tool_args=("--helper-timeout=1", "--ranks=2,4,8,16,32"))
    check_eq(proc.returncode, 0, "exit: " + proc.stderr[-600:])
    check("trace written to " + out in proc.stderr, "the trace:\n" + proc.stderr[-1200:])
    check("projected communication" in proc.stderr, "the projection")
    check("helper process" not in proc.stderr, "no helper failure:\n" + proc.stderr[-1200:])


def test_stalled_helper_is_given_up_truthfully():
    binary = compile_program("waits_for.c")
    go = os.path.join(WORK, "stall.go")
    out = os.path.join(WORK, "stall.cats")
    for p in (go, out):
        if os.path.exists(p):
            os.unlink(p)
    proc, helper = _start_with_helper(["--helper-timeout=1", "--cats-out-file=" + out, binary, go])
    os.kill(helper, signal.SIGSTOP)
    open(go, "w").close()
    _, stderr = proc.communicate()
    check_eq(proc.returncode, 0, "the guest's exit: " + stderr[-600:])
    lines = [l for l in stderr.splitlines() if "helper process" in l]
    check_eq(len(lines), 1, "one line about the helper:\n" + stderr[-1200:])
    check("made no progress for 1 s" in lines[0] and "no trace is written" in lines[0],
          "the line: " + lines[0])
    check("trace written" not in stderr, "no claim of a trace")
    check(not os.path.exists("/proc/%d" % helper) or
          open("/proc/%d/stat" % helper).read().split(") ")[1][0] in "ZX",
          "the helper is gone")
    time.sleep(0.5)
    check(not os.path.exists(out), "no trace appears later")
    check(not [f for f in os.listdir(WORK) if f.startswith("stall.cats.tmp")], "no temporary file")


def test_a_helper_that_dies_projecting_leaves_the_trace():
    # The trace is in place before the projection starts: a helper killed
    # while projecting (the kernel's OOM killer on a large graph; here
    # CATS_HELPER_TEST_FAULT=project, a SIGKILL of its own just before
    # it) loses the projection, not the run's trace.
    out, proc = run_cats(compile_program("vf_stencil.c", ("-O2",)), tool_args=("--ranks=2,4",),
                         env={"CATS_HELPER_TEST_FAULT": "project"},
                         out=os.path.join(WORK, "dies_projecting.cats"))
    check_eq(proc.returncode, 0, "the guest's exit: " + proc.stderr[-800:])
    lines = [l for l in proc.stderr.splitlines() if "helper process" in l]
    check_eq(len(lines), 1, "one line about the helper:\n" + proc.stderr[-1200:])
    check("failed projecting" in lines[0] and
          "%s is written without its projection" % out in lines[0], "the line: " + lines[0])
    check("no trace is written" not in proc.stderr and "projected communication" not in proc.stderr,
          "no false claim:\n" + proc.stderr[-1200:])
    check(not [f for f in os.listdir(WORK) if f.startswith("dies_projecting.cats.tmp")],
          "no temporary file")
    p = cats_cmd("project", out, "--stored", check_rc=False)
    check_eq(p.returncode, 1, "no stored projection: " + p.stderr)
    js = os.path.join(WORK, "dies_projecting.json")
    cats_cmd("project", out, "--ranks=2", "--json", js)
    with open(js) as f:
        r = json.load(f)["results"][0]
    check_eq(r["p2p_bytes"] / r["iterations"], 16, "the trace projects: one cut, 16 bytes a step")


def test_a_trace_into_a_device_is_projected_before_it_is_written():
    # A device cannot take a projection added afterwards: one write, with it.
    node = _special_node("projdev")
    if not node:
        return
    _, proc = run_cats(compile_program("vf_add.c"), out=node, out_option=False,
                       tool_args=("--cats-out-file=" + node, "--ranks=2"))
    check_eq(proc.returncode, 0, "exit: " + proc.stderr[-800:])
    check("projected communication" in proc.stderr and "trace written to " + node in proc.stderr,
          "projection and trace:\n" + proc.stderr[-1200:])
    check(stat.S_ISCHR(os.stat(node).st_mode), "the device node is still one")


def test_metis_printing_does_not_break_the_helpers_answers():
    # At 64 ranks METIS's recursive bisection of vf_add.c's small graph
    # prints "Cannot bisect a graph with 0 vertices" to its stdout, which
    # was the helper's answer pipe: the tool read it as the reply and lost
    # the trace.
    out, proc = run_cats(compile_program("vf_add.c"), tool_args=("--ranks=2,64",))
    check_eq(proc.returncode, 0, "exit")
    check("helper process failed" not in proc.stderr, "the helper's answer:\n" + proc.stderr[-1500:])
    check("trace written to " + out in proc.stderr, "the trace:\n" + proc.stderr[-1500:])
    check("Cannot bisect" not in proc.stderr, "METIS's chatter reached the user")


def test_values_dealt_round_robin_are_said():
    # Function add's 48 values (16 sums of 32 inputs) cannot fill 64 parts.
    out, proc = run_cats(compile_program("vf_add.c"),
                         tool_args=("--ranks=2,64", "--per=add", "--decomposition=metis"))
    notes = [l for l in proc.stderr.splitlines() if "dealt round-robin" in l]
    check_eq(len(notes), 1, "notes:\n" + proc.stderr[-1500:])
    check("64 ranks: only 48 values" in notes[0], "the note: " + notes[0])
    p = cats_cmd("project", out, "--ranks=2,64", "--per=add", "--decomposition=metis")
    check("64 ranks: only 48 values outside the singletons, dealt round-robin" in p.stdout, p.stdout)


def test_a_trace_without_a_graph_says_why():
    out, proc = run_cats(compile_program("vf_add.c"), tool_args=("--value-flow=no",),
                         out=os.path.join(WORK, "novf.cats"))
    check_eq(proc.returncode, 0, "exit")
    for cmd in (("project", out, "--ranks=2"), ("vcg", out)):
        p = cats_cmd(*cmd, check_rc=False)
        check_eq(p.returncode, 1, "cats %s: exit" % cmd[0])
        check("the run had --value-flow=no" in p.stderr, "cats %s: %r" % (cmd[0], p.stderr))
