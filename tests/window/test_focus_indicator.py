"""The window rings the keyboard focus in every theme, in that theme's focus colour."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QApplication

from grpo_desktop.core.common.theme import THEMES


@pytest.mark.parametrize("name", list(THEMES))
def test_tab_to_a_control_rings_it_in_the_themes_focus_colour(qtbot, sized, name):
    window = sized((1280, 800), theme=name)
    window.activateWindow()
    combo = window.lab.problem_panel.findChild(type(window.convention_combo), "problemCombo")
    target = combo or window.convention_combo
    target.setFocus(Qt.FocusReason.TabFocusReason)
    ring = window.presentation.focus_ring
    qtbot.waitUntil(lambda: ring.target() is target and ring.isVisible())
    QApplication.processEvents()
    assert ring.grab_colour_at(QPoint(0, 0)) == QColor(THEMES[name].focus)
    corner = target.mapTo(window, QPoint(0, 0))
    assert ring.geometry().contains(corner) and ring.geometry().left() < corner.x()


def test_cards_and_token_rows_keep_their_own_ring_and_get_no_second_one(qtbot, sized):
    """The cards and the token rows draw their focus inside their own look; the window's ring
    leaves them alone rather than doubling it."""
    window = sized((1280, 800))
    window.activateWindow()
    card = window.lab.trace_grid.card(0)
    card.setFocus(Qt.FocusReason.TabFocusReason)
    QApplication.processEvents()
    ring = window.presentation.focus_ring
    qtbot.waitUntil(card.hasFocus)
    assert not ring.isVisible() or ring.target() is not card
