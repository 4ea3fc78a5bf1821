"""Drawings kept and blitted instead of drawn again: everything the views keep of what they paint.

A click leaves most of the window as it was, yet a repaint draws it all afresh. What is kept, and
where it lives:

* ``DRAWINGS``: drawings shared between widgets (a card's rounded box, an advantage line, a
  token chip), least recently used first out, within one byte budget, ``MEMORY_BUDGET``. Sizes
  change with G, zoom and workspace, so new keys keep coming; a bound in bytes (not a count)
  keeps memory flat over a long session. Each key starts with the kind of drawing it is.
* per widget, a few widget-sized looks that live and die with it: ``cache_paints`` (what Qt
  drew of a label, tool button, tab bar or menu bar), ``CachedScrollBar``, ``CachedToolBar`` and
  ``CachedTabWidget`` (the style's chrome), ``RoundedBox`` (a panel's box).

One switch turns every keeping off, for debugging a stale look: start the app with
``GRPO_DESKTOP_RENDER_CACHE=0`` (or set ``render_cache.CACHING = False``). Everything is then
drawn afresh on each paint, the same way, so the pixels stay the same and only the time grows.
The trace cards' and token rows' painters (``trace_card_painter.py``, ``token_painter.py``) and
the chart's remembered axes (``pyqtgraph_internals.py``) follow the same switch.
"""

from __future__ import annotations

import math
import os
from collections import OrderedDict
from collections.abc import Callable, Hashable

from PySide6.QtCore import QEvent, QObject, QPoint, QRectF, Qt, QTimer
from PySide6.QtGui import QColor, QPainter, QPaintEvent, QPalette, QPen, QPixmap, QRegion
from PySide6.QtWidgets import (
    QApplication,
    QFrame,
    QLabel,
    QMenuBar,
    QScrollBar,
    QStyle,
    QStyleOption,
    QStyleOptionSlider,
    QStyleOptionTabWidgetFrame,
    QStyleOptionToolBar,
    QTabBar,
    QTabWidget,
    QToolBar,
    QToolButton,
    QWidget,
)

from grpo_desktop.core.common.theme import LIGHT

__all__ = [
    "CACHING",
    "CORNER_RADIUS",
    "DRAWINGS",
    "MEMORY_BUDGET",
    "CachedScrollBar",
    "CachedTabWidget",
    "CachedToolBar",
    "DrawingCache",
    "PaintCache",
    "RoundedBox",
    "cache_paints",
    "caching",
    "filled_pixmap",
    "fit_budget",
    "transparent_pixmap",
]

#: The debugging switch: False draws everything afresh on every paint (see the module's text).
CACHING = os.environ.get("GRPO_DESKTOP_RENDER_CACHE", "1").strip().lower() not in (
    "0",
    "off",
    "no",
    "false",
)

#: Bytes of shared drawings kept: card boxes (4 MB), advantage lines (0.5 MB) and token chips
#: (2 MB), the three budgets this one replaced.
MEMORY_BUDGET = 13 * 2**19


#: The budget is for a 1280×800 window at a pixel ratio of 1 (about 1.7 window-fulls of
#: pixels). Drawings grow with the pixels: at 200 % zoom on a 2560×1600 screen every card box,
#: text run and typeset line has four times the area, and one repaint of the window would cycle
#: through more drawings than the budget holds, each pushing out the next one wanted (a click
#: there kept none of its text). ``fit_budget`` grows the budget with the window's pixels, up to
#: this many times.
MOST_BUDGET_SCALE = 4.0
_BUDGET_PIXELS = 1280 * 800


def caching() -> bool:
    """Whether drawings are kept (``CACHING``, read at each call so a test can flip it)."""
    return CACHING


# -- shared drawings, in one byte budget ----------------------------------------------------------


