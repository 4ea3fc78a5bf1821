"""SpilloverChart: the batch's answers' Δ log p beside the held-out prompts', with a caption."""

from __future__ import annotations

from grpo_desktop.core.common.theme import LIGHT, PROJECTOR
from grpo_desktop.core.update.update_snapshot import Spillover
from grpo_desktop.views.update.spillover_chart import SpilloverChart

SPILL = Spillover(
    steps=1,
    prompt="23+45=",
    batch_deltas=(0.2, -0.1, 0.3),
    batch_advantages=(1.0, -1.0, 1.0),
    held_out_prompts=("12+34=", "50+7="),
    held_out_answers=("46.", "57."),
    held_out_deltas=(0.05, -0.5),
    held_out_noun="sums",
    caption="One Adam step on 3 answers to 23+45= raised the right answer's log-probability "
    "on 1 of 2 held-out sums (mean −0.225).",
)


def test_bars_caption_and_groups_follow_the_spillover(qtbot):
    chart = SpilloverChart(LIGHT)
    qtbot.addWidget(chart)
    chart.show_spillover(SPILL)
    assert chart.bar_heights() == ([0.2, -0.1, 0.3], [0.05, -0.5])
    assert chart.caption_text() == SPILL.caption
    assert chart.group_labels() == ["batch (3)", "held-out (2)"]
    low, high = chart.y_range()
    assert low <= -0.5 and high >= 0.5
    assert "12+34=46.: +0.050" in chart.accessibleDescription()
    assert SPILL.held_out_raised == 1


def test_none_empties_the_chart_and_a_theme_keeps_the_bars(qtbot):
    chart = SpilloverChart(LIGHT)
    qtbot.addWidget(chart)
    chart.show_spillover(SPILL)
    chart.set_theme(PROJECTOR)
    assert chart.bar_heights()[1] == [0.05, -0.5]
    chart.show_spillover(None)
    assert chart.bar_heights() == ([], []) and chart.caption_text() == ""


def test_a_pending_spillover_greys_its_bars_under_a_line_saying_the_model_steps(qtbot):
    from dataclasses import replace

    from PySide6.QtGui import QColor

    from grpo_desktop.views.update.spillover_chart import PENDING_TEXT

    chart = SpilloverChart(LIGHT)
    qtbot.addWidget(chart)
    chart.show_spillover(SPILL)
    assert not chart.is_pending() and not chart.pending_label.isVisible()
    chart.show_spillover(replace(SPILL, pending=True))
    assert chart.is_pending() and chart.pending_label.isVisible()
    assert chart.pending_label.textItem.toPlainText() == PENDING_TEXT
    assert chart.caption_text() == SPILL.caption  # the caption keeps its height
    brushes = chart.batch_bars.opts["brushes"]
    assert all(brush.color() == QColor(LIGHT.muted) for brush in brushes)
    assert chart.accessibleDescription().startswith(PENDING_TEXT)
    chart.show_spillover(SPILL)
    assert not chart.pending_label.isVisible()
    assert chart.batch_bars.opts["brushes"][0].color() == QColor(LIGHT.push_colour(0.2))
