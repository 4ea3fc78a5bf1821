"""Start-up and click latency of the lab window, measured the way a user feels them.

1. Start-up: wall time from spawning ``python`` to the window's first paint, for the app and for
   a bare PySide6 + pyqtgraph window with one bar chart started the same way (median of N runs,
   interleaved). Reported as a ratio; target <= 1.3x.
2. Click latency at G = 4, 16, 64: a real mouse click on a card, then the event loop runs once
   (the command, the state, every view's update and the repaint of what changed, as on screen);
   median and p95. Target p95 < 16 ms at G = 64.

    python benchmarks/bench_ui.py [--runs N] [--clicks N]

Runs offscreen (QT_QPA_PLATFORM=offscreen) unless a platform is set.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

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


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


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


def bench_clicks(clicks: int) -> None:
    from PySide6.QtCore import QEvent, QObject, QPoint, Qt
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    from grpo_desktop.views.trace_card import TraceCard
    from grpo_desktop.window.main_window import MainWindow

    class PaintCounter(QObject):
        """Counts paint events, to prove each measured click really repainted."""

        count = 0

        def eventFilter(self, obj, event):
            if event.type() == QEvent.Type.Paint:
                self.count += 1
            return False

    app = QApplication.instance() or QApplication(sys.argv[:1])
    probe = PaintCounter()
    app.installEventFilter(probe)
    print(f"click -> handled and repainted, {clicks} clicks each (1280x800):")
    for group_size in (4, 16, 64):
        window = MainWindow()
        window.resize(1280, 800)
        window.show()
        window.workbench.set_group_size(group_size)
        app.processEvents()
        window.repaint()
        times = []
        for click in range(clicks):
            card = window.findChild(TraceCard, f"traceCard{click % group_size}")
            centre = QPoint(card.width() // 2, card.height() // 2)
            painted = probe.count
            start = time.perf_counter()
            QTest.mouseClick(
                card, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, centre
            )
            app.processEvents()  # delivers the update requests: the repaint the user sees
            times.append(time.perf_counter() - start)
            if probe.count == painted:
                raise RuntimeError("the click repainted nothing: the measurement would be wrong")
        print(
            f"  G = {group_size:>2}: median {statistics.median(times) * 1e3:6.2f} ms, "
            f"p95 {percentile(times, 0.95) * 1e3:6.2f} ms"
        )
        window.undo_stack.setClean()  # nothing to save: closing must not ask
        window.close()
        window.deleteLater()
        app.processEvents()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9, help="start-up runs of each window")
    parser.add_argument("--clicks", type=int, default=200, help="clicks per group size")
    args = parser.parse_args()
    bench_startup(args.runs)
    bench_clicks(args.clicks)


if __name__ == "__main__":
    main()
