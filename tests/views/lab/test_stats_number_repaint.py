"""A stat's new number repaints where its digits go, not its whole label, and a screen reader
reads the number shown."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject
from PySide6.QtGui import QAccessible, QImage
from PySide6.QtWidgets import QApplication, QVBoxLayout, QWidget

from grpo_desktop.core.common.theme import THEMES
from grpo_desktop.core.lab.lab_snapshot import build_snapshot
from grpo_desktop.core.lab.problems import get_problem
from grpo_desktop.views.common import accessible_events
from grpo_desktop.views.lab.stats_panel import StatsPanel

REWARDS = ([1, 0, 0, 1], [1, 1, 0, 1, 0, 0, 0, 0], [1, 1, 1, 0], [0, 0, 0, 1, 0, 0, 0, 0])


class PaintedArea(QObject):
    """The pixels each watched widget is asked to repaint."""

    def __init__(self) -> None:
        super().__init__()
        self.area: dict[str, int] = {}

    def eventFilter(self, watched, event) -> bool:  # Qt override
        if event.type() == QEvent.Type.Paint:
            name = watched.objectName()
            pixels = sum(rect.width() * rect.height() for rect in event.region())
            self.area[name] = self.area.get(name, 0) + pixels
        return False


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
    painted = PaintedArea()
    numbers = [tile.value for tile in panel.tiles]
    for number in numbers:
        number.installEventFilter(painted)
    panel.show_snapshot(build_snapshot(get_problem("mult-23x47"), REWARDS[1]))
    QApplication.processEvents()
    for number in numbers:
        whole = number.width() * number.height()
        area = painted.area.get(number.objectName(), 0)
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
