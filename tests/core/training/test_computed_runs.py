"""A run asked for again at the same step is a copy of the one computed before: bit for bit the
run computed afresh, a run of its own, and not computed again."""

from __future__ import annotations

import numpy as np
import pytest

from grpo_desktop.core.lab.lab_rewards import RewardWeights
from grpo_desktop.core.training import computed_runs
from grpo_desktop.core.training.computed_runs import (
    KEPT_COMPUTED_RUNS,
    computing_ahead,
    run_computed_to,
)
from grpo_desktop.core.training.run import TrainingConfig, TrainingRun

CONFIG = TrainingConfig(algorithms=("grpo", "dapo"), steps=12, seeds=3, batch=4, group_size=4)
WEIGHTS = RewardWeights()


@pytest.fixture(autouse=True)
def nothing_kept(monkeypatch):
    monkeypatch.setattr(computed_runs, "_kept", type(computed_runs._kept)())
    monkeypatch.setattr(computed_runs, "_computing", {})


@pytest.fixture
def steps_taken(monkeypatch) -> list[int]:
    taken: list[int] = []
    step = TrainingRun.step

    def counted(run: TrainingRun) -> None:
        taken.append(run.step_count)
        step(run)

    monkeypatch.setattr(TrainingRun, "step", counted)
    return taken


def assert_same_run(run: TrainingRun, fresh: TrainingRun) -> None:
    assert run.step_count == fresh.step_count
    for name in CONFIG.algorithms:
        for metric, values in fresh.history(name).items():
            np.testing.assert_array_equal(run.history(name)[metric], values, err_msg=metric)
        np.testing.assert_array_equal(run.pass_rates(name), fresh.pass_rates(name))
        for step in range(1, fresh.step_count + 1):
            assert run.groups(name, step, seed=2) == fresh.groups(name, step, seed=2)


def fresh_run(steps: int) -> TrainingRun:
    run = TrainingRun(CONFIG, "trl", WEIGHTS)
    run.run(steps)
    return run


def test_asked_again_it_is_the_same_run_without_a_step_computed(steps_taken):
    first = run_computed_to(CONFIG, "trl", WEIGHTS, 8)
    assert len(steps_taken) == 8
    again = run_computed_to(CONFIG, "trl", WEIGHTS, 8)
    assert len(steps_taken) == 8
    assert again is not first
    fresh = fresh_run(8)
    assert_same_run(first, fresh)
    assert_same_run(again, fresh)


def test_each_copy_plays_on_alone_as_the_fresh_run_would():
    played = run_computed_to(CONFIG, "trl", WEIGHTS, 6)
    played.run(4)
    assert_same_run(played, fresh_run(10))
    assert_same_run(run_computed_to(CONFIG, "trl", WEIGHTS, 6), fresh_run(6))


def test_another_step_convention_or_reward_is_another_run():
    at_six = run_computed_to(CONFIG, "trl", WEIGHTS, 6)
    textbook = run_computed_to(CONFIG, "textbook", WEIGHTS, 6)
    weighted = run_computed_to(CONFIG, "trl", RewardWeights(format=0.5), 6)
    assert run_computed_to(CONFIG, "trl", WEIGHTS, 7).step_count == 7
    assert textbook.convention == "textbook" and at_six.convention == "trl"
    assert weighted.reward_weights == RewardWeights(format=0.5)


def test_only_the_last_few_runs_are_kept(steps_taken):
    for steps in range(1, KEPT_COMPUTED_RUNS + 2):
        run_computed_to(CONFIG, "trl", WEIGHTS, steps)
    computed = len(steps_taken)
    run_computed_to(CONFIG, "trl", WEIGHTS, KEPT_COMPUTED_RUNS + 1)  # the newest: kept
    assert len(steps_taken) == computed
    run_computed_to(CONFIG, "trl", WEIGHTS, 1)  # the oldest: dropped, computed again
    assert len(steps_taken) == computed + 1
    assert len(computed_runs._kept) == KEPT_COMPUTED_RUNS


def test_a_run_at_step_0_is_made_afresh_and_not_kept():
    assert run_computed_to(CONFIG, "trl", WEIGHTS, 0).step_count == 0
    assert len(computed_runs._kept) == 0


def test_a_run_computed_ahead_is_kept_whole_and_asked_for_computes_nothing(steps_taken):
    parts = sum(1 for _ in computing_ahead(CONFIG, "trl", WEIGHTS, 5))
    assert parts == 5 * len(CONFIG.algorithms)  # one algorithm's share of a step at a time
    assert sum(1 for _ in computing_ahead(CONFIG, "trl", WEIGHTS, 5)) == 0  # kept already
    run = run_computed_to(CONFIG, "trl", WEIGHTS, 5)
    assert steps_taken == []
    assert_same_run(run, fresh_run(5))


def test_asked_for_while_computed_ahead_it_is_finished_there_and_the_ahead_stops(steps_taken):
    ahead = computing_ahead(CONFIG, "trl", WEIGHTS, 9)
    for _ in range(7):  # three steps and a half
        next(ahead)
    run = run_computed_to(CONFIG, "trl", WEIGHTS, 9)
    assert steps_taken == [3, 4, 5, 6, 7, 8]  # the half step finished, then the rest
    assert_same_run(run, fresh_run(9))
    assert list(ahead) == []
    assert_same_run(run_computed_to(CONFIG, "trl", WEIGHTS, 9), fresh_run(9))
