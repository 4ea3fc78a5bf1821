"""Chrome that draws its own look once and blits it afterwards: scroll bars, tool bar, tab frame.

The Fusion style paints these gradients afresh on every paint, and a repaint of the window
repaints them although nothing about them changed: the tool bar and the tab frame alone took
about 1 ms of every window repaint at 1280×800, almost half of it, a scroll bar ~1 ms. Each
widget here draws its look the way Qt's own ``paintEvent`` does (the same style calls with the
same option) into a pixmap keyed by everything in that option, and draws that pixmap from then on.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtGui import QPainter, QPaintEvent, QPixmap
from PySide6.QtWidgets import (
    QApplication,
    QScrollBar,
    QStyle,
    QStyleOption,
    QStyleOptionSlider,
    QStyleOptionTabWidgetFrame,
    QStyleOptionToolBar,
    QTabWidget,
    QToolBar,
    QToolButton,
    QWidget,
)

_LOOKS = 2  # looks kept per widget: the window active and inactive (each is a widget-sized pixmap)
# A scroll bar keeps four: a click moves focus between cards, which flips its option's state and
# back, so two remembered looks would miss every other click.
_SCROLL_BAR_LOOKS = 4


def _option_key(option: QStyleOption) -> tuple:
    """What every style option holds that a look depends on."""
    return (
        option.rect.getRect(),
        option.state.value,
        option.direction,
        option.palette.cacheKey(),
    )


class _LookCache:
    """One widget's looks, each drawn once by ``draw`` into a pixmap of the widget's size."""

    def __init__(self, widget: QWidget, looks: int = _LOOKS) -> None:
        self._widget = widget
        self._most = looks
        self._looks: dict[tuple, QPixmap] = {}

    def paint(self, key: tuple, draw: Callable[[QPainter], None]) -> None:
        widget = self._widget
        ratio = widget.devicePixelRatioF()
        key = (widget.width(), widget.height(), ratio, id(widget.style()), *key)
        pixmap = self._looks.get(key)
        if pixmap is None:
            if len(self._looks) >= self._most:
                self._looks.clear()
            pixmap = QPixmap(
                max(1, math.ceil(widget.width() * ratio)),
                max(1, math.ceil(widget.height() * ratio)),
            )
            pixmap.setDevicePixelRatio(ratio)
            pixmap.fill(Qt.GlobalColor.transparent)
            painter = QPainter(pixmap)
            draw(painter)
            painter.end()
            self._looks[key] = pixmap
        painter = QPainter(widget)
        painter.drawPixmap(0, 0, pixmap)
        painter.end()


class CachedScrollBar(QScrollBar):
    """A ``QScrollBar`` drawn once per look. While the mouse is over it or a button is down
    (hover and press looks the option cannot see from here) it paints as a plain QScrollBar."""

    def __init__(self, orientation: Qt.Orientation, parent: QWidget | None = None) -> None:
        super().__init__(orientation, parent)
        self._cache = _LookCache(self, _SCROLL_BAR_LOOKS)

    def paintEvent(self, event: QPaintEvent) -> None:  # Qt override
        if self.underMouse() or QApplication.mouseButtons() != Qt.MouseButton.NoButton:
            super().paintEvent(event)
            return
        option = QStyleOptionSlider()
        self.initStyleOption(option)
        option.subControls = QStyle.SubControl.SC_All
        option.activeSubControls = QStyle.SubControl.SC_None
        style = self.style()

        def draw(painter: QPainter) -> None:
            style.drawComplexControl(QStyle.ComplexControl.CC_ScrollBar, option, painter, self)

        key = (
            *_option_key(option),
            option.sliderPosition,
            option.sliderValue,
            option.minimum,
            option.maximum,
            option.pageStep,
            option.singleStep,
            option.orientation,
            option.upsideDown,
        )
        self._cache.paint(key, draw)


class CachedToolBar(QToolBar):
    """A ``QToolBar`` whose panel (the style's gradient and handle) is drawn once per look.

    An expanded tool bar (its » menu open) or a floating one paints as a plain ``QToolBar``:
    Qt fills and frames those first.
    """

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        self._cache = _LookCache(self)

    def paintEvent(self, event: QPaintEvent) -> None:  # Qt override
        extension = self.findChild(QToolButton, "qt_toolbar_ext_button")
        if self.isWindow() or (extension is not None and extension.isChecked()):
            super().paintEvent(event)
            return
        option = QStyleOptionToolBar()
        self.initStyleOption(option)
        style = self.style()

        def draw(painter: QPainter) -> None:  # QToolBar::paintEvent, not expanded
            style.drawControl(QStyle.ControlElement.CE_ToolBar, option, painter, self)
            handle = QStyleOptionToolBar(option)
            handle.rect = style.subElementRect(QStyle.SubElement.SE_ToolBarHandle, option, self)
            if handle.rect.isValid():
                style.drawPrimitive(
                    QStyle.PrimitiveElement.PE_IndicatorToolBarHandle, handle, painter, self
                )

        key = (
            *_option_key(option),
            option.toolBarArea,
            option.positionOfLine,
            option.positionWithinLine,
            option.features,
            option.lineWidth,
            option.midLineWidth,
        )
        self._cache.paint(key, draw)


class CachedTabWidget(QTabWidget):
    """A ``QTabWidget`` whose frame (around the page, open at the selected tab) is drawn once
    per look. In document mode, which draws no frame but a bar base, it paints as Qt's own."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        self._cache = _LookCache(self)

    def paintEvent(self, event: QPaintEvent) -> None:  # Qt override
        if self.documentMode():
            super().paintEvent(event)
            return
        option = QStyleOptionTabWidgetFrame()
        self.initStyleOption(option)
        style = self.style()
        option.rect = style.subElementRect(QStyle.SubElement.SE_TabWidgetTabPane, option, self)

        def draw(painter: QPainter) -> None:  # QTabWidget::paintEvent
            style.drawPrimitive(QStyle.PrimitiveElement.PE_FrameTabWidget, option, painter, self)

        key = (
            *_option_key(option),
            option.shape,
            option.lineWidth,
            option.midLineWidth,
            option.tabBarSize.toTuple(),
            option.rightCornerWidgetSize.toTuple(),
            option.leftCornerWidgetSize.toTuple(),
            option.tabBarRect.getRect(),
            option.selectedTabRect.getRect(),
        )
        self._cache.paint(key, draw)
