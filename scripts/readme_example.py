#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""readme_example.py [--update | --check] [BUILD]: the README's walk-through
of the bundled example, made from the tool's own output.

Builds examples/heat.c, runs it under cats and prints the lines the README
shows: the projection Valgrind prints at exit and the program's own
findings from `cats report` and `cats vcg --contexts`. Only lines about
heat.c's data and loops are kept: whole-process figures (accesses, peak
footprint) move with the environment and the tool's install path, which
ld.so and libc read at start-up. For the same reason the run has a fixed
environment, and the tool is reached through a fixed path (WORK/vglib). --update writes them into README.md
between the markers, --check exits 1 when README.md shows other lines.
BUILD (default ./build) runs the uninstalled tool; without it, the
installed one."""
import os
import re
import subprocess
import sys
import shutil

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
BEGIN = "<!-- walk-through: made by scripts/readme_example.py --update -->"
END = "<!-- end of walk-through -->"
RANKS = "2,4,8,16,32,64"
WORK = "/tmp/cats-readme-example"


def _run(cmd, env, cwd):
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit("readme_example: %s failed: %s" % (" ".join(cmd), proc.stderr.strip()[-500:]))
    return proc


def walkthrough(build=None):
    """The README's lines, as a list of strings."""
    env = {"PATH": "/usr/bin:/bin", "LANG": "C"}
    cats = "cats"
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    work = WORK
    if build:
        os.symlink(os.path.join(build, "vglib"), os.path.join(WORK, "vglib"))
        env["VALGRIND_LIB"] = os.path.join(WORK, "vglib")
        cats = os.path.join(build, "bin", "cats")
    try:
        _run(["gcc", "-O2", "-g", "-I" + os.path.join(TOP, "cats"),
              os.path.join(TOP, "examples", "heat.c"), "-o", "heat"], env, work)
        run = _run(["valgrind", "--tool=cats", "--cats-out-file=heat.cats",
                    "--ranks=" + RANKS, "./heat"], env, work)
        report = _run([cats, "report", "heat.cats", "--top=4"], env, work).stdout
        contexts = _run([cats, "vcg", "heat.cats", "--contexts"], env, work).stdout
    finally:
        shutil.rmtree(WORK, ignore_errors=True)
    out = ["$ gcc -O2 -g examples/heat.c -o heat",
           "$ valgrind --tool=cats --cats-out-file=heat.cats --ranks=%s ./heat" % RANKS]
    out += run.stdout.splitlines()
    keep = False
    for line in run.stderr.splitlines():
        body = re.sub(r"^==\d+== ?", "", line)
        if body.startswith("projected communication"):
            keep = True
        if keep and body.startswith("cats:"):
            break
        if keep:
            out.append("==1234== " + body)
    out.append("$ cats report heat.cats --top=4     # sections 2, 5 and 6 of 7")
    section = None
    for line in report.splitlines():
        m = re.match(r"^(\d)\. ", line)
        if m:
            section = m.group(1)
        if section in ("2", "5", "6") and line.strip() and "more; --top=N" not in line:
            out.append(line)
    out.append("$ cats vcg heat.cats --contexts | head -n 2   # values made per loop")
    out += contexts.splitlines()[:2]
    return out


def main(argv):
    mode = None
    if argv and argv[0] in ("--update", "--check"):
        mode = argv.pop(0)
    build = os.path.abspath(argv[0]) if argv else None
    if build is None and os.path.isdir(os.path.join(TOP, "build", "vglib")) and mode:
        build = os.path.join(TOP, "build")
    block = "\n".join([BEGIN, "```"] + walkthrough(build) + ["```", END])
    if mode is None:
        print(block)
        return 0
    path = os.path.join(TOP, "README.md")
    with open(path) as f:
        text = f.read()
    a, b = text.find(BEGIN), text.find(END)
    if a < 0 or b < a:
        sys.exit("readme_example: README.md has no walk-through markers")
    shown = text[a:b + len(END)]
    if mode == "--check":
        if shown != block:
            print("README.md's walk-through differs from the tool's output; "
                  "run scripts/readme_example.py --update", file=sys.stderr)
            return 1
        return 0
    with open(path + ".tmp", "w") as f:
        f.write(text[:a] + block + text[b + len(END):])
    os.replace(path + ".tmp", path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
