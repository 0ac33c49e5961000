# SPDX-License-Identifier: GPL-2.0-or-later
"""The host-side unit tests (reader, writer, helper protocol, loop finder),
built by `make check` and run by tests/unit/run.sh with the CLI checks."""
import os
import subprocess

from catslib import BUILD, SRC, TestFailure


def test_host_unit_suite():
    proc = subprocess.run(["sh", os.path.join(SRC, "unit", "run.sh"), BUILD],
                          capture_output=True, text=True)
    oks = [l for l in proc.stdout.splitlines() if l.startswith("ok")]
    fails = [l for l in proc.stdout.splitlines() if l.startswith("FAIL")]
    if proc.returncode != 0 or fails or len(oks) < 40:
        raise TestFailure("unit suite: %d ok, failures: %s %s" % (len(oks), fails, proc.stderr[-1000:]))
