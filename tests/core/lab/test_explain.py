"""The worked math writes the seeds' exact numbers, step by step."""

from __future__ import annotations

import re

import pytest

from grpo_desktop import core
from grpo_desktop.core.lab.explain import explain


def text_of(rewards, convention="textbook") -> str:
    worked = explain(core.group_stats(rewards, convention))
    return "\n".join(line for step in worked.steps for line in step.lines)


def test_seed_1001_is_worked_as_the_book_writes_it():
    text = text_of([1, 0, 0, 1])
    assert "mean = (1+0+0+1)/4 = 2/4 = 0.5" in text
    assert "variance = p(1 − p) = 0.5 × 0.5 = 0.25" in text
    assert "std = √0.25 = 0.5" in text
    assert "r − mean = 1 − 0.5 = +0.5; A = +0.5/0.5 = +1.0" in text
    assert "r − mean = 0 − 0.5 = −0.5; A = −0.5/0.5 = −1.0" in text


def test_easy_group_gives_the_seeds_numbers():
    text = text_of([1, 1, 1, 1, 0])
    assert "mean = (1+1+1+1+0)/5 = 4/5 = 0.8" in text
    assert "p(1 − p) = 0.8 × 0.2 = 0.16" in text
    assert "std = √0.16 = 0.4" in text
    assert "A = +0.2/0.4 = +0.5" in text
    assert "A = −0.8/0.4 = −2.0" in text


def test_hard_group_gives_plus_two():
    text = text_of([1, 0, 0, 0, 0])
    assert "A = +0.8/0.4 = +2.0" in text and "A = −0.2/0.4 = −0.5" in text


def test_degenerate_group_is_explained():
    worked = explain(core.group_stats([1, 1, 1, 1]))
    assert worked.steps[-1].title == "Degenerate group"
    assert "exactly 0" in worked.comparison


def test_library_convention_shows_its_sample_std_and_the_difference_from_the_textbook():
    worked = explain(core.group_stats([1, 0, 0, 1], "trl"))
    text = "\n".join(line for step in worked.steps for line in step.lines)
    assert "sample variance" in text and "1e-4" in text
    assert "+0.866 / −0.866" in worked.comparison and "+1.000 / −1.000" in worked.comparison
    assert worked.source.startswith("TRL")


@pytest.mark.parametrize(
    ("rewards", "loudest", "phrase"),
    [
        ([1, 1, 1, 1, 0], (4,), "lone wrong answer (#5) gets −2.0"),
        ([1, 0, 0, 0, 0], (0,), "lone right answer (#1) gets +2.0"),
        ([1, 0, 0, 1], (), ""),
    ],
)
def test_rare_answers_are_named_as_the_loud_ones(rewards, loudest, phrase):
    worked = explain(core.group_stats(rewards))
    assert worked.loudest == loudest
    assert phrase in worked.loudest_note


@pytest.mark.parametrize("convention", ["textbook", "trl", "dr_grpo", "rloo"])
def test_only_an_outcome_held_by_at_most_a_quarter_of_the_group_is_starred_as_rare(convention):
    """Rare is k ≤ G/4 (|A| at least 3× the others'): 1 of 5 is, 2 of 5, 7 of 16, 31 of 64 not."""
    for size in range(2, 65):
        for right in range(1, size):
            rewards = [1] * right + [0] * (size - right)
            worked = explain(core.group_stats(rewards, convention))
            minority = min(right, size - right)
            rare = minority * 4 <= size
            expected = (
                tuple(range(right))
                if right * 4 <= size
                else tuple(range(right, size))
                if (size - right) * 4 <= size
                else ()
            )
            assert worked.loudest == expected, (convention, size, right)
            assert bool(worked.loudest_note) == rare, (convention, size, right)
    for size, right in ((64, 31), (16, 7), (5, 2)):  # the nearly balanced groups
        worked = explain(core.group_stats([1] * right + [0] * (size - right), convention))
        assert worked.loudest == () and worked.loudest_note == ""


@pytest.mark.parametrize(
    ("rewards", "singular"),
    [([1, 0, 0, 0, 0], True), ([1, 1] + [0] * 6, False), ([0] * 3 + [1] * 13, False)],
)
def test_the_rare_note_agrees_in_number(rewards, singular):
    note = explain(core.group_stats(rewards)).loudest_note
    if singular:
        assert "The lone " in note and "it sits" in note and " gets " in note
        assert "they" not in note
    else:
        assert "they sit" in note and "it sits" not in note and " answers (" in note
        assert " get " in note.split(":")[0]


@pytest.mark.parametrize("convention", core.convention_names())
def test_every_convention_has_two_phase_labels(convention):
    first, second = explain(core.group_stats([1, 0, 0, 1], convention)).phase_labels
    assert first.startswith("Step 1 of 2") and second.startswith("Step 2 of 2")


