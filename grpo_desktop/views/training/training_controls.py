"""The Training workspace's controls: play, step, reset, speed, the run's settings and what to show.

A view (DESIGN §2): it shows a ``TrainingSnapshot`` and asks for changes. A user's edit of a
setting emits ``config_requested`` with the shown config with that one field replaced; showing a
snapshot emits nothing (signals are blocked), so showing never loops back into a request. The
controller decides what a new config does to the run.

A compact form for a right-hand column 320–420 px wide: two settings per row with each label
beside its field, or above it when the column is too narrow for that (projector). Mnemonics
avoid the menu bar's (File, Edit, View, Presets, Lesson, Help).
"""

from __future__ import annotations

import dataclasses
import itertools
from collections import deque
from collections.abc import Iterator

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QSizePolicy,
    QSpinBox,
    QWidget,
)

from grpo_desktop.core.common.theme import LIGHT, Theme
from grpo_desktop.core.training.run import ALGORITHM_INFO, ALGORITHMS, METRICS, TrainingConfig
from grpo_desktop.core.training.training_config import TRAINING_LIMITS
from grpo_desktop.core.training.training_snapshot import TrainingSnapshot
from grpo_desktop.views.common.adaptive_form import BESIDE, AdaptiveForm
from grpo_desktop.views.common.fonts import scaled_font
from grpo_desktop.views.common.motion import motion_preference, reduced_motion

__all__ = ["DEFAULT_SPEED", "PAUSE_TEXT", "PLAY_TEXT", "TrainingControls", "advance_text"]

PLAY_TEXT = "▶ Play"
PAUSE_TEXT = "❚❚ Pause"
DEFAULT_SPEED = 30  # steps per second while playing

PLAY_TIP = "Play the run step after step at the chosen speed (pause to look closer)"
PAUSE_TIP = "Pause the run: the charts stay where they are"
ADVANCE_TIP = (
    "Motion is reduced (View menu), so the run never plays by itself: each press advances it by "
    "the speed's steps at once (P does the same); Step takes one"
)
STEP_TIP = "Take one training step for every algorithm and seed"
RESET_TIP = "Start the run again from the initial policy (same settings and seeds)"
SPEED_TIP = "Playing speed, in training steps per second"
PROGRESS_TIP = "Steps taken of the run's total"
STEPS_TIP = "Training steps in the run"
GROUP_TIP = "G: answers sampled per problem (one group); their mean is GRPO's baseline"
BATCH_TIP = "Problems (groups) drawn per training step"
LR_TIP = "Learning rate of the toy policy's gradient step"
SEEDS_TIP = "Independent runs per algorithm: the band shows their min to max, the line their mean"
BETA_TIP = "KL weight β: how strongly the loss pulls the policy back to the initial one (0: none)"
EPOCHS_TIP = "Gradient steps per batch; more than 1 goes off-policy, so the clip engages"
METRIC_TIP = "What the second chart shows, per algorithm, over the steps"
FOCUS_TIP = (
    "Whose problems the frontier's dots show, whose groups a clicked step lists, and (with three "
    "or more algorithms) whose seeds' band, lowest to highest, the charts shade"
)
LAST_ALGORITHM_TIP = "At least one algorithm must run"


def advance_text(steps: int) -> str:
    """The Play button's words while motion is reduced: ``"▶ +30 steps"``."""
    return f"▶ +{steps} step{'s' if steps != 1 else ''}"


def _algorithm_tip(name: str) -> str:
    info = ALGORITHM_INFO[name]
    return f"{info.label}: {info.advantage}\n{info.description}"


def _only_chosen(old: TrainingSnapshot, new: TrainingSnapshot) -> bool:
    """Whether ``new`` differs from ``old`` only in the chosen step or focus (the model made it
    from ``old``: the very same bands, nothing else the controls show changed)."""
    return (
        new.config == old.config
        and new.steps_done == old.steps_done
        and new.playing == old.playing
        and new.metric == old.metric
        and new.refusal == old.refusal
        and len(new.series) == len(old.series)
        and all(a.bands is b.bands for a, b in zip(new.series, old.series))
    )


