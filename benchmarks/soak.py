"""A seeded soak of the real window: thousands of random user actions, every invariant checked.

Why: unit tests check each feature alone; a lecturer clicks through all of them in any order for
an hour. This script drives the real main window (offscreen, inside its own event loop, with the
app's error handling installed) through what a user does — menu actions triggered by their
objectName, key presses sent with QTest, card clicks, the workspaces' controls, File ▸ Save/Open
and exports into a temp folder, lessons, the rollouts browser on small generated verl/TRL runs —
and after every action checks that the numbers on screen are the core's numbers and the window
agrees with its model (issue 24).

Reported: exceptions (raised, uncaught in a slot, or shown by the error dialog), error dialogs,
Qt warnings, Python warnings (numpy's RuntimeWarnings included), logged errors, broken
invariants and the process's RSS (start, peak, end). Each problem names the step and the action
that caused it; the run is seeded, so ``--seed S --actions STEP+1 --trace`` replays it (the same
code and the same seed give the same actions; timers make a rare replay differ).

    .venv/bin/python benchmarks/soak.py [--actions N] [--seed S] [--json] [--trace]
                                        [--skip KIND,...]

Exits 1 if anything went wrong. Nothing touches the user's settings or files: HOME, the XDG
folders and QSettings point into a temporary folder, and every modal prompt is replaced.
"""

from __future__ import annotations

import argparse
import faulthandler
import json
import logging
import math
import os
import random
import resource
import sys
import tempfile
import time
import traceback
import warnings
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # before anything loads Qt

ROOT = Path(__file__).resolve().parent.parent
PAGE_BYTES = os.sysconf("SC_PAGE_SIZE")
MB = 2**20

# Dialogs the app rightly shows for something the soak did on purpose (not failures).
EXPECTED_DIALOGS = (
    "Open the Training workspace",  # File ▸ Export ▸ Training run before the run was opened
    f"About {'GRPO Desktop'}",
)
# A few of each failure are kept whole in the report; the rest are counted by signature.
KEEP_EXAMPLES = 3
HISTORY = 12  # actions listed before each failure
STEP_TIMEOUT_S = 60  # one action blocked this long (a modal prompt nobody answers) is a hang
WINDOW_SIZES = ((1280, 800), (1024, 768), (1600, 1000), (1920, 1080), (900, 700))


# --- what the soak records ----------------------------------------------------------------------


def rss_bytes() -> int:
    """Resident set size now, from /proc/self/statm (pages resident × page size)."""
    with open("/proc/self/statm", encoding="ascii") as statm:
        return int(statm.read().split()[1]) * PAGE_BYTES


def max_rss_bytes() -> int:
    """The peak RSS the kernel saw (getrusage's ru_maxrss is in KiB on Linux)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


@dataclass
class Problem:
    """One thing that went wrong, with the step and action that caused it."""

    category: str  # exception, error dialog, Qt warning, Python warning, logged error, invariant
    step: int
    action: str
    summary: str
    details: str = ""
    history: list[str] = field(default_factory=list)

    @property
    def signature(self) -> str:
        return f"{self.category}: {self.summary[:160]}"


@dataclass
class Report:
    seed: int
    actions_asked: int
    actions_done: int = 0
    by_kind: Counter = field(default_factory=Counter)
    conventions_used: Counter = field(default_factory=Counter)
    workspaces_seen: Counter = field(default_factory=Counter)
    problems: list[Problem] = field(default_factory=list)
    info_dialogs: Counter = field(default_factory=Counter)
    rss_start: int = 0
    rss_peak: int = 0
    rss_end: int = 0
    max_rss: int = 0
    wall_s: float = 0.0
    rollouts: str = ""
    skipped: tuple[str, ...] = ()
    aborted: str = ""  # why the run stopped early (the process could not safely go on)

    def counts(self) -> Counter:
        return Counter(problem.category for problem in self.problems)

    def failed(self) -> bool:
        return bool(self.problems)

    def as_dict(self) -> dict[str, Any]:
        grouped: dict[str, dict[str, Any]] = {}
        for problem in self.problems:
            entry = grouped.setdefault(
                problem.signature,
                {"category": problem.category, "count": 0, "first_step": problem.step,
                 "examples": []},
            )
            entry["count"] += 1
            if len(entry["examples"]) < KEEP_EXAMPLES:
                entry["examples"].append(
                    {
                        "step": problem.step,
                        "action": problem.action,
                        "summary": problem.summary,
                        "details": problem.details,
                        "history": problem.history,
                        "replay": replay_command(self.seed, problem.step, self.skipped),
                    }
                )
        return {
            "seed": self.seed,
            "actions": self.actions_done,
            "actions_by_kind": dict(sorted(self.by_kind.items())),
            "conventions_used": dict(sorted(self.conventions_used.items())),
            "workspaces_seen": dict(sorted(self.workspaces_seen.items())),
            "counts": {
                category: self.counts().get(category, 0)
                for category in (
                    "exception",
                    "error dialog",
                    "Qt warning",
                    "Python warning",
                    "logged error",
                    "invariant",
                )
            },
            "problems": list(grouped.values()),
            "info_dialogs": dict(self.info_dialogs),
            "rss_mb": {
                "start": round(self.rss_start / MB, 1),
                "peak": round(self.rss_peak / MB, 1),
                "end": round(self.rss_end / MB, 1),
                "ru_maxrss": round(self.max_rss / MB, 1),
            },
            "wall_s": round(self.wall_s, 1),
            "rollouts": self.rollouts,
            "skipped_kinds": list(self.skipped),
            "aborted": self.aborted,
        }


def replay_command(seed: int, step: int, skip: tuple[str, ...] = ()) -> str:
    """The command that runs the same actions up to ``step`` and prints each one."""
    skipped = f" --skip {','.join(skip)}" if skip else ""
    return (
        f".venv/bin/python benchmarks/soak.py --seed {seed} --actions {step + 1}{skipped} --trace"
    )


# --- the soak's state ---------------------------------------------------------------------------


class Refused(Exception):
    """An action's call was refused as it should be (a ValueError that changed nothing)."""


class Soak:
    """The window under test, the random source, the temp folder and everything recorded."""

    def __init__(self, app: Any, window: Any, rng: random.Random, tmp: Path, report: Report,
                 trace: bool) -> None:
        self.app = app
        self.window = window
        self.workbench = window.workbench
        self.rng = rng
        self.tmp = tmp
        self.report = report
        self.trace = trace
        self.step = -1
        self.action = "start-up"
        self.history: list[str] = []
        self.delay_ms = 0  # an action may let the event loop run a while (playing a run)
        self.abort = ""  # set when going on would crash the process (the run stops, reported)
        self.saved: list[Path] = []
        self.rollout_paths: list[tuple[str, Path]] = []  # ("file" or "folder", path)
        self.large_rollouts: Path | None = None  # a verl run logging rewards far beyond 0..1

    def problem(self, category: str, summary: str, details: str = "") -> None:
        self.report.problems.append(
            Problem(category, self.step, self.action, summary, details, list(self.history))
        )
        # At once, on stderr: a crash later in the run must not take the finding with it.
        print(f"  !! step {self.step} {self.action}: {category}: {summary[:300]}",
              file=sys.stderr, flush=True)

    def lab_panes(self) -> list[Any]:
        """The presenters whose cards are on screen now."""
        from grpo_desktop.model.workbench import COMPARE, LAB

        workspace = self.workbench.workspace
        if workspace == LAB:
            return [self.window.lab]
        if workspace == COMPARE:
            return list(self.window.compare_view.panes)
        return []

    def state_key(self) -> tuple:
        """What a refused change must leave exactly as it was."""
        workbench = self.workbench
        return (
            workbench.undo_stack.count(),
            workbench.undo_stack.index(),
            tuple(lab.memento() for lab in workbench.labs),
            workbench.convention,
            workbench.update_settings,
            workbench.training_config,
        )

    def refused(self, call: Callable[[], object], what: str) -> None:
        """``call`` must raise ValueError and change nothing (a readable refusal)."""
        before = self.state_key()
        try:
            call()
        except ValueError as error:
            after = self.state_key()
            if after != before:
                self.problem(
                    "invariant",
                    f"a refused {what} left a trace (undo count/index {before[:2]} -> "
                    f"{after[:2]}, labs or settings changed: {after[2:] != before[2:]})",
                    f"refusal: {error}\n" + "".join(traceback.format_exception(error)),
                )
                if after[:2] != before[:2]:
                    # The command whose redo raised stays on the undo stack, but PySide never
                    # took ownership of its Python wrapper, which is now freed: the next push,
                    # undo or redo reads freed memory (a segfault). Stop here, reported.
                    self.abort = (
                        f"step {self.step}: a refused {what} left a command on the undo stack "
                        "whose Python object is freed; going on would crash the process"
                    )
            raise Refused(str(error)) from None
        self.problem("invariant", f"{what} out of range was accepted, not refused")


