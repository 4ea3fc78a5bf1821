"""The Training workspace's model: a run played by a timer, paused, stepped, reset and restarted.

Playback is driven by a real QTimer, so tests that play wait for what the user would see (steps
taken, the run finished) with generous timeouts and never assert on timing.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest
from PySide6.QtCore import QTimer

from grpo_desktop.core.lab.lab_rewards import RewardWeights
from grpo_desktop.core.training.run import METRICS, TrainingConfig
from grpo_desktop.core.training.training_snapshot import build_training_snapshot
from grpo_desktop.model import training_state as training_state_module
from grpo_desktop.model.training_state import MAX_SPEED, TrainingState
from grpo_desktop.model.workbench import LAB, TRAINING, Workbench

SMALL = TrainingConfig(steps=12, seeds=2, batch=4)  # a whole run in well under a second
PLAY_TIMEOUT_MS = 20_000


@pytest.fixture
def workbench(qapp) -> Workbench:
    bench = Workbench()
    bench.apply_training_config(SMALL)  # the configuration a file would bring: nothing to undo
    return bench


@pytest.fixture
def state(workbench) -> TrainingState:
    made = TrainingState(workbench)
    made.set_shown(True)
    yield made
    made.stop()


def timer_of(state: TrainingState) -> QTimer:
    (timer,) = state.findChildren(QTimer)
    return timer


def histories(run) -> dict[str, dict[str, np.ndarray]]:
    return {
        name: {k: v.copy() for k, v in run.history(name).items()} for name in run.config.algorithms
    }


def assert_same_histories(first, second) -> None:
    assert first.keys() == second.keys()
    for name in first:
        for metric in METRICS:
            a, b = first[name][metric], second[name][metric]
            assert a.shape == b.shape and np.array_equal(a, b, equal_nan=True), (name, metric)
            # bit for bit, not merely close: the same seeds draw the same numbers
            assert a.tobytes() == b.tobytes(), (name, metric)


# --- playing ----------------------------------------------------------------------------------


def test_a_new_state_is_paused_at_step_0(state):
    assert not state.playing
    assert state.run.step_count == 0
    assert state.snapshot.steps_done == 0 and "Ready" in state.snapshot.status
    assert not timer_of(state).isActive()


def test_play_advances_the_steps_and_stops_by_itself_at_the_end(state, qtbot):
    state.set_speed(MAX_SPEED)
    seen: list[int] = []
    state.snapshot_changed.connect(lambda snapshot: seen.append(snapshot.steps_done))
    with qtbot.waitSignal(state.playing_changed) as started:
        state.set_playing(True)
    assert started.args == [True] and state.playing and state.snapshot.playing
    qtbot.waitUntil(lambda: state.run.step_count > 0, timeout=PLAY_TIMEOUT_MS)
    qtbot.waitUntil(lambda: not state.playing, timeout=PLAY_TIMEOUT_MS)
    assert state.run.finished and state.run.step_count == SMALL.steps
    assert not timer_of(state).isActive(), "a finished run stops its timer"
    snapshot = state.snapshot
    assert snapshot.steps_done == SMALL.steps and not snapshot.playing
    assert "finished" in snapshot.status
    assert seen == sorted(seen) and seen[-1] == SMALL.steps, "the shown steps only go forwards"
    state.set_playing(True)  # a finished run cannot play on: reset first
    assert not state.playing and not timer_of(state).isActive()


def test_pause_stops_the_run_where_it_is(state, qtbot):
    state.set_speed(1)  # one step a second: plenty of time to pause mid-run
    state.set_playing(True)
    qtbot.waitUntil(lambda: state.run.step_count >= 1, timeout=PLAY_TIMEOUT_MS)
    with qtbot.waitSignal(state.playing_changed) as paused:
        state.set_playing(False)
    assert paused.args == [False]
    steps = state.run.step_count
    assert not timer_of(state).isActive()
    qtbot.wait(300)  # time passes, nothing moves
    assert state.run.step_count == steps and not state.run.finished
    assert "paused" in state.snapshot.status


def test_step_once_takes_exactly_one_step_and_pauses(state, qtbot):
    state.step_once()
    assert state.run.step_count == 1 and state.snapshot.steps_done == 1
    state.step_once()
    assert state.run.step_count == 2
    state.set_speed(1)
    state.set_playing(True)
    state.step_once()  # while playing: one step, and the run pauses
    assert not state.playing and not timer_of(state).isActive()
    assert state.run.step_count == 3


def test_reset_returns_to_step_0_and_the_run_replays_bit_for_bit(state):
    for _ in range(5):
        state.step_once()
    state.select_step(3)
    first = histories(state.run)
    first_groups = state.run.groups("grpo", 3, 1)
    state.reset()
    assert state.run.step_count == 0 and state.snapshot.steps_done == 0
    assert state.snapshot.selected_step is None, "the old run's step is gone"
    for _ in range(5):
        state.step_once()
    assert_same_histories(first, histories(state.run))
    assert state.run.groups("grpo", 3, 1) == first_groups


def test_speed_is_kept_within_its_range(state):
    state.set_speed(10_000)
    assert state.speed == MAX_SPEED
    state.set_speed(0)
    assert state.speed == 1


# --- the configuration: an undoable edit that restarts the run --------------------------------


def test_a_config_change_restarts_the_run_and_ctrl_z_brings_back_the_played_run(
    workbench, state, qtbot
):
    for _ in range(4):
        state.step_once()
    state.select_step(2)
    old_run = state.run
    changed = replace(SMALL, group_size=4)
    with qtbot.waitSignal(state.snapshot_changed) as shown:
        workbench.set_training_config(changed)
    assert workbench.training_config == changed and workbench.undo_stack.count() == 1
    assert state.run is not old_run and state.run.config == changed
    assert state.run.step_count == 0 and state.snapshot.selected_step is None
    assert shown.args[0].config.group_size == 4 and shown.args[0].steps_done == 0
    state.step_once()
    assert state.run.step_count == 1
    restarted = state.run
    workbench.undo_stack.undo()  # Ctrl+Z: the settings and the run they had, steps and all
    assert workbench.training_config == SMALL
    assert state.run is old_run and state.run.config == SMALL
    assert state.run.step_count == 4 and state.snapshot.config == SMALL
    assert state.snapshot.selected_step == 2
    workbench.undo_stack.redo()
    assert state.run is restarted and state.run.config == changed and state.run.step_count == 1


def test_a_config_change_while_playing_pauses_the_new_run(workbench, state, qtbot):
    state.set_speed(1)
    state.set_playing(True)
    workbench.set_training_config(replace(SMALL, learning_rate=1.0))
    assert not state.playing and not timer_of(state).isActive()
    assert state.run.step_count == 0


def test_a_bad_config_is_refused_and_the_run_goes_on(workbench, state):
    state.step_once()
    run = state.run
    with pytest.raises(ValueError, match="seeds"):
        workbench.set_training_config(replace(SMALL, seeds=0))
    assert state.run is run and state.run.step_count == 1
    assert workbench.undo_stack.count() == 0


def test_an_edit_the_run_cannot_keep_is_refused_with_a_sentence_not_an_exception(
    workbench, state, qtbot
):
    """Steps 2000, seeds 16, batch 32 would keep 498 MB of groups (issue 24, item 6)."""
    workbench.apply_training_config(TrainingConfig(steps=2000, seeds=16))
    state.step_once()
    run = state.run
    with qtbot.waitSignal(state.snapshot_changed) as sent:
        state.request_config(replace(workbench.training_config, batch=32))
    (snapshot,) = sent.args
    assert snapshot.refusal.startswith("Batch 32 was not applied: this run would keep 498 MB")
    assert snapshot.refusal.endswith("batch can be at most 16; it stays 8.")
    assert snapshot.config.batch == 8 and workbench.training_config.batch == 8
    assert state.run is run and workbench.undo_stack.count() == 0
    state.request_config(replace(workbench.training_config, batch=16))  # fits: applied
    assert workbench.training_config.batch == 16 and workbench.undo_stack.count() == 1
    assert state.snapshot.refusal == "" and state.snapshot.config.batch == 16


def test_a_refusal_goes_when_the_same_settings_are_asked_for_again(workbench, state):
    workbench.apply_training_config(TrainingConfig(steps=2000, seeds=16))
    state.request_config(replace(workbench.training_config, batch=32))
    assert state.snapshot.refusal
    state.request_config(workbench.training_config)
    assert state.snapshot.refusal == "" and workbench.undo_stack.count() == 0


# --- shown or hidden --------------------------------------------------------------------------


def test_hiding_the_workspace_pauses_the_run(state, qtbot):
    state.set_speed(1)
    state.set_playing(True)
    with qtbot.waitSignal(state.playing_changed) as paused:
        state.set_shown(False)
    assert paused.args == [False]
    assert not state.playing and not timer_of(state).isActive()
    state.set_shown(True)
    assert not state.playing, "showing it again does not start it by itself"


# --- keeping time: a clock the tests drive ------------------------------------------------------

LONG = TrainingConfig(steps=400, seeds=2, batch=4)  # never finishes within these tests
FRAME = training_state_module.FRAME_S


class FakeClock:
    """Seconds that pass only when a test says so (``per_read``: each reading costs this)."""

    def __init__(self, per_read: float = 0.0) -> None:
        self.now = 100.0
        self.per_read = per_read

    def __call__(self) -> float:
        self.now += self.per_read
        return self.now


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def timed(workbench, clock) -> TrainingState:
    """A shown run on the test's clock, long enough not to finish, drawing into ``drawn``."""
    workbench.apply_training_config(LONG)
    made = TrainingState(workbench, clock=clock)
    made.set_shown(True)
    made.drawn = []
    made.snapshot_changed.connect(lambda snapshot: made.drawn.append(snapshot.steps_done))
    yield made
    made.stop()


