"""UpdateState on a group the tiny model wrote: the real model steps it, loaded once per
checkpoint; a checkpoint that cannot be loaded is one sentence and the stand-in."""

from __future__ import annotations

import functools
from dataclasses import replace

from grpo_desktop.core.tinylm import lab_group, load_model
from grpo_desktop.core.tinylm.lab_group import sample_lab_group
from grpo_desktop.core.tinylm.lm_update import END_CHIP
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