# --- helpers for acting as a user --------------------------------------------------------------


def qt() -> Any:
    """Qt's namespace (imported once Qt may load)."""
    from PySide6.QtCore import Qt

    return Qt


def press(s: Soak, key: Any, modifiers: Any = None) -> None:
    """A key press where the user's keyboard goes: the focused widget of the active window."""
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    if QApplication.activeWindow() is not s.window and s.rng.random() < 0.5:
        s.window.activateWindow()  # the user clicks back on the main window first
        s.app.processEvents()
    target = QApplication.focusWidget() or QApplication.activeWindow() or s.window
    QTest.keyClick(target, key, modifiers or qt().KeyboardModifier.NoModifier)


def trigger(s: Soak, name: str) -> str:
    """Trigger the window's QAction named ``name`` (as its menu item or toolbar button does)."""
    from PySide6.QtGui import QAction

    action = s.window.findChild(QAction, name)
    if action is None:
        s.problem("invariant", f"no QAction named {name!r}")
        return f"{name} (missing)"
    action.trigger()
    return name if action.isEnabled() else f"{name} (disabled)"


def choose_combo(combo: Any, index: int) -> None:
    """Pick item ``index`` as a click in the combo's popup does (``activated`` fires)."""
    combo.setCurrentIndex(index)
    combo.activated.emit(index)


# A reward model's raw scores: large, tiny, nearly equal (all within the readers' ±1e100).
LARGE_REWARDS = {3: [[250.0, -3e5, 1.0, 1e-300], [1e6, 1e6, 1e6, 1e6 + 1], [0.5, 120.0, -101.0, 0]]}
HUGE_REWARDS = (1e101, -1e101, 1e300, -1.7e308)  # beyond MAX_SCORE/MIN_SCORE (±1e100)


def pick_reward(rng: random.Random) -> float:
    """A hand-set reward the model allows: ordinary, tiny (subnormal too), at the limits."""
    from grpo_desktop.core.lab.lab_rewards import MAX_SCORE, MIN_SCORE

    kind = rng.random()
    if kind < 0.5:
        return round(rng.uniform(MIN_SCORE, MAX_SCORE), rng.choice((0, 1, 3, 6, 12)))
    if kind < 0.65:
        return rng.choice((0.0, 1.0, 0.5, -1.0))
    if kind < 0.85:
        return rng.choice((1e-300, -1e-300, 5e-324, 2.2e-308, 1e-12, -1e-9))
    return rng.choice((MAX_SCORE, MIN_SCORE, MAX_SCORE - 1e-12, 99.99999999))


# --- the actions: one function per kind -------------------------------------------------------
#
# Each returns a short description of what it did (for the trace and the failure history); a
# refused call raises Refused. They act as a user does: actions, keys, clicks, controls.


def act_card_key(s: Soak) -> str:
    """Keys 1–9 mark the active lab's cards right or wrong (the lecturer's clicker keys)."""
    number = s.rng.randint(1, 9)
    press(s, getattr(qt().Key, f"Key_{number}"))
    return f"key {number}"


def act_card_click(s: Soak) -> str:
    """A click on a card on screen (the lab, or either side of Easy vs hard)."""
    from PySide6.QtTest import QTest

    panes = s.lab_panes()
    if not panes:
        return "no cards on screen"
    pane = s.rng.choice(panes)
    cards = pane.trace_grid.cards()
    if not cards:
        return "no cards"
    index = s.rng.randrange(len(cards))
    card = cards[index]
    if not card.isVisible():
        s.workbench.toggle(index, pane.state)  # scrolled away: the model's own request
        return f"toggle card {index} (off screen)"
    QTest.mouseClick(card, qt().MouseButton.LeftButton, qt().KeyboardModifier.NoModifier,
                     card.rect().center())
    return f"click card {index}"


def act_card_space(s: Soak) -> str:
    """Focus a card and press Space (keyboard users; Space/Enter toggles, +/− nudges by hand)."""
    from PySide6.QtTest import QTest

    panes = s.lab_panes()
    if not panes:
        return "no cards on screen"
    cards = s.rng.choice(panes).trace_grid.cards()
    if not cards:
        return "no cards"
    index = s.rng.randrange(len(cards))
    key = s.rng.choice(("Key_Space", "Key_Return", "Key_Plus", "Key_Minus"))
    cards[index].setFocus()
    QTest.keyClick(cards[index], getattr(qt().Key, key))
    return f"card {index} {key}"


def act_group_size(s: Soak) -> str:
    """The G box: any size 2..64 (Qt's spin box), or the [ and ] keys."""
    how = s.rng.random()
    if how < 0.6:
        size = s.rng.randint(2, 64) if s.rng.random() < 0.5 else s.rng.randint(2, 12)
        spin = s.window.group_size_spin
        if not spin.isEnabled():  # a run's group, or the Training run: nobody can type in it
            return f"G box {size} (disabled)"
        spin.setValue(size)
        return f"G box {size}"
    key = s.rng.choice(("BracketLeft", "BracketRight"))
    for _ in range(s.rng.randint(1, 4)):
        press(s, getattr(qt().Key, f"Key_{key}"))
    return f"key {key}"


def act_preset(s: Soak) -> str:
    """A preset from the toolbar/Presets menu, or Ctrl+1..5."""
    from grpo_desktop.core.lab.reward_patterns import REWARD_PATTERNS

    if s.rng.random() < 0.5:
        return trigger(s, f"preset_{s.rng.choice(REWARD_PATTERNS).key}")
    number = s.rng.randint(1, 5)
    press(s, getattr(qt().Key, f"Key_{number}"), qt().KeyboardModifier.ControlModifier)
    return f"Ctrl+{number}"


def act_sample(s: Soak) -> str:
    """Sample a group (Ctrl+D or the toolbar)."""
    if s.rng.random() < 0.5:
        return trigger(s, "sampleAction")
    press(s, qt().Key.Key_D, qt().KeyboardModifier.ControlModifier)
    return "Ctrl+D"


def act_reset(s: Soak) -> str:
    """Reset all (Ctrl+R)."""
    return trigger(s, "resetAction")


