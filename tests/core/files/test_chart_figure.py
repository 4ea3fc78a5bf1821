"""Exported figures: built from a snapshot with their own title, legend, axis labels and ticks."""

from __future__ import annotations

import pytest

from grpo_desktop.core.common.theme import DARK, LIGHT
from grpo_desktop.core.files.chart_figure import advantage_figure, nice_ticks, training_figure
from grpo_desktop.core.lab.lab_snapshot import build_snapshot
from grpo_desktop.core.lab.problems import get_problem


@pytest.mark.parametrize(
    ("low", "high", "expected"),
    [
        (-2.0, 2.0, ["−2", "−1", "0", "1", "2"]),
        (0.0, 1.0, ["0", "0.25", "0.50", "0.75", "1.00"]),
        (0.0, 200.0, ["0", "50", "100", "150", "200"]),
        (-0.5, 0.5, ["−0.50", "−0.25", "0", "0.25", "0.50"]),
    ],
)
def test_nice_ticks_are_round_numbers_with_the_real_minus(low, high, expected):
    assert [text for _, text in nice_ticks(low, high, 4)] == expected


def seed_snapshot(rewards=(1, 0, 0, 1)):
    return build_snapshot(get_problem("mult-23x47"), [bool(r) for r in rewards], "textbook")


def test_the_advantage_figure_names_its_group_axes_and_colours():
    figure = advantage_figure(seed_snapshot(), LIGHT)
    (panel,) = figure.panels
    assert figure.title == "GRPO advantages of one group"
    assert "G = 4" in figure.subtitle and "mean (par) = 0.5" in figure.subtitle
    assert (panel.x_label, panel.y_label) == ("answer (card)", "advantage A")
    assert [entry.colour for entry in panel.legend] == [LIGHT.up, LIGHT.down]
    assert panel.marks[0].labels == ("+1.00", "−1.00", "−1.00", "+1.00")
    assert [text for _, text in panel.x_ticks] == ["#1", "#2", "#3", "#4"]
    assert "2 pushed up" in panel.note


def test_the_reward_view_draws_par_and_a_hidden_group_gives_nothing_away():
    reward = advantage_figure(seed_snapshot(), DARK, view="reward").panels[0]
    assert reward.y_label == "reward r" and reward.reference == (0.5, "par = 0.5")
    hidden = advantage_figure(seed_snapshot(), LIGHT, hidden=True).panels[0]
    assert hidden.marks[0].labels == ("?",) * 4 and hidden.legend == ()
    assert set(hidden.marks[0].colours) == {LIGHT.neutral}


def test_an_all_equal_group_says_it_teaches_nothing():
    panel = advantage_figure(seed_snapshot((1, 1, 1, 1)), LIGHT).panels[0]
    assert "teaches nothing" in panel.note


def test_large_groups_thin_their_answer_labels():
    snapshot = build_snapshot(get_problem("mult-23x47"), [i % 3 == 0 for i in range(64)])
    ticks = advantage_figure(snapshot, LIGHT).panels[0].x_ticks
    assert len(ticks) <= 17 and ticks[0][1] == "#1" and ticks[-1][1] == "#64"


def test_the_training_figure_has_a_legend_entry_per_algorithm_and_step_axes():
    from grpo_desktop.core.training.run import TrainingConfig, TrainingRun
    from grpo_desktop.core.training.training_snapshot import build_training_snapshot

    run = TrainingRun(TrainingConfig(steps=10, seeds=2))
    run.run(3)
    snapshot = build_training_snapshot(run, selected_step=2)
    figure = training_figure(snapshot, LIGHT)
    assert [entry.text for entry in figure.legend][: len(snapshot.series)] == [
        series.label for series in snapshot.series
    ]
    assert figure.legend[-1].text == "step 2 (selected)"
    pass_rate, metric, frontier = figure.panels
    assert pass_rate.x_label == metric.x_label == "step"
    assert [text for _, text in pass_rate.x_ticks][-1] == "10"
    assert frontier.x_label == "pass rate p" and len(frontier.legend) == 3
    assert "lowest to highest seed" in figure.note
    assert all(len(mark.x) == 4 for mark in pass_rate.marks)  # steps 0..3
