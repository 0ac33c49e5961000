# SPDX-License-Identifier: GPL-2.0-or-later
"""The README is a user's guide whose example output cannot drift: its
walk-through is the tool's output now, and it stays short."""
import os
import subprocess
import sys

from catslib import BUILD, TestFailure, check

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))


def test_readme_walkthrough_is_the_tools_output():
    proc = subprocess.run([sys.executable, os.path.join(TOP, "scripts", "readme_example.py"),
                           "--check", BUILD], capture_output=True, text=True)
    if proc.returncode != 0:
        raise TestFailure("README walk-through: " + (proc.stderr or proc.stdout)[-800:])


def test_readme_is_a_short_guide():
    with open(os.path.join(TOP, "README.md")) as f:
        lines = f.read().splitlines()
    check(len(lines) < 250, "README has %d lines" % len(lines))
    setups = [l for l in lines if l.startswith("sh scripts/")]
    check(setups == ["sh scripts/setup.sh", "sh scripts/test.sh"], "set-up commands: %s" % setups)
