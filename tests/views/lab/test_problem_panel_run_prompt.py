"""ProblemPanel: a recorded group's prompt box is as high as its prompt, up to a few lines."""

from __future__ import annotations

import dataclasses

import pytest
from PySide6.QtWidgets import QPlainTextEdit

from grpo_desktop.core.common.theme import LIGHT, PROJECTOR
from grpo_desktop.core.lab.problems import get_problem, load_problems
from grpo_desktop.views.lab.problem_panel import RUN_PROMPT_LINES, ProblemPanel


def show_run_prompt(qtbot, prompt: str, theme=LIGHT, width: int = 900) -> QPlainTextEdit:
    from rollout_files import recorded

    panel = ProblemPanel(load_problems(), theme)
    qtbot.addWidget(panel)
    panel.resize(width, 400)
    panel.show()
    group = recorded(prompt=prompt)
    panel.show_problem(dataclasses.replace(get_problem("mult-23x47"), prompt=prompt), group)
    qtbot.waitUntil(lambda: panel.run_prompt is not None and panel.run_prompt.isVisible())
    qtbot.wait(1)  # the layout's resizes, and the refit they ask for
    return panel.run_prompt


@pytest.mark.parametrize("theme", [LIGHT, PROJECTOR], ids=["light", "projector"])
def test_a_one_line_prompt_takes_one_line_whole_with_no_blank_band(qtbot, theme):
    box = show_run_prompt(qtbot, "23+45=", theme)
    spacing = box.fontMetrics().lineSpacing()
    assert box.verticalScrollBar().maximum() == 0  # the line is whole: nothing to scroll
    assert box.height() < 2 * spacing + 10  # one line and the box's margins, not four and a half


def test_a_prompt_of_three_lines_shows_all_three_and_does_not_scroll(qtbot):
    box = show_run_prompt(qtbot, "System: be brief.\nExamples follow.\nWhat is 2 + 2?")
    spacing = box.fontMetrics().lineSpacing()
    assert box.verticalScrollBar().maximum() == 0
    assert 3 * spacing <= box.height() < 4 * spacing + 10


def test_a_page_long_prompt_stops_at_a_few_lines_and_scrolls(qtbot):
    box = show_run_prompt(qtbot, "\n".join(f"Example {i}: 2 + {i} = {2 + i}" for i in range(40)))
    spacing = box.fontMetrics().lineSpacing()
    assert box.height() <= (RUN_PROMPT_LINES + 1) * spacing
    assert box.height() >= RUN_PROMPT_LINES * spacing
    assert box.verticalScrollBar().maximum() > 0  # the rest is a scroll away


def test_a_narrower_panel_gives_a_wrapping_prompt_more_lines(qtbot):
    prompt = "Please compute the following sum carefully and answer with a number: 23 + 45 ="
    box = show_run_prompt(qtbot, prompt, width=1400)
    wide = box.height()
    box.parentWidget().resize(640, 400)
    scroll = box.verticalScrollBar()
    # Re-wrapped at the old height, the box scrolls by a line until the layout hands it its new
    # height, a few posted events later (under load, later than a fixed 10 ms wait allowed).
    qtbot.waitUntil(lambda: box.height() > wide and scroll.maximum() == 0)
    qtbot.wait(20)  # and it stays so once the layout has settled: both lines whole
    assert box.height() > wide
    assert scroll.maximum() == 0
