#!/usr/bin/env python3
"""run.py: the projection against public mini-apps' own MPI versions.

For each code of codes.json (public mini-apps, fetched and built by hand
outside this repository: docs/VALIDATION.md says how), run its serial
build under cats with --ranks, and its MPI build under Open MPI with
libcats-mpi at the same global size and each rank count, and compare
the two with `cats compare`, per time step:

- measured per step = (run with STEPS2 steps - run with STEPS1 steps) /
  (STEPS2 - STEPS1), matrix entry by entry and collective by collective,
  so set-up and wind-down traffic cancel without touching the code;
- projected per step = the projection's totals / STEPS2 (the serial run's
  step count, known from its command line), whatever region cats chose
  (its choice is reported beside).

usage: run.py BUILD_DIR PROGRAMS_DIR WORK_DIR [--codes=a,b] [--half=tuning|held-out]
              [--config=FILE] [--reproject=yes | --retrace=yes]
A code whose codes.json entry has "match" (rank count -> the MPI code's
own process grid) is also projected on that grid (--grid), and reported
beside the automatic choice, outside the averages.
With --reproject=yes nothing runs again: the serial traces and the
measured figures of an earlier run in WORK_DIR are kept, and the
projection is recomputed from each trace (`cats project`, not the stored
one), so that a change of the projection alone is measured in minutes.
With --retrace=yes the serial runs under cats are made again and the
measured figures of an earlier run in WORK_DIR are kept: a change of
the tool, without the MPI runs.
BUILD_DIR holds bin/cats, vglib/ and lib/libcats-mpi.so; PROGRAMS_DIR the
built programs, named as codes.json says. Prints one Markdown table per
half and writes WORK_DIR/validation.json. Exit status 0 when every run
worked (whatever the accuracy: the figures are what this reports), 1 when
a run failed, 2 on a usage or set-up error."""
import json
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
HALVES = ("tuning", "held-out")


def die(msg, code=2):
    print("validation: " + msg, file=sys.stderr)
    sys.exit(code)


class RunFailed(Exception):
    pass


def run(cmd, env, cwd, log):
    t0 = time.time()
    with open(log, "w") as out:
        proc = subprocess.run(cmd, env=env, cwd=cwd, stdout=out, stderr=subprocess.STDOUT)
    if proc.returncode != 0:
        with open(log) as f:
            tail = f.read()[-1500:]
        raise RunFailed("%s exited %d (log %s):\n%s" % (" ".join(cmd), proc.returncode, log, tail))
    return time.time() - t0


def fill(text, **kw):
    for k, v in kw.items():
        text = text.replace("{%s}" % k, str(v))
    return text


def prepare(code, rundir, steps, programs):
    """A fresh run directory with the code's input decks for STEPS steps."""
    if os.path.exists(rundir):
        shutil.rmtree(rundir)
    os.makedirs(rundir)
    for name, text in code.get("inputs", {}).items():
        with open(os.path.join(rundir, name), "w") as f:
            f.write(fill(text, steps=steps, programs=programs))


def argv(template, programs, steps, grid=""):
    return fill(template, programs=programs, steps=steps, grid=grid).split()


def mpirun(n, lib, out):
    cmd = ["mpirun", "-np", str(n), "--oversubscribe", "-x", "LD_PRELOAD=" + lib,
           "-x", "CATS_MPI_OUT=" + out]
    if os.geteuid() == 0:
        cmd.append("--allow-run-as-root")
    return cmd


def measure(code, n, steps, ctx):
    """One MPI run; its libcats-mpi result for N ranks."""
    rundir = os.path.join(ctx["work"], code["name"], "mpi-%d-%d" % (n, steps))
    prepare(code, rundir, steps, ctx["programs"])
    out = os.path.join(rundir, "measured.json")
    cmd = mpirun(n, ctx["lib"], out) + argv(code["mpi"], ctx["programs"], steps,
                                            code.get("grids", {}).get(str(n), ""))
    run(cmd, ctx["env"], rundir, os.path.join(rundir, "log"))
    with open(out) as f:
        doc = json.load(f)
    (res,) = doc["results"]
    if res["ranks"] != n:
        raise RunFailed("%s: measured %d ranks, asked for %d" % (out, res["ranks"], n))
    return res


