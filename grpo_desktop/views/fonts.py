"""Font sizes relative to the application font, so a zoom scales every view.

The application font already carries the zoom and the theme's ``chrome_scale`` (stage controls set
it); a view multiplies by ``theme.type_scale`` once, never by the chrome scale again.

Sizes derive from ``QApplication.font()``, never from a widget's own font: a view that sets its own
font from its own font would grow a little more on every theme change.
"""

from __future__ import annotations

from PySide6.QtGui import QFont, QGuiApplication


def scaled_font(factor: float, bold: bool = False) -> QFont:
    """The application font at ``factor`` times its size (never below 6 pt)."""
    font = QFont(QGuiApplication.font())
    font.setPointSizeF(max(6.0, font.pointSizeF() * factor))
    font.setBold(bold)
    return font
