"""The Training workspace's snapshot: what its views are told to draw."""

from __future__ import annotations

import numpy as np
import pytest

from grpo_desktop.core.training.frontier import FRONTIER_GROUP_SIZES
from grpo_desktop.core.training.run import TrainingConfig, TrainingRun
from grpo_desktop.core.training.training_snapshot import (
    build_training_snapshot,
    rechoose_training_snapshot,
)


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
    from grpo_desktop.core.training.training_snapshot import _no_signal

    assert _no_signal((True, True)) == "all right: no signal"
    assert _no_signal((False, False)) == "all wrong: no signal"
    # A right answer without the format and a wrong one with it can both score 1.
    assert _no_signal((True, False)) == "all rewards equal: no signal"


def diverged_run() -> TrainingRun:
    """DAPO's logits overflow at step 1 with β 10 and 8 epochs (issue 24, item 7)."""
    run = TrainingRun(
        TrainingConfig(algorithms=("grpo", "dapo"), steps=6, seeds=2, beta=10.0, epochs=8)
    )
    run.run()
    assert run.divergence("dapo").first_step == 1 and not run.divergence("grpo").diverged
    return run


def test_a_diverged_algorithm_is_named_in_the_snapshots_note_with_its_first_step():
    snapshot = build_training_snapshot(diverged_run())
    assert snapshot.divergence_note.startswith("DAPO diverged ")
    assert "step 1" in snapshot.divergence_note
    assert "nan" not in snapshot.divergence_note.lower()
    by_name = {series.name: series for series in snapshot.series}
    assert by_name["dapo"].diverged_at == 1 and by_name["grpo"].diverged_at is None


def test_a_stable_run_has_no_divergence_note():
    run = TrainingRun(TrainingConfig(algorithms=("grpo",), steps=5, seeds=2))
    run.run()
    snapshot = build_training_snapshot(run)
    assert snapshot.divergence_note == ""
    assert snapshot.series[0].diverged_at is None


def test_the_frontier_of_a_diverged_algorithm_shows_only_the_problems_it_has_numbers_for():
    run = diverged_run()
    snapshot = build_training_snapshot(run, focus="dapo")  # raised on NaN pass rates before
    assert all(np.isfinite(dot.pass_rate) and np.isfinite(dot.informative) for dot in snapshot.dots)
    if run.divergence("dapo").all_seeds:
        assert snapshot.dots == ()
        assert snapshot.status.endswith("DAPO diverged at step 1.")
    assert "nan" not in snapshot.status.lower()


def test_a_step_after_seed_1_diverged_says_why_it_lists_no_groups():
    run = diverged_run()
    seed_1 = run.divergence("dapo").steps[0]
    after = build_training_snapshot(run, focus="dapo", selected_step=seed_1 + 1)
    assert after.groups == ()
    assert after.groups_note == (
        f"Seed 1 diverged at step {seed_1}: its policy is not a number from then on, so it drew "
        "no groups to open."
    )
    stable = build_training_snapshot(run, focus="grpo", selected_step=seed_1 + 1)
    assert stable.groups and stable.groups_note == ""


def test_the_frontier_dots_stand_at_the_step_clicked_on_the_charts():
    run = TrainingRun(TrainingConfig(algorithms=("grpo",), steps=12, seeds=2, batch=4))
    run.run(10)
    latest = build_training_snapshot(run)
    chosen = build_training_snapshot(run, selected_step=3)
    assert latest.dots_step == 10 and chosen.dots_step == 3
    at_three = run.pass_rates("grpo")[3].mean(axis=0)
    assert [dot.pass_rate for dot in chosen.dots] == list(at_three)
    assert [dot.pass_rate for dot in chosen.dots] != [dot.pass_rate for dot in latest.dots]


def test_with_many_algorithms_only_the_focus_algorithm_shades_its_band():
    run = TrainingRun(TrainingConfig(steps=4, seeds=2, batch=2))
    snapshot = build_training_snapshot(run, focus="dapo")
    assert {series.name for series in snapshot.series if series.band} == {"dapo"}
    two = TrainingRun(TrainingConfig(algorithms=("grpo", "dapo"), steps=4, seeds=2, batch=2))
    assert all(series.band for series in build_training_snapshot(two).series)


def test_a_step_chosen_on_a_snapshot_the_run_has_gone_past_is_the_one_built_then():
    config = TrainingConfig(algorithms=("grpo", "dapo"), steps=10, seeds=2)
    run, then = TrainingRun(config), TrainingRun(config)
    run.run(5)
    then.run(5)
    shown = build_training_snapshot(run, playing=True)
    run.run(2)  # steps a draw is about to show
    chosen = rechoose_training_snapshot(shown, run, focus=None, selected_step=3)
    expected = build_training_snapshot(then, playing=True, selected_step=3)
    assert chosen.steps_done == 5 and chosen.series is shown.series
    assert chosen.status == expected.status
    assert chosen.selected_step == 3 and chosen.dots_step == 3
    assert chosen.dots == expected.dots and chosen.groups == expected.groups
    unchosen = rechoose_training_snapshot(shown, run, focus=None, selected_step=None)
    assert unchosen.dots_step == 5 and unchosen.dots == build_training_snapshot(then).dots
    beyond = rechoose_training_snapshot(shown, run, focus=None, selected_step=7)
    assert beyond.selected_step is None, "a step the snapshot does not show is not chosen"
    with pytest.raises(ValueError):
        rechoose_training_snapshot(shown, run, focus="dapo", selected_step=3)


def test_bands_built_frame_by_frame_equal_the_bands_built_at_once():
    config = TrainingConfig(algorithms=("grpo", "dapo"), steps=12, seeds=3, beta=10.0, epochs=8)
    played, fresh = TrainingRun(config), TrainingRun(config)
    earlier = []
    for _ in range(6):  # a snapshot every step, as a playing run builds them
        played.step()
        earlier.append(build_training_snapshot(played, metric="kl", selected_step=1))
    fresh.run(6)
    once = build_training_snapshot(fresh, metric="kl", selected_step=1)
    last = earlier[-1]
    for a, b in zip(last.series, once.series):
        for key in ("pass_rate", "kl"):
            for x, y in zip(
                (a.bands[key].mean, a.bands[key].low, a.bands[key].high),
                (b.bands[key].mean, b.bands[key].low, b.bands[key].high),
            ):
                assert x.tobytes() == y.tobytes(), (a.name, key)
                assert not x.flags.writeable
    assert last.dots == once.dots and last.groups == once.groups
    first = earlier[0].series[0].bands["pass_rate"].mean
    assert len(first) == 2, "an earlier snapshot keeps the steps it showed"
