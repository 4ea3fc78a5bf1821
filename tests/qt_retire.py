"""Windows a test made are retired once it is torn down, so they stop costing later tests.

pytest-qt closes every widget a test registered and calls ``deleteLater``, but a deferred delete
runs only inside an event loop, which most tests never enter again: the windows stay alive, and
each zoom or theme (``QApplication.setFont`` / ``setPalette``, also when a test's look is put
back) re-laid out and restyled every one of them — about 8 ms per window per change.

Deleting them instead crashed a CI worker (once in five runs, in a later ``processEvents``), and
giving them a font of their own runs their views' change handlers on half-closed charts. So a
closed window is kept as it is and made deaf: Qt tells only windows of an application-wide font
or palette change (each passes it down to its children), and a filter on the window and the
windows it owns drops those two events. Its timers stop. A window a test left shown or parented
is left alone.
"""

from __future__ import annotations

import shiboken6
from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QWidget

APPLICATION_LOOK_CHANGES = (
    QEvent.Type.ApplicationFontChange,
    QEvent.Type.ApplicationPaletteChange,
)


class _DeafToTheApplicationsLook(QObject):
    """Drops the application's font and palette changes on the way to a retired window."""

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # Qt override
        return event.type() in APPLICATION_LOOK_CHANGES


_deaf = _DeafToTheApplicationsLook()


def retire(widget: QWidget) -> bool:
    """Makes a closed window ignore later application-wide font and palette changes and stops
    its timers; says whether it did."""
    if not shiboken6.isValid(widget) or widget.parent() is not None or widget.isVisible():
        return False
    owned_windows = [child for child in widget.findChildren(QWidget) if child.isWindow()]
    for window in (widget, *owned_windows):
        window.installEventFilter(_deaf)
    for timer in widget.findChildren(QTimer):
        timer.stop()
    return True