def act_convention(s: Soak) -> str:
    """Every convention, from the View ▸ Convention menu or the toolbar's combo."""
    from grpo_desktop.core.formulas.advantages import CONVENTIONS

    name = s.rng.choice(tuple(CONVENTIONS))
    s.report.conventions_used[name] += 1
    if s.rng.random() < 0.5:
        for action in s.window.convention_actions.actions():
            if action.data() == name:
                action.trigger()
        return f"menu convention {name}"
    combo = s.window.convention_combo
    choose_combo(combo, combo.findData(name))
    return f"combo convention {name}"


def act_view(s: Soak) -> str:
    """Rewards ↔ advantages (V, the toolbar, Page Up/Down outside a lesson), animation on/off."""
    roll = s.rng.random()
    if roll < 0.4:
        press(s, qt().Key.Key_V)
        return "key V"
    if roll < 0.7:
        return trigger(s, "viewToggle")
    if roll < 0.85:
        key = s.rng.choice(("Key_PageDown", "Key_PageUp"))
        press(s, getattr(qt().Key, key))
        return key
    return trigger(s, "animateAction")


def act_undo(s: Soak) -> str:
    """A chain of undos (Edit ▸ Undo or Ctrl+Z)."""
    count = s.rng.randint(1, 8)
    for _ in range(count):
        if s.rng.random() < 0.5:
            s.window.undo_action.trigger()
        else:
            press(s, qt().Key.Key_Z, qt().KeyboardModifier.ControlModifier)
    return f"undo ×{count}"


def act_redo(s: Soak) -> str:
    """A chain of redos (Edit ▸ Redo, Ctrl+Shift+Z or Ctrl+Y)."""
    count = s.rng.randint(1, 8)
    ctrl, shift = qt().KeyboardModifier.ControlModifier, qt().KeyboardModifier.ShiftModifier
    for _ in range(count):
        roll = s.rng.random()
        if roll < 0.4:
            s.window.redo_action.trigger()
        elif roll < 0.7:
            press(s, qt().Key.Key_Z, ctrl | shift)
        else:
            press(s, qt().Key.Key_Y, ctrl)
    return f"redo ×{count}"


def act_workspace(s: Soak) -> str:
    """Switch workspace: View menu actions, the workspace bar, or Ctrl+L/U/T/E (again: back)."""
    choices = (
        ("labWorkspaceAction", "Key_L"),
        ("updateWorkspaceAction", "Key_U"),
        ("trainingWorkspaceAction", "Key_T"),
        ("compareAction", "Key_E"),
    )
    name, key = s.rng.choice(choices)
    if s.rng.random() < 0.5:
        return trigger(s, name)
    press(s, getattr(qt().Key, key), qt().KeyboardModifier.ControlModifier)
    return f"Ctrl+{key[-1]}"


def act_theme(s: Soak) -> str:
    """View ▸ Theme: light, dark, projector."""
    from grpo_desktop.core.common.theme import THEMES

    return trigger(s, f"theme_{s.rng.choice(tuple(THEMES))}")


def act_zoom(s: Soak) -> str:
    """Zoom in, out or back (Ctrl+=, Ctrl+−, Ctrl+0)."""
    return trigger(s, s.rng.choice(("zoomIn", "zoomIn", "zoomOut", "zoomOut", "zoomReset")))


def act_resize(s: Soak) -> str:
    """The window resized (a projector's resolution, a laptop's), or full screen (F11)."""
    if s.rng.random() < 0.15:
        return trigger(s, "fullScreen")
    width, height = s.rng.choice(WINDOW_SIZES)
    s.window.resize(width, height)
    return f"resize {width}x{height}"


def act_by_hand(s: Soak) -> str:
    """Edit ▸ Set rewards by hand (Ctrl+Shift+R)."""
    if s.rng.random() < 0.5:
        return trigger(s, "byHandAction")
    mods = qt().KeyboardModifier.ControlModifier | qt().KeyboardModifier.ShiftModifier
    press(s, qt().Key.Key_R, mods)
    return "Ctrl+Shift+R"


def act_set_score(s: Soak) -> str:
    """A card's reward set by hand (one drag), with any allowed value: ordinary, tiny, extreme."""
    lab = s.workbench.active_lab
    index = s.rng.randrange(lab.group_size)
    value = pick_reward(s.rng)
    gesture = s.rng.randint(0, 3)
    s.workbench.set_score(index, value, gesture, lab)
    return f"set_score({index}, {value!r}, gesture {gesture})"


def act_set_score_huge(s: Soak) -> str:
    """A reward outside the allowed range (1e101, 1e300): the model must refuse it with a
    ValueError and change nothing (a reward model can emit such numbers)."""
    lab = s.workbench.active_lab
    index = s.rng.randrange(lab.group_size)
    value = s.rng.choice(HUGE_REWARDS)
    gesture = s.rng.randint(0, 3)
    s.refused(lambda: s.workbench.set_score(index, value, gesture, lab), "hand-set reward")
    return f"set_score({index}, {value!r}, gesture {gesture})"


def act_reward_weight(s: Soak) -> str:
    """A reward function's weight (the Rewards tab's spin box, or the model's request)."""
    from grpo_desktop.core.lab.lab_rewards import MAX_WEIGHT, MIN_WEIGHT, REWARD_COMPONENTS

    name = s.rng.choice(REWARD_COMPONENTS)
    weight = round(s.rng.uniform(MIN_WEIGHT, MAX_WEIGHT), s.rng.choice((0, 1, 2)))
    if s.rng.random() < 0.5:
        s.window.show_explanation("rewards")
        panel = s.window.reward_panel
        if panel is not None:
            from PySide6.QtWidgets import QDoubleSpinBox

            spin = panel.findChild(QDoubleSpinBox, f"weight_{name}")
            if spin is not None and spin.isEnabled():
                spin.setValue(weight)
                return f"weight spin {name} {weight}"
    if s.rng.random() < 0.1:
        bad = s.rng.choice((MAX_WEIGHT * 10, math.nan, -1e300))
        s.refused(lambda: s.workbench.set_reward_weight(name, bad, s.workbench.lab), "weight")
    s.workbench.set_reward_weight(name, weight, s.workbench.lab)
    return f"set_reward_weight({name}, {weight})"


def act_explain_tab(s: Soak) -> str:
    """The worked math, "one model, not four", or the Rewards tab."""
    which = s.rng.choice(("math", "ppo", "rewards"))
    s.window.show_explanation(which)
    return f"tab {which}"


def act_problem(s: Soak) -> str:
    """Choose another problem in the active lab's problem box."""
    panes = s.lab_panes()
    if not panes:
        return "no problem box on screen"
    chooser = s.rng.choice(panes).problem_panel.chooser
    if not chooser.isEnabled() or chooser.count() == 0:
        return "problem box disabled"
    index = s.rng.randrange(chooser.count())
    choose_combo(chooser, index)
    return f"problem {chooser.itemData(index)}"


def act_edit_problem(s: Soak) -> str:
    """Edit ▸ Edit problem… (the real editor, accepted or cancelled at random)."""
    return trigger(s, "editProblemAction")


