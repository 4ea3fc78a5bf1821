"""Experiments on the toy run: one setting over values, each over the same seeds, read the same
way (final pass rate, steps to a target, degenerate share at step 1)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from grpo_desktop.core.training.run import TrainingRun
from grpo_desktop.core.training.sweep import parse_sweep, run_sweep, sweep_csv
from grpo_desktop.core.training.training_config import TrainingConfig

SMALL = TrainingConfig(algorithms=("grpo",), steps=12, seeds=3, batch=4)


def test_each_value_is_the_same_run_with_that_setting_changed():
    result = run_sweep(SMALL, "group-size", (4, 16), target=0.5)
    assert [row.value for row in result.results] == [4, 16]
    for row, size in zip(result.results, (4, 16)):
        run = TrainingRun(replace(SMALL, group_size=size))
        run.run()
        final = run.history("grpo")["pass_rate"][-1]
        assert row.final_pass_rate_mean == pytest.approx(final.mean())
        assert (row.final_pass_rate_min, row.final_pass_rate_max) == (final.min(), final.max())
        step1 = run.history("grpo")["degenerate_fraction"][1]
        assert row.degenerate_fraction_step1 == pytest.approx(step1.mean())


def test_a_larger_group_leaves_fewer_groups_without_signal():
    result = run_sweep(replace(SMALL, seeds=8), "group-size", (2, 32))
    small, large = result.results
    assert small.degenerate_fraction_step1 > large.degenerate_fraction_step1


def test_steps_to_target_counts_only_seeds_that_reach_it():
    reached = run_sweep(SMALL, "lr", (4.0, 0.0), target=0.01)
    for row in reached.results:  # step 0 is already at 0.01, with or without learning
        assert row.reached == 3 and row.steps_to_target == 0.0
    never = run_sweep(SMALL, "lr", (4.0, 0.0), target=1.0)
    assert all(row.steps_to_target is None and row.reached == 0 for row in never.results)
    assert never.as_dict()["results"][0]["steps_to_target"] is None


def test_algorithm_and_convention_sweeps():
    algorithms = run_sweep(
        replace(SMALL, algorithms=("grpo", "rloo")), "algorithm", ("rloo", "dapo")
    )
    assert [row.value for row in algorithms.results] == ["rloo", "dapo"]
    conventions = run_sweep(SMALL, "convention", ("textbook", "verl"))
    assert len(conventions.results) == 2


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("seeds=1,2", "NAME one of"),
        ("group-size=4", "2 to 12 values"),
        ("group-size=4,4", "twice"),
        ("group-size=4,x", "not a whole number"),
        ("lr=1,inf", "not a finite number"),
        ("lr", "NAME=V1"),
    ],
)
def test_a_bad_sweep_is_one_sentence(text, words):
    with pytest.raises(ValueError, match=words):
        parse_sweep(text)


def test_several_algorithms_need_an_algorithm_sweep_and_bad_values_fail_before_any_run():
    with pytest.raises(ValueError, match="one algorithm"):
        run_sweep(replace(SMALL, algorithms=("grpo", "rloo")), "lr", (1.0, 2.0))
    with pytest.raises(ValueError, match="group-size=99"):
        run_sweep(SMALL, "group-size", (4, 99))
    with pytest.raises(ValueError, match="unknown algorithm"):
        run_sweep(SMALL, "algorithm", ("grpo", "bogus"))


def test_csv_has_one_row_per_value():
    text = sweep_csv(run_sweep(SMALL, "beta", (0.0, 0.1)))
    lines = text.splitlines()
    assert lines[0].startswith("beta,final_pass_rate_mean")
    assert [line.split(",")[0] for line in lines[1:]] == ["0.0", "0.1"]
    assert np.isfinite(float(lines[1].split(",")[1]))
