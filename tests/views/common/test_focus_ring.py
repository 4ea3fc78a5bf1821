"""The keyboard focus ring: seen in every theme (3:1 against everything beside it), on the focused
widget and following it."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QLineEdit, QPushButton, QScrollArea, QSpinBox, QVBoxLayout, QWidget

from grpo_desktop.core.common.contrast import AA_GRAPHICS
from grpo_desktop.core.common.theme import THEMES
from grpo_desktop.views.common.focus_ring import GAP, FocusRing, ring_contrasts, ring_width


@pytest.mark.parametrize("name", list(THEMES))
def test_the_ring_meets_3_to_1_beside_every_background_in_every_theme(name):
    contrasts = ring_contrasts(THEMES[name])
    assert set(contrasts) >= {"window", "surface"}
    assert all(ratio >= AA_GRAPHICS for ratio in contrasts.values()), contrasts


class Host(QWidget):
    def __init__(self) -> None:
        super().__init__()
        column = QVBoxLayout(self)
        column.setContentsMargins(12, 12, 12, 12)
        self.first = QPushButton("First")
        self.spin = QSpinBox()
        self.edit = QLineEdit()
        for widget in (self.first, self.spin, self.edit):
            column.addWidget(widget)
        self.ring = FocusRing(self, THEMES["light"])


@pytest.fixture
def host(qtbot) -> Host:
    widget = Host()
    qtbot.addWidget(widget)
    widget.resize(300, 200)
    widget.show()
    qtbot.waitExposed(widget)
    widget.activateWindow()
    return widget


def expected_rect(host: Host, widget: QWidget, theme_name: str = "light") -> tuple[int, ...]:
    reach = GAP + ring_width(THEMES[theme_name])
    top_left = widget.mapTo(host, QPoint(0, 0))
    return (
        top_left.x() - reach,
        top_left.y() - reach,
        widget.width() + 2 * reach,
        widget.height() + 2 * reach,
    )


def test_the_ring_surrounds_the_focused_widget_in_the_focus_colour(host, qtbot):
    host.first.setFocus()
    qtbot.waitUntil(lambda: host.ring.isVisible())
    assert host.ring.target() is host.first
    assert host.ring.ring_rect().getRect() == expected_rect(host, host.first)
    assert host.ring.grab_colour_at(QPoint(0, 0)) == QColor(THEMES["light"].focus)
    assert not host.ring.mask().contains(QPoint(host.ring.width() // 2, host.ring.height() // 2))
    host.edit.setFocus()  # Tab on: the ring goes with the focus
    qtbot.waitUntil(lambda: host.ring.target() is host.edit)
    assert host.ring.ring_rect().getRect() == expected_rect(host, host.edit)


def test_a_spin_boxs_field_rings_the_whole_box(host, qtbot):
    host.spin.setFocus()
    qtbot.waitUntil(lambda: host.ring.target() is host.spin)


def test_the_ring_follows_a_theme_and_a_moved_widget(host, qtbot):
    host.first.setFocus()
    qtbot.waitUntil(lambda: host.ring.isVisible())
    host.ring.set_theme(THEMES["projector"])
    assert host.ring.ring_rect().getRect() == expected_rect(host, host.first, "projector")
    assert host.ring.grab_colour_at(QPoint(0, 0)) == QColor(THEMES["projector"].focus)
    host.layout().setContentsMargins(40, 30, 12, 12)
    qtbot.waitUntil(
        lambda: host.ring.ring_rect().getRect() == expected_rect(host, host.first, "projector")
    )


def test_a_widget_scrolled_partly_away_is_ringed_where_it_shows(qtbot):
    outer = QWidget()
    qtbot.addWidget(outer)
    scroll = QScrollArea(outer)
    inside = QWidget()
    column = QVBoxLayout(inside)
    button = QPushButton("Tall")
    button.setFixedHeight(400)
    column.addWidget(button)
    scroll.setWidget(inside)
    scroll.setGeometry(10, 10, 200, 150)
    ring = FocusRing(outer, THEMES["dark"])
    outer.resize(260, 200)
    outer.show()
    qtbot.waitExposed(outer)
    outer.activateWindow()
    button.setFocus()
    qtbot.waitUntil(ring.isVisible)
    assert ring.ring_rect().bottom() < 10 + 150 + GAP + ring_width(THEMES["dark"]) + 1


def test_no_ring_without_keyboard_focus_or_for_a_widget_with_its_own(host, qtbot):
    host.first.setProperty("drawsOwnFocusRing", True)
    host.edit.setFocus()
    qtbot.waitUntil(lambda: host.ring.target() is host.edit)
    host.first.setFocus()
    qtbot.waitUntil(host.first.hasFocus)
    assert host.ring.target() is None and not host.ring.isVisible()
