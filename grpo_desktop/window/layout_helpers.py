"""Layout pieces the window's pages share: a column that scrolls only when it must, a hook that
runs once a widget has its new size, and a holder for views whose wrapped titles would otherwise
make their wished-for height their minimum."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, QSize, Qt, QTimer
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QFrame, QScrollArea, QVBoxLayout, QWidget

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


class FittedColumn(QWidget):
    """A scrolled column's content: as tall as its scroll area, or its minimum when that is
    taller. Without this a view that wraps its text reports a height for its width, and the
    scroll area grows the column to the height the view would like (1,000 px of chart)."""

    def hasHeightForWidth(self) -> bool:  # Qt override
        return False

    def sizeHint(self) -> QSize:  # Qt override
        return self.minimumSizeHint()


class FillHolder(QWidget):
    """Holds a view that fills whatever height is left (the charts, the frontier).

    Those views wrap their titles, so they report a height for their width: the height they
    would like, which a vertical layout then treats as their minimum, squeezing every other
    part (the controls' fields, below their minimum) when the screen is shorter than all the
    wishes together. Held in here they ask for their real minimum and take the rest.
    """

    def __init__(self, view: QWidget, name: str) -> None:
        super().__init__(objectName=name)
        self.view = view
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(view)

    def hasHeightForWidth(self) -> bool:  # Qt override
        return False

    def minimumSizeHint(self) -> QSize:  # Qt override
        """The view's wrapped titles at the width it has, over its plots' minimum heights."""
        width = self.width() if self.width() > 0 else self.view.sizeHint().width()
        least = self.view.minimumSizeHint().expandedTo(self.view.minimumSize())
        return QSize(least.width(), max(least.height(), column_height(self.view, width)))

    def resizeEvent(self, event: QResizeEvent) -> None:  # Qt override
        super().resizeEvent(event)
        if event.size().width() != event.oldSize().width():
            self.updateGeometry()  # its titles wrap differently: a new minimum height


def column_height(view: QWidget, width: int) -> int:
    """The least height of ``view``'s vertical layout at ``width``: each wrapped title or caption
    at its wrapped height, everything else (plots, the legend) at its minimum."""
    layout = view.layout()
    margins = layout.contentsMargins()
    inner = width - margins.left() - margins.right()
    heights = []
    for index in range(layout.count()):
        item = layout.itemAt(index)
        widget = item.widget()
        if widget is not None and widget.isHidden():
            continue
        if item.isEmpty() and widget is None:
            continue
        if item.hasHeightForWidth():
            heights.append(item.heightForWidth(inner))
        else:
            heights.append(item.minimumSize().height())
    spacing = layout.spacing() * max(0, len(heights) - 1)
    return sum(heights) + spacing + margins.top() + margins.bottom()
