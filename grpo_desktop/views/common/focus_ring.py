"""A visible keyboard focus indicator in every theme: a ring in ``theme.focus`` around the focused
widget, whatever widget it is and whatever Qt's style draws for it.

Qt's styles mark focus faintly (Fusion's button outline is the highlight darkened and blended),
and custom-painted views mark it their own way or not at all. This ring is one overlay, a child of
the window laid over everything (like the lesson spotlight): a ``RING_WIDTH`` px band just outside
the focused widget, ``GAP`` px away from it so it never covers the widget's own text. Its mask is
exactly the band, so the widgets under it repaint as if it were not there, and it lets every mouse
event through. It follows the focused widget when it or any widget between it and the window moves
(a scrolled column), resizes, shows or hides, and shows only the part that is on screen.

The ring's colour against what lies beside it (the window, the surface, the cards' tints, the
banner) is at least 3:1 in every theme (WCAG 2.1 criterion 1.4.11; ``ring_contrasts``).
A widget that draws its own ring says so with the ``drawsOwnFocusRing`` property.
"""

from __future__ import annotations

import contextlib

from PySide6.QtCore import QEvent, QObject, QPoint, QRect, Qt, QTimer
from PySide6.QtGui import QColor, QPainter, QPaintEvent, QRegion
from PySide6.QtWidgets import QApplication, QWidget

from grpo_desktop.core.common.contrast import contrast_ratio
from grpo_desktop.core.common.theme import LIGHT, Theme

__all__ = ["GAP", "OWN_RING_PROPERTY", "FocusRing", "ring_contrasts", "ring_width"]

GAP = 1  # px between the widget's edge and the ring
OWN_RING_PROPERTY = "drawsOwnFocusRing"
_WATCHED = (
    QEvent.Type.Move,
    QEvent.Type.Resize,
    QEvent.Type.Show,
    QEvent.Type.Hide,
    QEvent.Type.ParentChange,
)


def ring_width(theme: Theme) -> int:
    """2 px; as thick as the theme's strokes on a projector (3 px)."""
    return max(2, round(theme.stroke_width))


def ring_contrasts(theme: Theme) -> dict[str, float]:
    """The ring's contrast against each colour it can lie on, by name."""
    backgrounds = {
        "window": theme.window,
        "surface": theme.surface,
        "no-signal card": theme.neutral_fill,
        "pushed-up card": theme.up_fill,
        "pushed-down card": theme.down_fill,
        "banner": theme.banner_fill,
    }
    return {name: contrast_ratio(theme.focus, colour) for name, colour in backgrounds.items()}


class FocusRing(QWidget):
    """The focus ring of the widgets inside ``host`` (a window); hidden while none has focus."""

    def __init__(self, host: QWidget, theme: Theme = LIGHT) -> None:
        super().__init__(host)
        self.setObjectName("focusRing")
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.setAttribute(Qt.WidgetAttribute.WA_NoSystemBackground)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self._host = host
        self._theme = theme
        self._target: QWidget | None = None
        self._watched: list[QWidget] = []
        self._pending = QTimer(self, singleShot=True, interval=0)
        self._pending.timeout.connect(self.update_geometry)
        self.hide()
        app = QApplication.instance()
        if isinstance(app, QApplication):
            app.focusChanged.connect(self._focus_changed)
            self._focus_changed(None, app.focusWidget())

    # --- public API -------------------------------------------------------------------------

    def target(self) -> QWidget | None:
        """The widget ringed (the focused one, or the spin box whose field has the focus)."""
        return self._target

    def set_theme(self, theme: Theme) -> None:
        self._theme = theme
        self.update_geometry()
        self.update()

    def ring_rect(self) -> QRect:
        """The ring's outer edge in the host's coordinates (empty when hidden)."""
        return self.geometry() if self.isVisible() else QRect()

    # --- following the focus ----------------------------------------------------------------

    def rings(self, widget: QWidget | None) -> QWidget | None:
        """The widget to ring when ``widget`` has the focus, or None."""
        if widget is None or widget is self or not self._host.isAncestorOf(widget):
            return None
        parent = widget.parentWidget()
        if parent is not None and parent.focusProxy() is widget:
            widget = parent  # a spin box's or combo box's own field: ring the whole box
        if widget.property(OWN_RING_PROPERTY):
            return None
        if not widget.focusPolicy() & Qt.FocusPolicy.TabFocus:
            return None  # a click-only focus (the lab's background) is no keyboard stop
        return widget

    def _focus_changed(self, _old: QWidget | None, new: QWidget | None) -> None:
        try:
            self._set_target(self.rings(new))
        except RuntimeError:  # the ring's C++ side is gone (its window closed)
            return

    def _set_target(self, widget: QWidget | None) -> None:
        if widget is self._target:
            self.update_geometry()
            return
        for watched in self._watched:
            with contextlib.suppress(RuntimeError):
                watched.removeEventFilter(self)
        self._watched = []
        if self._target is not None:
            with contextlib.suppress(RuntimeError, TypeError):
                self._target.destroyed.disconnect(self._target_destroyed)
        self._target = widget
        node = widget
        while node is not None and node is not self._host:
            node.installEventFilter(self)
            self._watched.append(node)
            node = node.parentWidget()
        if widget is not None:
            widget.destroyed.connect(self._target_destroyed)
        self.update_geometry()

    def _target_destroyed(self, *_args: object) -> None:
        self._target = None
        self._watched = []
        self.hide()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # Qt override
        if event.type() in _WATCHED:
            self.update_geometry()
            self._pending.start()  # once more after the layout pass settles
        return False

    def update_geometry(self) -> None:
        target = self._target
        if target is None or not target.isVisible() or not self._host.isAncestorOf(target):
            self.hide()
            return
        shown = target.visibleRegion().boundingRect()  # the part not scrolled or covered away
        if shown.isEmpty():
            self.hide()
            return
        inner = QRect(target.mapTo(self._host, shown.topLeft()), shown.size())
        inner = inner.adjusted(-GAP, -GAP, GAP, GAP)
        reach = ring_width(self._theme)
        outer = inner.adjusted(-reach, -reach, reach, reach).intersected(self._host.rect())
        if outer.isEmpty():
            self.hide()
            return
        if self.geometry() != outer:
            self.setGeometry(outer)
        hole = inner.translated(-outer.topLeft())
        self.setMask(QRegion(self.rect()).subtracted(QRegion(hole)))
        self.raise_()
        if not self.isVisible():
            self.show()
        self.update()

    # --- painting ---------------------------------------------------------------------------

    def paintEvent(self, event: QPaintEvent) -> None:  # Qt override
        painter = QPainter(self)
        painter.fillRect(self.rect(), QColor(self._theme.focus))  # the mask leaves the band
        painter.end()

    def grab_colour_at(self, point: QPoint) -> QColor:
        """The colour the ring paints at ``point`` (its own coordinates), for tests."""
        return QColor(self.grab().toImage().pixel(point))