def frames(state: TrainingState, clock: FakeClock, count: int, qapp) -> None:
    """``count`` ticks one 60 Hz frame apart, each followed by its event-loop turns."""
    for _ in range(count):
        clock.now += training_state_module.FRAME_S
        state.tick()
        qapp.processEvents()


def test_playing_keeps_the_set_speed_frame_after_frame(timed, clock, qapp):
    for speed, seconds in ((30, 2), (10, 3), (60, 1)):
        timed.set_speed(speed)
        before = timed.run.step_count
        timed.set_playing(True)
        frames(timed, clock, 60 * seconds, qapp)
        timed.set_playing(False)
        assert timed.run.step_count - before == speed * seconds, speed


def test_a_late_tick_takes_every_step_due_by_the_clock(timed, clock, qapp):
    timed.set_speed(30)
    timed.set_playing(True)
    clock.now += 0.1  # the tick comes six frames late (the GUI thread was busy)
    timed.tick()
    assert timed.run.step_count == 3, "a tenth of a second at 30 steps/s: three steps, none lost"
    frames(timed, clock, 54, qapp)  # the second's other frames: on time
    assert timed.run.step_count == 30


def test_several_steps_due_at_once_are_drawn_once_in_a_turn_of_their_own(timed, clock, qapp):
    timed.set_speed(30)
    timed.set_playing(True)
    timed.drawn.clear()
    clock.now += 0.2
    timed.tick()
    assert timed.run.step_count == 6
    assert timed.drawn == [], "the draw waits for the next event-loop turn (a click goes first)"
    qapp.processEvents()
    assert timed.drawn == [6], "six steps, one snapshot showing them all"
    qapp.processEvents()
    assert timed.drawn == [6]


