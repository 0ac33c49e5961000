#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Is the value-flow graph flat in run length? Runs each public code's
serial build under cats at the two step counts of codes.json ("steps")
and prints the graph's vertices and edges at each (docs/BENCH.md).

usage: graph_steps.py BUILD_DIR PROGRAMS_DIR WORK_DIR [--codes=a,b]

BUILD_DIR holds bin/cats and vglib/ (as scripts/validation/run.py's),
PROGRAMS_DIR the builds of docs/VALIDATION.md, WORK_DIR the runs."""
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run as R  # noqa: E402  (prepare and argv, as the validation runs them)


def main(argv):
    args = [a for a in argv if not a.startswith("--")]
    opts = dict(a[2:].split("=", 1) for a in argv if a.startswith("--") and "=" in a)
    if len(args) != 3:
        sys.exit(next(l for l in __doc__.splitlines() if l.startswith("usage:")))
    build, programs, work = (os.path.abspath(a) for a in args)
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "codes.json")) as f:
        codes = json.load(f)["codes"]
    wanted = opts["codes"].split(",") if "codes" in opts else [c["name"] for c in codes]
    env = dict(os.environ, VALGRIND_LIB=os.path.join(build, "vglib"))
    print("| code | steps | vertices | edges | seconds |")
    print("|---|---|---|---|---|")
    for code in (c for c in codes if c["name"] in wanted):
        for steps in code["steps"]:
            rundir = os.path.join(work, "%s-%d" % (code["name"], steps))
            R.prepare(code, rundir, steps, programs)
            trace = os.path.join(rundir, code["name"] + ".cats")
            t0 = time.time()
            with open(os.path.join(rundir, "log"), "w") as log:
                rc = subprocess.run(["valgrind", "--tool=cats", "--cats-out-file=" + trace]
                                    + R.argv(code["serial"], programs, steps),
                                    env=env, cwd=rundir, stdout=subprocess.DEVNULL,
                                    stderr=log).returncode
            if rc != 0:
                sys.exit("%s at %d steps exited %d (log in %s)" % (code["name"], steps, rc, rundir))
            stats = dict(line.split(" ", 1) for line in subprocess.run(
                [os.path.join(build, "bin", "cats"), "vcg", trace], capture_output=True,
                text=True, check=True).stdout.splitlines())
            print("| %s | %d | %s | %s | %.0f |" % (code["name"], steps, stats["vertices"],
                                                    stats["edges"], time.time() - t0), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
