"""A form's label that keeps room for its last letter's ink.

A label is laid out at its text's advance width, and a form gives it exactly that. The glyphs
the rasteriser draws can reach a pixel or two past the advance (hinting and rounding at the
theme's sizes), and a label paints only inside its own box, so a form label ending in "e" or
"t" lost the right edge of that letter: "Temperature" in the tiny model's dialog in every theme,
"Learning rate" on the Update page at 1920×1080. ``FormLabel`` reserves a sliver on its right,
in proportion to its font, so the text reads whole at every zoom and theme.
"""

from __future__ import annotations

from math import ceil

from PySide6.QtCore import QEvent
from PySide6.QtWidgets import QLabel, QWidget

#: The room kept right of the text, as a share of the font's average character width: more than
#: the one or two pixels a glyph overhangs at the app's text sizes, at 75 % to 300 % zoom.
INK_ROOM = 0.25


class FormLabel(QLabel):
    """A label beside a form field; its mnemonic (Alt + the underlined letter) focuses the field."""

    def __init__(self, text: str, buddy: QWidget | None = None) -> None:
        super().__init__(text)
        if buddy is not None:
            self.setBuddy(buddy)
        self._keep_ink_room()

    def changeEvent(self, event: QEvent) -> None:  # Qt override
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:
            self._keep_ink_room()

    def _keep_ink_room(self) -> None:
        room = max(1, ceil(self.fontMetrics().averageCharWidth() * INK_ROOM))
        if self.contentsMargins().right() != room:
            self.setContentsMargins(0, 0, room, 0)
