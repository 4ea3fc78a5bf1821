"""Frames while a training run plays in the window: does it hold 60 fps, and do clicks get in?

The Training workspace plays the default run (six algorithms × 8 seeds, G = 8) at a chosen speed
for a few seconds at 1280×800, as a user sees it. Every paint of the pass-rate chart is stamped;
the intervals between them are the frames the class sees. At the same time a key press is sent to
the window every 100 ms and the time until it is handled is measured: input must not wait behind
the run. Target: p95 frame interval ≤ 20 ms (≥ 55 fps with one 60 Hz tick of slack); input p95
within one frame.

    python benchmarks/bench_train_ui.py [--seconds S] [--speed STEPS_PER_SECOND]

Runs offscreen (QT_QPA_PLATFORM=offscreen) unless a platform is set.
"""

from __future__ import annotations

import argparse
import gc
import itertools
import os
import statistics
import sys
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from measure import key_waits, percentile


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=4.0, help="how long the run plays")
    parser.add_argument("--speed", type=int, default=60, help="training steps per second")
    args = parser.parse_args()

    from PySide6.QtCore import QEvent, QObject, QTimer
    from PySide6.QtWidgets import QApplication

    from grpo_desktop.core.training.run import TrainingConfig
    from grpo_desktop.window.main_window import MainWindow

    app = QApplication.instance() or QApplication(sys.argv[:1])
    window = MainWindow()
    window.resize(1280, 800)
    window.show()
    workbench = window.workbench
    workbench.apply_training_config(TrainingConfig(steps=2000))  # long enough not to finish
    workbench.set_workspace("training")
    page = window.training_page
    app.processEvents()
    gc.freeze()  # as grpo_desktop.app does once the window is up

    painted: list[float] = []

    class PaintStamp(QObject):
        def eventFilter(self, obj, event):
            if event.type() == QEvent.Type.Paint:
                painted.append(time.perf_counter())
            return False

    stamp = PaintStamp()
    plot = page.charts.plots()[0]
    plot.viewport().installEventFilter(stamp)

    waits, send_key = key_waits(app, window)

    keys = QTimer()
    keys.setInterval(100)
    keys.timeout.connect(send_key)
    page.state.set_speed(args.speed)
    page.state.set_playing(True)
    keys.start()
    end = time.perf_counter() + args.seconds
    while time.perf_counter() < end:
        app.processEvents()
        # The offscreen platform paints whenever asked; a real screen paints once per vsync.
        # Wait for the next tick like an idle event loop does, instead of spinning.
        time.sleep(0.001)
    keys.stop()
    page.state.set_playing(False)
    steps = page.state.run.step_count
    intervals = [(b - a) * 1e3 for a, b in itertools.pairwise(painted)]
    print(
        f"Training run playing at {args.speed} steps/s for {args.seconds:g} s (1280x800): "
        f"{steps} steps of 6 algorithms x 8 seeds"
    )
    if intervals:
        print(
            f"  frames: {len(intervals) + 1} painted, interval median "
            f"{statistics.median(intervals):5.1f} ms, p95 {percentile(intervals, 0.95):5.1f} ms "
            f"({1000 / statistics.median(intervals):4.0f} fps median)"
        )
    if waits:
        print(
            f"  input: {len(waits)} key presses, wait median "
            f"{statistics.median(waits) * 1e3:5.1f} ms, p95 {percentile(waits, 0.95) * 1e3:5.1f} ms"
        )
    workbench.undo_stack.setClean()
    window.close()


if __name__ == "__main__":
    main()
