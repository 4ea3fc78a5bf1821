"""Clicks while the tiny language model trains: does the GUI thread stay within a frame?

The Training workspace's run on the tiny model steps in a worker process (a step of the default
run is ~0.3 s of numpy and Python). This measures, in one process and one run (1280x800, light):

1. Card-toggle clicks in the Lab (a real mouse click on a random card -> events processed until
   idle -> window.repaint()) with nothing training, with the run stepping on a thread of this
   process (the first design: the GIL shared with the GUI) and with the run stepping in a worker
   process as the state runs it (the Lab itself never shows while the Training run plays - a
   hidden workspace pauses - so this is the GUI-thread load test).
2. Chart clicks on the Training page itself while its run really plays (a click on the pass-rate
   chart chooses a step: a snapshot rebuilt and every view redrawn), paused vs playing.
3. The same chart clicks as a hand makes them, in Qt's own event loop while the run plays for
   --seconds: at chosen moments (every 80-120 ms) a precise timer posts a press and a release,
   so a click waits behind whatever the GUI thread is doing when it lands (reading a step's
   line, drawing it); timed from the moment to the start of the chart's first paint after the
   click was handled. Condition 2 instead runs everything pending after the click until idle
   and repaints the whole window, so a click that shares its turn with a step pays for both.

Prints p50 and p95 in ms and the ratios to the paused clicks.

    QT_QPA_PLATFORM=offscreen .venv/bin/python benchmarks/bench_lm_training_clicks.py
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import threading
import time

from measure import percentile, post_click

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def summary(times: list[float]) -> tuple[float, float]:
    return statistics.median(times) * 1e3, percentile(times, 0.95) * 1e3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clicks", type=int, default=60, help="measured clicks per condition")
    parser.add_argument("--warmup", type=int, default=10, help="unmeasured clicks first")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--seconds", type=float, default=8.0, help="condition 3's play time")
    args = parser.parse_args()

    from PySide6.QtCore import QEvent, QEventLoop, QObject, QPoint, QPointF, QSize, Qt, QTimer
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    from grpo_desktop.views.common import math_render

    def queue_only(later, latex: str, colour: str) -> None:
        """The worked math's new lines wait (typeset untimed after each click, as in
        bench_ui.py): a click is timed to its frame, not to the typesetting that follows it."""
        if latex and not math_render.is_typeset(latex, colour):
            later._queue[(latex, colour)] = None

    math_render.TypesetLater.ask = queue_only

    from grpo_desktop.core.tinylm.grpo import LMTrainingRun
    from grpo_desktop.core.tinylm.grpo_config import LMTrainingConfig
    from grpo_desktop.core.training.policy_choice import PolicyChoice
    from grpo_desktop.model.workbench import LAB, TRAINING
    from grpo_desktop.views.lab.trace_card import TraceCard
    from grpo_desktop.window.main_window import MainWindow

    class Probe(QObject):
        events = 0
        paints = 0

        def eventFilter(self, obj, event):
            self.events += 1
            if event.type() == QEvent.Type.Paint:
                self.paints += 1
            return False

    app = QApplication.instance() or QApplication(sys.argv[:1])
    probe = Probe()
    app.installEventFilter(probe)
    rng = random.Random(args.seed)

    def process_until_idle() -> None:
        while True:
            before = probe.events
            app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents)
            app.sendPostedEvents()
            if probe.events == before:
                return

    def measure(click, window) -> list[float]:
        times = []
        for index in range(args.warmup + args.clicks):
            painted = probe.paints
            start = time.perf_counter()
            click()
            process_until_idle()
            window.repaint()
            elapsed = time.perf_counter() - start
            if probe.paints == painted:
                raise RuntimeError("the click repainted nothing: the measurement would be wrong")
            window.math_panel.finish_typesetting()  # untimed
            if index >= args.warmup:
                times.append(elapsed)
            time.sleep(0.004)  # clicks arrive spread over the worker's step, as a hand's do
        return times

    def make_window() -> MainWindow:
        window = MainWindow()
        window.presentation.fit_to(QSize(1280, 800))
        window.resize(1280, 800)
        window.show()
        window.install_deferred_features()
        app.processEvents()
        window.repaint()
        return window

    def report(label: str, paused: list[float], playing: list[float]) -> None:
        (p50, p95), (q50, q95) = summary(paused), summary(playing)
        print(
            f"  {label}: paused p50 {p50:5.2f} ms, p95 {p95:5.2f} ms | training p50 "
            f"{q50:5.2f} ms, p95 {q95:5.2f} ms | ratio p50 x{q50 / p50:.2f}, p95 x{q95 / p95:.2f}"
        )

    print(f"{args.clicks} clicks after {args.warmup} warm-up per condition, 1280x800, light")

    # 1. Card toggles in the Lab while a run steps on a thread, then in a worker process.
    print("1. card-toggle clicks in the Lab (default run: batch 64, G 8)")
    window = make_window()
    window.workbench.set_workspace(LAB)
    size = window.workbench.lab.group_size

    def click_card() -> None:
        card = window.findChild(TraceCard, f"traceCard{rng.randrange(size)}")
        centre = QPoint(card.width() // 2, card.height() // 2)
        QTest.mouseClick(card, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, centre)

    paused = measure(click_card, window)
    run = LMTrainingRun(LMTrainingConfig())
    stop = threading.Event()
    steps = []

    def train() -> None:
        while not stop.is_set() and not run.finished:
            steps.append(run.step())

    worker = threading.Thread(target=train, daemon=True)
    worker.start()
    try:
        threaded = measure(click_card, window)
    finally:
        stop.set()
        worker.join()
    report(f"on a thread ({len(steps)} steps taken meanwhile)", paused, threaded)

    from grpo_desktop.model.lm_run_process import LMRunProcess, Loaded, Stepped

    records: list[object] = []
    process = LMRunProcess(LMTrainingConfig(), None)
    process.record.connect(records.append)
    while not any(isinstance(record, Loaded) for record in records):
        process.wait_for_output(5000)
        process_until_idle()
    process.send("play")
    try:
        in_process = measure(click_card, window)
    finally:
        process.stop()
    taken = sum(isinstance(record, Stepped) for record in records)
    report(f"in a worker process ({taken} steps taken meanwhile)", paused, in_process)
    window.undo_stack.setClean()
    window.close()
    app.processEvents()

    # 2. Chart clicks on the Training page while its run plays (the real state and worker).
    print("2. chart clicks on the tiny model's Training page, paused vs playing (default run)")
    window = make_window()
    window.workbench.apply_policy(PolicyChoice("tinylm"))
    window.workbench.set_workspace(TRAINING)
    state = window.states.lm_training
    page = window.workspaces[TRAINING].lm_page
    while not state.snapshot.ready:
        process_until_idle()
        time.sleep(0.01)
    state.step_once()
    while state.step_count < 1:
        process_until_idle()
        time.sleep(0.01)
    plot = page.charts.pass_plot

    def click_chart() -> None:
        viewport = plot.viewport()
        x = rng.randrange(viewport.width() // 8, viewport.width() - 8)
        point = QPoint(x, viewport.height() // 2)
        QTest.mouseClick(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, point)

    paused = measure(click_chart, window)
    before = state.step_count
    state.set_playing(True)
    try:
        playing = measure(click_chart, window)
    finally:
        state.stop()
    report(f"playing ({state.step_count - before} steps taken meanwhile)", paused, playing)

    # 3. Clicks posted at chosen moments while the event loop runs, paused then playing.
    print(f"3. chart clicks landing while the event loop runs, {args.seconds:g} s each")
    state.wait()
    while state.step_count < 3:  # steps to click on (a click must move the marker)
        state.step_once()
        state.wait()
        process_until_idle()
    process_until_idle()
    viewport = plot.viewport()
    clicks: list[float] = []
    clicked: list[float] = []
    handled: list[float] = []

    class ChartProbe(QObject):
        def eventFilter(self, obj, event):  # Qt override
            kind = event.type()
            if kind == QEvent.Type.Paint:
                now = time.perf_counter()
                clicks.extend(now - at for at in handled)
                handled.clear()
            elif kind == QEvent.Type.MouseButtonRelease and clicked:
                handled.append(clicked.pop(0))
            return False

    chart_probe = ChartProbe()
    viewport.installEventFilter(chart_probe)
    hand = QTimer()
    hand.setTimerType(Qt.TimerType.PreciseTimer)
    hand.setSingleShot(True)
    moment = [0.0]

    def next_click() -> None:
        moment[0] = time.perf_counter() + rng.uniform(0.08, 0.12)
        hand.start(max(0, round((moment[0] - time.perf_counter()) * 1000)))

    def click_now() -> None:
        done = state.step_count
        step = rng.randint(1, max(1, done))
        if step == state.snapshot.selected_step and done > 1:
            step = step - 1 if step > 1 else step + 1  # another step: the marker must move
        scene = plot.getViewBox().mapViewToScene(QPointF(step, 0.5))
        point = QPointF(plot.mapFromScene(scene))
        clicked.append(min(moment[0], time.perf_counter()))
        post_click(app, viewport, point)
        next_click()

    hand.timeout.connect(click_now)

    def loop_clicks(playing: bool) -> tuple[list[float], int]:
        clicks.clear()
        before = state.step_count
        if playing:
            state.set_playing(True)
        loop = QEventLoop()
        QTimer.singleShot(round(args.seconds * 1000), loop.quit)
        next_click()
        loop.exec()
        hand.stop()
        state.set_playing(False)
        state.wait()
        process_until_idle()
        clicked.clear()
        handled.clear()
        return list(clicks), state.step_count - before

    paused, _ = loop_clicks(False)
    playing, taken = loop_clicks(True)
    report(f"playing ({taken} steps taken meanwhile)", paused, playing)
    state.stop()
    window.undo_stack.setClean()
    window.close()
    app.processEvents()


if __name__ == "__main__":
    main()
