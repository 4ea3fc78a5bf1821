"""The value labels item: each label boxed and anchored at its point, plain text, one paint."""

from __future__ import annotations

import pyqtgraph as pg
import pytest
from event_log import EventLog
from PySide6.QtCore import QPointF
from PySide6.QtGui import QColor, QFont, QImage, QPainter

from grpo_desktop.views.common.value_labels import ValueLabels

MARGIN = 1.0
ABOVE, BELOW = (0.5, 1.0), (0.5, 0.0)


@pytest.fixture
def view(qtbot):
    widget = pg.PlotWidget(background="w")
    qtbot.addWidget(widget)
    widget.resize(400, 300)
    widget.setXRange(0, 4, padding=0)
    widget.setYRange(-2, 2, padding=0)
    with qtbot.waitExposed(widget):
        widget.show()
    return widget


@pytest.fixture
def labels(view) -> ValueLabels:
    item = ValueLabels(view.getPlotItem().getViewBox(), MARGIN)
    font = QFont()
    font.setPointSizeF(12)
    item.set_style(font, {1: ABOVE, -1: BELOW})
    item.set_colour("#102030")
    return item


def scene_point(view, x: float, y: float) -> QPointF:
    return view.getPlotItem().getViewBox().mapViewToScene(QPointF(x, y))


def test_each_label_sits_on_its_side_of_its_point(view, labels):
    labels.set_labels([(1, 1.0, "+1.00", 1), (3, -1.0, "\u22121.00", -1)])
    above, below = labels.scene_rects()
    top_point, bottom_point = scene_point(view, 1, 1.0), scene_point(view, 3, -1.0)
    assert above.bottom() == pytest.approx(top_point.y(), abs=0.5)
    assert above.center().x() == pytest.approx(top_point.x(), abs=0.5)
    assert below.top() == pytest.approx(bottom_point.y(), abs=0.5)
    assert below.center().x() == pytest.approx(bottom_point.x(), abs=0.5)
    assert labels.texts() == ["+1.00", "\u22121.00"]


def test_a_new_range_moves_the_labels_with_their_points(view, labels):
    labels.set_labels([(2, 1.0, "+1.00", 1)])
    (before,) = labels.scene_rects()
    view.setYRange(-4, 4, padding=0)
    view.getPlotItem().getViewBox().updateMatrix()
    (after,) = labels.scene_rects()
    assert after.bottom() == pytest.approx(scene_point(view, 2, 1.0).y(), abs=0.5)
    assert after.bottom() > before.bottom()  # the point moved down towards the middle
    assert after.size() == before.size()  # the text keeps its size in pixels


def test_markup_is_drawn_as_the_characters_typed(labels):
    labels.set_labels([(1, 1.0, "<b>1</b>", 1), (3, 1.0, "1", 1)])
    markup, plain = labels.scene_rects()
    assert markup.width() > 3 * plain.width() - 4 * MARGIN  # "<b>1</b>" is eight characters


def test_the_labels_are_painted_in_their_colour_inside_their_boxes(view, labels):
    labels.set_labels([(2, 0.5, "8888", 1)])
    image = QImage(view.size(), QImage.Format.Format_ARGB32)
    image.fill(QColor("white"))
    painter = QPainter(image)
    view.render(painter)
    painter.end()
    (rect,) = labels.scene_rects()
    box = view.mapFromScene(rect).boundingRect()
    dark = [
        (x, y)
        for x in range(image.width())
        for y in range(image.height())
        if QColor(image.pixel(x, y)).lightness() < 100
    ]
    inside = [point for point in dark if box.adjusted(-1, -1, 1, 1).contains(*point)]
    text_colour = [point for point in inside if QColor(image.pixel(*point)).name() == "#102030"]
    assert text_colour, "the label's text should be drawn in its colour"
    assert len(inside) >= 0.9 * len([p for p in dark if box.adjusted(-8, -8, 8, 8).contains(*p)])


def test_no_labels_draw_nothing_and_an_unchanged_set_repaints_nothing(labels, monkeypatch):
    labels.set_labels([(1, 1.0, "+1.00", 1)])
    updates = []
    monkeypatch.setattr(labels, "update", lambda *a: updates.append(a))
    labels.set_labels([(1, 1.0, "+1.00", 1)])
    assert updates == []
    labels.set_labels([])
    assert updates and labels.texts() == [] and labels.scene_rects() == []


def test_the_bounding_rect_follows_the_view_when_it_is_resized(view, labels, qtbot):
    viewbox = view.getPlotItem().getViewBox()
    view.resize(600, 350)
    qtbot.waitUntil(lambda: labels.boundingRect() == viewbox.boundingRect())
    assert labels.boundingRect().width() > 400 * 0.6


def test_kept_labels_draw_what_direct_drawing_draws_and_show_new_values(view, labels, monkeypatch):
    from grpo_desktop.views.common import render_cache

    def rendered() -> QImage:
        image = QImage(view.size(), QImage.Format.Format_ARGB32)
        image.fill(QColor("white"))
        painter = QPainter(image)
        view.render(painter)
        painter.end()
        return image

    labels.set_labels([(1, 0.5, "+0.50", 1), (3, -1.0, "−1.00", -1)])
    first = rendered()
    assert rendered() == first  # blitted from the kept runs
    labels.set_labels([(1, 0.5, "+0.75", 1), (3, -1.0, "−1.25", -1)])
    second = rendered()
    assert second != first
    monkeypatch.setattr(render_cache, "CACHING", False)
    assert rendered() == second  # drawn directly: the same pixels, the new values
    labels.set_colour("#a02020")
    red = rendered()
    monkeypatch.setattr(render_cache, "CACHING", True)
    assert rendered() == red  # a new colour: new runs, never the old ink


def test_a_changed_label_repaints_where_it_was_and_where_it_goes_only(view, labels, qtbot):
    """Not the plot around it (its axes, its bars); what the widget shows stays exact."""
    from PySide6.QtCore import QEvent
    from PySide6.QtGui import QRegion

    labels.set_labels([(1, 1.0, "+1.00", 1), (3, -1.0, "\u22121.00", -1)])
    qtbot.wait(30)
    regions = EventLog(
        QEvent.Type.Paint, view.viewport(), record=lambda _, event: QRegion(event.region())
    )
    labels.set_labels([(1, 1.0, "+1.00", 1), (3, -1.5, "\u22121.50", -1)])
    qtbot.wait(30)
    view.viewport().removeEventFilter(regions)
    moved = labels.scene_rects()[1]
    painted = sum(regions.seen, QRegion()).boundingRect()
    assert painted.width() < view.width() / 4 and painted.height() < view.height() / 3
    assert painted.contains(view.mapFromScene(moved).boundingRect().adjusted(1, 1, -1, -1))
    assert view.screen().grabWindow(view.winId()).toImage() == view.grab().toImage()
