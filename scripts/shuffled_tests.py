"""Run the test suite in a shuffled order, to find tests that pass only after (or before) others.

A test that leans on what an earlier test left in its process (a typeset line in a cache, Qt's
glyphs already drawn once, a widget the garbage collector has yet to take) passes in the order
pytest collects and fails in another: CI then fails at random. The same seed gives the same
order, so a failure found here can be run again:

    .venv/bin/python scripts/shuffled_tests.py --seed 2              # the whole suite, 2 cores
    .venv/bin/python scripts/shuffled_tests.py --seed 7 tests/views  # a part of it
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
from pathlib import Path

PYTEST = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider"]


def collected(root: Path, paths: list[str]) -> list[str]:
    """The test ids pytest collects from ``paths``, in its own order."""
    listing = subprocess.run(
        [*PYTEST, "--collect-only", "-q", *paths],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )
    if listing.returncode != 0:
        sys.exit(f"collecting the tests failed:\n{listing.stdout}{listing.stderr}")
    return [line for line in listing.stdout.splitlines() if "::" in line]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--seed",
        type=int,
        default=random.randrange(10_000),
        help="the order's seed (default: a new one, printed)",
    )
    parser.add_argument("--workers", default="2", help="pytest-xdist workers (-n), or 0")
    parser.add_argument("paths", nargs="*", help="test files or folders (default: tests)")
    arguments = parser.parse_args()
    root = Path(__file__).resolve().parent.parent
    paths = [str(Path(path).resolve()) for path in arguments.paths] or [str(root / "tests")]
    ids = collected(root, paths)
    random.Random(arguments.seed).shuffle(ids)
    print(f"seed {arguments.seed}: {len(ids)} tests in a shuffled order", flush=True)
    # pytest runs the ids in the order given; loadgroup keeps the packaging tests together.
    workers = [] if arguments.workers == "0" else ["-n", arguments.workers, "--dist", "loadgroup"]
    run = subprocess.run([*PYTEST, "-q", *workers, *ids], cwd=root, check=False)
    if run.returncode != 0:
        print(f"seed {arguments.seed} failed: run it again with --seed {arguments.seed}")
    return run.returncode


if __name__ == "__main__":
    sys.exit(main())
