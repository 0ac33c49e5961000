# SPDX-License-Identifier: GPL-2.0-or-later
"""libcats-mpi (mpi/*.c), the PMPI library that measures a real MPI run:
exact matrices, collective calls and bytes of tests/programs/mpi_known.c
on 4 ranks, with and without an MPI_Pcontrol region (docs/COMM-JSON.md).

The library is the one the build made (BUILD/lib/libcats-mpi.so), unless
CATS_MPI_LIB names another."""
import json
import os
import shutil
import subprocess

from catslib import BUILD, RUN_TIMEOUT, WORK, TestFailure, check, check_eq

SRC = os.path.abspath(os.path.dirname(__file__))
RANKS = 4
# Open MPI refuses to run as root without these; harmless otherwise.
MPI_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}

_built = {}


def _mpicc(args, what):
    if shutil.which("mpicc") is None or shutil.which("mpirun") is None:
        raise TestFailure("mpicc and mpirun are needed (apt-get install libopenmpi-dev openmpi-bin)")
    proc = subprocess.run(["mpicc"] + args, capture_output=True, text=True)
    if proc.returncode != 0:
        raise TestFailure("cannot build %s: %s" % (what, proc.stderr[-2000:]))


def _library():
    """The libcats-mpi.so the build made (BUILD/lib), or CATS_MPI_LIB."""
    if "lib" not in _built:
        lib = os.environ.get("CATS_MPI_LIB") or os.path.join(BUILD, "lib", "libcats-mpi.so")
        if not os.path.exists(lib):
            raise TestFailure("no %s: build first (make)" % lib)
        _built["lib"] = os.path.abspath(lib)
    return _built["lib"]


def _program():
    if "prog" not in _built:
        out = os.path.join(WORK, "mpi_known")
        _mpicc(["-std=c11", "-g", "-O0", "-o", out, os.path.join(SRC, "programs", "mpi_known.c")],
               "mpi_known")
        _built["prog"] = out
    return _built["prog"]


def _mpirun(mode, out=None, cwd=None, preload_in_env=False):
    """Runs mpi_known MODE on 4 ranks with the library preloaded, through
    `mpirun -x LD_PRELOAD=...` or, with preload_in_env, through
    `LD_PRELOAD=... mpirun`. OUT is CATS_MPI_OUT (None: unset).
    Returns the completed process."""
    lib, prog = _library(), _program()
    env = dict(os.environ, **MPI_ENV)
    env.pop("CATS_MPI_OUT", None)
    env.pop("LD_PRELOAD", None)
    cmd = ["mpirun", "--oversubscribe", "-np", str(RANKS)]
    if preload_in_env:
        env["LD_PRELOAD"] = lib
    else:
        cmd += ["-x", "LD_PRELOAD=" + lib]
    if out is not None:
        cmd += ["-x", "CATS_MPI_OUT=" + out]
    cmd += [prog, mode]
    try:
        return subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True,
                              timeout=RUN_TIMEOUT)
    except subprocess.TimeoutExpired:
        raise TestFailure("mpirun did not finish within %ds: %s" % (RUN_TIMEOUT, " ".join(cmd)))


def _measure(mode):
    """(JSON, process) of a run of mpi_known MODE written to WORK."""
    out = os.path.join(WORK, "mpi_known.%s.json" % mode)
    if os.path.exists(out):
        os.unlink(out)
    proc = _mpirun(mode, out=out)
    check_eq(proc.returncode, 0, "exit status of mpirun (stderr %r)" % proc.stderr[-2000:])
    check(os.path.exists(out), "no %s: %s" % (out, proc.stderr[-2000:]))
    with open(out) as f:
        return json.load(f), proc


