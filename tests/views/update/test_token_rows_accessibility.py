"""Token chips as a screen reader gets them: selectable items named by their text, with push."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QAccessible
from test_token_rows import ROWS, SNAPSHOT, answer_row, make_snapshot, tok

from grpo_desktop.views.common import accessible_events
from grpo_desktop.views.update.accessible_tokens import TokenRowsAccessible
from grpo_desktop.views.update.token_layout import spoken_token
from grpo_desktop.views.update.token_rows import TokenRowsView

NAME, DESCRIPTION = QAccessible.Text.Name, QAccessible.Text.Description


@pytest.fixture
def view(qtbot):
    widget = TokenRowsView()
    qtbot.addWidget(widget)
    widget.show_snapshot(SNAPSHOT)
    widget.resize(700, widget.heightForWidth(700))
    with qtbot.waitExposed(widget):
        widget.show()
    return widget


@pytest.fixture
def heard():
    events = []

    def listen(event):
        events.append((event.type(), event.object(), event.child()))

    remove = accessible_events.add_listener(listen)
    yield events
    remove()


def test_the_view_is_a_list_with_one_item_per_chip(view):
    iface = QAccessible.queryAccessibleInterface(view)
    assert isinstance(iface, TokenRowsAccessible)
    assert iface.role() == QAccessible.Role.List
    assert iface.text(NAME) == "Answers as tokens"
    assert iface.childCount() == sum(len(row.tokens) for row in ROWS) == 5 + 51 + 5
    first = iface.child(0)
    assert first.role() == QAccessible.Role.ListItem
    assert first.parent() is iface
    assert iface.indexOfChild(iface.child(7)) == 7
    assert [iface.child(i).text(NAME) for i in range(5)] == [
        "23",
        "space ×",
        "space 47",
        "space =",
        "space 1081",
    ]
    assert iface.child(4).text(DESCRIPTION) == "answer 1, token 5; push +0.1000; final answer"


def test_whitespace_tokens_are_named_and_marks_described(view):
    iface = QAccessible.queryAccessibleInterface(view)
    mixed = [iface.child(5 + 51 + i) for i in range(5)]
    assert [item.text(NAME) for item in mixed] == ["So", "newline", "<b>x</b>", "tab", "space end"]
    assert mixed[3].text(DESCRIPTION) == "answer 3, token 4; push 0"
    clipped = iface.child(5 + 4)  # answer 2's " 47": clipped
    assert clipped.text(DESCRIPTION) == "answer 2, token 5; push −0.0500; clipped (no gradient)"
    assert spoken_token("\n\n") == "2 newlines" and spoken_token("") == "empty token"


def test_items_are_selectable_and_the_snapshots_selection_is_selected(view):
    iface = QAccessible.queryAccessibleInterface(view)
    selected = iface.child(5 + 4)  # SNAPSHOT selects (1, 4)
    assert selected.state().selectable and selected.state().selected
    other = iface.child(0)
    assert other.state().selectable and not other.state().selected
    rect = selected.rect()
    assert rect.size() == view.token_rect(1, 4).size()
    assert rect.topLeft() == view.mapToGlobal(view.token_rect(1, 4).topLeft())


def test_a_new_selection_sends_selection_and_focus_events_for_its_item(qtbot, view, heard):
    view.setFocus()
    qtbot.waitUntil(view.hasFocus)
    with qtbot.waitSignal(view.token_requested) as blocker:
        qtbot.keyClick(view, Qt.Key.Key_Right)
    assert blocker.args == [1, 5]
    view.show_snapshot(make_snapshot(ROWS, selected=(1, 5)))  # the model's answer comes back
    assert heard == [
        (QAccessible.Event.Selection, view, 10),
        (QAccessible.Event.Focus, view, 10),
    ]
    iface = QAccessible.queryAccessibleInterface(view)
    assert iface.focusChild().text(DESCRIPTION).startswith("answer 2, token 6;")
    assert iface.child(10).state().focused and iface.child(10).state().selected
    assert not iface.child(9).state().selected


def test_new_rows_replace_the_items(view, heard):
    iface = QAccessible.queryAccessibleInterface(view)
    old = iface.child(0)
    assert old.text(NAME) == "23"
    view.show_snapshot(make_snapshot([answer_row(0, 1.0, 1.0, [tok(" 7", 0.2), tok("\n", 0.1)])]))
    assert heard[0][:2] == (QAccessible.Event.ObjectReorder, view)
    assert iface.childCount() == 2
    assert [iface.child(i).text(NAME) for i in range(2)] == ["space 7", "newline"]
    assert iface.child(2) is None
