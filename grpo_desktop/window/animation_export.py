"""File ▸ Export ▸ Animation…: the reward → advantage animation, or a training run's first steps,
as an animated GIF for a slide.

The dialog asks what to animate, the size (1280 × 720, 1920 × 1080 or custom) and the theme;
then a save dialog asks where. ``core/files/animation.py`` decides each frame,
``views/files/animation_frames.py`` paints it and ``core/files/gif_encoder.py`` encodes the GIF.
A lecturer's window must never freeze for seconds, so the export is a job: the GUI thread paints
one frame per timer tick (Qt's text drawing belongs to the GUI thread), and one worker thread
does everything without Qt (the training run, the palette, each frame's colour mapping, the
encoding and the atomic write). A progress dialog shows the frames and can cancel; nothing is
written unless the whole GIF is.
"""

from __future__ import annotations

import logging
import os
import stat
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QProgressDialog,
    QSpinBox,
    QWidget,
)
from shiboken6 import Shiboken

from grpo_desktop.core.common import atomic
from grpo_desktop.core.common.jsonfile import kind_of_file
from grpo_desktop.core.common.theme import THEMES, get_theme
from grpo_desktop.core.files.animation import (
    ANIMATIONS,
    DEFAULT_TRAINING_STEPS,
    MAX_ANIMATION_SIZE,
    MAX_TRAINING_STEPS,
    MIN_ANIMATION_SIZE,
    AnimationFrame,
    advantage_animation,
    first_steps_snapshot,
    training_animation,
)
from grpo_desktop.core.files.gif_encoder import GifBuilder, RgbFrame
from grpo_desktop.core.files.group_csv import default_file_stem
from grpo_desktop.core.training.training_config import TrainingConfig
from grpo_desktop.views.common import gui_collector
from grpo_desktop.views.files.animation_frames import AnimationPainter, key_colours

if TYPE_CHECKING:
    from grpo_desktop.model.workbench import Workbench

__all__ = [
    "GIF_FILTER",
    "SIZE_PRESETS",
    "AnimationDialog",
    "AnimationExport",
    "AnimationJob",
    "AnimationRequest",
    "refusal",
]

log = logging.getLogger(__name__)

GIF_FILTER = "GIF animation (*.gif)"
#: The sizes a slide deck uses: 16:9 HD and full HD.
SIZE_PRESETS = {"1280 × 720 (HD)": (1280, 720), "1920 × 1080 (full HD)": (1920, 1080)}
CUSTOM_SIZE = "Custom…"
TICK_MS = 1  # the job's timer: a frame painted per tick, the event loop served in between
MAX_QUEUED_FRAMES = 3  # frames painted but not yet mapped to the palette (each up to 25 MB)


@dataclass(frozen=True)
class AnimationRequest:
    """What the dialog asked for: ``kind`` a key of ``ANIMATIONS``."""

    kind: str
    size: tuple[int, int]
    theme: str
    steps: int = DEFAULT_TRAINING_STEPS


def refusal(path: Path) -> str:
    """Why ``path`` cannot take the GIF ("" when it can): a folder or a FIFO is refused."""
    try:
        mode = os.stat(atomic.write_target(path)).st_mode
    except FileNotFoundError:
        return ""
    except OSError as error:
        return f"Cannot save the animation to {path}: {(error.strerror or str(error)).lower()}."
    if stat.S_ISREG(mode):
        return ""
    return f"Cannot save the animation to {path}: it is {kind_of_file(mode)}, not a file."