def _cart_edges(stdout):
    """{(sender, receiver)} of the Cartesian step: the program prints
    'cart RECEIVER SENDER', the sender's world rank taken from the message,
    since MPI_Cart_create may reorder ranks."""
    edges = set()
    for line in stdout.splitlines():
        if line.startswith("cart "):
            recv, send = map(int, line.split()[1:])
            edges.add((send, recv))
    check_eq(len(edges), RANKS, "Cartesian messages %r" % sorted(edges))
    check_eq(sorted(s for s, _ in edges), list(range(RANKS)), "Cartesian senders")
    check_eq(sorted(r for _, r in edges), list(range(RANKS)), "Cartesian receivers")
    check(all(s != r for s, r in edges), "a Cartesian message to self: %r" % sorted(edges))
    return edges


# The region: 10 steps, each r -> r+3 of 4 doubles and one allreduce of
# 1 double (2 * 8 * 3 bytes).
REGION_MATRIX = [[0, 0, 0, 320], [320, 0, 0, 0], [0, 320, 0, 0], [0, 0, 320, 0]]
REGION_COLLECTIVES = {"allreduce": {"calls": 10, "bytes": 480}}

# The whole run (see the comments of mpi_known.c)
WHOLE_COLLECTIVES = {
    "barrier": {"calls": 3, "bytes": 0},
    "broadcast": {"calls": 2, "bytes": 36 + 48},
    "reduce": {"calls": 2, "bytes": 48 + 24},
    "allreduce": {"calls": 10 + 2 + 1, "bytes": 480 + 2 * 16 + 24},
    "gather": {"calls": 2, "bytes": 12 + 36},
    "scatter": {"calls": 2, "bytes": 12 + 36},
    "allgather": {"calls": 3, "bytes": 48 + 120 + 96},
    "alltoall": {"calls": 2, "bytes": 96 + 192},
    "reduce_scatter": {"calls": 2, "bytes": 48 + 72},
}


def _whole_matrix(cart):
    m = [[0] * RANKS for _ in range(RANKS)]
    for r in range(RANKS):
        m[r][(r + 1) % RANKS] += 800 + 24      # ring; Ssend, Bsend, Rsend
        m[r][r ^ 2] += 40                      # Isend
        m[r][(r + 3) % RANKS] += 48 + 32 + 320  # Issend...Irsend; 11 starts
        m[r][r ^ 1] += 28                      # Sendrecv_replace
    for s, r in cart:
        m[s][r] += 40                          # Sendrecv on the Cartesian dup
    return m


def _check_header(j, region, iterations):
    check_eq(j["cats_comm"], 1, "cats_comm")
    check_eq(j["kind"], "measured", "kind")
    check_eq(os.path.basename(j["program"]), "mpi_known", "program")
    check_eq(j["region"], region, "region")
    check_eq(len(j["results"]), 1, "number of results")
    res = j["results"][0]
    check_eq(res["ranks"], RANKS, "ranks")
    check_eq(res["iterations"], iterations, "iterations")
    return res


def _check_totals(res):
    check_eq(res["p2p_bytes"], sum(map(sum, res["matrix"])), "p2p_bytes is the matrix sum")
    check_eq(res["collective_bytes"], sum(c["bytes"] for c in res["collectives"].values()),
             "collective_bytes is the collectives' sum")


def test_mpi_pcontrol_region_only():
    j, _ = _measure("region")
    res = _check_header(j, "MPI_Pcontrol", 10)
    check_eq(res["matrix"], REGION_MATRIX, "matrix of the region")
    check_eq(res["collectives"], REGION_COLLECTIVES, "collectives of the region")
    check_eq(res["p2p_bytes"], 1280, "p2p_bytes of the region")
    check_eq(res["collective_bytes"], 480, "collective_bytes of the region")


def test_mpi_whole_run_without_pcontrol():
    j, proc = _measure("whole")
    res = _check_header(j, None, 0)
    check_eq(res["matrix"], _whole_matrix(_cart_edges(proc.stdout)), "matrix of the whole run")
    check_eq(res["collectives"], WHOLE_COLLECTIVES, "collectives of the whole run")
    check_eq(res["p2p_bytes"], 5328, "p2p_bytes of the whole run")
    check_eq(res["collective_bytes"], 1460, "collective_bytes of the whole run")
    _check_totals(res)


