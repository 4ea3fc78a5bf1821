"""How long the GUI thread is held after the first paint, and how long clicks wait while new
math lines are typeset: what a lecturer's click landing then feels.

1. Stalls after the first paint: ``grpo_desktop.app.main`` started in a fresh process (from
   spawn, offscreen, a fresh settings folder) with a 1 ms timer ticking in its event loop; every
   gap between ticks longer than ``--threshold`` ms (default 17: a 60 Hz frame) in the first
   ``--seconds`` seconds after the window's first paint is a stall: a turn of the event loop a
   click landing then would have waited for. Per run: the longest stall, how many there were and
   their sum; over ``--runs`` runs the median and the spread (min-max). What the window installs
   after its first paint (exports, lessons, the chrome's paint caches, the typesetter's import)
   and the worked math it then typesets happen in those seconds. ``--prebuild off`` (the
   default) leaves the other workspaces' pages unbuilt (``GRPO_DESKTOP_PREBUILD=0``), so the
   stalls are the deferred features' and the typesetter's alone; ``on`` measures the app as it
   starts. ``--why`` names each stall by the GUI thread's stack, sampled every 2 ms by another
   thread while the loop is stalled (the sampling itself takes the GIL now and then).
2. Clicks while new math lines are typeset (one process, 1280x800, G = ``--group``): a burst of
   ``--burst`` clicks on random cards ``--every`` ms apart (each brings new numbers; the typeset
   lines not shown are forgotten before each burst, so they are new lines to typeset), fired
   by precise timers in the running event loop. Per click, "waited" is how
   late its timer fired (the turn it landed in, e.g. a line being typeset, held it that long)
   and "handled" is from when it was due to its handling done (the mouse press and release
   delivered: the command, the state, every view's update). Median, p95 and max over
   ``--bursts`` bursts, each after the last one's math was typeset and the window was quiet;
   for all clicks, and for those that landed while lines waited to be typeset (the worked
   math's ``typesetting_waiting()`` when the click was due).

Runs against whichever ``grpo_desktop`` is imported, so an older tree is measured the same way:

    python benchmarks/bench_typeset_stalls.py [--runs N] [--seconds S] [--threshold MS]
                                               [--prebuild on|off] [--why]
                                               [--bursts N] [--burst N] [--every MS] [--group G]
                                               [--skip-stalls] [--skip-clicks]
    cd /tmp/base && PYTHONPATH=/tmp/base python /work/main/benchmarks/bench_typeset_stalls.py

Install-like timing wants bytecode: ``python -m compileall -q grpo_desktop`` once, and run
without ``PYTHONDONTWRITEBYTECODE``. Runs offscreen (QT_QPA_PLATFORM=offscreen) unless a
platform is set.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from measure import machine_reference_ms, percentile

#: Run in a fresh process: the app as ``grpo-desktop`` starts it, its event loop watched.
STALL_PROBE = """
import collections, json, os, sys, threading, time, traceback
from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtWidgets import QApplication
from grpo_desktop import app as app_module

SECONDS, THRESHOLD, WHY = float(sys.argv[1]), float(sys.argv[2]) / 1000, sys.argv[3] == "1"
gui_thread = threading.get_ident()
state = {"painted": None, "last": None, "stack": collections.Counter(), "done": False}
stalls = []

class FirstPaint(QObject):
    def eventFilter(self, obj, event):
        if event.type() == QEvent.Type.Paint and state["painted"] is None:
            state["painted"] = state["last"] = time.perf_counter()
            QTimer.singleShot(int(SECONDS * 1000), QApplication.quit)
        return False

def tick():
    now = time.perf_counter()
    if state["painted"] is not None:
        gap = now - state["last"]
        if gap > THRESHOLD:
            top = state["stack"].most_common(1)
            stalls.append([(state["last"] - state["painted"]) * 1000, gap * 1000,
                           top[0][0] if top else ""])
        state["last"] = now
    state["stack"] = collections.Counter()

