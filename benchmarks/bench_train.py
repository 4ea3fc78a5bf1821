"""How fast the toy training run goes, beside a numpy floor measured in the same process.

Times a whole run (six algorithms × 8 seeds × 200 steps, G = 8, batch 8, every shipped problem)
and one step of all six algorithms (what the Training workspace pays per frame while playing),
each the median of K runs. The floor is one elementwise numpy pass (``x * 1.0``) over as many
float64 values as the run samples answers: algorithms × seeds × steps × batch × G. The ratio says
how many such passes a run costs; steps per second counts steps of all algorithms together.

    python benchmarks/bench_train.py [--steps N] [--seeds K] [--repeats R]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import numpy as np

from grpo_desktop.core.training.run import ALGORITHMS, TrainingConfig, TrainingRun, build_library


def median_seconds(work: Callable[[], object], repeats: int, setup=None) -> float:
    """Median wall time of ``work`` over ``repeats`` runs, after one warm-up run.

    ``setup`` (untimed) runs before each timing and its result is passed to ``work``.
    """
    prepare = setup or (lambda: None)
    work(prepare())
    times = []
    for _ in range(repeats):
        state = prepare()
        start = time.perf_counter()
        work(state)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--seeds", type=int, default=8)
    parser.add_argument("--group-size", type=int, default=8)
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()

    config = TrainingConfig(
        algorithms=ALGORITHMS,
        steps=args.steps,
        seeds=args.seeds,
        group_size=args.group_size,
        batch=args.batch,
    )
    build_library()  # graded once and cached: not part of a run's cost
    answers = len(ALGORITHMS) * args.seeds * args.steps * args.batch * args.group_size
    values = np.random.default_rng(0).random(answers)

    floor = median_seconds(lambda _: values * 1.0, args.repeats)
    whole = median_seconds(lambda run: run.run(), args.repeats, setup=lambda: TrainingRun(config))
    setup_only = median_seconds(lambda _: TrainingRun(config), args.repeats)

    def warmed_run() -> TrainingRun:
        run = TrainingRun(config)
        run.run(args.steps // 2)  # a step in the middle of a run, history half full
        return run

    one_step = median_seconds(lambda run: run.step(), max(args.repeats, 21), setup=warmed_run)

    steps_per_second = args.steps / whole
    print(
        f"toy training: {len(ALGORITHMS)} algorithms x {args.seeds} seeds x {args.steps} steps, "
        f"G = {args.group_size}, batch {args.batch}, {len(build_library().problems)} problems; "
        f"median of {args.repeats} runs"
    )
    print(f"  sampled answers per run: {answers:,} (the floor's array length)")
    rows = [
        ("floor (x * 1.0 over that many float64)", floor, "1.00x", ""),
        ("setting up a run (TrainingRun(config))", setup_only, f"{setup_only / floor:.1f}x", ""),
        (
            f"whole run ({args.steps} steps)",
            whole,
            f"{whole / floor:.0f}x",
            f"{steps_per_second:,.0f} steps/s (all six), "
            f"{steps_per_second * len(ALGORITHMS) * args.seeds:,.0f} seed-steps/s",
        ),
        (
            "one step of all six algorithms",
            one_step,
            "",
            f"{one_step / (1 / 60) * 100:.0f}% of a 60 Hz frame",
        ),
    ]
    for name, seconds, ratio, note in rows:
        print(f"  {name:<42} {seconds * 1e3:9.3f} ms  {ratio:>6}  {note}")


if __name__ == "__main__":
    main()