def test_a_frame_behind_the_clock_drops_its_draw_never_its_steps(workbench, qapp):
    workbench.apply_training_config(LONG)
    slow = FakeClock()
    state = TrainingState(workbench, clock=slow)
    state.set_shown(True)
    drawn: list[int] = []
    state.snapshot_changed.connect(lambda snapshot: drawn.append(snapshot.steps_done))
    state.set_speed(60)
    state.set_playing(True)
    drawn.clear()
    slow.now += 0.1  # six steps due...
    slow.per_read = 0.005  # ... and each step's clock reading shows 5 ms spent
    state.tick()
    qapp.processEvents()
    taken = state.run.step_count
    assert 0 < taken < 6, "the frame's step budget ran out: the rest wait for the next tick"
    assert drawn == [], "behind the clock: this frame is not drawn"
    slow.per_read = 0.0
    state.tick()  # the next frame (no more time passes): the steps left are taken, and drawn
    qapp.processEvents()
    assert state.run.step_count >= 6 and drawn == [state.run.step_count]
    state.stop()


def test_a_run_that_cannot_keep_up_draws_at_least_every_few_frames(workbench, qapp):
    workbench.apply_training_config(LONG)
    slow = FakeClock()
    state = TrainingState(workbench, clock=slow)
    state.set_shown(True)
    drawn: list[int] = []
    state.snapshot_changed.connect(lambda snapshot: drawn.append(snapshot.steps_done))
    state.set_speed(240)  # four steps a frame...
    state.set_playing(True)
    slow.per_read = 0.006  # ... of which the budget allows two
    drawn.clear()
    ticks = 4 * (training_state_module.MAX_SKIPPED_DRAWS + 1)
    for _ in range(ticks):
        state.tick()
        qapp.processEvents()
    assert len(drawn) >= ticks // (training_state_module.MAX_SKIPPED_DRAWS + 1)
    assert drawn == sorted(drawn) and drawn[-1] <= state.run.step_count
    state.stop()


