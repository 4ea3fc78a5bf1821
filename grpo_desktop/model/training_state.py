"""The Training workspace's state: the run, playing or paused, and what the user looks at.

A plain QObject (no widget), made by :class:`~grpo_desktop.model.workspaces.WorkspaceStates`.
The run itself is pure numpy (:mod:`grpo_desktop.core.training.run`);
this object plays it with a timer that keeps time: each 60 Hz tick takes the steps the wall clock
says are due (a late tick takes the ones it missed), within a budget that leaves the frame to
clicks and drawing, and closing the window mid-run just stops the timer. At most one snapshot per
frame, built in an event-loop turn of its own after the steps, each step taken a part per turn
too (its random numbers and one algorithm, then each other algorithm: a click waits behind one
algorithm's share of a step, about a millisecond, never a whole step), all posted below Qt's
repaints (a click's marker is painted before them), and none while the run is behind the clock:
a late frame drops a draw, never a step. A chosen step or focus costs only what it changes: the
snapshot shown is sent again with new dots, groups and caption and the same bands
(``rechoose_training_snapshot``), at once even while steps wait to be drawn (the frame's draw
then shows them with the choice); a new focus while steps wait rides with that draw. Snapshots
are built only while its gate (the workspace shown) is open; a hidden run pauses. Playing, the
speed and what is looked at are presentation, not edits; the run's configuration lives in the
workbench, as an undoable edit that restarts the run.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import replace

from PySide6.QtCore import QCoreApplication, QEvent, QObject, Qt, QTimer, Signal

from grpo_desktop.core.lab.lab_rewards import RewardWeights
from grpo_desktop.core.training.computed_runs import run_computed_to
from grpo_desktop.core.training.run import ALGORITHM_INFO, TrainingConfig, TrainingRun
from grpo_desktop.core.training.training_config import refused_change_text
from grpo_desktop.core.training.training_snapshot import (
    TrainingSnapshot,
    build_training_snapshot,
    rechoose_training_snapshot,
    shown_focus,
)
from grpo_desktop.model.shown_gate import ShownGate
from grpo_desktop.model.workbench import Workbench

FRAME_S = 1 / 60  # one 60 Hz frame: ticks keep to it exactly (16 ms ticks drift 4 % ahead)
STEP_BUDGET_S = 0.008  # steps stop once a tick has spent this much (at least one is taken)
# Behind the clock by more than this (a machine too slow for the speed): the run lets the rest
# go rather than racing to catch up, so it never lags what the lecturer asked for by more.
MAX_BEHIND_S = 0.25
MAX_SKIPPED_DRAWS = 3  # behind the clock, at most this many frames in a row go undrawn
MIN_SPEED, MAX_SPEED, DEFAULT_SPEED = 1, 240, 30  # steps per second
# Runs of earlier settings, kept so Undo (or asking for those settings again) brings back the
# run as it was, steps and all, at once: at most this many, holding at most this much memory.
KEPT_RUNS = 8
KEPT_RUN_BYTES = 128 * 2**20
# An algorithm ticked mid-run is computed up to the run's step at once when that samples at most
# this many answers (about 0.8 s: the default run's 200 steps); past it the run starts afresh.
CATCH_UP_ANSWERS = 110_000
# A frame's steps and its draw are events posted below Qt's low priority, which its repaints
# (UpdateRequest) use: a click's marker already waiting to be painted is painted first, not after
# a step (4 ms) and a whole draw (5 ms) that came due meanwhile.
_AFTER_PAINTS = Qt.EventPriority.LowEventPriority.value - 1
_TICK = QEvent.Type(QEvent.registerEventType())
_DRAW = QEvent.Type(QEvent.registerEventType())
_PART = QEvent.Type(QEvent.registerEventType())
#: What a run is made from: its configuration, then the convention and reward it is given.
_RunInputs = tuple[TrainingConfig, str, RewardWeights]


class TrainingState(QObject):
    """The workbench's training run, played in frame-sized chunks."""

    snapshot_changed = Signal(object)  # TrainingSnapshot
    playing_changed = Signal(bool)

    def __init__(
        self,
        workbench: Workbench,
        parent: QObject | None = None,
        gate: ShownGate | None = None,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        super().__init__(parent)
        self._workbench = workbench
        self._clock = clock  # seconds, monotonic: what playback keeps time by (tests drive it)
        self.run = TrainingRun(*self._run_inputs())
        self._playing = False
        self._speed = DEFAULT_SPEED
        self._metric = "degenerate_fraction"
        self._focus: str | None = None
        self._selected_step: int | None = None
        self._refusal = ""  # why the last settings edit was not applied, until the next one
        self.gate = gate if gate is not None else ShownGate(parent=self)
        self._stale = True
        self._origin = 0.0  # when playing (at this speed) began: steps are due from here
        self._played = 0  # steps taken since _origin
        self._next_frame = 0.0  # when the next tick is due, on a fixed 60 Hz grid
        self._draw_pending = False  # a draw is posted for the next event-loop turn
        self._skipped_draws = 0  # frames in a row left undrawn while behind the clock
        self._frame_due = 0  # steps the frame under way still owes
        self._frame_deadline = 0.0  # when its step budget is spent
        self._frame_stepped = False  # it took a step
        self._frame_serial = 0  # counts plays: a step posted before a pause is not taken
        self._part_of = -1  # the play the posted step belongs to
        self._choices = 0  # steps and focuses chosen from the snapshot shown, so far
        self._posted_at: dict[QEvent.Type, int] = {}  # a frame's posted work: _choices then
        self._undrawn = False  # steps taken that no emitted snapshot shows yet
        self._snapshot: TrainingSnapshot | None = None
        self._built_from: tuple[TrainingRun, int] | None = None  # the run and step it shows
        # config → (run, selected step): runs of earlier settings, oldest first
        self._kept: dict[_RunInputs, tuple[TrainingRun, int | None]] = {}
        self._timer = QTimer(self)
        self._timer.setTimerType(Qt.TimerType.PreciseTimer)  # frames at 60 Hz, not ±5 % slack
        self._timer.setSingleShot(True)  # each tick arms the next one for the next frame's time
        self._timer.timeout.connect(self._tick_after_paints)
        workbench.training_config_changed.connect(self._restart)
        workbench.convention_changed.connect(self._restart)  # GRPO's and DAPO's convention
        # The reward weights are the main lab's: a weight change restarts the run; a card click
        # (the same signal) does not.
        workbench.lab.snapshot_changed.connect(self._lab_changed)
        self.gate.shown_changed.connect(self._shown_changed)
        self.gate.call(self, self._catch_up)  # built the first time the workspace shows

    # --- reading ----------------------------------------------------------------------------

    @property
    def playing(self) -> bool:
        return self._playing

    @property
    def speed(self) -> int:
        return self._speed

    @property
    def snapshot(self) -> TrainingSnapshot:
        if self._stale or self._snapshot is None:
            self._rebuild(emit=False)
        assert self._snapshot is not None
        return self._snapshot

    # --- requests ---------------------------------------------------------------------------

    def set_shown(self, shown: bool) -> None:
        """On screen or not; a hidden workspace pauses (nobody watches it play)."""
        self.gate.set_shown(shown)

    def set_playing(self, playing: bool) -> None:
        if playing and self.run.finished:
            return
        if playing == self._playing:
            return
        self._playing = playing
        self._frame_serial += 1
        if playing:
            now = self._clock()
            self._keep_time_from(now)
            self._next_frame = now + FRAME_S
            self._arm(now)
        else:
            self._timer.stop()
        self.playing_changed.emit(playing)
        self._invalidate()

    def request_config(self, config: TrainingConfig) -> None:
        """A settings edit: applied as an undoable edit (which restarts the run), or refused
        with a sentence the controls show beside the settings still in force (a snapshot is
        sent either way, so a control the user moved shows the value in force again)."""
        current = self._workbench.training_config
        refusal = refused_change_text(current, config)
        if not refusal:
            cleared = bool(self._refusal)
            self._refusal = ""
            try:
                self._workbench.set_training_config(config)  # a change restarts: a snapshot
            except ValueError as error:  # a check the sentence does not know of
                refusal = f"These settings were not applied: {error}."
            else:
                if cleared and config == current:
                    self._invalidate()  # nothing restarted: the old sentence must go
                return
        self._refusal = refusal
        self._stale = True
        self._rebuild()  # even hidden: the control that asked must show the value in force

    def step_once(self) -> None:
        """One step of every algorithm, paused."""
        self.set_playing(False)
        self.run.step()
        self._invalidate()

    def reset(self) -> None:
        """Back to step 0 with the same configuration (the same seeds: the same run again)."""
        self.set_playing(False)
        self.run = TrainingRun(*self._run_inputs())
        self._selected_step = None
        self._refusal = ""
        self._invalidate()

    def set_speed(self, steps_per_second: int) -> None:
        speed = max(MIN_SPEED, min(MAX_SPEED, int(steps_per_second)))
        if speed != self._speed and self._playing:
            self._keep_time_from(self._clock())  # the new speed counts from now
        self._speed = speed
        self._invalidate()

    def set_metric(self, metric: str) -> None:
        self._metric = metric
        self._invalidate()

    def set_focus(self, algorithm: str) -> None:
        """The algorithm whose problems the frontier's dots show (and whose band shades)."""
        if algorithm != self._focus:
            self._focus = algorithm
            self._choose()

    def select_step(self, step: int) -> None:
        """Mark ``step`` on the charts (its groups can then be opened in the lab)."""
        if 1 <= step <= self.run.step_count and step != self._selected_step:
            self._selected_step = step
            self._choose()

    def open_group(self, index: int) -> None:
        """Show group ``index`` of the selected step (focus algorithm, first seed) in the lab."""
        snapshot = self.snapshot
        step = snapshot.selected_step
        if step is None:
            return
        groups = self.run.groups(snapshot.focus, step, 0)
        if 0 <= index < len(groups):
            label = ALGORITHM_INFO[snapshot.focus].label
            title = f"{label}, step {step}, group {index + 1}"
            self._workbench.open_training_group(groups[index], title)

    def show_step(self, steps: int, focus: str, metric: str) -> None:
        """The run from step 0 under the configuration in force, computed to ``steps``, paused,
        with ``metric`` on the second chart and ``focus`` on the frontier's dots (a lesson's
        training step: the same picture whichever way the lecturer paged)."""
        self.set_playing(False)
        self.run = run_computed_to(*self._run_inputs(), steps)  # a visit again: no recompute
        self._selected_step = None
        self._refusal = ""
        self.set_focus(focus)
        self.set_metric(metric)  # the last request rebuilds the snapshot for the run shown

    def stop(self) -> None:
        """Stop the timer for good (the window is closing)."""
        self._timer.stop()
        self._playing = False

    # --- playing ----------------------------------------------------------------------------

    def tick(self) -> None:
        """One frame of playing: take the steps due by the clock since play began, stopping
        once the frame's step budget is spent (a step or more is left for the next tick, not
        dropped), then draw once in a turn of its own; while the run is behind the clock the
        draw is dropped instead (at most MAX_SKIPPED_DRAWS in a row), so the steps catch up
        first. The timer's frames take the same steps a part per event-loop turn (one
        algorithm's share of a step: a click waiting goes in between); this takes them at once."""
        if self._begin_frame():
            while self._frame_step():
                pass
            self._end_frame()

    def _begin_frame(self) -> bool:
        if not self._playing:
            return False
        now = self._clock()
        self._frame_due = self._steps_due(now)
        self._frame_deadline = now + STEP_BUDGET_S
        self._frame_stepped = False
        return True

    def _frame_step(self) -> bool:
        """One of the frame's steps due, whole; whether another may follow within its budget."""
        if self._frame_due <= 0 or self.run.finished:
            return False
        self.run.step()  # (or the rest of a step begun part by part)
        return self._stepped()

    def _frame_step_part(self) -> bool:
        """A part of the frame's steps due (one algorithm's share of a step); whether another
        part may follow: the rest of the step, or the next step within the frame's budget. A
        step begun before a pause is finished first, and counts as one of the steps due."""
        run = self.run
        if not run.stepping and (self._frame_due <= 0 or run.finished):
            return False
        if not run.step_part():
            return True  # the step goes on in the next part
        return self._stepped()

    def _stepped(self) -> bool:
        """Count a step taken whole; whether another may follow within the frame's budget."""
        self._played += 1
        self._frame_due -= 1
        self._frame_stepped = True
        return (
            self._frame_due > 0 and not self.run.finished and self._clock() <= self._frame_deadline
        )

    def _end_frame(self) -> None:
        if self.run.finished:
            self.set_playing(False)  # the last snapshot, at once
            return
        if self._frame_stepped:
            self._stale = True
            self._undrawn = True
            if self._frame_due > 0 and self._skipped_draws < MAX_SKIPPED_DRAWS:
                self._skipped_draws += 1  # behind the clock: this frame's draw goes
            else:
                self._post_draw()
        later = self._clock()
        self._next_frame += FRAME_S
        if self._next_frame <= later:
            # The frame overran (a step's parts, and the clicks and paints between them, took
            # longer than a frame): the next tick is the grid's next frame, not a whole frame
            # from now, so a slow step costs its own time and the set speed is kept.
            self._next_frame += (math.floor((later - self._next_frame) / FRAME_S) + 1) * FRAME_S
        self._arm(later)

    def _tick_after_paints(self) -> None:
        self._post(_TICK)

    def _post(self, kind: QEvent.Type) -> None:
        """Post a frame's work (its steps, its draw) after the repaints waiting."""
        self._posted_at[kind] = self._choices
        QCoreApplication.postEvent(self, QEvent(kind), _AFTER_PAINTS)

    def _frame_part(self) -> None:
        """A part of the timer's frame's steps, in a turn of its own; the next one posted after
        it (a click posted meanwhile goes first), or the frame's end once its steps are taken."""
        if self._frame_step_part():
            self._part_of = self._frame_serial
            self._post(_PART)
        else:
            self._end_frame()

    def customEvent(self, event: QEvent) -> None:  # Qt override
        kind = event.type()
        if self._posted_at.get(kind, self._choices) != self._choices:
            # A step or focus was chosen since this was posted (in the same turn of the event
            # loop, ahead of it): its repaint, posted meanwhile, goes first, then this.
            self._post(kind)
            return
        if kind == _TICK:
            if self._begin_frame():
                self._frame_part()
        elif kind == _PART:
            if self._playing and self._part_of == self._frame_serial:
                self._frame_part()
        elif kind == _DRAW:
            self._draw()
        else:
            super().customEvent(event)

    def _keep_time_from(self, now: float) -> None:
        self._origin = now
        self._played = 0

    def _steps_due(self, now: float) -> int:
        """Steps the clock asks for beyond those taken: the speed times the time since play
        began, to the nearest frame (a tick a little early still shows its frame's step), and
        never more than MAX_BEHIND_S's worth (past it, the clock is let go)."""
        target = math.floor((now - self._origin + FRAME_S / 2) * self._speed)
        behind = target - self._played
        most = max(1, math.ceil(self._speed * MAX_BEHIND_S))
        if behind > most:
            self._origin += (behind - most) / self._speed
            behind = most
        return behind

    def _arm(self, now: float) -> None:
        self._timer.start(max(1, round((self._next_frame - now) * 1000)))

    def _post_draw(self) -> None:
        """Draw the steps taken in the next event-loop turn (a click waiting now goes first, and
        so does a repaint waiting)."""
        self._skipped_draws = 0
        if not self._draw_pending:
            self._draw_pending = True
            self._post(_DRAW)

    def _draw(self) -> None:
        self._draw_pending = False
        if self._undrawn:  # not drawn meanwhile (a click's snapshot shows them too)
            self._stale = True  # even if the snapshot was read (built, not shown) meanwhile
            self.gate.call(self, self._catch_up)

    def _run_inputs(self) -> _RunInputs:
        """The workbench's run configuration, given GRPO's (and DAPO's) advantages in the
        workbench's one convention and each answer rewarded with the main lab's reward weights:
        the convention and the reward on screen are the ones the run uses."""
        workbench = self._workbench
        return workbench.training_config, workbench.convention, workbench.lab.weights

    def _lab_changed(self, *_snapshot: object) -> None:
        """The main lab changed: restart only if its reward weights did (not on a card click)."""
        if self._workbench.lab.weights != self.run.reward_weights:
            self._restart()

    def _restart(self, *_changed: object) -> None:
        """A new configuration, convention or reward: the run for it, paused.

        The run of these very settings if one was kept (Undo brings back what was on screen,
        steps and chosen step included); the same run at the same step when only the algorithms
        changed (each algorithm's numbers are its own: unticking one removes its line, ticking
        one computes it up to here when that is quick); otherwise a fresh run, which answers
        another question. The run replaced is kept for a later Undo.
        """
        self.set_playing(False)
        inputs = self._run_inputs()
        config = inputs[0]
        old = self.run
        self._refusal = ""
        if inputs == _inputs_of(old):
            self._invalidate()
            return
        kept = self._kept.pop(inputs, None)
        self._keep(old, self._selected_step)
        if kept is not None:
            self.run, self._selected_step = kept
        elif (
            _inputs_of(old)[1:] == inputs[1:]
            and _only_algorithms_differ(old.config, config)
            and _quick_catch_up(old, config)
        ):
            self.run = old.with_algorithms(config.algorithms)
            if self._selected_step is not None and self._selected_step > self.run.step_count:
                self._selected_step = None
        else:
            self.run = TrainingRun(*inputs)
            self._selected_step = None
        self._invalidate()

    def _keep(self, run: TrainingRun, selected_step: int | None) -> None:
        """Keep ``run`` for its settings, dropping the oldest kept runs past the bounds (a run
        not started yet costs nothing to make again: not kept)."""
        if run.step_count == 0:
            return
        self._kept[_inputs_of(run)] = (run, selected_step)
        total = sum(kept.nbytes for kept, _ in self._kept.values())
        while self._kept and (len(self._kept) > KEPT_RUNS or total > KEPT_RUN_BYTES):
            oldest = next(iter(self._kept))
            total -= self._kept.pop(oldest)[0].nbytes

    def _shown_changed(self, shown: bool) -> None:
        if not shown:
            self.set_playing(False)

    def _invalidate(self) -> None:
        self._stale = True
        self.gate.call(self, self._catch_up)

    def _choose(self) -> None:
        """A chosen step or focus: only what it changes. The snapshot kept, when it shows this
        run as it is, or as it was before the steps a frame's draw is about to show, is sent
        again with the new dots, groups and caption and the very same bands (the views leave
        the curves alone and move the marker: a click is painted at once, not after the
        draw); the draw then shows the new steps with the choice. A new focus while steps wait
        to be drawn rides with that draw instead (its status sentence is about the last step)."""
        if self._can_rechoose() and self.gate.shown:
            self._snapshot = rechoose_training_snapshot(
                self._snapshot,
                self.run,
                focus=self._focus,
                selected_step=self._selected_step,
            )
            # Built from the run as it is, it shows every step taken; else the draw will.
            self._undrawn = self._snapshot.steps_done != self.run.step_count
            self._choices += 1  # a frame's work posted before this waits for its repaint
            self.snapshot_changed.emit(self._snapshot)
        elif self._playing and self._undrawn and self.gate.shown:
            self._stale = True
            self._post_draw()
        else:
            self._invalidate()

    def _can_rechoose(self) -> bool:
        """Whether the snapshot kept was built from this run and nothing but steps (waiting for
        their draw) came since: a chosen step (and, when it shows the run's last step, a chosen
        focus) can then be worked out from it."""
        built = self._built_from
        if self._snapshot is None or built is None or built[0] is not self.run:
            return False
        now = built[1] == self.run.step_count
        if now and not self._stale:
            return True
        focus = shown_focus(self.run.config, self._focus)
        return self._undrawn and focus == self._snapshot.focus

    def _catch_up(self) -> None:
        if self._stale:
            self._rebuild()

    def _rebuild(self, emit: bool = True) -> None:
        self._snapshot = build_training_snapshot(
            self.run,
            playing=self._playing,
            metric=self._metric,
            focus=self._focus,
            selected_step=self._selected_step,
            refusal=self._refusal,
        )
        self._built_from = (self.run, self.run.step_count)
        self._stale = False
        if emit:
            self._undrawn = False
            self.snapshot_changed.emit(self._snapshot)


def _inputs_of(run: TrainingRun) -> _RunInputs:
    """What ``run`` was made from: its config, convention and reward weights."""
    return run.config, run.convention, run.reward_weights


def _only_algorithms_differ(first: TrainingConfig, second: TrainingConfig) -> bool:
    return replace(first, algorithms=second.algorithms) == second


def _quick_catch_up(run: TrainingRun, config: TrainingConfig) -> bool:
    """Whether the algorithms ``config`` adds to ``run`` can be computed up to its step at once
    (measured: one algorithm, DAPO included, ~0.8 s for the default run's 200 steps)."""
    added = sum(name not in run.config.algorithms for name in config.algorithms)
    per_step = config.seeds * config.batch * config.group_size
    return added * per_step * run.step_count <= CATCH_UP_ANSWERS
