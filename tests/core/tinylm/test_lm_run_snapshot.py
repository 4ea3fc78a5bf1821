"""The tiny model's run as the Training workspace draws it: curves, dots, status, groups."""

from __future__ import annotations

import numpy as np
import pytest

from grpo_desktop.core.lab.recorded_group import TINYLM_FORMAT
from grpo_desktop.core.tinylm.grpo import LMTrainingRun
from grpo_desktop.core.tinylm.grpo_config import LMTrainingConfig
from grpo_desktop.core.tinylm.lm_run_snapshot import (
    LM_METRICS,
    ModelFacts,
    build_lm_run_snapshot,
    lm_group_as_recorded,
    model_note,
)
from grpo_desktop.core.training.frontier import informative_probability

TINY = LMTrainingConfig(steps=3, batch=4, group_size=4, eval_every=1)


@pytest.fixture(scope="module")
def run() -> LMTrainingRun:
    made = LMTrainingRun(TINY)
    made.run(2)
    return made


def snapshot_of(run: LMTrainingRun, **options):
    return build_lm_run_snapshot(run.config, run.metrics, run.evals, run.groups, **options)


def test_every_metric_is_a_curve_with_a_point_per_record(run):
    snapshot = snapshot_of(run)
    assert set(snapshot.curves) == {key for key, _ in LM_METRICS}
    assert list(snapshot.curves["pass_rate"].steps) == [0, 1, 2]
    assert list(snapshot.curves["reward_mean"].steps) == [1, 2]
    assert snapshot.curves["kl"].values[0] == pytest.approx(run.metrics[0].kl)
    assert snapshot.curves["greedy_accuracy"].values[-1] == run.evals[-1].greedy_accuracy


def test_held_out_dots_sit_on_the_frontier_at_their_latest_pass_rates(run):
    snapshot = snapshot_of(run)
    latest = run.evals[-1]
    assert snapshot.dots_step == latest.step == 2
    np.testing.assert_allclose(snapshot.dots_p, latest.pass_rates)
    np.testing.assert_allclose(
        snapshot.dots_y, informative_probability(latest.pass_rates, TINY.group_size)
    )
    assert snapshot.frontier_y.max() == pytest.approx(1 - 2 * 0.5**4)


def test_status_names_the_step_and_the_pass_rate_change(run):
    snapshot = snapshot_of(run, playing=True)
    assert snapshot.status.startswith("Step 2 of 3 (GRPO, playing): held-out exact pass rate")
    start = build_lm_run_snapshot(TINY, [], run.evals[:1], [])
    assert start.status.startswith("Step 0 of 3") and "Press Play" in start.status
    loading = build_lm_run_snapshot(TINY, [], [], [])
    assert not loading.ready and "Loading" in loading.status


def test_an_error_is_the_one_sentence_and_the_run_is_not_ready():
    snapshot = build_lm_run_snapshot(TINY, [], [], [], error="The tiny model could not be loaded.")
    assert snapshot.status == "The tiny model could not be loaded."
    assert not snapshot.ready and not snapshot.playing


def test_the_latest_or_chosen_steps_groups_are_listed(run):
    latest = snapshot_of(run)
    assert latest.selected_step == 2 and len(latest.groups) == TINY.batch
    chosen = snapshot_of(run, selected_step=1)
    first = run.groups[0][0]
    assert chosen.selected_step == 1
    assert chosen.groups[0].text.startswith(f"#1  {first.prompt}")
    assert snapshot_of(run, selected_step=9).selected_step == 2  # a step not taken: the latest


def test_a_group_becomes_a_tinylm_recorded_group(run):
    group = run.groups[1][2]
    recorded = lm_group_as_recorded(group, 2, 2, 4, None, 107_820, 1.0)
    assert recorded.run_format == TINYLM_FORMAT
    assert recorded.step == 2 and recorded.group_index == 2
    assert recorded.texts == group.completions and recorded.rewards == group.rewards
    assert recorded.prompt == group.prompt and recorded.answer_key == group.answer


def test_the_note_says_what_the_model_is_and_what_carries_over():
    shipped = model_note(ModelFacts(107_820, 2, 44, None), None)
    assert "107,820-parameter 2-layer character transformer" in shipped
    assert "44-token vocabulary" in shipped and "400 steps" in shipped
    assert "carries over" in shipped and "does not" in shipped
    own = model_note(ModelFacts(5, 1, 44, "/tmp/mine.npz", "supervised: add"), "/tmp/mine.npz")
    assert "/tmp/mine.npz" in own and "supervised: add" in own
