# SPDX-License-Identifier: GPL-2.0-or-later
"""Helpers for the cats test suite: build guest programs, run them under
cats, and query the JSON form of their traces by structure (names, kinds,
source lines), never by address."""
import json
import os
import shutil
import subprocess
import tempfile

BUILD = os.environ.get("CATS_BUILD", os.path.join(os.path.dirname(__file__), "..", "build"))
BUILD = os.path.abspath(BUILD)
SRC = os.path.abspath(os.path.dirname(__file__))
PROGRAMS = os.path.join(SRC, "programs")
CATS = os.path.join(BUILD, "bin", "cats")
VGLIB = os.path.join(BUILD, "vglib")
WORK = tempfile.mkdtemp(prefix="cats-tests-")
RUN_TIMEOUT = int(os.environ.get("CATS_TEST_TIMEOUT", "300"))   # seconds per guest run


class TestFailure(AssertionError):
    pass


def check(cond, msg):
    if not cond:
        raise TestFailure(msg)


def check_eq(got, want, what):
    if got != want:
        raise TestFailure("%s: got %r, want %r" % (what, got, want))


_compiled = {}
_traces = {}


def compile_program(name, flags=("-O0",), out=None, lang=None):
    """Compiles tests/programs/NAME with debug info; returns the binary.
    Each (NAME, FLAGS) is compiled once per test run."""
    key = (name, tuple(flags), out)
    if key in _compiled and os.path.exists(_compiled[key]):
        return _compiled[key]
    src = os.path.join(PROGRAMS, name)
    tag = "".join(f.strip("-").replace("=", "") for f in flags)
    out = out or os.path.join(WORK, "%s.%s" % (os.path.splitext(name)[0], tag or "plain"))
    if name.endswith(".cpp"):
        cc = ["g++"]
    elif name.endswith(".f90"):
        cc = ["gfortran"]
    else:
        cc = ["gcc", "-std=gnu11"]
    cmd = cc + ["-g"] + list(flags) + ["-I" + os.path.join(SRC, "..", "cats"), src, "-o", out, "-lm", "-lpthread"]
    subprocess.run(cmd, check=True)
    _compiled[key] = out
    return out


def run_cats(binary, args=(), tool_args=(), out=None, expect_rc=None, env=None, cwd=None,
             out_option=True):
    """Runs BINARY under cats; returns (trace path, completed process).
    ENV adds variables to the environment; with out_option=False no
    --cats-out-file is passed (the caller puts its own in TOOL_ARGS)."""
    out = out or binary + ".cats"
    if out_option and os.path.exists(out):
        os.unlink(out)
    full_env = dict(os.environ, VALGRIND_LIB=VGLIB)
    full_env.update(env or {})
    cmd = ["valgrind", "--tool=cats"] + (["--cats-out-file=" + out] if out_option else [])
    cmd += list(tool_args) + [binary] + list(args)
    try:
        proc = subprocess.run(cmd, env=full_env, capture_output=True, text=True, cwd=cwd,
                              timeout=RUN_TIMEOUT)
    except subprocess.TimeoutExpired as exc:
        raise TestFailure("valgrind did not finish within %ds: %s ... %s"
                          % (RUN_TIMEOUT, " ".join(cmd), (exc.stderr or b"")[-1000:]))
    if expect_rc is not None and proc.returncode != expect_rc:
        raise TestFailure("valgrind exit %d (want %d): %s" % (proc.returncode, expect_rc, proc.stderr[-2000:]))
    return out, proc


def traced(name, flags=("-O0",), args=(), tool_args=(), expect_rc=0):
    """Compiles tests/programs/NAME, runs it under cats once per test run
    (later calls with the same arguments reuse the trace) and returns
    (Trace, completed valgrind process)."""
    key = (name, tuple(flags), tuple(args), tuple(tool_args))
    if key not in _traces:
        binary = compile_program(name, flags)
        tag = "-".join(a.strip("-").replace("=", "") for a in tuple(args) + tuple(tool_args))
        out = "%s%s.cats" % (binary, "." + tag if tag else "")
        path, proc = run_cats(binary, args=args, tool_args=tool_args, out=out)
        if expect_rc is not None and proc.returncode != expect_rc:
            raise TestFailure("valgrind exit %d (want %d): %s"
                              % (proc.returncode, expect_rc, proc.stderr[-2000:]))
        check(os.path.exists(path), "no trace file %s: %s" % (path, proc.stderr[-2000:]))
        _traces[key] = (Trace(path), proc)
    return _traces[key]


_examples = {}


def example_trace(tool_args=()):
    """The bundled example, examples/heat.c at -O2 as the README builds it,
    run under cats with TOOL_ARGS once per test run; returns the trace's
    path."""
    key = tuple(tool_args)
    if key not in _examples:
        binary = os.path.join(WORK, "heat-example")
        if not os.path.exists(binary):
            subprocess.run(["gcc", "-O2", "-g", "-I" + os.path.join(SRC, "..", "cats"),
                            os.path.join(SRC, "..", "examples", "heat.c"), "-o", binary, "-lm"],
                           check=True)
        tag = "-".join(a.strip("-").replace("=", "") for a in key)
        path, proc = run_cats(binary, tool_args=key, out="%s.%s.cats" % (binary, tag or "plain"))
        check(proc.returncode == 0 and os.path.exists(path), "the example under cats: " + proc.stderr[-1500:])
        _examples[key] = path
    return _examples[key]


