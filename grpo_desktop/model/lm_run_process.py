"""The tiny model's training run in a worker process, spoken to in JSON lines.

A plain QObject around a ``QProcess`` running ``grpo-desktop lm worker``
(:mod:`grpo_desktop.cli.lm_worker`). A GRPO step of the network is a fifth of a second of
Python-heavy numpy; on a thread it held the interpreter lock often enough that a click took 22–36
ms at p95 while it trained. In a process of its own it takes nothing from the GUI thread but the
reading of a line per step. Lines become the records the state keeps
(:mod:`grpo_desktop.core.tinylm.run_messages`: data, never code); a process that ends without
being asked is one plain sentence. ``stop()`` asks it to quit and, if it does not within a
second, kills it: closing the window never waits for a step.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

from PySide6.QtCore import QObject, QProcess, Signal

from grpo_desktop.core.tinylm.grpo_config import LMTrainingConfig
from grpo_desktop.core.tinylm.lm_run_snapshot import ModelFacts
from grpo_desktop.core.tinylm.records import EvalMetrics, LMGroup, StepMetrics
from grpo_desktop.core.tinylm.run_messages import (
    MessageError,
    config_message,
    eval_from_message,
    facts_from_message,
    group_from_message,
    line,
    metrics_from_message,
    read_line,
)

__all__ = ["Failed", "Idle", "LMRunProcess", "Loaded", "Stepped", "worker_command"]

QUIT_WAIT_MS = 1000
_STDERR_KEPT = 2000  # characters of the worker's error output kept for the message


@dataclass(frozen=True)
class Loaded:
    """The run exists: the model's facts and its step-0 evaluation."""

    facts: ModelFacts
    evaluation: EvalMetrics


@dataclass(frozen=True)
class Stepped:
    metrics: StepMetrics
    evaluation: EvalMetrics | None
    groups: tuple[LMGroup, ...]


@dataclass(frozen=True)
class Idle:
    """Nothing under way in the worker since command ``after``: paused, its steps done, or the
    run finished (stale when a later command was sent: the state ignores it)."""

    after: int = 0


@dataclass(frozen=True)
class Failed:
    sentence: str


def worker_command() -> tuple[str, list[str]]:
    """The program and arguments that start a worker: this interpreter running the package,
    or, in a frozen (PyInstaller) app, the app itself with the ``lm worker`` command."""
    if getattr(sys, "frozen", False):
        return sys.executable, ["lm", "worker"]
    # -I: the installed package, never a folder named grpo_desktop where the app was started
    return sys.executable, ["-I", "-m", "grpo_desktop", "lm", "worker"]


class LMRunProcess(QObject):
    """One run's worker process; emits each record as it is read."""

    record = Signal(object)  # Loaded, Stepped, Idle or Failed
    ended = Signal()  # the worker process has exited

    def __init__(
        self, config: LMTrainingConfig, checkpoint: str | None, parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self._buffer = b""
        self.sent = 0  # the number of the latest command sent
        self._errors = b""
        self._quitting = False
        self._failed = False
        self.process = QProcess(self)
        self.process.readyReadStandardOutput.connect(self._read)
        self.process.readyReadStandardError.connect(self._read_errors)
        self.process.finished.connect(self._finished)
        self.process.errorOccurred.connect(self._error)
        program, arguments = worker_command()
        self.process.start(program, arguments)
        self.process.write(line(config_message(config, checkpoint)).encode("ascii"))

    @property
    def running(self) -> bool:
        return self.process.state() != QProcess.ProcessState.NotRunning

    def send(self, command: str) -> int:
        """``play``, ``pause`` or ``step`` (ignored once the worker has ended); its number."""
        if self.running:
            self.sent += 1
            self.process.write(line({"do": command, "id": self.sent}).encode("ascii"))
        return self.sent

    def wait_for_output(self, timeout_ms: int) -> bool:
        """Block until the worker writes (tests and benchmarks): its lines are read now."""
        return self.process.waitForReadyRead(timeout_ms)

    def release(self) -> None:
        """No more records: the worker quits after the step under way, on its own time (a
        restart never waits for it); ``ended`` says when it has."""
        self._quitting = True
        if self.running:
            self.process.write(line({"do": "quit"}).encode("ascii"))
            self.process.closeWriteChannel()

    def stop(self) -> None:
        """The window is closing: quit within QUIT_WAIT_MS, or be killed."""
        self._quitting = True
        if not self.running:
            return
        self.process.write(line({"do": "quit"}).encode("ascii"))
        self.process.closeWriteChannel()
        if not self.process.waitForFinished(QUIT_WAIT_MS):
            self.process.kill()
            self.process.waitForFinished(QUIT_WAIT_MS)

    # --- reading ------------------------------------------------------------------------------

    def _read(self) -> None:
        self._buffer += bytes(self.process.readAllStandardOutput())
        *lines, self._buffer = self._buffer.split(b"\n")
        for raw in lines:
            if self._quitting or self._failed:
                return
            try:
                record = _record(read_line(raw.decode("utf-8")))
            except (MessageError, UnicodeDecodeError, ValueError, KeyError, TypeError) as error:
                self._fail(f"The tiny model's run sent a line it should not have: {error}.")
                return
            if isinstance(record, Failed):
                self._failed = True
            self.record.emit(record)

    def _read_errors(self) -> None:
        self._errors = (self._errors + bytes(self.process.readAllStandardError()))[-_STDERR_KEPT:]

    def _finished(self, *_status: object) -> None:
        self.ended.emit()
        self._read()
        if not self._quitting and not self._failed:
            last = self._errors.decode("utf-8", "replace").strip().splitlines()
            why = f": {last[-1]}" if last else ""
            self._fail(f"The tiny model's run stopped unexpectedly{why}.")

    def _error(self, error: QProcess.ProcessError) -> None:
        if error == QProcess.ProcessError.FailedToStart and not self._failed:
            self._fail("The tiny model's run could not be started (the worker did not start).")

    def _fail(self, sentence: str) -> None:
        self._failed = True
        self.record.emit(Failed(" ".join(sentence.split())[:400]))


def _record(message: dict) -> Loaded | Stepped | Idle | Failed:
    if "stepped" in message:
        data = message["stepped"]
        evaluation = data.get("evaluation")
        return Stepped(
            metrics_from_message(data["metrics"]),
            None if evaluation is None else eval_from_message(evaluation),
            tuple(group_from_message(group) for group in data.get("groups", ())),
        )
    if "loaded" in message:
        data = message["loaded"]
        return Loaded(facts_from_message(data["facts"]), eval_from_message(data["evaluation"]))
    if "idle" in message:
        after = message.get("after", 0)
        return Idle(after if isinstance(after, int) and not isinstance(after, bool) else 0)
    if "failed" in message and isinstance(message["failed"], str):
        return Failed(message["failed"])
    raise MessageError(f"unknown message {sorted(message)!r}")
