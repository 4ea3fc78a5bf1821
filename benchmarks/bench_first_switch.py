"""The first Ctrl+U / Ctrl+T after the window has idled: key to the workspace shown and painted.

Each run is a fresh process, started as ``grpo-desktop`` starts the window (the Fusion style,
``MainWindow()`` at 1280x800, shown, the event loop running). It idles ``--idle`` seconds with
the event loop running (what the window does by itself meanwhile, it does: its deferred features,
and the idle prebuild of the Update and Training pages), then the real key goes to the window
(``QTest.keyClick`` to the focused widget: the shortcut map, the action, the workspace switch),
and the clock stops once the events that are due have all been processed, the page's first
Paint among them (``shown+painted``; the run fails if the page did not paint). Beside it, the
time to the start of the page's first Paint event (``first paint``), and the GUI thread's CPU
time for the switch (steadier than wall time when other processes share the cores).

In the same process, as a baseline: the key again (back to the Lab), half a second, and the key
a third time, to a workspace already visited (``again``: a switch with nothing left to build).
With ``--compare`` every run is also made with the prebuild off (``GRPO_DESKTOP_PREBUILD=0``: the
page is built by the key, as before the prebuild), interleaved, so both sit on the same machine
load. ``--load`` keeps one core busy (a spinning process) for the whole measurement. Also
reported: when the prebuild began (the window's deferred features go first) and was done (after
the window showed), and its longest step (wall time, the runs' median, and the longest of all
with its name), the same per workspace, and the steps longer than a frame (16 ms, median of the
runs): a key or click that lands in one waits for it.

``--compiled`` runs every process byte-compiled, as an installed app runs (pip compiles the
package): this machine's environment sets ``PYTHONDONTWRITEBYTECODE``, and without bytecode
a step that imports a module first compiles its source (the prebuild's steps took 280-289 ms
in all so, against 226-234 ms byte-compiled, three runs each). The warm-up run writes the
bytecode to a temporary folder (``PYTHONPYCACHEPREFIX``) the measured runs read; the tree is
left as it was.

    python benchmarks/bench_first_switch.py [--runs N] [--idle S] [--keys U,T] [--compare]
                                            [--load] [--compiled]

Median, p90 and spread (min–max) of the runs, in ms. Runs offscreen (QT_QPA_PLATFORM=offscreen)
unless a platform is set.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from measure import percentile

CHILD = r"""
import json, sys, time
from PySide6.QtCore import QEvent, QEventLoop, QObject, Qt, QTimer
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

KEY = getattr(Qt.Key, sys.argv[1])
IDLE_S = float(sys.argv[2])
CTRL = Qt.KeyboardModifier.ControlModifier

app = QApplication(sys.argv[:1])
app.setStyle("Fusion")  # as grpo-desktop starts


class Probe(QObject):
    # Every event delivered (to tell when the loop is idle), and the first Paint of the page.
    events = 0
    page = None
    painted_at = None

    def eventFilter(self, obj, event):
        self.events += 1
        if (
            event.type() == QEvent.Type.Paint
            and self.page is not None
            and self.painted_at is None
            and isinstance(obj, QObject)
            and obj.isWidgetType()
            and (obj is self.page or self.page.isAncestorOf(obj))
        ):
            self.painted_at = time.perf_counter()
        return False


def process_until_idle():
    while True:
        before = probe.events
        app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents)
        app.sendPostedEvents()
        if probe.events == before:
            return


from grpo_desktop.window.main_window import MainWindow

window = MainWindow()
window.resize(1280, 800)
shown_at = time.perf_counter()
finished_at = []
# A window without a prebuild (the tree before it, on PYTHONPATH) is measured as prebuild off.
prebuild = getattr(window, "prebuild", None)
steps = prebuild.slices if prebuild is not None else []
if prebuild is not None:
    prebuild.finished.connect(lambda: finished_at.append(time.perf_counter()))
window.show()
window.activateWindow()
probe = Probe()
app.installEventFilter(probe)
result = {}


