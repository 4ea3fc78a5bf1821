"""Start-up of the lab window against a bare PySide6 + pyqtgraph window, split into its parts.

The same two programs as ``bench_ui.py``'s start-up (a bare ``PlotWidget`` with one bar chart, and
``MainWindow()``), spawned alternately, each ``--runs`` times. For every run it records:

- ``paint``: spawn to the first Paint event (what the user sees);
- ``exit``: spawn to the process's end (what ``bench_ui.py`` reports: first paint, then quit);
- ``cpu``: the process's user + system CPU time (steadier than wall time on a busy machine);
- ``import`` and ``build``: the app's imports (pyqtgraph included) and ``MainWindow()``, wall
  time inside the process.

Medians, and the app / bare ratios of ``paint``, ``exit`` and ``cpu``.

    python benchmarks/bench_startup.py [--runs N]

Runs offscreen (QT_QPA_PLATFORM=offscreen) unless a platform is set. Python compiles the app's
sources on every run when PYTHONDONTWRITEBYTECODE is set (pyqtgraph ships compiled): the
``import`` line shows that cost. ``--compiled`` measures both programs byte-compiled instead, as
an installed app runs (pip compiles the package when it installs it).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

PROBE = """
import sys, time
from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QApplication

class FirstPaint(QObject):
    def eventFilter(self, obj, event):
        if event.type() == QEvent.Type.Paint and not hasattr(self, "done"):
            self.done = True
            print(f"paint {time.time()!r}", file=sys.stderr)
            QTimer.singleShot(0, QApplication.instance().quit)
        return False
"""

BARE = (
    "import sys\n"
    "from PySide6.QtWidgets import QApplication\n"
    "import pyqtgraph as pg\n" + PROBE + "app = QApplication(sys.argv[:1])\n"
    "window = pg.PlotWidget()\n"
    "window.addItem(pg.BarGraphItem(x=[1, 2, 3, 4], height=[1, -1, -1, 1], width=0.6))\n"
    "probe = FirstPaint()\n"
    "app.installEventFilter(probe)\n"
    "window.resize(1280, 800)\n"
    "window.show()\n"
    "app.exec()\n"
)

APP = (
    "import sys\n"
    "from PySide6.QtWidgets import QApplication\n" + PROBE + "app = QApplication(sys.argv[:1])\n"
    "t0 = time.perf_counter()\n"
    "from grpo_desktop.window.main_window import MainWindow\n"
    "t1 = time.perf_counter()\n"
    "window = MainWindow()\n"
    "t2 = time.perf_counter()\n"
    "print(f'import {t1 - t0!r}', file=sys.stderr)\n"
    "print(f'build {t2 - t1!r}', file=sys.stderr)\n"
    "probe = FirstPaint()\n"
    "app.installEventFilter(probe)\n"
    "window.resize(1280, 800)\n"
    "window.show()\n"
    "app.exec()\n"
)


def run(code: str, env: dict[str, str] | None = None) -> dict[str, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.time()
    done = subprocess.run(
        [sys.executable, "-c", code],
        check=True,
        timeout=120,
        capture_output=True,
        text=True,
        env=env,
    )
    end = time.time()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    parts = {"exit": end - start, "cpu": cpu}
    for line in done.stderr.splitlines():
        name, _, value = line.partition(" ")
        if name == "paint":
            parts["paint"] = float(value) - start
        elif name in ("import", "build"):
            parts[name] = float(value)
    return parts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9, help="runs of each window, interleaved")
    parser.add_argument(
        "--compiled",
        action="store_true",
        help="both programs byte-compiled, as an installed app runs (pip compiles the package): "
        "the warm-up runs write bytecode to a temporary folder the measured runs read",
    )
    args = parser.parse_args()
    env = None
    if args.compiled:
        env = dict(os.environ)
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = tempfile.mkdtemp(prefix="bench-startup-pycache-")
    run(BARE, env)  # warm the OS file cache for both (and, --compiled, write the bytecode)
    run(APP, env)
    bare: list[dict[str, float]] = []
    app: list[dict[str, float]] = []
    for _ in range(args.runs):
        bare.append(run(BARE, env))
        app.append(run(APP, env))

    def median(runs: list[dict[str, float]], key: str) -> float:
        return statistics.median(r[key] for r in runs)

    compiled = ", byte-compiled" if args.compiled else ""
    print(f"start-up, median of {args.runs} interleaved runs{compiled} (ms):")
    print(f"  {'':28}{'bare':>8}{'app':>8}{'ratio':>8}")
    labels = {"paint": "spawn to first paint", "exit": "spawn to process end", "cpu": "CPU time"}
    for key, label in labels.items():
        b, a = median(bare, key), median(app, key)
        print(f"  {label:28}{b * 1e3:8.0f}{a * 1e3:8.0f}{a / b:7.2f}x")
    for key in ("import", "build"):
        print(f"  app {key:24}{'':8}{median(app, key) * 1e3:8.0f}")


if __name__ == "__main__":
    main()