def test_a_stalled_run_falls_behind_the_clock_by_a_quarter_second_at_most(timed, clock, qapp):
    timed.set_speed(30)
    timed.set_playing(True)
    clock.now += 5.0  # the window was dragged for five seconds
    timed.tick()
    most = math.ceil(30 * training_state_module.MAX_BEHIND_S)
    assert timed.run.step_count == most, "not 150 steps at once: the clock is let go"
    frames(timed, clock, 60, qapp)
    assert timed.run.step_count == most + 30, "and the set speed from there"


def test_a_new_speed_counts_from_the_moment_it_is_set(timed, clock, qapp):
    timed.set_speed(10)
    timed.set_playing(True)
    frames(timed, clock, 60, qapp)
    assert timed.run.step_count == 10
    timed.set_speed(60)
    frames(timed, clock, 30, qapp)
    assert timed.run.step_count == 40


def test_a_click_between_a_tick_and_its_draw_is_shown_at_once_and_rides_with_that_draw(
    timed, clock, qapp, monkeypatch
):
    timed.set_speed(30)
    timed.set_playing(True)
    frames(timed, clock, 30, qapp)
    timed.drawn.clear()
    clock.now += 0.1
    timed.tick()  # three steps, their draw posted
    built = count_builds(monkeypatch)
    shown = timed.drawn
    timed.select_step(2)  # a click lands before the draw: its marker at once, from the shown
    assert shown == [15] and built == [], "the snapshot shown, with the step chosen: no build"
    qapp.processEvents()
    assert timed.drawn == [15], "the click's repaint goes first"
    qapp.processEvents()
    assert timed.drawn == [15, 18], "the frame's one draw shows its steps and the chosen step"
    assert len(built) == 1 and timed.snapshot.selected_step == 2
    turns(qapp, 5)
    assert timed.drawn == [15, 18]


def test_a_new_focus_between_a_tick_and_its_draw_rides_with_that_draw(timed, clock, qapp):
    timed.set_speed(30)
    timed.set_playing(True)
    frames(timed, clock, 30, qapp)
    timed.drawn.clear()
    clock.now += 0.1
    timed.tick()
    timed.set_focus("rloo")  # the status speaks of the last step: it waits for the draw
    assert timed.drawn == []
    qapp.processEvents()
    assert timed.drawn == [18] and timed.snapshot.focus == "rloo"


