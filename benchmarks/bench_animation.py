"""Frames of the lab's reward <-> advantage animation at G = 64: does it hold 60 fps?

The main window at 1280×800 shows the lab with a group of 64 answers. The view is switched
(V: reward, then advantage, then reward …) as soon as each animation has ended and the window
has had a moment idle, for a few seconds. Every paint of the advantage chart's viewport is
stamped; only intervals between two frames painted while the same animation runs count (the
animator's phase is 1 or 2 then), so the pauses between switches are not frames. A frame is the
first paint after a tick of the animation clock; further paints of the same tick (pyqtgraph
items re-transforming mid-paint queue one) show nothing new and are reported apart. A key press is
sent every 100 ms and its wait measured, as in ``bench_train_ui.py``. Target: p95 frame interval
≤ 20 ms (≥ 55 fps with one 60 Hz tick of slack).

    python benchmarks/bench_animation.py [--seconds S] [--group-size G] [--profile]

``--profile`` runs cProfile around the animation clock's slot (one call per frame) and prints
the costliest functions. Runs offscreen (QT_QPA_PLATFORM=offscreen) unless a platform is set.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import itertools
import os
import pstats
import statistics
import sys
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from measure import key_waits, percentile


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="how long to keep switching")
    parser.add_argument("--group-size", type=int, default=64, help="answers in the group (G)")
    parser.add_argument("--pause-ms", type=int, default=150, help="idle time between switches")
    parser.add_argument(
        "--profile", action="store_true", help="cProfile the animation's per-frame slot"
    )
    args = parser.parse_args()

    from PySide6.QtCore import QEvent, QObject, QTimer
    from PySide6.QtWidgets import QApplication

    from grpo_desktop.window.main_window import MainWindow

    app = QApplication.instance() or QApplication(sys.argv[:1])
    window = MainWindow()
    window.resize(1280, 800)
    window.show()
    workbench = window.workbench
    workbench.set_group_size(args.group_size)
    chart = window.lab.chart
    animator = chart.animator
    for _ in range(20):
        app.processEvents()
    gc.freeze()  # as grpo_desktop.app does once the window is up

    # Paints: (time, animation number) while an animation runs. A frame is the first paint after
    # a tick of the animation clock (a new picture); a second paint of the same tick shows
    # nothing new, so it is counted as a paint but not as a frame.
    painted: list[tuple[float, int]] = []
    frames: list[tuple[float, int]] = []
    animation = [0]
    ticked = [False]

    class PaintStamp(QObject):
        def eventFilter(self, obj, event):
            if event.type() == QEvent.Type.Paint and animator.phase() != 0:
                stamp = (time.perf_counter(), animation[0])
                painted.append(stamp)
                if ticked[0]:
                    ticked[0] = False
                    frames.append(stamp)
            return False

    stamp = PaintStamp()
    chart.viewport().installEventFilter(stamp)

    waits, send_key = key_waits(app, window)

    # Wrap the clock's slot: every frame's work (interpolate, set options, place items) is
    # timed, and profiled with --profile. Each call is one tick of the animation clock.
    profiler = cProfile.Profile() if args.profile else None
    slot_times: list[float] = []
    original = animator._on_frame
    animator.clock.valueChanged.disconnect(original)

    def timed(value: object) -> None:
        start = time.perf_counter()
        if profiler is not None:
            profiler.enable()
        try:
            original(value)
        finally:
            if profiler is not None:
                profiler.disable()
            slot_times.append(time.perf_counter() - start)
            ticked[0] = True

    animator.clock.valueChanged.connect(timed)

    def press_v() -> None:
        animation[0] += 1
        window.view_toggle.trigger()  # what V does: reward <-> advantage, animated

    switcher = QTimer()
    switcher.setSingleShot(True)
    switcher.setInterval(args.pause_ms)
    switcher.timeout.connect(press_v)
    chart.animation_finished.connect(switcher.start)

    keys = QTimer()
    keys.setInterval(100)
    keys.timeout.connect(send_key)
    keys.start()
    press_v()
    end = time.perf_counter() + args.seconds
    while time.perf_counter() < end:
        app.processEvents()
        # The offscreen platform paints whenever asked; a real screen paints once per vsync.
        # Wait for the next tick like an idle event loop does, instead of spinning.
        time.sleep(0.001)
    keys.stop()
    chart.animation_finished.disconnect(switcher.start)
    switcher.stop()
    chart.animator.finish()

    def within(stamps: list[tuple[float, int]]) -> list[float]:
        """Intervals in ms between consecutive stamps of the same animation."""
        return [(b - a) * 1e3 for (a, na), (b, nb) in itertools.pairwise(stamps) if na == nb]

    animations = len({n for _, n in painted})
    seconds = animations * chart.animation_ms / 1000
    print(
        f"Reward <-> advantage animation at G = {args.group_size} for {args.seconds:g} s "
        f"(1280x800, {chart.animation_ms} ms each): {animations} animations"
    )
    for name, stamps in (("frames", frames), ("paints", painted)):
        intervals = within(stamps)
        if intervals:
            print(
                f"  {name}: {len(stamps)} while animating, interval median "
                f"{statistics.median(intervals):5.1f} ms, p95 {percentile(intervals, 0.95):5.1f} "
                f"ms, max {max(intervals):5.1f} ms ({1000 / statistics.median(intervals):4.0f} "
                f"fps median, {len(stamps) / seconds:4.0f} fps by count)"
            )
    if slot_times:
        print(
            f"  clock: {len(slot_times)} ticks ({len(painted) / len(slot_times):.2f} paints per "
            f"tick), frame slot median {statistics.median(slot_times) * 1e3:4.2f} ms, "
            f"p95 {percentile(slot_times, 0.95) * 1e3:4.2f} ms"
        )
    if waits:
        print(
            f"  input: {len(waits)} key presses, wait median "
            f"{statistics.median(waits) * 1e3:5.1f} ms, p95 {percentile(waits, 0.95) * 1e3:5.1f} ms"
        )
    if profiler is not None:
        stats = pstats.Stats(profiler)
        print("  per-frame slot profile (cumulative, top 25):")
        stats.sort_stats("cumulative").print_stats(25)
        stats.sort_stats("tottime").print_stats(20)
    workbench.undo_stack.setClean()
    window.close()


if __name__ == "__main__":
    main()
