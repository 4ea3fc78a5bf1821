"""TraceGrid on a click: only the cards whose shown state changed are touched and repainted.

A click toggles one card; every other card may get a new advantage and nothing else. A card
whose advantage lines show the same thing (the same number, or "?" while the class predicts) is
not repainted, a presentation that did not change is not given again, and what a screen reader
reads of a card is written when it reads it: after any clicks, every card reads and looks as a
fresh grid showing the same group.
"""

from __future__ import annotations

import pytest
from event_log import EventLog
from PySide6.QtCore import QEvent, QPoint, QRect
from PySide6.QtGui import QAccessible, QImage
from PySide6.QtWidgets import QApplication, QWidget

from grpo_desktop.core.lab.lab_snapshot import LabSnapshot, build_snapshot
from grpo_desktop.core.lab.problems import get_problem
from grpo_desktop.views.lab.trace_card import TraceCard
from grpo_desktop.views.lab.trace_grid import TraceGrid


def group(rewards) -> LabSnapshot:
    return build_snapshot(get_problem("mult-23x47"), [bool(r) for r in rewards])


class Host(QWidget):
    """A plain window the grid fills."""

    def __init__(self) -> None:
        super().__init__()
        self.grid = TraceGrid(parent=self)

    def resizeEvent(self, event) -> None:
        self.grid.setGeometry(self.rect())


def host_showing(qtbot, rewards, width: int, height: int) -> Host:
    host = Host()
    qtbot.addWidget(host)
    host.resize(width, height)
    with qtbot.waitExposed(host):
        host.show()
    host.grid.show_snapshot(group(rewards))
    QApplication.processEvents()
    return host


def test_while_advantages_are_hidden_a_click_repaints_only_the_card_clicked(qtbot):
    rewards = [1 if i % 3 == 0 else 0 for i in range(16)]
    host = host_showing(qtbot, rewards, 1200, 900)
    grid = host.grid
    grid.set_presentation((), advantages_hidden=True)
    QApplication.processEvents()
    assert grid.indices_in_view() == tuple(range(16))  # every card in view
    log = EventLog(QEvent.Type.Paint, *grid.cards())
    rewards[5] ^= 1
    grid.show_snapshot(group(rewards))
    QApplication.processEvents()
    assert {card.index for card in log.seen} == {5}  # every other card still shows "?"


def test_a_click_gives_no_card_a_presentation_again_when_it_did_not_change(qtbot, monkeypatch):
    rewards = [1 if i % 3 == 0 else 0 for i in range(64)]
    host = host_showing(qtbot, rewards, 900, 600)
    given: list[int] = []
    original = TraceCard.set_presentation

    def logged(card, highlighted, hidden):
        given.append(card.index)
        original(card, highlighted, hidden)

    monkeypatch.setattr(TraceCard, "set_presentation", logged)
    rewards[7] ^= 1
    host.grid.show_snapshot(group(rewards), highlighted=(), advantages_hidden=False)
    assert given == []
    host.grid.show_snapshot(group(rewards), highlighted=(3,), advantages_hidden=False)
    assert 3 in given  # a new star is given
    assert host.grid.card(3).highlighted and not host.grid.card(4).highlighted


def description(card: TraceCard) -> str:
    return QAccessible.queryAccessibleInterface(card).text(QAccessible.Text.Description)


@pytest.mark.parametrize("hidden", [False, True])
def test_after_clicks_every_card_reads_and_looks_as_a_fresh_grid_showing_that_group(qtbot, hidden):
    rewards = [1 if i % 3 == 0 else 0 for i in range(64)]
    clicked = host_showing(qtbot, rewards, 600, 300)  # most cards scrolled out of view
    clicked.grid.set_presentation((), hidden)
    QApplication.processEvents()
    for index in (0, 1, 63, 2, 0, 40):  # in view and out of it, some back and forth
        rewards[index] ^= 1
        clicked.grid.show_snapshot(group(rewards))
        QApplication.processEvents()
    fresh = host_showing(qtbot, rewards, 600, 300)
    fresh.grid.set_presentation((), hidden)
    QApplication.processEvents()
    for mine, theirs in zip(clicked.grid.cards(), fresh.grid.cards(), strict=True):
        assert description(mine) == description(theirs), mine.index
        assert mine.accessibleDescription() == theirs.accessibleDescription()
        assert mine.toolTip() == theirs.toolTip()
    for scroll in (0, clicked.grid.verticalScrollBar().maximum()):
        for host in (clicked, fresh):
            host.grid.verticalScrollBar().setValue(scroll)
            QApplication.processEvents()
        # What the clicked window shows after its partial repaints is what a fresh one draws.
        area = QRect(QPoint(0, 0), clicked.size())
        on_screen = clicked.backingStore().paintDevice().copy(area)
        rgb = QImage.Format.Format_RGB32
        assert on_screen.convertToFormat(rgb) == fresh.grab(area).toImage().convertToFormat(rgb)
