"""A wrapped label whose new text re-lays out nothing unless it needs another height.

A QLabel's ``setText`` asks its parent's layout to recompute, and every layout that recomputes
asks its parent's in turn, up to the window: the Training page's status sentence, set in every
frame of a playing run, laid the whole window out again each time, and so did a chosen step's
captions on every click. A widget without a layout only hears of its child's request (a posted
event, nothing recomputed). So the layout holds a :class:`LabelSlot` in the label's place, and
the label, the slot's only child, fills the slot: it draws exactly where it drew before. The
slot reports the label's size hints and height for its width, and asks its own layout to
recompute only when a new text needs another height at the width it has (a line more or less),
or when the label's font or style changed. A text shown for a moment (the Update step's status
while its inner steps run) can keep the slot's height when it needs fewer lines
(``keep_height``): the label draws it at the top of the same box, and the text after it, as
tall as before, moves nothing either.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QSize
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QLabel, QWidget

__all__ = ["LabelSlot"]

_RESTYLED = (QEvent.Type.FontChange, QEvent.Type.StyleChange, QEvent.Type.ContentsRectChange)


class LabelSlot(QWidget):
    """The place of ``label`` (word-wrapped, always shown) in a layout; set its text with
    :meth:`set_text`."""

    def __init__(self, label: QLabel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName(f"{label.objectName()}Slot")
        self.label = label
        label.setParent(self)
        label.move(0, 0)
        self.setSizePolicy(label.sizePolicy())
        self._fitted = -1  # the label's height for the slot's width, as last laid out
        # The height the last text needs at the slot's width: the layout may have asked for it
        # (and keeps the answer) before it lays the slot out, so a text after it that needs
        # another height must tell the layout, even one as tall as the slot still is.
        self._promised = -1
        self._kept = 0  # a height the slot keeps although its text needs less (keep_height)
        label.installEventFilter(self)

    def set_text(self, text: str, keep_height: bool = False) -> None:
        """Show ``text``; the layout hears of it only if it needs another height. With
        ``keep_height`` a text that needs fewer lines keeps the slot as tall as it is (the
        label's text at its top) until a text is set without it."""
        label = self.label
        kept = max(self._fitted, self._kept) if keep_height else 0
        if text == label.text() and kept == self._kept:
            return
        was_kept, self._kept = self._kept, kept
        label.setText(text)
        needed = label.heightForWidth(self.width())  # laid out once: it is most of the cost
        height = max(needed, kept)
        if height != self._fitted or height != self._promised:
            self.updateGeometry()
        self._promised = height
        if kept or was_kept:
            self._place_label(needed)

    def _place_label(self, needed: int | None = None) -> None:
        """The label fills the slot; a text shorter than a kept height fills its own height
        (``needed``, its height for the slot's width) at the slot's top (it reads where the
        first line of the taller text did)."""
        height = self.height()
        if self._kept:
            if needed is None:
                needed = self.label.heightForWidth(self.width())
            height = min(height, needed)
        if self.label.size() != QSize(self.width(), height):
            self.label.resize(self.width(), height)

    def _height_for(self, label: QLabel, width: int) -> int:
        return max(label.heightForWidth(width), self._kept)

    # --- the label's hints, as the layout saw them before ----------------------------------
    # When Python's garbage collector tears down a page it may clear the slot's attributes
    # while Qt still lays the slot out or sends it its label's events (seen in the test suite
    # when an old window's page was collected): the slot then answers as a plain widget.

    def sizeHint(self) -> QSize:  # Qt override
        label = self.__dict__.get("label")
        if label is None:
            return super().sizeHint()
        hint = label.sizeHint()
        return QSize(hint.width(), max(hint.height(), self._kept))

    def minimumSizeHint(self) -> QSize:  # Qt override
        label = self.__dict__.get("label")
        return super().minimumSizeHint() if label is None else label.minimumSizeHint()

    def hasHeightForWidth(self) -> bool:  # Qt override
        label = self.__dict__.get("label")
        return super().hasHeightForWidth() if label is None else label.hasHeightForWidth()

    def heightForWidth(self, width: int) -> int:  # Qt override
        label = self.__dict__.get("label")
        return super().heightForWidth(width) if label is None else self._height_for(label, width)

    def resizeEvent(self, event: QResizeEvent) -> None:  # Qt override
        super().resizeEvent(event)
        label = self.__dict__.get("label")
        if label is not None:
            self._place_label()
            self._fitted = self._promised = self._height_for(label, self.width())

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # Qt override
        if event.type() in _RESTYLED and watched is self.__dict__.get("label"):
            self.updateGeometry()  # another font or style: other hints, whatever the text
        return False
