"""UpdateState on a group the tiny model wrote: the real model steps it, loaded once per
checkpoint; a checkpoint that cannot be loaded is one sentence and the stand-in."""

from __future__ import annotations

import functools
from dataclasses import replace

from grpo_desktop.core.tinylm import lab_group, load_model
from grpo_desktop.core.tinylm.lab_group import sample_lab_group
from grpo_desktop.core.tinylm.lm_update import END_CHIP, LMUpdateStart, build_lm_update_snapshot
from grpo_desktop.model.update_state import UpdateState


@functools.cache
def _group():
    return sample_lab_group(load_model(), "23+45=", 8, 0)


def test_the_models_group_is_stepped_on_the_model(workbench):
    state = UpdateState(workbench)
    state.set_shown(True)
    workbench.open_recorded_group(_group())
    snapshot = state.snapshot
    assert snapshot.spillover is not None
    assert snapshot.rows[0].tokens.texts[-1] == END_CHIP
    assert "Tiny language model" in snapshot.policy_note


def test_each_checkpoint_is_loaded_once(workbench, monkeypatch):
    loads = []
    real = lab_group.load_model

    def counting(path=None):
        loads.append(path)
        return real(path)

    monkeypatch.setattr(lab_group, "load_model", counting)
    lab_group.group_model.cache_clear()  # every workspace shares the loaded models
    state = UpdateState(workbench)
    state.set_shown(True)
    workbench.open_recorded_group(_group())
    workbench.open_recorded_group(sample_lab_group(load_model(), "38+47=", 8, 1))
    workbench.set_update_settings(replace(workbench.update_settings, inner_steps=2))
    assert state.snapshot.inner_step == 2 and state.snapshot.spillover is not None
    assert loads == [None]


def test_a_bad_checkpoint_is_one_sentence_and_the_standin(workbench, tmp_path):
    missing = str(tmp_path / "gone.npz")
    state = UpdateState(workbench)
    state.set_shown(True)
    workbench.open_recorded_group(replace(_group(), file_name=missing))
    snapshot = state.snapshot
    assert snapshot.spillover is None and snapshot.policy_note is None
    assert snapshot.status.startswith("The group's checkpoint cannot be loaded")
    assert snapshot.status.endswith("so the step runs on the stand-in policy.")
    assert "gone.npz" in snapshot.status and snapshot.status.count(". ") == 0


def test_a_hand_written_group_stays_on_the_standin(workbench):
    state = UpdateState(workbench)
    state.set_shown(True)
    assert state.snapshot.spillover is None and state.snapshot.policy_note is None


# -- the Adam steps after the click's frame -------------------------------------------------------


def _on_the_models_update(workbench, steps: int = 4) -> UpdateState:
    """The model's group shown by hand (rewards set by a drag) at ``steps`` inner steps, the
    first snapshot finished."""
    state = UpdateState(workbench)
    state.set_shown(True)
    workbench.open_recorded_group(_group())
    workbench.set_by_hand(True)
    workbench.set_update_settings(replace(workbench.update_settings, inner_steps=steps))
    assert not state.snapshot.pending  # reading it finishes the step
    return state


def _computed_in_one_go(workbench):
    """The same step computed synchronously on a fresh read of the group (nothing cached)."""
    group = _group()
    start = LMUpdateStart(lab_group.group_model(group.file_name), group.prompt, group.texts)
    return build_lm_update_snapshot(start, workbench.lab.snapshot, workbench.update_settings)


def test_a_click_shows_step_zero_at_once_marked_as_stepping(workbench):
    state = _on_the_models_update(workbench)
    shown = []
    state.snapshot_changed.connect(shown.append)
    workbench.set_score(0, 0.3)
    assert state.pending and len(shown) == 1
    pending = shown[0]
    assert pending.pending and pending.inner_step == 0
    assert pending.status.startswith("Taking 4 Adam steps per side on the tiny model")
    assert pending.rows[0].reward == 0.3  # the new advantages show at once
    assert [row.advantage for row in pending.rows] == [
        card.advantage for card in workbench.lab.snapshot.cards
    ]
    assert pending.spillover is not None and pending.spillover.pending
    # step 0 is on-policy: nothing clipped, and each push is A × its aggregation weight
    assert not any(any(row.tokens.clipped) for row in pending.rows)


def test_the_finished_numbers_equal_one_synchronous_computation(workbench, qtbot):
    state = _on_the_models_update(workbench)
    shown = []
    state.snapshot_changed.connect(shown.append)
    workbench.set_score(2, 0.8)
    qtbot.waitUntil(lambda: not state.pending, timeout=10_000)
    final, expected = shown[-1], _computed_in_one_go(workbench)
    assert not final.pending and final.inner_step == 4
    assert final.rows == expected.rows
    assert (final.loss, final.compare_loss) == (expected.loss, expected.compare_loss)
    assert final.spillover == expected.spillover and final.status == expected.status


def test_a_newer_click_drops_the_older_clicks_unfinished_steps(workbench, qtbot):
    state = _on_the_models_update(workbench)
    shown = []
    state.snapshot_changed.connect(shown.append)
    workbench.set_score(0, 0.3)
    first = tuple(card.advantage for card in workbench.lab.snapshot.cards)
    workbench.set_score(1, 0.9)  # before the first click's steps ran
    qtbot.waitUntil(lambda: not state.pending, timeout=10_000)
    finished = [snapshot for snapshot in shown if not snapshot.pending]
    assert len(finished) == 1  # only the newer click's numbers arrive
    assert tuple(row.advantage for row in finished[0].rows) != first
    assert finished[0].rows == _computed_in_one_go(workbench).rows


def test_reading_the_snapshot_finishes_a_running_step(workbench):
    state = _on_the_models_update(workbench)
    workbench.set_score(3, 0.6)
    assert state.pending
    snapshot = state.snapshot  # an export, a screenshot: the finished numbers
    assert not state.pending and not snapshot.pending
    assert snapshot.rows == _computed_in_one_go(workbench).rows


def test_a_token_click_on_the_model_computes_the_detail_and_nothing_else(workbench):
    state = _on_the_models_update(workbench)
    before = state.snapshot
    state.select(1, 1)
    after = state.snapshot
    assert after.rows is before.rows and after.spillover is before.spillover
    assert (after.selected.row, after.selected.column) == (1, 1)
    expected = build_lm_update_snapshot(
        LMUpdateStart(lab_group.group_model(_group().file_name), _group().prompt, _group().texts),
        workbench.lab.snapshot,
        workbench.update_settings,
        (1, 1),
    )
    assert after.selected == expected.selected
