"""The Update workspace's settings: loss presets, clip, KL, inner steps, and two demonstrations.

A view (DESIGN §2): it shows ``snapshot.settings`` and asks for changes. A user's edit emits
``settings_requested`` with a new ``UpdateSettings`` (the last shown settings with that one field
replaced); setting the controls from a snapshot emits nothing, so showing never loops back into a
request. A compact form for a right-hand column 300–420 px wide: two settings per row with
each label beside its field, or above it when the column is too narrow for that (projector).
"""

from __future__ import annotations

import dataclasses
import itertools
from collections import deque
from collections.abc import Iterator

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QComboBox,
    QDoubleSpinBox,
    QGridLayout,
    QPushButton,
    QSizePolicy,
    QSpinBox,
    QWidget,
)

from grpo_desktop.core.common.theme import LIGHT, Theme
from grpo_desktop.core.update.update_settings import UPDATE_LIMITS, UpdateSettings
from grpo_desktop.core.update.update_snapshot import PresetInfo, UpdateSnapshot
from grpo_desktop.views.common.adaptive_form import BESIDE, AdaptiveForm
from grpo_desktop.views.common.fonts import scaled_font

__all__ = ["UpdateControls"]


EPS_LOW_TIP = (
    "Lower clip ε_low: the ratio may fall to 1 − ε_low before a pushed-down token's gradient is cut"
)
EPS_HIGH_TIP = (
    "Upper clip ε_high: the ratio may rise to 1 + ε_high before a pushed-up token's gradient is cut"
)
CLIP_C_TIP = "Dual clip c: for A < 0 the loss is capped at c·|A|, so a huge ratio cannot explode it"
CLIP_C_OFF_TIP = "Dual clip c: unused, the main loss preset has no dual clip"
BETA_TIP = (
    "KL weight β: how strongly the loss pulls the policy back to the reference (0: no KL term)"
)
KL_TIP = "KL estimator: how the per-token KL to the reference is estimated (k1, k2 or k3)"
KL_OFF_BETA_TIP = "KL estimator: unused while β is 0 (no KL term)"
KL_OFF_ONE_TIP = "KL estimator: the main preset's library offers only this one"
INNER_STEPS_TIP = (
    "Inner steps: gradient steps the stand-in policy takes on this batch (0: on-policy)"
)
LEARNING_RATE_TIP = (
    "Learning rate of the stand-in policy's inner steps: larger moves the ratio further"
)
PRESET_TIP = (
    "Main loss preset: how the per-token losses are aggregated (hover an item for its formula)"
)
COMPARE_TIP = "Comparison preset: drawn hatched beside the main one in the push chart"
COMPARE_EPS_HIGH_TIP = (
    "The comparison's own ε_high (its hatched bars); “same”: the main ε_high. One preset "
    "against itself with two upper clips is a comparison too: Clip-higher sets 0.28 against 0.2"
)
SAME = "same"  # what a comparison ε shows when it follows the main one
LENGTH_BIAS_TIP = "One short right answer, one long wrong one: token-mean vs seq-mean-token-mean"
CLIP_HIGHER_TIP = (
    "DAPO's clip-higher against the symmetric clip: trl/dapo with ε_high 0.28 (solid) and 0.2 "
    "(hatched), after 4 inner steps, on 23 × 47"
)


def _preset_tooltip(preset: PresetInfo) -> str:
    return f"{preset.formula}\n{preset.description}\n{preset.source}"


def _double_spin(name: str, setting: str, step: float, decimals: int) -> QDoubleSpinBox:
    """A spin box over ``setting``'s range in the core's UPDATE_LIMITS."""
    spin = QDoubleSpinBox(objectName=name)
    limit = UPDATE_LIMITS[setting]
    spin.setDecimals(decimals)  # before the range: Qt rounds the range to the decimals
    spin.setRange(limit.lowest(decimals), limit.high)
    spin.setSingleStep(step)
    spin.setKeyboardTracking(False)  # typing "0.28" is one request, not three
    spin.setAccelerated(True)
    spin.setCorrectionMode(QAbstractSpinBox.CorrectionMode.CorrectToNearestValue)
    spin.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
    return spin


def _same_or_eps_spin(name: str) -> QDoubleSpinBox:
    """A comparison ε: in its range, or “same” (one step below it) to follow the main side's."""
    spin = _double_spin(name, "compare_eps_high", 0.01, 2)
    spin.setMinimum(spin.minimum() - spin.singleStep())
    spin.setSpecialValueText(SAME)
    return spin


