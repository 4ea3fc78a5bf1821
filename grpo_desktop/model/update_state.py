"""The Update workspace's state: which token is selected, and its snapshot, kept in step.

A plain QObject (no widget), made by :class:`~grpo_desktop.model.workspaces.WorkspaceStates`.
It follows the workbench's main lab and update settings and rebuilds one
:class:`~grpo_desktop.core.update.update_snapshot.UpdateSnapshot` per change, but only while its
gate
(the workspace shown) is open: a click in the lab costs nothing extra when nobody looks at the
update. Selecting a token is presentation, not an edit, so it is not on the undo stack.

When the lab's group was written by the tiny language model, the step runs on the model itself
(:mod:`grpo_desktop.core.tinylm.lm_update`): each checkpoint is loaded once and kept, and the
group's start (its tokens' log-probabilities, the held-out prompts') is read once per group, so
a click pays only for the steps. A checkpoint that cannot be loaded, or a group the model cannot
read, falls back to the stand-in with one plain sentence in the status.

The inner steps leave the click's frame, on the model (its Adam steps) and on the stand-in
(when they cost more than :data:`~grpo_desktop.core.update.update_step.INLINE_COST`, by the
batch's size and the step count, not by a clock: long answers): a change while the workspace
shows emits at once a pending snapshot (the new advantages, step 0's pushes, the status saying
the steps are being taken), then runs the steps in pieces, back to back up to
:data:`TURN_BUDGET_S` per turn of the event loop (a piece is at most one pass of the network or
one evaluation of the loss, so input is served between them), and emits the finished snapshot,
the same numbers as computing it in one go. Both kinds of steps have one interface
(:class:`SteppedUpdate`). A newer change drops the older step's unfinished pieces. Reading
:attr:`UpdateState.snapshot` (an export, a test) finishes the step first. A token click
computes the token's detail and nothing else. Once the page has been idle a moment, the
stand-in's first work for every text a card toggle can bring is done a text per turn, so a
card's first toggle costs what a second one does; then :attr:`UpdateState.toggles_warmed` tells
the views each row's text-to-be, for them to lay out in idle time too.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QObject, QTimer, Signal

from grpo_desktop.core.update.update_snapshot import Spillover, UpdateSnapshot
from grpo_desktop.core.update.update_step import (
    StandinSteps,
    build_update_snapshot,
    toggle_texts,
    toggle_tokens,
    warm_answer,
    with_selection,
)
from grpo_desktop.model.shown_gate import ShownGate
from grpo_desktop.model.workbench import Workbench

if TYPE_CHECKING:  # the tiny model loads the first time a group of its own is shown
    from grpo_desktop.core.lab.lab_snapshot import LabSnapshot
    from grpo_desktop.core.lab.recorded_group import RecordedGroup
    from grpo_desktop.core.tinylm.lm_update import LMUpdateStart
    from grpo_desktop.core.tinylm.model import TinyLM


class SteppedUpdate(Protocol):
    """An update step taken in pieces: the tiny model's
    (:class:`~grpo_desktop.core.tinylm.lm_update.LMUpdateSteps`) or the stand-in's
    (:class:`~grpo_desktop.core.update.update_step.StandinSteps`)."""

    done: bool

    def advance(self) -> bool: ...

    def snapshot(self, selected: tuple[int, int] | None = None) -> UpdateSnapshot: ...

    def pending_snapshot(
        self, selected: tuple[int, int] | None = None, previous: Spillover | None = None
    ) -> UpdateSnapshot: ...

    def with_selection(
        self, snapshot: UpdateSnapshot, selected: tuple[int, int] | None
    ) -> UpdateSnapshot: ...


#: The first piece of a step waits this long, counted from when the click's handling is done
#: (not from when it began: a click that took longer than this on a busy machine would have its
#: frame wait for the first pieces), so the click's frame is painted first.
FIRST_PIECE_DELAY_MS = 20
#: Pieces run back to back in one turn of the event loop until this much time has gone (a
#: piece is at most one pass of the network, a few ms): fewer turns, each within a frame.
TURN_BUDGET_S = 0.008
#: After this long with nothing to do, the stand-in's first work for each text a card toggle can
#: bring is done (its pre-tokens and starting logits), one text per turn of the event loop: a
#: card's first toggle then costs what a second one does (2,000 tokens: about 2 ms less).
WARM_AFTER_MS = 150
#: Texts remembered as warmed (update_step keeps 512 texts' pre-tokens): past this, forgotten.
_WARMED_KEPT = 256


class UpdateState(QObject):
    """The selected token and the latest update snapshot of the workbench's main lab."""

    snapshot_changed = Signal(object)  # UpdateSnapshot
    #: The idle-time work for the texts a toggle can bring is done: for each row, the
    #: pre-tokens of the text a toggle of its card brings (or None), for a view to lay out.
    toggles_warmed = Signal(object)  # tuple[tuple[str, ...] | None, ...]

    def __init__(
        self, workbench: Workbench, parent: QObject | None = None, gate: ShownGate | None = None
    ) -> None:
        super().__init__(parent)
        self._workbench = workbench
        self._selected: tuple[int, int] | None = None
        self._snapshot: UpdateSnapshot | None = None
        self.gate = gate if gate is not None else ShownGate(parent=self)
        self._stale = True
        self._start: tuple[tuple, LMUpdateStart | str] | None = None  # the group's, once
        # The step of the shown snapshot (pending while its pieces run), or None.
        self._steps: SteppedUpdate | None = None
        self._pending = False
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self._next_piece)
        # A zero timer fires once the click's handling has returned: it starts the delay.
        self._arm = QTimer(self)
        self._arm.setSingleShot(True)
        self._arm.setInterval(0)
        self._arm.timeout.connect(self._start_delay)
        self._warm_timer = QTimer(self)
        self._warm_timer.setSingleShot(True)
        self._warm_timer.timeout.connect(self._warm_next)
        self._to_warm: list[str] = []
        self._warmed: set[str] = set()  # texts warm_answer has run on (a bounded memory)
        workbench.lab.snapshot_changed.connect(self._invalidate)
        workbench.update_settings_changed.connect(self._invalidate)
        self.gate.call(self, self._catch_up)  # built the first time the workspace shows

    @property
    def snapshot(self) -> UpdateSnapshot:
        """The current snapshot, built now if a change arrived while the workspace was hidden;
        a step still running is finished first (and its snapshot emitted)."""
        if self._pending:
            self._finish()
        if self._stale or self._snapshot is None:
            self._rebuild(emit=False)
        assert self._snapshot is not None
        return self._snapshot

    @property
    def pending(self) -> bool:
        """Whether the inner steps for the shown snapshot are still running."""
        return self._pending

    @property
    def warming(self) -> bool:
        """Whether idle-time work for the texts a card toggle can bring is still waiting."""
        return bool(self._to_warm) and self._warm_timer.isActive()

    @property
    def selected(self) -> tuple[int, int] | None:
        return self._selected

    def set_shown(self, shown: bool) -> None:
        """Whether the workspace is on screen; showing it brings a stale snapshot up to date."""
        self.gate.set_shown(shown)

    def select(self, row: int, column: int) -> None:
        """Show the whole computation of token ``column`` of answer ``row`` (the rest of the
        snapshot is kept as it is: a selection computes the detail and nothing else)."""
        if (row, column) == self._selected:
            return
        self._selected = (row, column)
        if self._stale or self._snapshot is None:
            self._rebuild()
            return
        snapshot = self._snapshot
        if self._steps is not None:
            snapshot = self._steps.with_selection(snapshot, self._selected)
        else:
            lab = self._workbench.lab.snapshot
            snapshot = with_selection(snapshot, lab, snapshot.settings, self._selected)
        if snapshot.selected is None:
            self._selected = None
        self._snapshot = snapshot
        self.snapshot_changed.emit(snapshot)

    def _invalidate(self, *_args: object) -> None:
        self._stale = True
        self._drop_steps()  # a newer change: the older step's numbers would be stale
        self.gate.call(self, self._catch_up)

    def _catch_up(self) -> None:
        if self._stale:
            self._rebuild(progressive=True)

    def _rebuild(self, emit: bool = True, progressive: bool = False) -> None:
        self._drop_steps()
        snapshot = self._build(progressive)
        if snapshot.selected is None:
            self._selected = None  # the group shrank past the selected token
        self._snapshot = snapshot
        self._stale = False
        if emit:
            self.snapshot_changed.emit(snapshot)
        if not self._pending:
            self._warm_later()

    def _build(self, progressive: bool = False) -> UpdateSnapshot:
        lab = self._workbench.lab.snapshot
        settings = self._workbench.update_settings
        recorded = lab.recorded
        if recorded is None or not recorded.from_model:
            steps = StandinSteps(lab, settings)
            if not progressive or steps.inline:  # cheap or kept: taken inside the click
                return build_update_snapshot(lab, settings, self._selected)
            return self._begin(steps)
        start = self._start_for(recorded)
        if not isinstance(start, str):
            from grpo_desktop.core.tinylm.lm_update import LMUpdateSteps

            try:
                steps = LMUpdateSteps(start, lab, settings)
                if not progressive or steps.done:
                    snapshot = steps.snapshot(self._selected)
                    self._steps = steps  # kept for a token click's detail
                    return snapshot
                return self._begin(steps)
            except ValueError as error:
                start = f"The tiny model cannot step this group ({error})"
        return self._on_standin(lab, f"{start}, so the step runs on the stand-in policy.")

    def _begin(self, steps: SteppedUpdate) -> UpdateSnapshot:
        """The pending snapshot of ``steps``, whose pieces start after the click's frame."""
        previous = None if self._snapshot is None else self._snapshot.spillover
        snapshot = steps.pending_snapshot(self._selected, previous)
        self._steps, self._pending = steps, True
        self._arm.start()
        return snapshot

    def _start_delay(self) -> None:
        if self._pending:
            self._timer.start(FIRST_PIECE_DELAY_MS)

    def _next_piece(self) -> None:
        """Pieces of the step for one turn of the event loop; the finished snapshot (built and
        shown) in a turn of its own after the last piece, so no turn holds both."""
        steps = self._steps
        if steps is None or not self._pending:
            return
        if steps.done:
            self._finish()
            return
        began = time.perf_counter()
        while not steps.advance():
            if time.perf_counter() - began >= TURN_BUDGET_S:
                break
        self._timer.start(0)  # the next pieces, or the finished snapshot, at the next turn

    def _finish(self) -> None:
        """Run the step to its end and show the finished snapshot."""
        steps = self._steps
        self._arm.stop()
        self._timer.stop()
        self._pending = False
        if steps is None:
            return
        snapshot = steps.snapshot(self._selected)
        if snapshot.selected is None:
            self._selected = None
        self._snapshot = snapshot
        self.snapshot_changed.emit(snapshot)
        self._warm_later()

    def _warm_later(self) -> None:
        """The stand-in's first work for the texts a toggle can bring, once things are quiet;
        when every one has had it already, the views are told each row's text-to-be now (their
        own idle work for it waits for a turn of its own)."""
        lab = self._workbench.lab.snapshot
        if lab.recorded is not None:
            self._to_warm = []
            return
        self._to_warm = [text for text in toggle_texts(lab) if text not in self._warmed]
        if self._to_warm:
            self._warm_timer.start(WARM_AFTER_MS)
        else:
            self.toggles_warmed.emit(toggle_tokens(lab))

    def _warm_next(self) -> None:
        if self._pending or self._stale or not self._to_warm:
            return
        text = self._to_warm.pop()
        warm_answer(text)
        if len(self._warmed) >= _WARMED_KEPT:
            self._warmed.clear()  # the caches behind it keep a few hundred texts, not more
        self._warmed.add(text)
        if self._to_warm:
            self._warm_timer.start(0)  # one text per turn: input between them
            return
        self.toggles_warmed.emit(toggle_tokens(self._workbench.lab.snapshot))

    def _drop_steps(self) -> None:
        """Forget the shown snapshot's step; a step still running is dropped unfinished."""
        self._warm_timer.stop()
        self._arm.stop()
        self._timer.stop()
        self._steps, self._pending = None, False

    def _on_standin(self, lab: LabSnapshot, why: str) -> UpdateSnapshot:
        snapshot = build_update_snapshot(lab, self._workbench.update_settings, self._selected)
        return replace(snapshot, status=why)

    def _start_for(self, recorded: RecordedGroup) -> LMUpdateStart | str:
        """The group read by its checkpoint's model (kept while the group stays), or why not."""
        key = (recorded.file_name, recorded.prompt, recorded.texts)
        if self._start is not None and self._start[0] == key:
            return self._start[1]
        model = self._model_for(recorded.file_name)
        if isinstance(model, str):
            start: LMUpdateStart | str = model
        else:
            from grpo_desktop.core.tinylm.lm_update import LMUpdateStart

            try:
                start = LMUpdateStart(model, recorded.prompt, recorded.texts)
            except ValueError as error:
                start = f"The tiny model cannot read this group ({error})"
        self._start = (key, start)
        return start

    def _model_for(self, file_name: str) -> TinyLM | str:
        """The checkpoint's model, loaded once per name, or why it cannot be (a failure is tried
        again with the next group: the file may have been put right)."""
        from grpo_desktop.core.tinylm.lab_group import group_model

        try:
            return group_model(file_name)
        except (ValueError, OSError) as error:  # CheckpointError: one line that names the file
            return f"The group's checkpoint cannot be loaded ({error})"
