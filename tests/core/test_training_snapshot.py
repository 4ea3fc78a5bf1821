"""The Training workspace's snapshot: what its views are told to draw."""

from __future__ import annotations

import numpy as np

from grpo_desktop.core.frontier import FRONTIER_GROUP_SIZES
from grpo_desktop.core.training import TrainingConfig, TrainingRun
from grpo_desktop.core.training_snapshot import build_training_snapshot


def test_the_ready_line_counts_in_good_english():
    one = TrainingRun(TrainingConfig(algorithms=("grpo",), steps=10, seeds=1, batch=1))
    assert build_training_snapshot(one).status == (
        "Ready: 1 algorithm × 1 seed, 10 steps of 1 group of G = 8."
    )


def test_bands_are_the_seeds_mean_min_and_max():
    run = TrainingRun(TrainingConfig(algorithms=("grpo", "dapo"), steps=10, seeds=3))
    run.run(4)
    snapshot = build_training_snapshot(run, metric="kl")
    grpo = next(series for series in snapshot.series if series.name == "grpo")
    values = run.history("grpo")["kl"]
    np.testing.assert_allclose(grpo.bands["kl"].mean, values.mean(axis=1))
    np.testing.assert_allclose(grpo.bands["kl"].low, values.min(axis=1))
    np.testing.assert_allclose(grpo.bands["kl"].high, values.max(axis=1))
    assert set(grpo.bands) == {"pass_rate", "kl"}


def test_the_frontier_has_every_usual_curve_and_the_runs_own_g():
    snapshot = build_training_snapshot(TrainingRun(TrainingConfig(steps=10, group_size=6)))
    sizes = [size for size, _ in snapshot.frontier_curves]
    assert sizes == sorted({*FRONTIER_GROUP_SIZES, 6})
    assert len(snapshot.dots) == len(TrainingRun(TrainingConfig(steps=10)).library.problems)


def test_a_selected_step_lists_its_groups_and_what_each_taught():
    run = TrainingRun(TrainingConfig(algorithms=("grpo",), steps=10, seeds=1))
    run.run(3)
    snapshot = build_training_snapshot(run, selected_step=2)
    assert len(snapshot.groups) == run.config.batch
    for summary, group in zip(snapshot.groups, run.groups("grpo", 2, 0)):
        assert summary.rewards == " ".join(f"{r:g}" for r in group.rewards)
        mixed = len(set(group.rewards)) > 1
        assert (summary.verdict == "informative") == mixed
    assert build_training_snapshot(run, selected_step=9).selected_step is None


def test_an_all_equal_group_is_named_by_the_checkers_verdicts_not_by_its_reward():
    from grpo_desktop.core.training_snapshot import _no_signal

    assert _no_signal((True, True)) == "all right: no signal"
    assert _no_signal((False, False)) == "all wrong: no signal"
    # A right answer without the format and a wrong one with it can both score 1.
    assert _no_signal((True, False)) == "all rewards equal: no signal"
