"""The Training workspace's state on the tiny language model: a GRPO run in a worker process.

A plain QObject (no widget), made by :class:`~grpo_desktop.model.workspaces.WorkspaceStates`.
A step of the network takes a fifth of a second or more, far past a frame, so the run lives in a
process of its own (:class:`~grpo_desktop.model.lm_run_process.LMRunProcess`): on a thread it
shared the interpreter lock with the GUI, and clicks while it trained took 22–36 ms at p95. The
state sends play / pause / step and keeps the records the worker sends back; every snapshot is
built from those records on the GUI thread. A restart (Reset, a settings, policy, convention or
reward-weight change) releases the old worker, which quits after its step on its own time, and
starts a new one: nothing waits for a step to end.

Records are read in one event-loop turn and drawn in the next: records read together (a step and
the idle after it) make one snapshot, and a click waits behind the reading or the drawing, never
both. Snapshots are built only while the workspace shows on the tiny model (its gate); hidden,
the run pauses. ``stop()`` (the window closing) ends the worker within a second.
"""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import QObject, QTimer, Signal

from grpo_desktop.core.tinylm.grpo_config import LMTrainingConfig
from grpo_desktop.core.tinylm.lm_run_snapshot import (
    LMRunSnapshot,
    ModelFacts,
    build_lm_run_snapshot,
    lm_group_as_recorded,
)
from grpo_desktop.core.tinylm.records import EvalMetrics, LMGroup, StepMetrics
from grpo_desktop.model.lm_run_process import Failed, Idle, LMRunProcess, Loaded, Stepped
from grpo_desktop.model.shown_gate import ShownGate
from grpo_desktop.model.workbench import Workbench


