# SPDX-License-Identifier: GPL-2.0-or-later
"""The communication projection (paper 003, §4.2): tool --ranks at exit,
`cats project` offline, `cats compare` against measured JSON. Expected
volumes are derived by hand from the programs."""
import json
import os

from catslib import WORK, cats_cmd, check, check_eq, compile_program, example_trace, run_cats, traced


def _projection(trace, *args):
    out = os.path.join(WORK, "proj-%d.json" % abs(hash((trace,) + args)))
    cats_cmd("project", trace, "--json", out, *args)
    with open(out) as f:
        return json.load(f)


def _by_ranks(doc):
    return {r["ranks"]: r for r in doc["results"]}


def _per_iter(r, key="p2p_bytes"):
    return r[key] / r["iterations"] if r["iterations"] else r[key]


def test_stencil_projection_exact():
    # vf_stencil.c: 30 values on a line, each from its neighbours, 100 steps.
    # k ranks cut the line k-1 times; each cut moves one value each way per
    # step: 16 bytes per cut per step.
    trace, proc = traced("vf_stencil.c", ("-O2",), tool_args=("--ranks=2,3,4",))
    # The time loop is named by its for (line 15).
    check("projected communication per iteration of loop vf_stencil.c:15 "
          "(chosen automatically; 100 iterations)" in proc.stderr,
          "the table names the time loop: %s" % proc.stderr[-1500:])
    stored = json.loads(json.dumps(_projection(trace.path, "--stored")))
    again = _projection(trace.path)
    check_eq(again["results"], stored["results"], "recomputed = stored projection")
    res = _by_ranks(again)
    for k in (2, 3, 4):
        check_eq(res[k]["iterations"], 100, "iterations")
        check_eq(_per_iter(res[k]), 16 * (k - 1), "bytes per step on %d ranks" % k)
        check_eq(res[k]["collective_bytes"], 0, "collectives on %d ranks" % k)
    check_eq(res[2]["matrix"], [[0, 800], [800, 0]], "2-rank matrix")
    check_eq(again["region"], "loop vf_stencil.c:15", "region")


def test_norm_singletons():
    # vf_norm.c: a sum of squares of every y, read by every x through the
    # norm: one allreduce of 8 bytes per step, no point-to-point traffic;
    # alpha, set once and read by every y, is broadcast once in the run.
    trace, _ = traced("vf_norm.c", ("-O2",))
    res = _by_ranks(_projection(trace.path, "--ranks=2,4"))
    for k in (2, 4):
        check_eq(res[k]["p2p_bytes"], 0, "point-to-point on %d ranks" % k)
        check_eq(res[k]["collectives"], {"allreduce": {"calls": 10, "bytes": 10 * 2 * 8 * (k - 1)}},
                 "collectives per run of the loop on %d ranks" % k)
    whole = _by_ranks(_projection(trace.path, "--ranks=4", "--per=main"))[4]
    check_eq(whole["collectives"], {"broadcast": {"calls": 1, "bytes": 8 * 3},
                                    "allreduce": {"calls": 10, "bytes": 10 * 2 * 8 * 3}},
             "per run of main: alpha broadcast once, ten allreduces")
    check_eq(whole["iterations"], 1, "main runs once")
    listing = cats_cmd("project", trace.path, "--ranks=2", "--singletons").stdout
    check(any(l.split()[:1] == ["broadcast"] and "alpha+0" in l for l in listing.splitlines()),
          "alpha listed as a broadcast singleton:\n" + listing)


def _per_step_by_level(program):
    """Projected point-to-point bytes per step on 2, 4 and 8 ranks of
    PROGRAM built at -O0, -O2 and -O3 with AVX2, by level."""
    got = {}
    for flags in (("-O0",), ("-O2",), ("-O3", "-mavx2")):
        trace, _ = traced(program, flags)
        res = _by_ranks(_projection(trace.path, "--ranks=2,4,8"))
        got[flags[0]] = {k: _per_iter(res[k]) for k in (2, 4, 8)}
    return got


def test_levels_agree():
    # vf_heat2d.c: a 32x32 interior, 5-point stencil with the centre term.
    # The graph of the time loop is the same at every level, and so is the
    # projection; two ranks need at least one 32-value line each way.
    got = _per_step_by_level("vf_heat2d.c")
    for k in (2, 4, 8):
        vals = [got[o][k] for o in got]
        check(max(vals) <= 1.05 * min(vals), "%d ranks: levels disagree: %r" % (k, got))
    check(512 <= got["-O2"][2] <= 1.05 * 512, "2 ranks: %r, want 512 to 538" % got["-O2"][2])