class AnimationDialog(QDialog):
    """What to animate, the size and the theme."""

    def __init__(self, parent: QWidget | None, theme: str, has_run: bool) -> None:
        super().__init__(parent)
        self.setWindowTitle("Export animation")
        self.setObjectName("animationDialog")
        form = QFormLayout(self)
        self.what = QComboBox(objectName="animationWhat")
        for kind, words in ANIMATIONS.items():
            self.what.addItem(words[:1].upper() + words[1:], kind)
        form.addRow("Animate:", self.what)
        self.steps = QSpinBox(objectName="animationSteps")
        self.steps.setRange(1, MAX_TRAINING_STEPS)
        self.steps.setValue(DEFAULT_TRAINING_STEPS)
        self.steps.setSuffix(" steps")
        form.addRow("First:", self.steps)
        source = "the Training workspace's settings" if has_run else "the default settings"
        self.steps_note = QLabel(f"A fresh run with {source}.")
        self.steps_note.setTextFormat(Qt.TextFormat.PlainText)
        form.addRow("", self.steps_note)
        self.size_choice = QComboBox(objectName="animationSize")
        for label, size in SIZE_PRESETS.items():
            self.size_choice.addItem(label, size)
        self.size_choice.addItem(CUSTOM_SIZE, None)
        form.addRow("Size:", self.size_choice)
        custom = QWidget()
        row = QHBoxLayout(custom)
        row.setContentsMargins(0, 0, 0, 0)
        self.width_box = QSpinBox(objectName="animationWidth")
        self.width_box.setRange(MIN_ANIMATION_SIZE[0], MAX_ANIMATION_SIZE[0])
        self.width_box.setValue(1280)
        self.height_box = QSpinBox(objectName="animationHeight")
        self.height_box.setRange(MIN_ANIMATION_SIZE[1], MAX_ANIMATION_SIZE[1])
        self.height_box.setValue(720)
        row.addWidget(self.width_box)
        row.addWidget(QLabel("×"))
        row.addWidget(self.height_box)
        row.addWidget(QLabel("pixels"))
        form.addRow("", custom)
        self.theme_choice = QComboBox(objectName="animationTheme")
        for name, choice in THEMES.items():
            self.theme_choice.addItem(choice.label, name)
        self.theme_choice.setCurrentIndex(max(0, self.theme_choice.findData(theme)))
        form.addRow("Theme:", self.theme_choice)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Export…")
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)
        self.what.currentIndexChanged.connect(self._follow)
        self.size_choice.currentIndexChanged.connect(self._follow)
        self._follow()

    def _follow(self) -> None:
        training = self.what.currentData() == "training"
        self.steps.setEnabled(training)
        self.steps_note.setEnabled(training)
        custom = self.size_choice.currentData() is None
        self.width_box.setEnabled(custom)
        self.height_box.setEnabled(custom)

    def request(self) -> AnimationRequest:
        size = self.size_choice.currentData()
        if size is None:
            size = (self.width_box.value(), self.height_box.value())
        return AnimationRequest(
            kind=self.what.currentData(),
            size=tuple(size),
            theme=self.theme_choice.currentData(),
            steps=self.steps.value(),
        )


