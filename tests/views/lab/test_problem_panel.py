"""ProblemPanel: a problem's text (which may come from a scenario file) is shown as text."""

from __future__ import annotations

import dataclasses

from PySide6.QtCore import Qt
from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import QPlainTextEdit

from grpo_desktop.core.lab.problems import get_problem, load_problems
from grpo_desktop.views.lab.problem_panel import ProblemPanel

IMAGE = "<img src='data:image/png;base64,AAAA' width=20000 height=20000>"


def shown_text(label) -> str:
    """What a label shows: its text as Qt renders it, in its own text format, without the
    invisible break opportunities a long word gets (U+200B draws nothing)."""
    if label.textFormat() == Qt.TextFormat.PlainText:
        return label.text().replace("\u200b", "")
    document = QTextDocument()
    document.setHtml(label.text())
    return document.toPlainText().replace("\u200b", "")


def make_panel(qtbot) -> ProblemPanel:
    panel = ProblemPanel(load_problems())
    qtbot.addWidget(panel)
    return panel


def test_html_in_a_custom_prompt_is_shown_as_text_not_rendered(qtbot):
    panel = make_panel(qtbot)
    hostile = dataclasses.replace(
        get_problem("mult-23x47"), id="custom-hostile", prompt=f"Look {IMAGE} <a href='x'>here</a>"
    )
    panel.show_problem(hostile)
    assert shown_text(panel.prompt) == hostile.prompt
    assert panel.prompt.textFormat() == Qt.TextFormat.PlainText
    assert panel.sizeHint().height() < 2000  # a rendered 20000-pixel image would size the window


def test_an_answer_key_with_a_less_than_sign_is_shown_whole(qtbot):
    panel = make_panel(qtbot)
    panel.show_problem(dataclasses.replace(get_problem("mult-23x47"), answer_key="x<y"))
    assert shown_text(panel.answer_key) == "Answer key: x<y"


def test_an_answer_key_holding_an_image_tag_shows_the_tag_as_text(qtbot):
    panel = make_panel(qtbot)
    panel.show_problem(dataclasses.replace(get_problem("mult-23x47"), answer_key=IMAGE))
    assert shown_text(panel.answer_key) == f"Answer key: {IMAGE}"
    assert panel.sizeHint().width() < 2000


def test_the_chooser_tooltips_show_the_prompt_as_text(qtbot):
    panel = make_panel(qtbot)
    document = QTextDocument()
    document.setHtml(panel.chooser.itemData(0, Qt.ItemDataRole.ToolTipRole))
    problem = load_problems()[0]
    assert document.toPlainText() == f"{problem.prompt} ({problem.difficulty})"


def test_the_runs_prompt_box_is_built_with_the_first_runs_group_and_follows_the_theme(qtbot):
    from rollout_files import recorded

    from grpo_desktop.core.common.theme import PROJECTOR

    panel = make_panel(qtbot)
    panel.show_problem(get_problem("mult-23x47"))
    assert panel.findChild(QPlainTextEdit, "runPrompt") is None  # start-up builds no text box
    group = recorded(prompt="<b>System</b>: be brief.\nWhat is 2 + 2?")
    run_problem = dataclasses.replace(get_problem("mult-23x47"), id="run", prompt=group.prompt)
    panel.show_problem(run_problem, group)
    box = panel.findChild(QPlainTextEdit, "runPrompt")
    assert box is not None and not box.isHidden() and panel.prompt.isHidden()
    assert box.toPlainText() == group.prompt  # as written, never rich text
    light_height = box.height()
    panel.set_theme(PROJECTOR)
    assert box.height() > light_height  # four and a half lines of the larger type
    panel.show_problem(get_problem("mult-23x47"))
    assert box.isHidden() and not panel.prompt.isHidden()
    assert panel.findChildren(QPlainTextEdit, "runPrompt") == [box]


def test_a_long_word_gets_break_opportunities_only_for_display():
    from grpo_desktop.views.lab.problem_panel import breakable

    assert breakable("Compute 23 × 47.") == "Compute 23 × 47."
    shown = breakable("Compute " + "7" * 30 + ".")
    assert shown.replace("\u200b", "") == "Compute " + "7" * 30 + "."
    assert all(len(part) <= 12 for part in shown.split(" ")[1].split("\u200b"))


def test_a_long_prompt_or_answer_key_does_not_widen_the_panel(qtbot):
    from dataclasses import replace

    from grpo_desktop.core.lab.problems import get_problem, load_problems
    from grpo_desktop.views.lab.problem_panel import ProblemPanel

    panel = ProblemPanel(load_problems())
    qtbot.addWidget(panel)
    problem = get_problem("mult-23x47")
    panel.show_problem(problem)
    usual = panel.minimumSizeHint().width()
    long_problem = replace(problem, id="c", prompt="Compute " + "x" * 300, answer_key="9" * 100)
    panel.show_problem(long_problem)
    assert panel.minimumSizeHint().width() <= usual


def test_the_chooser_shows_a_long_name_cut_in_the_middle_whole_on_hover_and_in_its_list(qtbot):
    """Qt clipped "Remainder of 7¹⁰⁰ m" and "✎ GRPO, step 100, group 3 (custo" at the box's edge:
    the box shows both ends of the name, the tooltip the whole name, the list every item whole."""

    panel = make_panel(qtbot)
    panel.resize(900, 120)
    panel.show()
    chooser = panel.chooser
    problem = get_problem("mult-23x47")
    title = "GRPO, step 100, group 3 of a run with a long name"
    custom = dataclasses.replace(problem, id="my-own", title=title)
    panel.show_problem(custom)
    whole = chooser.currentText()
    assert whole == f"✎ {title} (custom)"
    shown = chooser.shown_text()
    assert shown != whole and "…" in shown
    head, tail = shown.split("…")
    assert whole.startswith(head) and whole.endswith(tail) and tail.endswith("(custom)")
    assert title in chooser.toolTip()
    metrics = chooser.view().fontMetrics()
    for index in range(chooser.count()):
        assert metrics.horizontalAdvance(chooser.itemText(index)) < chooser.popup_width()
    panel.show_problem(problem)  # a short name: whole, no tooltip
    assert chooser.shown_text() == chooser.currentText() and chooser.toolTip() == ""


def test_every_shipped_problem_name_shows_whole_in_the_labs_chooser(qtbot):
    panel = make_panel(qtbot)
    panel.show()
    chooser = panel.chooser
    for index in range(chooser.count()):
        chooser.setCurrentIndex(index)
        assert chooser.shown_text() == chooser.itemText(index)
