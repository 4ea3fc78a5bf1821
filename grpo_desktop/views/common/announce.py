"""Say a change out loud: ``announce(widget, text)`` for a screen reader.

Qt 6.8+ has ``QAccessibleAnnouncementEvent`` (AT-SPI's "announcement" signal, which Orca speaks
without moving focus). Where it is missing, the text goes to the widget as a value change (a live
summary a screen reader reads when it changes). One call per user action: the caller decides when.
"""

from __future__ import annotations

from PySide6 import QtGui
from PySide6.QtGui import QAccessible, QAccessibleValueChangeEvent
from PySide6.QtWidgets import QWidget

from grpo_desktop.views.common import accessible_events

__all__ = ["ANNOUNCEMENTS_SUPPORTED", "announce"]

_ANNOUNCEMENT = getattr(QtGui, "QAccessibleAnnouncementEvent", None)
#: Whether this Qt has announcement events (6.8+); otherwise a value change carries the text.
ANNOUNCEMENTS_SUPPORTED = _ANNOUNCEMENT is not None


def announce(widget: QWidget, text: str, assertive: bool = False) -> None:
    """Announce ``text`` from ``widget`` (politely, after what is being read, unless
    ``assertive``). Nothing is built while no screen reader listens."""
    if not text or not accessible_events.wanted():
        return
    if _ANNOUNCEMENT is not None:
        event = _ANNOUNCEMENT(widget, text)
        politeness = QAccessible.AnnouncementPoliteness
        event.setPoliteness(politeness.Assertive if assertive else politeness.Polite)
    else:  # pragma: no cover - Qt < 6.8
        event = QAccessibleValueChangeEvent(widget, text)
    accessible_events.send(event)
