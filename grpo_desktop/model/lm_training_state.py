"""The Training workspace's state on the tiny language model: a GRPO run stepped off the GUI thread.

A plain QObject (no widget), made by :class:`~grpo_desktop.model.workspaces.WorkspaceStates`.
A step of the network takes a fifth of a second or more, far past a frame, so the run lives on a
worker thread: each job (load and measure the model; one step; play until paused) is a thread
that first waits for the job before it (so one run is never stepped twice at once), then hands
every step's records to the GUI thread with a queued signal. The GUI thread keeps its own copy
of those records and builds every snapshot from them, never from the run a worker may be
stepping. Records of a run that has since been replaced (Reset, a settings, policy, convention
or reward-weight change) are dropped on arrival, so a restart never waits for a step to end.

The worker shares the GIL with the GUI thread: a click while it steps takes about 1.3–1.6 times
as long at the median (``benchmarks/bench_lm_training_clicks.py``). A shorter thread switch
interval was measured there (0.2–20 ms) and made no difference beyond the noise, so the
interpreter's default is left alone.

Snapshots are built only while the workspace shows on the tiny model (its gate); hidden, the
run pauses. ``stop()`` (the window closing) sets every job's stop flag and joins them: at most
one step each.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, replace

from PySide6.QtCore import QObject, Qt, Signal

from grpo_desktop.core.tinylm.grpo_config import LMTrainingConfig, check_lm_config
from grpo_desktop.core.tinylm.lm_run_snapshot import (
    LMRunSnapshot,
    ModelFacts,
    build_lm_run_snapshot,
    lm_group_as_recorded,
)
from grpo_desktop.core.tinylm.records import EvalMetrics, LMGroup, StepMetrics
from grpo_desktop.model.shown_gate import ShownGate
from grpo_desktop.model.workbench import Workbench


@dataclass(frozen=True)
class _Loaded:
    """The run exists: the model's facts and its step-0 evaluation."""

    generation: int
    facts: ModelFacts
    evaluation: EvalMetrics


@dataclass(frozen=True)
class _Stepped:
    """One step's records."""

    generation: int
    metrics: StepMetrics
    evaluation: EvalMetrics | None
    groups: tuple[LMGroup, ...]


@dataclass(frozen=True)
class _Failed:
    generation: int
    sentence: str


@dataclass(frozen=True)
class _Ended:
    """A job returned (paused, finished, stopped or failed)."""

    generation: int
    job: _Job


class _RunSlot:
    """One run, made by the first job that needs it (on its worker thread)."""

    def __init__(self, generation: int, make: Callable[[], object]) -> None:
        self.generation = generation
        self.make = make
        self.run = None  # LMTrainingRun, once made
        self.failed = False


class _Job(threading.Thread):
    """Load the run if need be, then take up to ``steps`` steps (None: until stopped or done)."""

    def __init__(
        self,
        slot: _RunSlot,
        steps: int | None,
        previous: _Job | None,
        deliver: Callable[[object], None],
    ) -> None:
        super().__init__(name="lm-training", daemon=True)
        self.slot, self.steps, self.previous, self.deliver = slot, steps, previous, deliver
        self.stop_flag = threading.Event()

    def run(self) -> None:  # the worker thread
        slot = self.slot
        try:
            if self.previous is not None:
                self.previous.join()  # the job before ends its step first
                self.previous = None
            if slot.failed or (self.stop_flag.is_set() and slot.run is None):
                return
            if slot.run is None:
                try:
                    slot.run, facts = slot.make()
                except (OSError, ValueError) as error:  # CheckpointError is a ValueError
                    slot.failed = True
                    self.deliver(_Failed(slot.generation, _sentence(error)))
                    return
                self.deliver(_Loaded(slot.generation, facts, slot.run.evals[0]))
            run = slot.run
            taken = 0
            while not self.stop_flag.is_set() and not run.finished:
                if self.steps is not None and taken >= self.steps:
                    break
                metrics = run.step()
                taken += 1
                latest = run.evals[-1]
                evaluation = latest if latest.step == metrics.step else None
                self.deliver(_Stepped(slot.generation, metrics, evaluation, run.groups[-1]))
        finally:
            self.deliver(_Ended(slot.generation, self))


def _sentence(error: Exception) -> str:
    text = " ".join(str(error).split()) or type(error).__name__
    return f"The tiny model could not be loaded: {text.rstrip('.')}."


def _facts(model, checkpoint: str | None) -> ModelFacts:
    info = model.info if isinstance(model.info, dict) else {}
    trained = info.get("trained_on")
    grpo = info.get("grpo")
    pretraining = str(trained) if isinstance(trained, str) else ""
    if isinstance(grpo, dict) and isinstance(grpo.get("steps_done"), int):
        pretraining = ", then ".join(
            filter(None, [pretraining, f"GRPO {grpo['steps_done']} steps"])
        )
    return ModelFacts(
        parameters=model.n_params,
        layers=model.config.n_layers,
        vocabulary=model.config.vocab_size,
        checkpoint=checkpoint,
        pretraining=pretraining[:120],
    )


