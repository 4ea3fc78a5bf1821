"""The tiny model's run controls: Play/Pause, Step, Reset, and the run's settings.

A view (DESIGN §2): it shows an ``LMRunSnapshot`` and asks. A user's edit of a setting emits
``config_requested`` with the shown config with that one field replaced; showing a snapshot
emits nothing (signals blocked), so showing never loops back into a request.
"""

from __future__ import annotations

import dataclasses

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QComboBox,
    QDoubleSpinBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from grpo_desktop.core.common.theme import LIGHT, Theme
from grpo_desktop.core.tinylm.grpo_config import LM_ALGORITHMS, LMTrainingConfig
from grpo_desktop.core.tinylm.lm_run_snapshot import LMRunSnapshot
from grpo_desktop.core.tinylm.tasks import get_task, task_names
from grpo_desktop.core.training.training_config import ALGORITHM_INFO
from grpo_desktop.views.common.fonts import scaled_font

__all__ = ["PAUSE_TEXT", "PLAY_TEXT", "LMRunControls"]

PLAY_TEXT = "▶ Play"
PAUSE_TEXT = "❚❚ Pause"
PLAY_TIP = "Train the model step after step (in a process of its own; the window stays responsive)"
PAUSE_TIP = "Pause after the step under way"
STEP_TIP = "Take one GRPO step on the network"
RESET_TIP = "Start again from the checkpoint (same settings and seed: the same run)"
#: (field, label, tooltip) of each setting, in the form's order.
SETTINGS = (
    ("task", "&Task", "What the prompts ask: each task has training and held-out prompts"),
    ("algorithm", "Al&gorithm", "How advantages and the loss are computed"),
    ("steps", "&Steps", "Training steps in the run"),
    ("group_size", "G (&answers)", "Answers sampled per prompt (one group)"),
    ("batch", "&Batch", "Prompts (groups) per step"),
    ("learning_rate", "Learning &rate", "Adam's step size (1e-3 or more wrecks the checkpoint)"),
    ("beta", "&KL β", "How strongly the loss pulls back to the starting checkpoint (0: none)"),
    ("seed", "See&d", "The run's random seed: the same seed gives the same run"),
)


def _spin(low: int, high: int) -> QSpinBox:
    spin = QSpinBox()
    spin.setRange(low, high)
    spin.setKeyboardTracking(False)
    spin.setAccelerated(True)
    return spin


def _double(low: float, high: float, step: float, decimals: int) -> QDoubleSpinBox:
    spin = QDoubleSpinBox()
    spin.setRange(low, high)
    spin.setSingleStep(step)
    spin.setDecimals(decimals)
    spin.setKeyboardTracking(False)
    spin.setStepType(QAbstractSpinBox.StepType.AdaptiveDecimalStepType)
    return spin