def act_update_settings(s: Soak) -> str:
    """New Update-step settings through the model, every value drawn from the core's limits."""
    from grpo_desktop.core.formulas.clipped_loss import LOSS_PRESETS
    from grpo_desktop.core.update.update_settings import MAX_INNER_STEPS

    rng = s.rng
    current = s.workbench.update_settings
    changes: dict[str, Any] = {}
    for name in rng.sample(
        ("preset", "compare_preset", "eps_low", "eps_high", "clip_ratio_c", "beta",
         "kl_estimator", "inner_steps", "learning_rate"),
        rng.randint(1, 3),
    ):
        changes[name] = {
            "preset": lambda: rng.choice(tuple(LOSS_PRESETS)),
            "compare_preset": lambda: rng.choice(tuple(LOSS_PRESETS)),
            "eps_low": lambda: rng.choice((0.0, 0.2, 10.0, round(rng.uniform(0, 10), 3))),
            "eps_high": lambda: rng.choice((0.0, 0.28, 10.0, round(rng.uniform(0, 10), 3))),
            "clip_ratio_c": lambda: rng.choice((1.0 + 1e-9, 3.0, 100.0, rng.uniform(1.01, 20))),
            "beta": lambda: rng.choice((0.0, 0.04, 10.0, rng.uniform(0, 10))),
            "kl_estimator": lambda: rng.choice(("k1", "k2", "k3")),
            "inner_steps": lambda: rng.choice((0, 1, 4, rng.randint(0, MAX_INNER_STEPS))),
            "learning_rate": lambda: rng.choice((1e-6, 0.5, 5.0, rng.uniform(0.01, 5))),
        }[name]()
    if hasattr(current, "compare_eps_high") and rng.random() < 0.3:  # None: as the main side
        changes["compare_eps_high"] = rng.choice((None, 0.2, 0.28, round(rng.uniform(0, 10), 3)))
    settings = replace(current, **changes)
    s.workbench.set_update_settings(settings)
    return f"update settings {changes}"


def act_update_control(s: Soak) -> str:
    """The Update workspace's own controls: spins, combos, Length bias and Clip-higher."""
    controls = s.window.update_page.controls
    rng = s.rng
    roll = rng.random()
    if roll < 0.15:
        controls.length_bias_button.click()
        return "Length bias"
    if roll < 0.3:
        controls.clip_higher_button.click()
        return "Clip-higher"
    if roll < 0.55:
        combo = rng.choice((controls.preset_combo, controls.compare_combo, controls.kl_combo))
        if combo.isEnabled() and combo.count():
            index = rng.randrange(combo.count())
            choose_combo(combo, index)
            return f"{combo.objectName()} {combo.itemData(index)}"
        return f"{combo.objectName()} disabled"
    spin = rng.choice((controls.eps_low_spin, controls.eps_high_spin, controls.clip_c_spin,
                       controls.beta_spin, controls.inner_steps_spin,
                       controls.learning_rate_spin))
    if not spin.isEnabled():
        return f"{spin.objectName()} disabled"
    if hasattr(spin, "decimals"):
        value: float = round(rng.uniform(spin.minimum(), spin.maximum()), spin.decimals())
    else:
        value = rng.randint(spin.minimum(), min(spin.maximum(), 12))
    spin.setValue(value)
    return f"{spin.objectName()} {value}"


def act_update_token(s: Soak) -> str:
    """Click a token in the Update workspace: its whole computation shows."""
    page = s.window.update_page
    rows = page.state.snapshot.rows
    if not rows:
        return "no tokens"
    row = s.rng.randrange(len(rows))
    if not len(rows[row].tokens):
        return "empty row"
    column = s.rng.randrange(len(rows[row].tokens))
    page.token_rows.token_requested.emit(row, column)
    return f"token {row},{column}"


TRAINING_RANGES = {  # small runs: the machine has two cores, shared
    "steps": (1, 30),
    "seeds": (1, 3),
    "group_size": (2, 16),
    "batch": (1, 6),
    "epochs": (1, 8),
}


def act_training_setting(s: Soak) -> str:
    """A Training control moved: a small value, or now and then anything its range offers
    (which the run may refuse with a sentence, the control snapping back)."""
    from grpo_desktop.core.training.training_config import TRAINING_LIMITS

    controls = s.window.training_page.controls
    rng = s.rng
    if rng.random() < 0.2:
        boxes = list(controls.algorithm_boxes.values())
        box = rng.choice(boxes)
        box.click()
        return f"algorithm {box.objectName()} clicked"
    spins = {
        "steps": controls.steps_spin,
        "seeds": controls.seeds_spin,
        "group_size": controls.group_spin,
        "batch": controls.batch_spin,
        "epochs": controls.epochs_spin,
        "learning_rate": controls.lr_spin,
        "beta": controls.beta_spin,
    }
    name = rng.choice(tuple(spins))
    low, high = TRAINING_LIMITS[name]
    if name in ("learning_rate", "beta"):
        value: float = round(rng.uniform(low, min(high, 20.0)), 3)
    elif rng.random() < 0.1:
        value = int(rng.choice((high, rng.randint(int(low), int(high)))))  # the spin's range
    else:
        value = rng.randint(*TRAINING_RANGES[name])
    spins[name].setValue(value)
    return f"training {name} {value}"


def act_training_config(s: Soak) -> str:
    """A whole small run configuration through the page's request (what the controls send)."""
    from grpo_desktop.core.training.training_config import ALGORITHMS

    rng = s.rng
    config = replace(
        s.workbench.training_config,
        algorithms=tuple(sorted(rng.sample(ALGORITHMS, rng.randint(1, 3)), key=ALGORITHMS.index)),
        **{name: rng.randint(*limits) for name, limits in TRAINING_RANGES.items()},
    )
    s.window.training_page.request_config(config)
    return f"training config {config.algorithms} steps {config.steps} seeds {config.seeds}"


def act_training_run(s: Soak) -> str:
    """Step, play (the event loop runs a moment) or reset the run; metric and focus combos."""
    page = s.window.training_page
    controls = page.controls
    roll = s.rng.random()
    if roll < 0.4:
        count = s.rng.randint(1, 3)
        for _ in range(count):
            if controls.step_button.isEnabled():
                controls.step_button.click()
        return f"step ×{count}"
    if roll < 0.6:
        controls.play_button.click()
        s.delay_ms = s.rng.randint(30, 250)
        return f"play/pause, {s.delay_ms} ms"
    if roll < 0.7:
        controls.reset_button.click()
        return "reset run"
    combo = s.rng.choice((controls.metric_combo, controls.focus_combo))
    if combo.count():
        index = s.rng.randrange(combo.count())
        choose_combo(combo, index)
        return f"{combo.objectName()} {combo.itemData(index)}"
    return "empty combo"


def act_training_open_group(s: Soak) -> str:
    """Click a step on the charts, then one of its groups: it opens in the lab."""
    page = s.window.training_page
    done = page.state.run.step_count
    if done < 1:
        return "no step yet"
    step = s.rng.randint(1, done)
    page.charts.step_requested.emit(step)
    index = s.rng.randrange(max(1, page.workbench.training_config.batch))
    page.groups.group_requested.emit(index)
    return f"training step {step} group {index}"


def act_compare_toggle(s: Soak) -> str:
    """Easy vs hard: a card on either side, by the model's toggle request (as its card does)."""
    easy, hard = s.workbench.comparison
    lab = s.rng.choice((easy, hard))
    index = s.rng.randrange(lab.group_size)
    s.workbench.toggle(index, lab)
    return f"compare toggle {'easy' if lab is easy else 'hard'} {index}"


def act_lesson(s: Soak) -> str:
    """Start a lesson from the Lesson menu; step, reveal or leave it (actions or keys)."""
    lessons = s.window.lessons
    roll = s.rng.random()
    if not lessons.active or roll < 0.12:
        lesson = s.rng.choice(lessons.lessons)
        return trigger(s, f"startLesson_{lesson.id}")
    if roll < 0.55:
        if s.rng.random() < 0.5:
            return trigger(s, "lessonNextAction")
        press(s, s.rng.choice((qt().Key.Key_PageDown, qt().Key.Key_Right)))
        return "key next"
    if roll < 0.7:
        return trigger(s, "lessonPreviousAction")
    if roll < 0.85:
        if s.rng.random() < 0.5:
            return trigger(s, "lessonRevealAction")
        press(s, qt().Key.Key_R)
        return "key R"
    if s.rng.random() < 0.5:
        return trigger(s, "lessonExitAction")
    press(s, qt().Key.Key_Escape)
    return "key Escape"