def test_levels_agree_when_lanes_share_a_value():
    # vf_pairs.c: 128 particles on a line, each summing the force of the 2
    # on either side. gcc -O2 updates fx and fy as one pair of doubles,
    # whose lanes both multiply the same 1/r^3; at -O0 they are two scalar
    # updates. The graph must not depend on it: k ranks cut the line k-1
    # times, and each cut moves the x and y of 2 particles each way per
    # step: 64 bytes per cut per step at every level.
    got = _per_step_by_level("vf_pairs.c")
    for level, per_step in got.items():
        for k in (2, 4):
            check_eq(per_step[k], 64 * (k - 1), "%s: bytes per step on %d ranks" % (level, k))
    vals = [got[o][8] for o in got]
    check(max(vals) <= 1.05 * min(vals), "8 ranks: levels disagree: %r" % got)


def test_compare_accuracy():
    trace, _ = traced("vf_stencil.c", ("-O2",), tool_args=("--ranks=2,3,4",))
    proj = os.path.join(WORK, "stencil-proj.json")
    cats_cmd("project", trace.path, "--json", proj)
    measured = {"cats_comm": 1, "kind": "measured", "program": "stencil_mpi",
                "region": "MPI_Pcontrol",
                "results": [{"ranks": 4, "iterations": 50, "p2p_bytes": 2400,
                             "collective_bytes": 0,
                             # the same 48 bytes per step, numbered differently
                             "matrix": [[0, 0, 0, 400], [0, 0, 400, 400], [0, 400, 0, 0],
                                        [400, 400, 0, 0]],
                             "collectives": {}}]}
    meas = os.path.join(WORK, "stencil-meas.json")
    with open(meas, "w") as f:
        json.dump(measured, f)
    out = os.path.join(WORK, "stencil-cmp.json")
    text = cats_cmd("compare", proj, meas, "--json", out).stdout
    with open(out) as f:
        c = json.load(f)
    # Entries are compared largest first, per step.
    with open(proj) as f:
        pm = _by_ranks(json.load(f))[4]
    pe = sorted((x / 100 for row in pm["matrix"] for x in row), reverse=True)
    me = sorted((x / 50 for row in measured["results"][0]["matrix"] for x in row), reverse=True)
    want_entries = 1 - sum(abs(a - b) for a, b in zip(pe, me)) / sum(me)
    check_eq((c["ranks"], c["per_iteration"], c["accuracy"], round(c["entry_accuracy"], 5)),
             (4, True, 1.0, round(want_entries, 5)), "identical traffic per step")
    check("agree" in text, "neighbour structure agrees: " + text)
    measured["results"][0]["matrix"] = [[0, 0, 0, 800], [0, 0, 800, 800], [0, 800, 0, 0],
                                        [800, 800, 0, 0]]
    measured["results"][0]["p2p_bytes"] = 4800
    with open(meas, "w") as f:
        json.dump(measured, f)
    cats_cmd("compare", proj, meas, "--json", out)
    with open(out) as f:
        c = json.load(f)
    check_eq(round(c["accuracy"], 6), 0.5, "half the measured traffic")
    check_eq((c["pairs_projected"], c["pairs_measured"]), (6, 6), "communicating pairs")
    check_eq(round(c["max_rank_accuracy"], 6), 0.5, "the busiest rank sends half")
    # The same bytes as a broadcast in the MPI code: the right total, the
    # wrong kind. Point-to-point and collectives are each 0% and the
    # headline charges the bytes twice (missing as p2p, extra as nothing
    # measured where projected): 0%, never the total's 100%.
    total = sum(sum(row) for row in pm["matrix"]) // 100 * 50
    measured["results"][0].update(p2p_bytes=0, collective_bytes=total,
                                  matrix=[[0] * 4 for _ in range(4)],
                                  collectives={"broadcast": {"calls": 50, "bytes": total}})
    with open(meas, "w") as f:
        json.dump(measured, f)
    text = cats_cmd("compare", proj, meas, "--json", out).stdout
    with open(out) as f:
        c = json.load(f)
    check_eq((c["projected_bytes"], c["measured_bytes"]), (c["measured_bytes"], total / 50),
             "the same bytes per step")
    check_eq((c["p2p_accuracy"], c["collective_accuracy"], c["accuracy"], c["collective_kinds_agree"]),
             (0.0, 0.0, 0.0, False), "the wrong kind is wrong")
    check_eq(c["collectives"]["broadcast"]["measured_calls"], 1.0, "one broadcast per step")
    check("broadcast" in text and "accuracy 0.0%" in text.splitlines()[-1], text)


