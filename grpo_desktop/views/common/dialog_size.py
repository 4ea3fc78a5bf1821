"""A dialog's opening size in its own text's units, so it opens as roomy at 200 % zoom or on a
4K screen as at 100 % on a laptop.

A size in pixels (720 × 760, say) was right at 100 % and squeezed every row at 200 %: the text
grew, the dialog did not, and Qt gave the rows less than they need. Measured in the height of the
dialog's font instead, and kept within its screen, the dialog grows with its text.
"""

from __future__ import annotations

from PySide6.QtCore import QSize
from PySide6.QtGui import QFontMetricsF
from PySide6.QtWidgets import QWidget

#: The share of the screen's free area a dialog may take when its text asks for more.
SCREEN_SHARE = 0.95


def text_sized(dialog: QWidget, widths: float, heights: float) -> QSize:
    """``widths`` × ``heights`` line heights of the dialog's font, within :data:`SCREEN_SHARE` of
    its screen's free area, never below the dialog's minimum size hint."""
    line = QFontMetricsF(dialog.font()).height()
    size = QSize(round(widths * line), round(heights * line))
    screen = dialog.screen()
    if screen is not None:
        room = screen.availableGeometry().size()
        size = size.boundedTo(
            QSize(int(room.width() * SCREEN_SHARE), int(room.height() * SCREEN_SHARE))
        )
    return size.expandedTo(dialog.minimumSizeHint())