class DrawingCache:
    """Pixmaps in least-recently-used order, within a byte budget."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.pixmaps: dict[tuple, QPixmap] = {}
        self.bytes = 0

    def get(self, key: tuple, render: Callable[[], QPixmap]) -> QPixmap:
        """The pixmap for ``key``, made by ``render`` the first time (every time, caching off)."""
        if not CACHING:
            return render()
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

    def set_budget(self, max_bytes: int) -> None:
        """Keep at most ``max_bytes`` from now on (the oldest drawings go first)."""
        self.max_bytes = max_bytes
        while self.pixmaps and self.bytes > self.max_bytes:
            oldest = self.pixmaps.pop(next(iter(self.pixmaps)))
            self.bytes -= oldest.width() * oldest.height() * 4

    def kept(self, kind: str) -> int:
        """How many drawings of ``kind`` (the first item of their keys) are kept."""
        return sum(1 for key in self.pixmaps if key[0] == kind)

    def clear(self, kind: str | None = None) -> None:
        """Forget every drawing, or only those of ``kind``."""
        if kind is None:
            self.pixmaps.clear()
            self.bytes = 0
            return
        for key in [key for key in self.pixmaps if key[0] == kind]:
            gone = self.pixmaps.pop(key)
            self.bytes -= gone.width() * gone.height() * 4


#: The one store of drawings shared between widgets.
DRAWINGS = DrawingCache(MEMORY_BUDGET)


def fit_budget(widget: QWidget) -> None:
    """Size ``DRAWINGS``' budget to the pixels of ``widget``'s window (at least
    ``MEMORY_BUDGET``, at most ``MOST_BUDGET_SCALE`` times it); views call it on a resize."""
    window = widget.window()
    ratio = window.devicePixelRatioF()
    scale = window.width() * window.height() * ratio * ratio / _BUDGET_PIXELS
    budget = int(MEMORY_BUDGET * min(MOST_BUDGET_SCALE, max(1.0, scale)))
    if budget != DRAWINGS.max_bytes:
        DRAWINGS.set_budget(budget)


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


# -- what Qt drew of a plain widget, per look ------------------------------------------------------
#
# A repaint of the window repaints every label, tool button and tab bar on it and the menu bar,
# and Qt lays out and draws their text afresh each time: about a third of a full repaint of the
# lab at 1280×800, although a click changes none of them. ``cache_paints`` installs a filter on
# such a widget that answers its paint events with a pixmap of what the widget itself drew (by
# ``QWidget.render``, so the pixels are Qt's own).
#
# Reading a widget's whole state on every paint would cost about what Qt's own paint of a label
# does, so a look is split in two. What Qt announces with an event (a new size, font, palette,
# style, pixel ratio, enabled or focus state, window activation, a changed action) empties the
# cache. What it does not announce (a label's text, a button's checked state, the current tab) is
# the key of each kept pixmap, read on each paint by a call or two. While the pointer is inside
# the widget or a button is down on it (hover and press looks), or a menu of it is open, the
# widget paints as usual.

Look = Callable[[QWidget], Hashable]  # what a widget shows that no event announces; None: skip

_WIDGET_LOOKS = 4  # pixmaps per widget: e.g. a check button on and off, a tab bar's current tab

# Events after which no kept pixmap can be trusted: the look's context changed.
_CONTEXT_EVENTS = frozenset(
    {
        QEvent.Type.Resize,
        QEvent.Type.FontChange,
        QEvent.Type.PaletteChange,
        QEvent.Type.StyleChange,
        QEvent.Type.EnabledChange,
        QEvent.Type.ActivationChange,
        QEvent.Type.FocusIn,
        QEvent.Type.FocusOut,
        QEvent.Type.LayoutDirectionChange,
        QEvent.Type.LanguageChange,
        QEvent.Type.DevicePixelRatioChange,
        QEvent.Type.ScreenChangeInternal,
        QEvent.Type.Polish,
        QEvent.Type.ActionAdded,
        QEvent.Type.ActionChanged,
        QEvent.Type.ActionRemoved,
    }
)
_POINTER_IN = frozenset({QEvent.Type.Enter, QEvent.Type.MouseButtonPress, QEvent.Type.DragEnter})
_POINTER_OUT = frozenset({QEvent.Type.Leave, QEvent.Type.DragLeave, QEvent.Type.Hide})


def label_look(label: QWidget) -> Hashable:
    assert isinstance(label, QLabel)
    return label.text()


def selectable_label_look(label: QWidget) -> Hashable:
    """A label the mouse can select text in (a problem's prompt): its text, or None (paint as
    usual) while some of it is selected."""
    assert isinstance(label, QLabel)
    return None if label.hasSelectedText() else label.text()


def tool_button_look(button: QWidget) -> Hashable:
    assert isinstance(button, QToolButton)
    if button.isDown():
        return None
    return (button.text(), button.isChecked())


def tab_bar_look(bar: QWidget) -> Hashable:
    assert isinstance(bar, QTabBar)
    return (bar.currentIndex(), *(bar.tabText(index) for index in range(bar.count())))


def menu_bar_look(bar: QWidget) -> Hashable:
    assert isinstance(bar, QMenuBar)
    return None if bar.activeAction() is not None else 0  # a menu open or keyed to: as usual


class PaintCache(QObject):
    """The filter on one widget: its looks, each rendered once, then blitted.

    A look seen for the first time is painted by the widget as usual and rendered into its
    pixmap at the next idle moment (``QWidget.render`` cannot run inside a paint): a change
    costs no more than before, and the repaints after it blit.
    """

    def __init__(self, widget: QWidget, look: Look, looks: int = _WIDGET_LOOKS) -> None:
        super().__init__(widget)  # lives and dies with the widget
        self._widget = widget
        self._look = look
        self._most = looks
        self._pixmaps: dict[Hashable, QPixmap] = {}
        self._pointer_in = widget.underMouse()
        self._rendering = False
        self._fill_due = False
        widget.installEventFilter(self)

    def looks_kept(self) -> int:
        return len(self._pixmaps)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # Qt override
        kind = event.type()
        if kind != QEvent.Type.Paint:
            if kind in _CONTEXT_EVENTS:
                self._pixmaps.clear()
            elif kind in _POINTER_IN:
                self._pointer_in = True
            elif kind in _POINTER_OUT:
                self._pointer_in = False
            return False
        if self._rendering or self._pointer_in or not CACHING:
            return False
        key = self._look(self._widget)
        if key is None:
            return False
        pixmap = self._pixmaps.get(key)
        if pixmap is None:
            if not self._fill_due:
                self._fill_due = True
                QTimer.singleShot(0, self, self._fill)
            return False
        painter = QPainter(self._widget)
        painter.drawPixmap(0, 0, pixmap)
        painter.end()
        return True

    def _fill(self) -> None:
        """Render the look the widget shows now, if it is not kept yet."""
        self._fill_due = False
        widget = self._widget
        if self._pointer_in or not widget.isVisible():
            return
        key = self._look(widget)
        if key is None or key in self._pixmaps:
            return
        pixmap = transparent_pixmap(widget.width(), widget.height(), widget.devicePixelRatioF())
        self._rendering = True
        try:
            widget.render(pixmap, QPoint(), QRegion(), QWidget.RenderFlag(0))
        finally:
            self._rendering = False
        if len(self._pixmaps) >= self._most:
            self._pixmaps.clear()
        self._pixmaps[key] = pixmap


# A label the keyboard can select in, follow links in or edit shows a cursor or a focus look no
# key here sees; one the mouse can select text in shows its selection, so it paints as usual
# while it has one (``selectable_label_look``).
_KEYED = (
    Qt.TextInteractionFlag.TextSelectableByKeyboard
    | Qt.TextInteractionFlag.LinksAccessibleByKeyboard
    | Qt.TextInteractionFlag.TextEditable
)

_LOOK_OF: dict[type, Look] = {
    QLabel: label_look,
    QToolButton: tool_button_look,
    QTabBar: tab_bar_look,
    QMenuBar: menu_bar_look,
}


def cache_paints(*widgets: QWidget) -> None:
    """Give each plain Qt label, tool button, tab bar or menu bar a paint cache.

    Only Qt's own classes (a subclass may draw from state no key here sees), and no label the
    keyboard can select text, follow links or edit in (a cursor is a look no key here sees); a
    label the mouse can select text in paints as usual while it has a selection. A widget that
    already has a cache, or of another kind, is left as it is.
    """
    for widget in widgets:
        look = _LOOK_OF.get(type(widget))
        if look is None:
            continue
        if isinstance(widget, QLabel):
            flags = widget.textInteractionFlags()
            if flags & _KEYED:
                continue
            if flags & Qt.TextInteractionFlag.TextSelectableByMouse:
                look = selectable_label_look
        if not widget.findChild(PaintCache, options=Qt.FindChildOption.FindDirectChildrenOnly):
            PaintCache(widget, look)


# -- chrome that draws its own look once: scroll bars, tool bar, tab frame ------------------------
#
# The Fusion style paints these gradients afresh on every paint, and a repaint of the window
# repaints them although nothing about them changed: the tool bar and the tab frame alone took
# about 1 ms of every window repaint at 1280×800, almost half of it, a scroll bar ~1 ms. Each
# widget here draws its look the way Qt's own ``paintEvent`` does (the same style calls with the
# same option) into a pixmap keyed by everything in that option, and draws that pixmap from then on.

_CHROME_LOOKS = 2  # looks per widget: the window active and inactive (each a widget-sized pixmap)
# A scroll bar keeps twelve, the least recently drawn going first: a click moves focus between
# cards, which flips its option's state and back, and the worked math's bar meets a handful of
# ranges as clicks change its text's height (numbers shown as plain text until typeset, the ★
# note): with four, emptied when full, one click in seven drew the bar afresh (3 ms at 200 %).
_SCROLL_BAR_LOOKS = 12


def _stay_opaque(widget: QWidget) -> None:
    """Called as ``widget`` paints every pixel of its rectangle: it is opaque from the next paint
    on. A style sheet that gives it (or, by class, its kind) a background polishes it
    non-opaque; this paint then had what is beneath it painted first, which is harmless."""
    if not widget.testAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent):
        widget.setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent)


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

    def __init__(self, widget: QWidget, looks: int = _CHROME_LOOKS) -> None:
        self._widget = widget
        self._most = looks
        self._looks: OrderedDict[tuple, QPixmap] = OrderedDict()

    def paint(
        self, key: tuple, draw: Callable[[QPainter], None], backdrop: QColor | None = None
    ) -> None:
        """Blit the look ``key``, drawn by ``draw`` the first time; with a ``backdrop`` colour
        the look is kept blended over it, one opaque pixmap."""
        widget = self._widget
        ratio = widget.devicePixelRatioF()
        shade = None if backdrop is None else backdrop.rgba()
        key = (widget.width(), widget.height(), ratio, id(widget.style()), shade, *key)
        pixmap = self._looks.get(key) if CACHING else None
        if pixmap is not None:
            self._looks.move_to_end(key)
        else:
            if len(self._looks) >= self._most:
                self._looks.popitem(last=False)  # the look drawn least recently
            pixmap = transparent_pixmap(widget.width(), widget.height(), ratio)
            painter = QPainter(pixmap)
            draw(painter)
            painter.end()
            if backdrop is not None:
                # Blended here as it was on screen over the same colour: the same pixels.
                look = pixmap
                pixmap = filled_pixmap(widget.width(), widget.height(), ratio, backdrop)
                painter = QPainter(pixmap)
                painter.drawPixmap(0, 0, look)
                painter.end()
            if CACHING:
                self._looks[key] = pixmap
        painter = QPainter(widget)
        painter.drawPixmap(0, 0, pixmap)
        painter.end()


class CachedScrollBar(QScrollBar):
    """A ``QScrollBar`` drawn once per look. While the mouse is over it or a button is down
    (hover and press looks the option cannot see from here) it paints as a plain QScrollBar.

    ``set_backdrop``: the bar sits on one plain colour (its scroll area's background), which it
    then paints beneath its look itself. It covers every pixel (``WA_OpaquePaintEvent``): a new
    range (the worked math's text grows or shrinks on a click) repaints the bar alone, not the
    window's background and every widget between it and the bar.
    """

    _backdrop: Callable[[], QColor] | None = None

    def __init__(self, orientation: Qt.Orientation, parent: QWidget | None = None) -> None:
        super().__init__(orientation, parent)
        self._cache = _LookCache(self, _SCROLL_BAR_LOOKS)

    def set_backdrop(self, backdrop: Callable[[], QColor] | None) -> None:
        """The colour beneath the bar, read at each paint (None: whatever is beneath it)."""
        self._backdrop = backdrop
        self.setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent, backdrop is not None)
        self.update()

    def paintEvent(self, event: QPaintEvent) -> None:  # Qt override
        backdrop = None if self._backdrop is None else self._backdrop()
        if backdrop is not None:
            _stay_opaque(self)
        if self.underMouse() or QApplication.mouseButtons() != Qt.MouseButton.NoButton:
            if backdrop is not None:
                painter = QPainter(self)
                painter.fillRect(event.rect(), backdrop)
                painter.end()
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
        self._cache.paint(key, draw, backdrop)


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
    per look. In document mode, which draws no frame but a bar base, it paints as Qt's own.

    ``set_opaque``: the tab widget sits straight on the window's background; its look is kept
    blended over the window's colour and it covers every pixel (``WA_OpaquePaintEvent``), so Qt
    paints nothing beneath it, neither for the tab widget nor for what repaints inside it.
    """

    _opaque = False

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        self._cache = _LookCache(self)

    def set_opaque(self, opaque: bool) -> None:
        self._opaque = opaque
        self.setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent, opaque)
        self.update()

    def paintEvent(self, event: QPaintEvent) -> None:  # Qt override
        backdrop = None
        if self._opaque:
            backdrop = self.palette().color(QPalette.ColorRole.Window)
            _stay_opaque(self)
        if self.documentMode():
            if backdrop is not None:
                painter = QPainter(self)
                painter.fillRect(event.rect(), backdrop)
                painter.end()
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
        self._cache.paint(key, draw, backdrop)


# -- a panel's rounded box ---------------------------------------------------------------------
#
# A style sheet's ``border-radius`` fills and strokes a rounded path on every repaint of the
# panel, and a click repaints the part of a panel behind every number it changes. A panel that
# owns a ``RoundedBox`` keeps a 1 px frame (so its text stays where the style sheet's border put
# it) and paints the box from a pixmap kept per size, pixel ratio and colours.
#
# An ``opaque`` box is drawn over the window's colour (what shows around its round corners) into
# one opaque pixmap, and its frame covers every pixel of its rectangle (``WA_OpaquePaintEvent``):
# Qt then paints nothing beneath it (the window's background and every widget between), neither
# when the frame repaints nor when something inside it does, and the blit needs no blending.

CORNER_RADIUS = 8.0


class RoundedBox:
    """The box of one ``QFrame``: call ``paint`` from its ``paintEvent``.

    ``opaque``: the frame sits straight on the window's background (no ancestor paints anything
    else beneath it); the box is drawn over the window's colour and the frame made opaque.
    """

    def __init__(self, frame: QFrame, opaque: bool = False) -> None:
        self._frame = frame
        self._colours = (LIGHT.surface, LIGHT.border)
        self._kept: tuple[tuple, QPixmap] | None = None
        self._fill = ("", QColor())  # (the fill's name, its colour): parsed once per colour
        self._opaque = opaque
        frame.setFrameShape(QFrame.Shape.Box)  # a 1 px frame: the layout's insets, not drawn
        frame.setLineWidth(1)
        if opaque:
            frame.setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent)

    def set_colours(self, fill: str, border: str) -> None:
        self._colours = (fill, border)
        self._frame.update()

    def colours(self) -> tuple[str, str]:
        return self._colours

    def fill(self) -> QColor:
        """The colour inside the box (within its border and round corners)."""
        if self._fill[0] != self._colours[0]:
            self._fill = (self._colours[0], QColor(self._colours[0]))
        return self._fill[1]

    def paint(self) -> None:
        frame = self._frame
        ratio = frame.devicePixelRatioF()
        backdrop = frame.palette().color(QPalette.ColorRole.Window) if self._opaque else None
        key = (
            frame.width(),
            frame.height(),
            ratio,
            self._colours,
            None if backdrop is None else backdrop.rgba(),
        )
        if self._opaque:
            _stay_opaque(frame)
        if self._kept is None or self._kept[0] != key or not CACHING:
            box = self._draw(ratio)
            if backdrop is not None:
                # The box blended over the window's colour here, exactly as it was blended over
                # the window's background on screen: the same pixels, now one opaque blit.
                layer = filled_pixmap(frame.width(), frame.height(), ratio, backdrop)
                painter = QPainter(layer)
                painter.drawPixmap(0, 0, box)
                painter.end()
                box = layer
            self._kept = (key, box)
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
