"""An advantage change in the Update workspace on the tiny model's group, against the stand-in.

One user action, followed by the event loop until idle (the lab, the update snapshot, every view
of the page, the repaint): a card's reward set by hand (continuous mode; a model's group cannot
be toggled), which changes the group's advantages, at 4 inner steps while the Update page shows.
Measured on a group the tiny model wrote for ``23+45=`` (the real network: 4 Adam steps on
each side, then the spill-over on 32 held-out prompts) and, in the same run as the baseline, on
the same answers read from a run's file (the stand-in policy), at G = 8 and G = 64.

    python benchmarks/bench_lm_update.py [--repeats N] [--steps N]

Runs offscreen (QT_QPA_PLATFORM=offscreen) unless a platform is set.
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import sys
import time
from dataclasses import replace

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from measure import percentile

FRAME_MS = 1000 / 60


def clicks(app, workbench, size: int, repeats: int) -> list[float]:
    """Seconds per reward change, after 5 of warm-up; each sets a value not seen before."""
    times = []
    for repeat in range(repeats + 5):
        start = time.perf_counter()
        workbench.set_score(repeat % size, 0.25 + 0.5 * ((repeat * 7919) % 997) / 997)
        app.processEvents()
        if repeat >= 5:
            times.append(time.perf_counter() - start)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=40, help="measured clicks of each kind")
    parser.add_argument("--steps", type=int, default=4, help="inner steps")
    args = parser.parse_args()

    from PySide6.QtWidgets import QApplication

    from grpo_desktop.core.tinylm import load_model
    from grpo_desktop.core.tinylm.lab_group import sample_lab_group
    from grpo_desktop.window.main_window import MainWindow

    app = QApplication.instance() or QApplication(sys.argv[:1])
    window = MainWindow()
    window.resize(1280, 800)
    window.show()
    workbench = window.workbench
    model = load_model()
    print(f"Update workspace, a reward set by hand, {args.steps} inner steps, 1280x800:")
    for size in (8, 64):
        group = sample_lab_group(model, "23+45=", size, 0)
        for label, chosen in (
            ("tiny model", group),
            ("stand-in (same answers)", replace(group, run_format="trl", file_name="run")),
        ):
            workbench.open_recorded_group(chosen)
            workbench.set_by_hand(True)
            workbench.set_update_settings(
                replace(workbench.update_settings, inner_steps=args.steps)
            )
            workbench.set_workspace("update")
            app.processEvents()
            gc.freeze()
            times = clicks(app, workbench, size, args.repeats)
            median, p95 = statistics.median(times) * 1e3, percentile(times, 0.95) * 1e3
            verdict = "within" if p95 <= FRAME_MS else "over"
            print(
                f"  G = {size:<3} {label:<24} p50 {median:6.1f} ms  p95 {p95:6.1f} ms  "
                f"({verdict} one frame)"
            )
            workbench.set_workspace("lab")
            app.processEvents()
    window.undo_stack.setClean()
    window.close()


if __name__ == "__main__":
    main()
