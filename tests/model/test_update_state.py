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


# -- the stand-in's inner steps after the click's frame (long answers) ----------------------------


def _long_problem(steps_lines: int = 60, group: int = 8):
    """A problem whose answers are long (about 1,400 tokens each): their inner steps cost more
    than update_step.INLINE_COST, so they run after the click's frame."""
    from grpo_desktop.core.lab.problems import Trace, get_problem

    base = get_problem("mult-23x47")
    steps = "".join(
        f"Step {k}: 23 × 47 = 23 × 40 + 23 × 7, so far {920 + k} and so on.\n"
        for k in range(steps_lines)
    )
    traces = tuple(
        Trace(
            correct=f"{steps}Check {i}: 940 + 141 = 1081\nAnswer: 1081",
            wrong=f"{steps}Check {i}: 940 + 131 = 1071\nAnswer: 1071",
        )
        for i in range(group)
    )
    return replace(
        base,
        id="long-answers",
        title="Long answers",
        traces=traces,
        group_size=group,
        default_rewards=(1, 0) * (group // 2),
    )


def _on_long_answers(workbench, steps: int = 4) -> UpdateState:
    """The Update workspace shown on long answers at ``steps`` inner steps, its first snapshot
    finished."""
    state = UpdateState(workbench)
    state.set_shown(True)
    workbench.set_problem(_long_problem())
    workbench.set_update_settings(replace(workbench.update_settings, inner_steps=steps))
    assert not state.snapshot.pending  # reading it finishes the step
    return state


def _computed_in_one_go(workbench, selected=None):
    """The step computed synchronously from nothing kept."""
    from grpo_desktop.core.update import update_step

    update_step._TRAJECTORIES.clear()
    return update_step.build_update_snapshot(
        workbench.lab.snapshot, workbench.update_settings, selected
    )


def test_the_stand_ins_steps_are_costed_by_batch_size_and_steps_not_by_a_clock(workbench):
    from grpo_desktop.core.update.update_step import INLINE_COST, StandinSteps

    short = StandinSteps(workbench.lab.snapshot, replace(workbench.update_settings, inner_steps=4))
    assert short.cost <= INLINE_COST and short.inline
    workbench.set_problem(_long_problem())
    settings = replace(workbench.update_settings, inner_steps=4)
    long = StandinSteps(workbench.lab.snapshot, settings)
    assert long.cost > INLINE_COST and not long.inline
    assert StandinSteps(workbench.lab.snapshot, replace(settings, inner_steps=8)).cost > long.cost


def test_a_toggle_on_long_answers_shows_step_zero_at_once_marked_as_pending(workbench):
    state = _on_long_answers(workbench)
    shown = []
    state.snapshot_changed.connect(shown.append)
    workbench.toggle(0)
    assert state.pending and len(shown) == 1
    pending = shown[0]
    assert pending.pending and pending.inner_step == 0
    assert pending.settings.inner_steps == 4  # the controls keep what was asked for
    assert pending.status == (
        "Taking 4 inner steps per side on the stand-in… the pushes shown are step 0's."
    )
    assert [row.advantage for row in pending.rows] == [
        card.advantage for card in workbench.lab.snapshot.cards
    ]
    # step 0 is on-policy: nothing clipped, and the pushes are step 0's
    assert not any(any(row.tokens.clipped) for row in pending.rows)
    at_zero = replace(workbench.update_settings, inner_steps=0)
    step_zero = update_state_module.build_update_snapshot(workbench.lab.snapshot, at_zero)
    assert pending.rows == step_zero.rows and pending.loss == step_zero.loss


def test_the_stand_ins_finished_numbers_equal_one_synchronous_computation(workbench, qtbot):
    state = _on_long_answers(workbench)
    shown = []
    state.snapshot_changed.connect(shown.append)
    state.select(2, 5)
    workbench.toggle(1)
    assert shown[-1].pending and shown[-1].selected is not None
    qtbot.waitUntil(lambda: not state.pending, timeout=10_000)
    final = shown[-1]
    assert not final.pending and final.inner_step == 4
    assert final == _computed_in_one_go(workbench, (2, 5))


def test_a_newer_toggle_drops_the_older_toggles_unfinished_stand_in_steps(workbench, qtbot):
    state = _on_long_answers(workbench)
    shown = []
    state.snapshot_changed.connect(shown.append)
    workbench.toggle(0)
    first = tuple(card.advantage for card in workbench.lab.snapshot.cards)
    workbench.toggle(3)  # before the first toggle's steps ran
    qtbot.waitUntil(lambda: not state.pending, timeout=10_000)
    finished = [snapshot for snapshot in shown if not snapshot.pending]
    assert [snapshot.pending for snapshot in shown] == [True, True, False]
    assert tuple(row.advantage for row in finished[0].rows) != first
    assert finished[0].rows == _computed_in_one_go(workbench).rows


def test_reading_the_snapshot_finishes_running_stand_in_steps(workbench):
    state = _on_long_answers(workbench)
    workbench.toggle(2)
    assert state.pending
    snapshot = state.snapshot  # an export, a screenshot: the finished numbers
    assert not state.pending and not snapshot.pending
    assert snapshot.rows == _computed_in_one_go(workbench).rows


def test_nothing_is_pending_at_zero_inner_steps_or_on_short_answers(workbench):
    state = UpdateState(workbench)
    state.set_shown(True)
    workbench.set_update_settings(replace(workbench.update_settings, inner_steps=4))
    shown = []
    state.snapshot_changed.connect(shown.append)
    workbench.toggle(0)  # short answers: the steps fit inside the click
    assert not state.pending and not shown[-1].pending and shown[-1].inner_step == 4
    workbench.set_problem(_long_problem())
    workbench.set_update_settings(replace(workbench.update_settings, inner_steps=0))
    workbench.toggle(1)
    assert not state.pending and not shown[-1].pending and shown[-1].inner_step == 0
    assert shown[-1] == _computed_in_one_go(workbench)


def test_a_token_click_while_the_steps_run_shows_step_zeros_detail_saying_so(workbench):
    state = _on_long_answers(workbench)
    workbench.toggle(0)
    assert state.pending
    shown = []
    state.snapshot_changed.connect(shown.append)
    state.select(1, 3)
    detail = shown[-1].selected
    assert shown[-1].pending and state.pending  # the click computed the detail, not the steps
    now = next(row for row in detail.rows if row.label == "log-prob now")
    assert now.expression == "the stand-in at step 0 (taking 4 inner steps…)"
    ratio = next(row for row in detail.rows if row.label == "ratio r")
    assert ratio.value == "1.0000"  # on-policy


def test_idle_time_prepares_the_texts_a_card_toggle_can_bring(workbench, qtbot):
    from grpo_desktop.core.update import standin_policy, update_step

    state = _on_long_answers(workbench, steps=0)
    qtbot.waitUntil(lambda: not state.warming, timeout=10_000)
    lab = workbench.lab.snapshot
    for card in lab.cards:
        trace = lab.problem.trace_for(card.index)
        other = trace.wrong if card.text == trace.correct else trace.correct
        hits = update_step._tokens_of.cache_info().hits
        tokens = update_step._tokens_of(other)[0]
        assert update_step._tokens_of.cache_info().hits == hits + 1  # kept: no work at a toggle
        hits = standin_policy._answer_logits.cache_info().hits
        standin_policy._answer_logits(tokens, update_step.STANDIN_SEED)
        assert standin_policy._answer_logits.cache_info().hits == hits + 1
