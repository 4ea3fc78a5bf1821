"""Worksheets: every shipped lesson becomes one, each step asks a question, the student's figure
shows no answer, and every number in the key is the core's own."""

from __future__ import annotations

import dataclasses

import pytest

from grpo_desktop import core
from grpo_desktop.core.common.formatting import signed
from grpo_desktop.core.files.lessons import Lesson, LessonLab, LessonStep, load_lessons
from grpo_desktop.core.files.worksheet import (
    GROUP_SIZE_EXPERIMENT,
    NEARLY_SOLVED_P,
    Cell,
    Worksheet,
    build_worksheet,
    lesson_worksheet,
    plain_text,
)
from grpo_desktop.core.lab.lab_snapshot import build_snapshot
from grpo_desktop.core.lab.problems import get_problem
from grpo_desktop.core.training.frontier import informative_probability
from grpo_desktop.core.training.run import TrainingRun
from grpo_desktop.core.update.update_step import build_update_snapshot

LESSONS = load_lessons()


@pytest.fixture
def worksheets(lesson_worksheets) -> dict[str, Worksheet]:
    """Every lesson's worksheet, built once per test process (``tests/conftest.py``)."""
    return dict(lesson_worksheets)


def _pairs(worksheets: dict[str, Worksheet]):
    for lesson in LESSONS:
        yield lesson, worksheets[lesson.id]


def test_every_shipped_lesson_makes_a_worksheet_with_a_question_per_step(worksheets):
    assert set(worksheets) == {lesson.id for lesson in LESSONS}
    for lesson, sheet in _pairs(worksheets):
        assert sheet.title == lesson.title
        assert [step.title for step in sheet.steps] == [step.title for step in lesson.steps]
        assert [step.number for step in sheet.steps] == list(range(1, len(lesson.steps) + 1))
        for step in sheet.steps:
            assert step.predict and step.observe, (lesson.id, step.number)
            assert all(question.strip() for question in step.questions)
            assert step.key and step.explanation
            assert "<" not in step.explanation  # the lesson's markup is stripped
            assert step.tables or step.writing_lines >= 3  # something to fill in, always


def test_lesson_worksheet_reads_the_shipped_lesson_by_id():
    assert lesson_worksheet("same-formula-two-groups").title == "Same formula, two groups"


def test_a_steps_own_question_is_asked_in_its_words(worksheets):
    baseline = worksheets["group-is-baseline"]
    assert baseline.steps[1].predict == ("Which answers get pushed up, and which pushed down?",)
    stall = worksheets["why-runs-stall"]
    assert stall.steps[1].predict == ("As GRPO learns, where do the dots go?",)


def test_the_student_figure_prints_no_number_the_key_holds(worksheets):
    for _, sheet in _pairs(worksheets):
        for step in sheet.steps:
            texts = " ".join(step.student_figure.texts())
            assert [a for a in step.answers() if a in texts] == [], step.title
            assert step.student_figure != step.answer_figure


def test_a_table_another_step_printed_is_not_printed_again(worksheets):
    for _, sheet in _pairs(worksheets):
        tables = [table for step in sheet.steps for table in step.tables]
        assert len(tables) == len(set(tables))
    repeat = worksheets["group-is-baseline"].steps[2]  # the same group as steps 1 and 2
    assert repeat.tables == ()
    assert "steps 1 and 2" in " ".join(repeat.observe)


def _lab_steps(lesson: Lesson) -> list[tuple[int, LessonStep]]:
    return [(i, s) for i, s in enumerate(lesson.steps) if s.lab is not None and not s.is_update]


def test_a_groups_key_is_group_stats_own_numbers(worksheets):
    checked = 0
    for lesson, sheet in _pairs(worksheets):
        for index, step in _lab_steps(lesson):
            assert step.lab is not None
            stats = core.group_stats(step.lab.rewards, step.lab.convention)
            for table in sheet.steps[index].tables:
                if table.caption.startswith("Each answer's advantage"):
                    column = [row[-1].answer for row in table.rows]
                    assert column == [signed(float(a), 3) for a in stats.advantages]
                    checked += 1
                if table.caption == "The group's statistics":
                    app = table.rows[1]
                    assert float(app[1].answer) == pytest.approx(stats.mean, abs=5e-4)
                    assert float(app[2].answer) == pytest.approx(stats.std, abs=5e-4)
                    assert app[3].answer == f"{stats.pushed_up} of {stats.group_size}"
    assert checked >= 5