def switch(name):
    # The key to the focused widget of the active window, as a keyboard sends it.
    target = QApplication.focusWidget() or QApplication.activeWindow() or window
    workspace = window.workspaces[name]
    probe.page = workspace.page if workspace.built else None
    probe.painted_at = None
    cpu = time.thread_time()
    start = time.perf_counter()
    QTest.keyClick(target, KEY, CTRL)
    if window.workbench.workspace != name:
        raise SystemExit(f"the key did not show {name}: {window.workbench.workspace}")
    probe.page = window.workspace.page
    process_until_idle()
    done = time.perf_counter()
    cpu = time.thread_time() - cpu
    first = probe.painted_at
    if first is None:
        raise SystemExit("the page never painted")
    return done - start, first - start, cpu


def measure():
    name = {"Key_U": "update", "Key_T": "training"}[sys.argv[1]]
    result["prebuilt"] = window.workspaces[name].built
    result["has_prebuild"] = prebuild is not None
    result["longest"] = max(steps, key=lambda step: step[1]) if steps else ["", 0.0]
    # Each step before the key: its name, wall time and the workspace whose page it built.
    pages = getattr(prebuild, "slice_workspaces", None) or [""] * len(steps)
    result["steps"] = [[name, seconds, page] for (name, seconds), page in zip(steps, pages)]
    result["finished"] = finished_at[0] - shown_at if finished_at else None
    began = getattr(prebuild, "began_at", None)
    result["began"] = None if began is None else began - shown_at
    before = len(steps)
    result["first"], result["first_paint"], result["first_cpu"] = switch(name)
    result["steps_during"] = len(steps) - before  # must be 0: not timed
    QTest.keyClick(QApplication.focusWidget() or window, KEY, CTRL)  # its key again: the Lab
    process_until_idle()
    if window.workbench.workspace != "lab":
        raise SystemExit("the key again did not go back to the lab")
    end = time.perf_counter() + 0.5
    while time.perf_counter() < end:
        app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 20)
    result["again"], result["again_paint"], result["again_cpu"] = switch(name)
    window.workbench.undo_stack.setClean()
    print(json.dumps(result))
    app.quit()


