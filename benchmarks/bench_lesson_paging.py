"""Paging to a lesson's Training-run steps: Page Down / Page Up as a lecturer presses them.

A training step shows its run computed from step 0 to the step's ``training_steps`` (150 in "Why
runs stall"). The window starts the lesson, idles ``--idle`` seconds with its event loop running
(what a lecturer does while talking through the first step: the lesson's runs are computed then),
and goes to each step in turn and back (``LessonController.go_to``, then the events that are due),
timed from the key to the events processed. Baseline, in the same process: computing one such
run from step 0 (``TrainingRun(config).run(150)``), what every visit cost before the runs were
kept and computed ahead.

    python benchmarks/bench_lesson_paging.py [--lesson ID] [--idle S] [--rounds N]

Median and worst visit of a training step, in ms, and their ratio to the baseline. Runs
offscreen (QT_QPA_PLATFORM=offscreen) unless a platform is set.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lesson", default="why-runs-stall")
    parser.add_argument("--idle", type=float, default=3.0, help="seconds before the first page")
    parser.add_argument("--rounds", type=int, default=2, help="passes forward and back")
    args = parser.parse_args()

    from PySide6.QtWidgets import QApplication

    from grpo_desktop.core.files.lessons import get_lesson
    from grpo_desktop.core.training.run import TrainingRun
    from grpo_desktop.window.main_window import MainWindow

    app = QApplication.instance() or QApplication([])
    lesson = get_lesson(args.lesson)
    training = [i for i, step in enumerate(lesson.steps) if step.is_training]
    if not training:
        raise SystemExit(f"the lesson {args.lesson!r} has no Training-run step")
    longest = max(training, key=lambda i: lesson.steps[i].training_steps)
    step = lesson.steps[longest]
    start = time.perf_counter()
    TrainingRun(step.training).run(step.training_steps)
    baseline = time.perf_counter() - start

    window = MainWindow()
    window.install_deferred_features()
    window.resize(1280, 800)
    window.show()
    app.processEvents()
    window.lessons.start(args.lesson)
    deadline = time.perf_counter() + args.idle
    while time.perf_counter() < deadline:
        app.processEvents()
    visits: list[float] = []
    order = list(range(len(lesson.steps)))
    for _ in range(args.rounds):
        for index in order + order[-2::-1]:
            start = time.perf_counter()
            window.lessons.go_to(index)
            app.processEvents()
            if index in training:
                visits.append(time.perf_counter() - start)
    window.undo_stack.setClean()
    window.close()
    median, worst = statistics.median(visits), max(visits)
    print(
        f"lesson {args.lesson!r}, {len(visits)} visits of its {len(training)} Training-run steps "
        f"after {args.idle:g} s idle (ms):"
    )
    print(f"  a visit                    median {median * 1e3:6.1f}  worst {worst * 1e3:6.1f}")
    print(
        f"  baseline: its {step.training_steps} steps computed once  {baseline * 1e3:6.1f}"
        f"   (median visit {median / baseline:.2f}x, worst {worst / baseline:.2f}x)"
    )


if __name__ == "__main__":
    main()
