"""Two layout pieces the window's pages share: a column that scrolls only when it must, and a
hook that runs once a widget has its new size."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, QSize, Qt, QTimer
from PySide6.QtWidgets import QFrame, QScrollArea, QWidget

COLUMN_MIN_HEIGHT = 120  # a column's own minimum: below its content's, it scrolls


class ColumnScroll(QScrollArea):
    """A column that scrolls vertically, never sideways: as wide as its content needs, and
    scrolling (rather than squeezing) when the screen is too short for it."""

    def __init__(self, content: QWidget, object_name: str) -> None:
        super().__init__(objectName=object_name)
        self.setWidget(content)
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)

    def minimumSizeHint(self) -> QSize:  # Qt override
        content = self.widget().minimumSizeHint().expandedTo(self.widget().minimumSize())
        bar = self.verticalScrollBar().sizeHint().width()
        return QSize(content.width() + bar, min(content.height(), COLUMN_MIN_HEIGHT))


class AfterResize(QObject):
    """Calls ``react`` once the watched widget has its new size (Qt has no resized signal)."""

    def __init__(self, watched: QWidget, react: Callable[[], None]) -> None:
        super().__init__(watched)
        self._react = react
        watched.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Resize:
            # After the widget has laid out its new size; never after it is gone.
            QTimer.singleShot(0, self, self._react)
        return False
