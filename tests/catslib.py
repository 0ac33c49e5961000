"""Helpers for the cats test suite: build guest programs, run them under
cats, and query the JSON form of their traces by structure (names, kinds,
source lines), never by address."""
import json
import os
import subprocess
import tempfile

BUILD = os.environ.get("CATS_BUILD", os.path.join(os.path.dirname(__file__), "..", "build"))
BUILD = os.path.abspath(BUILD)
SRC = os.path.abspath(os.path.dirname(__file__))
PROGRAMS = os.path.join(SRC, "programs")
CATS = os.path.join(BUILD, "bin", "cats")
VGLIB = os.path.join(BUILD, "vglib")
WORK = tempfile.mkdtemp(prefix="cats-tests-")


class TestFailure(AssertionError):
    pass


def check(cond, msg):
    if not cond:
        raise TestFailure(msg)


def check_eq(got, want, what):
    if got != want:
        raise TestFailure("%s: got %r, want %r" % (what, got, want))


def compile_program(name, flags=("-O0",), out=None, lang=None):
    """Compiles tests/programs/NAME with debug info; returns the binary."""
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
    return out


def run_cats(binary, args=(), tool_args=(), out=None, expect_rc=None):
    """Runs BINARY under cats; returns (trace path, completed process)."""
    out = out or binary + ".cats"
    if os.path.exists(out):
        os.unlink(out)
    env = dict(os.environ, VALGRIND_LIB=VGLIB)
    cmd = ["valgrind", "--tool=cats", "--cats-out-file=" + out] + list(tool_args) + [binary] + list(args)
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if expect_rc is not None and proc.returncode != expect_rc:
        raise TestFailure("valgrind exit %d (want %d): %s" % (proc.returncode, expect_rc, proc.stderr[-2000:]))
    return out, proc


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
                if self.locs[e["loc"]]["line"] == line and (file is None or self.locs[e["loc"]]["file"] == file)]

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
