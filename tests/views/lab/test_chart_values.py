"""ChartValues: what each chart view shows for a snapshot, read off it once per click."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from grpo_desktop.core.lab.lab_snapshot import LabSnapshot, Push, build_snapshot
from grpo_desktop.core.lab.problems import get_problem
from grpo_desktop.views.lab.chart_values import (
    ChartValues,
    ViewState,
    par_label,
    reverse_phase_labels,
)

MINUS = "\u2212"


def make_snapshot(rewards: Sequence[int], convention: str = "textbook") -> LabSnapshot:
    return build_snapshot(get_problem("mult-23x47"), [bool(r) for r in rewards], convention)


def test_both_views_of_the_seed_group():
    values = ChartValues.from_snapshot(make_snapshot([1, 0, 0, 1]))
    pushes = (Push.UP, Push.DOWN, Push.DOWN, Push.UP)
    assert values.state("reward") == ViewState(
        (1.0, 0.0, 0.0, 1.0), pushes, ("1", "0", "0", "1"), 0.5, "par = 0.5"
    )
    assert values.state("advantage") == ViewState(
        (1.0, -1.0, -1.0, 1.0), pushes, ("+1.00", f"{MINUS}1.00", f"{MINUS}1.00", "+1.00"), 0.0, "0"
    )


def test_hidden_advantages_give_neither_signs_nor_colours_away():
    values = ChartValues.from_snapshot(make_snapshot([1, 0, 0, 1]))
    advantage = values.state("advantage", advantages_hidden=True)
    assert advantage.heights == (0.0,) * 4
    assert advantage.texts == ("?",) * 4
    assert set(advantage.pushes) == {Push.NONE}
    reward = values.state("reward", advantages_hidden=True)
    assert reward.heights == (1.0, 0.0, 0.0, 1.0)  # rewards are no secret
    assert set(reward.pushes) == {Push.NONE}


def test_extent_and_label_width_cover_every_phase_of_both_views():
    values = ChartValues.from_snapshot(make_snapshot([1, 1, 1, 1, 0]))
    assert values.rewards == (1.0, 1.0, 1.0, 1.0, 0.0)
    assert values.centered == pytest.approx((0.2, 0.2, 0.2, 0.2, -0.8))
    assert values.extent == pytest.approx(2.0)  # the −2.0 advantage, larger than any r
    assert values.label_chars == len(f"{MINUS}2.00")


def test_captions_are_the_worked_math_phases_then_their_reverse():
    snapshot = make_snapshot([1, 0, 0, 1])
    values = ChartValues.from_snapshot(snapshot)
    assert values.forward_captions == snapshot.worked_math.phase_labels
    assert values.reverse_captions == reverse_phase_labels(snapshot)
    assert values.captions == (*values.forward_captions, *values.reverse_captions)


def test_range_key_names_the_group_not_its_answers():
    a = ChartValues.from_snapshot(make_snapshot([1, 0, 0, 1]))
    b = ChartValues.from_snapshot(make_snapshot([1, 1, 0, 1]))
    c = ChartValues.from_snapshot(make_snapshot([1, 0, 0, 1], "dr_grpo"))
    assert a.range_key == b.range_key == (4, "mult-23x47", "textbook")
    assert c.range_key != a.range_key


def test_negative_par_uses_the_real_minus_sign():
    assert par_label(-0.25) == "par = \u22120.25"
    assert par_label(1 / 3) == "par = 0.3333"


@pytest.mark.parametrize(
    "convention", ["textbook", "trl", "trl_batch", "verl", "openrlhf", "dr_grpo", "rloo"]
)
def test_every_convention_has_reverse_captions(convention):
    for rewards in ([1, 0, 0, 1], [1, 1, 1, 1]):
        snapshot = make_snapshot(rewards, convention)
        first, second = reverse_phase_labels(snapshot)
        assert first.startswith("Step 1 of 2 (reverse): ")
        assert second.startswith("Step 2 of 2 (reverse): add par back (mean = ")
    assert "1e-4" in reverse_phase_labels(make_snapshot([1, 0, 0, 1], "trl"))[0]
