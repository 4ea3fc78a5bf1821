"""The tiny model's run in the Training workspace: stepped in a worker process, drawn here.

Tests wait for what the user would see (the snapshot with the step in it), with generous
timeouts, and never assert on timing.
"""

from __future__ import annotations

import os
from dataclasses import replace

import numpy as np
import pytest

from grpo_desktop.core.lab.lab_rewards import RewardWeights
from grpo_desktop.core.lab.recorded_group import TINYLM_FORMAT
from grpo_desktop.core.tinylm.grpo_config import LMTrainingConfig
from grpo_desktop.core.tinylm.records import StepMetrics
from grpo_desktop.core.training.policy_choice import PolicyChoice
from grpo_desktop.model.lm_run_process import LMRunProcess, Stepped
from grpo_desktop.model.lm_training_state import LMTrainingState
from grpo_desktop.model.shown_gate import ShownGate
from grpo_desktop.model.workbench import LAB, TRAINING, Workbench

TINY = LMTrainingConfig(steps=3, batch=4, group_size=4, eval_every=1)
WAIT_MS = 20_000


@pytest.fixture
def workbench(qapp) -> Workbench:
    bench = Workbench()
    bench.apply_lm_training_config(TINY)
    bench.apply_policy(PolicyChoice("tinylm"))
    return bench


@pytest.fixture
def state(workbench):
    made = LMTrainingState(workbench)
    yield made
    made.stop()


def wait_for(qtbot, state: LMTrainingState, condition) -> None:
    qtbot.waitUntil(lambda: bool(condition(state.snapshot)), timeout=WAIT_MS)


def test_shown_it_loads_off_thread_and_measures_step_0(qtbot, state):
    assert not state.snapshot.ready  # the model loads on a worker, not in the constructor
    wait_for(qtbot, state, lambda s: s.ready)
    snapshot = state.snapshot
    assert snapshot.step == 0 and len(snapshot.curves["pass_rate"].steps) == 1
    assert len(snapshot.dots_p) > 0
    assert "107,820-parameter" in snapshot.note


def test_play_steps_in_a_worker_process_and_snapshots_arrive(qtbot, state):
    received = []
    state.snapshot_changed.connect(received.append)
    state.set_playing(True)
    assert state.playing
    assert state.worker_pid is not None and state.worker_pid != os.getpid()
    wait_for(qtbot, state, lambda s: s.finished and not s.playing)
    qtbot.waitUntil(lambda: not state.busy, timeout=WAIT_MS)
    snapshot = state.snapshot
    assert list(snapshot.curves["reward_mean"].steps) == [1, 2, 3]
    assert list(snapshot.curves["pass_rate"].steps) == [0, 1, 2, 3]
    # The views get the last records' snapshot in the turn after they were read (reading
    # ``state.snapshot`` above builds it without sending it): wait for that turn.
    qtbot.waitUntil(lambda: bool(received) and received[-1].step == 3, timeout=WAIT_MS)


def test_pause_then_play_at_once_keeps_playing(qtbot, workbench, state):
    """A pause's "idle" that arrives after a new Play is stale: the run keeps playing."""
    workbench.apply_lm_training_config(replace(TINY, steps=6))
    state.set_playing(True)
    wait_for(qtbot, state, lambda s: s.step >= 1)
    state.set_playing(False)
    state.set_playing(True)
    wait_for(qtbot, state, lambda s: s.finished)
    assert state.snapshot.step == 6


def test_step_takes_one_step_and_reset_starts_again(qtbot, state):
    state.step_once()
    wait_for(qtbot, state, lambda s: s.step == 1)
    first = state.metrics[0]
    state.reset()
    assert state.snapshot.step == 0 and not state.snapshot.ready
    state.step_once()
    wait_for(qtbot, state, lambda s: s.step == 1)
    assert state.metrics[0].reward_mean == first.reward_mean  # the same seed: the same step


def test_stop_mid_run_ends_the_worker_process(qtbot, workbench, state):
    workbench.apply_lm_training_config(replace(TINY, steps=200))
    state.set_playing(True)
    wait_for(qtbot, state, lambda s: s.step >= 1)
    process = state._process.process
    state.stop()
    assert process.state() == process.ProcessState.NotRunning
    assert not state.playing and state.worker_pid is None


def test_a_config_change_restarts_the_run(qtbot, workbench, state):
    state.step_once()
    wait_for(qtbot, state, lambda s: s.step == 1)
    state.request_config(replace(TINY, seed=5))
    assert workbench.lm_training_config.seed == 5
    assert state.snapshot.step == 0 and state.config.seed == 5
    wait_for(qtbot, state, lambda s: s.ready)
    workbench.undo_stack.undo()
    assert state.config.seed == 0 and state.snapshot.step == 0


