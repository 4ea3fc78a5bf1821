"""The list of a training step's groups: what each line says, the hint, and asking for a group."""

from __future__ import annotations

from dataclasses import replace

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QProxyStyle, QStyle

from grpo_desktop.core.common.theme import LIGHT, PROJECTOR
from grpo_desktop.core.training.run import TrainingConfig, TrainingRun
from grpo_desktop.core.training.training_snapshot import GroupSummary, build_training_snapshot
from grpo_desktop.views.training.step_groups import HINT, TITLE, StepGroups

GROUPS = (
    GroupSummary(0, "Sum of odd numbers", "1 0 0 1", "+0.87 −0.87 −0.87 +0.87", "informative"),
    GroupSummary(1, "<b>x</b>", "1 1 1 1", "+0.00 +0.00 +0.00 +0.00", "all right: no signal"),
    GroupSummary(2, "Percent increase", "0 0 0 0", "+0.00 +0.00 +0.00 +0.00", "dropped"),
)


@pytest.fixture(scope="module")
def base_snapshot(qapp):
    run = TrainingRun(TrainingConfig(steps=10, seeds=1, batch=3, group_size=4))
    run.run(3)
    return build_training_snapshot(run)


@pytest.fixture
def view(qtbot) -> StepGroups:
    widget = StepGroups(LIGHT)
    qtbot.addWidget(widget)
    widget.resize(700, 200)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def with_groups(snapshot, step: int = 3, groups=GROUPS):
    return replace(snapshot, selected_step=step, groups=groups)


def lines(view: StepGroups) -> list[str]:
    return [view.list.item(row).text() for row in range(view.list.count())]


def test_with_no_step_selected_it_shows_the_hint_and_no_lines(view, base_snapshot):
    view.show_snapshot(base_snapshot)
    assert base_snapshot.selected_step is None
    assert view.heading.text() == TITLE
    assert view.list.count() == 0
    assert view.placeholder_text() == HINT, "the empty list shows the hint, not a blank box"
    image = view.list.viewport().grab().toImage()
    colours = {image.pixel(x, y) for x in range(0, image.width(), 3) for y in range(image.height())}
    assert len(colours) > 2, "the hint is drawn in the list"


def test_each_line_shows_a_groups_title_rewards_and_verdict(view, base_snapshot):
    view.show_snapshot(with_groups(base_snapshot))
    assert view.heading.text().startswith("Step 3 · GRPO, seed 1:")
    assert view.placeholder_text() == ""
    shown = lines(view)
    assert len(shown) == len(GROUPS)
    for text, group in zip(shown, GROUPS):
        assert text.startswith(f"#{group.index + 1} ")
        assert group.title in text and group.rewards in text and group.verdict in text
    tips = [view.list.item(row).toolTip() for row in range(view.list.count())]
    assert all(group.advantages in tip for tip, group in zip(tips, GROUPS))


def test_the_lines_follow_the_snapshot_and_go_back_to_the_hint(view, base_snapshot):
    view.show_snapshot(with_groups(base_snapshot))
    view.show_snapshot(with_groups(base_snapshot, step=2, groups=GROUPS[:1]))
    assert view.heading.text().startswith("Step 2 ·") and len(lines(view)) == 1
    view.show_snapshot(base_snapshot)
    assert view.heading.text() == TITLE and view.list.count() == 0
    assert view.placeholder_text() == HINT


def test_a_real_runs_step_lists_every_group_it_drew(view, base_snapshot, qapp):
    run = TrainingRun(TrainingConfig(steps=10, seeds=1, batch=3, group_size=4))
    run.run(3)
    snapshot = build_training_snapshot(run, selected_step=2)
    view.show_snapshot(snapshot)
    assert len(lines(view)) == 3
    for text, group in zip(lines(view), snapshot.groups):
        assert group.title in text and group.rewards in text and group.verdict in text


def test_titles_are_plain_text_html_is_shown_literally(view, base_snapshot):
    view.show_snapshot(with_groups(base_snapshot))
    item = view.list.item(1)
    assert "<b>x</b>" in item.text()
    assert item.data(Qt.ItemDataRole.DisplayRole) == item.text()
    assert view.heading.textFormat() == Qt.TextFormat.PlainText
    # The line is drawn with the title's characters: as wide as the literal text needs.
    metrics = view.list.fontMetrics()
    assert view.list.visualItemRect(item).width() >= metrics.horizontalAdvance("<b>x</b>")


