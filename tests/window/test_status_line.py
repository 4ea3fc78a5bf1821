"""StatusLine: a long message is cut with "…" before the workspace bar, never covered by it."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QMainWindow, QStatusBar

from grpo_desktop.window.status_line import StatusLine

LONG = (
    "Press Play (or Step); click a step on the charts to list its groups and open one in the Lab."
)


def make_window(qtbot, width: int) -> tuple[QMainWindow, StatusLine]:
    window = QMainWindow()
    qtbot.addWidget(window)
    bar = StatusLine(window)
    window.setStatusBar(bar)
    bar.addPermanentWidget(QLabel("Workspace: Lab  Update step  Training run  Easy vs hard"))
    window.resize(width, 300)
    with qtbot.waitExposed(window):
        window.show()
    return window, bar


def test_a_message_too_long_for_its_room_ends_in_an_ellipsis_with_the_whole_text_on_hover(qtbot):
    _window, bar = make_window(qtbot, 700)
    bar.showMessage(LONG)
    shown = bar.currentMessage()
    assert shown.endswith("…") and LONG.startswith(shown[:-1])
    assert bar.fontMetrics().horizontalAdvance(shown) <= bar.message_room()
    assert bar.toolTip() == f"<p>{LONG}</p>" and bar.full_message == LONG


def test_a_cut_message_from_a_file_shows_its_tags_as_text_on_hover(qtbot):
    _window, bar = make_window(qtbot, 700)
    bar.showMessage("Opened lesson.grpo.json: <b>Week 3</b> <img src=x> " + "x" * 200)
    assert "&lt;b&gt;Week 3&lt;/b&gt; &lt;img src=x&gt;" in bar.toolTip()


def test_a_wider_window_shows_the_whole_message_again(qtbot):
    window, bar = make_window(qtbot, 700)
    bar.showMessage(LONG)
    window.resize(1900, 300)
    qtbot.waitUntil(lambda: bar.currentMessage() == LONG)
    assert bar.toolTip() == ""


def test_a_timed_message_still_goes_and_a_resize_does_not_keep_it(qtbot):
    window, bar = make_window(qtbot, 700)
    bar.showMessage(LONG, 300)
    window.resize(800, 300)
    qtbot.waitUntil(lambda: bar.currentMessage() == "", timeout=2000)
    assert bar.full_message == ""
    window.resize(1900, 300)
    qtbot.wait(50)
    assert bar.currentMessage() == ""


def test_a_message_qt_shows_itself_is_not_replaced_by_an_older_one_on_resize(qtbot):
    window, bar = make_window(qtbot, 700)
    bar.showMessage(LONG)
    QStatusBar.showMessage(bar, "Undo the last change")  # as Qt does for an action's status tip
    window.resize(1900, 300)
    qtbot.wait(20)
    assert bar.currentMessage() == "Undo the last change"