def test_projection_errors():
    binary = compile_program("vf_stencil.c", ("-O2",))
    _, proc = run_cats(binary, tool_args=("--ranks=2,0",), out=os.path.join(WORK, "bad.cats"))
    check(proc.returncode != 0 and "--ranks=2,0" in proc.stderr, "bad --ranks refused")
    _, proc = run_cats(binary, tool_args=("--ranks=2", "--value-flow=no"),
                       out=os.path.join(WORK, "bad2.cats"))
    check(proc.returncode != 0 and "value-flow=yes" in proc.stderr,
          "--ranks needs the value flow: " + proc.stderr[-500:])
    check(not os.path.exists(os.path.join(WORK, "bad2.cats")), "no trace after a bad option")
    plain, _ = traced("vf_stencil.c", ("-O2",), tool_args=("--value-flow=no",))
    p = cats_cmd("project", plain.path, check_rc=False)
    check(p.returncode == 1 and p.stderr.count("\n") == 1 and "--value-flow=no" in p.stderr,
          "no graph: one line, status 1: %r" % p.stderr)
    trace, _ = traced("vf_stencil.c", ("-O2",), tool_args=("--ranks=2,3,4",))
    for args, status, text in ((("--per=nosuch",), 1, "--per=nosuch"),
                               (("--ranks=2,x",), 2, "--ranks=2,x"),
                               (("--singleton-threshold=2",), 2, "bad value"),
                               (("--stored", "--json", "/nonexistent/dir/p.json"), 1, "/nonexistent")):
        p = cats_cmd("project", trace.path, *args, check_rc=False)
        check(p.returncode == status and text in p.stderr and p.stderr.count("\n") == 1,
              "project %s: status %d, %r" % (args, p.returncode, p.stderr))
    check(not os.path.exists("/nonexistent/dir/p.json"), "no file written")
    bad = os.path.join(WORK, "notjson.json")
    with open(bad, "w") as f:
        f.write("{\"cats_comm\": 1, \"results\": [")
    p = cats_cmd("compare", bad, bad, check_rc=False)
    check(p.returncode == 1 and p.stderr.startswith("cats: ") and p.stderr.count("\n") == 1,
          "truncated JSON: %r" % p.stderr)
    proj = os.path.join(WORK, "stencil-proj2.json")
    cats_cmd("project", trace.path, "--json", proj)
    p = cats_cmd("compare", proj, proj, "--ranks=16", check_rc=False)
    check(p.returncode == 1 and "16 ranks" in p.stderr, "missing rank count: %r" % p.stderr)


def test_memset_initialised_stencil_moves_whole_values():
    # vf_memset_stencil.c: the same 1-D stencil on heap arrays set up with
    # memset, calloc or a loop. Its MPI version at 2 ranks sends one halo
    # double each way per step: 16 bytes, however the arrays were zeroed
    # (issue 29: a word's size is its program type's, not its first
    # store's: memset's byte stores made it 2 bytes).
    for how in ("loop", "memset", "calloc"):
        trace, _ = traced("vf_memset_stencil.c", ("-O2",), args=(how,), tool_args=("--ranks=2",))
        out = os.path.join(WORK, "memset-%s.json" % how)
        cats_cmd("project", trace.path, "--json", out)
        with open(out) as f:
            r = _by_ranks(json.load(f))[2]
        check_eq((_per_iter(r), _per_iter(r, "collective_bytes")), (16, 0),
                 "bytes per step, arrays set up with %s" % how)


def test_a_sum_nothing_reads_in_the_loop_is_reduced_once_after_it():
    # examples/heat.c sums the boundary flux at every step (flux +=
    # boundary_flux(v), 20 steps) and prints it after the loop: nothing
    # reads it while the loop runs, not even a condition, so an MPI
    # version sums its part on each rank and reduces once, at the end: no
    # collective per step (CoMD's energy, reduced only when printed).
    # Before: 20 reduce calls, one per step.
    trace = example_trace(("--ranks=2",))
    r = _by_ranks(_projection(trace, "--ranks=2,4"))
    for k in (2, 4):
        check_eq((r[k]["iterations"], r[k]["collectives"]), (20, {}),
                 "reductions on %d ranks" % k)