def test_mpi_default_path_with_preload_on_mpirun():
    # `LD_PRELOAD=lib mpirun ...` and no CATS_MPI_OUT: cats-mpi.4.json in
    # the current directory, and no temporary file left beside it
    cwd = os.path.join(WORK, "mpi-default")
    shutil.rmtree(cwd, ignore_errors=True)
    os.makedirs(cwd)
    proc = _mpirun("region", cwd=cwd, preload_in_env=True)
    check_eq(proc.returncode, 0, "exit status of mpirun (stderr %r)" % proc.stderr[-2000:])
    check_eq(sorted(os.listdir(cwd)), ["cats-mpi.4.json"], "files written")
    with open(os.path.join(cwd, "cats-mpi.4.json")) as f:
        j = json.load(f)
    res = _check_header(j, "MPI_Pcontrol", 10)
    check_eq(res["matrix"], REGION_MATRIX, "matrix of the region")
    check_eq(res["collectives"], REGION_COLLECTIVES, "collectives of the region")


def test_mpi_unwritable_output_is_one_line():
    missing = os.path.join(WORK, "no-such-dir")
    out = os.path.join(missing, "m.json")
    proc = _mpirun("whole", out=out)
    check_eq(proc.returncode, 0, "exit status of mpirun (stderr %r)" % proc.stderr[-2000:])
    lines = [l for l in proc.stderr.splitlines() if "libcats-mpi" in l]
    check_eq(lines, ["libcats-mpi: cannot write %s: No such file or directory" % out],
             "error lines")
    check(not os.path.exists(missing), "%s was created" % missing)


def test_mpi_fortran_calls_are_counted():
    # mpi_known_f.f90 on 4 ranks: the Fortran bindings call PMPI_*
    # directly, so only the library's Fortran entry points see them.
    # Rank r sends 3 x 10 doubles to r+1, 6 integers to r+2 (ISEND) and
    # 2 doubles to r+3 (SENDRECV); see the program's comment for the rest.
    if shutil.which("mpif90") is None:
        raise TestFailure("mpif90 is needed (apt-get install libopenmpi-dev gfortran)")
    prog = os.path.join(WORK, "mpi_known_f")
    proc = subprocess.run(["mpif90", "-g", "-O0", "-o", prog,
                           os.path.join(SRC, "programs", "mpi_known_f.f90")],
                          capture_output=True, text=True)
    check_eq(proc.returncode, 0, "mpif90 (stderr %r)" % proc.stderr[-2000:])
    out = os.path.join(WORK, "mpi_known_f.json")
    if os.path.exists(out):
        os.unlink(out)
    env = dict(os.environ, **MPI_ENV)
    env.pop("LD_PRELOAD", None)
    proc = subprocess.run(["mpirun", "--oversubscribe", "-np", str(RANKS), "-x",
                           "LD_PRELOAD=" + _library(), "-x", "CATS_MPI_OUT=" + out, prog],
                          env=env, capture_output=True, text=True, timeout=RUN_TIMEOUT)
    check_eq(proc.returncode, 0, "exit status of mpirun (stderr %r)" % proc.stderr[-2000:])
    with open(out) as f:
        res = json.load(f)["results"][0]
    want = [[0] * RANKS for _ in range(RANKS)]
    for r in range(RANKS):
        want[r][(r + 1) % RANKS] = 3 * 10 * 8
        want[r][(r + 2) % RANKS] = 6 * 4
        want[r][(r + 3) % RANKS] = 2 * 8
    check_eq(res["matrix"], want, "matrix")
    check_eq(res["collectives"], {"broadcast": {"calls": 1, "bytes": 5 * 4 * 3},
                                  "reduce": {"calls": 1, "bytes": 8 * 3},
                                  "allreduce": {"calls": 2, "bytes": 2 * 2 * 32 * 3},
                                  "barrier": {"calls": 1, "bytes": 0}}, "collectives")