class AnimationJob(QObject):
    """One export on its way: frames painted on timer ticks, the rest on one worker thread.

    ``frames`` is the animation, or a callable computing it (a training run) that runs on the
    worker. Emits ``progressed(done, total)`` per frame, then ``finished(path)`` or
    ``failed(message)``; ``cancel`` stops it and writes nothing.
    """

    progressed = Signal(int, int)
    finished = Signal(object)
    failed = Signal(str)

    def __init__(
        self,
        frames: tuple[AnimationFrame, ...] | Any,
        request: AnimationRequest,
        path: Path,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.request = request
        self.path = path
        self.theme = get_theme(request.theme)
        # Its threads' names: the collector stays paused until none is left (gui_collector).
        self._threads_named = f"animation-{id(self):x}"
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix=self._threads_named)
        self._source = frames
        self._frames_future: Future | None = None
        self._painter: AnimationPainter | None = None
        self._builder: GifBuilder | None = None
        self._pending: list[Future] = []
        self._next = 0
        self._written: Future | None = None
        self._done = False
        self._timer = QTimer(self)
        self._timer.setInterval(TICK_MS)
        self._timer.timeout.connect(self._tick)

    @property
    def total(self) -> int:
        return len(self._painter) if self._painter is not None else 0

    def start(self) -> None:
        gui_collector.pause()  # Python runs on the pool's thread: no collection there
        gui_collector.resume_when(self._pool_ended)
        if callable(self._source):
            self._frames_future = self._pool.submit(self._source)
        else:
            self._prepare(tuple(self._source))
        self._timer.start()

    def is_running(self) -> bool:
        return not self._done

    def cancel(self) -> None:
        """Stop now; the file is not written (a write already under way still lands whole)."""
        if self._done:
            return
        self._stop()

    def _stop(self) -> None:
        self._done = True
        self._timer.stop()
        self._pool.shutdown(wait=False, cancel_futures=True)

    def _pool_ended(self) -> bool:
        """Done, or deleted with its window before it was, and its pool's thread ended."""
        if not self._done:
            if Shiboken.isValid(self):
                return False
            self._pool.shutdown(wait=False, cancel_futures=True)  # its timer went with it
        prefix = self._threads_named
        return not any(thread.name.startswith(prefix) for thread in threading.enumerate())

    def _prepare(self, frames: tuple[AnimationFrame, ...]) -> None:
        """The painter, and the palette chosen on the worker from a few sample frames."""
        self._painter = AnimationPainter(frames, self.theme, self.request.size)
        samples = [self._painter.rgb(i) for i in self._painter.sample_indices()]
        keys = key_colours(self.theme)
        self._pending.append(self._pool.submit(self._make_builder, samples, keys))

    def _make_builder(self, samples: list[RgbFrame], keys: tuple[str, ...]) -> None:
        self._builder = GifBuilder(samples, keys)

    def _add(self, frame: RgbFrame) -> None:
        assert self._builder is not None  # made by the task queued before this one
        self._builder.add(frame)

    def _write(self) -> None:
        assert self._builder is not None
        atomic.write_bytes_atomically(self.path, self._builder.encode())

    def _tick(self) -> None:
        try:
            self._advance()
        except Exception as exc:  # the worker's or the painter's error: one message, no file
            log.exception("exporting the animation failed")
            self._stop()
            self.failed.emit(_message(exc, self.path))

    def _advance(self) -> None:
        if self._painter is None:
            assert self._frames_future is not None
            if not self._frames_future.done():
                return
            self._prepare(self._frames_future.result())
            self.progressed.emit(0, self.total + 1)
            return
        for future in [f for f in self._pending if f.done()]:
            future.result()  # raises the worker's error here
            self._pending.remove(future)
        if self._next < self.total:
            if len(self._pending) < MAX_QUEUED_FRAMES:
                self._pending.append(self._pool.submit(self._add, self._painter.rgb(self._next)))
                self._next += 1
                self.progressed.emit(self._next, self.total + 1)
            return
        if self._written is None:
            self._written = self._pool.submit(self._write)
            return
        if self._written.done():
            self._written.result()
            self._stop()
            self.progressed.emit(self.total + 1, self.total + 1)
            self.finished.emit(self.path)


def _message(exc: Exception, path: Path) -> str:
    if isinstance(exc, OSError):
        reason = (exc.strerror or str(exc)).rstrip(".").lower()
        if not path.parent.is_dir():
            reason = f"the folder {path.parent} does not exist"
        return f"Could not save the animation to {path}: {reason}."
    return f"Could not save the animation to {path}: it could not be drawn ({exc})."


class ExportHost(Protocol):
    """What the animation export asks of File ▸ Export's controller (``ExportController``)."""

    window: Any  # the main window: its theme, training run, status bar
    workbench: Workbench
    last_folder: Path | None

    def ask_path(self, title: str, default_name: str, filters: str) -> str | None: ...

    def confirm_overwrite(self, path: Path) -> bool: ...