def act_save(s: Soak) -> str:
    """File ▸ Save or Save as… into the temp folder (the save dialog answers a path there)."""
    name = f"soak-{s.rng.randrange(4)}.grpo.json"
    path = s.tmp / "scenarios" / name
    s.window.document.ask_save_path = lambda: str(path)
    if s.rng.random() < 0.5:
        press(s, qt().Key.Key_S, qt().KeyboardModifier.ControlModifier)
        label = "Ctrl+S"
    else:
        label = trigger(s, "saveAsAction")
    if path.exists() and path not in s.saved:
        s.saved.append(path)
    return f"{label} -> {name}"


def act_open(s: Soak) -> str:
    """File ▸ Open… a scenario saved earlier, or Open recent; unsaved changes: save, discard or
    cancel at random."""
    document = s.window.document
    if not s.saved:
        return "nothing saved yet"
    path = s.rng.choice(s.saved)
    document.ask_open_path = lambda: str(path)
    if s.rng.random() < 0.3:
        menu = document.recent_menu
        menu.aboutToShow.emit()  # the menu fills itself as it opens
        actions = [action for action in menu.actions() if action.isEnabled()]
        if actions:
            action = s.rng.choice(actions)
            text = action.text()  # opening refills the menu: this action is then deleted
            action.trigger()
            return f"open recent {text}"
    if s.rng.random() < 0.5:
        press(s, qt().Key.Key_O, qt().KeyboardModifier.ControlModifier)
        return f"Ctrl+O {path.name}"
    return f"{trigger(s, 'openAction')} {path.name}"


def act_export(s: Soak) -> str:
    """File ▸ Export (window/chart PNG, SVG, group or training CSV) and Edit ▸ Copy image."""
    name = s.rng.choice(("exportWindowPng", "exportChartPng", "exportChartSvg", "exportGroupCsv",
                         "exportTrainingCsv", "copyWindowImage"))
    return trigger(s, name)


def act_rollouts_open(s: Soak) -> str:
    """File ▸ Open rollouts (a file) or Open rollouts folder, on runs generated in the temp dir."""
    if not s.rollout_paths:
        return "no rollout files"
    kind, path = s.rng.choice(s.rollout_paths)
    rollouts = s.window.rollouts
    if kind == "folder":
        rollouts.ask_folder = lambda: str(path)
        return f"{trigger(s, 'openRolloutsFolderAction')} {path.name}"
    rollouts.ask_file = lambda: str(path)
    return f"{trigger(s, 'openRolloutsAction')} {path.name}"


def act_rollouts_browse(s: Soak) -> str:
    """In the rollouts browser: a step, a filter, a group opened in the Lab; or close/reopen it."""
    rollouts = s.window.rollouts
    if rollouts.source is None:
        return "no rollouts read"
    browser = rollouts.browser
    if not browser.isVisible():
        return trigger(s, "rolloutsBrowserAction")
    roll = s.rng.random()
    if roll < 0.2 and browser.steps_list.count():
        row = s.rng.randrange(browser.steps_list.count())
        browser.steps_list.setCurrentRow(row)
        return f"browser step row {row}"
    if roll < 0.3:
        text = s.rng.choice(("", "question", "1", "zzz", "Step 2"))
        browser.search.setText(text)
        return f"browser search {text!r}"
    if roll < 0.4:
        browser.informative.toggle()
        return "browser informative toggled"
    if roll < 0.55:
        browser.close()
        return "browser closed"
    rows = browser.proxy.rowCount()
    if not rows:
        return "no groups shown"
    row = s.rng.randrange(rows)
    browser.table.selectRow(row)
    if browser.open_button.isEnabled():
        browser.open_button.click()
        return f"open group row {row}"
    return f"select group row {row} (open disabled)"


def act_rollouts_large(s: Soak) -> str:
    """A run whose reward model logged large and tiny rewards (250, −3e5, 1e6, 1e-300): its
    folder opened and one of its groups shown in the Lab, where the cards, rewards by hand and
    every convention then meet numbers far outside 0..1."""
    if s.large_rollouts is None:
        return "no large-reward run"
    rollouts = s.window.rollouts
    rollouts.ask_folder = lambda: str(s.large_rollouts)
    opened = trigger(s, "openRolloutsFolderAction")
    if rollouts.source is None or not rollouts.browser.isVisible():
        return f"{opened} (nothing shown)"
    browser = rollouts.browser
    rows = browser.proxy.rowCount()
    if not rows:
        return f"{opened}, no groups"
    row = s.rng.randrange(rows)
    browser.table.selectRow(row)
    browser.open_button.click()
    return f"{opened}, open group row {row}"


def act_shortcuts_or_about(s: Soak) -> str:
    """Help ▸ Keyboard shortcuts (F1) or About (dialogs answered at once)."""
    if s.rng.random() < 0.5:
        press(s, qt().Key.Key_F1)
        return "F1"
    return trigger(s, "aboutAction")


def act_idle(s: Soak) -> str:
    """The user pauses: timers (animations, a playing run) get to run."""
    s.delay_ms = s.rng.choice((0, 16, 50, 120))
    return f"idle {s.delay_ms} ms"


@dataclass(frozen=True)
class Kind:
    """An action kind: its weight, and the workspaces where a user can reach it (None: any)."""

    run: Callable[[Soak], str]
    weight: float
    where: tuple[str, ...] | None = None


LAB_LIKE = ("lab", "update", "compare")
ACTIONS: dict[str, Kind] = {
    "card_key": Kind(act_card_key, 8),
    "card_click": Kind(act_card_click, 8, ("lab", "compare")),
    "card_keyboard": Kind(act_card_space, 4, ("lab", "compare")),
    "group_size": Kind(act_group_size, 6),
    "preset": Kind(act_preset, 5),
    "sample": Kind(act_sample, 4),
    "reset": Kind(act_reset, 2),
    "convention": Kind(act_convention, 6),
    "view": Kind(act_view, 4),
    "undo": Kind(act_undo, 5),
    "redo": Kind(act_redo, 4),
    "workspace": Kind(act_workspace, 7),
    "theme": Kind(act_theme, 1),
    "zoom": Kind(act_zoom, 1),
    "resize": Kind(act_resize, 1),
    "by_hand": Kind(act_by_hand, 3),
    "set_score": Kind(act_set_score, 6, LAB_LIKE),
    "set_score_huge": Kind(act_set_score_huge, 0.7, LAB_LIKE),
    "reward_weight": Kind(act_reward_weight, 3, ("lab",)),
    "explain_tab": Kind(act_explain_tab, 2, ("lab",)),
    "problem": Kind(act_problem, 2, ("lab", "compare")),
    "edit_problem": Kind(act_edit_problem, 1, LAB_LIKE),
    "update_settings": Kind(act_update_settings, 5, ("update",)),
    "update_control": Kind(act_update_control, 5, ("update",)),
    "update_token": Kind(act_update_token, 3, ("update",)),
    "training_setting": Kind(act_training_setting, 5, ("training",)),
    "training_config": Kind(act_training_config, 2, ("training",)),
    "training_run": Kind(act_training_run, 6, ("training",)),
    "training_open_group": Kind(act_training_open_group, 1, ("training",)),
    "compare_toggle": Kind(act_compare_toggle, 4, ("compare",)),
    "lesson": Kind(act_lesson, 4),
    "save": Kind(act_save, 2),
    "open": Kind(act_open, 2),
    "export": Kind(act_export, 1.5),
    "rollouts_open": Kind(act_rollouts_open, 1.5),
    "rollouts_browse": Kind(act_rollouts_browse, 3),
    "rollouts_large": Kind(act_rollouts_large, 0.7),
    "help": Kind(act_shortcuts_or_about, 0.5),
    "idle": Kind(act_idle, 2),
}


