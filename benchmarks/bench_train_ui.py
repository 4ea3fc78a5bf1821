"""A training run playing while the lecturer clicks: does it keep its speed, do clicks get in?

The Training workspace plays the default run (six algorithms × 8 seeds, G = 8) at 1280×800, as a
user sees it, in Qt's own event loop, at each set speed (10 and 30 steps/s unless told). While it
plays:

- a "hand" clicks the pass-rate chart every 80–120 ms on a random step played (never the one
  marked, at the pixel the click lands on: a click on the marked step changes nothing and
  would be timed to a later paint): at each chosen moment a
  precise timer posts a press and a release to the chart. A timer fires when the GUI thread
  comes back to its event loop, as a real click is read then, so the click waits behind
  whatever the thread is doing when it lands. A click on the chart chooses a step: the snapshot
  is rebuilt and every view redrawn, the marker moves. A click's time runs from the chosen
  moment to the start of the chart's first paint after the click was handled (what the
  lecturer sees move);
- a key press is posted to the window every 100 ms and timed until it is handled;
- every paint of the chart is stamped (the intervals are the frames the class sees);
- the steps played are counted: achieved steps/s against the set speed (target ≥ 95 %).

The idle prebuild of the other pages is let finish first (its steps landed in measured clicks).
The same clicks with the run paused come first: the baseline in the same run. Targets: click
p95 ≤ 16 ms while playing, and the set speed kept.

    python benchmarks/bench_train_ui.py [--seconds S] [--speeds 10,30]

Runs offscreen (QT_QPA_PLATFORM=offscreen) unless a platform is set.
"""

from __future__ import annotations

import argparse
import gc
import itertools
import os
import random
import statistics
import sys
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from measure import key_waits, percentile, post_click


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=6.0, help="how long each speed plays")
    parser.add_argument(
        "--speeds", default="10,30", help="training steps per second, comma-separated"
    )
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    speeds = [int(speed) for speed in args.speeds.split(",")]

    from PySide6.QtCore import QElapsedTimer, QEvent, QEventLoop, QObject, QPointF, Qt, QTimer
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
    state = page.state
    app.processEvents()
    clock = QElapsedTimer()
    clock.start()
    while not window.prebuild.done and clock.elapsed() < 60_000:
        if not window.prebuild.running and clock.elapsed() > 1_000:
            break  # never started (switched off)
        app.processEvents()  # the idle prebuild's steps, before anything is measured
        time.sleep(0.005)
    gc.freeze()  # as grpo_desktop.app does once the window is up

    viewport = page.charts.plots()[0].viewport()
    painted: list[float] = []
    clicks: list[float] = []  # seconds from the hand's click to the chart's paint showing it
    clicked: list[float] = []  # when the hand clicked, for clicks not yet handled
    handled: list[float] = []  # ... and for clicks handled, not yet painted

    class ChartProbe(QObject):
        def eventFilter(self, obj, event):  # Qt override
            kind = event.type()
            if kind == QEvent.Type.Paint:
                now = time.perf_counter()
                painted.append(now)
                clicks.extend(now - at for at in handled)
                handled.clear()
            elif kind == QEvent.Type.MouseButtonRelease and clicked:
                handled.append(clicked.pop(0))
            return False

    probe = ChartProbe()
    viewport.installEventFilter(probe)
    waits, send_key = key_waits(app, window)
    rng = random.Random(args.seed)

    hand = QTimer()
    hand.setTimerType(Qt.TimerType.PreciseTimer)
    hand.setSingleShot(True)
    moment = [0.0]  # when the hand clicks next

    def next_click() -> None:
        moment[0] = time.perf_counter() + rng.uniform(0.08, 0.12)
        hand.start(max(0, round((moment[0] - time.perf_counter()) * 1000)))

    def click() -> None:
        """A press and a release at a random x over the chart, posted as the window system
        would deliver them, stamped with the moment the hand clicked."""
        done = state.run.step_count
        plot = page.charts.plots()[0]
        marked = page.charts.marker_step()
        for _ in range(50):  # a step whose pixel is not the marked step's (2,000 steps share
            step = rng.randint(1, done)  # a few hundred pixels)
            scene = plot.getViewBox().mapViewToScene(QPointF(step, 0.5))
            point = QPointF(plot.mapFromScene(scene))
            landed = plot.getViewBox().mapSceneToView(plot.mapToScene(point.toPoint())).x()
            if page.charts.step_at(landed) != marked:
                break
        clicked.append(min(moment[0], time.perf_counter()))
        post_click(app, viewport, point)
        next_click()

    hand.timeout.connect(click)

    def play(seconds: float, speed: int | None) -> tuple[int, float]:
        """Run the event loop for ``seconds`` with clicks and keys; playing at ``speed`` unless
        None. Returns the steps played and the seconds they took."""
        painted.clear()
        clicks.clear()
        waits.clear()
        keys = QTimer()
        keys.setInterval(100)
        keys.timeout.connect(send_key)
        loop = QEventLoop()
        QTimer.singleShot(round(seconds * 1000), loop.quit)
        before = state.run.step_count
        start = time.perf_counter()
        if speed is not None:
            state.set_speed(speed)
            state.set_playing(True)
        keys.start()
        next_click()
        loop.exec()
        hand.stop()
        keys.stop()
        state.set_playing(False)
        elapsed = time.perf_counter() - start
        app.processEvents()
        clicked.clear()
        handled.clear()
        return state.run.step_count - before, elapsed

    def report(label: str) -> None:
        if clicks:
            print(
                f"  clicks on the chart: {len(clicks)}, p50 {statistics.median(clicks) * 1e3:5.1f}"
                f" ms, p95 {percentile(clicks, 0.95) * 1e3:5.1f} ms ({label})"
            )
        if waits:
            print(
                f"  keys: {len(waits)}, wait p50 {statistics.median(waits) * 1e3:5.1f} ms,"
                f" p95 {percentile(waits, 0.95) * 1e3:5.1f} ms"
            )
        intervals = [(b - a) * 1e3 for a, b in itertools.pairwise(painted)]
        if intervals and label != "paused":
            print(
                f"  chart paints: {len(painted)}, interval p50 {statistics.median(intervals):5.1f}"
                f" ms, p95 {percentile(intervals, 0.95):5.1f} ms"
            )

    print(f"Training run, 6 algorithms x 8 seeds (1280x800), {args.seconds:g} s per condition")
    state.run.run(20)  # a run with steps to click on
    state.select_step(1)
    play(1.0, None)  # warm-up
    play(args.seconds, None)
    print("paused:")
    report("paused")
    for speed in speeds:
        state.reset()
        state.run.run(20)
        play(1.0, speed)  # warm-up at this speed
        steps, seconds = play(args.seconds, speed)
        rate = steps / seconds
        print(
            f"playing at {speed} steps/s: {steps} steps in {seconds:.2f} s = {rate:5.1f} steps/s"
            f" ({rate / speed:.0%} of the set speed)"
        )
        report("playing")
    workbench.undo_stack.setClean()
    window.close()


if __name__ == "__main__":
    main()
