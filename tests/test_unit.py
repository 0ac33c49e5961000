"""The host-side unit tests (reader, writer, helper protocol, loop finder),
run by tests/unit/run.sh against the built binaries."""
import os
import subprocess
import tempfile

from catslib import BUILD, SRC, TestFailure


def test_host_unit_suite():
    with tempfile.TemporaryDirectory() as d:
        os.symlink(os.path.join(BUILD, "bin", "cats"), os.path.join(d, "cats"))
        os.symlink(os.path.join(BUILD, "cats-helper-amd64-linux"), os.path.join(d, "cats-helper"))
        proc = subprocess.run(["sh", os.path.join(SRC, "unit", "run.sh"), d], capture_output=True, text=True)
        oks = [l for l in proc.stdout.splitlines() if l.startswith("ok")]
        fails = [l for l in proc.stdout.splitlines() if l.startswith("FAIL")]
        if proc.returncode != 0 or fails or len(oks) < 40:
            raise TestFailure("unit suite: %d ok, failures: %s %s" % (len(oks), fails, proc.stderr[-1000:]))
