"""Font sizes relative to the widget's own font, so an app-wide zoom scales every view at once."""

from __future__ import annotations

from PySide6.QtGui import QFont
from PySide6.QtWidgets import QWidget


def scaled_font(widget: QWidget, factor: float, bold: bool = False) -> QFont:
    """The widget's font, ``factor`` times its size (never below 6 pt)."""
    font = QFont(widget.font())
    font.setPointSizeF(max(6.0, font.pointSizeF() * factor))
    font.setBold(bold)
    return font
