# SPDX-License-Identifier: GPL-2.0-or-later
"""The source layout's rules (docs/DESIGN.md, "Layers"): includes point one
way between the layers, no file includes itself through others, each host
source is compiled once, the lower layers have no main and print nothing,
and a public function's name begins with its module's prefix."""
import os
import re

from catslib import TestFailure

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))

# Folder -> the folders its files may include (besides its own).
ALLOWED = {
    "cats/format": set(),
    "cats": {"cats/format"},
    "cats/tool": {"cats/format", "cats"},
    "cats/trace": {"cats/format"},
    "cats/binary": {"cats/trace"},
    "vcg": {"cats/trace", "cats/format"},
    "partition": {"cats/trace", "cats/format"},
    "cats/helper": {"cats/format", "cats/trace", "cats/binary", "vcg", "partition"},
    "cats/cli": {"cats/format", "cats/trace", "cats/binary", "vcg", "partition"},
}
LOWER = ["cats/trace", "cats/binary", "vcg", "partition"]
HOST = LOWER + ["cats/helper", "cats/cli"]
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def _sources():
    for folder in ALLOWED:
        for name in sorted(os.listdir(os.path.join(TOP, folder))):
            if name.endswith((".c", ".h")):
                yield folder, os.path.join(folder, name)


def _resolve(src, inc):
    """Where the compiler finds a quoted include: beside the file, then the
    top (-I$(srcdir)), then cats/ (the tool's -I$(srcdir)/cats)."""
    for base in (os.path.dirname(src), "", "cats"):
        path = os.path.normpath(os.path.join(base, inc))
        if os.path.isfile(os.path.join(TOP, path)):
            return path
    return None  # Valgrind's or the system's


def _includes():
    graph = {}
    for _, src in _sources():
        with open(os.path.join(TOP, src)) as f:
            text = f.read()
        graph[src] = [p for p in (_resolve(src, i) for i in INCLUDE.findall(text)) if p]
    return graph


def test_includes_point_down_the_layers():
    bad = []
    for src, incs in _includes().items():
        folder = os.path.dirname(src)
        for inc in incs:
            to = os.path.dirname(inc)
            if to != folder and to not in ALLOWED[folder]:
                bad.append("%s includes %s" % (src, inc))
    if bad:
        raise TestFailure("includes against the layers: %s" % bad)


def test_no_include_cycles():
    graph = _includes()
    state = {}

    def visit(node, path):
        state[node] = 1
        for nxt in graph.get(node, []):
            if state.get(nxt) == 1:
                raise TestFailure("include cycle: %s" % " -> ".join(path + [nxt]))
            if nxt not in state:
                visit(nxt, path + [nxt])
        state[node] = 2

    for node in graph:
        if node not in state:
            visit(node, [node])


def test_each_host_source_is_compiled_once():
    with open(os.path.join(TOP, "Makefile.am")) as f:
        am = f.read()
    listed = re.findall(r"[\w/]+\.c\b", am)
    for folder in HOST:
        for name in os.listdir(os.path.join(TOP, folder)):
            if name.endswith(".c"):
                n = listed.count(os.path.join(folder, name))
                if n != 1:
                    raise TestFailure("%s is listed %d times in Makefile.am" % (os.path.join(folder, name), n))


def test_lower_layers_have_no_main_and_print_nothing():
    prints = re.compile(r"\b(main\s*\(|printf\s*\(|puts\s*\(|putchar\s*\(|stdout\b)")
    for folder in LOWER:
        for name in os.listdir(os.path.join(TOP, folder)):
            if name.endswith(".c"):
                with open(os.path.join(TOP, folder, name)) as f:
                    for no, line in enumerate(f, 1):
                        code = line.split("//")[0]
                        if prints.search(code) and not code.lstrip().startswith("*"):
                            raise TestFailure("%s/%s:%d: %s" % (folder, name, no, line.strip()))


def test_public_names_carry_their_module_prefix():
    # A definition at the start of a line, not static: `type name(`.
    definition = re.compile(r"^(?!static\b)[A-Za-z_][\w \*]*?\b([a-z_][a-z0-9_]*)\s*\(", re.M)
    bad = []
    for folder in HOST:
        for name in os.listdir(os.path.join(TOP, folder)):
            if not name.endswith(".c") or name.endswith("_main.c"):
                continue
            module = name.split("_")[0].split(".")[0] + "_"
            with open(os.path.join(TOP, folder, name)) as f:
                text = f.read()
            for fn in definition.findall(text):
                if fn in ("if", "for", "while", "switch", "return", "sizeof"):
                    continue
                if not fn.startswith(module):
                    bad.append("%s/%s: %s" % (folder, name, fn))
    if bad:
        raise TestFailure("names without their module's prefix: %s" % bad[:20])