def test_a_refused_config_is_one_sentence_and_nothing_restarts(qtbot, state):
    state.step_once()
    wait_for(qtbot, state, lambda s: s.step == 1)
    state.request_config(replace(TINY, batch=0))
    assert state.snapshot.refusal.startswith("These settings were not applied: batch")
    assert state.snapshot.step == 1


def test_convention_and_reward_weights_reach_the_run_and_restart_it(qtbot, workbench, state):
    state.step_once()
    wait_for(qtbot, state, lambda s: s.step == 1)
    workbench.set_convention("dr_grpo")
    assert state.config.convention == "dr_grpo" and state.snapshot.step == 0
    state.step_once()
    wait_for(qtbot, state, lambda s: s.step == 1)
    workbench.set_reward_weights(RewardWeights(format=0.5))
    assert state.config.reward_weights == RewardWeights(format=0.5)
    assert state.snapshot.step == 0


def test_a_hidden_workspace_pauses_and_builds_nothing(qtbot, workbench):
    gate = ShownGate(True)
    state = LMTrainingState(workbench, gate=gate)
    try:
        wait_for(qtbot, state, lambda s: s.ready)
        state.set_playing(True)
        received = []
        state.snapshot_changed.connect(received.append)
        gate.set_shown(False)
        assert not state.playing
        state.wait()
        qtbot.wait(50)
        count = len(received)
        state.step_once()  # hidden: nothing to step
        assert not state.busy and len(received) == count
    finally:
        state.stop()


def test_the_toy_policy_closes_its_gate(qtbot, workbench, state):
    wait_for(qtbot, state, lambda s: s.ready)
    workbench.apply_policy(PolicyChoice("toy"))
    assert not state.gate.shown
    state.set_playing(True)
    assert not state.playing


def test_a_group_opens_in_the_lab_as_a_tinylm_recorded_group(qtbot, workbench, state):
    workbench.set_workspace(TRAINING)
    state.step_once()
    wait_for(qtbot, state, lambda s: s.step == 1)
    group = state.groups[0][1]
    state.open_group(1)
    assert workbench.workspace == LAB
    recorded = workbench.lab.recorded
    assert recorded.run_format == TINYLM_FORMAT and recorded.step == 1
    assert recorded.texts == group.completions and recorded.prompt == group.prompt


def test_a_bad_checkpoint_is_one_sentence(qtbot, tmp_path, workbench, state):
    bad = tmp_path / "broken.npz"
    bad.write_bytes(b"not a checkpoint")
    workbench.apply_policy(PolicyChoice("tinylm", str(bad)))
    wait_for(qtbot, state, lambda s: s.error)
    status = state.snapshot.status
    assert status.startswith("The tiny model could not be loaded:") and status.endswith(".")
    assert "\n" not in status
    state.set_playing(True)
    assert not state.playing


def step_metrics(step: int) -> StepMetrics:
    return StepMetrics(
        step=step,
        reward_mean=0.1 * step,
        degenerate_fraction=0.5,
        kl=0.01,
        entropy=1.0,
        loss=0.0,
        completion_length=5.0,
        groups_sampled=TINY.batch,
        groups_used=TINY.batch,
        clip_fraction=0.0,
        grad_norm=1.0,
        seconds=0.2,
    )


def test_steps_read_together_are_drawn_once_in_the_next_turn_ending_on_the_latest(
    qtbot, qapp, state
):
    wait_for(qtbot, state, lambda s: s.ready)
    qtbot.waitUntil(lambda: not state.busy, timeout=WAIT_MS)
    (process,) = state.findChildren(LMRunProcess)
    qapp.processEvents()  # the load's own draw
    drawn = []
    state.snapshot_changed.connect(drawn.append)
    for step in (1, 2, 3):  # three steps' lines read in one go (the GUI thread was busy)
        process.record.emit(Stepped(step_metrics(step), None, ()))
    assert drawn == [], "read in this turn, drawn in the next: a click waiting goes between"
    qapp.processEvents()
    assert len(drawn) == 1, "one redraw for the three steps"
    (snapshot,) = drawn
    assert snapshot.step == 3
    np.testing.assert_array_equal(snapshot.curves["reward_mean"].steps, [1, 2, 3])
    qapp.processEvents()
    assert len(drawn) == 1


def test_a_click_before_the_draw_shows_the_steps_read(qtbot, qapp, state):
    wait_for(qtbot, state, lambda s: s.ready)
    qtbot.waitUntil(lambda: not state.busy, timeout=WAIT_MS)
    (process,) = state.findChildren(LMRunProcess)
    qapp.processEvents()
    drawn = []
    state.snapshot_changed.connect(drawn.append)
    process.record.emit(Stepped(step_metrics(1), None, ()))
    process.record.emit(Stepped(step_metrics(2), None, ()))
    state.select_step(1)  # a click on the chart lands between the reading and the draw
    assert [snapshot.step for snapshot in drawn] == [2]
    qapp.processEvents()
    assert len(drawn) == 1, "already drawn: the posted draw builds nothing"
