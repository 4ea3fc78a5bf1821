"""An advantage change in the Update workspace on the tiny model's group, against the stand-in.

One user action: a card's reward set by hand (continuous mode; a model's group cannot be
toggled), which changes the group's advantages, at 4 inner steps while the Update page shows.
Measured on a group the tiny model wrote for ``23+45=`` (the real network: 4 Adam steps on
each side, then the spill-over on 32 held-out prompts) and, in the same run as the baseline, on
the same answers read from a run's file (the stand-in policy), at G = 8 and G = 64.

Two times per click:

- **click → frame**: the change, the snapshot it shows at once and the repaint of the page (one
  turn of the event loop). On the model that snapshot is the pending one (new advantages, step
  0's pushes, "Stepping the tiny model…"): the Adam steps run after it;
- **click → final**: until the finished numbers are shown (the model's steps run one piece per
  turn of the event loop, then the finished snapshot is rendered and painted). On the stand-in
  both times are the same click.

Beside them, in the same run, the model's steps taken inside the click (reading the state's
snapshot finishes them there), as every click took them before they left the frame.

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


def clicks(
    app, workbench, state, size: int, repeats: int, in_the_click: bool = False
) -> tuple[list[float], list[float]]:
    """Seconds per reward change to its frame, and to its final numbers shown, after 5 of
    warm-up; each sets a value not seen before (no trajectory is cached). ``in_the_click``:
    the steps are finished inside the click, before its frame."""
    from PySide6.QtCore import QEventLoop

    frames, finals = [], []
    for repeat in range(repeats + 5):
        start = time.perf_counter()
        workbench.set_score(repeat % size, 0.25 + 0.5 * ((repeat * 7919) % 997) / 997)
        if in_the_click:
            state.snapshot  # noqa: B018 - reading it finishes the steps now
        app.processEvents()  # the click's frame: the pieces wait FIRST_PIECE_DELAY_MS for it
        frame = time.perf_counter()
        while state.pending:
            app.processEvents(QEventLoop.ProcessEventsFlag.WaitForMoreEvents)
        app.processEvents()  # the finished snapshot's repaint
        final = time.perf_counter()
        if repeat >= 5:
            frames.append(frame - start)
            finals.append(final - start)
    return frames, finals


def row(times: list[float]) -> tuple[float, float]:
    return statistics.median(times) * 1e3, percentile(times, 0.95) * 1e3


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
        standin = replace(group, run_format="trl", file_name="run")
        for label, chosen, in_the_click in (
            ("tiny model", group, False),
            ("tiny model, steps in click", group, True),
            ("stand-in (same answers)", standin, False),
        ):
            workbench.open_recorded_group(chosen)
            workbench.set_by_hand(True)
            workbench.set_update_settings(
                replace(workbench.update_settings, inner_steps=args.steps)
            )
            workbench.set_workspace("update")
            app.processEvents()
            gc.freeze()
            state = window.update_page.state
            frames, finals = clicks(app, workbench, state, size, args.repeats, in_the_click)
            (median, p95), (final_median, final_p95) = row(frames), row(finals)
            verdict = "within" if p95 <= FRAME_MS else "over"
            print(
                f"  G = {size:<3} {label:<26} click → frame p50 {median:6.1f} p95 {p95:6.1f} ms "
                f"({verdict} one frame); → final p50 {final_median:6.1f} p95 {final_p95:6.1f} ms"
            )
            workbench.set_workspace("lab")
            app.processEvents()
    window.undo_stack.setClean()
    window.close()


if __name__ == "__main__":
    main()