def test_the_trl_step_keys_the_libraries_0_866():
    lab = LessonLab("mult-23x47", (True, False, False, True), "trl")
    step = LessonStep("TRL", "Work it out.", lab, None, "math", "advantage")
    sheet = build_worksheet(Lesson("t", "T", "S", (step, step)))
    table = sheet.steps[0].tables[0]
    assert [row[-1].answer for row in table.rows] == ["+0.866", "−0.866", "−0.866", "+0.866"]


def test_an_update_steps_key_is_the_update_snapshots(worksheets):
    lesson = next(lesson for lesson in LESSONS if lesson.id == "update-step-length-bias")
    sheet = worksheets[lesson.id]
    for index, step in enumerate(lesson.steps):
        if not step.is_update or not sheet.steps[index].tables:
            continue
        assert step.lab is not None
        lab = build_snapshot(get_problem(step.lab.problem_id), step.lab.correct)
        snapshot = build_update_snapshot(lab, step.update)
        (table,) = sheet.steps[index].tables
        rows, net = table.rows[:-1], table.rows[-1]
        assert [r[4].answer for r in rows] == [signed(a.total_push, 3) for a in snapshot.rows]
        assert [r[5].answer for r in rows] == [
            signed(a.compare_total_push, 3) for a in snapshot.rows
        ]
        assert [r[1].text for r in rows] == [str(len(a.tokens)) for a in snapshot.rows]
        assert net[4].answer == signed(snapshot.net_push, 3)
        per_token = [signed(a.tokens.pushes[0], 4) for a in snapshot.rows]
        assert [r[3].answer for r in rows] == per_token  # on-policy: one push per answer


def test_a_training_steps_key_is_the_toy_runs_pass_rate(worksheets):
    lesson = next(lesson for lesson in LESSONS if lesson.id == "why-runs-stall")
    step = lesson.steps[1]
    assert step.training is not None
    run = TrainingRun(step.training, convention=step.convention)
    run.run()
    (table,) = worksheets[lesson.id].steps[1].tables
    pass_row = table.rows[0]
    steps = [int(heading.split()[-1]) for heading in table.header[1:]]
    assert steps[0] == 0 and steps[-1] == step.training.steps
    expected = [f"{100 * run.history('grpo')['pass_rate'][s].mean():.1f} %" for s in steps]
    assert [cell.answer for cell in pass_row[1:]] == expected
    assert table.rows[1][1] == Cell("—")  # no groups were sampled before step 1


def test_the_group_size_step_asks_for_g_4_16_32_and_keys_the_frontier(worksheets):
    sheet = worksheets["why-runs-stall"]
    step = next(s for s in sheet.steps if s.title == "A bigger group widens the frontier")
    table = step.tables[0]
    assert table.header[1:] == tuple(f"G = {g}" for g in GROUP_SIZE_EXPERIMENT)
    frontier = [cell.answer for cell in table.rows[0][1:]]
    assert frontier == [
        f"{100 * float(informative_probability(NEARLY_SOLVED_P, g)):.1f} %"
        for g in GROUP_SIZE_EXPERIMENT
    ]
    assert all(cell.is_blank for row in table.rows[:3] for cell in row[1:])


def test_prediction_cells_stay_blank_in_both_versions(worksheets):
    step = worksheets["group-is-baseline"].steps[1]
    table = step.tables[0]
    own = [row[2] for row in table.rows]
    assert all(cell.own and cell.is_blank for cell in own)
    assert {cell.shown(True) for cell in own} == {""}
    assert {row[3].shown(False) for row in table.rows} == {""}


def test_plain_text_strips_the_lessons_markup():
    assert plain_text("the mean 0.5 <b>is</b>  par") == "the mean 0.5 is par"


def test_a_lesson_built_in_code_with_a_compare_step_gets_its_table():
    easy = LessonLab("easy-add-17-25", (True, True, True, True, False))
    hard = LessonLab("hard-remainder-7-pow-100", (True, False, False, False, False))
    step = LessonStep("Two", "Compare.", None, (easy, hard), "compare", "advantage")
    sheet = build_worksheet(Lesson("t", "T", "S", (step, dataclasses.replace(step, title="b"))))
    (table,) = sheet.steps[0].tables
    assert [row[4].answer for row in table.rows] == ["+0.500", "+2.000"]
    assert [row[5].answer for row in table.rows] == ["−2.000", "−0.500"]
    assert sheet.steps[1].tables == ()
