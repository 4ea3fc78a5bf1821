"""Font sizes relative to the application font, so a zoom and a large screen scale every view.

The application font already carries the zoom, the theme's ``chrome_scale`` and the screen scale
(stage controls set all three: a window larger than 1280×800 shows every text larger, the same
rule for every view); a view multiplies by ``theme.type_scale`` once, never by the chrome or
screen scale again.

Sizes derive from ``QApplication.font()``, never from a widget's own font: a view that sets its own
font from its own font would grow a little more on every theme change.
"""

from __future__ import annotations

from PySide6.QtGui import QFont, QGuiApplication

#: The application property where the stage controls keep the screen scale they applied.
SCREEN_SCALE_PROPERTY = "grpoScreenScale"


def scaled_font(factor: float, bold: bool = False) -> QFont:
    """The application font at ``factor`` times its size (never below 6 pt)."""
    font = QFont(QGuiApplication.font())
    font.setPointSizeF(max(6.0, font.pointSizeF() * factor))
    font.setBold(bold)
    return font


def screen_scale() -> float:
    """How much larger than at 1280×800 the application font is drawn for the window's size
    (1 without a window): already in every :func:`scaled_font`. A view that fits its own text
    to its box may use it to go back down to the 1280×800 size, never below."""
    app = QGuiApplication.instance()
    value = None if app is None else app.property(SCREEN_SCALE_PROPERTY)
    try:
        scale = float(value) if value is not None else 1.0
    except (TypeError, ValueError):
        return 1.0
    return scale if scale >= 1.0 else 1.0
