"""Runs one pytest suite of tests/python for CTest, with an honest exit status:
  0   tests ran and passed;
  77  (CTest SKIP) a prerequisite named by --skip-without is missing (torch; a GPU: an NVIDIA
      device node), or every collected test skipped itself -- never reported as a pass;
  1   a failure, a prerequisite named by --need missing (it should be installed:
      scripts/deps.sh), or no test collected.

    run_pytest.py [--need numpy,ml_dtypes] [--skip-without torch,gpu] -- PYTEST_ARGS...
"""
import argparse
import importlib
import os
import sys

SKIP = 77


def present(name):
    if name == "gpu":
        if not (os.path.exists("/dev/nvidiactl") or os.path.exists("/dev/nvidia0")):
            return False, "no NVIDIA device node (/dev/nvidiactl, /dev/nvidia0)"
        return True, ""
    try:
        importlib.import_module(name)
        return True, ""
    except ImportError as ex:
        return False, "cannot import %s (%s)" % (name, ex)


class Outcomes:
    """pytest plugin: counts what ran."""

    def __init__(self):
        self.passed = self.failed = self.skipped = 0

    def pytest_runtest_logreport(self, report):
        if report.when == "call" and report.passed:
            self.passed += 1
        elif report.failed:
            self.failed += 1
        elif report.skipped:
            self.skipped += 1


def main():
    argv = sys.argv[1:]
    pytest_args = argv[argv.index("--") + 1:] if "--" in argv else []
    ours = argv[:argv.index("--")] if "--" in argv else argv
    ap = argparse.ArgumentParser()
    ap.add_argument("--need", default="")
    ap.add_argument("--skip-without", default="")
    a = ap.parse_args(ours)
    for name in filter(None, a.need.split(",")):
        ok, why = present(name)
        if not ok:
            print("FAIL: %s: it should be installed (scripts/deps.sh installs the Python test "
                  "packages into .deps/pip)" % why)
            return 1
    for name in filter(None, a.skip_without.split(",")):
        ok, why = present(name)
        if not ok:
            print("SKIP: %s" % why)
            return SKIP
    import pytest
    counts = Outcomes()
    rc = pytest.main(["-p", "no:cacheprovider", "-q", "-rs"] + pytest_args, plugins=[counts])
    print("run_pytest: %d passed, %d failed, %d skipped" % (counts.passed, counts.failed,
                                                           counts.skipped))
    if rc == 5 or counts.passed + counts.failed + counts.skipped == 0:
        print("FAIL: no test collected")
        return 1
    if rc != 0:
        return 1
    if counts.passed == 0:
        print("SKIP: every test skipped itself")
        return SKIP
    return 0


if __name__ == "__main__":
    sys.exit(main())