def _spin(name: str, low: int, high: int) -> QSpinBox:
    spin = QSpinBox(objectName=name)
    spin.setRange(int(low), int(high))
    spin.setKeyboardTracking(False)  # typing "200" is one request, not three
    spin.setAccelerated(True)
    spin.setCorrectionMode(QAbstractSpinBox.CorrectionMode.CorrectToNearestValue)
    spin.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
    return spin


class _PlainNumberSpin(QDoubleSpinBox):
    """A number field that writes its value as the run's summaries do (4, 0.5, 0.04, 100) to up
    to ``decimals()`` places: a value from a file shows as it is, not rounded to a step's
    precision, and the widest value of the run's range stays narrow."""

    def textFromValue(self, value: float) -> str:  # Qt override
        text = f"{value:.{self.decimals()}f}"
        return text.rstrip("0").rstrip(".") if "." in text else text


def _double_spin(name: str, low: float, high: float, step: float, decimals: int) -> QDoubleSpinBox:
    spin = _PlainNumberSpin(objectName=name)
    spin.setRange(low, high)
    spin.setSingleStep(step)
    spin.setDecimals(decimals)
    spin.setKeyboardTracking(False)
    spin.setAccelerated(True)
    spin.setCorrectionMode(QAbstractSpinBox.CorrectionMode.CorrectToNearestValue)
    spin.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
    return spin


def _combo(name: str) -> QComboBox:
    combo = QComboBox(objectName=name)
    # Long metric labels must not widen the column: the popup shows them whole.
    combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
    combo.setMinimumContentsLength(8)
    combo.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
    return combo