def sample():
    while not state["done"]:
        time.sleep(0.002)
        last = state["last"]
        if last is None or time.perf_counter() - last <= THRESHOLD:
            continue
        frame = sys._current_frames().get(gui_thread)
        if frame is None:
            continue
        names = [f"{os.path.basename(f.filename)}:{f.name}"
                 for f in reversed(traceback.extract_stack(frame)[-40:])
                 if "grpo_desktop" in f.filename or "ziamath" in f.filename
                 or "importlib" in f.filename]
        state["stack"][" < ".join(names[:4])] += 1

original_exec = QApplication.exec
def exec_(*args):
    app = QApplication.instance()
    ticker = QTimer(app)
    ticker.setTimerType(Qt.TimerType.PreciseTimer)
    ticker.setInterval(1)
    ticker.timeout.connect(tick)
    ticker.start()
    if WHY:
        threading.Thread(target=sample, daemon=True).start()
    return original_exec()

filter_ = FirstPaint()
original_init = QApplication.__init__
def init(self, *args):
    original_init(self, *args)
    self.installEventFilter(filter_)
QApplication.__init__ = init
QApplication.exec = exec_
app_module.main([])
state["done"] = True
print("STALLS " + json.dumps(stalls))
"""


def stall_run(seconds: float, threshold: float, why: bool, prebuild: bool) -> list:
    """One fresh process: its stalls after the first paint, as [start ms, length ms, where]."""
    with tempfile.TemporaryDirectory(prefix="bench_typeset_stalls_") as settings:
        env = dict(os.environ, XDG_CONFIG_HOME=settings)
        if not prebuild:
            env["GRPO_DESKTOP_PREBUILD"] = "0"
        done = subprocess.run(
            [sys.executable, "-c", STALL_PROBE, str(seconds), str(threshold), "1" if why else "0"],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        )
    for line in done.stdout.splitlines():
        if line.startswith("STALLS "):
            return json.loads(line[len("STALLS ") :])
    raise RuntimeError(f"no stalls reported:\n{done.stdout}\n{done.stderr}")


def bench_stalls(runs: int, seconds: float, threshold: float, why: bool, prebuild: bool) -> None:
    print(
        f"stalls after the first paint (event-loop turns > {threshold:.0f} ms in {seconds:.1f} s, "
        f"fresh process per run, prebuild {'on' if prebuild else 'off'}), {runs} runs:"
    )
    longest, counts, totals = [], [], []
    for run in range(runs):
        stalls = stall_run(seconds, threshold, why, prebuild)
        lengths = [length for _at, length, _where in stalls]
        longest.append(max(lengths, default=0.0))
        counts.append(len(lengths))
        totals.append(sum(lengths))
        shown = ", ".join(f"{length:.0f}@{at:.0f}" for at, length, _where in stalls)
        print(f"  run {run + 1}: longest {longest[-1]:6.1f} ms  ms@ms after paint: {shown}")
        if why:
            for at, length, where in sorted(stalls, key=lambda stall: -stall[1])[:4]:
                print(f"      {length:6.1f} ms at {at:6.0f}: {where[:160]}")
    print(
        f"  longest stall: median {statistics.median(longest):6.1f} ms "
        f"(min {min(longest):.1f}, max {max(longest):.1f})"
    )
    print(
        f"  stalls per run: median {statistics.median(counts)} "
        f"(min {min(counts)}, max {max(counts)}); their sum: median "
        f"{statistics.median(totals):.0f} ms (min {min(totals):.0f}, max {max(totals):.0f})"
    )


def bench_clicks(bursts: int, burst: int, every_ms: int, group: int, seed: int) -> None:
    import random

    from PySide6.QtCore import QEventLoop, QPoint, Qt, QTimer
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    from grpo_desktop.views.common import math_render
    from grpo_desktop.views.lab.trace_card import TraceCard
    from grpo_desktop.window.main_window import MainWindow

    _app = QApplication.instance() or QApplication(sys.argv[:1])  # kept while it runs
    window = MainWindow()
    window.resize(1280, 800)
    window.show()
    window.workbench.set_group_size(group)
    window.install_deferred_features()  # the typesetter loaded, as a moment after start-up
    window.math_panel.finish_typesetting()
    rng = random.Random(seed)
    waited, handled, landed_in_typesetting = [], [], []

    def settle(loop: QEventLoop) -> None:
        """Every typeset line forgotten but those shown (typeset again now, unmeasured), so the
        burst's clicks bring new lines: the worked math's lines depend on how many answers are
        right, and a few bursts typeset them all. Then events run until the math is typeset and
        the window has been quiet for 300 ms."""
        math_render._cache.clear()  # (a module global in every tree measured)
        window.math_panel.viewport().repaint()  # the lines shown, typeset again now
        deadline = time.perf_counter() + 30
        quiet_since = None
        while time.perf_counter() < deadline:
            loop.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 10)
            if window.math_panel.typesetting_waiting():
                quiet_since = None
            elif quiet_since is None:
                quiet_since = time.perf_counter()
            elif time.perf_counter() - quiet_since > 0.3:
                return
        raise RuntimeError("the math was still being typeset after 30 s")

    def click(due: float, loop: QEventLoop, last: bool) -> None:
        fired = time.perf_counter()
        landed_in_typesetting.append(window.math_panel.typesetting_waiting())
        card = window.findChild(TraceCard, f"traceCard{rng.randrange(group)}")
        centre = QPoint(card.width() // 2, card.height() // 2)
        QTest.mouseClick(card, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, centre)
        done = time.perf_counter()
        waited.append(fired - due)
        handled.append(done - due)
        if last:
            loop.quit()

    loop = QEventLoop()
    for _ in range(bursts):
        settle(loop)
        start = time.perf_counter() + 0.05
        timers = []
        for k in range(burst):
            due = start + k * every_ms / 1000
            timer = QTimer()
            timer.setSingleShot(True)
            timer.setTimerType(Qt.TimerType.PreciseTimer)
            timer.timeout.connect(lambda due=due, last=k == burst - 1: click(due, loop, last))
            timer.start(max(0, round((due - time.perf_counter()) * 1000)))
            timers.append(timer)
        loop.exec()
    settle(loop)
    landing = [i for i, typesetting in enumerate(landed_in_typesetting) if typesetting]
    print(
        f"clicks while new math lines are typeset: {bursts} bursts of {burst} clicks "
        f"{every_ms} ms apart on random cards, G = {group}, 1280x800 "
        f"({len(landing)} of {len(handled)} landed while lines waited to be typeset):"
    )
    for name, values in (
        ("all clicks, waited", waited),
        ("all clicks, handled", handled),
        ("landed in typesetting, waited", [waited[i] for i in landing]),
        ("landed in typesetting, handled", [handled[i] for i in landing]),
    ):
        if values:
            print(
                f"  {name:31s} median {statistics.median(values) * 1e3:6.2f} ms, "
                f"p95 {percentile(values, 0.95) * 1e3:6.2f} ms, max {max(values) * 1e3:6.2f} ms"
            )
    window.undo_stack.setClean()
    window.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="fresh processes for the stalls")
    parser.add_argument("--seconds", type=float, default=3.0, help="watched after first paint")
    parser.add_argument("--threshold", type=float, default=17.0, help="a stall, in ms")
    parser.add_argument("--prebuild", choices=("on", "off"), default="off")
    parser.add_argument("--why", action="store_true", help="name each stall by its stack")
    parser.add_argument("--bursts", type=int, default=40, help="bursts of clicks")
    parser.add_argument("--burst", type=int, default=5, help="clicks per burst")
    parser.add_argument("--every", type=int, default=30, help="ms between a burst's clicks")
    parser.add_argument("--group", type=int, default=16, help="the group size clicked")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random card choice")
    parser.add_argument("--skip-stalls", action="store_true")
    parser.add_argument("--skip-clicks", action="store_true")
    args = parser.parse_args()
    import grpo_desktop

    print(f"grpo_desktop from {os.path.dirname(grpo_desktop.__file__)}")
    print(
        f"(this machine today: a fixed pure-Python loop takes {machine_reference_ms():.0f} ms; "
        f"load average {os.getloadavg()[0]:.2f})"
    )
    if not args.skip_stalls:
        bench_stalls(args.runs, args.seconds, args.threshold, args.why, args.prebuild == "on")
    if not args.skip_clicks:
        bench_clicks(args.bursts, args.burst, args.every, args.group, args.seed)


if __name__ == "__main__":
    main()
