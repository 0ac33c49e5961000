# SPDX-License-Identifier: GPL-2.0-or-later
"""The value communication graph (docs/VCG.md): exact graphs of tiny
programs, the same at -O0, -O2 and -O3 (vectorised with AVX2)."""
import os
import re
import subprocess

from catslib import Trace, Vcg, cats_cmd, check, check_eq, compile_program, run_cats, traced, vcg_of

OPT_LEVELS = [("-O0",), ("-O2",), ("-O3", "-mavx2")]
NAMES = ("a", "b", "c", "d", "e", "s", "u", "v", "x", "y", "col", "rowptr", "node", "elem",
         "conn")


def _mem(label):
    return label.split("+")[0] in NAMES


def _program_edges(g):
    return {e: w for e, w in g.edges.items() if _mem(e[0]) and _mem(e[1])}


def test_add_edges_exact():
    # vf_add.c: c[i] = a[i] + b[i], 16 doubles
    want = {}
    for i in range(16):
        for src in ("a", "b"):
            want[("%s+%d" % (src, 8 * i), "c+%d" % (8 * i))] = (1, 1)
    for flags in OPT_LEVELS:
        g = vcg_of("vf_add.c", flags)
        check_eq(_program_edges(g), want, "edges of vf_add %s" % " ".join(flags))
        # main tests c[3] == 9: c[3] alone is read by a condition.
        check_eq(g.vertices["c+24"], ("out|cond", 1, 2), "c[3] (flags, versions, weight)")
        check_eq(g.vertices["c+16"], ("out", 1, 2), "c[2] (flags, versions, weight)")
        check_eq(g.vertices["a+24"][1], 1, "a[3] versions")


def test_copy_creates_no_value():
    # vf_copy.c: b = a (copy), c = 2*b; d = memcpy(a), e = twice(d)
    want = {}
    for i in range(8):
        want[("a+%d" % (8 * i), "c+%d" % (8 * i))] = (1, 1)
        want[("a+%d" % (8 * i), "e+%d" % (8 * i))] = (1, 1)
    for flags in OPT_LEVELS:
        g = vcg_of("vf_copy.c", flags)
        tag = " ".join(flags)
        check_eq(_program_edges(g), want, "edges of vf_copy %s" % tag)
        copies = [v for v in g.vertices if v.split("+")[0] in ("b", "d")]
        check_eq(copies, [], "vertices of the copies b and d %s" % tag)


def test_reduction_is_a_chain():
    # vf_reduce.c: s = sum of a[0..999]. Sets hold at most 16 sources; a
    # full set becomes an intermediate when one more source arrives: the
    # first takes a[0..15], each next one the last and 15 more, so 66 of
    # them take a[0..990], and s the last one and the 9 left.
    for flags in OPT_LEVELS[:2]:
        g = vcg_of("vf_reduce.c", flags)
        tag = " ".join(flags)
        tmps = [v for v, (f, _, _) in g.vertices.items() if f == "reg" and "vf_reduce.c:16" in v]
        check_eq(len(tmps), 66, "intermediates %s" % tag)
        a_out = {}
        for (s, d) in g.edges:
            if s.startswith("a+"):
                a_out[s] = a_out.get(s, 0) + 1
        check_eq(len(a_out), 1000, "a elements used %s" % tag)
        check_eq(set(a_out.values()), {1}, "each a[i] feeds one vertex %s" % tag)
        chain = [(s, d) for (s, d) in g.edges if s in tmps and d in tmps]
        check_eq(len(chain), 65, "chain edges %s" % tag)
        into_s = g.into("s+0")
        check_eq(len(into_s), 10, "sources of s %s" % tag)
        check_eq(sum(1 for v in into_s if v in tmps), 1, "intermediates into s %s" % tag)
        check_eq(max(len(g.into(t)) for t in tmps), 16, "most sources of an intermediate")


def test_stencil_coalesces_per_location():
    # vf_stencil.c: v[i] = (u[i-1] + u[i] + u[i+1]) / 3 then u[i] = v[i],
    # i = 1..30, 100 steps. u[0] and u[31] are never rewritten.
    want = {}
    for i in range(1, 31):
        dst = "v+%d" % (8 * i)
        for j in (i - 1, i, i + 1):
            if j in (0, 31):
                want[("u+%d" % (8 * j), dst)] = (100, 1)
            else:
                want[("u+%d" % (8 * j), dst)] = (1, 1)
                want[("v+%d" % (8 * j), dst)] = (99, 99)
    for flags in OPT_LEVELS:
        g = vcg_of("vf_stencil.c", flags)
        tag = " ".join(flags)
        check_eq(_program_edges(g), want, "edges of the stencil %s" % tag)
        for i in range(1, 31):
            check_eq(g.vertices["v+%d" % (8 * i)][1], 100, "versions of v[%d] %s" % (i, tag))
        check("v+0" not in g.vertices and "v+248" not in g.vertices, "v[0], v[31] are not values")


