"""Windows a test made are retired once it is torn down, so they stop costing later tests.

pytest-qt closes every widget a test registered and calls ``deleteLater``, but a deferred delete
runs only inside an event loop, which most tests never enter again: the windows stay alive, and
each zoom or theme (``QApplication.setFont`` / ``setPalette``, also when a test's look is put
back) re-laid out and restyled every one of them — about 8 ms per window per change.

Deleting them instead crashed a CI worker (once in five runs, in a later ``processEvents``), so
a closed window is kept but made deaf to the application's look: it and the windows it owns get
a font and palette of their own with every attribute set, which Qt resolves to themselves when
the application's change, and its timers stop. Nothing is deleted; a window a test left shown
or parented is left alone.
"""

from __future__ import annotations

import shiboken6
from PySide6.QtCore import QTimer
from PySide6.QtGui import QFont, QPalette
from PySide6.QtWidgets import QWidget

# Every bit of a resolve mask (QFont's is 32 bits, QPalette's 64): each attribute counts as set,
# so nothing is inherited from the application any more.
EVERY_FONT_ATTRIBUTE = (1 << 32) - 1
EVERY_PALETTE_ROLE = (1 << 64) - 1


def retire(widget: QWidget) -> bool:
    """Makes a closed window ignore later application-wide font and palette changes and stops
    its timers; says whether it did."""
    if not shiboken6.isValid(widget) or widget.parent() is not None or widget.isVisible():
        return False
    owned_windows = [child for child in widget.findChildren(QWidget) if child.isWindow()]
    for window in (widget, *owned_windows):
        font = QFont(window.font())
        font.setResolveMask(EVERY_FONT_ATTRIBUTE)
        window.setFont(font)
        palette = QPalette(window.palette())
        palette.setResolveMask(EVERY_PALETTE_ROLE)
        window.setPalette(palette)
    for timer in widget.findChildren(QTimer):
        timer.stop()
    return True
