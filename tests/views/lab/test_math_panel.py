"""MathPanel: a click puts the new numbers into the worked math in place, looking the same."""

from __future__ import annotations

from event_log import EventLog
from PySide6.QtCore import QEvent, QSize
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication, QWidget

from grpo_desktop.core.common.theme import THEMES
from grpo_desktop.core.lab.lab_snapshot import build_snapshot
from grpo_desktop.core.lab.problems import get_problem
from grpo_desktop.views.lab.math_panel import MathPanel, worked_math_html

REWARDS = ([1, 0, 0, 1], [1, 1, 0, 1], [0, 0, 0, 1], [1, 1, 1, 1], [1, 0, 1, 0, 1, 1])


# A box every text below scrolls in. A text that once needed the scroll bar keeps it for the
# clicks that follow (by design: the tests further down), so in a box where one group's text
# scrolls and another's fits, the comparison would be of the bar, not of the numbers put in place.
SCROLLING_BOX = QSize(384, 220)


def snapshot(rewards):
    return build_snapshot(get_problem("mult-23x47"), [bool(r) for r in rewards])


def shown(qtbot, rewards, theme, size) -> MathPanel:
    panel = MathPanel(theme)
    qtbot.addWidget(panel)
    panel.resize(size)
    panel.show_snapshot(snapshot(rewards))
    panel.show()
    QApplication.processEvents()
    panel.finish_typesetting()  # every line typeset, as a moment after a click
    return panel


def test_numbers_put_in_place_read_and_look_as_the_whole_text_typeset_afresh(qtbot):
    for theme in THEMES.values():
        panel = shown(qtbot, REWARDS[0], theme, panel_size := SCROLLING_BOX)
        for rewards in REWARDS[1:] + REWARDS[:1]:
            panel.show_snapshot(snapshot(rewards))
            QApplication.processEvents()
            panel.finish_typesetting()  # new lines are typeset after the click's frame
            fresh = shown(qtbot, rewards, theme, panel_size)
            assert panel.toPlainText() == fresh.toPlainText()
            assert panel.grab().toImage() == fresh.grab().toImage(), (theme.name, rewards)


def test_the_html_is_what_the_panel_shows():
    worked = snapshot(REWARDS[0]).worked_math
    html = worked_math_html(worked, THEMES["light"])
    assert html.startswith("<p style='margin:0 0 2px 0; font-size:140%; font-weight:600'>")
    assert html.count("<p ") == html.count("</p>") > 5
    assert "A = ?" in worked_math_html(worked, THEMES["light"], hidden=True)


def test_a_click_neither_hides_nor_re_shows_the_scroll_bar(qtbot):
    # Clicks that keep the worked math's paragraphs (each gets new numbers, none comes or goes).
    clicks = ([1, 1, 0, 1], [0, 0, 0, 1], [1, 1, 0, 1])
    panel = shown(qtbot, clicks[0], THEMES["light"], MathPanel().sizeHint() * 0.8)
    bar = panel.verticalScrollBar()
    assert bar.isVisible()  # the text is longer than the box
    counter = EventLog((QEvent.Type.Show, QEvent.Type.Hide), bar)
    for rewards in clicks[1:]:
        before = panel.toPlainText()
        panel.show_snapshot(snapshot(rewards))
        QApplication.processEvents()
        assert panel.toPlainText() != before
    assert counter.count == 0
    assert bar.isVisible()


def test_the_note_that_comes_and_goes_is_put_in_place_and_looks_as_typeset_afresh(
    qtbot, monkeypatch
):
    # 8 of 16 right has no ★ note; 4 (or 3) of 16, a rare outcome, has one: clicks add it and
    # take it away again.
    half = [1, 0] * 8
    seven = [1] * 4 + [0] * 12
    nine = [1] * 3 + [0] * 13
    for theme in THEMES.values():
        panel = shown(qtbot, half, theme, panel_size := SCROLLING_BOX)
        typeset: list[str] = []
        monkeypatch.setattr(panel, "setHtml", typeset.append)
        for rewards in (seven, half, nine, seven, half):
            panel.show_snapshot(snapshot(rewards))
            QApplication.processEvents()
            panel.finish_typesetting()  # new lines are typeset after the click's frame
            fresh = shown(qtbot, rewards, theme, panel_size)
            assert panel.toPlainText() == fresh.toPlainText()
            assert panel.grab().toImage() == fresh.grab().toImage(), (theme.name, rewards)
            assert ("★" in panel.toPlainText()) == (rewards != half)
        assert typeset == [], "every click was put in place, none typeset afresh"


def test_new_numbers_repaint_the_text_area_alone_and_leave_no_old_text(qtbot):
    host = QWidget()  # stands for the tab frame the panel sits in
    qtbot.addWidget(host)
    panel = MathPanel(THEMES["dark"], parent=host)
    panel.resize(MathPanel().sizeHint() * 1.5)
    host.resize(panel.size())
    panel.show_snapshot(snapshot([1, 1, 0, 1]))
    host.show()
    qtbot.waitExposed(host)
    QApplication.processEvents()
    bar = panel.verticalScrollBar()
    painted, bar_painted = EventLog(QEvent.Type.Paint, host), EventLog(QEvent.Type.Paint, bar)
    for rewards in ([0, 0, 0, 1], [1, 0, 0, 1], [1, 1, 0, 1]):
        panel.show_snapshot(snapshot(rewards))
        QApplication.processEvents()
    # The scroll bar's slider resizes with the text; the bar paints the panel's colour beneath
    # itself, so nothing beneath it (the host) repaints either.
    assert bar_painted.seen, "the scroll bar did change"
    assert painted.seen == []
    # What the screen shows after those partial repaints is what a full render draws.
    on_screen = QApplication.primaryScreen().grabWindow(host.winId()).toImage()
    drawn = host.grab().toImage()
    rgb = QImage.Format.Format_RGB32
    assert on_screen.convertToFormat(rgb) == drawn.convertToFormat(rgb)


def test_the_scroll_bar_the_note_brought_stays_so_no_line_re_wraps_until_a_new_box(qtbot):
    # 8 of 16 right has no ★ note and fits the box; 4 of 16 (rare) adds the note, which does not.
    half = [1, 0] * 8
    seven = [1] * 4 + [0] * 12
    width = MathPanel().sizeHint().width()
    probe = shown(qtbot, seven, THEMES["light"], QSize(width, 100))
    tall = probe.needed_height(width)
    probe.show_snapshot(snapshot(half))
    short = probe.needed_height(width)
    assert tall > short + 4, "the ★ note must make the text taller for this test"
    panel = shown(qtbot, half, THEMES["light"], QSize(width, (short + tall) // 2))
    bar = panel.verticalScrollBar()
    assert not bar.isVisible()  # the text fits: no scroll bar
    panel.show_snapshot(snapshot(seven))
    QApplication.processEvents()
    assert bar.isVisible()  # the note does not fit: the bar shows
    text_width = panel.viewport().width()
    counter = EventLog((QEvent.Type.Show, QEvent.Type.Hide), bar)
    for rewards in (half, seven, half):
        panel.show_snapshot(snapshot(rewards))
        QApplication.processEvents()
        assert ("★" in panel.toPlainText()) == (rewards == seven)
        assert panel.viewport().width() == text_width  # no line re-wraps to a new width
    assert counter.count == 0 and bar.isVisible()
    # A new box decides afresh: the text without the note fits it, and the bar goes.
    panel.resize(width, (short + tall) // 2 + 1)
    QApplication.processEvents()
    assert not bar.isVisible()
    assert panel.viewport().width() > text_width
