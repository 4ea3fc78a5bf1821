"""The "Rewards" tab: which reward functions make a card's reward, their weights, and the switch to
set each reward by hand (continuous mode).

A view (DESIGN §2): it shows the lab's snapshot and emits ``weight_requested(name, weight)`` and
``by_hand_requested(on)``; the workbench makes each one an undo step. All text from a run's file is
plain text.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QDoubleSpinBox,
    QGridLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from grpo_desktop.core.common.theme import LIGHT, Theme
from grpo_desktop.core.lab.lab_rewards import (
    COMPONENT_LABELS,
    MAX_WEIGHT,
    MIN_WEIGHT,
    REWARD_COMPONENTS,
    RewardWeights,
    component_notes,
)
from grpo_desktop.core.lab.lab_snapshot import LabSnapshot
from grpo_desktop.views.common.fonts import scaled_font

TRL_RULE = (
    "As TRL sums reward functions: r = Σ weight × reward, and a function that does not apply "
    "to an answer is skipped (nansum). The advantage then scores this sum."
)
BY_HAND_HINT = (
    "Continuous mode: drag a card sideways, or click it and press + or −, to set its reward "
    "(a reward model's score, say). Ctrl+Z undoes a drag."
)
#: The quick choices: the seeds' verifiable reward, and DeepSeek-R1's accuracy plus format.
WEIGHT_CHOICES = (
    ("Accuracy only", RewardWeights()),
    ("Accuracy + format (R1)", RewardWeights(accuracy=1.0, format=1.0)),
)


def _plain(text: str = "", name: str = "") -> QLabel:
    label = QLabel(text, objectName=name) if name else QLabel(text)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setWordWrap(True)
    return label


class RewardPanel(QWidget):
    """Weights of accuracy, format and partial credit, and the continuous-mode switch."""

    weight_requested = Signal(str, float)
    by_hand_requested = Signal(bool)
    weights_requested = Signal(object)  # RewardWeights: a quick choice sets all three at once

    def __init__(self, theme: Theme = LIGHT, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("rewardPanel")
        self._theme = theme
        self.formula = _plain(name="rewardFormula")
        self.source = _plain(name="rewardSource")
        self.spins: dict[str, QDoubleSpinBox] = {}
        self.notes: dict[str, QLabel] = {}
        self.names: dict[str, QLabel] = {}
        grid = QGridLayout()
        grid.setHorizontalSpacing(10)
        grid.setVerticalSpacing(6)
        for row, name in enumerate(REWARD_COMPONENTS):
            spin = QDoubleSpinBox(objectName=f"weight_{name}")
            spin.setRange(MIN_WEIGHT, MAX_WEIGHT)
            spin.setSingleStep(0.25)
            spin.setDecimals(2)
            spin.setKeyboardTracking(False)  # typing "0.5" is one request, not "0" then "0.5"
            spin.setAccessibleName(f"Weight of {COMPONENT_LABELS[name]}")
            spin.valueChanged.connect(lambda value, n=name: self._on_spin(n, value))
            self.spins[name] = spin
            self.names[name] = _plain(COMPONENT_LABELS[name])
            self.notes[name] = _plain(name=f"rewardNote_{name}")
            # The name above its note (not beside it): the tab stays narrow enough for a
            # projector's large type or 200 % zoom without a horizontal scroll bar.
            text = QVBoxLayout()
            text.setSpacing(0)
            text.addWidget(self.names[name])
            text.addWidget(self.notes[name])
            grid.addWidget(spin, row, 0, Qt.AlignmentFlag.AlignTop)
            grid.addLayout(text, row, 1)
        grid.setColumnStretch(1, 1)
        choices = QVBoxLayout()  # stacked: the tab stays narrow at 200 % zoom
        self.choice_buttons: list[QPushButton] = []
        for label, weights in WEIGHT_CHOICES:
            button = QPushButton(label)
            button.clicked.connect(lambda _=False, w=weights: self.weights_requested.emit(w))
            self.choice_buttons.append(button)
            choices.addWidget(button, 0, Qt.AlignmentFlag.AlignLeft)
        self.rule = _plain(TRL_RULE)
        self.by_hand = QCheckBox("Rewards by hand", objectName="byHand")
        self.by_hand.toggled.connect(self._on_by_hand)
        self.by_hand_hint = _plain(BY_HAND_HINT)
        column = QVBoxLayout(self)
        column.setContentsMargins(10, 8, 10, 8)
        column.setSpacing(8)
        column.addWidget(self.formula)
        column.addWidget(self.source)
        column.addLayout(grid)
        column.addLayout(choices)
        column.addWidget(self.rule)
        column.addWidget(self.by_hand)
        column.addWidget(self.by_hand_hint)
        column.addStretch(1)
        self._showing = False
        self.set_theme(theme)

    def show_snapshot(self, snapshot: LabSnapshot) -> None:
        """The lab's weights, what each function gives here, and whether rewards are by hand."""
        self._showing = True  # setting the controls must not echo back as requests
        try:
            recorded = snapshot.recorded
            weights = snapshot.weights.as_dict()
            for name, spin in self.spins.items():
                spin.setValue(weights[name])
                spin.setEnabled(not snapshot.by_hand)
            for button in self.choice_buttons:
                button.setEnabled(not snapshot.by_hand)
            # A run's rewards came from its own functions: the lab's weights have no say.
            for widget in (
                *self.spins.values(),
                *self.names.values(),
                *self.notes.values(),
                *self.choice_buttons,
                self.rule,
            ):
                widget.setVisible(recorded is None)
            if recorded is not None:
                names = ", ".join(name for name, _ in recorded.components)
                if recorded.from_model:
                    self.formula.setText("r = the reward graded when the model wrote it")
                    self.source.setText(
                        f"This group was sampled from {recorded.origin}. Its rewards were graded "
                        f"then, by the lab's reward functions ({names}) under the weights of that "
                        "moment. Each card lists their values."
                    )
                else:
                    self.formula.setText("r = the reward the run logged")
                    self.source.setText(
                        f"This group comes from a real run ({recorded.origin}). Its rewards are "
                        f"the ones the run logged; its reward functions were: {names}. Each card "
                        "lists their values."
                    )
                notes = dict.fromkeys(REWARD_COMPONENTS, "")
            else:
                self.formula.setText(snapshot.weights.formula)
                self.source.setText(f"Reward functions of “{snapshot.problem.title}”:")
                notes = component_notes(snapshot.problem)
            if snapshot.by_hand:
                self.formula.setText("r = set by hand for each card (continuous mode)")
            for name, label in self.notes.items():
                label.setText(notes[name])
            self.by_hand.setChecked(snapshot.by_hand)
        finally:
            self._showing = False

    def set_theme(self, theme: Theme) -> None:
        self._theme = theme
        scale = theme.type_scale
        self.formula.setFont(scaled_font(1.2 * scale, bold=True))
        for label in (self.source, self.rule, self.by_hand_hint, *self.notes.values()):
            label.setFont(scaled_font(0.95 * scale))
        for label in self.names.values():
            label.setFont(scaled_font(1.0 * scale, bold=True))
        muted = f"color: {theme.muted};"
        for label in (self.rule, self.by_hand_hint, *self.notes.values()):
            label.setStyleSheet(muted)

    def _on_spin(self, name: str, value: float) -> None:
        if not self._showing:
            self.weight_requested.emit(name, float(value))

    def _on_by_hand(self, on: bool) -> None:
        if not self._showing:
            self.by_hand_requested.emit(on)
