"""UpdateControls: users' edits ask for new settings; showing a snapshot asks for nothing."""

from __future__ import annotations

import dataclasses

import pytest
from event_log import EventLog
from PySide6.QtCore import Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QApplication, QLabel

from grpo_desktop.core.common.theme import LIGHT, PROJECTOR
from grpo_desktop.core.update.update_settings import UpdateSettings
from grpo_desktop.core.update.update_snapshot import PresetInfo, UpdateSnapshot
from grpo_desktop.views.update.update_controls import UpdateControls

PRESETS = (
    PresetInfo(
        "verl/token-mean",
        "verl · token-mean",
        "L = Σ_i Σ_t ℓ_it / Σ_i |o_i|",
        "every token weighs the same",
        "verl: loss_agg_mode=token-mean",
    ),
    PresetInfo(
        "verl/seq-mean-token-mean",
        "verl · seq-mean-token-mean",
        "L = 1/G Σ_i 1/|o_i| Σ_t ℓ_it",
        "every answer weighs the same",
        "verl: loss_agg_mode=seq-mean-token-mean",
    ),
    PresetInfo(
        "trl/dr-grpo", "TRL · Dr. GRPO", "L = Σ ℓ / (G·L_max)", "a constant", "trl: dr_grpo"
    ),
)
SETTINGS = UpdateSettings(beta=0.04, inner_steps=2)


def snapshot(
    settings: UpdateSettings = SETTINGS,
    clip_c_applies: bool = True,
    kl_estimators: tuple[str, ...] = ("k1", "k2", "k3"),
    presets: tuple[PresetInfo, ...] = PRESETS,
) -> UpdateSnapshot:
    return UpdateSnapshot(
        settings=settings,
        preset=presets[0],
        compare_preset=presets[1],
        rows=(),
        loss=0.0,
        compare_loss=0.0,
        clip_fraction=0.0,
        kl_mean=None,
        inner_step=0,
        max_abs_push=0.0,
        status="",
        selected=None,
        clip_c_applies=clip_c_applies,
        kl_estimators=kl_estimators,
        presets=presets,
    )


@pytest.fixture
def controls(qtbot):
    controls = UpdateControls(LIGHT)
    qtbot.addWidget(controls)
    controls.resize(380, 360)
    with qtbot.waitExposed(controls):
        controls.show()
    controls.show_snapshot(snapshot())
    return controls


def requests(controls: UpdateControls) -> list[UpdateSettings]:
    seen: list[UpdateSettings] = []
    controls.settings_requested.connect(seen.append)
    return seen


def type_into(qtbot, spin, text: str) -> None:
    spin.setFocus()
    spin.selectAll()
    qtbot.keyClicks(spin, text)
    qtbot.keyClick(spin, Qt.Key.Key_Return)


def test_typing_eps_high_asks_once_for_that_change_only(qtbot, controls):
    seen = requests(controls)
    type_into(qtbot, controls.eps_high_spin, "0.28")
    assert seen == [dataclasses.replace(SETTINGS, eps_high=0.28)]


def test_every_spin_box_asks_for_its_own_field(controls):
    seen = requests(controls)
    edits = (
        (controls.eps_low_spin, "eps_low", 0.1),
        (controls.clip_c_spin, "clip_ratio_c", 5.0),
        (controls.beta_spin, "beta", 0.125),
        (controls.inner_steps_spin, "inner_steps", 7),
        (controls.learning_rate_spin, "learning_rate", 1.25),
    )
    for spin, field, value in edits:
        spin.setValue(value)  # as a step or a finished edit does
        assert seen[-1] == dataclasses.replace(SETTINGS, **{field: value})
    assert len(seen) == len(edits)


def test_stepping_a_spin_box_with_the_arrow_keys_asks(qtbot, controls):
    seen = requests(controls)
    controls.inner_steps_spin.setFocus()
    qtbot.keyClick(controls.inner_steps_spin, Qt.Key.Key_Up)
    assert seen == [dataclasses.replace(SETTINGS, inner_steps=3)]


