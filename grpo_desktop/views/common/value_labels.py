"""A bar chart's value labels as one graphics item: one paint for every label.

A text item per bar lays its text document out again and re-maps its position on each new value;
a click changes every bar's value, which cost about 40 µs a label (16 labels on a large screen,
more than the bars themselves). Here a new set of labels is a tuple, its widths come from each
text's cached static text, and a paint blits each label's drawn text run (``text_runs``: drawn
once per text, font and colour) where its bar ends.
"""

from __future__ import annotations

from collections.abc import Sequence

import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QStaticText

from grpo_desktop.views.common.pyqtgraph_internals import repaint_exactly
from grpo_desktop.views.common.text_runs import draw_text

__all__ = ["Label", "ValueLabels"]

Label = tuple[float, float, str, int]  # (x, y) in data units, the text, the side: 1, −1 or 0
_FLAGS = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop | Qt.TextFlag.TextDontClip
_KEPT_TEXTS = 256  # laid-out texts kept per font (a group's values repeat from click to click)


class ValueLabels(pg.GraphicsObject):
    """Labels drawn in the view box's own pixels, each anchored to a data point by its side.

    The item is a child of the view box, not of its data group, so the text keeps its size
    whatever the range; it repaints when the range or the view's size changes. An anchor
    ``(ax, ay)`` puts the fraction ``ax`` of a label's box width and ``ay`` of its height on the
    point, as ``pg.TextItem``'s anchor does; the box is the text plus ``margin`` on each side.
    """

    def __init__(self, viewbox: pg.ViewBox, margin: float) -> None:
        super().__init__(viewbox)
        self._viewbox = viewbox
        self._margin = margin
        self._labels: tuple[Label, ...] = ()
        self._font = QFont()
        self._metrics = QFontMetricsF(self._font)
        self._colour = QColor(Qt.GlobalColor.black)
        self._anchors: dict[int, tuple[float, float]] = {1: (0.5, 1.0), -1: (0.5, 0.0)}
        self._texts: dict[str, QStaticText] = {}
        viewbox.sigTransformChanged.connect(self._view_changed)
        viewbox.sigResized.connect(self._view_resized)

    # ------------------------------------------------------------------------------ setting

    def set_style(self, font: QFont, anchors: dict[int, tuple[float, float]]) -> None:
        """The labels' font and, per side, where a label's box sits on its point."""
        if font == self._font and anchors == self._anchors:
            return
        if font != self._font:
            self._font = QFont(font)
            self._metrics = QFontMetricsF(self._font)
            self._texts.clear()
        self._anchors = dict(anchors)
        self.update()

    def set_colour(self, colour: str | QColor) -> None:
        colour = QColor(colour)
        if colour != self._colour:
            self._colour = colour
            self.update()

    def set_labels(self, labels: Sequence[Label]) -> None:
        """Show exactly these labels (none: an empty sequence); repaints only the labels that
        change, where they were and where they go (not the whole plot: its axes, its bars)."""
        labels = tuple(labels)
        previous = self._labels
        if labels == previous:
            return
        scene = self.scene()
        if scene is None or len(labels) != len(previous):
            self._labels = labels
            self.update()
            return
        before = self._boxes()
        self._labels = labels
        areas: dict[tuple[float, float, float, float], QRectF] = {}
        for was, now, (old, _), (new, _) in zip(previous, labels, before, self._boxes()):
            if was != now:
                areas[old.getRect()] = old
                areas[new.getRect()] = new
        repaint_exactly(scene, [self.mapRectToScene(box) for box in areas.values()])

    # ------------------------------------------------------------------------------ reading

    def texts(self) -> list[str]:
        """The labels shown, in the order given."""
        return [text for _, _, text, _ in self._labels]

    def font(self) -> QFont:
        return QFont(self._font)

    def colour(self) -> QColor:
        return QColor(self._colour)

    def scene_rects(self) -> list[QRectF]:
        """Each label's box in scene coordinates, in the order given."""
        transform = self.sceneTransform()
        return [transform.mapRect(box) for box, _ in self._boxes()]

    # ------------------------------------------------------------------------------ drawing

    def boundingRect(self) -> QRectF:  # Qt override: the view box's area (it clips to it)
        return self._viewbox.boundingRect()

    def paint(self, painter: QPainter, *args: object) -> None:  # Qt override
        if not self._labels:
            return
        margin = self._margin
        font, colour = self._font, self._colour
        for box, static in self._boxes():
            text = box.adjusted(margin, margin, -margin, -margin)
            draw_text(painter, text, _FLAGS, static.text(), font, colour)

    def _boxes(self) -> list[tuple[QRectF, QStaticText]]:
        """Each label's box (whole pixels, in the view box's coordinates) and its laid-out text."""
        if not self._labels:
            return []
        to_view = self._viewbox.childTransform()
        height = self._metrics.height() + 2 * self._margin
        boxes = []
        for x, y, text, side in self._labels:
            static = self._static_text(text)
            width = static.size().width() + 2 * self._margin
            point = to_view.map(QPointF(x, y))
            across, up = self._anchors.get(side, (0.5, 0.5))
            left = round(point.x() - across * width)
            top = round(point.y() - up * height)
            boxes.append((QRectF(left, top, width, height), static))
        return boxes

    def _static_text(self, text: str) -> QStaticText:
        static = self._texts.get(text)
        if static is None:
            if len(self._texts) >= _KEPT_TEXTS:
                self._texts.clear()
            static = QStaticText(text)
            static.setTextFormat(Qt.TextFormat.PlainText)  # a label is never markup
            static.prepare(font=self._font)
            self._texts[text] = static
        return static

    def _view_changed(self, *_: object) -> None:
        if self._labels:
            self.update()

    def _view_resized(self, *_: object) -> None:
        self.prepareGeometryChange()  # the bounding rect is the view box's
        self.update()
