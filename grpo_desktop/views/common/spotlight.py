"""A ring that points at one part of the window: what a lesson step wants the class to look at.

The spotlight is a child of a host widget (the window's central widget) laid over its siblings. It
draws a thick rounded ring in ``theme.focus`` with a soft translucent glow just outside the target's
rectangle, lets every mouse event through, and follows the target when it (or any widget between it
and the host) moves, resizes, shows or hides. Its mask covers only the ring's band, so the widgets
inside it repaint exactly as if it were not there.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QPoint, QRect, QRectF, Qt, QTimer
from PySide6.QtGui import QColor, QPainter, QPaintEvent, QPen, QRegion
from PySide6.QtWidgets import QWidget

from grpo_desktop.core.common.theme import LIGHT, Theme

#: Space between the target's edge and the ring, so the ring never covers the target's content.
GAP = 3
#: How far the translucent glow reaches beyond the ring.
GLOW = 10
RADIUS = 10.0

_WATCHED = (
    QEvent.Type.Move,
    QEvent.Type.Resize,
    QEvent.Type.Show,
    QEvent.Type.Hide,
    QEvent.Type.ParentChange,
)


class Spotlight(QWidget):
    """A focus-coloured ring around :meth:`target`; hidden while there is no (visible) target."""

    def __init__(self, host: QWidget, theme: Theme = LIGHT) -> None:
        super().__init__(host)
        self.setObjectName("lessonSpotlight")
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.setAttribute(Qt.WidgetAttribute.WA_NoSystemBackground)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.setAccessibleName("Lesson highlight")
        self._host = host
        self._theme = theme
        self._target: QWidget | None = None
        self._watched: list[QWidget] = []
        self._target_rect = QRect()  # the target's rectangle in this widget's coordinates
        self._pending = QTimer(self, singleShot=True, interval=0)
        self._pending.timeout.connect(self.update_geometry)
        host.installEventFilter(self)
        self.hide()

    # --- public API -------------------------------------------------------------------------

    def target(self) -> QWidget | None:
        return self._target

    def set_target(self, widget: QWidget | None) -> None:
        """Ring ``widget`` (a descendant of the host), or nothing for ``None``."""
        if widget is not None and not self._host.isAncestorOf(widget):
            raise ValueError("the spotlight can only ring a widget inside its host")
        if widget is self._target:
            self.update_geometry()
            return
        if self._target is not None:
            self._target.destroyed.disconnect(self._on_target_destroyed)
        for watched in self._watched:
            watched.removeEventFilter(self)
        self._watched = []
        self._target = widget
        if widget is not None:
            # The target moves on screen when it or any widget between it and the host moves.
            node: QWidget | None = widget
            while node is not None and node is not self._host:
                node.installEventFilter(self)
                self._watched.append(node)
                node = node.parentWidget()
            widget.destroyed.connect(self._on_target_destroyed)
        self.update_geometry()

    def set_theme(self, theme: Theme) -> None:
        self._theme = theme
        self.update_geometry()
        self.update()

    def ring_width(self) -> float:
        """Thick enough to see from the back row; thicker on the projector theme."""
        return 2.0 + 2.0 * self._theme.stroke_width

    def target_rect(self) -> QRect:
        """The target's rectangle in the host's coordinates (empty when hidden)."""
        if self._target is None or not self.isVisible():
            return QRect()
        return self._target_rect.translated(self.pos())

    # --- following the target ---------------------------------------------------------------

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
        rect = QRect(target.mapTo(self._host, QPoint(0, 0)), target.size())
        reach = GAP + int(self.ring_width() + 0.5) + GLOW
        area = rect.adjusted(-reach, -reach, reach, reach).intersected(self._host.rect())
        if area.isEmpty():
            self.hide()
            return
        self._target_rect = rect.translated(-area.topLeft())
        if self.geometry() != area:
            self.setGeometry(area)
        inner = self._target_rect.adjusted(1 - GAP, 1 - GAP, GAP - 1, GAP - 1)
        self.setMask(QRegion(self.rect()).subtracted(QRegion(inner)))
        self.raise_()
        if not self.isVisible():
            self.show()
        self.update()

    def _on_target_destroyed(self, *_args: object) -> None:
        self._target = None
        self._watched = []
        self.hide()

    # --- painting ---------------------------------------------------------------------------

    def paintEvent(self, event: QPaintEvent) -> None:  # Qt override
        if self._target is None:
            return
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        width = self.ring_width()
        half = width / 2
        ring = QRectF(self._target_rect).adjusted(-GAP - half, -GAP - half, GAP + half, GAP + half)
        focus = QColor(self._theme.focus)
        # The glow: concentric strokes, fading out as they move away from the ring.
        for step in range(GLOW, 0, -2):
            glow = QColor(focus)
            glow.setAlphaF(0.22 * (1 - step / (GLOW + 2)))
            pen = QPen(glow, width + 2 * step)
            pen.setJoinStyle(Qt.PenJoinStyle.RoundJoin)
            painter.setPen(pen)
            painter.drawRoundedRect(ring, RADIUS + step / 2, RADIUS + step / 2)
        pen = QPen(focus, width)
        pen.setJoinStyle(Qt.PenJoinStyle.RoundJoin)
        painter.setPen(pen)
        painter.drawRoundedRect(ring, RADIUS, RADIUS)
        painter.end()
