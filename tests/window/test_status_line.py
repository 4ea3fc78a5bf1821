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


def test_a_message_too_long_for_its_room_ends_in_an_ellipsis_with_the_whole_text_on_hover(
    qtbot, monkeypatch
):
    monkeypatch.setattr("grpo_desktop.window.status_line.READ_MS", 50)
    _window, bar = make_window(qtbot, 700)
    bar.showMessage(LONG)
    qtbot.waitUntil(lambda: not bar.stepped_aside)  # read whole first, then cut beside the bar
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


ZOOM_NOTICE = "Zoom 200% does not fit this screen: showing 150%"


def test_a_notice_too_long_to_share_the_row_shows_whole_while_it_lasts(qtbot):
    """At 200 % on a laptop the workspace bar left the zoom notice "does not fit this screen:
    sh…": the bar steps aside while the notice shows, keeping its height, then comes back."""
    _window, bar = make_window(qtbot, 500)
    workspace_bar = bar.findChild(QLabel)
    height = bar.height()
    assert bar.fontMetrics().horizontalAdvance(ZOOM_NOTICE) > bar.message_room()
    bar.showMessage(ZOOM_NOTICE, 400)
    assert bar.currentMessage() == ZOOM_NOTICE and bar.toolTip() == ""
    assert bar.stepped_aside and not workspace_bar.isVisible()
    qtbot.wait(50)
    assert bar.height() == height, "the bar keeps its height: nothing above it moves"
    qtbot.waitUntil(lambda: bar.currentMessage() == "", timeout=2000)
    assert not bar.stepped_aside and workspace_bar.isVisible()


def test_a_long_message_without_a_timeout_shows_whole_then_is_cut_beside_the_bar(
    qtbot, monkeypatch
):
    """A lesson's progress ("Lesson: … — step 1 of 7 (Page Down: next, …)") is read whole
    first; then the workspace bar comes back and the message ends in "…"."""
    monkeypatch.setattr("grpo_desktop.window.status_line.READ_MS", 200)
    _window, bar = make_window(qtbot, 500)
    workspace_bar = bar.findChild(QLabel)
    bar.showMessage(ZOOM_NOTICE)
    assert bar.currentMessage() == ZOOM_NOTICE and not workspace_bar.isVisible()
    qtbot.waitUntil(lambda: workspace_bar.isVisible(), timeout=2000)
    assert bar.currentMessage().endswith("…") and bar.full_message == ZOOM_NOTICE
    bar.showMessage("Short")  # a new message that fits: nothing steps aside
    assert workspace_bar.isVisible() and bar.currentMessage() == "Short"


def test_a_message_too_long_even_for_the_whole_bar_is_cut_and_the_bar_stays(qtbot):
    _window, bar = make_window(qtbot, 700)
    bar.showMessage(LONG * 3, 400)
    assert not bar.stepped_aside and bar.currentMessage().endswith("…")