def test_a_norm_tested_for_convergence_is_allreduced_every_sweep():
    # vf_converge.c: 40 Jacobi sweeps of a rod of 4,096 points, each sums
    # the squared residual, whose root the loop's condition tests, and an
    # energy printed after the loop. Every rank must leave the loop alike,
    # so the MPI version allreduces the residual at every sweep: 40 calls
    # of one double (2 x 8 x (P - 1) bytes each in the cost model); the
    # energy is reduced once, after the loop, and the rod's one cut moves
    # a value each way per sweep. Before, the residual was a reduce (only
    # a condition reads it) and the energy a reduce per sweep.
    for flags in (("-O0",), ("-O2",)):
        trace, _ = traced("vf_converge.c", flags, tool_args=("--ranks=2",))
        r = _by_ranks(_projection(trace.path, "--ranks=2,4"))
        for k in (2, 4):
            check_eq((r[k]["collectives"], r[k]["p2p_bytes"] if k == 2 else None),
                     ({"allreduce": {"calls": 40, "bytes": 40 * 2 * 8 * (k - 1)}},
                      40 * 16 if k == 2 else None),
                     "%s, %d ranks: collectives, point-to-point bytes" % (flags[0], k))


def _pairs(r):
    return sum(1 for row in r["matrix"] for x in row if x)