def test_clicks_while_playing_add_no_draw_beyond_one_per_frame(timed, clock, qapp, monkeypatch):
    timed.set_speed(30)
    timed.set_playing(True)
    frames(timed, clock, 30, qapp)
    built = count_builds(monkeypatch)
    for frame in range(30):
        clock.now += training_state_module.FRAME_S
        timed.tick()
        timed.select_step(1 + frame % 5)  # a click in every frame, before its draw
        qapp.processEvents()
        timed.select_step(6 + frame % 5)  # and one after it
        qapp.processEvents()
    assert len(built) <= 30, "at most one snapshot built a frame, clicks or not"
    assert timed.snapshot.selected_step == 10


def test_choosing_a_step_keeps_the_bands_and_moves_the_dots_and_groups(timed, monkeypatch):
    timed.run.run(12)
    timed.step_once()
    before = timed.snapshot
    built = count_builds(monkeypatch)
    timed.select_step(4)
    after = timed.snapshot
    assert built == [], "the chosen step is worked out from the snapshot shown"
    assert after.series is before.series, "the curves' bands are the same objects"
    full = build_training_snapshot(timed.run, focus=after.focus, selected_step=4)
    assert after.selected_step == 4 and after.dots_step == 4
    assert after.dots == full.dots and after.groups == full.groups and after.groups
    assert after.status == full.status


def test_choosing_a_focus_shades_its_band_with_the_same_bands(timed):
    timed.run.run(5)
    timed.step_once()
    before = timed.snapshot
    timed.set_focus("rloo")
    after = timed.snapshot
    full = build_training_snapshot(timed.run, focus="rloo")
    assert [series.band for series in after.series] == [series.band for series in full.series]
    assert all(new.bands is old.bands for new, old in zip(after.series, before.series, strict=True))
    assert after.dots == full.dots and after.status == full.status