# --- invariants ---------------------------------------------------------------------------------


def check_invariants(s: Soak) -> None:
    """The numbers are the core's, and the window agrees with its model."""
    import numpy as np

    from grpo_desktop.core.formulas.advantages import group_advantages
    from grpo_desktop.core.lab.lab_snapshot import push_of
    from grpo_desktop.model.workbench import COMPARE, LAB, TRAINING, UPDATE

    window, workbench = s.window, s.workbench
    names = {id(workbench.lab): "lab"}
    if len(workbench.labs) == 3:
        names.update({id(workbench.labs[1]): "easy", id(workbench.labs[2]): "hard"})
    for lab in workbench.labs:
        name = names[id(lab)]
        snapshot = lab.snapshot
        rewards = np.array(snapshot.rewards, dtype=float)
        if snapshot.convention.name != workbench.convention:
            s.problem("invariant", f"{name}: snapshot on {snapshot.convention.name}, window on "
                      f"{workbench.convention}")
        try:
            expected = np.asarray(group_advantages(rewards, workbench.convention), dtype=float)
        except Exception as error:  # the lab shows a group the core refuses
            s.problem("invariant", f"{name}: group_advantages refused the lab's rewards: "
                      f"{type(error).__name__}: {error}", repr(snapshot.rewards))
            continue
        shown = np.array([card.advantage for card in snapshot.cards], dtype=float)
        stats = np.asarray(snapshot.stats.advantages, dtype=float)
        scale = float(np.max(np.abs(expected))) if expected.size else 0.0
        for label, got in (("cards", shown), ("stats", stats)):
            if got.shape != expected.shape or not np.allclose(
                got, expected, rtol=1e-12, atol=1e-12 * scale
            ):
                s.problem(
                    "invariant",
                    f"{name}: {label} advantages differ from group_advantages under "
                    f"{workbench.convention}",
                    f"rewards {snapshot.rewards}\nshown {got.tolist()}\n"
                    f"expected {expected.tolist()}",
                )
        up, down = int(np.sum(stats > 0)), int(np.sum(stats < 0))
        if (snapshot.stats.pushed_up, snapshot.stats.pushed_down) != (up, down):
            s.problem("invariant", f"{name}: pushed up/down {snapshot.stats.pushed_up}/"
                      f"{snapshot.stats.pushed_down} but the signs say {up}/{down}",
                      f"advantages {stats.tolist()}")
        if any(card.push != push_of(card.advantage) for card in snapshot.cards):
            s.problem("invariant", f"{name}: a card's push disagrees with its advantage's sign")
        if not np.array_equal(np.asarray(snapshot.stats.rewards, dtype=float), rewards):
            s.problem("invariant", f"{name}: the stats' rewards are not the cards' rewards")

    stack = workbench.undo_stack
    if window.isWindowModified() != (not stack.isClean()):
        s.problem("invariant", f"window modified flag {window.isWindowModified()} but the undo "
                  f"stack is {'clean' if stack.isClean() else 'not clean'}")
    title = window.windowTitle()
    document = workbench.path.name if workbench.path else "Untitled"
    if f"— {document}[*] —" not in title:
        s.problem("invariant", f"title {title!r} does not name the document {document!r}")
    if stack.count() > 1000 or not 0 <= stack.index() <= stack.count():
        s.problem("invariant", f"undo stack count {stack.count()} index {stack.index()}")

    workspace = workbench.workspace
    s.report.workspaces_seen[workspace] += 1
    pages = {LAB: lambda: window.lab_page, COMPARE: lambda: window.compare_page,
             UPDATE: lambda: window._workspace_pages.get(UPDATE),
             TRAINING: lambda: window._workspace_pages.get(TRAINING)}
    page = pages[workspace]()
    current = window.pages.currentWidget()
    if page is None or current is not page:
        s.problem("invariant", f"workspace {workspace} but the page shown is "
                  f"{current.objectName() if current else None!r}")
    elif window.isVisible() and not page.isVisible():
        s.problem("invariant", f"workspace {workspace}'s page is current but not visible")
    checked = [action.objectName() for action in window.workspace_actions if action.isChecked()]
    expected_action = {LAB: "labWorkspaceAction", UPDATE: "updateWorkspaceAction",
                       TRAINING: "trainingWorkspaceAction", COMPARE: "compareAction"}[workspace]
    if checked != [expected_action]:
        s.problem("invariant", f"workspace {workspace} but checked workspace actions {checked}")

    active = workbench.active_lab
    if window.group_size_spin.value() != active.group_size:
        s.problem("invariant", f"G box shows {window.group_size_spin.value()}, active lab has "
                  f"{active.group_size}")
    if window.convention_combo.currentData() != workbench.convention:
        s.problem("invariant", f"convention box shows {window.convention_combo.currentData()}, "
                  f"the window uses {workbench.convention}")
    if window.view_toggle.isChecked() != (workbench.view == "advantage"):
        s.problem("invariant", f"view toggle checked={window.view_toggle.isChecked()} but the "
                  f"view is {workbench.view}")

    if workspace == TRAINING:
        controls = window.training_page.controls
        config = workbench.training_config
        shown = (controls.steps_spin.value(), controls.seeds_spin.value(),
                 controls.group_spin.value(), controls.batch_spin.value(),
                 controls.epochs_spin.value())
        in_force = (config.steps, config.seeds, config.group_size, config.batch, config.epochs)
        if shown != in_force:
            s.problem("invariant", f"training controls show steps/seeds/G/batch/epochs {shown}, "
                      f"the run has {in_force}")
    if workspace == UPDATE:
        shown_settings = window.update_page.controls.settings()
        if shown_settings is not None and shown_settings != workbench.update_settings:
            s.problem("invariant", "update controls show other settings than those in force",
                      f"shown {shown_settings}\nin force {workbench.update_settings}")


# --- set-up: private folders, the app, hooks and dialogs ---------------------------------------


def private_home(tmp: Path) -> None:
    """HOME, XDG folders and QSettings inside ``tmp``: the user's settings are never touched."""
    home = tmp / "home"
    for name, sub in (("HOME", ""), ("XDG_CONFIG_HOME", ".config"),
                      ("XDG_DATA_HOME", ".local/share"), ("XDG_STATE_HOME", ".local/state")):
        folder = home / sub if sub else home
        folder.mkdir(parents=True, exist_ok=True)
        os.environ[name] = str(folder)
    from PySide6.QtCore import QSettings

    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope,
                      str(home / ".config"))