def test_choosing_presets_and_estimator_asks_with_their_names(controls):
    seen = requests(controls)
    controls.preset_combo.activated.emit(2)
    assert seen[-1] == dataclasses.replace(SETTINGS, preset="trl/dr-grpo")
    controls.compare_combo.activated.emit(0)
    assert seen[-1] == dataclasses.replace(SETTINGS, compare_preset="verl/token-mean")
    controls.kl_combo.activated.emit(0)
    assert seen[-1] == dataclasses.replace(SETTINGS, kl_estimator="k1")
    controls.kl_combo.activated.emit(2)  # k3, already set: nothing to ask for
    assert len(seen) == 3


def test_show_snapshot_sets_every_control_and_emits_nothing(controls):
    seen = requests(controls)
    changed = UpdateSettings(
        preset="trl/dr-grpo",
        compare_preset="verl/token-mean",
        eps_low=0.1,
        eps_high=0.28,
        clip_ratio_c=10.0,
        beta=0.5,
        kl_estimator="k2",
        inner_steps=12,
        learning_rate=2.0,
    )
    controls.show_snapshot(snapshot(changed))
    assert seen == []
    assert controls.preset_combo.currentData() == "trl/dr-grpo"
    assert controls.compare_combo.currentData() == "verl/token-mean"
    assert controls.eps_low_spin.value() == 0.1
    assert controls.eps_high_spin.value() == 0.28
    assert controls.clip_c_spin.value() == 10.0
    assert controls.beta_spin.value() == 0.5
    assert controls.kl_combo.currentText() == "k2"
    assert controls.inner_steps_spin.value() == 12
    assert controls.learning_rate_spin.value() == 2.0
    assert controls.settings() == changed


def test_a_request_starts_from_the_last_shown_settings(controls):
    seen = requests(controls)
    shown = dataclasses.replace(SETTINGS, eps_low=0.3)
    controls.show_snapshot(snapshot(shown))
    controls.beta_spin.setValue(0.5)
    assert seen == [dataclasses.replace(shown, beta=0.5)]


def test_dual_clip_c_is_disabled_with_a_reason_when_the_preset_has_none(controls):
    assert controls.clip_c_spin.isEnabled()
    controls.show_snapshot(snapshot(clip_c_applies=False))
    assert not controls.clip_c_spin.isEnabled()
    assert "no dual clip" in controls.clip_c_spin.toolTip()
    controls.show_snapshot(snapshot(clip_c_applies=True))
    assert controls.clip_c_spin.isEnabled()


def test_kl_estimator_is_disabled_while_beta_is_zero_or_there_is_no_choice(controls):
    assert controls.kl_combo.isEnabled()
    controls.show_snapshot(snapshot(dataclasses.replace(SETTINGS, beta=0.0)))
    assert not controls.kl_combo.isEnabled()
    assert "β is 0" in controls.kl_combo.toolTip()
    controls.show_snapshot(snapshot(kl_estimators=("k3",)))
    assert not controls.kl_combo.isEnabled()
    assert [controls.kl_combo.itemText(i) for i in range(controls.kl_combo.count())] == ["k3"]


def test_the_two_demonstration_buttons_emit_their_signals(qtbot, controls):
    assert controls.length_bias_button.objectName() == "lengthBiasButton"
    assert "token-mean vs seq-mean-token-mean" in controls.length_bias_button.toolTip()
    assert "ε_high 0.28" in controls.clip_higher_button.toolTip()
    seen = requests(controls)
    clicked: list[str] = []
    controls.length_bias_requested.connect(lambda: clicked.append("length bias"))
    controls.clip_higher_requested.connect(lambda: clicked.append("clip-higher"))
    qtbot.mouseClick(controls.length_bias_button, Qt.MouseButton.LeftButton)
    qtbot.mouseClick(controls.clip_higher_button, Qt.MouseButton.LeftButton)
    assert clicked == ["length bias", "clip-higher"]
    assert seen == []  # each is the owner's to apply, not a settings edit


def test_both_preset_combos_list_every_preset_with_its_tooltip(controls):
    for combo in (controls.preset_combo, controls.compare_combo):
        assert combo.count() == len(PRESETS)
        for index, preset in enumerate(PRESETS):
            assert combo.itemText(index) == preset.label
            assert combo.itemData(index) == preset.name
            tip = combo.itemData(index, Qt.ItemDataRole.ToolTipRole)
            assert tip == f"{preset.formula}\n{preset.description}\n{preset.source}"


