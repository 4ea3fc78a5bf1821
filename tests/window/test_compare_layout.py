"""Easy vs hard fits a laptop screen: every card, each chart's whole range, nothing scrolls inside.

Checked from widget geometry (offscreen there is no visible region): a widget is seen when its
rectangle lies inside the compare page's viewport, and the page does not scroll at all.
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import QRect
from PySide6.QtWidgets import QAbstractScrollArea, QApplication, QScrollArea, QWidget

from grpo_desktop.core.files.lessons import get_lesson
from grpo_desktop.window.main_window import MainWindow

LAPTOPS = ((1024, 768), (1280, 800))
TWO_GROUPS = "same-formula-two-groups"


def rect_in(widget: QWidget, window: QWidget) -> QRect:
    return QRect(widget.mapTo(window, widget.rect().topLeft()), widget.size())


def assert_comparison_fits(window: MainWindow) -> None:
    scroller = window.compare_page
    assert isinstance(scroller, QScrollArea)
    assert scroller.verticalScrollBar().maximum() == 0, "the page scrolls on a laptop screen"
    seen = rect_in(scroller.viewport(), window)
    for pane in window.easy, window.hard:
        grid = pane.trace_grid
        assert grid.verticalScrollBar().maximum() == 0, "cards scroll inside the scrolling page"
        nested = [w for w in window.compare_view.findChildren(QAbstractScrollArea) if w.isVisible()]
        assert all(w.verticalScrollBar().maximum() == 0 for w in nested)
        for card in grid.cards():
            assert seen.contains(rect_in(card, window)), f"{card.objectName()} is cut off"
        chart = pane.chart
        assert seen.contains(rect_in(chart, window)), f"{chart.objectName()} is cut off"
        plot = chart.getPlotItem()
        # The plot's data area is inside the chart widget, and its y range holds every bar.
        low, high = plot.viewRange()[1]
        heights = chart.bar_heights()
        assert low <= min(heights) and high >= max(heights), (low, high, heights)
        box = plot.getViewBox()
        data_area = box.mapRectToScene(box.boundingRect()).toRect()
        assert chart.rect().contains(data_area)
        assert data_area.height() >= 60, "a chart too short to read"


@pytest.mark.parametrize("size", LAPTOPS, ids=lambda size: f"{size[0]}x{size[1]}")
def test_easy_vs_hard_fits_a_laptop_without_nested_scrolling(window, size):
    window.resize(*size)
    window.show_compare(True)
    QApplication.processEvents()
    assert window.size().toTuple() == size
    assert_comparison_fits(window)
    # The starred −2.0 and +2.0 bars are drawn inside the range.
    assert window.easy.chart.bar_heights()[4] == pytest.approx(-2.0)
    assert window.hard.chart.bar_heights()[0] == pytest.approx(2.0)


@pytest.mark.parametrize("size", [(1920, 1080), (3840, 2160)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_easy_vs_hard_draws_larger_cards_on_a_larger_screen(window, size):
    window.show_compare(True)
    QApplication.processEvents()
    laptop = window.easy.trace_grid.card(0)
    laptop_height, laptop_type = laptop.height(), laptop.font().pointSizeF()
    window.resize(*size)
    QApplication.processEvents()
    assert_comparison_fits(window)
    card = window.easy.trace_grid.card(0)
    assert card.height() > 1.2 * laptop_height
    assert card.font().pointSizeF() > 1.2 * laptop_type


# At 1024×768 the lesson bar's ~110 px leave too little: the page scrolls as one (see the report).
@pytest.mark.parametrize("size", [(1280, 800)], ids=lambda size: f"{size[0]}x{size[1]}")
def test_the_lessons_compare_step_fits_a_laptop(qtbot, window, size):
    window.install_deferred_features()
    window.resize(*size)
    lessons = window.lessons
    lessons.start(TWO_GROUPS)
    steps = get_lesson(TWO_GROUPS).steps
    lessons.go_to(next(i for i, s in enumerate(steps) if s.title == "Same formula, two groups"))
    qtbot.waitUntil(lambda: not any(pane.chart.is_animating() for pane in window.panes))
    QApplication.processEvents()
    assert window.compare_view.isVisible()
    assert_comparison_fits(window)


# ------------------------------------------------------------------ the lab page uses its room


@pytest.mark.parametrize("theme", ["light", "projector"])
@pytest.mark.parametrize("size", [(1920, 1080), (3840, 2160)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_worked_math_is_shown_whole_on_a_large_screen(sized, size, theme):
    window = sized(size, theme)
    panel = window.math_panel
    assert panel.isVisible()
    assert panel.verticalScrollBar().maximum() == 0, "the worked math is cut off"
    assert rect_in(window, window).contains(rect_in(panel, window))
    assert "Advantage of a wrong answer" in panel.plain_text()
    # … and the chart keeps at least half of the column.
    chart, tabs = window.right_splitter.sizes()
    assert chart >= tabs


@pytest.mark.parametrize("size", [(1920, 1080), (3840, 2160)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_cards_grow_into_a_large_screens_height(sized, size):
    window = sized(size)
    grid = window.lab.trace_grid
    cards = grid.cards()
    lowest = max(card.geometry().bottom() for card in cards)
    assert lowest >= 0.6 * grid.viewport().height(), "the cards leave most of the column blank"
    small = sized((1280, 800)).lab.trace_grid.cards()[0]
    assert cards[0].font().pointSizeF() > 1.3 * small.font().pointSizeF()
    assert grid.verticalScrollBar().maximum() == 0


def test_a_group_of_8_fits_a_laptop(sized):
    window = sized((1280, 800), group_size=8)
    grid = window.lab.trace_grid
    assert grid.group_size == 8
    seen = rect_in(grid.viewport(), window)
    for card in grid.cards():
        assert seen.contains(rect_in(card, window)), f"{card.objectName()} is cut off"


def test_no_blank_band_waits_for_the_banner(sized):
    window = sized((1280, 800))
    page, splitter = window.lab_page, window.lab_splitter
    # The cards and chart reach the page's bottom: no row is reserved for the banner …
    assert rect_in(splitter, window).bottom() == rect_in(page, window).bottom()
    # … which, when a group is degenerate, floats over the cards' bottom edge.
    window.request_reward_pattern("all-correct")
    QApplication.processEvents()
    banner, grid = window.lab.banner, window.lab.trace_grid
    assert banner.isVisible()
    assert rect_in(grid, window).contains(rect_in(banner, window))
    # The cards can scroll clear of it.
    last = grid.cards()[-1]
    room = grid.widget().height() - last.geometry().bottom()
    assert room >= banner.height()


def test_the_worked_math_grows_into_a_large_box_and_keeps_its_size_on_a_laptop(sized):
    large = sized((3840, 2160)).math_panel
    assert large.verticalScrollBar().maximum() == 0
    large_type = large.font().pointSizeF()
    laptop_type = sized((1280, 800)).math_panel.font().pointSizeF()
    assert large_type >= 1.5 * laptop_type, "a 4K screen leaves the worked math tiny in a blank box"
    assert sized((1280, 800)).math_panel.text_scale() == 1.0


def test_the_lesson_step_on_the_worked_math_shows_it_whole(qtbot, sized):
    window = sized((1920, 1080), "projector")
    lesson = "group-is-baseline"
    steps = get_lesson(lesson).steps
    window.lessons.start(lesson)  # the lesson bar takes height from the column
    window.lessons.go_to(next(i for i, s in enumerate(steps) if s.highlight == "math"))
    qtbot.waitUntil(lambda: not any(pane.chart.is_animating() for pane in window.panes))
    for _ in range(3):
        QApplication.processEvents()
    panel = window.math_panel
    assert window.highlight_target("math").isVisible()
    assert panel.verticalScrollBar().maximum() == 0, "the spotlit worked math is cut off"
