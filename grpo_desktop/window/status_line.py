"""The window's status bar, whose message never runs under the workspace bar.

Qt draws a status message at full length and lets the permanent widgets on the right (the
workspace bar) cover its end: at 1024×768 in the projector theme, or at 200 % zoom, a hint lost
its last words mid-word. This bar elides the message to the room left of them, with the whole
text as its tooltip, and fits it again when the window is resized.
"""

from __future__ import annotations

import html
import time

from PySide6.QtCore import Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QStatusBar, QWidget

# Room Qt keeps around the message (its margins and the size grip), in px.
MESSAGE_MARGINS = 40


class StatusLine(QStatusBar):
    """A status bar whose message is cut with "…" where the permanent widgets begin."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._full = ""
        self._until: float | None = None  # when a timed message goes (monotonic seconds)
        self._fitting = False
        self._permanent: list[QWidget] = []
        self.messageChanged.connect(self._on_message_changed)

    @property
    def full_message(self) -> str:
        """The message as it was given, before any cut."""
        return self._full

    def addPermanentWidget(self, widget: QWidget, stretch: int = 0) -> None:  # Qt override
        self._permanent.append(widget)
        super().addPermanentWidget(widget, stretch)

    def showMessage(self, text: str, timeout: int = 0) -> None:  # Qt override (Python callers)
        self._full = text
        self._until = time.monotonic() + timeout / 1000 if timeout > 0 else None
        self._show_fitted(timeout)

    def clearMessage(self) -> None:  # Qt override
        self._full = ""
        super().clearMessage()

    def resizeEvent(self, event: QResizeEvent) -> None:  # Qt override
        super().resizeEvent(event)
        if not self._full:
            return
        if self._until is None:
            self._show_fitted(0)
            return
        left = round((self._until - time.monotonic()) * 1000)
        if left > 0:
            self._show_fitted(left)  # a resize must not make a timed message stay

    def message_room(self) -> int:
        """The px the message has: the bar's width less its permanent widgets'."""
        taken = sum(
            widget.width() if widget.isVisible() else widget.sizeHint().width()
            for widget in self._permanent
            if not widget.isHidden()
        )
        return max(0, self.width() - taken - MESSAGE_MARGINS)

    def _show_fitted(self, timeout: int) -> None:
        text = self._full
        fitted = self.fontMetrics().elidedText(
            text, Qt.TextElideMode.ElideRight, self.message_room()
        )
        self._fitting = True
        try:
            super().showMessage(fitted or ("…" if text else ""), timeout)
        finally:
            self._fitting = False
        # Messages can hold a file's text (a scenario's title): the tooltip shows it as text,
        # never as rich text Qt would guess from its tags.
        self.setToolTip(f"<p>{html.escape(text)}</p>" if fitted != text else "")

    def _on_message_changed(self, text: str) -> None:
        if self._fitting:
            return
        # Cleared, a timed message gone, or one Qt showed itself (an action's status tip, while
        # the pointer is over a menu entry): a resize then fits that one, never an old one.
        self._full = text
        self._until = None
        self.setToolTip("")
