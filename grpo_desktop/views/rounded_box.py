"""A panel's rounded box (the surface, a 1 px border, 8 px corners), drawn once and blitted.

A style sheet's ``border-radius`` fills and strokes a rounded path on every repaint of the panel,
and a click repaints the part of a panel behind every number it changes. A panel that owns a
``RoundedBox`` keeps a 1 px frame (so its text stays where the style sheet's border put it) and
paints the box from a pixmap kept per size, pixel ratio and colours.
"""

from __future__ import annotations

from PySide6.QtCore import QRectF
from PySide6.QtGui import QColor, QPainter, QPen, QPixmap
from PySide6.QtWidgets import QFrame

from grpo_desktop.core.theme import LIGHT
from grpo_desktop.views.pixmap_cache import transparent_pixmap

CORNER_RADIUS = 8.0


class RoundedBox:
    """The box of one ``QFrame``: call ``paint`` from its ``paintEvent``."""

    def __init__(self, frame: QFrame) -> None:
        self._frame = frame
        self._colours = (LIGHT.surface, LIGHT.border)
        self._kept: tuple[tuple, QPixmap] | None = None
        frame.setFrameShape(QFrame.Shape.Box)  # a 1 px frame: the layout's insets, not drawn
        frame.setLineWidth(1)

    def set_colours(self, fill: str, border: str) -> None:
        self._colours = (fill, border)
        self._frame.update()

    def colours(self) -> tuple[str, str]:
        return self._colours

    def paint(self) -> None:
        frame = self._frame
        ratio = frame.devicePixelRatioF()
        key = (frame.width(), frame.height(), ratio, self._colours)
        if self._kept is None or self._kept[0] != key:
            self._kept = (key, self._draw(ratio))
        painter = QPainter(frame)
        painter.drawPixmap(0, 0, self._kept[1])
        painter.end()

    def pixmap(self) -> QPixmap | None:
        """The box drawn last (None before the first paint)."""
        return None if self._kept is None else self._kept[1]

    def _draw(self, ratio: float) -> QPixmap:
        frame = self._frame
        fill, border = self._colours
        pixmap = transparent_pixmap(frame.width(), frame.height(), ratio)
        painter = QPainter(pixmap)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(QPen(QColor(border), 1.0))
        painter.setBrush(QColor(fill))
        box = QRectF(frame.rect()).adjusted(0.5, 0.5, -0.5, -0.5)
        painter.drawRoundedRect(box, CORNER_RADIUS, CORNER_RADIUS)
        painter.end()
        return pixmap