class LMRunControls(QWidget):
    """Run buttons over a form of settings (objectName ``lmRunControls``)."""

    play_requested = Signal(bool)
    step_requested = Signal()
    reset_requested = Signal()
    config_requested = Signal(object)  # LMTrainingConfig

    def __init__(self, theme: Theme = LIGHT, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("lmRunControls")
        self._config: LMTrainingConfig | None = None
        self._playing = False
        self.play_button = QPushButton(PLAY_TEXT, objectName="lmPlayButton")
        self.step_button = QPushButton("Step", objectName="lmStepButton")
        self.reset_button = QPushButton("Reset", objectName="lmResetButton")
        for button, name, tip in (
            (self.play_button, "Play or pause the run", PLAY_TIP),
            (self.step_button, "One training step", STEP_TIP),
            (self.reset_button, "Reset the run", RESET_TIP),
        ):
            button.setAccessibleName(name)
            button.setToolTip(tip)
        self.play_button.clicked.connect(lambda: self.play_requested.emit(not self._playing))
        self.step_button.clicked.connect(self.step_requested.emit)
        self.reset_button.clicked.connect(self.reset_requested.emit)

        self.task_combo = QComboBox(objectName="lmTaskCombo")
        for name in task_names():
            self.task_combo.addItem(get_task(name).label, name)
        self.algorithm_combo = QComboBox(objectName="lmAlgorithmCombo")
        for name in LM_ALGORITHMS:
            self.algorithm_combo.addItem(ALGORITHM_INFO[name].label, name)
        self.fields: dict[str, QWidget] = {
            "task": self.task_combo,
            "algorithm": self.algorithm_combo,
            "steps": _spin(1, 5000),
            "group_size": _spin(2, 64),
            "batch": _spin(1, 256),
            "learning_rate": _double(0.00001, 0.01, 0.0001, 5),
            "beta": _double(0.0, 10.0, 0.01, 3),
            "seed": _spin(0, 999_999),  # six digits: the field fits a 1024-px projector
        }
        self.labels: dict[str, QLabel] = {}
        form = QGridLayout()
        form.setContentsMargins(0, 0, 0, 0)
        form.setHorizontalSpacing(8)
        form.setVerticalSpacing(4)
        # The task and the algorithm each get a whole row: their names ("Addition (2-digit)")
        # would be cut in half a row on a 1024-px projector; the numbers go two to a row.
        wide = ("task", "algorithm")
        for index, (name, text, tip) in enumerate(SETTINGS):
            field = self.fields[name]
            field.setObjectName(f"lm_{name}")
            field.setToolTip(tip)
            field.setAccessibleName(text.replace("&", ""))
            label = QLabel(text)
            label.setBuddy(field)
            self.labels[name] = label
            if name in wide:
                row = wide.index(name)
                form.addWidget(label, row, 0)
                form.addWidget(field, row, 1, 1, 3)
            else:
                row, column = divmod(index - len(wide), 2)
                form.addWidget(label, len(wide) + row, 2 * column)
                form.addWidget(field, len(wide) + row, 2 * column + 1)
            if isinstance(field, QComboBox):
                field.activated.connect(
                    lambda _index, name=name, combo=field: self._request(name, combo.currentData())
                )
            else:
                field.valueChanged.connect(lambda value, name=name: self._request(name, value))
        form.setColumnStretch(1, 1)
        form.setColumnStretch(3, 1)
        self.refusal = QLabel(objectName="lmRefusal")
        self.refusal.setTextFormat(Qt.TextFormat.PlainText)
        self.refusal.setWordWrap(True)
        self.refusal.hide()
        buttons = QHBoxLayout()
        buttons.setContentsMargins(0, 0, 0, 0)
        for button in (self.play_button, self.step_button, self.reset_button):
            buttons.addWidget(button)
        column = QVBoxLayout(self)
        column.setContentsMargins(4, 0, 4, 0)
        column.setSpacing(6)
        column.addLayout(buttons)
        column.addLayout(form)
        column.addWidget(self.refusal)
        self.set_theme(theme)

    def tab_chain(self) -> tuple[QWidget, ...]:
        """The controls in reading order (buttons, then the settings row by row)."""
        settings = tuple(self.fields[name] for name, _, _ in SETTINGS)
        return (self.play_button, self.step_button, self.reset_button, *settings)

    def show_snapshot(self, snapshot: LMRunSnapshot) -> None:
        config = snapshot.config
        self._config = config
        self._playing = snapshot.playing
        self.play_button.setText(PAUSE_TEXT if snapshot.playing else PLAY_TEXT)
        self.play_button.setToolTip(PAUSE_TIP if snapshot.playing else PLAY_TIP)
        usable = snapshot.ready and not snapshot.finished
        self.play_button.setEnabled(usable or snapshot.playing)
        self.step_button.setEnabled(usable)
        self.reset_button.setEnabled(not snapshot.error)
        for name, field in self.fields.items():
            value = getattr(config, name)
            blocked = field.blockSignals(True)
            try:
                if isinstance(field, QComboBox):
                    field.setCurrentIndex(field.findData(value))
                else:
                    field.setValue(value)
            finally:
                field.blockSignals(blocked)
        if snapshot.refusal != self.refusal.text():
            self.refusal.setText(snapshot.refusal)
            self.refusal.setVisible(bool(snapshot.refusal))

    def set_theme(self, theme: Theme) -> None:
        font = scaled_font(theme.type_scale)
        for widget in (
            self.play_button,
            self.step_button,
            self.reset_button,
            *self.fields.values(),
            *self.labels.values(),
            self.refusal,
        ):
            widget.setFont(font)
        self.play_button.setFont(scaled_font(theme.type_scale, bold=True))
        self.refusal.setStyleSheet(f"color: {theme.banner_text}; background: {theme.banner_fill};")
        for label in self.labels.values():
            label.setStyleSheet(f"color: {theme.text};")

    def _request(self, name: str, value: object) -> None:
        if self._config is None or getattr(self._config, name) == value:
            return
        self.config_requested.emit(dataclasses.replace(self._config, **{name: value}))
