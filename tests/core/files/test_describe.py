"""describe: the lab, its charts and a toggle in words (exact sentences a screen reader reads)."""

from __future__ import annotations

from grpo_desktop.core.files.describe import (
    advantage_chart_text,
    announce_toggle,
    card_list,
    describe_lab,
    frontier_text,
    push_chart_text,
)
from grpo_desktop.core.lab.lab_snapshot import build_snapshot
from grpo_desktop.core.lab.problems import get_problem
from grpo_desktop.core.training.training_snapshot import FrontierDot

PROBLEM = get_problem("mult-23x47")
BASELINE = "Par (the group's mean reward, the baseline) is"


def lab(correct, **kwargs):
    return build_snapshot(PROBLEM, [bool(c) for c in correct], **kwargs)


def test_card_lists_read_as_ranges():
    assert card_list([]) == ""
    assert card_list([5]) == "card 5"
    assert card_list([1, 2]) == "cards 1 and 2"
    assert card_list([3, 1, 2, 5, 7, 8, 9]) == "cards 1–3, 5 and 7–9"


def test_a_mixed_group_says_par_std_who_is_pushed_and_why():
    assert describe_lab(lab([1, 1, 1, 0])) == (
        "A group of 4 answers to “Multiply 23 × 47”: rewards 1, 1, 1, 0. The checker marks "
        f"cards 1–3 right and card 4 wrong. {BASELINE} 0.75 and the std is 0.433 under the "
        "Textbook convention. Cards 1–3 are pushed up (advantage +0.58): their rewards are above "
        "par, so the update makes such answers more likely. Card 4 is pushed down (advantage "
        "−1.73): its reward is below par, so the update makes such answers less likely."
    )


def test_a_degenerate_group_says_why_nothing_is_pushed():
    assert describe_lab(lab([0, 0, 0, 0])) == (
        "A group of 4 answers to “Multiply 23 × 47”: rewards 0, 0, 0, 0. The checker marks "
        f"cards 1–4 wrong. {BASELINE} 0 and the std is 0 under the Textbook convention. Nothing "
        "is pushed: every answer scored 0, so each one equals par and its advantage is 0. A group "
        "that is all right or all wrong carries no learning signal."
    )


def test_a_group_of_64_is_summarised_not_read_number_by_number():
    assert describe_lab(lab([i < 48 for i in range(64)])) == (
        "A group of 64 answers to “Multiply 23 × 47”: rewards 48 × 1, 16 × 0. "
        f"{BASELINE} 0.75 and the std is 0.433 under the Textbook convention. Cards 1–48 are "
        "pushed up (advantage +0.58): their rewards are above par, so the update makes such "
        "answers more likely. Cards 49–64 are pushed down (advantage −1.73): their rewards are "
        "below par, so the update makes such answers less likely."
    )


def test_hand_set_rewards_are_named_and_advantages_given_as_a_span():
    snapshot = lab([1, 0, 0, 0], scores=[0.9, 0.25, 0.25, 0.6])
    assert describe_lab(snapshot) == (
        "A group of 4 answers to “Multiply 23 × 47”: rewards set by hand: 0.9, 0.25, 0.25, 0.6. "
        f"The checker marks card 1 right and cards 2–4 wrong. {BASELINE} 0.5 and the std is "
        "0.272 under the Textbook convention. Cards 1 and 4 are pushed up (advantages +0.37 to "
        "+1.47): their rewards are above par, so the update makes such answers more likely. "
        "Cards 2 and 3 are pushed down (advantage −0.92): their rewards are below par, so the "
        "update makes such answers less likely."
    )


def test_a_lone_answer_has_no_signal():
    assert describe_lab(lab([1])).endswith(
        "Nothing is pushed: a lone answer with reward 1 has no signal."
    )


def test_announce_toggle():
    before, after = lab([1, 1, 0, 0]), lab([1, 1, 1, 0])
    assert announce_toggle(before, after, 2) == (
        "Card 3 now right. Par 0.75, std 0.433; 3 pushed up, 1 down"
    )
    assert (
        announce_toggle(after, before, 2)
        == "Card 3 now wrong. Par 0.5, std 0.5; 2 pushed up, 2 down"
    )
    assert announce_toggle(after, lab([1, 1, 1, 1]), 3) == (
        "Card 4 now right. Par 1, std 0; nothing pushed"
    )
    assert announce_toggle(after, after, 0).startswith("Card 1 still right.")