def test_gather_depends_on_values_not_indices():
    # vf_gather.c: y[i] += x[col[k]] over a CSR pattern
    rowptr = [0, 2, 3, 6, 7]
    col = [1, 5, 0, 2, 3, 7, 6]
    want = {}
    for i in range(4):
        dst = "y+%d" % (8 * i)
        want[(dst, dst)] = (1, 1)
        for k in range(rowptr[i], rowptr[i + 1]):
            want[("x+%d" % (8 * col[k]), dst)] = (1, 1)
    for flags in OPT_LEVELS:
        g = vcg_of("vf_gather.c", flags)
        tag = " ".join(flags)
        check_eq(_program_edges(g), want, "edges of the gather %s" % tag)
        from_index = [e for e in g.edges if e[0].split("+")[0] in ("col", "rowptr")]
        check_eq(from_index, [], "edges from the index arrays %s" % tag)


def test_workspace_is_a_carrier():
    # vf_workspace.c: w[j] = node[conn[e][j]]; w[j] *= 0.5; elem[e] = sum w
    conn = [[0, 1, 2], [2, 3, 4], [4, 5, 0]]
    want = {("node+%d" % (8 * n), "elem+%d" % (8 * e)): (1, 1)
            for e in range(3) for n in conn[e]}
    for flags in OPT_LEVELS[:2]:
        g = vcg_of("vf_workspace.c", flags)
        tag = " ".join(flags)
        check_eq(_program_edges(g), want, "edges of the workspace kernel %s" % tag)
        stack = [v for v in g.vertices if v.startswith(("w+", "frame of element"))]
        check_eq(stack, [], "vertices in the workspace %s" % tag)


def test_row_buffer_of_a_routine_called_in_a_loop_is_a_carrier():
    # vf_row_buffer.c: row(i), called for i = 1..38 in a loop, fills its
    # 2 KiB stack buffer t[j] = a[i-1][j] + a[i+1][j], then b[i][j] = t[j]
    # / 2: each b[i][j] comes from a[i-1][j] and a[i+1][j], and t holds no
    # value. main's keep[j] = 2 b[1][j] lives for the run and holds values.
    n, m = 40, 256
    want = {}
    for i in range(1, n - 1):
        for j in range(m):
            for src in (i - 1, i + 1):
                want[("a+%d" % (8 * (src * m + j)), "b+%d" % (8 * (i * m + j)))] = (1, 1)
    for flags in OPT_LEVELS:
        g = vcg_of("vf_row_buffer.c", flags)
        tag = " ".join(flags)
        into_b = {e: w for e, w in g.edges.items() if e[1].startswith("b+")}
        check_eq(into_b, want, "edges into b %s" % tag)
        check_eq([v for v in g.vertices if v.startswith(("t+", "frame of row"))], [],
                 "vertices in row's buffer %s" % tag)
        if flags != ("-O3", "-mavx2"):   # keep lives in registers there
            check_eq({e: w for e, w in g.edges.items() if e[1].startswith("keep+")},
                     {("b+%d" % (8 * (m + j)), "keep+%d" % (8 * j)): (1, 1) for j in range(m)},
                     "edges into main's keep %s" % tag)


def test_sets_in_a_leaf_functions_red_zone_survive_collection():
    # vf_redzone.c: leaf() keeps w[k] = a[2k] * a[2k+1] in the 128 bytes
    # below its stack pointer (a leaf at -O0 never moves it) while 50,000
    # new sets have the tool's set table collected several times; out is
    # the sum of w, so its sources are a[0..7]. The collector used to scan
    # from the stack pointer up, and reused the nodes of w's sets.
    g = vcg_of("vf_redzone.c", ("-O0",))
    got = sorted(src for (src, dst) in g.edges if dst == "out+0")
    check_eq(got, sorted("a+%d" % (8 * i) for i in range(8)), "sources of out")


