#!/usr/bin/env python3
"""validate.py: the projection against real MPI runs.

For every tests/validation/KERNEL_serial.c with a KERNEL_mpi.c beside it:
run the serial program under cats with --ranks, run the MPI program under
Open MPI with libcats-mpi at the same rank counts, and compare the two
with `cats compare`. Prints a Markdown table (one row per kernel and rank
count) and writes the results as JSON.

usage: validate.py BUILD_DIR WORK_DIR [--ranks=2,4,8] [--kernels=a,b]
BUILD_DIR holds bin/cats, vglib/ and lib/libcats-mpi.so. Exit status 0 when
every kernel ran and was compared, 1 when a run failed or the MPI and serial
programs disagree, 2 on a usage or set-up error. These kernels are
regression tests (the projection was tuned on them); tests/test_validation.py
gates each component per kernel."""
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.abspath(os.path.join(HERE, "..", ".."))
# The MPI runs are started as the public codes' are (scripts/validation/run.py).
sys.path.insert(0, os.path.join(SRC, "scripts", "validation"))
from run import mpirun as mpirun_cmd  # noqa: E402
# Other MPI versions of a kernel, built by build.sh as KERNEL_mpi_VARIANT:
# reported beside the main one, not counted in the targets.
VARIANTS = {"matmul": ["summa"]}


def die(msg, code=2):
    print("validate: " + msg, file=sys.stderr)
    sys.exit(code)


def run(cmd, env=None, cwd=None):
    proc = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True)
    if proc.returncode != 0:
        die("%s failed (%d):\n%s%s" % (" ".join(cmd), proc.returncode, proc.stdout[-2000:],
                                        proc.stderr[-2000:]), 1)
    return proc


def kernels(selected):
    names = sorted(f[:-len("_serial.c")] for f in os.listdir(HERE) if f.endswith("_serial.c"))
    names = [n for n in names if os.path.exists(os.path.join(HERE, n + "_mpi.c"))]
    if selected:
        unknown = set(selected) - set(names)
        if unknown:
            die("no such kernel: %s (have %s)" % (", ".join(sorted(unknown)), ", ".join(names)))
        names = [n for n in names if n in selected]
    return names


def build(work):
    bindir = os.path.join(work, "bin")
    os.makedirs(bindir, exist_ok=True)
    run(["sh", os.path.join(HERE, "build.sh"), bindir])
    return bindir


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    opts = dict(a[2:].split("=", 1) for a in sys.argv[1:] if a.startswith("--") and "=" in a)
    if len(args) != 2 or set(opts) - {"ranks", "kernels"}:
        die("usage: validate.py BUILD_DIR WORK_DIR [--ranks=2,4,8] [--kernels=a,b]")
    build_dir, work = (os.path.abspath(a) for a in args)
    ranks = [int(r) for r in opts.get("ranks", "2,4,8").split(",")]
    cats = os.path.join(build_dir, "bin", "cats")
    lib = os.path.join(build_dir, "lib", "libcats-mpi.so")
    for need in (cats, lib, os.path.join(build_dir, "vglib")):
        if not os.path.exists(need):
            die("missing %s (build first)" % need)
    if not shutil.which("mpirun"):
        die("mpirun not found (apt-get install openmpi-bin libopenmpi-dev)")
    os.makedirs(work, exist_ok=True)
    bindir = build(work)
    env = dict(os.environ, VALGRIND_LIB=os.path.join(build_dir, "vglib"),
               OMPI_MCA_btl_vader_single_copy_mechanism="none")
    rows = []
    for k in kernels(opts.get("kernels", "").split(",") if opts.get("kernels") else None):
        trace = os.path.join(work, k + ".cats")
        serial = run(["valgrind", "--tool=cats", "--cats-out-file=" + trace,
                      "--ranks=" + ",".join(map(str, ranks)), os.path.join(bindir, k + "_serial")],
                     env=env, cwd=work)
        proj = os.path.join(work, k + ".projected.json")
        run([cats, "project", trace, "--json", proj])
        want = serial.stdout.strip().splitlines()[-1]
        for variant, n in [(v, n) for v in [""] + VARIANTS.get(k, []) for n in ranks]:
            mpi_name = k + "_mpi" + ("_" + variant if variant else "")
            meas = os.path.join(work, "%s.measured.%d.json" % (mpi_name, n))
            if os.path.exists(meas):
                os.unlink(meas)
            mpi = run(mpirun_cmd(n, lib, meas) + [os.path.join(bindir, mpi_name)], env=env,
                      cwd=work)
            got = mpi.stdout.strip().splitlines()[-1] if mpi.stdout.strip() else ""
            if got != want:
                die("%s on %d ranks prints %r, the serial version %r" % (k, n, got, want), 1)
            cmp_json = os.path.join(work, "%s.compare.%d.json" % (mpi_name, n))
            run([cats, "compare", proj, meas, "--json", cmp_json])
            with open(cmp_json) as f:
                c = json.load(f)
            c["kernel"] = k + (" (%s, not counted)" % variant if variant else "")
            c["counted"] = not variant
            rows.append(c)
    if not rows:
        die("no kernels found in " + HERE)
    print("| kernel | ranks | p2p B/iter projected / measured | p2p accuracy | collective "
          "B/iter projected / measured | collective accuracy | kinds | pairs projected / "
          "measured | accuracy |")
    print("|---|---|---|---|---|---|---|---|---|")
    for c in rows:
        print("| %s | %d | %.0f / %.0f | %.1f%% | %.0f / %.0f | %.1f%% | %s | %d / %d | %.1f%% |"
              % (c["kernel"], c["ranks"], c["p2p_projected"], c["p2p_measured"],
                 100 * c["p2p_accuracy"], c["collective_projected"], c["collective_measured"],
                 100 * c["collective_accuracy"],
                 "agree" if c["collective_kinds_agree"] else "differ",
                 c["pairs_projected"], c["pairs_measured"], 100 * c["accuracy"]))
    counted = [c for c in rows if c["counted"]]
    avg = sum(c["accuracy"] for c in counted) / len(counted)
    worst = min(counted, key=lambda c: c["accuracy"])
    print("\naverage accuracy %.1f%%, lowest %.1f%% (%s, %d ranks); accuracy charges "
          "bytes of the wrong kind twice (docs/PROJECTION.md)"
          % (100 * avg, 100 * worst["accuracy"], worst["kernel"], worst["ranks"]))
    with open(os.path.join(work, "validation.json"), "w") as f:
        json.dump({"rows": rows, "average": avg, "lowest": worst["accuracy"]}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
# SPDX-License-Identifier: GPL-2.0-or-later