class TrainingControls(AdaptiveForm):
    """Playback, the run's settings, the algorithms to compare and what the charts show."""

    play_requested = Signal(bool)  # True: play; False: pause
    advance_requested = Signal(int)  # motion reduced: Play advances the run this many steps
    step_requested = Signal()
    reset_requested = Signal()
    speed_requested = Signal(int)  # steps per second
    config_requested = Signal(object)  # TrainingConfig: the shown config with one change
    metric_requested = Signal(str)  # a key of METRICS, for the second chart
    focus_requested = Signal(str)  # an algorithm name, for the frontier's dots

    def __init__(
        self, theme: Theme = LIGHT, parent: QWidget | None = None, stepwise: bool = False
    ) -> None:
        """The controls, built whole; or with ``stepwise`` only begun: iterating
        :attr:`steps` then builds them in two steps (the fields, then the theme), as the
        Training page's idle prebuild does."""
        super().__init__(5, parent)
        self.setObjectName("trainingControls")
        self._fields_made = False  # a resize or font change before then has nothing to lay out
        self.steps: Iterator[str] = self._build_steps(theme)
        if not stepwise:
            deque(self.steps, maxlen=0)

    def _build_steps(self, theme: Theme) -> Iterator[str]:
        self.setAccessibleName("Training controls")
        self._theme = theme
        self._config: TrainingConfig | None = None
        self._playing = False
        self._metric: str | None = None
        self._focus: str | None = None
        self._shown: TrainingSnapshot | None = None  # the snapshot the controls show
        self._focus_names: tuple[str, ...] = ()

        self.play_button = QPushButton(PLAY_TEXT, objectName="playButton")
        self.play_button.setToolTip(PLAY_TIP)
        self.play_button.setAccessibleName("Play")
        self.step_button = QPushButton("Step", objectName="stepButton")
        self.step_button.setToolTip(STEP_TIP)
        self.reset_button = QPushButton("&Reset", objectName="resetButton")
        self.reset_button.setToolTip(RESET_TIP)
        self.progress = QProgressBar(objectName="trainingProgress")
        self.progress.setTextVisible(True)
        self.progress.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.progress.setToolTip(PROGRESS_TIP)
        self.progress.setAccessibleName("Training progress")
        self.progress.setRange(0, 1)
        self.progress.setValue(0)
        self.progress.setFormat("0 / 0")

        self.speed_spin = _spin("speedSpin", 1, 240)
        self.speed_spin.setValue(DEFAULT_SPEED)
        self.speed_spin.setSuffix(" /s")
        self.speed_spin.setAccessibleName("Speed in steps per second")
        self.speed_spin.setToolTip(SPEED_TIP)
        # Every setting's range is the one the run enforces (TRAINING_LIMITS): a value the spin
        # offers is never refused for being out of range, and a file's value always shows.
        self.steps_spin = _spin("stepsSpin", *TRAINING_LIMITS["steps"])
        self.steps_spin.setAccessibleName("Steps")
        self.steps_spin.setToolTip(STEPS_TIP)
        self.group_spin = _spin("trainingGroupSizeSpin", *TRAINING_LIMITS["group_size"])
        self.group_spin.setAccessibleName("Group size G")
        self.group_spin.setToolTip(GROUP_TIP)
        self.batch_spin = _spin("batchSpin", *TRAINING_LIMITS["batch"])
        self.batch_spin.setAccessibleName("Batch: problems per step")
        self.batch_spin.setToolTip(BATCH_TIP)
        self.lr_spin = _double_spin("trainingLrSpin", *TRAINING_LIMITS["learning_rate"], 0.5, 3)
        self.lr_spin.setAccessibleName("Learning rate")
        self.lr_spin.setToolTip(LR_TIP)
        self.seeds_spin = _spin("seedsSpin", *TRAINING_LIMITS["seeds"])
        self.seeds_spin.setAccessibleName("Seeds")
        self.seeds_spin.setToolTip(SEEDS_TIP)
        self.beta_spin = _double_spin("trainingBetaSpin", *TRAINING_LIMITS["beta"], 0.01, 3)
        self.beta_spin.setAccessibleName("KL weight beta")
        self.beta_spin.setToolTip(BETA_TIP)
        self.epochs_spin = _spin("epochsSpin", *TRAINING_LIMITS["epochs"])
        self.epochs_spin.setAccessibleName("Epochs per batch")
        self.epochs_spin.setToolTip(EPOCHS_TIP)

        # Why the last edit was not applied (the run keeps too much, say) and what stays.
        self.refusal = QLabel(objectName="trainingRefusal")
        self.refusal.setTextFormat(Qt.TextFormat.PlainText)
        self.refusal.setWordWrap(True)
        self.refusal.setVisible(False)

        self.algorithm_boxes: dict[str, QCheckBox] = {}
        for name in ALGORITHMS:
            box = QCheckBox(ALGORITHM_INFO[name].label, objectName=f"algorithm_{name}")
            box.setToolTip(_algorithm_tip(name))
            box.setAccessibleName(f"Run {ALGORITHM_INFO[name].label}")
            self.algorithm_boxes[name] = box
        self.algorithms_label = QLabel("Algorithms", objectName="trainingAlgorithmsLabel")
        self.algorithms_label.setToolTip("Which algorithms run side by side, on the same seeds")

        self.metric_combo = _combo("metricCombo")
        for key, (label, unit) in METRICS.items():
            self.metric_combo.addItem(label, key)
            tip = f"{label} ({unit})" if unit else label
            self.metric_combo.setItemData(
                self.metric_combo.count() - 1, tip, Qt.ItemDataRole.ToolTipRole
            )
        self.metric_combo.setAccessibleName("Second chart's metric")
        self.metric_combo.setToolTip(METRIC_TIP)
        self.focus_combo = _combo("focusCombo")
        self.focus_combo.setMinimumContentsLength(6)
        self.focus_combo.setAccessibleName("Frontier dots' algorithm")
        self.focus_combo.setToolTip(FOCUS_TIP)

        # Play, Step and Reset in a bar of their own: a page can keep it in view above a
        # column that scrolls (see detach_run_bar).
        self.run_bar = QWidget(self, objectName="trainingRunBar")
        self._run_bar_detached = False
        buttons = QHBoxLayout(self.run_bar)
        buttons.setContentsMargins(0, 0, 0, 0)
        buttons.setSpacing(6)
        for button in (self.play_button, self.step_button, self.reset_button):
            button.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
            buttons.addWidget(button)
        buttons.setStretch(0, 3)  # "❚❚ Pause" is the longest
        buttons.setStretch(1, 2)
        buttons.setStretch(2, 2)
        self._buttons = buttons

        # Mnemonics (Alt + letter) avoid the menu bar's &F &E &V &P &L &H and each other.
        self._speed_pair = (self._label("Spee&d", self.speed_spin), self.speed_spin)
        self._pairs = tuple(
            tuple((self._label(text, field), field) for text, field in pair)
            for pair in (
                (("S&teps", self.steps_spin), ("&Seeds", self.seeds_spin)),
                (("&G", self.group_spin), ("&Batch", self.batch_spin)),
                (("Le&arning rate", self.lr_spin), ("&KL β", self.beta_spin)),
                (("Ep&ochs", self.epochs_spin),),
            )
        )
        self._wide = (
            (self._label("&Metric", self.metric_combo), self.metric_combo),
            (self._label("Fro&ntier", self.focus_combo), self.focus_combo),
        )
        self.algorithms_label.setBuddy(self.algorithm_boxes[ALGORITHMS[0]])

        self._arrange(BESIDE)

        order = (
            self.play_button,
            self.step_button,
            self.reset_button,
            self.speed_spin,
            *(field for pair in self._pairs for _, field in pair),
            *self.algorithm_boxes.values(),
            self.metric_combo,
            self.focus_combo,
        )
        for first, second in itertools.pairwise(order):
            QWidget.setTabOrder(first, second)

        self.play_button.clicked.connect(self._play_clicked)
        self.speed_spin.valueChanged.connect(self._show_play)
        motion_preference().changed.connect(self._show_play)  # a bound slot: gone with self
        self.step_button.clicked.connect(self.step_requested)
        self.reset_button.clicked.connect(self.reset_requested)
        self.speed_spin.valueChanged.connect(self.speed_requested)
        for spin, field_name in (
            (self.steps_spin, "steps"),
            (self.group_spin, "group_size"),
            (self.batch_spin, "batch"),
            (self.lr_spin, "learning_rate"),
            (self.seeds_spin, "seeds"),
            (self.beta_spin, "beta"),
            (self.epochs_spin, "epochs"),
        ):
            spin.valueChanged.connect(lambda value, name=field_name: self._request(name, value))
        for name, box in self.algorithm_boxes.items():
            box.clicked.connect(lambda checked, n=name: self._toggle_algorithm(n, checked))
        self.metric_combo.activated.connect(self._choose_metric)
        self.focus_combo.activated.connect(self._choose_focus)
        self._fields_made = True
        yield "fields"
        self.set_theme(theme)
        yield "theme"

    def resizeEvent(self, event: QResizeEvent) -> None:  # Qt override
        if self._fields_made:
            super().resizeEvent(event)
        else:
            QWidget.resizeEvent(self, event)

    def changeEvent(self, event: QEvent) -> None:  # Qt override
        if self._fields_made:
            super().changeEvent(event)
        else:
            QWidget.changeEvent(self, event)

    # ----------------------------------------------------------------------------- public API

    def fields(self) -> tuple[QWidget, ...]:
        """Every control that shows the snapshot, in tab order (signals blocked while shown)."""
        return (
            self.play_button,
            self.speed_spin,
            self.steps_spin,
            self.seeds_spin,
            self.group_spin,
            self.batch_spin,
            self.lr_spin,
            self.beta_spin,
            self.epochs_spin,
            *self.algorithm_boxes.values(),
            self.metric_combo,
            self.focus_combo,
        )

    def show_snapshot(self, snapshot: TrainingSnapshot) -> None:
        """Set every control from ``snapshot``, emitting nothing. A snapshot that only chose
        another step or focus (the same bands as the one shown) sets the focus box alone."""
        previous, self._shown = self._shown, snapshot
        if previous is not None and _only_chosen(previous, snapshot):
            if snapshot.focus != self._focus:
                self._focus = snapshot.focus
                blocked = self.focus_combo.blockSignals(True)
                try:
                    self.focus_combo.setCurrentIndex(self.focus_combo.findData(snapshot.focus))
                finally:
                    self.focus_combo.blockSignals(blocked)
            return
        config = snapshot.config
        self._playing = snapshot.playing
        self._show_play()
        total = max(snapshot.total_steps, 1)
        done = min(max(snapshot.steps_done, 0), total)
        if self.progress.maximum() != total:
            self.progress.setRange(0, total)
        self.progress.setValue(done)
        self.progress.setFormat(f"{snapshot.steps_done} / {snapshot.total_steps}")
        self.progress.setAccessibleDescription(self.progress.format())
        finished = snapshot.steps_done >= snapshot.total_steps
        self.step_button.setEnabled(not finished)
        if snapshot.refusal != self.refusal.text():
            self.refusal.setText(snapshot.refusal)
            self.refusal.setAccessibleName(snapshot.refusal)
            self.refusal.setVisible(bool(snapshot.refusal))
        # Set whenever the field differs: an edit the controller refused shows the value in
        # force again. A field that already shows it is left alone (a spin box's setValue
        # repaints it even with its own value: seven repaints in every frame of a run).
        self._config = config
        self._metric = snapshot.metric
        self._focus = snapshot.focus
        fields = self.fields()
        for field in fields:
            field.blockSignals(True)
        try:
            for spin, value in (
                (self.steps_spin, config.steps),
                (self.group_spin, config.group_size),
                (self.batch_spin, config.batch),
                (self.lr_spin, config.learning_rate),
                (self.seeds_spin, config.seeds),
                (self.beta_spin, config.beta),
                (self.epochs_spin, config.epochs),
            ):
                if spin.value() != value:
                    spin.setValue(value)
            chosen = set(config.algorithms)
            for name, box in self.algorithm_boxes.items():
                box.setChecked(name in chosen)
                last = name in chosen and len(chosen) == 1
                tip = (
                    f"{_algorithm_tip(name)}\n{LAST_ALGORITHM_TIP}"
                    if last
                    else _algorithm_tip(name)
                )
                if box.toolTip() != tip:
                    box.setToolTip(tip)
            self.metric_combo.setCurrentIndex(self.metric_combo.findData(snapshot.metric))
            names = tuple(config.algorithms)
            if names != self._focus_names:
                self._focus_names = names
                self.focus_combo.clear()
                for name in names:
                    self.focus_combo.addItem(ALGORITHM_INFO[name].label, name)
                    self.focus_combo.setItemData(
                        self.focus_combo.count() - 1,
                        _algorithm_tip(name),
                        Qt.ItemDataRole.ToolTipRole,
                    )
            self.focus_combo.setCurrentIndex(self.focus_combo.findData(snapshot.focus))
        finally:
            for field in fields:
                field.blockSignals(False)

    def set_theme(self, theme: Theme) -> None:
        """Text at the theme's content size, labels in its text colour."""
        self._theme = theme
        self.setFont(scaled_font(theme.type_scale))
        self.run_bar.setFont(scaled_font(theme.type_scale))  # also when laid out elsewhere
        self.algorithms_label.setFont(scaled_font(theme.type_scale, bold=True))
        self.setStyleSheet(
            f"#trainingControls QLabel, #trainingControls QCheckBox {{ color: {theme.text}; }}"
            f" #trainingControls QLabel:disabled {{ color: {theme.muted}; }}"
            f" #trainingControls QLabel#trainingRefusal {{ background: {theme.banner_fill};"
            f" color: {theme.banner_text}; padding: 4px 6px; }}"
        )
        self._measure()

    def detach_run_bar(self) -> QWidget:
        """Take Play, Step and Reset out of the form, for the caller to lay out elsewhere: the
        Training page keeps them above its side column, so a lesson that scrolls the column to
        the frontier (1024×768) never scrolls them out of view."""
        if not self._run_bar_detached:
            self._run_bar_detached = True
            mode, self._mode = self._mode, ""
            self._arrange(mode or BESIDE)
            self._measure()
        return self.run_bar

    def config(self) -> TrainingConfig | None:
        """The config last shown (what a request changes one field of)."""
        return self._config

    def speed(self) -> int:
        return self.speed_spin.value()

    # ------------------------------------------------------------------------------ internals

    def _play_clicked(self) -> None:
        """Play or pause; with motion reduced (and not playing), advance the run instead."""
        if reduced_motion() and not self._playing:
            self.advance_requested.emit(self.speed())
        else:
            self.play_requested.emit(not self._playing)

    def _show_play(self, *_changed: object) -> None:
        """The Play button's words: Play, Pause, or (motion reduced) the steps a press takes."""
        button = self.play_button
        if self._playing:
            text, tip, name = PAUSE_TEXT, PAUSE_TIP, "Pause"
        elif reduced_motion():
            steps = self.speed()
            text, tip, name = advance_text(steps), ADVANCE_TIP, f"Advance {steps} steps"
        else:
            text, tip, name = PLAY_TEXT, PLAY_TIP, "Play"
        if button.text() != text:
            button.setText(text)
        if button.toolTip() != tip:  # set each frame, a tooltip is an event and a relayout
            button.setToolTip(tip)
        if button.accessibleName() != name:
            button.setAccessibleName(name)

    def _place(self, grid: QGridLayout, beside: bool) -> int:
        if not self._run_bar_detached:
            grid.addWidget(self.run_bar, 0, 0, 1, 4)
        # The speed sits beside the progress bar: both are about playing, not the run's settings.
        label, field = self._speed_pair
        if beside:
            grid.addWidget(label, 1, 0)
            grid.addWidget(field, 1, 1)
            grid.addWidget(self.progress, 1, 2, 1, 2)
            row = 2
        else:
            grid.addWidget(label, 1, 0, 1, 2)
            grid.addWidget(field, 2, 0, 1, 2)
            grid.addWidget(self.progress, 2, 2, 1, 2)
            row = 3
        row = self._place_pairs(grid, self._pairs, row, beside)
        grid.addWidget(self.refusal, row, 0, 1, 4)  # under the settings it is about
        row += 1
        grid.addWidget(self.algorithms_label, row, 0, 1, 4)
        row += 1
        for index, box in enumerate(self.algorithm_boxes.values()):
            grid.addWidget(box, row + index // 2, 2 * (index % 2), 1, 2)
        row += (len(self.algorithm_boxes) + 1) // 2
        for label, field in self._wide:
            if beside:
                grid.addWidget(label, row, 0)
                grid.addWidget(field, row, 1, 1, 3)
                row += 1
            else:
                grid.addWidget(label, row, 0, 1, 4)
                grid.addWidget(field, row + 1, 0, 1, 4)
                row += 2
        return row

    def _request(self, field_name: str, value: object) -> None:
        """Ask for the shown config with ``field_name`` changed (nothing if unchanged)."""
        if self._config is None:
            return
        if getattr(self._config, field_name) == value:
            return
        self.config_requested.emit(dataclasses.replace(self._config, **{field_name: value}))

    def _toggle_algorithm(self, name: str, checked: bool) -> None:
        """Ask for the algorithms ticked now (in ALGORITHMS order); the last one stays ticked."""
        if self._config is None:
            return
        chosen = [other for other, box in self.algorithm_boxes.items() if box.isChecked()]
        if not chosen:
            box = self.algorithm_boxes[name]
            box.blockSignals(True)
            box.setChecked(True)  # at least one algorithm must run
            box.blockSignals(False)
            return
        self._request("algorithms", tuple(chosen))

    def _choose_metric(self, index: int) -> None:
        key = self.metric_combo.itemData(index)
        if key is not None and key != self._metric:
            self.metric_requested.emit(str(key))

    def _choose_focus(self, index: int) -> None:
        name = self.focus_combo.itemData(index)
        if name is not None and name != self._focus:
            self.focus_requested.emit(str(name))
