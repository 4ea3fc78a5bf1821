"""A theme as a Qt palette: the colours of the widgets Qt draws itself (fields, buttons, menus).

One mapping for the whole app (``QApplication.setPalette``) and for a dialog that must keep its
own window's theme whatever the application's palette is (the problem editor).
"""

from __future__ import annotations

from PySide6.QtGui import QColor, QPalette, QPen

from grpo_desktop.core.common.contrast import best_text_on
from grpo_desktop.core.common.theme import Theme

__all__ = ["cosmetic_pen", "palette_for"]


def palette_for(theme: Theme) -> QPalette:
    """A Qt palette with the theme's colours; disabled text is the theme's muted colour."""
    palette = QPalette()
    roles = {
        QPalette.ColorRole.Window: theme.window,
        QPalette.ColorRole.WindowText: theme.text,
        QPalette.ColorRole.Base: theme.surface,
        QPalette.ColorRole.AlternateBase: theme.neutral_fill,
        QPalette.ColorRole.Text: theme.text,
        QPalette.ColorRole.Button: theme.surface,
        QPalette.ColorRole.ButtonText: theme.text,
        QPalette.ColorRole.ToolTipBase: theme.surface,
        QPalette.ColorRole.ToolTipText: theme.text,
        # The dark theme's selection is a light sky blue: black text on it, not white.
        QPalette.ColorRole.Highlight: theme.focus,
        QPalette.ColorRole.HighlightedText: best_text_on(theme.focus),
        QPalette.ColorRole.PlaceholderText: theme.muted,
        QPalette.ColorRole.Link: theme.focus,
        QPalette.ColorRole.Mid: theme.border,
        QPalette.ColorRole.Dark: theme.border,
    }
    for role, colour in roles.items():
        palette.setColor(role, QColor(colour))
    for role in (
        QPalette.ColorRole.Text,
        QPalette.ColorRole.ButtonText,
        QPalette.ColorRole.WindowText,
    ):
        palette.setColor(QPalette.ColorGroup.Disabled, role, QColor(theme.muted))
    return palette


def cosmetic_pen(colour: str, width: float) -> QPen:
    """A pen ``width`` px wide on screen whatever the plot's scale (every chart's lines)."""
    pen = QPen(QColor(colour))
    pen.setWidthF(width)
    pen.setCosmetic(True)
    return pen
