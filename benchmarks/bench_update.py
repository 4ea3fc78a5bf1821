"""Re-scoring in the Update workspace at G = 16 with ~200-token answers (or longer), as felt.

Two user actions, each followed by the event loop until idle (the model, the update snapshot,
every view of the page and the repaint of what changed):

1. a card toggled in the lab's group (what a click or key 1–9 does) while the Update page shows;
2. a control moved (ε_high), which re-runs the stand-in's inner steps for both presets;
3. a token chip clicked (a real mouse click on a chip of the first answer), which selects it and
   shows its computation.

Each is measured at 0 and at 4 inner steps, with a token selected (its computation shown, as
after a lecturer clicked one); median and p95 over N repetitions after warm-up. Between actions
the event loop runs for ``--pace`` seconds (0.2: a person's pace), so what an action leaves for
after its frame (the math typeset line by line, the inner steps) is not timed in the next one.
The baseline, in the same run, is a repaint of the same page with nothing changed (what any
frame costs); the target is p95 within one 60 Hz frame (16.7 ms).

On long answers the stand-in's inner steps run after the click's frame (``UpdateState``): the
rows above time the click's frame (the new advantages and step 0's pushes, marked pending), as
a person sees it; the GUI thread's CPU time of the same toggles is printed beside (steadier than
wall time on shared, loaded cores: what a quiet machine would come near). One more row times a
toggle to its finished snapshot painted (click → final, the event loop run until nothing is
pending), with the longest single turn of the event loop on the way (what input waits for at
worst). The idle prebuild of the other pages is let finish before anything is measured, so none
of its steps lands in a measured action.

    python benchmarks/bench_update.py [--repeats N] [--tokens N] [--pace S] [--no-selection]
        [--diagnose]

``--tokens 2000`` measures answers about as long as a reasoning model's (a real run's rollouts).
``--diagnose`` adds, after each block of rows, which widgets the measured toggles sent a
LayoutRequest to (per toggle; none should reach the window) and the garbage collections that
ran inside them.

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

GROUP_SIZE = 16
FRAME_MS = 1000 / 60


def long_problem(tokens: int = 200):
    """A problem whose 16 traces each split into about ``tokens`` GPT-2 pre-tokens."""
    from grpo_desktop.core.lab.problems import Trace, get_problem

    base = get_problem("mult-23x47")
    steps = "".join(
        f"Step {k}: 23 × 47 = 23 × 40 + 23 × 7, so far {920 + k} and so on.\n"
        for k in range(max(1, round(9 * tokens / 200)))
    )
    traces = tuple(
        Trace(
            correct=f"{steps}Check {i}: 940 + 141 = 1081\nAnswer: 1081",
            wrong=f"{steps}Check {i}: 940 + 131 = 1071\nAnswer: 1071",
        )
        for i in range(GROUP_SIZE)
    )
    return replace(
        base,
        id="bench-long",
        title="Long answers",
        traces=traces,
        group_size=GROUP_SIZE,
        default_rewards=(1, 0) * (GROUP_SIZE // 2),
    )


def report(label: str, times: list[float], baseline: float) -> None:
    median, p95 = statistics.median(times) * 1e3, percentile(times, 0.95) * 1e3
    verdict = "within" if p95 <= FRAME_MS else "OVER"
    print(
        f"  {label:<34} median {median:6.2f} ms  p95 {p95:6.2f} ms  "
        f"({p95 / baseline:4.1f}x the bare repaint; {verdict} one frame)"
    )


class Diagnosis:
    """While ``active``: the LayoutRequest events Qt delivers (by receiver) and the garbage
    collections that run (by generation, with their time), for ``--diagnose``."""

    def __init__(self, app) -> None:
        from PySide6.QtCore import QEvent, QObject

        self.active = False
        self.requests: dict[str, int] = {}
        self.window_wide = 0
        self.collections: dict[int, list[float]] = {}
        self._started = 0.0
        diagnosis = self

        class Requests(QObject):
            def eventFilter(self, watched, event):  # Qt override
                if diagnosis.active and event.type() == QEvent.Type.LayoutRequest:
                    name = f"{type(watched).__name__}#{watched.objectName() or '?'}"
                    diagnosis.requests[name] = diagnosis.requests.get(name, 0) + 1
                    if getattr(watched, "isWindow", lambda: False)():
                        diagnosis.window_wide += 1
                return False

        self._app = app
        self._filter = Requests()
        app.installEventFilter(self._filter)
        gc.callbacks.append(self._collected)

    def _collected(self, phase: str, info: dict) -> None:
        if not self.active:
            return
        if phase == "start":
            self._started = time.perf_counter()
        else:
            spent = time.perf_counter() - self._started
            self.collections.setdefault(info["generation"], []).append(spent)

    def report(self, label: str, count: int) -> None:
        per = ", ".join(
            f"{name} {n / count:.2f}"
            for name, n in sorted(self.requests.items(), key=lambda item: -item[1])
        )
        print(f"    {label}: LayoutRequests per toggle: {per or 'none'}")
        print(f"    {label}: LayoutRequests that reached the window: {self.window_wide}")
        for generation, spent in sorted(self.collections.items()):
            print(
                f"    {label}: gen-{generation} collections {len(spent)} in {count} toggles, "
                f"{sum(spent) * 1e3:.1f} ms in all, longest {max(spent) * 1e3:.2f} ms"
            )

    def close(self) -> None:
        self._app.removeEventFilter(self._filter)
        gc.callbacks.remove(self._collected)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=100, help="measured actions of each kind")
    parser.add_argument("--tokens", type=int, default=200, help="about this many per answer")
    parser.add_argument(
        "--no-selection",
        action="store_true",
        help="no token selected while toggling and moving ε (its computation not shown)",
    )
    parser.add_argument(
        "--pace",
        type=float,
        default=0.2,
        help="seconds the event loop runs between measured actions (a person's pace; 0: back "
        "to back, where work an action leaves for after its frame lands in the next one)",
    )
    parser.add_argument(
        "--diagnose",
        action="store_true",
        help="after each toggle row, what the toggles asked of Qt's layout (which widgets got a "
        "LayoutRequest, and whether one reached the window) and the garbage collections that "
        "ran inside them",
    )
    args = parser.parse_args()

    from PySide6.QtCore import QElapsedTimer, Qt
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    from grpo_desktop.core.update.update_step import _tokens_of
    from grpo_desktop.window.main_window import MainWindow

    app = QApplication.instance() or QApplication(sys.argv[:1])
    window = MainWindow()
    window.resize(1280, 800)
    window.show()
    workbench = window.workbench
    workbench.set_problem(long_problem(args.tokens))
    workbench.set_workspace("update")
    page = window.update_page
    app.processEvents()
    clock = QElapsedTimer()
    clock.start()
    while not window.prebuild.done and window.prebuild.running and clock.elapsed() < 60_000:
        app.processEvents()  # the idle prebuild's steps, before anything is measured
        time.sleep(0.005)
    gc.freeze()  # as grpo_desktop.app does once the window is up
    tokens = [len(_tokens_of(card.text)[0]) for card in workbench.lab.snapshot.cards]
    print(
        f"Update workspace, G = {len(tokens)}, {min(tokens)}–{max(tokens)} tokens per answer, "
        f"{args.repeats} actions each (1280x800):"
    )

    def settle() -> None:
        """The event loop left to run between actions, as between a person's clicks."""
        end = time.perf_counter() + args.pace
        while time.perf_counter() < end:
            app.processEvents()
            time.sleep(0.002)

    repaints = []
    for _ in range(args.repeats):
        start = time.perf_counter()
        window.repaint()
        repaints.append(time.perf_counter() - start)
    baseline = statistics.median(repaints) * 1e3
    print(f"  {'baseline: repaint, nothing changed':<34} median {baseline:6.2f} ms")

    if not args.no_selection:
        page.state.select(0, 3)  # a token's computation shows, as after a lecturer clicked one
    for steps in (0, 4):
        workbench.set_update_settings(replace(workbench.update_settings, inner_steps=steps))
        app.processEvents()
        settle()
        toggles, toggle_cpu, moves = [], [], []
        probe = Diagnosis(app) if args.diagnose else None
        for repeat in range(args.repeats + 5):
            if probe is not None:
                probe.active = repeat >= 5
            start, cpu = time.perf_counter(), time.thread_time()
            workbench.toggle(repeat % GROUP_SIZE)
            app.processEvents()
            if repeat >= 5:  # warm-up done
                toggles.append(time.perf_counter() - start)
                toggle_cpu.append(time.thread_time() - cpu)
            if probe is not None:
                probe.active = False
            settle()
        if probe is not None:
            probe.close()
        for repeat in range(args.repeats + 5):
            eps_high = 0.2 + 0.001 * (repeat % 80 + 1)
            start = time.perf_counter()
            page.request_settings(replace(workbench.update_settings, eps_high=eps_high))
            app.processEvents()
            if repeat >= 5:
                moves.append(time.perf_counter() - start)
            settle()
        if args.no_selection:  # the token clicks come last: their selection stays
            report(f"card toggled, {steps} inner steps", toggles, baseline)
            report(f"  … its GUI thread's CPU, {steps}", toggle_cpu, baseline)
            report(f"ε_high moved, {steps} inner steps", moves, baseline)
            if probe is not None:
                probe.report(f"toggles, {steps} inner steps", args.repeats)
            continue
        view = page.token_rows
        chips = [(0, column) for column in range(min(40, len(view.snapshot.rows[0].tokens)))]
        selections = []
        for repeat in range(args.repeats + 5):
            centre = view.token_rect(*chips[(repeat * 7) % len(chips)]).center()
            start = time.perf_counter()
            QTest.mouseClick(
                view, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, centre
            )
            app.processEvents()
            if repeat >= 5:
                selections.append(time.perf_counter() - start)
            settle()
        finals, turns = [], []
        for repeat in range(min(args.repeats, 20) + 2):
            start = time.perf_counter()
            workbench.toggle(repeat % GROUP_SIZE)
            app.processEvents()
            longest = time.perf_counter() - start
            while page.state.pending:
                turn = time.perf_counter()
                app.processEvents()
                longest = max(longest, time.perf_counter() - turn)
            if repeat >= 2:
                finals.append(time.perf_counter() - start)
                turns.append(longest)
            settle()
        report(f"card toggled, {steps} inner steps", toggles, baseline)
        report(f"  … its GUI thread's CPU, {steps}", toggle_cpu, baseline)
        report(f"  … to the finished step, {steps}", finals, baseline)
        report(f"  … its longest turn, {steps}", turns, baseline)
        report(f"ε_high moved, {steps} inner steps", moves, baseline)
        report(f"token clicked, {steps} inner steps", selections, baseline)
        if probe is not None:
            probe.report(f"toggles, {steps} inner steps", args.repeats)
    workbench.undo_stack.setClean()  # nothing to save: closing must not ask
    window.close()


if __name__ == "__main__":
    main()
