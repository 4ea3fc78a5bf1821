"""Start-up and click latency of the lab window, measured the way a user feels them.

1. Start-up: wall time from spawning ``python`` to the window's first paint, for the app and for
   a bare PySide6 + pyqtgraph window with one bar chart started the same way (median of N runs,
   interleaved). Reported as a ratio; target <= 1.3x.
2. Click latency at G = 4, 16, 64 (1280x800): a real mouse click on a random card, then the
   event loop processed until idle (the command, the state, every view's update, deferred work),
   then a synchronous ``window.repaint()``; median and p95 over the clicks after a warm-up (the
   window first installs what it installs by itself 150 ms after it shows), and beside them the
   same ``window.repaint()`` with nothing changed (the floor every click pays here).
   Below them, "own frame": the same clicks timed to idle, before that ``window.repaint()``. The
   repaints the click asked for (``update()``) are painted in that time: it is the frame a user
   waits for. ``window.repaint()`` repaints every widget of the window that does not cover all
   of its pixels and the widgets over them; a widget that does (``WA_OpaquePaintEvent`` or an
   opaque auto-filled background: the cards, the chart, the worked math's text, the stat tiles)
   keeps its pixels with everything in it, so the floor is the window's other widgets.
   The worked math's new lines are typeset after the click's frame, one per turn of the event
   loop (about 9 ms each): the click is timed to its frame with those lines waiting, and the
   typesetting that follows is timed on its own ("then typeset"). So is what the lab draws
   ahead for the next toggle once it has been quiet for 150 ms ("then drawn ahead",
   ``LabPresenter.finish_preparing``), as a lecturer's next click comes later than that;
   ``--no-prepare`` clicks without it, as a burst of clicks faster than that would.
   ``--cards in-view`` clicks only cards the grid shows (a user can click no other; at G = 64
   most cards are scrolled out of view), ``any`` (the default) any card of the group.
   Once the window is up, what is alive is frozen out of the garbage collector
   (``gc.freeze()``), as the app does; ``--no-gc-freeze`` measures without (the protocol of the
   sessions before, where a collector's pass over the whole heap fell inside a click now and
   then).
   Target p95 <= 8 ms at G = 64 and <= 5 ms at G = 16, in every theme and at 200 % zoom
   (``--theme``, ``--zoom``; a zoom is fitted to ``--size`` as on a screen of that size, so
   ``--zoom 200 --size 2560x1600`` is a 1280x800 screen's layout at twice the pixels).

   ``--render-cache alternate`` draws every other click with every kept drawing switched off
   (as ``GRPO_DESKTOP_RENDER_CACHE=0``) and reports those clicks beside the others: what the
   render caches buy, measured in the same window at the same moment.

    python benchmarks/bench_ui.py [--runs N] [--clicks N] [--warmup N] [--seed N]
                                  [--groups 4,16,64] [--skip-startup]
                                  [--theme light|dark|projector] [--zoom PERCENT] [--size WxH]
                                  [--render-cache on|off|alternate] [--no-prepare]
                                  [--cards any|in-view] [--no-gc-freeze]

Runs offscreen (QT_QPA_PLATFORM=offscreen) unless a platform is set.
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import subprocess
import sys
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from measure import machine_reference_ms, percentile

FIRST_PAINT_PROBE = """
from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QApplication

class FirstPaint(QObject):
    # Installed on the application: the first Paint event of any widget (a plot paints its
    # viewport, not itself) ends the run.
    def eventFilter(self, obj, event):
        if event.type() == QEvent.Type.Paint:
            QTimer.singleShot(0, QApplication.instance().quit)
        return False
