"""The window's status bar, whose message never runs under the workspace bar.

Qt draws a status message at full length and lets the permanent widgets on the right (the
workspace bar) cover its end: at 1024×768 in the projector theme, or at 200 % zoom, a hint lost
its last words mid-word. This bar elides the message to the room left of them, with the whole
text as its tooltip, and fits it again when the window is resized.

A message too long to share the row with them is news first: for its own timeout, or for
``READ_MS`` if it has none (a hint, a lesson's progress), the permanent widgets step aside and
it shows whole across the bar ("Zoom 200% does not fit this screen: showing 150%" at 200 %);
then they come back and a message that stays ends in "…". The bar keeps its height meanwhile,
so nothing above it moves.
"""

from __future__ import annotations

import html
import time

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QStatusBar, QWidget

# Room Qt keeps around the message (its margins and the size grip), in px.
MESSAGE_MARGINS = 40
READ_MS = 6000  # how long a message without a timeout keeps the whole bar: time to read it


class StatusLine(QStatusBar):
    """A status bar whose message is cut with "…" where the permanent widgets begin."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._full = ""
        self._until: float | None = None  # when a timed message goes (monotonic seconds)
        self._fitting = False
        self._permanent: list[QWidget] = []
        self._aside: list[QWidget] = []  # permanent widgets hidden while a long message shows
        self._kept_minimum_height: int | None = None
        self._read_timer = QTimer(self)
        self._read_timer.setSingleShot(True)
        self._read_timer.timeout.connect(self._end_reading)
        self.messageChanged.connect(self._on_message_changed)

    @property
    def full_message(self) -> str:
        """The message as it was given, before any cut."""
        return self._full

    def addPermanentWidget(self, widget: QWidget, stretch: int = 0) -> None:  # Qt override
        self._permanent.append(widget)
        super().addPermanentWidget(widget, stretch)

    @property
    def stepped_aside(self) -> bool:
        """Whether the permanent widgets are hidden so a long message shows whole."""
        return bool(self._aside)

    def showMessage(self, text: str, timeout: int = 0) -> None:  # Qt override (Python callers)
        self._full = text
        self._until = time.monotonic() + timeout / 1000 if timeout > 0 else None
        self._end_reading(refit=False)
        if text and self._text_width(text) > self.message_room():
            self._step_aside(timeout if timeout > 0 else READ_MS)
        self._show_fitted(timeout)

    def clearMessage(self) -> None:  # Qt override
        self._full = ""
        self._end_reading(refit=False)
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
        """The px the message has beside the permanent widgets (as if they were shown)."""
        taken = sum(
            widget.width() if widget.isVisible() else widget.sizeHint().width()
            for widget in self._permanent
            if not widget.isHidden() or widget in self._aside
        )
        return max(0, self.width() - taken - MESSAGE_MARGINS)

    def _room_now(self) -> int:
        """The px the message has now: the whole bar while the permanent widgets step aside."""
        return max(0, self.width() - MESSAGE_MARGINS) if self._aside else self.message_room()

    def _text_width(self, text: str) -> int:
        return self.fontMetrics().horizontalAdvance(text)

    def _step_aside(self, ms: int) -> None:
        shown = [widget for widget in self._permanent if not widget.isHidden()]
        if not shown or self._text_width(self._full) > max(0, self.width() - MESSAGE_MARGINS):
            return  # too long even for the whole bar: cut as before, the widgets stay
        self._kept_minimum_height = self.minimumHeight()
        self.setMinimumHeight(self.height())  # the bar keeps its height: nothing above moves
        self._aside = shown
        for widget in shown:
            widget.hide()
        self._read_timer.start(ms)

    def _end_reading(self, refit: bool = True) -> None:
        self._read_timer.stop()
        if not self._aside:
            return
        aside, self._aside = self._aside, []
        for widget in aside:
            widget.show()
        if self._kept_minimum_height is not None:
            self.setMinimumHeight(self._kept_minimum_height)
            self._kept_minimum_height = None
        if not refit or not self._full:
            return
        if self._until is None:  # a message without a timeout stays, cut to fit beside them
            self._show_fitted(0)
            return
        left = round((self._until - time.monotonic()) * 1000)
        if left > 0:
            self._show_fitted(left)

    def _show_fitted(self, timeout: int) -> None:
        text = self._full
        fitted = self.fontMetrics().elidedText(text, Qt.TextElideMode.ElideRight, self._room_now())
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
        self._end_reading(refit=False)
        self._full = text
        self._until = None
        self.setToolTip("")
