#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Runs every test_* function of the tests/test_*.py modules and prints one
line per test and the closing line 'N passed, N failed'. Exit status is 0
only when every test passed. A test name on the command line runs only the
tests whose names contain it. When every test passed, the work directory
keeps only the screenshots (a run writes close to 1 GB of traces); with
failures, or CATS_TEST_KEEP=1, it keeps everything."""
import importlib.util
import os
import shutil
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)


def main():
    selected = sys.argv[1:]
    passed = failed = 0
    for fname in sorted(os.listdir(HERE)):
        if not (fname.startswith("test_") and fname.endswith(".py")):
            continue
        spec = importlib.util.spec_from_file_location(fname[:-3], os.path.join(HERE, fname))
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        for name in sorted(n for n in dir(mod) if n.startswith("test_")):
            full = "%s.%s" % (fname[:-3], name)
            if selected and not any(s in full for s in selected):
                continue
            start = time.time()
            try:
                getattr(mod, name)()
                passed += 1
                print("ok   %-60s %5.1fs" % (full, time.time() - start), flush=True)
            except Exception as exc:  # a failing test must not stop the suite
                failed += 1
                print("FAIL %-60s %s" % (full, exc), flush=True)
                if os.environ.get("CATS_TEST_VERBOSE"):
                    traceback.print_exc()
    print("%d passed, %d failed" % (passed, failed))
    if failed == 0 and not os.environ.get("CATS_TEST_KEEP"):
        _keep_only_screenshots()
    return 0 if failed == 0 and passed > 0 else 1


def _keep_only_screenshots():
    import catslib
    for name in os.listdir(catslib.WORK):
        path = os.path.join(catslib.WORK, name)
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path, ignore_errors=True)
        elif not name.endswith(".png"):
            os.remove(path)


if __name__ == "__main__":
    sys.exit(main())
