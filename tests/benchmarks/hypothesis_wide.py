"""`python -m tests.benchmarks.hypothesis_wide [N]`: the property tests with fresh random seeds.

The test suite draws the same examples on every run (conftest's "deterministic" profile), so a
random find never decides whether work lands. This is the wide search: every property test of the
suite under the "wide" profile (new seeds, 5,000 examples where a test sets no count of its own),
N times (default 1). It prints each round's result and time; a failure it finds is fixed and kept
as an explicit `@example` in the test.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PROPERTY_TESTS = ("tests/test_grounding.py", "tests/test_guard_property.py", "tests/test_wiki.py", "tests/test_textmerge.py", "tests/test_context.py")


def main(argv: list[str]) -> int:
    rounds = int(argv[0]) if argv else 1
    env = {**os.environ, "HYPOTHESIS_PROFILE": "wide"}
    failed = 0
    for n in range(1, rounds + 1):
        started = time.perf_counter()
        proc = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "not realmodel", *PROPERTY_TESTS],
            cwd=REPO, env=env, capture_output=True, text=True,
        )  # fmt: skip
        tail = (proc.stdout.strip().splitlines() or ["(no output)"])[-1]
        print(f"round {n}: {tail} ({time.perf_counter() - started:.0f} s)")
        if proc.returncode != 0:
            failed += 1
            print(proc.stdout[-4000:])
    print(f"{rounds - failed} of {rounds} round(s) found nothing")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