def test_a_dot_product_keeps_its_chain_after_many_intermediates_elsewhere():
    # vf_dot_after_many.c: a running sum over words read in an order that
    # never repeats makes over 400,000 chain links' worth of sets, and
    # then dot() sums 4,096 products (8,192 sources) 10 times. Each
    # site's chains are bounded by the data: the first site goes on in its
    # last link; the dot product still gets its chain, the first link of
    # 16 sources and each next of its predecessor and 15 more, so 546
    # links take 8,191 sources (r holds the last and the one left), each
    # made 10 times. A global bound gave the dot product one link made
    # 5,460 times (miniFE's CG: its two dot products as 689,150 allreduce
    # calls).
    g = vcg_of("vf_dot_after_many.c", ("-O0",))
    links = [v for v, (f, _, _) in g.vertices.items() if f == "reg" and "vf_dot_after_many.c:23" in v]
    check_eq(sorted({g.vertices[v][1] for v in links}), [10], "versions of the dot product's links")
    check_eq(len(links), 546, "the dot product's links")


def test_a_value_read_whole_is_one_vertex():
    # vf_quadrature.c: each of the 9 x 8 x 8 = 576 Jacobian entries (9 per
    # Gauss point, 8 Gauss points, 8 elements) is made from 16 words, 8 of
    # dshape and 8 of coord, and read whole by the determinant, the inverse
    # and the gradients. It is one register intermediate with those 16
    # sources, wherever and however often it is combined with another
    # value. Before, each code site that combined an entry made a link of
    # its own holding the entry's sources (1,536 such vertices at -O0,
    # 1,411 at -O2), and a quadrature's graph had twice the edges. At -O2
    # some entries are also the last link of their own accumulation (961
    # vertices for the 576 entries), and at -O3 with AVX2 the vector lanes
    # hold parts of several entries (docs/VCG.md).
    for flags in OPT_LEVELS[:1]:
        g = vcg_of("vf_quadrature.c", flags)
        sources = {}
        for (s, d) in g.edges:
            if d.startswith("[tmp"):
                sources.setdefault(d, []).append(s.split("+")[0])
        jacobian = [d for d, s in sources.items()
                    if len(s) == 16 and s.count("dshape") == 8 and s.count("coord") == 8]
        check_eq(len(jacobian), 576, "Jacobian entries as vertices %s" % " ".join(flags))


def test_two_threads_one_graph():
    # vf_threads.c: two threads compute c[0..31] and c[32..63]
    for flags in OPT_LEVELS[:2]:
        g = vcg_of("vf_threads.c", flags)
        for i in range(64):
            check_eq(set(g.into("c+%d" % (8 * i))), {"a+%d" % (8 * i), "b+%d" % (8 * i)},
                     "sources of c[%d] %s" % (i, " ".join(flags)))


def test_values_on_another_threads_stack():
    # threadstack.c: main sets grid[i] = i * 0.5 on its stack, two threads
    # update their halves in place; every element is one vertex of grid with
    # two versions, the second computed from the first, and no vertex lies
    # outside a container.
    g = vcg_of("threadstack.c")
    for i in range(1000):
        label = "grid+%d" % (8 * i)
        check_eq(g.vertices.get(label, (None, 0, 0))[1], 2, "versions of grid[%d]" % i)
        check_eq(g.into(label), {label: (1, 1)}, "sources of grid[%d]" % i)
    check_eq([v for v in g.vertices if v.startswith("?+")], [], "vertices outside any container")


def test_openmp_stencil_on_mains_stack():
    # omp_stencil.c, 2 OpenMP threads, static schedule, 4 steps: b[i] = 0.25 *
    # (a[i-1] + 2 a[i] + a[i+1]) (line 18) for i = 1..510, then a[i] = b[i]
    # (a copy), with a and b on main's stack. Each thread writes its 255
    # elements of b per step into b itself; b[i]'s sources are the first
    # step's a[i-1..i+1] and then b[i-1..i+1], across the threads' boundary.
    binary = compile_program("omp_stencil.c", ("-O2", "-fopenmp"))
    path, proc = run_cats(binary, env={"OMP_NUM_THREADS": "2", "OMP_WAIT_POLICY": "passive"})
    check_eq(proc.returncode, 0, "valgrind exit: %s" % proc.stderr[-2000:])
    t = Trace(path)
    b = t.alloc_by_name("b")
    check_eq(b["kind"], "stack-var", "b's kind")
    w = t.events_where(18, "omp_stencil.c", "write", b["id"])
    check_eq(sorted((e["base"], e["count"]) for e in w), [(8, 1020), (2048, 1020)],
             "writes of b at line 18 (base, count) per thread")
    check_eq(len({t.thread_root(e["ctx"]) for e in w}), 2, "thread roots of b's writes")
    g = Vcg(path)
    for i in (100, 255, 256, 300):
        want = {}
        for k in (i - 1, i, i + 1):
            want["a+%d" % (8 * k)] = (1, 1)
            want["b+%d" % (8 * k)] = (3, 3)
        check_eq(g.into("b+%d" % (8 * i)), want, "sources of b[%d]" % i)
        check_eq(g.vertices["b+%d" % (8 * i)][1], 5, "versions of b[%d] (b[i] = 0, then 4 steps)" % i)


