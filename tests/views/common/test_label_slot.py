"""A label held in a slot: a new text of the same height re-lays out nothing above the slot; one
that needs another height, and a new font, re-lay out its column as a plain label would."""

from __future__ import annotations

import pytest
from event_log import EventLog
from PySide6.QtCore import QEvent
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QApplication, QLabel, QVBoxLayout, QWidget

from grpo_desktop.views.common.label_slot import LabelSlot

SHORT = "Step 5 of 200 (playing): 38% of GRPO's groups had all-equal rewards."
LONG = " ".join([SHORT] * 6)


@pytest.fixture
def column(qtbot):
    window = QWidget()
    qtbot.addWidget(window)
    layout = QVBoxLayout(window)
    label = QLabel(SHORT)
    label.setWordWrap(True)
    slot = LabelSlot(label)
    layout.addWidget(slot)
    layout.addStretch(1)
    window.resize(500, 300)
    with qtbot.waitExposed(window):
        window.show()
    QApplication.processEvents()
    return window, slot, label


def settle() -> None:
    for _ in range(5):
        QApplication.processEvents()


def test_the_label_fills_its_slot_at_its_height_for_the_width(column):
    _window, slot, label = column
    assert label.parent() is slot and label.geometry() == slot.rect()
    assert slot.height() == label.heightForWidth(slot.width())
    assert slot.objectName() == f"{label.objectName()}Slot"


def test_a_new_text_of_the_same_height_lays_out_nothing(column):
    window, slot, label = column
    requests = EventLog(QEvent.Type.LayoutRequest, window)
    slot.set_text(SHORT.replace("38%", "41%"))
    settle()
    assert label.text() == SHORT.replace("38%", "41%")
    assert requests.count == 0, "the window's layout did not hear of it"
    assert label.geometry() == slot.rect()


def test_a_text_that_needs_more_lines_grows_the_slot_and_back(column):
    _window, slot, label = column
    one_line = slot.height()
    slot.set_text(LONG)
    settle()
    assert slot.height() > one_line and slot.height() == label.heightForWidth(slot.width())
    assert label.geometry() == slot.rect()
    slot.set_text(SHORT)
    settle()
    assert slot.height() == one_line


def test_a_new_font_resizes_the_slot(column):
    _window, slot, label = column
    before = slot.height()
    font = QFont(label.font())
    font.setPointSizeF(font.pointSizeF() * 2)
    label.setFont(font)
    settle()
    assert slot.height() > before * 1.5 and label.geometry() == slot.rect()


def test_a_shorter_text_can_keep_the_slots_height_and_sit_at_its_top(column):
    window, slot, label = column
    slot.set_text(LONG)
    settle()
    tall = slot.height()
    requests = EventLog(QEvent.Type.LayoutRequest, window)
    slot.set_text(SHORT, keep_height=True)
    settle()
    assert requests.count == 0, "the column did not move"
    assert slot.height() == tall
    assert label.geometry().topLeft() == slot.rect().topLeft()
    assert label.height() == label.heightForWidth(slot.width()) < tall
    slot.set_text(LONG)  # as tall as the kept height: still nothing to lay out
    settle()
    assert requests.count == 0 and label.geometry() == slot.rect()


def test_a_text_set_without_keeping_lets_the_slot_shrink_again(column):
    _window, slot, label = column
    one_line = slot.height()
    slot.set_text(LONG)
    settle()
    slot.set_text(SHORT, keep_height=True)
    settle()
    slot.set_text(SHORT.replace("38%", "41%"))
    settle()
    assert slot.height() == one_line and label.geometry() == slot.rect()


def test_a_longer_text_grows_the_slot_even_while_keeping_its_height(column):
    _window, slot, label = column
    one_line = slot.height()
    slot.set_text(LONG, keep_height=True)
    settle()
    assert slot.height() > one_line and label.geometry() == slot.rect()


def test_a_slot_whose_attributes_the_garbage_collector_cleared_is_laid_out_as_a_plain_widget(
    column,
):
    """Python's collector can clear a slot's attributes while Qt still lays it out and sends it
    its label's events; that must raise nothing in Qt's event loop."""
    window, slot, label = column
    slot.__dict__.clear()
    label.setFont(QFont(label.font().family(), 30))  # a restyled label: the filter sees it
    window.resize(window.width() + 40, window.height() + 40)
    settle()
    assert slot.hasHeightForWidth() == QWidget.hasHeightForWidth(slot)
    assert slot.heightForWidth(200) == QWidget.heightForWidth(slot, 200)
    assert slot.sizeHint() == QWidget.sizeHint(slot)


def test_a_text_set_back_before_the_layout_ran_still_gets_its_height(column):
    """A shorter text, the layout asked for its height (and keeps the answer), then a text as
    tall as the first before the layout ran: the slot must not stay at the shorter height (the
    Update page's net-push caption in the projector theme, lesson step 7)."""
    window, slot, label = column
    slot.set_text(LONG)
    settle()
    tall = slot.height()
    slot.set_text(SHORT)
    window.layout().heightForWidth(window.width())  # the layout asks, and keeps the answer
    slot.set_text(LONG.replace("38%", "41%"))
    settle()
    assert slot.height() == label.heightForWidth(slot.width()) == tall