def write_rollouts(tmp: Path) -> tuple[list[tuple[str, Path]], str]:
    """Small verl and TRL runs made by the tests' generators (tests/rollout_files.py)."""
    sys.path.insert(0, str(ROOT / "tests"))
    try:
        import rollout_files
    except ImportError as error:  # pytest is a test extra
        return [], f"no rollouts: tests/rollout_files.py could not load ({error})"
    finally:
        sys.path.remove(str(ROOT / "tests"))
    folder = rollout_files.write_verl(tmp / "rollouts" / "verl")
    rollout_files.write_verl(tmp / "rollouts" / "verl-large", LARGE_REWARDS)
    paths: list[tuple[str, Path]] = [("folder", folder), ("file", folder / "2.jsonl")]
    note = "verl folder and file"
    if rollout_files.pa is not None:
        trl_folder = tmp / "rollouts" / "trl"
        trl_folder.mkdir(parents=True)
        written = rollout_files.write_trl(trl_folder)
        trl_file = written if isinstance(written, Path) and written.is_file() else None
        if trl_file is None:
            found = sorted(trl_folder.glob("*.parquet"))
            trl_file = found[0] if found else None
        if trl_file is not None:
            paths += [("file", trl_file), ("folder", trl_folder)]
            note += ", TRL parquet file and folder"
    return paths, note


def install_hooks(s: Soak) -> Callable[[], None]:
    """Record exceptions, warnings, Qt messages, logged errors and every dialog; returns undo."""
    from PySide6.QtCore import qInstallMessageHandler
    from PySide6.QtWidgets import QDialog, QFileDialog, QMessageBox

    from grpo_desktop import error_handling
    from grpo_desktop.views.lab import problem_editor
    from grpo_desktop.window.scenario_files import ScenarioFiles

    undo: list[Callable[[], None]] = []

    def patch(owner: Any, name: str, value: Any) -> None:
        """Replace ``owner.name`` for the run; ``restore`` puts back exactly what was there."""
        missing = object()
        own = vars(owner) if isinstance(owner, type) else {}
        old = own.get(name, missing) if isinstance(owner, type) else getattr(owner, name)
        setattr(owner, name, value)
        if old is missing:
            undo.append(lambda: delattr(owner, name))
        else:
            undo.append(lambda: setattr(owner, name, old))

    previous_hook = sys.excepthook

    def excepthook(exc_type: type[BaseException], exc: BaseException, tb: Any) -> None:
        # Uncaught in a slot or a virtual override: the app's hook logs it and would show the
        # error dialog; we record it with the action that caused it, then pass it on.
        s.problem("exception", error_handling.summarize(exc_type, exc),
                  "".join(traceback.format_exception(exc_type, exc, tb)))
        previous_hook(exc_type, exc, tb)

    patch(sys, "excepthook", excepthook)

    def unraisable(hook_args: Any) -> None:
        s.problem("exception", f"unraisable: {hook_args.exc_type.__name__}: "
                  f"{hook_args.exc_value}", str(hook_args.object))

    patch(sys, "unraisablehook", unraisable)

    def error_dialog(message: str, details: str, log_path: Path) -> None:
        s.problem("error dialog", f"the crash dialog: {message}", details)

    patch(error_handling, "show_error_dialog", error_dialog)

    def showwarning(message: Any, category: type[Warning], filename: str, lineno: int,
                    file: Any = None, line: str | None = None) -> None:
        s.problem("Python warning", f"{category.__name__}: {message}", f"{filename}:{lineno}")

    warnings.simplefilter("always")
    patch(warnings, "showwarning", showwarning)

    def qt_message(mode: Any, context: Any, message: str) -> None:
        s.problem("Qt warning", f"{mode.name}: {message}",
                  f"{context.file}:{context.line} {context.function}" if context else "")
        if previous_qt is not None:
            previous_qt(mode, context, message)

    previous_qt = qInstallMessageHandler(qt_message)
    undo.append(lambda: qInstallMessageHandler(previous_qt))
    from grpo_desktop.app import quiet_offscreen_size_hints

    quiet_offscreen_size_hints()  # as the app does: that one offscreen message is not a bug

    class Recorder(logging.Handler):
        """The app's own log: errors it caught and logged (not Qt's, recorded above)."""

        def emit(self, record: logging.LogRecord) -> None:
            if record.name.startswith("grpo_desktop.qt"):
                return
            if record.levelno >= logging.ERROR:
                detail = record.exc_text or ""
                if record.exc_info:
                    detail = "".join(traceback.format_exception(*record.exc_info))
                s.problem("logged error", f"{record.name}: {record.getMessage()}", detail)
            elif record.levelno >= logging.WARNING:
                s.problem("logged error", f"warning {record.name}: {record.getMessage()}")

    recorder = Recorder(logging.WARNING)
    logging.getLogger("grpo_desktop").addHandler(recorder)
    undo.append(lambda: logging.getLogger("grpo_desktop").removeHandler(recorder))

    # Modal prompts answer at once; what they would have said is recorded.
    def note_dialog(kind: str, title: str, text: str) -> None:
        if kind == "info" or any(expected in f"{title} {text}" for expected in EXPECTED_DIALOGS):
            s.report.info_dialogs[f"{title}: {text[:80]}"] += 1
        else:
            s.problem("error dialog", f"{title}: {text}")

    def box_exec(box: Any) -> int:
        error = box.icon() in (QMessageBox.Icon.Warning, QMessageBox.Icon.Critical)
        note_dialog("error" if error else "info", box.windowTitle(), box.text())
        return int(QMessageBox.StandardButton.Ok)

    def box_open(box: Any, *args: Any) -> None:
        box_exec(box)
        box.deleteLater()

    def static(kind: str, answer: Any) -> Callable[..., Any]:
        def show(parent: Any, title: str = "", text: str = "", *args: Any, **kwargs: Any) -> Any:
            note_dialog(kind, title, text)
            return answer
        return show

    Button = QMessageBox.StandardButton
    patch(QMessageBox, "exec", box_exec)
    patch(QMessageBox, "open", box_open)
    patch(QMessageBox, "warning", staticmethod(static("error", Button.Ok)))
    patch(QMessageBox, "critical", staticmethod(static("error", Button.Ok)))
    patch(QMessageBox, "information", staticmethod(static("info", Button.Ok)))
    patch(QMessageBox, "question", staticmethod(static("info", Button.Yes)))
    patch(QMessageBox, "about", staticmethod(static("info", None)))

    def dialog_exec(dialog: Any) -> int:
        """A dialog shown a moment, then accepted or cancelled as a user might."""
        dialog.show()
        s.app.processEvents()
        accepted = s.rng.random() < 0.5
        s.report.info_dialogs[f"{dialog.objectName() or type(dialog).__name__} "
                              f"{'accepted' if accepted else 'cancelled'}"] += 1
        if accepted:
            dialog.accept()
            return int(QDialog.DialogCode.Accepted)
        dialog.reject()
        return int(QDialog.DialogCode.Rejected)

    patch(QDialog, "exec", dialog_exec)
    patch(problem_editor.ProblemEditor, "exec", dialog_exec)

    def no_file_dialog(*args: Any, **kwargs: Any) -> Any:
        s.problem("invariant", "a real file dialog was opened (ask_* should have answered)")
        return ("", "")

    for name in ("getOpenFileName", "getSaveFileName", "getExistingDirectory"):
        patch(QFileDialog, name, staticmethod(no_file_dialog))
    patch(ScenarioFiles, "ask_keep_changes",
          lambda self: s.rng.choice(("save", "discard", "cancel")))
    patch(ScenarioFiles, "ask_replace_read_only", lambda self, path: True)

    def restore() -> None:
        for step in reversed(undo):
            step()
    return restore


def export_path(s: Soak) -> Callable[[str, str, str], str]:
    """The export dialog's answer: a file named after the export in the temp folder."""
    def ask(title: str, default_name: str, filters: str) -> str:
        folder = s.tmp / "exports"
        folder.mkdir(exist_ok=True)
        return str(folder / f"{title.lower().replace(' ', '-')}-{Path(default_name).suffix[1:]}"
                   f"{Path(default_name).suffix}")
    return ask