def test_advantage_chart_text_lists_every_bar_in_the_view_shown():
    snapshot = lab([1, 0, 0, 0], scores=[0.9, 0.25, 0.25, 0.6])
    assert advantage_chart_text(snapshot) == (
        "Advantage per card (2 pushed up, 2 down): card 1 +1.47 above zero; card 2 −0.92 below "
        "zero; card 3 −0.92 below zero; card 4 +0.37 above zero."
    )
    assert advantage_chart_text(snapshot, "reward") == (
        "Reward per card, par 0.5: card 1 0.9 above par; card 2 0.25 below par; card 3 0.25 "
        "below par; card 4 0.6 above par."
    )
    assert advantage_chart_text(lab([1, 1])) == (
        "Advantage per card (nothing pushed): card 1 0.00 zero; card 2 0.00 zero."
    )


def test_frontier_text_says_pass_rate_and_whether_groups_teach():
    dots = (
        FrontierDot("a", "Add", 1.0, 0.0),
        FrontierDot("b", "Multiply", 0.5, 0.9921875),
        FrontierDot("c", "Hard", 0.0004, 0.0032),
    )
    assert frontier_text(dots, 8) == (
        "Add: pass rate 100%, its groups teach nothing (all right or all wrong)\n"
        "Multiply: pass rate 50%, its groups still teach (99% of groups of 8 are mixed)\n"
        "Hard: pass rate 0%, its groups almost never teach (under 1% mixed)"
    )


def test_push_chart_text_gives_each_answers_totals_under_both_presets():
    from grpo_desktop.core.update.update_snapshot import AnswerRow

    class Stub:
        side_labels = ("verl · token-mean", "verl · seq-mean-token-mean")
        rows = (
            AnswerRow(0, 1.0, 1.0, (), 0.1234, 0.1),
            AnswerRow(1, 0.0, -1.0, (), -0.2, -0.25),
        )

    assert push_chart_text(Stub()) == (
        "Total push per answer, verl · token-mean then verl · seq-mean-token-mean:\n"
        "answer 1: +0.123 and +0.100\n"
        "answer 2: −0.200 and −0.250"
    )


def _band(values):
    import numpy as np

    from grpo_desktop.core.training.training_snapshot import MetricBand

    mean = np.array(values, dtype=float)
    return MetricBand(mean=mean, low=mean, high=mean)


def test_the_training_charts_read_each_algorithms_latest_value_and_its_trend():
    import dataclasses

    import numpy as np

    from grpo_desktop.core.files.describe import training_charts_text
    from grpo_desktop.core.training.run import TrainingConfig, TrainingRun
    from grpo_desktop.core.training.training_snapshot import build_training_snapshot

    snapshot = build_training_snapshot(TrainingRun(TrainingConfig(steps=40, seeds=2)))
    assert training_charts_text(snapshot).startswith("Training run of 40 steps, not started")
    grpo, dapo = snapshot.series[2], snapshot.series[5]
    rising = [np.nan] + [0.40 + 0.01 * i for i in range(12)]  # step 0 measures no sampling
    level = [np.nan] + [0.25] * 12
    series = (
        dataclasses.replace(
            grpo, bands={"pass_rate": _band(rising), "degenerate_fraction": _band(level)}
        ),
        dataclasses.replace(dapo, bands={"pass_rate": _band(level[:3])}),
    )
    text = training_charts_text(dataclasses.replace(snapshot, steps_done=12, series=series))
    assert text.splitlines() == [
        "Training run at step 12 of 40.",
        "Pass rate (exact), the seeds' mean: GRPO 0.51, rising (0.41 10 steps before); DAPO 0.25.",
        "Degenerate groups (all rewards equal), the seeds' mean: GRPO 0.25, level "
        "(0.25 10 steps before).",
    ]