def count_builds(monkeypatch) -> list[int]:
    calls: list[int] = []
    real = training_state_module.build_training_snapshot

    def counting(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(training_state_module, "build_training_snapshot", counting)
    return calls


def test_a_hidden_training_workspace_builds_no_snapshots(workbench, monkeypatch, qtbot):
    state = TrainingState(workbench)
    calls = count_builds(monkeypatch)
    state.step_once()
    state.step_once()
    state.select_step(1)
    state.set_metric("kl")
    state.set_focus("rloo")
    state.set_speed(60)
    workbench.set_training_config(replace(SMALL, batch=2))
    state.step_once()
    assert calls == []
    with qtbot.waitSignal(state.snapshot_changed) as shown:
        state.set_shown(True)  # shown: brought up to date once
    assert len(calls) == 1
    snapshot = shown.args[0]
    assert snapshot.steps_done == 1 and snapshot.config.batch == 2
    assert snapshot.metric == "kl" and snapshot.focus == "rloo"
    state.step_once()
    assert len(calls) == 2, "a shown workspace builds one snapshot per change"
    state.set_shown(False)
    state.step_once()
    state.step_once()
    assert len(calls) == 2
    state.stop()


def test_a_hidden_run_that_is_read_builds_once_and_then_not_again(workbench, monkeypatch):
    state = TrainingState(workbench)
    calls = count_builds(monkeypatch)
    state.step_once()
    assert state.snapshot.steps_done == 1 and len(calls) == 1
    assert state.snapshot.steps_done == 1 and len(calls) == 1, "an unchanged snapshot is kept"


# --- a step's groups in the Lab ---------------------------------------------------------------


def test_select_step_then_open_group_shows_that_group_in_the_lab_as_one_undo_step(workbench, state):
    for _ in range(6):
        state.step_once()
    workbench.set_workspace(TRAINING)
    before = (workbench.lab.problem, workbench.lab.snapshot.rewards)
    state.select_step(4)
    snapshot = state.snapshot
    assert snapshot.selected_step == 4 and len(snapshot.groups) == SMALL.batch
    group = state.run.groups(snapshot.focus, 4, 0)[2]
    state.open_group(2)
    lab = workbench.lab
    assert workbench.workspace == LAB and workbench.active_lab is lab
    assert "step 4" in lab.problem.title and "group 3" in lab.problem.title
    assert lab.group_size == SMALL.group_size
    assert lab.snapshot.rewards == tuple(int(r) for r in group.rewards)
    assert snapshot.groups[2].rewards == " ".join(f"{r:g}" for r in lab.snapshot.rewards)
    assert workbench.undo_stack.count() == 1
    workbench.undo_stack.undo()
    assert (workbench.lab.problem, workbench.lab.snapshot.rewards) == before


def test_open_group_without_a_selected_step_or_out_of_range_does_nothing(workbench, state):
    state.step_once()
    state.open_group(0)  # no step selected
    state.select_step(1)
    state.open_group(SMALL.batch)  # past the last group
    state.open_group(-1)
    state.select_step(99)  # not a step taken: ignored
    assert state.snapshot.selected_step == 1
    assert workbench.undo_stack.count() == 0


def test_stop_stops_the_timer_for_good(state, qtbot):
    state.set_speed(1)
    state.set_playing(True)
    assert timer_of(state).isActive()
    state.stop()
    assert not state.playing and not timer_of(state).isActive()
    steps = state.run.step_count
    qtbot.wait(200)
    assert state.run.step_count == steps


def test_the_run_scores_grpo_with_the_convention_on_screen(qapp):
    from grpo_desktop.model.training_state import TrainingState
    from grpo_desktop.model.workbench import Workbench

    workbench = Workbench()
    state = TrainingState(workbench)
    state.step_once()
    assert state.run.convention == "textbook"
    workbench.set_convention("trl")
    assert state.run.convention == "trl" and state.run.step_count == 0  # a fresh run
    workbench.undo_stack.undo()
    assert state.run.convention == "textbook"


# --- the lab's reward weights -----------------------------------------------------------------

WEIGHTED = RewardWeights(accuracy=1.0, format=0.5, partial=1.0)


def test_the_run_rewards_answers_with_the_labs_weights(workbench, state):
    assert state.run.reward_weights == RewardWeights() == workbench.lab.weights
    workbench.set_reward_weights(WEIGHTED, workbench.lab)
    assert state.run.reward_weights == WEIGHTED
    assert state.snapshot.reward_weights == WEIGHTED
    assert not hasattr(workbench.training_config, "reward_weights")  # the lab holds them


def test_a_weight_change_restarts_the_run_and_ctrl_z_brings_back_the_old_weights_run(
    workbench, state, qtbot
):
    for _ in range(3):
        state.step_once()
    state.select_step(2)
    old_run = state.run
    with qtbot.waitSignal(state.snapshot_changed) as shown:
        workbench.set_reward_weight("format", 0.5, workbench.lab)
    assert state.run is not old_run and state.run.step_count == 0
    assert state.snapshot.selected_step is None
    assert shown.args[0].reward_weights == RewardWeights(format=0.5)
    state.step_once()
    weighted_run = state.run
    workbench.undo_stack.undo()  # Ctrl+Z
    assert state.run is old_run and state.run.step_count == 3
    assert state.run.reward_weights == RewardWeights()
    assert weighted_run.step_count == 1


def test_a_card_click_or_a_new_problem_in_the_lab_does_not_restart_the_run(workbench, state):
    workbench.set_reward_weights(WEIGHTED, workbench.lab)
    for _ in range(3):
        state.step_once()
    run = state.run
    workbench.toggle(0, workbench.lab)
    workbench.set_problem("easy-add-17-25", workbench.lab)
    workbench.undo_stack.undo()
    workbench.lab.set_group_size(6)
    assert state.run is run and state.run.step_count == 3


def test_a_comparison_labs_weights_do_not_touch_the_run(workbench, state):
    easy, _hard = workbench.comparison
    state.step_once()
    run = state.run
    workbench.set_reward_weight("format", 0.5, easy)
    assert state.run is run and state.run.reward_weights == RewardWeights()


def test_a_group_opened_from_a_weighted_run_shows_the_rewards_the_run_used(workbench, state):
    """The lab scores the opened group with its own weights, which are the run's: every card's
    reward, and so every advantage, is the one the run computed."""
    workbench.set_reward_weights(WEIGHTED, workbench.lab)
    for _ in range(5):
        state.step_once()
    state.select_step(5)
    fractional = 0
    for index in range(SMALL.batch):
        group = state.run.groups(state.snapshot.focus, 5, 0)[index]
        state.open_group(index)
        lab = workbench.lab.snapshot
        np.testing.assert_array_equal(lab.rewards, group.rewards)
        np.testing.assert_allclose(lab.stats.advantages, group.advantages, atol=1e-12)
        fractional += any(r not in (0.0, 1.0) for r in group.rewards)
    assert fractional > 0  # the weights really showed: not just the checker's 0 and 1
    assert state.run.step_count == 5  # opening groups changed no weight: the run goes on


# --- one convention: what a lesson or scenario sets is what runs ------------------------------


def test_a_lesson_step_naming_verl_runs_verl_and_editing_steps_keeps_it(qapp):
    from grpo_desktop.core.files.lessons import LessonStep

    workbench = Workbench()
    state = TrainingState(workbench)
    step = LessonStep(
        "A verl run",
        "GRPO under verl's convention.",
        None,
        None,
        "frontier",
        "advantage",
        training=replace(SMALL, algorithms=("grpo",)),
        training_convention="verl",
    )
    assert step.convention == "verl"
    workbench.show_lesson_step(step)
    assert workbench.convention == "verl", "the window shows the convention the step names"
    assert state.run.convention == "verl", "the run uses the convention the step names"
    state.request_config(replace(state.snapshot.config, steps=20))  # the lecturer edits Steps
    assert workbench.training_config.steps == 20
    assert state.run.convention == "verl", "an edit of Steps kept verl"
    assert workbench.current_scenario().convention == "verl"


def test_the_run_follows_the_one_convention_on_screen_through_undo(workbench, state):
    workbench.set_convention("trl")
    assert state.run.convention == "trl"
    state.request_config(replace(state.snapshot.config, steps=20))
    workbench.undo_stack.undo()  # the steps edit
    assert state.run.convention == "trl", "undoing Steps undid the convention"
    workbench.undo_stack.undo()  # the convention
    assert state.run.convention == "textbook" == workbench.convention


# --- the played steps survive an algorithm's box and Undo -------------------------------------


def test_unchecking_an_algorithm_keeps_the_played_steps(workbench, state):
    state.run.run(7)
    state.select_step(5)
    before = histories(state.run)
    without_rloo = tuple(name for name in SMALL.algorithms if name != "rloo")
    state.request_config(replace(state.snapshot.config, algorithms=without_rloo))
    assert state.run.config.algorithms == without_rloo
    assert state.snapshot.steps_done == 7, "unchecking an algorithm reset the run"
    assert state.snapshot.selected_step == 5
    kept = {name: before[name] for name in without_rloo}
    assert_same_histories(kept, histories(state.run))


def test_undo_after_unchecking_brings_back_the_run_as_it_was_on_screen(workbench, state):
    state.run.run(7)
    state.select_step(4)
    before = histories(state.run)
    state.request_config(replace(state.snapshot.config, algorithms=("grpo", "dapo")))
    state.run.run(2)  # played on without the others
    workbench.undo_stack.undo()
    assert state.run.config.algorithms == SMALL.algorithms
    assert state.snapshot.steps_done == 7 and state.snapshot.selected_step == 4
    assert_same_histories(before, histories(state.run))
    workbench.undo_stack.redo()
    assert state.run.config.algorithms == ("grpo", "dapo") and state.snapshot.steps_done == 9


def test_undo_of_any_settings_edit_brings_back_the_played_run(workbench, state):
    state.run.run(6)
    before = histories(state.run)
    state.request_config(replace(state.snapshot.config, group_size=4))
    assert state.snapshot.steps_done == 0, "another G answers another question: a fresh run"
    workbench.undo_stack.undo()
    assert state.snapshot.steps_done == 6
    assert_same_histories(before, histories(state.run))


def test_ticking_an_algorithm_mid_run_computes_it_up_to_the_step_shown(workbench, state):
    first = replace(SMALL, algorithms=("grpo",))
    workbench.apply_training_config(first)
    state.run.run(5)
    state.request_config(replace(state.snapshot.config, algorithms=("grpo", "dapo")))
    assert state.snapshot.steps_done == 5
    fresh = TrainingState(Workbench())
    fresh._workbench.apply_training_config(replace(SMALL, algorithms=("grpo", "dapo")))
    fresh.run.run(5)
    assert_same_histories(histories(fresh.run), histories(state.run))
    fresh.stop()


def test_kept_runs_stay_within_their_count_and_memory(workbench, state, monkeypatch):
    monkeypatch.setattr(training_state_module, "KEPT_RUNS", 2)
    for size in (3, 4, 5, 6):
        state.run.run(2)
        state.request_config(replace(state.snapshot.config, group_size=size))
    assert len(state._kept) == 2
    monkeypatch.setattr(training_state_module, "KEPT_RUN_BYTES", 1)
    state.run.run(2)
    state.request_config(replace(state.snapshot.config, group_size=7))
    assert state._kept == {}


def turns(qapp, count: int = 100) -> None:
    """Enough event-loop turns for a frame's steps (a part per turn) and its draw."""
    for _ in range(count):
        qapp.processEvents()


def test_the_timers_frame_takes_its_steps_a_part_per_turn_and_draws_once(timed, clock, qapp):
    timed.set_speed(30)
    timed.set_playing(True)
    frames(timed, clock, 30, qapp)
    before = timed.run.step_count
    timed.drawn.clear()
    clock.now += 0.1  # three steps due
    timed._timer.timeout.emit()  # the frame's timer: its steps wait for the event loop
    assert timed.run.step_count == before, "nothing stepped inside the timer's own turn"
    qapp.processEvents()
    assert timed.run.stepping and timed.run.step_count == before, "one algorithm's share"
    turns(qapp)
    assert timed.run.step_count == before + 3
    assert timed.drawn == [before + 3], "one draw for the frame's steps"


def test_a_click_between_two_parts_of_a_step_is_handled_before_the_next_part(timed, clock, qapp):
    timed.set_speed(30)
    timed.set_playing(True)
    frames(timed, clock, 30, qapp)
    before = timed.run.step_count
    timed.drawn.clear()
    clock.now += 2 * FRAME  # one step due
    timed._timer.timeout.emit()
    qapp.processEvents()  # the step's first part
    assert timed.run.stepping
    handled: list[bool] = []
    QTimer.singleShot(0, lambda: handled.append(timed.run.stepping))  # as a click would come
    qapp.processEvents()
    assert handled == [True], "the click came in between the step's parts"
    timed.select_step(2)  # a step chosen mid-step: from the run as last drawn
    assert timed.drawn == [before] and timed.snapshot.selected_step == 2
    turns(qapp)
    assert timed.run.step_count == before + 1 and timed.drawn == [before, before + 1]
    assert timed.snapshot.selected_step == 2


def test_a_step_posted_before_a_pause_is_not_taken(timed, clock, qapp):
    timed.set_speed(30)
    timed.set_playing(True)
    frames(timed, clock, 30, qapp)
    clock.now += 0.2
    timed._timer.timeout.emit()
    qapp.processEvents()
    timed.set_playing(False)
    paused_at = timed.run.step_count
    turns(qapp)
    assert timed.run.step_count == paused_at
    timed.step_once()  # the step begun before the pause is the one Step takes
    assert timed.run.step_count == paused_at + 1 and not timed.run.stepping


def test_a_click_ahead_of_a_frames_posted_steps_is_shown_and_the_steps_still_taken(
    timed, clock, qapp
):
    timed.set_speed(30)
    timed.set_playing(True)
    frames(timed, clock, 30, qapp)
    before = timed.run.step_count
    timed.drawn.clear()
    clock.now += 0.1
    timed._timer.timeout.emit()  # the frame's steps posted
    timed.select_step(3)  # a click in the same turn: its marker at once, from the shown run
    assert timed.drawn == [before] and timed.snapshot.selected_step == 3
    turns(qapp)
    assert timed.run.step_count == before + 3, "the frame's steps were taken after its repaint"
    assert timed.drawn == [before, before + 3]
    assert timed.snapshot.selected_step == 3
