"""announce: an announcement event (Qt 6.8+) reaches the accessibility bridge, once per call."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QAccessible
from PySide6.QtWidgets import QLabel

from grpo_desktop.views.common import accessible_events
from grpo_desktop.views.common.announce import ANNOUNCEMENTS_SUPPORTED, announce


@pytest.fixture
def heard():
    events = []

    def listen(event):
        message = event.message() if event.type() == QAccessible.Event.Announcement else None
        politeness = event.politeness() if message is not None else None
        events.append((event.type(), event.object(), message, politeness))

    remove = accessible_events.add_listener(listen)
    yield events
    remove()


def test_pyside_has_announcement_events():
    assert ANNOUNCEMENTS_SUPPORTED  # PySide6 >= 6.8 is required by the project


def test_announce_sends_one_polite_announcement_from_the_widget(qtbot, heard):
    label = QLabel("summary")
    qtbot.addWidget(label)
    announce(label, "Card 3 now right. Par 0.75, std 0.433; 3 pushed up, 1 down")
    polite = QAccessible.AnnouncementPoliteness.Polite
    assert heard == [
        (
            QAccessible.Event.Announcement,
            label,
            "Card 3 now right. Par 0.75, std 0.433; 3 pushed up, 1 down",
            polite,
        )
    ]


def test_assertive_announcements(qtbot, heard):
    label = QLabel()
    qtbot.addWidget(label)
    announce(label, "Stop", assertive=True)
    assert heard[0][3] == QAccessible.AnnouncementPoliteness.Assertive


def test_empty_text_is_not_announced(qtbot, heard):
    label = QLabel()
    qtbot.addWidget(label)
    announce(label, "")
    assert heard == []


def test_without_a_listener_or_screen_reader_nothing_is_built(qtbot, monkeypatch):
    label = QLabel()
    qtbot.addWidget(label)
    sent = []
    monkeypatch.setattr(accessible_events, "send", sent.append)
    assert not QAccessible.isActive()
    announce(label, "Nobody hears this")
    assert sent == []


def test_the_event_reaches_qt_without_error_when_accessibility_is_active(qtbot, heard):
    label = QLabel()
    qtbot.addWidget(label)
    QAccessible.setActive(True)
    try:
        announce(label, "Heard")
    finally:
        QAccessible.setActive(False)
    assert [event[2] for event in heard] == ["Heard"]