def test_combos_are_refilled_only_when_the_preset_list_changes(controls):
    combo = controls.preset_combo
    combo.setItemText(0, "marker")  # survives as long as nothing refills the combo
    controls.show_snapshot(snapshot(dataclasses.replace(SETTINGS, eps_low=0.3)))
    assert combo.itemText(0) == "marker"
    controls.show_snapshot(snapshot(presets=PRESETS[:2]))
    assert combo.count() == 2
    assert combo.itemText(0) == PRESETS[0].label


def test_every_control_has_an_object_name_a_tooltip_and_a_labelled_mnemonic(controls):
    names = {
        "lossPresetCombo",
        "comparePresetCombo",
        "epsLowSpin",
        "epsHighSpin",
        "clipCSpin",
        "betaSpin",
        "klEstimatorCombo",
        "innerStepsSpin",
        "learningRateSpin",
        "compareEpsHighSpin",
    }
    assert {field.objectName() for field in controls.fields()} == names
    buddies = {label.buddy(): label for label in controls.findChildren(QLabel) if label.buddy()}
    for field in controls.fields():
        assert field.toolTip()
        assert field.accessibleName()
        assert "&" in buddies[field].text()
    texts = [label.text() for label in buddies.values()]
    keys = [text[text.index("&") + 1].lower() for text in texts]
    keys += ["b", "c"]  # Length &bias, &Clip-higher
    assert len(keys) == len(set(keys))  # no two mnemonics share a key


def test_spin_ranges_match_what_the_update_accepts(controls):
    assert (controls.eps_low_spin.minimum(), controls.eps_low_spin.maximum()) == (0.0, 10.0)
    assert controls.eps_high_spin.singleStep() == 0.01
    assert (controls.clip_c_spin.minimum(), controls.clip_c_spin.maximum()) == (1.01, 20.0)
    assert controls.clip_c_spin.singleStep() == 0.5
    assert controls.beta_spin.decimals() == 3
    assert (controls.inner_steps_spin.minimum(), controls.inner_steps_spin.maximum()) == (0, 50)
    lr = controls.learning_rate_spin
    assert (lr.minimum(), lr.maximum(), lr.singleStep()) == (0.01, 5.0, 0.05)
    for spin in controls.fields()[2:]:
        if spin is not controls.kl_combo:
            assert not spin.keyboardTracking()


def test_tab_goes_through_the_controls_in_visual_order(qtbot, controls):
    controls.activateWindow()
    qtbot.waitUntil(controls.isActiveWindow)
    order = [*controls.fields(), controls.length_bias_button, controls.clip_higher_button]
    order[0].setFocus(Qt.FocusReason.TabFocusReason)
    reached = [QApplication.focusWidget()]
    for _ in order[1:]:
        qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab)
        reached.append(QApplication.focusWidget())
    assert reached == order


@pytest.mark.parametrize(
    ("theme", "width"),
    [(LIGHT, 300), (LIGHT, 420), (PROJECTOR, 300), (PROJECTOR, 380), (PROJECTOR, 420)],
)
def test_fits_a_right_hand_column_without_clipping(qtbot, theme, width):
    app_font = QApplication.font()
    scaled = QFont(app_font)
    scaled.setPointSizeF(app_font.pointSizeF() * theme.chrome_scale)
    QApplication.setFont(scaled)
    try:
        controls = UpdateControls(theme)
        qtbot.addWidget(controls)
        controls.show_snapshot(snapshot())
        controls.resize(width, 420)
        with qtbot.waitExposed(controls):
            controls.show()
        assert controls.width() == width
        widgets = [*controls.fields(), controls.length_bias_button, controls.clip_higher_button]
        widgets += controls.findChildren(QLabel)
        for widget in widgets:
            hint = widget.minimumSizeHint()
            assert widget.width() >= hint.width(), widget.objectName() or widget.text()
            assert widget.height() >= hint.height()
            assert widget.geometry().right() < controls.width()
            assert widget.geometry().bottom() < controls.height()
    finally:
        QApplication.setFont(app_font)


