# SPDX-License-Identifier: GPL-2.0-or-later
"""Failures around the guest: the helper dying under a running guest, the
guest's own signals, output to files that are not regular files, output
paths that cannot be written. The guest always finishes as it would
natively, and cats says in one line what was lost."""
import os
import signal
import subprocess
import time

from catslib import VGLIB, WORK, check, check_eq, compile_program


def _children(pid):
    try:
        with open("/proc/%d/task/%d/children" % (pid, pid)) as f:
            return [int(x) for x in f.read().split()]
    except OSError:
        return []


def test_helper_killed_under_a_running_guest():
    binary = compile_program("helper_dies.c", flags=("-O2",))
    go = os.path.join(WORK, "helper_dies.go")
    out = os.path.join(WORK, "helper_dies.cats")
    for p in (go, out):
        if os.path.exists(p):
            os.unlink(p)
    native = subprocess.run([binary, "/"], capture_output=True, text=True)
    proc = subprocess.Popen(["valgrind", "--tool=cats", "--cats-out-file=" + out, binary, go],
                            env=dict(os.environ, VALGRIND_LIB=VGLIB),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    helper = []
    while not helper and proc.poll() is None:
        helper = _children(proc.pid)
        time.sleep(0.05)
    check(helper, "no helper process under valgrind (exit %s)" % proc.returncode)
    os.kill(helper[0], signal.SIGKILL)
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