def difference(code, n, lo, hi, s1, s2):
    """The measured traffic of steps s1+1..s2: HI - LO, entry by entry."""
    matrix = [[b - a for a, b in zip(ra, rb)] for ra, rb in zip(lo["matrix"], hi["matrix"])]
    if any(v < 0 for row in matrix for v in row):
        raise RunFailed("%s at %d ranks sent less in %d steps than in %d" % (code["name"], n, s2, s1))
    coll = {}
    for kind in set(lo["collectives"]) | set(hi["collectives"]):
        a = lo["collectives"].get(kind, {"calls": 0, "bytes": 0})
        b = hi["collectives"].get(kind, {"calls": 0, "bytes": 0})
        calls, nbytes = b["calls"] - a["calls"], b["bytes"] - a["bytes"]
        if calls < 0 or nbytes < 0:
            raise RunFailed("%s: fewer %s calls in %d steps than in %d" % (code["name"], kind, s2, s1))
        if calls:
            coll[kind] = {"calls": calls, "bytes": nbytes}
    p2p = sum(map(sum, matrix))
    return {"cats_comm": 1, "kind": "measured", "program": code["name"],
            "region": "steps %d..%d (difference of two runs)" % (s1 + 1, s2),
            "results": [{"ranks": n, "iterations": s2 - s1, "p2p_bytes": p2p,
                         "collective_bytes": sum(c["bytes"] for c in coll.values()),
                         "matrix": matrix, "collectives": coll}]}


def project(code, ctx):
    """The serial run under cats; its projection with totals per step."""
    s2 = code["steps"][1]
    rundir = os.path.join(ctx["work"], code["name"], "serial")
    trace = os.path.join(rundir, code["name"] + ".cats")
    ranks = ",".join(str(n) for n in code["ranks"])
    pj = os.path.join(rundir, "projected.json")
    if ctx["reproject"]:
        if not os.path.exists(trace):
            raise RunFailed("no trace %s to project again" % trace)
        secs = run([ctx["cats"], "project", trace, "--ranks=" + ranks, "--json", pj]
                   + code.get("cats_options", []), ctx["env"], rundir,
                   os.path.join(rundir, "project.txt"))
    else:
        prepare(code, rundir, s2, ctx["programs"])
        secs = run(["valgrind", "--tool=cats", "--cats-out-file=" + trace, "--ranks=" + ranks]
                   + code.get("cats_options", []) + argv(code["serial"], ctx["programs"], s2),
                   ctx["env"], rundir, os.path.join(rundir, "log"))
        run([ctx["cats"], "project", trace, "--stored", "--json", pj], ctx["env"], rundir,
            os.path.join(rundir, "project.txt"))
    with open(pj) as f:
        doc = json.load(f)
    region = doc.get("region")
    for res in doc["results"]:
        res["cats_iterations"] = res["iterations"]
        res["iterations"] = s2
    doc["region"] = "per step of %d (cats chose %s)" % (s2, region)
    out = os.path.join(rundir, "projected.per-step.json")
    with open(out, "w") as f:
        json.dump(doc, f)
    return out, region, secs


def project_matched(code, ctx):
    """The projection on the MPI code's own process grids (codes.json
    "match": rank count -> grid, slowest dimension of the serial code's
    arrays first), per step, or None when the code names none."""
    match = code.get("match")
    if not match:
        return None
    s2 = code["steps"][1]
    rundir = os.path.join(ctx["work"], code["name"], "serial")
    trace = os.path.join(rundir, code["name"] + ".cats")
    ranks = ",".join(str(n) for n in code["ranks"])
    grids = ",".join(match[str(n)] for n in code["ranks"] if str(n) in match)
    pj = os.path.join(rundir, "projected.matched.json")
    run([ctx["cats"], "project", trace, "--ranks=" + ranks, "--grid=" + grids, "--json", pj]
        + code.get("cats_options", []), ctx["env"], rundir,
        os.path.join(rundir, "project.matched.txt"))
    with open(pj) as f:
        doc = json.load(f)
    for res in doc["results"]:
        res["cats_iterations"] = res["iterations"]
        res["iterations"] = s2
    out = os.path.join(rundir, "projected.matched.per-step.json")
    with open(out, "w") as f:
        json.dump(doc, f)
    return out


