"""Keep a widget's own paint as a pixmap per look, and blit it while the look stays the same.

A repaint of the window repaints every label, tool button and tab bar on it and the menu bar,
and Qt lays out and draws their text afresh each time: about a third of a full repaint of the
lab at 1280×800, although a click changes none of them. ``cache_paints`` installs a filter on
such a widget that answers its paint events with a pixmap of what the widget itself drew (by
``QWidget.render``, so the pixels are Qt's own).

Reading a widget's whole state on every paint would cost about what Qt's own paint of a label
does, so a look is split in two. What Qt announces with an event (a new size, font, palette,
style, pixel ratio, enabled or focus state, window activation, a changed action) empties the
cache. What it does not announce (a label's text, a button's checked state, the current tab) is
the key of each kept pixmap, read on each paint by a call or two. While the pointer is inside
the widget or a button is down on it (hover and press looks), or a menu of it is open, the
widget paints as usual.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable

from PySide6.QtCore import QEvent, QObject, QPoint, Qt, QTimer
from PySide6.QtGui import QPainter, QPixmap, QRegion
from PySide6.QtWidgets import (
    QLabel,
    QMenuBar,
    QTabBar,
    QToolButton,
    QWidget,
)

from grpo_desktop.views.pixmap_cache import transparent_pixmap

Look = Callable[[QWidget], Hashable]  # what a widget shows that no event announces; None: skip

_LOOKS = 4  # pixmaps kept per widget: e.g. a check button on and off, a tab bar's current tab

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

    def __init__(self, widget: QWidget, look: Look, looks: int = _LOOKS) -> None:
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
        if self._rendering or self._pointer_in:
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


_SELECTABLE = (
    Qt.TextInteractionFlag.TextSelectableByMouse
    | Qt.TextInteractionFlag.TextSelectableByKeyboard
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
    user can select text or follow links in (a selection is a look no key here sees). A widget
    that already has a cache, or of another kind, is left as it is.
    """
    for widget in widgets:
        look = _LOOK_OF.get(type(widget))
        if look is None:
            continue
        if isinstance(widget, QLabel) and widget.textInteractionFlags() & _SELECTABLE:
            continue
        if not widget.findChild(PaintCache, options=Qt.FindChildOption.FindDirectChildrenOnly):
            PaintCache(widget, look)