# --- the run ------------------------------------------------------------------------------------


def run_soak(
    actions: int, seed: int, trace: bool = False, skip: tuple[str, ...] = ()
) -> Report:
    """Open the window, perform ``actions`` seeded random actions, check after each; the report.

    ``skip`` leaves out action kinds (e.g. one whose known bug would stop the run early)."""
    unknown = sorted(set(skip) - set(ACTIONS))
    if unknown:
        raise ValueError(f"unknown action kind(s) {', '.join(unknown)}; see ACTIONS")
    report = Report(seed=seed, actions_asked=actions, skipped=tuple(skip))
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="grpo-soak-") as folder:
        tmp = Path(folder)
        private_home(tmp)
        (tmp / "scenarios").mkdir()
        from PySide6.QtCore import QEvent, QTimer
        from PySide6.QtWidgets import QApplication

        from grpo_desktop.error_handling import install_error_handling, uninstall_error_handling

        app = QApplication.instance() or QApplication([sys.argv[0]])
        app.setStyle("Fusion")
        app.setApplicationName("GRPO Desktop")
        app.setOrganizationName("GRPO Desktop")
        install_error_handling(app, tmp / "grpo-desktop.log")
        from grpo_desktop.model.settings import AppSettings
        from grpo_desktop.window.main_window import MainWindow

        window = MainWindow(settings=AppSettings())
        soak = Soak(app, window, random.Random(seed), tmp, report, trace)
        restore = install_hooks(soak)
        try:
            soak.rollout_paths, report.rollouts = write_rollouts(tmp)
            large = tmp / "rollouts" / "verl-large"
            soak.large_rollouts = large if large.is_dir() else None
            window.resize(1280, 800)
            window.show()
            window.activateWindow()
            app.processEvents()
            window.install_deferred_features()
            window.export_actions.ask_path = export_path(soak)
            report.rss_start = report.rss_peak = rss_bytes()
            kinds = [kind for kind in ACTIONS if kind not in skip]

            def one_step() -> None:
                soak.step += 1
                # A hang (a modal prompt nobody answers, a wait that never ends) prints every
                # thread's stack and exits instead of blocking the run forever.
                faulthandler.dump_traceback_later(STEP_TIMEOUT_S, exit=True)
                if soak.step >= actions or soak.abort:
                    report.aborted = soak.abort
                    app.exit(0)  # not quit(): a window with unsaved changes may refuse that
                    return
                workspace = soak.workbench.workspace
                usable = [k for k in kinds if ACTIONS[k].where is None
                          or workspace in ACTIONS[k].where]
                kind = soak.rng.choices(usable, [ACTIONS[k].weight for k in usable])[0]
                soak.action = kind
                soak.delay_ms = 0
                try:
                    detail = ACTIONS[kind].run(soak)
                except Refused as refusal:
                    detail = f"refused: {refusal}"
                except Exception as error:
                    detail = f"raised {type(error).__name__}"
                    soak.problem("exception", f"{type(error).__name__}: {error}",
                                 traceback.format_exc())
                entry = f"#{soak.step} [{workspace}] {kind}: {detail}"
                soak.history = [*soak.history[-(HISTORY - 1):], entry]
                if trace:
                    print(entry, file=sys.stderr)
                report.by_kind[kind] += 1
                report.actions_done += 1
                app.sendPostedEvents(None, QEvent.Type.DeferredDelete)
                app.processEvents()
                try:
                    check_invariants(soak)
                except Exception as error:
                    soak.problem("exception", f"checking invariants: {type(error).__name__}: "
                                 f"{error}", traceback.format_exc())
                report.rss_peak = max(report.rss_peak, rss_bytes())
                QTimer.singleShot(soak.delay_ms, one_step)

            QTimer.singleShot(0, one_step)
            app.exec()
            faulthandler.dump_traceback_later(STEP_TIMEOUT_S, exit=True)
            soak.step, soak.action = actions, "close window"
            window.close()  # unsaved changes: answered at random, then closed for good
            if window.isVisible():
                window.document.ask_keep_changes = lambda: "discard"
                window.close()
            app.processEvents()
            report.rss_end = rss_bytes()
            report.rss_peak = max(report.rss_peak, report.rss_end)
            report.max_rss = max_rss_bytes()
        finally:
            faulthandler.cancel_dump_traceback_later()
            restore()
            uninstall_error_handling()
            window.deleteLater()
            app.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    report.wall_s = time.perf_counter() - started
    return report


def summary_text(report: Report) -> str:
    """The human summary: actions by kind, each kind of failure with how to replay it, RSS."""
    data = report.as_dict()
    lines = [
        f"soak: {data['actions']} actions, seed {data['seed']}, {data['wall_s']} s",
        "actions by kind: " + ", ".join(f"{k} {v}" for k, v in data["actions_by_kind"].items()),
        "conventions: " + ", ".join(f"{k} {v}" for k, v in data["conventions_used"].items()),
        "workspaces (checks): " + ", ".join(f"{k} {v}" for k, v in
                                            data["workspaces_seen"].items()),
        f"rollouts: {data['rollouts']}",
        f"skipped kinds: {', '.join(data['skipped_kinds']) or 'none'}",
        "problems: " + ", ".join(f"{k} {v}" for k, v in data["counts"].items()),
        "RSS MB: start {start}, peak {peak}, end {end} (ru_maxrss {ru_maxrss})".format(
            **data["rss_mb"]),
    ]
    if data["aborted"]:
        lines.append(f"ABORTED after {data['actions']} actions: {data['aborted']}")
    if data["info_dialogs"]:
        lines.append("dialogs answered (expected): " + ", ".join(
            f"{k} ×{v}" for k, v in sorted(data["info_dialogs"].items())))
    for entry in data["problems"]:
        first = entry["examples"][0]
        lines += [
            "",
            f"== {entry['category']} ×{entry['count']} (first at step {entry['first_step']}, "
            f"action {first['action']}): {first['summary']}",
            f"   replay: {first['replay']}",
            "   last actions:",
            *(f"     {line}" for line in first["history"]),
        ]
        if first["details"]:
            lines += [f"   {line}" for line in first["details"].rstrip().splitlines()[-25:]]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--actions", type=int, default=5000, help="how many actions (5000)")
    parser.add_argument("--seed", type=int, default=1, help="the random seed (1)")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--trace", action="store_true", help="print each action on stderr")
    parser.add_argument(
        "--skip", default="", metavar="KIND,...", help="leave out action kinds (comma-separated)"
    )
    args = parser.parse_args(argv)
    if args.actions < 1:
        parser.error("--actions must be at least 1")
    skip = tuple(kind for kind in args.skip.split(",") if kind)
    if set(skip) - set(ACTIONS):
        parser.error(f"--skip: unknown kind(s); choose from {', '.join(ACTIONS)}")
    faulthandler.enable()  # a crash in Qt still says where it happened
    print(f"soak: {args.actions} actions, seed {args.seed}; problems are listed on stderr as "
          "they happen", file=sys.stderr, flush=True)
    report = run_soak(args.actions, args.seed, args.trace, skip)
    # Flushed at once: after an aborted run the process may still crash on the way out (the
    # freed undo command), and the report must not die in a buffer with it.
    print(json.dumps(report.as_dict(), indent=2) if args.json else summary_text(report),
          flush=True)
    return 1 if report.failed() else 0


if __name__ == "__main__":
    sys.exit(main())
