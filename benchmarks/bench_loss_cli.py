"""Peak memory and time of ``grpo-desktop loss FILE.json`` on a large generated batch.

The 64 MiB file cap alone does not bound memory: a file of short numbers holds ten million token
positions. This script writes such a batch (B answers × T positions, logp and old_logp as short
literals, a full mask), runs the command on it in a child process and reports the child's peak
resident set size and wall time, so the bound can be checked before and after a change.

    python benchmarks/bench_loss_cli.py [--answers B] [--width T] [--values zeros|floats]
                                        [--preset NAME] [--keep FILE]

``zeros`` writes every logp as ``0`` (the smallest file: about 6 bytes a position, 1e7 positions
in 60 MB); ``floats`` writes ``-0.5``-style decimals, so parsing makes one Python float each (the
parser's worst case per byte). Linux or macOS (``resource.getrusage`` of the child).
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

MB = 1024 * 1024


def write_batch(path: Path, answers: int, width: int, values: str) -> int:
    """Write the batch one field at a time (every answer the same row); its size in bytes."""
    logp_row = (
        ",".join(["0"] * width)
        if values == "zeros"
        else ",".join(f"-{(t % 9 + 1) / 10}" for t in range(width))
    )
    old_row = (
        logp_row
        if values == "zeros"
        else ",".join(f"-{((t + 3) % 9 + 1) / 10}" for t in range(width))
    )
    mask_row = ",".join(["1"] * width)
    with path.open("w", encoding="ascii") as out:
        for name, row in (("logp", logp_row), ("old_logp", old_row), ("mask", mask_row)):
            out.write(f'"{name}": [' if name != "logp" else '{"logp": [')
            out.write(",".join(f"[{row}]" for _ in range(answers)))
            out.write("], ")
        out.write('"advantages": [')
        out.write(",".join("1" if i % 2 else "-1" for i in range(answers)))
        out.write("]}")
    return path.stat().st_size


def run_loss(path: Path, preset: str | None) -> tuple[float, float, int, str]:
    """Run the command in a child; (wall seconds, child peak RSS in MB, status, stderr)."""
    command = [sys.executable, "-m", "grpo_desktop", "loss", str(path), "--json"]
    if preset:
        command += ["--preset", preset]
    start = time.perf_counter()
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # KiB on Linux, B on macOS
    peak_mb = peak / MB if sys.platform == "darwin" else peak / 1024
    return elapsed, peak_mb, result.returncode, result.stderr.strip()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--answers", type=int, default=1000, help="B (default 1000)")
    parser.add_argument("--width", type=int, default=10_000, help="T (default 10,000)")
    parser.add_argument("--values", choices=("zeros", "floats"), default="zeros")
    parser.add_argument("--preset", help="one preset only (default: every preset)")
    parser.add_argument("--keep", type=Path, help="write the batch here and keep it")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = args.keep or Path(folder) / "batch.json"
        size = write_batch(path, args.answers, args.width, args.values)
        elapsed, peak_mb, status, err = run_loss(path, args.preset)
    print(
        f"{args.answers} × {args.width} = {args.answers * args.width:,} positions, "
        f"{args.values}, {size / MB:.1f} MiB, preset {args.preset or 'all'}: "
        f"status {status}, {elapsed:.1f} s, peak RSS {peak_mb:,.0f} MB"
    )
    if err:
        print(f"stderr: {err[:300]}")
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONWARNINGS", "default")
    sys.exit(main())
