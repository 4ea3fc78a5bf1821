"""Drawings kept for reuse: a byte-bounded cache of pixmaps and a transparent one to draw into.

Views blit what a click leaves alone (a card's box, an advantage line, a token chip) instead of
drawing it again; the cache's bound is in bytes, since sizes change with G, zoom and workspace.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPixmap

__all__ = ["PixmapCache", "filled_pixmap", "transparent_pixmap"]


class PixmapCache:
    """Pixmaps in least-recently-used order, within a byte budget.

    Sizes change with G, zoom and the workspace, so new keys keep coming; a byte bound (not a
    count) keeps memory flat over a long session.
    """

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.pixmaps: dict[tuple, QPixmap] = {}
        self.bytes = 0

    def get(self, key: tuple, render: Callable[[], QPixmap]) -> QPixmap:
        """The pixmap for ``key``, made by ``render`` the first time."""
        pixmap = self.pixmaps.pop(key, None)
        if pixmap is None:
            pixmap = render()
            size = pixmap.width() * pixmap.height() * 4
            while self.pixmaps and self.bytes + size > self.max_bytes:
                oldest = self.pixmaps.pop(next(iter(self.pixmaps)))
                self.bytes -= oldest.width() * oldest.height() * 4
            self.bytes += size
        self.pixmaps[key] = pixmap  # most recently used now
        return pixmap

    def clear(self) -> None:
        self.pixmaps.clear()
        self.bytes = 0


def filled_pixmap(
    width: float, height: float, ratio: float, fill: QColor | Qt.GlobalColor
) -> QPixmap:
    """A pixmap of ``width`` × ``height`` device-independent pixels at ``ratio``, all ``fill``."""
    pixmap = QPixmap(max(1, math.ceil(width * ratio)), max(1, math.ceil(height * ratio)))
    pixmap.setDevicePixelRatio(ratio)
    pixmap.fill(fill)
    return pixmap


def transparent_pixmap(width: float, height: float, ratio: float) -> QPixmap:
    return filled_pixmap(width, height, ratio, Qt.GlobalColor.transparent)