def cats_cmd(*args, check_rc=True):
    proc = subprocess.run([CATS] + list(args), capture_output=True, text=True)
    if check_rc and proc.returncode != 0:
        raise TestFailure("cats %s failed (%d): %s" % (" ".join(args), proc.returncode, proc.stderr))
    return proc


class Trace:
    """The JSON dump of a trace with structural queries."""

    def __init__(self, path):
        self.path = path
        self.j = json.loads(cats_cmd("dump", "--json", path).stdout)
        self.locs = self.j["locs"]
        self.ctxs = self.j["contexts"]
        self.allocs = self.j["allocs"]
        self.events = self.j["events"]
        self.meta = self.j["meta"]

    def loc_str(self, loc_id):
        if loc_id is None:
            return ""
        l = self.locs[loc_id]
        return "%s:%d" % (l["file"], l["line"])

    def path_of(self, ctx_id):
        """Context path from the thread root: list of (kind, name, line)."""
        out = []
        while ctx_id is not None:
            c = self.ctxs[ctx_id]
            line = self.locs[c["loc"]]["line"] if c["loc"] is not None else 0
            out.append((c["kind"], c["name"], line))
            ctx_id = c["parent"]
        return list(reversed(out))

    def under_main(self, ctx_id):
        """The part of the context path from main on, or None."""
        p = self.path_of(ctx_id)
        for i, (kind, name, _) in enumerate(p):
            if kind == "function" and name == "main":
                return p[i:]
        return None

    def kinds_under_main(self, ctx_id):
        p = self.under_main(ctx_id)
        return None if p is None else [k for k, _, _ in p]

    def allocs_named(self, pred):
        return [a for a in self.allocs if pred(a)]

    def alloc_by_name(self, name):
        found = [a for a in self.allocs if a["name"] == name]
        check(len(found) == 1, "one container named %r, found %d" % (name, len(found)))
        return found[0]

    def events_of(self, alloc_id, kind=None):
        return [e for e in self.events if e["alloc"] == alloc_id and (kind is None or e["kind"] == kind)]

    def events_at_line(self, line, file=None):
        return [e for e in self.events
                if self.locs[e["loc"]]["line"] == line
                and (file is None or os.path.basename(self.locs[e["loc"]]["file"] or "") == file)]

    def events_where(self, line, file, kind=None, alloc=None):
        """Events at FILE:LINE, optionally of one kind ("read"/"write") and
        into one container (ALLOCS id)."""
        return [e for e in self.events_at_line(line, file)
                if (kind is None or e["kind"] == kind) and (alloc is None or e["alloc"] == alloc)]

    def loc_line(self, loc_id):
        return self.locs[loc_id]["line"] if loc_id is not None else 0

    def loc_file(self, loc_id):
        return os.path.basename(self.locs[loc_id]["file"] or "") if loc_id is not None else ""

    def ctx_in_file(self, ctx_id, file):
        c = self.ctxs[ctx_id]
        return c["loc"] is not None and self.loc_file(c["loc"]) == file

    def program_path(self, ctx_id, file):
        """The path from main on, keeping only the scopes whose location is
        in FILE (the test program): drops libc, ld.so and PLT frames.
        Entries are (kind, name, line); None when not under main."""
        p = []
        cid = ctx_id
        chain = []
        while cid is not None:
            chain.append(cid)
            cid = self.ctxs[cid]["parent"]
        chain.reverse()
        started = False
        for cid in chain:
            c = self.ctxs[cid]
            if c["kind"] == "function" and c["name"] == "main":
                started = True
            if started and self.ctx_in_file(cid, file):
                p.append((c["kind"], c["name"], self.loc_line(c["loc"])))
        return p if started else None

    def kinds_path(self, ctx_id, file):
        """program_path reduced to (kind, name) pairs, loops as ("loop", line)."""
        p = self.program_path(ctx_id, file)
        if p is None:
            return None
        return [(k, l) if k == "loop" else (k, n) for k, n, l in p]

    def thread_root(self, ctx_id):
        while self.ctxs[ctx_id]["parent"] is not None:
            ctx_id = self.ctxs[ctx_id]["parent"]
        return ctx_id

    def contexts_named(self, name, kind="function"):
        return [c for c in self.ctxs if c["name"] == name and c["kind"] == kind]

    def writer_of(self, line, file, kind="write"):
        """The one container accessed (KIND) at FILE:LINE, apart from stack
        frames; fails unless exactly one."""
        ids = sorted({e["alloc"] for e in self.events_where(line, file, kind)
                      if self.allocs[e["alloc"]]["kind"] != "stack-frame"})
        check(len(ids) == 1, "one container %s at %s:%d, found %r"
              % (kind, file, line, [self.allocs[i]["name"] for i in ids]))
        return self.allocs[ids[0]]

    def loops_of(self, function):
        """Loop contexts directly inside FUNCTION (any depth of loops)."""
        res = []
        for c in self.ctxs:
            if c["kind"] != "loop":
                continue
            p = c["parent"]
            while p is not None and self.ctxs[p]["kind"] in ("loop", "conditional", "region"):
                p = self.ctxs[p]["parent"]
            if p is not None and self.ctxs[p]["kind"] == "function" and self.ctxs[p]["name"] == function:
                res.append(c)
        return res

    def heap_allocs_in_main(self):
        return [a for a in self.allocs
                if a["kind"] not in ("global", "stack-var", "stack-frame", "mmap")
                and a["alloc_ctx"] is not None and self.under_main(a["alloc_ctx"]) is not None]