def test_clicking_a_line_asks_for_that_group_once(view, base_snapshot, qtbot):
    view.show_snapshot(with_groups(base_snapshot))
    asked: list[int] = []
    view.group_requested.connect(asked.append)
    for row in (2, 0):
        rect = view.list.visualItemRect(view.list.item(row))
        qtbot.mouseClick(view.list.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    QApplication.processEvents()
    assert asked == [2, 0], "each click asks for its group exactly once"


def test_enter_on_the_current_line_asks_for_its_group(view, base_snapshot, qtbot):
    view.show_snapshot(with_groups(base_snapshot))
    view.list.setFocus()
    view.list.setCurrentRow(1)
    with qtbot.waitSignal(view.group_requested) as asked:
        qtbot.keyClick(view.list, Qt.Key.Key_Return)
    assert asked.args == [1]
    with qtbot.waitSignal(view.group_requested) as asked:
        qtbot.keyClick(view.list, Qt.Key.Key_Down)
        qtbot.keyClick(view.list, Qt.Key.Key_Enter)
    assert asked.args == [2]


def test_a_theme_restyles_and_keeps_the_lines(view, base_snapshot):
    view.show_snapshot(with_groups(base_snapshot))
    before = view.list.font().pointSizeF()
    view.set_theme(PROJECTOR)
    assert PROJECTOR.muted in view.heading.styleSheet()
    assert view.list.font().pointSizeF() >= before
    assert len(lines(view)) == len(GROUPS)


class SingleClickStyle(QProxyStyle):
    """A desktop (KDE's default) where one click activates an item: clicked and activated fire."""

    def styleHint(self, hint, option=None, widget=None, return_data=None):  # Qt override
        if hint == QStyle.StyleHint.SH_ItemView_ActivateItemOnSingleClick:
            return 1
        return super().styleHint(hint, option, widget, return_data)


def test_one_click_asks_once_where_a_single_click_also_activates(view, base_snapshot, qtbot):
    style = SingleClickStyle()
    view.list.setStyle(style)
    view.show_snapshot(with_groups(base_snapshot))
    asked: list[int] = []
    view.group_requested.connect(asked.append)
    rect = view.list.visualItemRect(view.list.item(1))
    qtbot.mouseClick(view.list.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    QApplication.processEvents()
    assert asked == [1], "a click must not open the group twice (two undo steps)"
    view.list.setCurrentRow(2)
    qtbot.keyClick(view.list, Qt.Key.Key_Return)
    assert asked == [1, 2]


def test_each_group_is_one_line_even_in_a_narrow_list(view, base_snapshot, qtbot):
    view.resize(260, 200)
    view.show_snapshot(with_groups(base_snapshot))
    QApplication.processEvents()
    heights = {view.list.visualItemRect(view.list.item(row)).height() for row in range(3)}
    assert max(heights) < 2 * view.list.fontMetrics().height(), "a line wrapped"
    assert (
        view.list.horizontalScrollBar().maximum() == 0
        or not view.list.horizontalScrollBar().isVisible()
    )
    assert GROUPS[0].verdict in view.list.item(0).toolTip(), "the tooltip has the whole line"


def test_a_step_with_no_groups_says_why_in_the_list_and_the_heading(view, base_snapshot):
    note = "Seed 1 diverged at step 2: it drew no groups from then on."
    view.show_snapshot(replace(base_snapshot, selected_step=3, groups=(), groups_note=note))
    assert view.placeholder_text() == note
    assert view.heading.text().endswith("seed 1: no groups")
    view.show_snapshot(base_snapshot)
    assert view.placeholder_text() == HINT


@pytest.mark.parametrize("theme", [LIGHT, PROJECTOR], ids=["light", "projector"])
@pytest.mark.parametrize("lines", [3, 5, 8])
def test_the_list_shows_whole_lines_never_half_of_one(qtbot, base_snapshot, theme, lines):
    """At 1280x800 "A step's groups" showed 6½ rows: its height counted the font's line
    spacing, not a list row (text plus the item's padding)."""
    view = StepGroups(theme)
    qtbot.addWidget(view)
    view.resize(700, 600)
    view.show()
    qtbot.waitExposed(view)
    many = tuple(replace(GROUPS[0], index=i) for i in range(10))
    view.show_snapshot(with_groups(base_snapshot, groups=many))
    view.set_visible_lines(lines)
    QApplication.processEvents()
    rows = view.list
    viewport = rows.viewport().rect()
    last_whole = rows.visualItemRect(rows.item(lines - 1))
    first_hidden = rows.visualItemRect(rows.item(lines))
    assert viewport.contains(last_whole), (viewport, last_whole)
    assert first_hidden.top() >= viewport.bottom() + 1, "part of a further row shows"
    assert view.shown_lines() == lines


def test_focus_list_lands_on_the_first_group_now_or_when_they_arrive(view, base_snapshot, qtbot):
    view.show_snapshot(base_snapshot)  # no step chosen yet: nothing to stand on
    view.focus_list()
    qtbot.waitUntil(view.list.hasFocus)
    assert view.list.currentRow() == -1
    view.show_snapshot(with_groups(base_snapshot))  # the step's groups arrive
    assert view.list.currentRow() == 0
    with qtbot.waitSignal(view.group_requested) as blocker:
        qtbot.keyClick(view.list, Qt.Key.Key_Down)
        qtbot.keyClick(view.list, Qt.Key.Key_Return)
    assert blocker.args == [1]