class LMTrainingState(QObject):
    """The workbench's tiny-model run: played in a worker process, rendered from its records."""

    snapshot_changed = Signal(object)  # LMRunSnapshot
    playing_changed = Signal(bool)

    def __init__(
        self, workbench: Workbench, parent: QObject | None = None, gate: ShownGate | None = None
    ) -> None:
        super().__init__(parent)
        self._workbench = workbench
        # The workspace's gate (shown or not) and the policy (the tiny model or not) make this
        # state's own gate: only both open it.
        self._workspace_gate = gate if gate is not None else ShownGate(True, self)
        self.gate = ShownGate(False, self)
        self._process: LMRunProcess | None = None  # the run's worker, started when shown
        self._retiring: list[LMRunProcess] = []  # replaced runs' workers, quitting
        self._exited: list[LMRunProcess] = []  # ... and those that have quit
        self._busy = False  # a play or step was sent and the worker has not said idle since
        self._playing = False
        self._metric = "reward_mean"
        self._selected_step: int | None = None
        self._refusal = ""
        self._snapshot: LMRunSnapshot | None = None
        self._stale = True
        self._draw_pending = False  # a draw of the records read is posted for the next turn
        self._undrawn = False  # records read that no emitted snapshot shows yet
        self._new_run()
        workbench.lm_training_config_changed.connect(self._restart)
        workbench.policy_changed.connect(self._policy_changed)
        workbench.convention_changed.connect(self._restart)
        workbench.lab.snapshot_changed.connect(self._lab_changed)
        self._workspace_gate.shown_changed.connect(self._follow_gates)
        self.gate.shown_changed.connect(self._shown_changed)
        self._follow_gates()

    # --- reading ----------------------------------------------------------------------------

    @property
    def config(self) -> LMTrainingConfig:
        """The run's configuration: the workbench's, with its convention and reward weights."""
        return self._config

    @property
    def playing(self) -> bool:
        return self._playing

    @property
    def busy(self) -> bool:
        """The worker is loading, stepping, or finishing a step after a pause."""
        return self._busy or (self._process is not None and self._facts is None and not self._error)

    @property
    def step_count(self) -> int:
        return self._metrics[-1].step if self._metrics else 0

    @property
    def metrics(self) -> tuple[StepMetrics, ...]:
        return tuple(self._metrics)

    @property
    def evals(self) -> tuple[EvalMetrics, ...]:
        return tuple(self._evals)

    @property
    def groups(self) -> tuple[tuple[LMGroup, ...], ...]:
        return tuple(self._groups)

    @property
    def snapshot(self) -> LMRunSnapshot:
        if self._stale or self._snapshot is None:
            self._rebuild(emit=False)
        assert self._snapshot is not None
        return self._snapshot

    # --- requests ---------------------------------------------------------------------------

    def set_playing(self, playing: bool) -> None:
        """Play (steps on the worker until paused or finished) or pause (the step under way
        ends on the worker; its records still arrive)."""
        if playing and (self._error or self._finished() or not self.gate.shown):
            playing = False
        if playing == self._playing:
            return
        self._playing = playing
        if playing:
            self._send("play")
        elif self._process is not None:
            self._process.send("pause")
        self.playing_changed.emit(playing)
        self._invalidate()

    def toggle_playing(self) -> None:
        self.set_playing(not self._playing)

    def step_once(self) -> None:
        """One step, paused (nothing once the run is finished)."""
        self.set_playing(False)
        if self._error or self._finished() or not self.gate.shown:
            return
        self._send("step")

    def reset(self) -> None:
        """Back to step 0 with the same settings (the same seed: the same run again)."""
        self.set_playing(False)
        self._selected_step = None
        self._refusal = ""
        self._new_run()
        self._invalidate()
        self._prepare_when_shown()

    def request_config(self, config: LMTrainingConfig) -> None:
        """A settings edit: an undoable edit in the workbench (which restarts the run), or a
        sentence beside the settings still in force when it is refused."""
        try:
            self._workbench.set_lm_training_config(config)
        except ValueError as error:
            self._refusal = f"These settings were not applied: {str(error).rstrip('.')}."
        else:
            self._refusal = ""
        self._stale = True
        self._rebuild()  # even hidden: the control that asked shows the value in force

    def set_metric(self, metric: str) -> None:
        if metric != self._metric:
            self._metric = metric
            self._invalidate()

    def select_step(self, step: int) -> None:
        """List ``step``'s groups (from 1 to the last step taken)."""
        if 1 <= step <= self.step_count and step != self._selected_step:
            self._selected_step = step
            self._invalidate()

    def open_group(self, index: int) -> None:
        """Show group ``index`` of the listed step in the Lab, as the model wrote it."""
        step = self.snapshot.selected_step
        if step is None or not 1 <= step <= len(self._groups):
            return
        groups = self._groups[step - 1]
        if not 0 <= index < len(groups):
            return
        facts = self._facts
        recorded = lm_group_as_recorded(
            groups[index],
            step=step,
            index=index,
            count=len(groups),
            checkpoint=self._workbench.policy.checkpoint,
            parameters=None if facts is None else facts.parameters,
            temperature=self._config.temperature,
        )
        self._workbench.open_recorded_group(recorded)

    def wait(self, timeout: float = 30.0) -> bool:
        """Block until the worker is idle (tests and benchmarks); False on timeout."""
        import time

        deadline = time.monotonic() + timeout
        while self.busy and self._process is not None and time.monotonic() < deadline:
            self._process.wait_for_output(max(1, round((deadline - time.monotonic()) * 1000)))
        return not self.busy

    @property
    def worker_pid(self) -> int | None:
        """The worker process's id while it runs (the run is never in the GUI's process)."""
        if self._process is None or not self._process.running:
            return None
        return int(self._process.process.processId())

    def stop(self) -> None:
        """The window is closing: the worker ends within a second."""
        self._playing = False
        self._busy = False
        for process in [*self._retiring, self._process]:
            if process is not None:
                process.stop()
        self._retiring.clear()
        self._process = None

    # --- jobs -------------------------------------------------------------------------------

    def _new_run(self) -> None:
        """A fresh run for the workbench's settings; its worker starts when first needed."""
        workbench = self._workbench
        self._config = replace(
            workbench.lm_training_config,
            convention=workbench.convention,
            reward_weights=workbench.lab.weights,
        )
        self._checkpoint = workbench.policy.checkpoint
        self._release_process()
        self._metrics: list[StepMetrics] = []
        self._evals: list[EvalMetrics] = []
        self._groups: list[tuple[LMGroup, ...]] = []
        self._facts: ModelFacts | None = None
        self._error = ""

    def _release_process(self) -> None:
        """The old run's worker quits after its step on its own; its records are not read."""
        for process in self._exited:
            process.deleteLater()
        self._exited = []
        old = self._process
        if old is not None:
            old.record.disconnect(self._receive)
            old.release()
            if old.running:
                self._retiring.append(old)
                old.ended.connect(self._retired)
            else:
                old.setParent(None)  # gone with its last reference
            self._process = None
        self._busy = False

    def _retired(self) -> None:
        """A replaced run's worker has exited: deleted at the next restart (not from inside
        its own signal)."""
        self._exited += [process for process in self._retiring if not process.running]
        self._retiring = [process for process in self._retiring if process.running]

    def _finished(self) -> bool:
        return self.step_count >= self._config.steps

    def _send(self, command: str) -> None:
        self._ensure_process()
        assert self._process is not None
        self._busy = True
        self._process.send(command)

    def _ensure_process(self) -> None:
        if self._process is None:
            self._process = LMRunProcess(self._config, self._checkpoint, self)
            self._process.record.connect(self._receive)

    def _prepare_when_shown(self) -> None:
        """Start the worker (it loads and measures the model) once the workspace shows."""
        self.gate.call((self, "prepare"), self._prepare)

    def _prepare(self) -> None:
        if not self._error:
            self._ensure_process()

    def _receive(self, record: object) -> None:
        """A record from the worker, read on the GUI thread."""
        if isinstance(record, Idle):
            if self._process is None or record.after < self._process.sent:
                return  # a later command is on its way: not idle after all
            self._busy = False
            if self._playing:  # the worker stops only when paused or finished
                self._playing = False
                self.playing_changed.emit(False)
        elif isinstance(record, Loaded):
            self._facts = record.facts
            self._evals = [record.evaluation]
        elif isinstance(record, Stepped):
            self._metrics.append(record.metrics)
            self._groups.append(record.groups)
            if record.evaluation is not None:
                self._evals.append(record.evaluation)
        elif isinstance(record, Failed):
            self._error = record.sentence
            self._busy = False
            if self._playing:
                self._playing = False
                self.playing_changed.emit(False)
        self._stale = True
        self._undrawn = True
        if not self._draw_pending:  # one snapshot for the records read this turn
            self._draw_pending = True
            QTimer.singleShot(0, self, self._draw)

    def _draw(self) -> None:
        """The records read since the last snapshot, drawn in a turn after their reading."""
        self._draw_pending = False
        if self._undrawn:  # not drawn meanwhile (a click's snapshot shows them too)
            self._invalidate()

    # --- following the workbench -------------------------------------------------------------

    def _restart(self, *_changed: object) -> None:
        """New settings, convention, reward or policy: a fresh run, paused. A replaced run's
        job stops after its step, on its own thread; its records are dropped."""
        self.set_playing(False)
        self._selected_step = None
        self._new_run()
        self._invalidate()
        self._prepare_when_shown()

    def _lab_changed(self, *_snapshot: object) -> None:
        """Only a change of the main lab's reward weights restarts (not a card click)."""
        if self._workbench.lab.weights != self._config.reward_weights:
            self._restart()

    def _policy_changed(self, *_policy: object) -> None:
        if self._workbench.policy.checkpoint != self._checkpoint:
            self._restart()
        self._follow_gates()

    def _follow_gates(self, *_shown: object) -> None:
        self.gate.set_shown(self._workspace_gate.shown and self._workbench.policy.is_model)

    def _shown_changed(self, shown: bool) -> None:
        if shown:
            self._prepare_when_shown()
        else:
            self.set_playing(False)

    def _invalidate(self) -> None:
        self._stale = True
        self.gate.call((self, "snapshot"), self._catch_up)

    def _catch_up(self) -> None:
        if self._stale:
            self._rebuild()

    def _rebuild(self, emit: bool = True) -> None:
        self._snapshot = build_lm_run_snapshot(
            self._workbench.lm_training_config,
            self._metrics,
            self._evals,
            self._groups,
            playing=self._playing,
            metric=self._metric,
            selected_step=self._selected_step,
            error=self._error,
            facts=self._facts,
            checkpoint=self._checkpoint,
            refusal=self._refusal,
        )
        self._stale = False
        if emit:
            self._undrawn = False
            self.snapshot_changed.emit(self._snapshot)
