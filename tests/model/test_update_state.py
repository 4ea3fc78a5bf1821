"""The Update workspace's model: settings are undoable edits, the snapshot follows the lab."""

from __future__ import annotations

from dataclasses import replace

import pytest

from grpo_desktop.model import update_state as update_state_module
from grpo_desktop.model.update_state import UpdateState
from grpo_desktop.model.workbench import LAB, UPDATE, WORKSPACES, Workbench


def test_update_is_a_workspace(workbench):
    assert WORKSPACES == ("lab", "update", "training", "compare")
    workbench.set_workspace(UPDATE)
    assert workbench.workspace == UPDATE and workbench.active_lab is workbench.lab


def test_changing_a_setting_is_one_undo_step(workbench, qtbot):
    before = workbench.update_settings
    with qtbot.waitSignal(workbench.update_settings_changed):
        workbench.set_update_settings(replace(before, beta=0.04))
    assert workbench.update_settings.beta == 0.04 and workbench.modified
    workbench.undo_stack.undo()
    assert workbench.update_settings == before


def test_bad_settings_are_refused_before_anything_changes(workbench):
    before = workbench.update_settings
    with pytest.raises(ValueError, match="clip_ratio_c"):
        workbench.set_update_settings(replace(before, clip_ratio_c=0.5))
    assert workbench.update_settings == before and workbench.undo_stack.count() == 0


def test_length_bias_sets_the_group_and_the_presets_and_undoes_as_one(workbench):
    workbench.show_length_bias()
    assert workbench.lab.problem.id == "length-bias-sum"
    assert workbench.lab.correct == (True, False)
    settings = workbench.update_settings
    assert (settings.preset, settings.compare_preset) == (
        "verl/token-mean",
        "verl/seq-mean-token-mean",
    )
    assert workbench.undo_stack.count() == 1
    workbench.undo_stack.undo()
    assert workbench.lab.problem.id == "mult-23x47"
    workbench.show_length_bias()
    workbench.show_length_bias()  # already showing it: nothing new to undo
    assert workbench.undo_stack.count() == 1


def test_clip_higher_sets_its_group_and_both_clip_ranges_and_undoes_as_one(workbench):
    workbench.lab.toggle(0)  # the lecturer's own group: replaced, and restored by one undo
    before = (workbench.lab.correct, workbench.update_settings)
    workbench.show_clip_higher()
    settings = workbench.update_settings
    assert (workbench.lab.problem.id, workbench.lab.correct) == (
        "mult-23x47",
        (True, False, False, True),
    )
    assert settings.preset == settings.compare_preset == "trl/dapo"
    assert (settings.eps_low, settings.eps_high) == (0.2, 0.28)
    assert settings.compare_clip == (0.2, 0.2)
    workbench.show_clip_higher()  # already showing it: nothing new to undo
    assert workbench.undo_stack.count() == 1
    workbench.undo_stack.undo()
    assert (workbench.lab.correct, workbench.update_settings) == before


def test_length_bias_after_clip_higher_clips_both_sides_alike(workbench):
    workbench.show_clip_higher()
    workbench.show_length_bias()
    assert not workbench.update_settings.clips_differ


def count_builds(monkeypatch) -> list[int]:
    calls: list[int] = []
    real = update_state_module.build_update_snapshot

    def counting(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(update_state_module, "build_update_snapshot", counting)
    return calls


def test_a_hidden_update_workspace_costs_a_lab_click_nothing(workbench, monkeypatch):
    state = UpdateState(workbench)
    calls = count_builds(monkeypatch)
    workbench.toggle(1)
    workbench.toggle(2)
    assert calls == []
    state.set_shown(True)  # shown: brought up to date once
    assert len(calls) == 1
    assert [row.reward for row in state.snapshot.rows] == list(workbench.lab.snapshot.rewards)


def test_a_shown_update_follows_every_toggle_and_setting(workbench, qtbot):
    state = UpdateState(workbench)
    state.set_shown(True)
    with qtbot.waitSignal(state.snapshot_changed) as signal:
        workbench.toggle(0)
    assert signal.args[0].rows[0].reward == workbench.lab.snapshot.cards[0].reward
    with qtbot.waitSignal(state.snapshot_changed) as signal:
        workbench.set_update_settings(replace(workbench.update_settings, inner_steps=3))
    assert signal.args[0].inner_step == 3


def test_selecting_a_token_shows_its_computation_and_survives_edits(workbench, qtbot):
    state = UpdateState(workbench)
    state.set_shown(True)
    with qtbot.waitSignal(state.snapshot_changed) as signal:
        state.select(1, 2)
    assert (signal.args[0].selected.row, signal.args[0].selected.column) == (1, 2)
    workbench.toggle(3)
    assert state.snapshot.selected is not None and state.selected == (1, 2)


def test_a_selection_past_a_shrunken_group_is_dropped(workbench):
    state = UpdateState(workbench)
    state.set_shown(True)
    state.select(3, 0)
    workbench.set_group_size(2)
    assert state.selected is None and state.snapshot.selected is None
    workbench.set_workspace(LAB)


def test_a_scenario_brings_its_workspace_and_update_settings_and_saves_them_back(workbench):
    from grpo_desktop.core.files.scenario import Scenario

    workbench.set_update_settings(replace(workbench.update_settings, inner_steps=5))
    workbench.set_workspace(UPDATE)
    saved = workbench.current_scenario()
    assert saved.workspace == "update" and saved.update.inner_steps == 5
    fresh = Workbench()
    fresh.open_scenario(saved)
    assert fresh.workspace == UPDATE and fresh.update_settings.inner_steps == 5
    assert fresh.undo_stack.count() == 0 and not fresh.modified
    assert isinstance(saved, Scenario)


def test_a_token_click_leaves_the_snapshot_untouched_but_its_detail(workbench, monkeypatch):
    state = UpdateState(workbench)
    state.set_shown(True)
    workbench.set_update_settings(replace(workbench.update_settings, inner_steps=3))
    before = state.snapshot

    def no_rebuild(*_args, **_kwargs):
        raise AssertionError("a token click must not build the update step again")

    monkeypatch.setattr(update_state_module, "build_update_snapshot", no_rebuild)
    state.select(2, 4)
    after = state.snapshot
    assert after.rows is before.rows and after.status == before.status
    assert (after.loss, after.max_abs_push) == (before.loss, before.max_abs_push)
    assert (after.selected.row, after.selected.column) == (2, 4)
    monkeypatch.undo()
    lab, settings = workbench.lab.snapshot, workbench.update_settings
    assert (
        after.selected == update_state_module.build_update_snapshot(lab, settings, (2, 4)).selected
    )
