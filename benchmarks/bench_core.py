"""How close group_advantages runs to the memory-bound floor on a large batch.

Reports the median time of ``group_advantages`` on a (1,000,000 x 16) float64 batch, for the
textbook and TRL conventions (plus OpenRLHF, which takes the same cache-blocked path, and
Dr. GRPO, which still takes the full-matrix path), as a ratio to one elementwise numpy pass over
the same array (``x * 1.0``, one thread), each call alternating with a call of that floor so
both see the machine at the same speed. The blocked path splits a batch this large between up
to four threads (two on a two-core machine); the "one thread" line shows it without them.
Target (issue #14): at most 2x the floor for textbook and TRL, with all-equal rows still exactly
0 and every other advantage within a few ulps of the exact one (tests/core/test_advantages.py
states and checks the bound). Run it several times and compare the ratios (median and spread),
not the absolute times: this machine's speed drifts.

    python benchmarks/bench_core.py [--rows N] [--group-size G] [--repeats K]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import numpy as np

from grpo_desktop.core import group_advantages
from grpo_desktop.core.formulas import advantages


def median_seconds(work: Callable[[], object], repeats: int) -> float:
    """Median wall time of ``work`` over ``repeats`` runs, after one warm-up run."""
    work()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def interleaved_ratio(
    work: Callable[[], object], floor: Callable[[], object], repeats: int
) -> tuple[float, float]:
    """Median time of ``work`` and its ratio to ``floor``, the two run alternately.

    This machine's speed drifts within seconds; measured back to back, both see the same speed.
    """
    work()
    floor()
    times, floors = [], []
    for _ in range(repeats):
        for run, into in ((floor, floors), (work, times)):
            start = time.perf_counter()
            run()
            into.append(time.perf_counter() - start)
    seconds = statistics.median(times)
    return seconds, seconds / statistics.median(floors)


def naive_advantages(rewards: np.ndarray) -> np.ndarray:
    """The obvious row-reduction version, for comparison only."""
    mean = rewards.mean(axis=1, keepdims=True)
    std = rewards.std(axis=1, keepdims=True)
    return (rewards - mean) / np.where(std == 0, 1.0, std)


def one_thread(rewards: np.ndarray, convention: str) -> np.ndarray:
    """``group_advantages`` with the blocked path's threads turned off, for comparison."""
    threads, advantages._BLOCK_THREADS = advantages._BLOCK_THREADS, 1
    try:
        return group_advantages(rewards, convention)
    finally:
        advantages._BLOCK_THREADS = threads


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--group-size", type=int, default=16)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()

    rng = np.random.default_rng(0)
    rewards = rng.integers(0, 2, size=(args.rows, args.group_size)).astype(np.float64)
    rewards += rng.normal(0.0, 0.1, size=rewards.shape)

    floor = median_seconds(lambda: rewards * 1.0, args.repeats)
    print(f"batch {args.rows:,} x {args.group_size}, median of {args.repeats} runs")
    print(f"  floor (x * 1.0, one elementwise pass): {floor * 1e3:8.1f} ms   1.00x")
    candidates = {
        "group_advantages textbook": lambda: group_advantages(rewards, "textbook"),
        "group_advantages trl": lambda: group_advantages(rewards, "trl"),
        "group_advantages openrlhf": lambda: group_advantages(rewards, "openrlhf"),
        "group_advantages textbook, one thread": lambda: one_thread(rewards, "textbook"),
        "group_advantages dr_grpo (full path)": lambda: group_advantages(rewards, "dr_grpo"),
        "naive mean(1)/std(1) (reference)": lambda: naive_advantages(rewards),
    }
    for name, work in candidates.items():
        seconds, ratio = interleaved_ratio(work, lambda: rewards * 1.0, args.repeats)
        print(f"  {name:<38} {seconds * 1e3:8.1f} ms  {ratio:5.2f}x")


if __name__ == "__main__":
    main()