def validate(code, ctx):
    rows = []
    s1, s2 = code["steps"]
    proj, region, secs = project(code, ctx)
    matched = project_matched(code, ctx)
    for n in code["ranks"]:
        mpath = os.path.join(ctx["work"], code["name"], "measured.per-step.%d.json" % n)
        if not (ctx["reproject"] or ctx["retrace"]):
            meas = difference(code, n, measure(code, n, s1, ctx), measure(code, n, s2, ctx),
                              s1, s2)
            with open(mpath, "w") as f:
                json.dump(meas, f)
        elif not os.path.exists(mpath):
            raise RunFailed("no measured figures %s to compare with" % mpath)
        for which, path in (("", proj), (".matched", matched)):
            if path is None or (which and str(n) not in code["match"]):
                continue
            cpath = os.path.join(ctx["work"], code["name"], "compare%s.%d.json" % (which, n))
            run([ctx["cats"], "compare", path, mpath, "--ranks=%d" % n, "--json", cpath],
                ctx["env"], ctx["work"], cpath + ".txt")
            with open(cpath) as f:
                c = json.load(f)
            c.update(code=code["name"] + (" (MPI's grid %s)" % code["match"][str(n)]
                                          if which else ""),
                     half=code["half"], region=region, serial_seconds=secs,
                     matched=bool(which))
            rows.append(c)
    return rows


def table(rows):
    print("| code | ranks | p2p B/step projected / measured | p2p | collective B/step projected"
          " / measured | collective | kinds | pairs projected / measured | headline |")
    print("|---|---|---|---|---|---|---|---|---|")
    for c in rows:
        print("| %s | %d | %.0f / %.0f | %.1f%% | %.0f / %.0f | %.1f%% | %s | %d / %d | %.1f%% |"
              % (c["code"], c["ranks"], c["p2p_projected"], c["p2p_measured"],
                 100 * c["p2p_accuracy"], c["collective_projected"], c["collective_measured"],
                 100 * c["collective_accuracy"], "agree" if c["collective_kinds_agree"] else "differ",
                 c["pairs_projected"], c["pairs_measured"], 100 * c["accuracy"]))


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    opts = dict(a[2:].split("=", 1) for a in sys.argv[1:] if a.startswith("--") and "=" in a)
    if len(args) != 3 or set(opts) - {"codes", "half", "config", "reproject", "retrace"} or \
            opts.get("reproject", "no") not in ("yes", "no") or \
            opts.get("retrace", "no") not in ("yes", "no") or \
            opts.get("reproject") == opts.get("retrace") == "yes":
        die("usage: run.py BUILD_DIR PROGRAMS_DIR WORK_DIR [--codes=a,b] "
            "[--half=tuning|held-out] [--config=FILE] [--reproject=yes | --retrace=yes]")
    build, programs, work = (os.path.abspath(a) for a in args)
    with open(opts.get("config", os.path.join(HERE, "codes.json"))) as f:
        codes = json.load(f)["codes"]
    if "codes" in opts:
        want = opts["codes"].split(",")
        unknown = set(want) - {c["name"] for c in codes}
        if unknown:
            die("no such code: " + ", ".join(sorted(unknown)))
        codes = [c for c in codes if c["name"] in want]
    if "half" in opts:
        if opts["half"] not in HALVES:
            die("--half is tuning or held-out")
        codes = [c for c in codes if c["half"] == opts["half"]]
    ctx = {"work": work, "programs": programs, "cats": os.path.join(build, "bin", "cats"),
           "lib": os.path.join(build, "lib", "libcats-mpi.so"),
           "reproject": opts.get("reproject") == "yes",
           "retrace": opts.get("retrace") == "yes",
           "env": dict(os.environ, VALGRIND_LIB=os.path.join(build, "vglib"),
                       OMPI_MCA_btl_vader_single_copy_mechanism="none")}
    for need in (ctx["cats"], ctx["lib"], os.path.join(build, "vglib")):
        if not os.path.exists(need):
            die("missing %s (build first)" % need)
    if not shutil.which("mpirun"):
        die("mpirun not found (apt-get install openmpi-bin libopenmpi-dev)")
    os.makedirs(work, exist_ok=True)
    rows, failed = [], []
    for code in codes:
        try:
            rows += validate(code, ctx)
        except RunFailed as e:
            failed.append({"code": code["name"], "half": code["half"], "error": str(e)})
            print("validation: %s: %s" % (code["name"], e), file=sys.stderr)
    for half in HALVES:
        every = [c for c in rows if c["half"] == half]
        mine = [c for c in every if not c.get("matched")]
        if not mine:
            continue
        print("\n%s half\n" % half)
        table(every)
        print("\naverage: p2p %.1f%%, headline %.1f%%; lowest p2p %.1f%%"
              % (100 * sum(c["p2p_accuracy"] for c in mine) / len(mine),
                 100 * sum(c["accuracy"] for c in mine) / len(mine),
                 100 * min(c["p2p_accuracy"] for c in mine)))
    with open(os.path.join(work, "validation.json"), "w") as f:
        json.dump({"rows": rows, "failed": failed}, f, indent=1)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