def test_a_comparison_epsilon_shows_same_until_set_and_asks_for_its_own_range(qtbot, controls):
    """The comparison's clip range (Clip-higher: the symmetric 0.2 beside DAPO's 0.28)."""
    spin = controls.compare_eps_high_spin
    assert spin.text() == "same"
    seen = requests(controls)
    type_into(qtbot, spin, "0.28")
    assert seen == [dataclasses.replace(SETTINGS, compare_eps_high=0.28)]
    controls.show_snapshot(snapshot(seen[-1]))
    assert spin.value() == pytest.approx(0.28)
    spin.setValue(spin.minimum())  # stepped below 0: back to the main ε_high
    assert seen[-1] == SETTINGS and spin.text() == "same"


def test_the_spin_boxes_offer_the_cores_update_limits_exactly(qtbot):
    """Each spin box's range is the core's UPDATE_LIMITS (an open low end one step above it),
    so a control never offers a value check_update_settings refuses, nor hides one it takes."""
    from grpo_desktop.core.update.update_settings import UPDATE_LIMITS

    controls = UpdateControls()
    qtbot.addWidget(controls)
    spins = {
        "eps_low": controls.eps_low_spin,
        "eps_high": controls.eps_high_spin,
        "clip_ratio_c": controls.clip_c_spin,
        "beta": controls.beta_spin,
        "learning_rate": controls.learning_rate_spin,
        "inner_steps": controls.inner_steps_spin,
    }
    for name, spin in spins.items():
        limit = UPDATE_LIMITS[name]
        decimals = spin.decimals() if hasattr(spin, "decimals") else 0
        assert (spin.minimum(), spin.maximum()) == pytest.approx(
            (limit.lowest(decimals), limit.high)
        ), name
        assert limit.admits(spin.minimum()) and limit.admits(spin.maximum()), name
    same = controls.compare_eps_high_spin
    limit = UPDATE_LIMITS["compare_eps_high"]
    assert same.maximum() == limit.high
    assert same.minimum() == pytest.approx(limit.low - same.singleStep())  # "same"


def test_showing_the_settings_a_box_already_shows_repaints_no_box(qtbot, controls):
    from PySide6.QtCore import QEvent

    spins = [controls.eps_low_spin, controls.eps_high_spin, controls.compare_eps_high_spin]
    spins += [controls.clip_c_spin, controls.beta_spin, controls.inner_steps_spin]
    spins.append(controls.learning_rate_spin)
    watched = [part for spin in spins for part in (spin, spin.lineEdit())]
    painted = EventLog(QEvent.Type.Paint, *watched, record=lambda box, _: box.objectName())
    QApplication.processEvents()
    painted.seen.clear()
    # A card toggle: a new snapshot, the same settings ("same" in the comparison's box).
    controls.show_snapshot(dataclasses.replace(snapshot(), loss=0.5))
    QApplication.processEvents()
    assert painted.seen == []
    assert controls.compare_eps_high_spin.text() == "same"
    controls.show_snapshot(snapshot(dataclasses.replace(SETTINGS, eps_high=0.28)))
    assert controls.eps_high_spin.value() == 0.28


def test_showing_a_snapshot_still_resets_a_box_being_typed_over(qtbot, controls):
    spin = controls.eps_high_spin
    spin.setFocus()
    spin.selectAll()
    qtbot.keyClicks(spin, "0.4")  # typed, not committed (no Enter, focus kept)
    assert spin.text() == "0.4" and spin.value() == SETTINGS.eps_high
    controls.show_snapshot(snapshot())  # as before: the shown settings win
    assert spin.text() == f"{SETTINGS.eps_high:.2f}" and spin.value() == SETTINGS.eps_high


def test_a_toggle_that_leaves_the_settings_as_shown_sets_no_field(qtbot, controls, monkeypatch):
    from grpo_desktop.views.update import update_controls

    controls.show_snapshot(snapshot())
    shown = []
    monkeypatch.setattr(update_controls, "_show_value", lambda spin, value: shown.append(spin))
    controls.show_snapshot(dataclasses.replace(snapshot(), loss=0.5))  # a card toggle
    assert shown == []
    controls.show_snapshot(snapshot(dataclasses.replace(SETTINGS, eps_high=0.28)))
    assert len(shown) == 7  # new settings: every box is set again
