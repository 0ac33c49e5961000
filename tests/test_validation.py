# SPDX-License-Identifier: GPL-2.0-or-later
"""The projection against real MPI runs (tests/validation/): six kernels,
each a serial program run under cats with --ranks=2,4,8 and an MPI program
run under Open MPI with libcats-mpi at 2, 4 and 8 ranks. They are the
kernels the projection was tuned on: regression tests of each component
`cats compare` prints (point-to-point, collectives and their kinds, pairs,
the headline that charges a wrong kind twice), not evidence of accuracy
on code nobody here wrote; that is scripts/validation/run.py's, on public
mini-apps built outside the repository (docs/VALIDATION.md), whose
arithmetic is tested here."""
import json
import os
import subprocess
import sys

from catslib import BUILD, WORK, check, check_eq

HERE = os.path.dirname(os.path.abspath(__file__))


def test_projection_matches_mpi():
    work = os.path.join(WORK, "validation")
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    proc = subprocess.run([sys.executable, os.path.join(HERE, "validation", "validate.py"),
                           BUILD, work], capture_output=True, text=True, env=env)
    print(proc.stdout)
    with open(os.path.join(work, "validation.json")) as f:
        res = json.load(f)
    counted = [r for r in res["rows"] if r["counted"]]
    check_eq(sorted({r["kernel"] for r in counted}),
             ["heat2d", "matmul", "mesh", "solver", "spmv", "stencil3d"], "kernels")
    check_eq(len(counted), 18, "cases (6 kernels x 3 rank counts)")
    # Each component against the targets (80%), except where a known gap
    # (issue 29) is asserted as what the comparison must call wrong.
    for r in counted:
        k, case = r["kernel"], "%s on %d ranks" % (r["kernel"], r["ranks"])
        if k == "matmul":
            continue   # below
        check(r["p2p_accuracy"] >= 0.80, "%s: point-to-point %.3f" % (case, r["p2p_accuracy"]))
        check(r["accuracy"] >= 0.80, "%s: accuracy %.3f" % (case, r["accuracy"]))
        if k == "solver":
            # The residual norm, which only the loop's test reads, is one
            # allreduce per iteration, as in the MPI code (it was a reduce
            # before conditions counted as readers).
            check(r["collective_kinds_agree"], "%s: collective kinds differ" % case)
            check_eq((r["collectives"]["allreduce"]["projected_calls"],
                      r["collectives"]["allreduce"]["measured_calls"]), (1.0, 1.0), case)
        else:
            check(r["collective_kinds_agree"] and r["collective_measured"] == 0
                  and r["collective_projected"] == 0, "%s: collectives %r" % (case, r["collectives"]))
        if k != "mesh":
            # mesh: METIS's parts are not the MPI code's blocks, and its
            # busiest rank sends up to a third less than the MPI code's.
            check(r["max_rank_accuracy"] >= 0.80,
                  "%s: most bytes from a rank %.3f" % (case, r["max_rank_accuracy"]))
    # Kernels whose decomposition is unambiguous are exact: the same
    # bytes, pairs and neighbours.
    for r in counted:
        case = "%s on %d ranks" % (r["kernel"], r["ranks"])
        if r["kernel"] == "stencil3d":
            check_eq((r["accuracy"], r["pairs_projected"]), (1.0, r["pairs_measured"]), case)
        if r["kernel"] == "heat2d":
            # A process grid, as the MPI code's (METIS's parts had 32
            # communicating pairs at 8 ranks for its 20).
            check_eq((r["accuracy"], r["pairs_projected"]), (1.0, r["pairs_measured"]), case)
    # The matrix product is projected as point-to-point messages where the
    # MPI code broadcasts B (issue 29): the same total, the wrong kind.
    # The comparison must call it wrong, not average it into a good score.
    for r in counted:
        if r["kernel"] == "matmul":
            case = "matmul on %d ranks" % r["ranks"]
            check(r["collective_measured"] > 0 and r["p2p_measured"] == 0, "%s: %r" % (case, r))
            check(not r["collective_kinds_agree"], "%s: kinds agree" % case)
            check_eq((r["p2p_accuracy"], r["accuracy"]), (0.0, 0.0), case)
    check_eq(proc.returncode, 0, "validate.py status: " + proc.stderr[-1000:])


def _public_runner():
    """scripts/validation/run.py as a module."""
    import importlib.util
    path = os.path.join(HERE, "..", "scripts", "validation", "run.py")
    spec = importlib.util.spec_from_file_location("validation_run", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_public_validation_takes_the_difference_of_two_runs():
    # The public codes' traffic per step is the difference of an MPI run
    # of 20 steps and one of 10, entry by entry and kind by kind: set-up
    # (a broadcast, the first exchange) cancels. 10 steps here send 10 x 8
    # bytes 0 -> 1 and make 10 allreduces on top of a set-up of 100 bytes
    # and one broadcast.
    run = _public_runner()
    code = {"name": "toy"}

    def result(steps):
        return {"ranks": 2, "matrix": [[0, 100 + 8 * steps], [4 * steps, 0]],
                "collectives": {"broadcast": {"calls": 1, "bytes": 8},
                                "allreduce": {"calls": steps, "bytes": 16 * steps}}}

    d = run.difference(code, 2, result(10), result(20), 10, 20)
    (res,) = d["results"]
    check_eq((res["iterations"], res["matrix"], res["p2p_bytes"]), (10, [[0, 80], [40, 0]], 120),
             "matrix of steps 11..20")
    check_eq(res["collectives"], {"allreduce": {"calls": 10, "bytes": 160}},
             "collectives of steps 11..20 (the broadcast cancels)")
    check_eq(res["collective_bytes"], 160, "collective bytes")
    # A longer run that sent less is a failed measurement, not a figure.
    try:
        run.difference(code, 2, result(20), result(10), 20, 10)
    except run.RunFailed:
        pass
    else:
        check(False, "a negative difference was taken as traffic")


def test_public_validation_usage_errors():
    # run.py refuses what it cannot do with a usage line and status 2:
    # both --reproject and --retrace (one keeps the traces, the other
    # makes them again), and a value other than yes or no.
    path = os.path.join(HERE, "..", "scripts", "validation", "run.py")
    for extra in (["--reproject=yes", "--retrace=yes"], ["--retrace=maybe"], ["--bogus=1"]):
        proc = subprocess.run([sys.executable, path, "b", "p", "w"] + extra,
                              capture_output=True, text=True)
        check_eq(proc.returncode, 2, "run.py %s: status" % " ".join(extra))
        check(proc.stderr.startswith("validation: usage: run.py") and proc.stderr.count("\n") == 1,
              "run.py %s: %r" % (" ".join(extra), proc.stderr))
    # Either alone is taken: the run then stops at the missing build.
    for extra in ("--reproject=yes", "--retrace=yes"):
        proc = subprocess.run([sys.executable, path, "/nonexistent", "p", "w", extra],
                              capture_output=True, text=True)
        check_eq((proc.returncode, proc.stderr.split(" (")[0]),
                 (2, "validation: missing /nonexistent/bin/cats"), "run.py %s" % extra)