class Vcg:
    """The value communication graph of a trace, as `cats vcg` prints it:
    edges {(src, dst): (uses, versions)}, vertices {label: (flags,
    versions, weight)} and the statistics {key: text}. Memory vertices
    are labelled NAME+OFFSET, register intermediates [tmp#K ...]."""

    def __init__(self, path):
        self.stats = {}
        for line in cats_cmd("vcg", path).stdout.splitlines():
            key, _, value = line.partition(" ")
            self.stats[key] = value
        self.edges = {}
        for line in cats_cmd("vcg", path, "--edges").stdout.splitlines():
            lhs, _, rest = line.partition(" -> ")
            fields = rest.split(" ")
            dst = " ".join(f for f in fields if not f.startswith(("uses=", "versions=")))
            kv = dict(f.split("=") for f in fields if f.startswith(("uses=", "versions=")))
            self.edges[(lhs, dst)] = (int(kv["uses"]), int(kv["versions"]))
        self.vertices = {}
        for line in cats_cmd("vcg", path, "--vertices").stdout.splitlines():
            fields = line.split(" ")
            kv = dict(f.split("=") for f in fields if f.startswith(("flags=", "versions=", "weight=")))
            label = " ".join(f for f in fields if not f.startswith(("flags=", "versions=", "weight=")))
            self.vertices[label] = (kv["flags"], int(kv["versions"]), int(kv["weight"]))

    def into(self, dst):
        """{src: (uses, versions)} of the edges into DST."""
        return {s: w for (s, d), w in self.edges.items() if d == dst}

    def among(self, names):
        """Edges whose both ends are memory vertices of the named containers."""
        def ok(label):
            return label.split("+")[0] in names and not label.startswith("[")
        return {e: w for e, w in self.edges.items() if ok(e[0]) and ok(e[1])}


_vcgs = {}


def vcg_of(name, flags=("-O0",), tool_args=()):
    """The VCG of tests/programs/NAME run under cats (cached)."""
    key = (name, tuple(flags), tuple(tool_args))
    if key not in _vcgs:
        trace, _ = traced(name, flags, tool_args=tool_args)
        _vcgs[key] = Vcg(trace.path)
    return _vcgs[key]


NODE_DIR = os.path.join(SRC, "node")
CHROMIUM = os.environ.get("CATS_CHROMIUM", "/usr/bin/chromium")
HANG_GUARD = 900          # seconds; only against a hung browser or npm, never a performance limit


def _browser_ready():
    check(shutil.which("node") is not None, "node is missing (scripts/install-deps.sh installs it)")
    check(os.path.exists(CHROMIUM), "%s is missing (apt-get install chromium, or scripts/install-deps.sh)"
          % CHROMIUM)
    if not os.path.isdir(os.path.join(NODE_DIR, "node_modules", "playwright-core")):
        proc = subprocess.run(["npm", "ci", "--prefix", NODE_DIR, "--no-audit", "--no-fund"],
                              capture_output=True, text=True, timeout=HANG_GUARD)
        check(proc.returncode == 0, "npm ci in tests/node failed: " + proc.stderr[-1500:])


def browse(steps, url=None, html=None, width=1400, height=900):
    """Runs STEPS (tests/node/drive.js) in Chromium on a page; returns the
    values of the eval steps. Fails on any page error, console error or
    request."""
    _browser_ready()
    plan = {"url": url, "steps": list(steps), "width": width, "height": height}
    if html is not None:
        plan["html"] = html
        plan["url"] = "about:blank"
    proc = subprocess.run(["node", os.path.join(NODE_DIR, "drive.js")], input=json.dumps(plan),
                          capture_output=True, text=True, timeout=HANG_GUARD)
    if proc.returncode != 0:
        raise TestFailure("browser run failed: " + proc.stderr[-3000:])
    out = json.loads(proc.stdout)
    check_eq(out["pageErrors"], [], "page errors")
    check_eq(out["console"], [], "console errors")
    check_eq(out["requests"], [], "network requests of the page")
    return out["results"]