def test_value_flow_off_writes_no_graph():
    binary = compile_program("vf_add.c", ("-O2",))
    path, proc = run_cats(binary, tool_args=["--value-flow=no"], out=binary + ".novf.cats",
                          expect_rc=0)
    r = cats_cmd("vcg", path, check_rc=False)
    check(r.returncode != 0, "cats vcg succeeded on a trace without a graph")
    check("no value communication graph" in r.stderr, "message: %r" % r.stderr)
    check_eq(len(r.stderr.strip().splitlines()), 1, "one-line error")


def test_granularity_4_separates_ints():
    # vf_ints.c: ib[i] = 3 * ia[i] on 4-byte ints; with 4-byte words
    # every element is its own vertex.
    g = vcg_of("vf_ints.c", ("-O2",), tool_args=("--vf-granularity=4",))
    got = {e: w for e, w in g.edges.items() if e[0].startswith("ia+") and e[1].startswith("ib+")}
    want = {("ia+%d" % (4 * i), "ib+%d" % (4 * i)): (1, 1) for i in range(8)}
    check_eq(got, want, "edges ia -> ib with 4-byte words")
    check_eq(g.stats["word-size"], "4", "word size")


def test_metis_export():
    g = vcg_of("vf_add.c", ("-O2",))
    trace = compile_program("vf_add.c", ("-O2",)) + ".cats"
    out = trace + ".metis"
    cats_cmd("vcg", trace, "--metis", out)
    with open(out) as f:
        lines = [l for l in f.read().splitlines() if not l.startswith("%")]
    n, m, fmt = lines[0].split()[:3]
    check_eq(int(n), int(g.stats["vertices"]), "METIS vertex count")
    check_eq(fmt, "011", "METIS format")
    check_eq(len(lines) - 1, int(n), "one adjacency line per vertex")
    half = sum((len(l.split()) - 1) // 2 for l in lines[1:])
    check_eq(half, 2 * int(m), "adjacency entries = 2 x edges")
    # METIS's own checker (Debian's metis package) accepts the file.
    r = subprocess.run(["graphchk", out], capture_output=True, text=True)
    check("format of the graph is correct" in r.stdout, "graphchk: %s" % r.stdout[-500:])
    os.unlink(out)


def test_values_attributed_to_the_loop_that_made_them():
    # vf_stencil.c: every v[i] version is made in the first inner loop of
    # the time-step loop in steps(): its 178 edges and 30 x 300 uses
    # (see test_stencil_coalesces_per_location) belong to that context.
    for flags in OPT_LEVELS[:2]:
        trace = compile_program("vf_stencil.c", flags) + ".cats"
        vcg_of("vf_stencil.c", flags)   # makes the trace
        top = cats_cmd("vcg", trace, "--contexts").stdout.splitlines()[0]
        uses, edges, path = top.split(" ", 2)
        check_eq((uses, edges), ("uses=9000", "edges=178"), "top context %s" % " ".join(flags))
        tail = path.split(" > ")[-3:]
        check_eq(tail[0], "steps", "function of the top context")
        check(tail[1].startswith("loop (vf_stencil.c:") and tail[2].startswith("loop (vf_stencil.c:"),
              "time-step loop then inner loop: %r" % path)


def test_repeated_time_steps_send_no_more_records():
    # vf_axpy_steps.c: c[i][j] += a[i][k] * b[k][j] (8 x 8, i-k-j order)
    # repeated R times. Each c element's 8 versions per repetition have
    # different sources, the same 8 every time: the first repetition
    # sends them (a SOURCES record each), every later one only steps
    # along the helper's ring of them, and all those steps, at
    # consecutive versions, are one STEP record per element at the end.
    # So the source records are those of one repetition, and 2 or 5
    # repetitions add the same 64 STEPs (the start-up code sends some of
    # its own), while each product a[i][k] * b[k][j] is used R times.
    counts = {}
    for flags in OPT_LEVELS[:2]:
        tag = " ".join(flags)
        for reps in (1, 2, 5):
            trace, proc = traced("vf_axpy_steps.c", flags, args=(str(reps),),
                                 tool_args=("-v",))
            line = [l for l in proc.stderr.splitlines() if " step records" in l]
            check_eq(len(line), 1, "value-flow stats line %s" % tag)
            fields = line[0].split("value flow: ")[1].replace(",", "").split()
            counts[(tag, reps)] = (int(fields[2]), int(fields[5]))
            g = Vcg(trace.path)
            for i in range(8):
                for k in range(8):
                    for j in range(8):
                        e = ("a+%d" % (64 * i + 8 * k), "c+%d" % (64 * i + 8 * j))
                        check_eq(g.edges.get(e, (0, 0))[0], reps,
                                 "uses of a[%d][%d] -> c[%d][%d] %s" % (i, k, i, j, tag))
                        e = ("b+%d" % (64 * k + 8 * j), "c+%d" % (64 * i + 8 * j))
                        check_eq(g.edges.get(e, (0, 0))[0], reps,
                                 "uses of b[%d][%d] -> c[%d][%d] %s" % (k, j, i, j, tag))
        sources = [counts[(tag, r)][0] for r in (1, 2, 5)]
        check_eq(sources, [sources[0]] * 3, "source records for 1, 2, 5 repetitions %s" % tag)
        steps = [counts[(tag, r)][1] - counts[(tag, 1)][1] for r in (2, 5)]
        check_eq(steps, [64, 64], "STEP records that 2 and 5 repetitions add %s" % tag)


def test_a_scalar_logged_each_iteration_is_one_value():
    # vf_log.c: alpha = dot(r, p) / old once per iteration, stored to
    # alphas[it] and read by every x[i] and r[i]. From the second
    # iteration on alpha has the same sources (the dot product's chain
    # and its last elements) at the same store, so it is one value, the
    # one first stored at alphas[1]; the first iteration's (its old is
    # the first dot product) is alphas[0]. Each element then reads two
    # values of the log however long the loop runs, not one more per
    # iteration (TeaLeaf's cg_alphas and cg_betas gave every cell of
    # three vectors an edge per CG iteration: 90% of its graph).
    for flags in OPT_LEVELS[1:]:
        tag = " ".join(flags)
        for iters in (4, 16):
            trace, _ = traced("vf_log.c", flags, args=(str(iters),))
            g = Vcg(trace.path)
            for vec in ("x", "r"):
                for i in (0, 1, 500, 999):
                    dst = "%s+%d" % (vec, 8 * i)
                    logged = sorted((src.rsplit("+", 1)[1], w[0]) for (src, d), w in g.edges.items()
                                    if d == dst and src.startswith("main (vf_log.c:"))
                    check_eq(logged, [("0", 1), ("8", iters - 1)],
                             "log values read by %s, %d iterations %s" % (dst, iters, tag))
                    own = sorted(src for (src, d) in g.edges
                                 if d == dst and src.split("+")[0] in ("x", "p", "r"))
                    check_eq(own, sorted(["p+%d" % (8 * i), dst]),
                             "array values read by %s, %d iterations %s" % (dst, iters, tag))


def test_cycle_longer_than_a_ring():
    # vf_long_cycle.c: s[j] += x[k] * (j + 1), k = 0..299, 3 times. Each
    # s[j] cycles through 300 records, more than the 256 a ring holds:
    # the tool starts new rings (SOURCES_ALONE) and sends every version,
    # and each x[k] -> s[j] edge still has exactly 3 uses.
    for flags in OPT_LEVELS[:2]:
        tag = " ".join(flags)
        trace, proc = traced("vf_long_cycle.c", flags, args=("3",), tool_args=("-v",))
        line = [l for l in proc.stderr.splitlines() if " step records" in l][0]
        sources = int(line.split("value flow: ")[1].replace(",", "").split()[2])
        check(sources >= 2 * 300 * 3, "every version of s a record %s: %d" % (tag, sources))
        g = Vcg(trace.path)
        for j in range(2):
            for k in range(300):
                e = ("x+%d" % (8 * k), "s+%d" % (8 * j))
                check_eq(g.edges.get(e, (0, 0))[0], 3, "uses of x[%d] -> s[%d] %s" % (k, j, tag))
            check_eq(g.vertices["s+%d" % (8 * j)][1], 900 + 1, "versions of s[%d] %s" % (j, tag))


def _loop_log_stats(proc):
    """(runs logged, replays, replays outside their loop) from cats -v."""
    m = re.search(r"([\d,]+) loop runs' unions logged, made in ([\d,]+) replays "
                  r"\(([\d,]+) at a thread switch or a signal\)", proc.stderr)
    check(m is not None, "no loop log statistics in: %s" % proc.stderr[-1500:])
    return tuple(int(x.replace(",", "")) for x in m.groups())


def _vcg_listing(path):
    return cats_cmd("vcg", "--edges", "--vertices", path).stdout


def test_loop_log_gives_the_same_graph():
    # A loop's accumulator unions made from a log when the loop is left
    # (--vf-loop-log=yes, the default) give the graph that unions made at
    # every iteration give, vertex for vertex (register intermediates are
    # numbered in the order they are made): dot products (a matrix
    # product vectorised over j, a reduction walking down an array, a
    # gather reading x[17] twice, where appending without the membership
    # scan must stop), a SIGSEGV in the middle of a logged loop, and the
    # sum reduction.
    cases = [("vf_dot.c", ("-O2",), 0), ("vf_dot.c", ("-O3", "-mavx2"), 0),
             ("vf_dot_fault.c", ("-O2",), 1), ("vf_reduce.c", ("-O2",), 0)]
    for name, flags, signals in cases:
        tag = "%s %s" % (name, " ".join(flags))
        logged, proc = traced(name, flags, tool_args=("-v",))
        plain, plain_proc = traced(name, flags, tool_args=("-v", "--vf-loop-log=no"))
        runs, replays, outside = _loop_log_stats(proc)
        check(runs > replays > 0, "%s: %d runs logged in %d replays" % (tag, runs, replays))
        check_eq(outside, signals, "%s: replays at a signal" % tag)
        check_eq(_loop_log_stats(plain_proc)[0], 0, "%s: runs logged with the log off" % tag)
        check(_vcg_listing(logged.path) == _vcg_listing(plain.path),
              "%s: the graph differs with and without the loop log" % tag)


def test_loop_log_across_thread_switches():
    # vf_dot_threads.c: two threads each sum a dot product of 200000
    # terms in a register (scalar code); with --fair-sched=yes the
    # scheduler switches between them every 100000 blocks, in the middle
    # of the loops, and the logged unions are made before each switch.
    # Each thread's 400000 sources form a chain: the first set takes 16,
    # each next link its predecessor and 15 more, so 26666 links take
    # 399991 of them and c[t] the last link and the 9 left.
    # (Where the switches fall varies a little from run to run, with the
    # threads' start-up, and with it the numbering of the two chains'
    # links: the test compares what does not depend on it.)
    flags = ("-O2", "-fno-tree-vectorize", "-pthread")
    for log in ("yes", "no"):
        trace, proc = traced("vf_dot_threads.c", flags,
                             tool_args=("-v", "--fair-sched=yes", "--vf-loop-log=" + log))
        runs, _, outside = _loop_log_stats(proc)
        if log == "yes":
            check(runs > 0 and outside >= 2, "%d runs logged, %d replays at a thread switch"
                  % (runs, outside))
        g = Vcg(trace.path)
        for t in (0, 1):
            into = g.into("c+%d" % (8 * t))
            check_eq(len(into), 10, "sources of c[%d], loop log %s" % (t, log))
            check_eq(sum(1 for v in into if v.startswith("[tmp")), 1,
                     "intermediates into c[%d], loop log %s" % (t, log))
        links = [v for v, (f, _, _) in g.vertices.items()
                 if f == "reg" and "vf_dot_threads.c:14" in v]
        check_eq(len(links), 2 * 26666, "links of the two chains, loop log %s" % log)
        feeds = {}
        for (s, _) in g.edges:
            if s[:2] in ("a+", "b+"):
                feeds[s] = feeds.get(s, 0) + 1
        check_eq((len(feeds), set(feeds.values())), (800000, {1}),
                 "a and b elements, each feeding one vertex, loop log %s" % log)