class LMTrainingState(QObject):
    """The workbench's tiny-model run: played on a worker thread, rendered from its records."""

    snapshot_changed = Signal(object)  # LMRunSnapshot
    playing_changed = Signal(bool)
    _delivered = Signal(object)  # a worker's record, queued to the GUI thread

    def __init__(
        self, workbench: Workbench, parent: QObject | None = None, gate: ShownGate | None = None
    ) -> None:
        super().__init__(parent)
        self._workbench = workbench
        # The workspace's gate (shown or not) and the policy (the tiny model or not) make this
        # state's own gate: only both open it.
        self._workspace_gate = gate if gate is not None else ShownGate(True, self)
        self.gate = ShownGate(False, self)
        self._generation = 0
        self._slot: _RunSlot | None = None
        self._jobs: list[_Job] = []
        self._last_job: _Job | None = None
        self._playing = False
        self._metric = "reward_mean"
        self._selected_step: int | None = None
        self._refusal = ""
        self._snapshot: LMRunSnapshot | None = None
        self._stale = True
        self._new_run()
        self._delivered.connect(self._receive, Qt.ConnectionType.QueuedConnection)
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
        """A job is running (loading, stepping or finishing a step after a pause)."""
        return bool(self._jobs)

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
            self._start_job(None)
        else:
            self._stop_jobs()
        self.playing_changed.emit(playing)
        self._invalidate()

    def toggle_playing(self) -> None:
        self.set_playing(not self._playing)

    def step_once(self) -> None:
        """One step, paused (nothing once the run is finished)."""
        self.set_playing(False)
        if self._error or self._finished() or not self.gate.shown:
            return
        self._start_job(1)

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
        """Block until every job has ended (tests and benchmarks); False on timeout."""
        for job in list(self._jobs):
            job.join(timeout)
        return not any(job.is_alive() for job in self._jobs)

    def stop(self) -> None:
        """The window is closing: every job stops after its step and is joined."""
        self._playing = False
        jobs = list(self._jobs)
        for job in jobs:
            job.stop_flag.set()
        for job in jobs:
            job.join()
        self._jobs.clear()

    # --- jobs -------------------------------------------------------------------------------

    def _new_run(self) -> None:
        """A fresh run for the workbench's settings, made by the first job that needs it."""
        workbench = self._workbench
        self._config = replace(
            workbench.lm_training_config,
            convention=workbench.convention,
            reward_weights=workbench.lab.weights,
        )
        self._checkpoint = workbench.policy.checkpoint
        self._generation += 1
        config, checkpoint = self._config, self._checkpoint

        def make() -> tuple[object, ModelFacts]:
            from grpo_desktop.core.tinylm.grpo import LMTrainingRun
            from grpo_desktop.core.tinylm.model import load_model

            model = load_model(checkpoint)
            return LMTrainingRun(check_lm_config(config), model), _facts(model, checkpoint)

        self._slot = _RunSlot(self._generation, make)
        self._metrics: list[StepMetrics] = []
        self._evals: list[EvalMetrics] = []
        self._groups: list[tuple[LMGroup, ...]] = []
        self._facts: ModelFacts | None = None
        self._error = ""

    def _finished(self) -> bool:
        return self.step_count >= self._config.steps

    def _start_job(self, steps: int | None) -> None:
        assert self._slot is not None
        previous = self._last_job if self._last_job in self._jobs else None
        job = _Job(self._slot, steps, previous, self._delivered.emit)
        self._jobs.append(job)
        self._last_job = job
        job.start()

    def _stop_jobs(self) -> None:
        for job in self._jobs:
            job.stop_flag.set()

    def _prepare_when_shown(self) -> None:
        """Load and measure the model (on a worker) once the workspace shows on it."""
        self.gate.call((self, "prepare"), self._prepare)

    def _prepare(self) -> None:
        slot = self._slot
        if slot is None or slot.run is not None or slot.failed:
            return
        if any(job.slot is slot for job in self._jobs):
            return  # a job of this run is already loading it
        self._start_job(0)

    def _receive(self, record: object) -> None:
        """A worker's record, on the GUI thread."""
        if isinstance(record, _Ended):
            if record.job in self._jobs:
                self._jobs.remove(record.job)
            if record.generation == self._generation and self._playing and self._finished():
                self.set_playing(False)
            return
        if getattr(record, "generation", None) != self._generation:
            return  # a replaced run's record
        if isinstance(record, _Loaded):
            self._facts = record.facts
            self._evals = [record.evaluation]
        elif isinstance(record, _Stepped):
            self._metrics.append(record.metrics)
            self._groups.append(record.groups)
            if record.evaluation is not None:
                self._evals.append(record.evaluation)
            if self._playing and self._finished():
                self._playing = False
                self.playing_changed.emit(False)
        elif isinstance(record, _Failed):
            self._error = record.sentence
            if self._playing:
                self._playing = False
                self.playing_changed.emit(False)
        self._invalidate()

    # --- following the workbench -------------------------------------------------------------

    def _restart(self, *_changed: object) -> None:
        """New settings, convention, reward or policy: a fresh run, paused. A replaced run's
        job stops after its step, on its own thread; its records are dropped."""
        self.set_playing(False)
        self._stop_jobs()
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
            self.snapshot_changed.emit(self._snapshot)