QTimer.singleShot(round(IDLE_S * 1000), measure)
app.exec()
"""


BASE_ENV = dict(os.environ)  # --compiled adds the bytecode folder


def one_run(key: str, idle: float, prebuild: bool) -> dict[str, float]:
    env = dict(BASE_ENV)
    env["GRPO_DESKTOP_PREBUILD"] = "1" if prebuild else "0"
    done = subprocess.run(
        [sys.executable, "-c", CHILD, key, str(idle)],
        capture_output=True,
        text=True,
        env=env,
        timeout=180,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"the window's run failed:\n{done.stdout}\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def summary(values: list[float]) -> str:
    ms = [v * 1e3 for v in values]
    return (
        f"median {statistics.median(ms):6.0f}  "
        f"p90 {percentile(ms, 0.9):6.0f}  ({min(ms):.0f}–{max(ms):.0f})"
    )


FRAME_MS = 16.0  # a step longer than a frame delays a key or click that lands in it


def print_long_steps(done: list[dict]) -> None:
    """Per workspace, its longest prebuild step (the runs' median, and the longest of all
    with its name); then every step whose median over the runs is longer than a frame."""
    runs = [r.get("steps") or [] for r in done]
    pages = sorted({page for steps in runs for _, _, page in steps if page})
    for page in pages:
        longest = [
            max((step for step in steps if step[2] == page), key=lambda step: step[1])
            for steps in runs
            if any(step[2] == page for step in steps)
        ]
        slowest = max(longest, key=lambda step: step[1])
        print(
            f"    longest {page} step{'':<{max(0, 13 - len(page))}}median "
            f"{statistics.median(step[1] for step in longest) * 1e3:.0f}, max "
            f"{slowest[1] * 1e3:.0f} ({slowest[0]})"
        )
    times: dict[tuple[str, str], list[float]] = {}
    for steps in runs:
        for name, seconds, page in steps:
            times.setdefault((page, name), []).append(seconds * 1e3)
    long = sorted(
        ((statistics.median(ms), page, name) for (page, name), ms in times.items()),
        reverse=True,
    )
    over = [(ms, page, name) for ms, page, name in long if ms > FRAME_MS]
    print(f"    steps over {FRAME_MS:g} ms (median of the runs): {len(over)}")
    for ms, page, name in over[:8]:
        print(f"      {ms:5.0f}  {page}: {name}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="fresh processes per key and mode")
    parser.add_argument("--idle", type=float, default=2.0, help="seconds idle before the key")
    parser.add_argument("--keys", default="U,T", help="Ctrl+ these keys: U (Update), T (Training)")
    parser.add_argument(
        "--compare", action="store_true", help="also with the prebuild off, interleaved"
    )
    parser.add_argument("--load", action="store_true", help="one core kept busy meanwhile")
    parser.add_argument(
        "--compiled",
        action="store_true",
        help="byte-compiled, as an installed app runs (bytecode in a temporary folder)",
    )
    args = parser.parse_args()
    if args.compiled:
        BASE_ENV.pop("PYTHONDONTWRITEBYTECODE", None)
        BASE_ENV["PYTHONPYCACHEPREFIX"] = tempfile.mkdtemp(prefix="bench-first-switch-pycache-")
    spinner = None
    if args.load:
        spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        modes = (True, False) if args.compare else (True,)
        for letter in args.keys.split(","):
            key = f"Key_{letter.strip().upper()}"
            one_run(key, 0.5, True)  # warm the OS file cache
            runs: dict[bool, list[dict[str, float]]] = {mode: [] for mode in modes}
            for _ in range(args.runs):
                for mode in modes:
                    runs[mode].append(one_run(key, args.idle, mode))
            load = ", one core busy" if args.load else ""
            load += ", byte-compiled" if args.compiled else ""
            print(
                f"Ctrl+{letter.strip().upper()} after {args.idle:g} s idle, 1280x800, "
                f"{args.runs} fresh processes{load} (ms):"
            )
            for mode in modes:
                label = "prebuild on " if mode else "prebuild off"
                if not all(r["has_prebuild"] for r in runs[mode]):
                    label = "no prebuild in this tree"
                done = runs[mode]
                built = sum(r["prebuilt"] for r in done)
                during = sum(r["steps_during"] for r in done)
                print(
                    f"  {label} (page built before the key in {built}/{len(done)} runs; "
                    f"prebuild steps inside the timed switches: {during})"
                )
                lines = (
                    ("first switch, shown+painted", "first"),
                    ("first switch, first paint", "first_paint"),
                    ("first switch, GUI thread's CPU", "first_cpu"),
                    ("again (visited), shown+painted", "again"),
                    ("again (visited), CPU", "again_cpu"),
                )
                for text, key in lines:
                    print(f"    {text:32}{summary([r[key] for r in done])}")
                if mode and all(r["has_prebuild"] for r in done):
                    began = [r["began"] for r in done if r.get("began") is not None]
                    if began:  # the window's deferred features (typesetting) go first
                        print(f"    prebuild began after showing {summary(began)}")
                    finished = [r["finished"] for r in done if r["finished"] is not None]
                    if finished:
                        print(f"    prebuild done after showing  {summary(finished)}")
                    longest = [r["longest"] for r in done]
                    slowest = max(longest, key=lambda step: step[1])
                    print(
                        f"    longest prebuild step        median "
                        f"{statistics.median(step[1] for step in longest) * 1e3:.0f}, max "
                        f"{slowest[1] * 1e3:.0f} ({slowest[0]})"
                    )
                    print_long_steps(done)
    finally:
        if spinner is not None:
            spinner.kill()
            spinner.wait()


if __name__ == "__main__":
    main()
