"""The tool bar's lab controls kept in step with the workbench: G, convention, view, by hand.

The window's actions and boxes that act on the lab's group (presets, sample, reset, G and its
[ ] keys, by-hand rewards, the rewards/advantages toggle, keys 1–9) show the active lab and the
workbench's convention and view, and rest where the workspace on screen says they would change
an unseen group (``Workspace.lab_controls``). The window builds them (``window_actions.py``);
this object only follows the model and never asks it for anything.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import QComboBox, QSpinBox

from grpo_desktop.core.formulas import advantages
from grpo_desktop.core.lab.lab_limits import MAX_GROUP_SIZE, MIN_GROUP_SIZE
from grpo_desktop.core.lab.lab_snapshot import LabSnapshot
from grpo_desktop.model.lab_state import LabState
from grpo_desktop.model.settings import ANIMATION_STEP_CHOICES_MS
from grpo_desktop.model.workbench import Workbench
from grpo_desktop.views.lab.advantage_chart import AdvantageChart

__all__ = ["LabControls", "make_convention_combo", "make_group_size_spin"]


def make_group_size_spin() -> QSpinBox:
    spin = QSpinBox(objectName="groupSizeSpin")
    spin.setRange(MIN_GROUP_SIZE, MAX_GROUP_SIZE)
    spin.setAccessibleName("Group size G")
    spin.setToolTip(
        f"How many answers the model samples for this problem ({MIN_GROUP_SIZE}–"
        f"{MAX_GROUP_SIZE}); [ and ] change it"
    )
    spin.setKeyboardTracking(False)
    return spin


def make_convention_combo() -> QComboBox:
    combo = QComboBox(objectName="conventionCombo")
    combo.setAccessibleName("Convention")
    for convention in advantages.CONVENTIONS.values():
        combo.addItem(convention.label, convention.name)
        tip = f"{convention.formula}\n{convention.source}"
        combo.setItemData(combo.count() - 1, tip, Qt.ItemDataRole.ToolTipRole)
    combo.setToolTip("How advantages are computed: the textbook or a real trainer's code")
    return combo


class LabControls(QObject):
    """Follows the workbench for the window's lab controls (``window`` is a ``MainWindow``)."""

    def __init__(self, window: Any, workbench: Workbench) -> None:
        super().__init__(window)
        self._window = window
        self._workbench = workbench
        self.stepping = False  # a view change asked for one animation step (step_chart)
        self._step_ms = 0  # set from the settings by the window
        for lab in workbench.labs:
            self._follow_lab(lab)
        workbench.comparison_created.connect(lambda labs: [self._follow_lab(lab) for lab in labs])
        workbench.convention_changed.connect(self.show_convention)
        workbench.view_changed.connect(self.show_view)
        workbench.active_lab_changed.connect(lambda lab: self.show_group_size(lab.snapshot))

    def _follow_lab(self, lab: LabState) -> None:
        lab.snapshot_changed.connect(lambda snapshot: self.show_snapshot(lab, snapshot))

    def enable(self, enabled: bool) -> None:
        """The toolbar's group controls (presets, sample, G, rewards/advantages) and keys 1–9
        act on the lab's group: off where they would change an unseen group (the Training run
        has its own G)."""
        for action in (
            *self._window.reward_pattern_actions.values(),
            self._window.sample_action,
            self._window.reset_action,
            self._window.grow_action,
            self._window.shrink_action,
            self._window.view_toggle,
            self._window.by_hand_action,
            *self._window.card_shortcuts,
        ):
            action.setEnabled(enabled)
        if not enabled:
            self._drop_unconfirmed_group_size(self._workbench.active_lab.group_size)
        self._window.group_size_spin.setEnabled(enabled)
        self._window.group_size_tool.setVisible(enabled)  # the Training run shows its own G box
        self.show_group_size(self._workbench.active_lab.snapshot)  # a run's group stays its size

    def show_view(self, view: str, animate: bool) -> None:
        checked = view == "advantage"  # "Show advantages" is ticked exactly while A shows
        if self._window.view_toggle.isChecked() != checked:
            self._window.view_toggle.setChecked(checked)  # its toggled signal asks again: a no-op
        stepped = self.stepping
        for chart in self._window.charts:
            chart.set_view(view, animate=animate and chart.isVisible(), stepped=stepped)
        if stepped and any(
            chart.waiting() or chart.is_animating() for chart in self._window.charts
        ):
            self._window.statusBar().showMessage(
                "Step 1 of 2 — Page Down: the next step; Page Up: back"
                if view == "advantage"
                else "Step 1 of 2 (reverse) — Page Up: the next step; Page Down: back"
            )

    def show_convention(self, name: str) -> None:
        self._window.convention_combo.setCurrentIndex(self._window.convention_combo.findData(name))
        for action in self._window.convention_actions.actions():
            action.setChecked(action.data() == name)

    def show_snapshot(self, lab: LabState, snapshot: LabSnapshot) -> None:
        if lab is self._workbench.active_lab:
            self.show_group_size(snapshot)
            if self._window.by_hand_action.isChecked() != snapshot.by_hand:
                self._window.by_hand_action.setChecked(snapshot.by_hand)
        if snapshot.sample_seed is not None:
            self._window.statusBar().showMessage(
                f"Sampled with seed {snapshot.sample_seed}: each answer right with probability "
                f"{snapshot.problem.pass_rate:.0%} (replay it with --sample {snapshot.sample_seed})"
            )

    def _drop_unconfirmed_group_size(self, group_size: int) -> None:
        """Show ``group_size`` in the G box, dropping a value typed but not confirmed: disabling
        a spin box commits its text, so a G typed before a run's group opened (or before the
        Training run showed) would be asked for after, of a group that cannot take it (found by
        the soak)."""
        spin = self._window.group_size_spin
        shown = spin.textFromValue(group_size)
        if spin.isEnabled() and spin.lineEdit().text() != shown:
            spin.blockSignals(True)
            spin.lineEdit().setText(shown)
            spin.blockSignals(False)

    def show_group_size(self, snapshot: LabSnapshot) -> None:
        """The G box shows the active lab without asking for a change itself."""
        if (
            self._window.group_size_spin.value() != snapshot.group_size
        ):  # Qt repaints it even if same
            self._window.group_size_spin.blockSignals(True)
            self._window.group_size_spin.setValue(snapshot.group_size)
            self._window.group_size_spin.blockSignals(False)
        resizable = snapshot.recorded is None and self._window.workspace.lab_controls
        if not resizable:
            self._drop_unconfirmed_group_size(snapshot.group_size)
        for control in (
            self._window.group_size_spin,
            self._window.grow_action,
            self._window.shrink_action,
        ):
            control.setEnabled(resizable)  # a run's group has the size the run sampled

    # --- the lab charts' animation (View menu) ---------------------------------------------

    def set_animation_enabled(self, enabled: bool) -> None:
        if self._window.animate_action.isChecked() != enabled:
            self._window.animate_action.setChecked(enabled)
            return
        self._window.settings.animate = enabled
        for chart in self._window.charts:
            chart.set_animation_enabled(enabled)

    @property
    def animation_step_ms(self) -> int:
        """How long each captioned step of the reward → advantage animation lasts (View menu)."""
        return self._step_ms

    def set_animation_step_ms(self, ms: int, remember: bool = True) -> None:
        """Each captioned animation step lasts ``ms`` (one of the View menu's choices)."""
        if ms not in ANIMATION_STEP_CHOICES_MS:
            raise ValueError(f"an animation step lasts one of {ANIMATION_STEP_CHOICES_MS} ms")
        self._step_ms = ms
        if remember:
            self._window.settings.animation_step_ms = ms
        for action in self._window.animation_step_actions.actions():
            action.setChecked(action.data() == ms)
        for chart in self._window.charts:
            chart.animation_ms = 2 * ms

    def set_up_chart(self, chart: AdvantageChart) -> None:
        """A lab chart made later (the comparison's) starts as the window's charts are."""
        chart.set_animation_enabled(self._window.animate_action.isChecked())
        chart.animation_ms = 2 * self.animation_step_ms
        chart.set_view(self._window.view, animate=False)