"""

BARE_WINDOW = (
    "import sys\n"
    "from PySide6.QtWidgets import QApplication\n"
    "import pyqtgraph as pg\n" + FIRST_PAINT_PROBE + "app = QApplication(sys.argv[:1])\n"
    "window = pg.PlotWidget()\n"
    "window.addItem(pg.BarGraphItem(x=[1, 2, 3, 4], height=[1, -1, -1, 1], width=0.6))\n"
    "probe = FirstPaint()\n"
    "app.installEventFilter(probe)\n"
    "window.resize(1280, 800)\n"
    "window.show()\n"
    "app.exec()\n"
)

APP_WINDOW = (
    "import sys\n"
    "from PySide6.QtWidgets import QApplication\n"
    + FIRST_PAINT_PROBE
    + "app = QApplication(sys.argv[:1])\n"
    "from grpo_desktop.window.main_window import MainWindow\n"
    "window = MainWindow()\n"
    "probe = FirstPaint()\n"
    "app.installEventFilter(probe)\n"
    "window.resize(1280, 800)\n"
    "window.show()\n"
    "app.exec()\n"
)


def time_to_first_paint(code: str) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)
    return time.perf_counter() - start


def bench_startup(runs: int) -> None:
    time_to_first_paint(BARE_WINDOW)  # warm the OS file cache for both
    time_to_first_paint(APP_WINDOW)
    bare, app = [], []
    for _ in range(runs):
        bare.append(time_to_first_paint(BARE_WINDOW))
        app.append(time_to_first_paint(APP_WINDOW))
    bare_median, app_median = statistics.median(bare), statistics.median(app)
    print(f"start-up to first paint, median of {runs} runs (interleaved):")
    print(f"  bare PySide6 + pyqtgraph bar chart  {bare_median * 1e3:7.0f} ms   1.00x")
    print(
        f"  grpo-desktop window                 {app_median * 1e3:7.0f} ms  "
        f"{app_median / bare_median:5.2f}x"
    )


def bench_clicks(
    clicks: int,
    warmup: int = 20,
    seed: int = 0,
    groups: tuple[int, ...] = (4, 16, 64),
    theme: str | None = None,
    zoom: float = 1.0,
    size: tuple[int, int] = (1280, 800),
    render_cache_mode: str = "on",
    prepare: bool = True,
    cards: str = "any",
    gc_freeze: bool = True,
) -> None:
    import random

    from PySide6.QtCore import QEvent, QEventLoop, QObject, QPoint, QSize, Qt
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    from grpo_desktop.views.common import math_render, render_cache
    from grpo_desktop.views.lab.trace_card import TraceCard
    from grpo_desktop.window.main_window import MainWindow

    def queue_only(later, latex: str, colour: str) -> None:
        """The lines a click asks for wait (timed apart): "until idle" must not include them."""
        if latex and not math_render.is_typeset(latex, colour):
            later._queue[(latex, colour)] = None

    math_render.TypesetLater.ask = queue_only

    class PaintCounter(QObject):
        """Counts paint events, to prove each measured click really repainted, and every event
        delivered, to tell when the event loop is idle."""

        count = 0
        events = 0

        def eventFilter(self, obj, event):
            self.events += 1
            if event.type() == QEvent.Type.Paint:
                self.count += 1
            return False

    def process_until_idle() -> None:
        """Process events until a pass delivers none (posted events, zero timers, deferred
        deletes, updates): everything the click set off that is due now has run."""
        while True:
            before = probe.events
            app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents)
            app.sendPostedEvents()
            if probe.events == before:
                return

    app = QApplication.instance() or QApplication(sys.argv[:1])
    probe = PaintCounter()
    app.installEventFilter(probe)
    in_frame = [False]  # a measured click's own frame is running
    collected: list[tuple[int, float]] = []  # (generation, seconds) of each collection in one
    collection_start = [0.0]

    def heard(phase: str, info: dict) -> None:
        if not in_frame[0]:
            return
        if phase == "start":
            collection_start[0] = time.perf_counter()
        else:
            collected.append((info["generation"], time.perf_counter() - collection_start[0]))

    gc.callbacks.append(heard)
    rng = random.Random(seed)
    width, height = size
    alternate = render_cache_mode == "alternate"
    render_cache.CACHING = render_cache_mode != "off"
    print(
        f"click on a random card -> events processed until idle -> window.repaint(); "
        f"{clicks} clicks after {warmup} warm-up, each G ({width}x{height}, "
        f"theme {theme or 'light'}, zoom {zoom:.0%}, render cache {render_cache_mode}, "
        f"{'drawn ahead between clicks' if prepare else 'nothing drawn ahead'}, "
        f"{'cards in view' if cards == 'in-view' else 'any card'}"
        f"{'' if gc_freeze else ', no gc.freeze()'}):"
    )
    print(
        f"  (this machine today: a fixed pure-Python loop takes {machine_reference_ms():.0f} ms; "
        f"compare absolute figures of different days by it)"
    )
    for group_size in groups:
        window = MainWindow()
        if theme is not None:
            window.presentation.set_theme(theme, remember=False)
        window.presentation.set_zoom(zoom, remember=False)
        window.presentation.fit_to(QSize(width, height))  # as on a screen of that size
        window.resize(width, height)
        window.show()
        window.workbench.set_group_size(group_size)
        # What the window installs by itself 150 ms after it shows (lessons, exports, the
        # chrome's paint caches): a lecturer's first click comes later than that.
        window.install_deferred_features()
        app.processEvents()
        window.repaint()
        if gc_freeze:
            # As grpo_desktop.app does once its window is up: what is alive now lives as long
            # as the app, and the collector's full passes no longer scan it (without this, a
            # full pass of 90 ms and young ones of 2-13 ms fell inside clicks now and then).
            gc.freeze()
        times, typesetting, frames, preparing, frame_cpu = [], [], [], [], []
        uncached = []  # --render-cache alternate: every other click drawn afresh
        for click in range(warmup + clicks * (2 if alternate else 1)):
            if alternate:
                render_cache.CACHING = click % 2 == 0
            if cards == "in-view":  # those a user can click: not scrolled out of the grid
                shown = [
                    card
                    for card in window.findChildren(TraceCard)
                    if card.objectName().startswith("traceCard")
                    and card.isVisible()
                    and not card.visibleRegion().isEmpty()
                ]
                shown.sort(key=lambda card: card.objectName())
                card = shown[rng.randrange(len(shown))]
            else:
                card = window.findChild(TraceCard, f"traceCard{rng.randrange(group_size)}")
            centre = QPoint(card.width() // 2, card.height() // 2)
            painted = probe.count
            in_frame[0] = click >= warmup
            start, start_cpu = time.perf_counter(), time.thread_time()
            QTest.mouseClick(
                card, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, centre
            )
            process_until_idle()
            in_frame[0] = False
            frame = time.perf_counter() - start  # the click's own frame, its repaints painted
            cpu = time.thread_time() - start_cpu  # the GUI thread's CPU in that frame
            window.repaint()  # the synchronous repaint of the whole window
            elapsed = time.perf_counter() - start
            start = time.perf_counter()
            window.math_panel.finish_typesetting()
            process_until_idle()
            typeset = time.perf_counter() - start
            start = time.perf_counter()
            if prepare and hasattr(window.lab, "finish_preparing"):  # (an older commit has none)
                window.lab.finish_preparing()  # what 150 ms of quiet would draw ahead
            prepared = time.perf_counter() - start
            if click >= warmup and not render_cache.CACHING:
                uncached.append(elapsed)
            elif click >= warmup:
                times.append(elapsed)
                typesetting.append(typeset)
                frames.append(frame)
                frame_cpu.append(cpu)
                preparing.append(prepared)
            if probe.count == painted:
                raise RuntimeError("the click repainted nothing: the measurement would be wrong")
        render_cache.CACHING = render_cache_mode != "off"
        floor = []  # the same synchronous repaint with nothing changed: what every click pays
        for _ in range(clicks):
            start = time.perf_counter()
            window.repaint()
            floor.append(time.perf_counter() - start)
        print(
            f"  G = {group_size:>2}: median {statistics.median(times) * 1e3:6.2f} ms, "
            f"p95 {percentile(times, 0.95) * 1e3:6.2f} ms   (window.repaint() alone: median "
            f"{statistics.median(floor) * 1e3:.2f} ms, p95 {percentile(floor, 0.95) * 1e3:.2f} ms)"
        )
        print(
            f"          own frame (to idle, before window.repaint()): median "
            f"{statistics.median(frames) * 1e3:6.2f} ms, "
            f"p95 {percentile(frames, 0.95) * 1e3:6.2f} ms"
        )
        print(
            f"          own frame, GUI thread's CPU: median "
            f"{statistics.median(frame_cpu) * 1e3:6.2f} ms, "
            f"p95 {percentile(frame_cpu, 0.95) * 1e3:6.2f} ms (steadier than wall time on a busy "
            f"machine)"
        )
        if uncached:
            print(
                f"          render cache off, the clicks in between: median "
                f"{statistics.median(uncached) * 1e3:6.2f} ms, "
                f"p95 {percentile(uncached, 0.95) * 1e3:6.2f} ms"
            )
        print(
            f"          then typeset: median {statistics.median(typesetting) * 1e3:6.2f} ms, "
            f"p95 {percentile(typesetting, 0.95) * 1e3:6.2f} ms (after the frame, a line a turn)"
        )
        if prepare:
            print(
                f"          then drawn ahead: median {statistics.median(preparing) * 1e3:6.2f} ms, "
                f"p95 {percentile(preparing, 0.95) * 1e3:6.2f} ms (idle time, a piece a turn)"
            )
        spent = sum(seconds for _generation, seconds in collected)
        longest = max((seconds for _generation, seconds in collected), default=0.0)
        by_generation = [sum(1 for g, _s in collected if g == gen) for gen in range(3)]
        print(
            f"          garbage collections inside the measured frames: {len(collected)} "
            f"(generations 0/1/2: {by_generation[0]}/{by_generation[1]}/{by_generation[2]}), "
            f"{spent * 1e3:.1f} ms in all, longest {longest * 1e3:.2f} ms"
        )
        collected.clear()
        window.undo_stack.setClean()  # nothing to save: closing must not ask
        window.close()
        window.deleteLater()
        app.processEvents()
        if gc_freeze:
            gc.unfreeze()  # the next group size's window is frozen in its turn
    gc.callbacks.remove(heard)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9, help="start-up runs of each window")
    parser.add_argument("--clicks", type=int, default=200, help="measured clicks per group size")
    parser.add_argument("--warmup", type=int, default=20, help="unmeasured clicks first")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random card choice")
    parser.add_argument("--groups", default="4,16,64", help="group sizes to click, e.g. 16,64")
    parser.add_argument("--skip-startup", action="store_true", help="only the click part")
    parser.add_argument("--theme", choices=("light", "dark", "projector"), help="click theme")
    parser.add_argument("--zoom", type=int, default=100, help="click zoom, percent (e.g. 200)")
    parser.add_argument("--size", default="1280x800", help="click window size, WxH")
    parser.add_argument(
        "--render-cache",
        choices=("on", "off", "alternate"),
        default="on",
        help="keep drawings (on), draw everything afresh (off, as GRPO_DESKTOP_RENDER_CACHE=0), "
        "or alternate clicks between the two in one window, each measured (a baseline in the "
        "same run)",
    )
    parser.add_argument(
        "--no-prepare",
        action="store_true",
        help="click without the lab's drawing ahead between clicks (a burst of clicks)",
    )
    parser.add_argument(
        "--cards",
        choices=("any", "in-view"),
        default="any",
        help="click any card of the group, or only the cards the grid shows",
    )
    parser.add_argument(
        "--no-gc-freeze",
        action="store_true",
        help="leave Python's garbage collector as it is (the app freezes what is alive once its "
        "window is up; sessions before 2026-12-02's fourth measured without)",
    )
    args = parser.parse_args()
    if args.clicks < 60:
        parser.error("--clicks: the p95 needs at least 60 clicks")
    try:
        width, height = (int(side) for side in args.size.lower().split("x"))
    except ValueError:
        parser.error(f"--size: expected WxH such as 1280x800, got {args.size!r}")
    if not args.skip_startup:
        bench_startup(args.runs)
    groups = tuple(int(g) for g in args.groups.split(","))
    bench_clicks(
        args.clicks,
        args.warmup,
        args.seed,
        groups,
        args.theme,
        args.zoom / 100,
        (width, height),
        args.render_cache,
        not args.no_prepare,
        args.cards,
        not args.no_gc_freeze,
    )


if __name__ == "__main__":
    main()