def _show_value(spin: QSpinBox | QDoubleSpinBox, value: float) -> None:
    """``spin.setValue(value)``, unless the box already holds that value and shows exactly
    the text it would show for it: Qt repaints a spin box on every ``setValue``, even of the
    value it has, and a card toggle showed seven of them again (and the panel behind them). A
    box whose text is being typed over is set, as before."""
    if isinstance(spin, QDoubleSpinBox):
        target: float = float(f"{value:.{spin.decimals()}f}")  # Qt rounds so to its decimals
    else:
        target = int(value)
    target = min(max(target, spin.minimum()), spin.maximum())
    if spin.value() == target:
        special = spin.specialValueText()
        if special and target == spin.minimum():
            text = special
        else:
            text = spin.prefix() + spin.textFromValue(target) + spin.suffix()  # type: ignore[arg-type]
        if spin.text() == text:
            return
    spin.setValue(value)  # type: ignore[arg-type]


def _combo(name: str) -> QComboBox:
    combo = QComboBox(objectName=name)
    # Long preset labels must not widen the column: the popup shows them whole.
    combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
    combo.setMinimumContentsLength(6)
    combo.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
    return combo


class UpdateControls(AdaptiveForm):
    """Every Update setting as a labelled control, plus the Length bias and Clip-higher demos."""

    settings_requested = Signal(object)  # UpdateSettings: the shown settings with one change
    length_bias_requested = Signal()
    clip_higher_requested = Signal()

    def __init__(
        self, theme: Theme = LIGHT, parent: QWidget | None = None, stepwise: bool = False
    ) -> None:
        """The controls, built whole; or with ``stepwise`` only begun: iterating :attr:`steps`
        then builds them in two steps (the fields and their layout, then the theme), as the
        Update page's idle prebuild does, a step per turn of the event loop."""
        super().__init__(6, parent)
        self.setObjectName("updateControls")
        self.setAccessibleName("Update settings")
        self._theme = theme
        self._settings: UpdateSettings | None = None
        self._presets: tuple[PresetInfo, ...] = ()
        self._estimators: tuple[str, ...] = ()
        # What show_snapshot last put in the fields, until a field is edited: a card toggle
        # brings the same settings, and setting ten fields to what they show cost 0.3 ms.
        self._shown: tuple | None = None
        self.steps: Iterator[str] = self._build_steps(theme)
        if not stepwise:
            deque(self.steps, maxlen=0)

    def _build_steps(self, theme: Theme) -> Iterator[str]:
        """The fields, their labels, layout and wiring; then the theme (a style sheet over
        every field: about half of the controls' cost). Each step's name is yielded after it."""
        self.preset_combo = _combo("lossPresetCombo")
        self.preset_combo.setAccessibleName("Loss preset")
        self.preset_combo.setToolTip(PRESET_TIP)
        self.compare_combo = _combo("comparePresetCombo")
        self.compare_combo.setAccessibleName("Comparison preset")
        self.compare_combo.setToolTip(COMPARE_TIP)
        self.eps_low_spin = _double_spin("epsLowSpin", "eps_low", 0.01, 2)
        self.eps_low_spin.setAccessibleName("Epsilon low")
        self.eps_low_spin.setToolTip(EPS_LOW_TIP)
        self.eps_high_spin = _double_spin("epsHighSpin", "eps_high", 0.01, 2)
        self.eps_high_spin.setAccessibleName("Epsilon high")
        self.eps_high_spin.setToolTip(EPS_HIGH_TIP)
        self.compare_eps_high_spin = _same_or_eps_spin("compareEpsHighSpin")
        self.compare_eps_high_spin.setAccessibleName("Comparison epsilon high")
        self.compare_eps_high_spin.setToolTip(COMPARE_EPS_HIGH_TIP)
        self.clip_c_spin = _double_spin("clipCSpin", "clip_ratio_c", 0.5, 2)
        self.clip_c_spin.setAccessibleName("Dual clip c")
        self.clip_c_spin.setToolTip(CLIP_C_TIP)
        self.beta_spin = _double_spin("betaSpin", "beta", 0.01, 3)
        self.beta_spin.setAccessibleName("KL weight beta")
        self.beta_spin.setToolTip(BETA_TIP)
        self.kl_combo = _combo("klEstimatorCombo")
        self.kl_combo.setMinimumContentsLength(3)
        self.kl_combo.setAccessibleName("KL estimator")
        self.kl_combo.setToolTip(KL_TIP)
        self.inner_steps_spin = QSpinBox(objectName="innerStepsSpin")
        steps = UPDATE_LIMITS["inner_steps"]
        self.inner_steps_spin.setRange(int(steps.low), int(steps.high))  # the checks' own
        self.inner_steps_spin.setKeyboardTracking(False)
        self.inner_steps_spin.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.inner_steps_spin.setAccessibleName("Inner steps")
        self.inner_steps_spin.setToolTip(INNER_STEPS_TIP)
        self.learning_rate_spin = _double_spin("learningRateSpin", "learning_rate", 0.05, 2)
        self.learning_rate_spin.setAccessibleName("Learning rate")
        self.learning_rate_spin.setToolTip(LEARNING_RATE_TIP)
        self.length_bias_button = QPushButton("Length &bias", objectName="lengthBiasButton")
        self.length_bias_button.setToolTip(LENGTH_BIAS_TIP)
        self.clip_higher_button = QPushButton("&Clip-higher", objectName="clipHigherButton")
        self.clip_higher_button.setToolTip(CLIP_HIGHER_TIP)

        # Mnemonics (Alt + letter) avoid the menu bar's: File, Edit, View, Presets, Lesson, Help.
        self._wide = (
            (self._label("L&oss", self.preset_combo), self.preset_combo),
            (self._label("Co&mpare", self.compare_combo), self.compare_combo),
        )
        # Two settings per row, left then right: the order a reader (and Tab) goes through.
        self._pairs = tuple(
            tuple((self._label(text, field), field) for text, field in pair)
            for pair in (
                (("ε lo&w", self.eps_low_spin), ("ε hi&gh", self.eps_high_spin)),
                (("&Dual clip c", self.clip_c_spin), ("&KL β", self.beta_spin)),
                (("KL es&timator", self.kl_combo), ("&Inner steps", self.inner_steps_spin)),
                (
                    ("Lea&rning rate", self.learning_rate_spin),
                    ("Comp&are ε high", self.compare_eps_high_spin),
                ),
            )
        )
        self._arrange(BESIDE)

        order = (*self.fields(), self.length_bias_button, self.clip_higher_button)
        for first, second in itertools.pairwise(order):
            QWidget.setTabOrder(first, second)

        self.preset_combo.activated.connect(
            lambda i: self._request_choice(self.preset_combo, i, "preset")
        )
        self.compare_combo.activated.connect(
            lambda i: self._request_choice(self.compare_combo, i, "compare_preset")
        )
        self.kl_combo.activated.connect(
            lambda i: self._request_choice(self.kl_combo, i, "kl_estimator")
        )
        for spin, field_name in (
            (self.eps_low_spin, "eps_low"),
            (self.eps_high_spin, "eps_high"),
            (self.clip_c_spin, "clip_ratio_c"),
            (self.beta_spin, "beta"),
            (self.inner_steps_spin, "inner_steps"),
            (self.learning_rate_spin, "learning_rate"),
        ):
            spin.valueChanged.connect(lambda value, name=field_name: self._request(name, value))
        self.compare_eps_high_spin.valueChanged.connect(self._request_compare_eps_high)
        for field in self.fields():  # edited (typed over, chosen): the next snapshot sets it
            if isinstance(field, QComboBox):
                field.currentIndexChanged.connect(self._forget_shown)
            else:  # typed: the box's own text changed signals wait for a committed value
                field.lineEdit().textEdited.connect(self._forget_shown)
        self.length_bias_button.clicked.connect(self.length_bias_requested)
        self.clip_higher_button.clicked.connect(self.clip_higher_requested)
        yield "fields and layout"
        self.set_theme(theme)
        yield "theme"

    # ----------------------------------------------------------------------------- public API

    def fields(self) -> tuple[QWidget, ...]:
        """The setting controls in visual (and tab) order."""
        return (
            self.preset_combo,
            self.compare_combo,
            self.eps_low_spin,
            self.eps_high_spin,
            self.clip_c_spin,
            self.beta_spin,
            self.kl_combo,
            self.inner_steps_spin,
            self.learning_rate_spin,
            self.compare_eps_high_spin,
        )

    def show_snapshot(self, snapshot: UpdateSnapshot) -> None:
        """Set every control from ``snapshot.settings``, emitting nothing (nothing at all when
        they show those settings already and no field was edited since)."""
        settings = snapshot.settings
        self._settings = settings
        shown = (settings, snapshot.presets, snapshot.kl_estimators, snapshot.clip_c_applies)
        if shown == self._shown:
            return
        for field in self.fields():
            field.blockSignals(True)
        try:
            if snapshot.presets != self._presets:
                self._presets = snapshot.presets
                for combo in (self.preset_combo, self.compare_combo):
                    combo.clear()
                    for preset in snapshot.presets:
                        combo.addItem(preset.label, preset.name)
                        combo.setItemData(
                            combo.count() - 1,
                            _preset_tooltip(preset),
                            Qt.ItemDataRole.ToolTipRole,
                        )
            if snapshot.kl_estimators != self._estimators:
                self._estimators = snapshot.kl_estimators
                self.kl_combo.clear()
                for estimator in snapshot.kl_estimators:
                    self.kl_combo.addItem(estimator, estimator)
            self.preset_combo.setCurrentIndex(self.preset_combo.findData(settings.preset))
            self.compare_combo.setCurrentIndex(self.compare_combo.findData(settings.compare_preset))
            self.kl_combo.setCurrentIndex(self.kl_combo.findData(settings.kl_estimator))
            _show_value(self.eps_low_spin, settings.eps_low)
            _show_value(self.eps_high_spin, settings.eps_high)
            high = settings.compare_eps_high
            spin = self.compare_eps_high_spin
            _show_value(spin, spin.minimum() if high is None else high)
            _show_value(self.clip_c_spin, settings.clip_ratio_c)
            _show_value(self.beta_spin, settings.beta)
            _show_value(self.inner_steps_spin, settings.inner_steps)
            _show_value(self.learning_rate_spin, settings.learning_rate)
        finally:
            for field in self.fields():
                field.blockSignals(False)

        applies = snapshot.clip_c_applies
        self._enable(self.clip_c_spin, applies, CLIP_C_TIP if applies else CLIP_C_OFF_TIP)
        if settings.beta == 0:
            kl_on, kl_tip = False, KL_OFF_BETA_TIP
        elif len(snapshot.kl_estimators) <= 1:
            kl_on, kl_tip = False, KL_OFF_ONE_TIP
        else:
            kl_on, kl_tip = True, KL_TIP
        self._enable(self.kl_combo, kl_on, kl_tip)
        self._shown = shown

    def _forget_shown(self, *_args: object) -> None:
        self._shown = None

    def set_theme(self, theme: Theme) -> None:
        """Text at the theme's content size, labels in its text colour."""
        self._theme = theme
        self.setFont(scaled_font(theme.type_scale))
        self.setStyleSheet(
            f"#updateControls QLabel {{ color: {theme.text}; }}"
            f" #updateControls QLabel:disabled {{ color: {theme.muted}; }}"
        )
        self._measure()

    def settings(self) -> UpdateSettings | None:
        """The settings last shown (what a request changes one field of)."""
        return self._settings

    # ------------------------------------------------------------------------------ internals

    def _place(self, grid: QGridLayout, beside: bool) -> int:
        # A preset's label keeps the first column; its field spans the other three.
        for row, (label, field) in enumerate(self._wide):
            grid.addWidget(label, row, 0)
            grid.addWidget(field, row, 1, 1, 3)
        row = self._place_pairs(grid, self._pairs, len(self._wide), beside)
        grid.addWidget(self.length_bias_button, row, 0, 1, 2)
        grid.addWidget(self.clip_higher_button, row, 2, 1, 2)
        return row + 1

    def _enable(self, field: QWidget, enabled: bool, tip: str) -> None:
        """Enable or disable a field and its label; a disabled one's tooltip says why."""
        field.setEnabled(enabled)
        field.setToolTip(tip)
        label = self.labels[field.objectName()]
        label.setEnabled(enabled)
        label.setToolTip(tip)

    def _request_compare_eps_high(self, value: float) -> None:
        """“same” (the spin's minimum) is None: the comparison follows the main ε_high."""
        same = value <= self.compare_eps_high_spin.minimum()
        self._request("compare_eps_high", None if same else value)

    def _request_choice(self, combo: QComboBox, index: int, field_name: str) -> None:
        value = combo.itemData(index)
        if value is not None:
            self._request(field_name, value)

    def _request(self, field_name: str, value: object) -> None:
        """Ask for the last shown settings with ``field_name`` changed (nothing if unchanged)."""
        if self._settings is None:
            return
        if getattr(self._settings, field_name) == value:
            return
        self.settings_requested.emit(dataclasses.replace(self._settings, **{field_name: value}))