def test_transpose_projects_its_exchange_on_the_mpi_codes_grid():
    # vf_transpose.c: B(j,i) += A(i,j); A(i,j) += 1 on 64 x 64 doubles.
    # Row blocks of both arrays, as the MPI code has them (--grid=P): every
    # step moves the (P-1)/P of A whose transposed place is another rank's,
    # 8 x 4096 x (P-1)/P bytes, every rank to every other. METIS had put
    # each A(i,j) with B(j,i) and projected nothing.
    trace, _ = traced("vf_transpose.c", ("-O2",))
    named = _by_ranks(_projection(trace.path, "--ranks=2,4,8", "--per=step", "--grid=2,4,8"))
    for k in (2, 4, 8):
        r = named[k]
        check_eq((r["decomposition"], r["iterations"], _per_iter(r), _pairs(r)),
                 ("grid %d" % k, 6, 8 * 4096 * (k - 1) // k, k * (k - 1)), "%d ranks, named" % k)
    # Automatically the cheapest grid: at 4 ranks 2 x 2 blocks keep the
    # diagonal blocks' transposes at home and move half of A.
    auto = _by_ranks(_projection(trace.path, "--ranks=2,4", "--per=step"))
    check_eq((auto[4]["decomposition"], _per_iter(auto[4])), ("grid 2x2", 8 * 4096 // 2),
             "4 ranks, automatic")
    cands = {c["decomposition"]: c["bytes"] // 6 for c in auto[4]["candidates"]}
    check_eq(cands["grid 4"], 8 * 4096 * 3 // 4, "the 1-D candidate's bytes per step")
    check_eq(min(cands.values()), _per_iter(auto[4]), "the cheapest candidate is taken")


def test_3d_stencil_talks_to_faces_edges_and_corners():
    # vf_stencil27.c: a 27-point stencil on a 16^3 interior. On a 2x2x2
    # grid each rank sends 3 faces of 8 x 8, 3 edges of 8 and a corner:
    # 217 doubles, 13,888 bytes a step, every rank to all 7 others; on 2
    # ranks one 16 x 16 face each way, on 4 (2 x 2) two 8 x 16 faces and a
    # 16-value edge a rank.
    trace, _ = traced("vf_stencil27.c", ("-O2",))
    res = _by_ranks(_projection(trace.path, "--ranks=2,4,8"))
    want = {2: ("grid 2", 2 * 256 * 8, 2), 4: (None, 4 * 272 * 8, 12),
            8: ("grid 2x2x2", 8 * 217 * 8, 56)}
    for k, (dec, per_step, pairs) in want.items():
        r = res[k]
        check_eq((_per_iter(r), _pairs(r), r["collective_bytes"]), (per_step, pairs, 0),
                 "%d ranks: bytes per step, pairs, collectives" % k)
        if dec:
            check_eq(r["decomposition"], dec, "%d ranks: decomposition" % k)
    # The same program with METIS's parts: not a grid.
    metis = _by_ranks(_projection(trace.path, "--ranks=8", "--decomposition=metis"))[8]
    check(metis["decomposition"].startswith("METIS"), "METIS asked for: %r" % metis["decomposition"])


def test_levels_in_one_array_are_arrays_of_their_own():
    # vf_levels.c: a 64 x 64 fine level (a, b) and a 32 x 32 coarse level
    # (c, d) one after the other in one array, smoothed twice each per
    # step, with restriction and prolongation between them. Each level's
    # rows in blocks (--grid=2; 2 x 2 blocks at 4 ranks), as the MPI code
    # keeps them: per step 4 x 62 + 4 x 30 doubles on 2 ranks, 8 x 62 +
    # 8 x 30 among 8 pairs on 4; restriction and prolongation stay on
    # their rank. (One shape over the whole array put b's rows and the
    # coarse level on the wrong ranks: 56,056 B a step on 2 ranks at -O0.)
    for flags in (("-O0",), ("-O2",)):
        trace, _ = traced("vf_levels.c", flags)
        tag = " ".join(flags)
        named = _by_ranks(_projection(trace.path, "--ranks=2,4", "--grid=2,2x2"))
        auto = _by_ranks(_projection(trace.path, "--ranks=2,4"))
        for k, grid, per_step, pairs in ((2, "grid 2", 8 * (4 * 62 + 4 * 30), 2),
                                         (4, "grid 2x2", 8 * (8 * 62 + 8 * 30), 8)):
            r = named[k]
            check_eq((r["decomposition"], _per_iter(r), _pairs(r), r["collective_bytes"]),
                     (grid, per_step, pairs, 0), "%s, %d ranks, named grid" % (tag, k))
            check_eq(_per_iter(auto[k]), per_step, "%s, %d ranks, automatic bytes per step"
                     % (tag, k))


def test_levels_one_record_walks_in_turn_go_with_their_values():
    # vf_vcycle.c: a 64 x 64 fine level (a, b) and levels of 32 and 16
    # points a side after it in one array; one routine restricts each
    # level to the next and one adds it back, called in a loop over the
    # levels, so no record shows the coarse levels' shapes. Placed by the
    # values they are made from (owner computes), level k's row I goes
    # with level k-1's row 2I, as in the MPI code's row blocks: only the
    # fine smoothing's halo moves, 4 x 62 doubles a step on 2 ranks, 8 x
    # 62 on 2 x 2. Over the whole run that is 4 steps' worth at -O0 and
    # at -O2, where gcc peels the first step off the loop: the first
    # smoothing's edges are in another context and add to the loop's.
    # (Cut in linear blocks, the two coarse levels together put level 1's
    # rows 16-19 on rank 0 and the traffic was 6,088 B a step at -O0.)
    want = {2: ("grid 2", 8 * 4 * 62, 2), 4: ("grid 2x2", 8 * 8 * 62, 8)}
    for flags in (("-O0",), ("-O2",)):
        trace, _ = traced("vf_vcycle.c", flags)
        tag = " ".join(flags)
        named = _by_ranks(_projection(trace.path, "--ranks=2,4", "--grid=2,2x2"))
        run = _by_ranks(_projection(trace.path, "--ranks=2,4", "--grid=2,2x2", "--per=run"))
        for k, (grid, per_step, pairs) in want.items():
            check_eq((run[k]["decomposition"], run[k]["p2p_bytes"], _pairs(run[k])),
                     (grid, 4 * per_step, pairs), "%s, %d ranks, whole run" % (tag, k))
            if flags == ("-O0",):
                check_eq(_per_iter(named[k]), per_step, "%s, %d ranks, per step" % (tag, k))


def test_indirect_arrays_keep_metis():
    # report_csr.c's y = A x reads x through the column indices: its arrays
    # are not regular, and the automatic choice is METIS's parts.
    # It makes one product, so no loop is a time loop: the scope is the
    # whole run, main and below, without the dynamic loader's start-up.
    trace, _ = traced("report_csr.c", ("-O2",))
    doc = _projection(trace.path, "--ranks=4")
    check_eq(doc["region"], None, "the whole run")
    r = _by_ranks(doc)[4]
    check(r["decomposition"].startswith("METIS"), "CSR decomposition: %r" % r["decomposition"])
    check(any(c["decomposition"] == "METIS" for c in r["candidates"]), "METIS among the candidates")


def _marked_lines(program, marker):
    """First and last line of the block whose first line has /* MARKER */."""
    with open(os.path.join(os.path.dirname(__file__), "programs", program)) as f:
        lines = f.read().splitlines()
    first = next(i for i, l in enumerate(lines, 1) if "/* %s */" % marker in l)
    indent = len(lines[first - 1]) - len(lines[first - 1].lstrip())
    last = next(i for i, l in enumerate(lines, 1) if i > first and l.startswith(" " * indent + "}"))
    return first, last


def test_time_loop_is_the_loop_that_remakes_its_values():
    # vf_assembly_cg.c: the assembly loop over 1999 elements makes most of
    # the run's values (256 quadrature points each), each element's in
    # one of its iterations; the CG loop after it re-makes x, r, p and ap
    # in each of its 10 iterations. The time loop is the CG loop, at -O0
    # and -O2 (whose loop header is the block that ends the body). On the
    # MPI code's blocks of rows (--grid=P), each CG iteration moves one
    # value of p each way per cut and makes two dot products: two
    # allreduces. At -O0 the last four elements of r reach every p[i]
    # beside r.r's chain (the tool's source set keeps them): they were
    # four more allreduces per iteration and 2000 edges across every cut;
    # they are the reduction's tail, not values of their own.
    first, last = _marked_lines("vf_assembly_cg.c", "CG loop")
    for flags in (("-O0",), ("-O2",)):
        trace, _ = traced("vf_assembly_cg.c", flags)
        doc = _projection(trace.path, "--ranks=2,4", "--grid=2,4")
        region = doc["region"]
        check(region is not None and region.startswith("loop vf_assembly_cg.c:")
              and first <= int(region.rsplit(":", 1)[1]) <= last,
              "%s: the region is the CG loop (lines %d-%d): %r" % (flags[0], first, last, region))
        res = _by_ranks(doc)
        check_eq(res[2]["iterations"], 10, "%s: iterations of the region" % flags[0])
        for k in (2, 4):
            check_eq((_per_iter(res[k]), res[k]["collectives"]),
                     (16 * (k - 1), {"allreduce": {"calls": 20, "bytes": 20 * 2 * 8 * (k - 1)}}),
                     "%s, %d ranks: bytes per iteration, collectives" % (flags[0], k))


def test_grid_option_errors():
    trace, _ = traced("vf_transpose.c", ("-O2",))
    p = cats_cmd("project", trace.path, "--ranks=2,4", "--grid=3", check_rc=False)
    check(p.returncode != 0 and "--grid=3 is a grid of 3 ranks" in p.stderr, "grid not in --ranks: %r" % p.stderr)
    for bad in ("2xx", "0x4", "2x2x2x2", "x4", ""):
        p = cats_cmd("project", trace.path, "--ranks=4", "--grid=" + bad, check_rc=False)
        check(p.returncode != 0 and p.stderr.count("\n") == 1, "--grid=%s: %r" % (bad, p.stderr))


def test_arrays_read_through_indices_keep_metis():
    # vf_gather2d.c: v[i][j] = (u[perm[i]][j] + u[i][j]) / 2 on 64 x 64
    # doubles. The arrays are 2-D and walked by loops, but half of u's
    # reads go through perm: the automatic choice is METIS's parts. A grid
    # asked for is the cheapest: columns (1x4), which a row permutation
    # never mixes, so nothing moves.
    trace, _ = traced("vf_gather2d.c", ("-O2",))
    auto = _by_ranks(_projection(trace.path, "--ranks=4"))[4]
    check(auto["decomposition"].startswith("METIS"), "automatic: %r" % auto["decomposition"])
    grid = _by_ranks(_projection(trace.path, "--ranks=4", "--decomposition=grid"))[4]
    check_eq((grid["decomposition"], grid["p2p_bytes"]), ("grid 1x4", 0), "grid asked for")


def test_cg_on_a_27_point_matrix_moves_planes_and_two_allreduces():
    # vf_cg27.c: CG on the 27-point operator of a 16^3 grid in CSR, 20
    # iterations. HPCCG's MPI code gives each rank a z-slab of rows
    # (--grid=P over the vectors): A p needs each neighbour's boundary
    # plane of p, 16 x 16 doubles each way per cut, so (P - 1) x 2 x 2048
    # bytes per iteration between neighbouring slabs; its two dot products
    # are two allreduces per iteration, of 8 bytes (2 x 8 x (P - 1) bytes
    # each in the cost model, docs/PROJECTION.md). The same at -O0 and
    # -O2. Before: the matrix-vector product's outputs (degree 56 against a
    # centroid of 5) were allreduce singletons, and the dot product of r
    # with itself made before the loop counted as a 41st call.
    for flags in (("-O0",), ("-O2",)):
        trace, _ = traced("vf_cg27.c", flags)
        res = _by_ranks(_projection(trace.path, "--ranks=2,4,8", "--grid=2,4,8"))
        for k in (2, 4, 8):
            r = res[k]
            check_eq((r["decomposition"], r["iterations"], _per_iter(r), _pairs(r) // 2,
                      r["collectives"]),
                     ("grid %d" % k, 20, (k - 1) * 2 * 2048, k - 1,
                      {"allreduce": {"calls": 40, "bytes": 40 * 2 * 8 * (k - 1)}}),
                     "%s, %d ranks: decomposition, iterations, bytes per iteration, "
                     "communicating pairs, collectives" % (flags[0], k))


def test_cg_on_a_27_point_matrix_finds_its_mesh():
    # vf_cg27.c again, with the decomposition chosen automatically. Its
    # vectors are 1-D and A p reads them through column indices, but the
    # values show the 16^3 grid: each element of A p is made from p at
    # index distances 1, 16 and 256 (give or take the ones below), so the
    # vectors are that grid, in the MPI codes' boxes (miniFE's and
    # HPCG's own decompositions). A box of a 27-point operator exchanges
    # its faces, edges and corners: per iteration, on 2 ranks one plane
    # each way (2 x 256 doubles); on 2 x 2, per rank 2 faces of 8 x 16,
    # one edge of 16 (4 x 272 doubles); on 2 x 2 x 2, per rank 3 faces of
    # 8 x 8, 3 edges of 8, a corner (8 x 217 doubles); every rank with
    # every other. Before: METIS's parts (5,104 / 10,600 / 18,064 bytes at
    # -O2).
    for flags in (("-O0",), ("-O2",)):
        trace, _ = traced("vf_cg27.c", flags)
        res = _by_ranks(_projection(trace.path, "--ranks=2,4,8"))
        for k, grid, doubles in ((2, "grid 2", 512), (4, "grid 2x2", 4 * 272),
                                 (8, "grid 2x2x2", 8 * 217)):
            r = res[k]
            check_eq((r["decomposition"], _per_iter(r), _pairs(r) // 2),
                     (grid, 8 * doubles, k * (k - 1) // 2),
                     "%s, %d ranks: decomposition, bytes per iteration, pairs" % (flags[0], k))


def test_flattened_grid_is_found_from_its_values():
    # vf_heat_flat.c: Jacobi sweeps over a 64 x 64 grid in 1-D arrays,
    # one loop over all points, 10 steps of two sweeps. The values show
    # rows of 64 (distances 1 and 64). Before each sweep the MPI code on
    # P x Q blocks sends each neighbour the interior values of its
    # boundary row or column: 2 ranks, 2 x 62 values a sweep; 2 x 2, each
    # of 4 ranks 2 x 31; 4 x 2, 3 row boundaries x 2 column blocks x 2
    # sides x 31 and one column boundary's 2 x 62. Before: -O0 took
    # METIS's parts, and at -O2 and -O3 gcc's vector initialisation (two
    # 16-byte stores 32 bytes apart) made the arrays rows of 4 words, and
    # the projection 0 bytes.
    per_sweep = {2: 2 * 62, 4: 4 * 2 * 31, 8: 3 * 2 * 2 * 31 + 2 * 62}
    for flags in (("-O0",), ("-O2",), ("-O3",)):
        trace, _ = traced("vf_heat_flat.c", flags)
        res = _by_ranks(_projection(trace.path, "--ranks=2,4,8"))
        for k, grid in ((2, "grid 2"), (4, "grid 2x2"), (8, "grid 4x2")):
            r = res[k]
            check_eq((r["decomposition"], r["iterations"], r["p2p_bytes"]),
                     (grid, 10, 10 * 2 * per_sweep[k] * 8),
                     "%s, %d ranks: decomposition, iterations, bytes" % (flags[0], k))


def test_wavefront_sends_one_value_per_row_and_boundary():
    # vf_wavefront.c: a[i][j] = (a[i-1][j] + a[i][j-1]) / 2 on 256 x 256,
    # 10 sweeps. On blocks of columns (--grid=1xP, the pipelined MPI
    # code's) each of the 255 rows sends one 8-byte value across each of
    # the P - 1 boundaries per sweep, and nothing else. At -O3 gcc keeps
    # a[i][j-1] in the register it stored; that register was the
    # computation of a[i][j-1], so a row became one chain of everything
    # before it (136 times the bytes at 2 ranks), where -O0 reloads the
    # element.
    for flags in (("-O0",), ("-O2",), ("-O3",)):
        trace, _ = traced("vf_wavefront.c", flags)
        res = _by_ranks(_projection(trace.path, "--ranks=2,4", "--grid=1x2,1x4"))
        for k in (2, 4):
            r = res[k]
            check_eq((r["decomposition"], r["iterations"], _per_iter(r), _pairs(r),
                      r["collective_bytes"]),
                     ("grid 1x%d" % k, 10, 255 * 8 * (k - 1), k - 1, 0),
                     "%s, %d ranks: decomposition, sweeps, bytes per sweep, pairs, "
                     "collectives" % (flags[0], k))


def test_summa_product_moves_the_panels_of_a_every_step():
    # vf_summa.c: C = A B panel by panel on 32 x 32, then A = C / 64, 4
    # steps; B never changes. On a q x q grid of 2-D blocks (SUMMA's) every
    # rank receives, each step, the q - 1 blocks of A of its process row
    # that it does not hold: (q - 1) x 32^2 x 8 bytes in all, P (q - 1)
    # pairs, no collective; B's blocks are sent once, before the steps.
    # On row blocks of A and C (1-D) a step needs only the rows it holds
    # and B, which is sent before the first step: nothing per step, so
    # that is the cheapest grid. (A and B had become broadcast singletons,
    # read only in the loop, and nothing was projected on any grid.)
    for flags in (("-O0",), ("-O2",), ("-O3",)):
        trace, _ = traced("vf_summa.c", flags)
        named = _by_ranks(_projection(trace.path, "--ranks=4,16", "--per=step",
                                      "--grid=2x2,4x4"))
        for q in (2, 4):
            r = named[q * q]
            check_eq((r["decomposition"], r["iterations"], _per_iter(r), _pairs(r),
                      r["collective_bytes"]),
                     ("grid %dx%d" % (q, q), 4, (q - 1) * 32 * 32 * 8, q * q * (q - 1), 0),
                     "%s, %d ranks: grid, steps, bytes per step, pairs, collectives"
                     % (flags[0], q * q))
        auto = _by_ranks(_projection(trace.path, "--ranks=4,16", "--per=step"))
        for k in (4, 16):
            check_eq((auto[k]["decomposition"], auto[k]["p2p_bytes"], auto[k]["collective_bytes"]),
                     ("grid %d" % k, 0, 0), "%s, %d ranks, automatic" % (flags[0], k))


def _one_allreduce_per_step(program):
    """PROGRAM makes, per step of 10, one reduction of one double that
    the MPI code takes as one MPI_Allreduce: 10 calls of 2 x 8 x (P - 1)
    bytes, nothing point to point. At -O0 only: at -O2 gcc makes the
    last link of the chain (the sum of the last partial sums, the
    minimum of the last candidates) lazily where the result is first
    read, a second unit of links per step, and the projection counts 20
    calls: not yet right."""
    for flags in (("-O0",),):
        trace, _ = traced(program, flags)
        res = _by_ranks(_projection(trace.path, "--ranks=2,4"))
        for k in (2, 4):
            r = res[k]
            check_eq((r["iterations"], r["p2p_bytes"], r["collectives"]),
                     (10, 0, {"allreduce": {"calls": 10, "bytes": 10 * 2 * 8 * (k - 1)}}),
                     "%s %s, %d ranks: steps, point-to-point bytes, collectives"
                     % (program, " ".join(flags), k))


def test_partial_sums_are_one_allreduce_per_step():
    # vf_partial_sums.c: a norm over 4096 doubles in four partial sums,
    # added after the loop, once per step for 10 steps; the vector is then
    # scaled by it. The MPI code makes one MPI_Allreduce of one double per
    # step: 10 calls of 2 x 8 x (P - 1) bytes, nothing point to point.
    # Each partial sum was an allreduce of its own: 40 calls.
    _one_allreduce_per_step("vf_partial_sums.c")


def test_solver_iterations_inside_steps_count_their_collectives():
    # vf_cg_in_steps.c: 5 time steps, each 8 CG iterations written out in
    # the iteration loop's own body, dot products as loops of their own.
    # The MPI code makes per step one MPI_Allreduce of one double for the
    # first r.r and two per iteration: 5 x (1 + 2 x 8) = 85 calls. At -O2
    # only: at -O0 the dot product p.Ap of iterations 2..8 is a group of
    # its own whose links are made in the iteration loop's body too, and
    # its calls are bounded by the loop's entries: 55 in all, not yet
    # right.
    trace, _ = traced("vf_cg_in_steps.c", ("-O2",))
    res = _by_ranks(_projection(trace.path, "--ranks=2,4"))
    for k in (2, 4):
        r = res[k]
        check_eq((r["iterations"], r["collectives"]),
                 (5, {"allreduce": {"calls": 85, "bytes": 85 * 2 * 8 * (k - 1)}}),
                 "%d ranks: steps, collectives" % k)


def test_chunked_minimum_is_one_allreduce_per_step():
    # vf_chunk_min.c: a time step's minimum over 4096 cells, taken as a
    # minimum per chunk of 64 and the minimum of those, then used to
    # update every cell; 10 steps. The MPI code makes one MPI_Allreduce
    # (MIN) of one double per step: 10 calls of 2 x 8 x (P - 1) bytes,
    # nothing point to point (the update is local).
    _one_allreduce_per_step("vf_chunk_min.c")
