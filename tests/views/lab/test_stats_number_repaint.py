"""A stat's new number repaints where its digits go, not its whole label, and a screen reader
reads the number shown."""

from __future__ import annotations

from event_log import EventLog
from PySide6.QtCore import QEvent, QObject
from PySide6.QtGui import QAccessible, QImage
from PySide6.QtWidgets import QApplication, QVBoxLayout, QWidget

from grpo_desktop.core.common.theme import THEMES
from grpo_desktop.core.lab.lab_snapshot import build_snapshot
from grpo_desktop.core.lab.problems import get_problem
from grpo_desktop.views.common import accessible_events
from grpo_desktop.views.lab.stats_panel import StatsPanel

REWARDS = ([1, 0, 0, 1], [1, 1, 0, 1, 0, 0, 0, 0], [1, 1, 1, 0], [0, 0, 0, 1, 0, 0, 0, 0])


def pixels(event) -> int:
    """The pixels a paint event asks to repaint."""
    return sum(rect.width() * rect.height() for rect in event.region())


def shown_panel(qtbot) -> tuple[QWidget, StatsPanel]:
    window = QWidget()
    qtbot.addWidget(window)
    panel = StatsPanel(THEMES["light"])
    QVBoxLayout(window).addWidget(panel)
    panel.show_snapshot(build_snapshot(get_problem("mult-23x47"), REWARDS[0]))
    window.resize(1800, 260)  # wide tiles: the digits take a part of each label
    window.show()
    qtbot.waitExposed(window)
    QApplication.processEvents()
    return window, panel


def test_a_new_number_repaints_its_digits_not_the_whole_label(qtbot):
    _window, panel = shown_panel(qtbot)
    numbers = [tile.value for tile in panel.tiles]
    painted = EventLog(
        QEvent.Type.Paint, *numbers, record=lambda number, event: (number, pixels(event))
    )
    panel.show_snapshot(build_snapshot(get_problem("mult-23x47"), REWARDS[1]))
    QApplication.processEvents()
    for number in numbers:
        whole = number.width() * number.height()
        area = sum(area for painted_number, area in painted.seen if painted_number is number)
        assert 0 < area < 0.6 * whole, (number.objectName(), number.text(), area, whole)


def test_after_new_numbers_each_label_shows_what_a_full_repaint_draws(qtbot):
    window, panel = shown_panel(qtbot)
    for rewards in REWARDS[1:]:
        panel.show_snapshot(build_snapshot(get_problem("mult-23x47"), rewards))
        QApplication.processEvents()
        shown = window.grab().toImage().convertToFormat(QImage.Format.Format_RGB32)
        window.repaint()
        full = window.grab().toImage().convertToFormat(QImage.Format.Format_RGB32)
        assert shown == full, rewards


def test_a_screen_reader_reads_the_number_shown_and_hears_it_change(qtbot):
    _window, panel = shown_panel(qtbot)
    heard: list[QObject] = []
    remove = accessible_events.add_listener(
        lambda event: (
            heard.append(event.object()) if event.type() == QAccessible.Event.NameChanged else None
        )
    )
    try:
        panel.show_snapshot(build_snapshot(get_problem("mult-23x47"), REWARDS[1]))
    finally:
        remove()
    for tile in panel.tiles:
        interface = QAccessible.queryAccessibleInterface(tile.value)
        assert interface.role() == QAccessible.Role.StaticText
        assert interface.text(QAccessible.Text.Name) == tile.value.text()
    assert panel.par.value.text() == "0.375"
    assert {panel.par.value, panel.std.value} <= set(heard)
