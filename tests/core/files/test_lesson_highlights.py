"""Each lesson step rings the panel that shows what the step says (issue 25, item 5).

What a step talks about can be stated for some steps: those rules are checked here for every
step of every shipped lesson outside the Update workspace (whose own targets its lesson tests).
"""

from __future__ import annotations

import re

import pytest

from grpo_desktop.core.files.lessons import Lesson, LessonStep, load_lessons
from grpo_desktop.core.formulas import advantages as core

#: (what the step's title or text says, the highlights that show it)
SUBJECTS: tuple[tuple[str, re.Pattern[str], frozenset[str]], ...] = (
    # The learning frontier is drawn only by the Training page's frontier plot.
    ("the frontier", re.compile(r"frontier|\bdots?\b|curve", re.I), frozenset({"frontier"})),
    # PPO's four networks against GRPO's one are drawn only by "One model, not four".
    (
        "PPO's networks",
        re.compile(r"four networks|one model", re.I),
        frozenset({"ppo"}),
    ),
    # A quoted std or a division by it is worked out in the math (or shown on the std tile).
    (
        "the std's value",
        re.compile(r"\bstd\b[^.]*\d|divided by the group std", re.I),
        frozenset({"math", "stats", "compare"}),
    ),
    # The training charts: the lower chart's share of groups, groups sampled per step.
    (
        "a training chart",
        re.compile(r"lower chart|groups sampled per step|\bline flattens", re.I),
        frozenset({"training-charts"}),
    ),
)


def _steps() -> list[tuple[Lesson, int, LessonStep]]:
    return [
        (lesson, index, step)
        for lesson in load_lessons()
        for index, step in enumerate(lesson.steps)
        if not step.is_update
    ]


def _plain(step: LessonStep) -> str:
    return re.sub(r"<[^>]+>", "", f"{step.title}. {step.text}")


@pytest.mark.parametrize(
    ("lesson", "index", "step"), _steps(), ids=lambda v: getattr(v, "id", None)
)
def test_each_lesson_step_highlights_the_panel_that_shows_what_it_says(lesson, index, step):
    said = _plain(step)
    where = f"{lesson.id} step {index + 1} ({step.title!r}) highlights {step.highlight!r}"
    for subject, pattern, panels in SUBJECTS:
        if pattern.search(said):
            assert step.highlight in panels, f"{where}, but it talks about {subject}"
    # The chart is ringed only when the step talks about its bars.
    if step.highlight == "chart":
        assert re.search(r"\bbars?\b|chart|height", said, re.I), f"{where}: no bars talked of"
    # A group whose rewards are all equal shows the degenerate banner: a step on it rings that.
    if step.lab is not None and not step.is_training:
        stats = core.group_stats([float(c) for c in step.lab.correct], step.convention)
        if stats.degenerate and re.search(r"no signal|teaches nothing|every advantage 0", said):
            assert step.highlight == "banner", f"{where}, but its group teaches nothing"
    # A predict step rings what the class predicts from: the cards, the tiles or the chart.
    if step.hide_advantages:
        assert step.highlight in ("cards", "stats", "chart"), where


def test_the_frontier_step_of_the_first_lesson_shows_the_frontier():
    (lesson,) = [lesson for lesson in load_lessons() if lesson.id == "group-is-baseline"]
    (step,) = [s for s in lesson.steps if "frontier" in s.title.lower()]
    assert step.is_training and step.highlight == "frontier"
