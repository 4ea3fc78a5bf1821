"""Does ``grpo-desktop score`` need memory linear in the group size G?

Each size runs in a fresh interpreter: ``grpo-desktop score`` on G rewards (alternating 1 and 0),
its table written to /dev/null, and the child reports its own peak resident set size. Printed per
G: the peak, the growth over a 4-reward run, that growth per reward, and the growth's ratio to the
previous size's (10x the rewards should be about 10x the growth; a G x G matrix made it 100x).
Issue 24 measured 219 MB / 791 MB / 3.08 GB at 5,000 / 10,000 / 20,000 rewards before the fix,
and a MemoryError at 200,000. Ratios, not times: nothing here is timed.

    python benchmarks/bench_score_memory.py [--sizes 2000,20000,200000] [--convention NAME]
"""

from __future__ import annotations

import argparse
import subprocess
import sys

MB = 1024 * 1024

_CHILD = """
import contextlib, os, resource, sys
from grpo_desktop.app import main
size, convention = int(sys.argv[1]), sys.argv[2]
rewards = ["1", "0"] * (size // 2) + ["1"] * (size % 2)
with open(os.devnull, "w") as sink, contextlib.redirect_stdout(sink):
    status = main(["score", *rewards, "--convention", convention])
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(status, peak * (1 if sys.platform == "darwin" else 1024))
"""


def peak_rss(size: int, convention: str) -> int:
    """Peak RSS in bytes of a fresh interpreter scoring ``size`` rewards."""
    result = subprocess.run(
        [sys.executable, "-c", _CHILD, str(size), convention],
        capture_output=True,
        text=True,
        check=True,
    )
    status, peak = result.stdout.split()
    if status != "0":
        raise SystemExit(f"score of {size} rewards exited {status}: {result.stderr.strip()}")
    return int(peak)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="2000,20000,200000")
    parser.add_argument("--convention", default="textbook")
    args = parser.parse_args()
    sizes = [int(size) for size in args.sizes.split(",")]

    baseline = peak_rss(4, args.convention)
    print(f"score --convention {args.convention}: peak RSS of a fresh interpreter")
    print(f"  G = {4:>9,}   {baseline / MB:8.1f} MB   (baseline)")
    previous: tuple[int, int] | None = None  # (size, growth) of the size before
    for size in sizes:
        peak = peak_rss(size, args.convention)
        growth = max(peak - baseline, 1)
        ratio = (
            ""
            if previous is None
            else f"   growth x{growth / previous[1]:5.1f} for x{size / previous[0]:g} rewards"
        )
        print(
            f"  G = {size:>9,}   {peak / MB:8.1f} MB   +{growth / MB:7.1f} MB"
            f"   {growth / size:7.0f} bytes per reward{ratio}"
        )
        previous = (size, growth)


if __name__ == "__main__":
    main()