def test_weighted_rewards_are_worked_out_card_by_card_before_the_statistics():
    from grpo_desktop.core.lab.lab_rewards import RewardWeights
    from grpo_desktop.core.lab.lab_snapshot import build_snapshot
    from grpo_desktop.core.lab.problems import get_problem

    weights = RewardWeights(format=0.5, partial=1.0)
    snapshot = build_snapshot(
        get_problem("mult-23x47"), [True, False, False, True], weights=weights
    )
    first = snapshot.worked_math.steps[0]
    assert first.title == "Rewards: r = 1 × accuracy + 0.5 × format + 1 × partial credit"
    assert first.lines[1] == "#2: 1×0 + 0.5×1 + 1×0.5 = 1"  # partial credit applies
    assert first.lines[2] == "#3: 1×0 + 0.5×1 = 0.5"  # no credit: skipped, as nansum skips it
    statistics = snapshot.worked_math.steps[1]
    assert "Bernoulli" not in " ".join(statistics.lines)
    assert "variance = Σ(r − mean)² / G = 0.125" in statistics.lines


def test_hand_set_and_logged_rewards_say_where_they_come_from():
    from grpo_desktop.core.lab.lab_snapshot import build_snapshot
    from grpo_desktop.core.lab.problems import get_problem

    hand = build_snapshot(get_problem("mult-23x47"), [True, False], scores=[0.9, 0.2])
    assert hand.worked_math.steps[0].title == "Rewards set by hand (continuous mode)"
    plain = build_snapshot(get_problem("mult-23x47"), [True, False])
    assert plain.worked_math.steps[0].title == "Group statistics"


def _all_text(worked) -> str:
    return "\n".join(
        [line for step in worked.steps for line in step.lines]
        + [worked.comparison, *worked.phase_labels, worked.loudest_note]
    )


@pytest.mark.parametrize(
    "rewards",
    [
        [1e200, -1e200, 1e200, -1e200],
        [1e308, 1e308, -1e308, 0.0],
        [1e308, 0.0, 0.0],
        [1.7e308, -1.7e308],
        [1e-200, 0.0],
    ],
)
@pytest.mark.parametrize("convention", core.convention_names())
def test_huge_and_tiny_rewards_are_worked_in_scientific_notation_never_an_error(
    rewards, convention
):
    # std**2 of a std above ~1.3e154 raised OverflowError: a traceback at --scenario, a crash
    # dialog on File > Open.
    try:
        stats = core.group_stats(rewards, convention)
    except ValueError:
        return  # a spread that overflows float64 under this convention is refused before
    text = _all_text(explain(stats))
    assert "inf" not in text and "nan" not in text
    assert max(len(run) for run in re.findall(r"\d+", text)) <= 6, text


def test_the_variance_of_rewards_of_1e200_is_written_exactly():
    text = _all_text(explain(core.group_stats([1e200, -1e200, 1e200, -1e200])))
    assert "std = √1e+400 = 1e+200" in text
    assert "r − mean = 1e+200 − 0 = +1e+200; A = +1e+200/1e+200 = +1.0" in text


def test_a_sum_that_overflows_float64_is_written_exactly():
    text = _all_text(explain(core.group_stats([1e308, 1e308, -1e308, 0.0], "trl")))
    assert "= 1e+308/4 = 2.5e+307" in text
    assert "sample variance = Σ(r − mean)² / (G − 1) = 2.75e+616/3 = 9.167e+615" in text


def test_a_difference_too_small_for_fixed_point_is_not_written_as_zero():
    text = _all_text(explain(core.group_stats([1e-200, 0.0], "trl")))
    assert "sample variance = Σ(r − mean)² / (G − 1) = 5e−401/1 = 5e−401" in text
    assert "r − mean = 1e−200 − 5e−201 = +5e−201" in text


def test_rloo_baseline_of_huge_rewards_does_not_overflow():
    text = _all_text(explain(core.group_stats([1e308, 1e308, -1e308, 0.0], "rloo")))
    assert (
        "baseline = mean of the other 3 = 6.667e+307; A = −1e+308 − 6.667e+307 = −1.667e+308"
        in (text)
    )


@pytest.mark.parametrize(("reward", "pushed"), [(1.0, "+1.0"), (-2.0, "−2.0")])
def test_a_lone_verl_answer_is_worked_with_verls_mean_zero_and_std_one(reward, pushed):
    # The worked math read "mean = (1)/1 = 1/1 = 0", a sample variance over G − 1 = 0, and
    # "Degenerate group" beside an answer pushed up.
    worked = explain(core.group_stats([reward], "verl"))
    text = _all_text(worked)
    assert "verl sets mean = 0 and std = 1" in text
    assert "/0" not in text and "(1)/1" not in text
    assert all(step.title != "Degenerate group" for step in worked.steps)
    assert f"A = {pushed[0]}" in text and "pushed by its own reward" in worked.comparison