class AnimationExport(QObject):
    """The File ▸ Export ▸ Animation… action and what it runs, beside the other exports."""

    def __init__(self, exports: ExportHost) -> None:
        super().__init__(exports)
        self.exports = exports
        self.window = exports.window
        self.job: AnimationJob | None = None
        self.progress: QProgressDialog | None = None
        self.action = QAction("Animation…", self.window, objectName="exportAnimation")
        tip = (
            "Save the reward → advantage animation, or the training run's first steps, as an "
            "animated GIF for slides, with its captions"
        )
        self.action.setToolTip(tip)
        self.action.setStatusTip(tip)
        self.action.triggered.connect(self.export_animation)
        self.window.addAction(self.action)

    # --- dialogs (tests replace these) ---------------------------------------------------------

    def ask_request(self) -> AnimationRequest | None:
        dialog = AnimationDialog(
            self.window, self.window.theme.name, self.window.training_run() is not None
        )
        if dialog.exec() != QDialog.DialogCode.Accepted:
            return None
        return dialog.request()

    def warn(self, message: str) -> None:
        QMessageBox.warning(self.window, "Export failed", message)

    # --- the export ---------------------------------------------------------------------------

    def frames_source(self, request: AnimationRequest):
        """The animation's frames, or (a training run, computed on the worker) a callable."""
        theme = get_theme(request.theme)
        workbench = self.exports.workbench
        if request.kind == "advantage":
            return advantage_animation(workbench.active_lab.snapshot, theme)
        run = self.window.training_run()
        config = run.config if run is not None else TrainingConfig()
        convention = run.convention if run is not None else workbench.convention
        weights = run.reward_weights if run is not None else None
        steps = request.steps

        def compute() -> tuple[AnimationFrame, ...]:
            return training_animation(
                first_steps_snapshot(config, steps, convention, weights), theme
            )

        return compute

    def export_animation(self) -> AnimationJob | None:
        """Ask what and where, then start the job; the job, or None if cancelled or refused."""
        if self.job is not None and self.job.is_running():
            self.warn("An animation is being exported already; wait for it or cancel it.")
            return None
        request = self.ask_request()
        if request is None:
            return None
        if request.kind == "advantage":
            stem = default_file_stem(self.exports.workbench.active_lab.snapshot) + "-animation"
        else:
            stem = f"training-first-{request.steps}-steps"
        answer = self.exports.ask_path("Save animation as GIF", stem + ".gif", GIF_FILTER)
        if not answer:
            return None
        path = Path(answer)
        if path.suffix.lower() != ".gif":
            path = path.with_name(path.name + ".gif")
            if path.exists() and not self.exports.confirm_overwrite(path):
                return None
        refused = refusal(path)
        if refused:
            self.warn(refused)
            return None
        try:
            source = self.frames_source(request)
        except (ValueError, ArithmeticError) as exc:
            self.warn(f"Could not make the animation: {exc}.")
            return None
        job = AnimationJob(source, request, path, self)
        self.job = job
        self._show_progress(job)
        job.finished.connect(self._finished)
        job.failed.connect(self._failed)
        job.start()
        return job

    def _show_progress(self, job: AnimationJob) -> None:
        progress = QProgressDialog("Drawing the animation…", "Cancel", 0, 0, self.window)
        progress.setWindowTitle("Export animation")
        progress.setWindowModality(Qt.WindowModality.WindowModal)
        progress.setMinimumDuration(400)  # a quick export never flashes a dialog
        progress.setAutoClose(False)
        progress.setAutoReset(False)
        progress.canceled.connect(job.cancel)
        job.progressed.connect(self._progressed)
        self.progress = progress

    def _progressed(self, done: int, total: int) -> None:
        if self.progress is None:
            return
        self.progress.setMaximum(total)
        self.progress.setValue(done)
        if done >= total - 1:
            self.progress.setLabelText("Encoding the GIF…")

    def _close_progress(self) -> None:
        if self.progress is not None:
            self.progress.canceled.disconnect()
            self.progress.close()
            self.progress.deleteLater()
            self.progress = None

    def _finished(self, path: Path) -> None:
        self._close_progress()
        self.exports.last_folder = path.parent
        self.window.statusBar().showMessage(f"Saved animation as {path}")

    def _failed(self, message: str) -> None:
        self._close_progress()
        self.warn(message)
