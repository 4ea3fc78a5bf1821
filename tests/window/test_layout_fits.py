"""Every theme at every screen size a lecturer meets: no text clipped, the comparison fully shown.

Checked from widget geometry (offscreen there is no visible region): a text widget must fit its
own text and lie inside each ancestor up to the nearest scroll area, whose content may scroll.
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import QRect, QSize
from PySide6.QtWidgets import QAbstractButton, QAbstractScrollArea, QApplication, QLabel, QWidget

from grpo_desktop.window.main_window import MainWindow

SIZES = ((1024, 768), (1280, 800), (1920, 1080), (3840, 2160))
THEMES = ("light", "dark", "projector")


def shown(widget: QWidget) -> bool:
    return widget.isVisibleTo(widget.window()) and widget.width() > 0 and widget.height() > 0


def clipped_by_ancestor(widget: QWidget) -> QWidget | None:
    """The first ancestor (below a scroll area) whose rectangle does not contain ``widget``."""
    rect = QRect(widget.mapTo(widget.window(), widget.rect().topLeft()), widget.size())
    parent = widget.parentWidget()
    while parent is not None and parent is not widget.window():
        if isinstance(parent.parentWidget(), QAbstractScrollArea):
            return None  # inside a scroll area's viewport: the content may scroll
        outer = QRect(parent.mapTo(parent.window(), parent.rect().topLeft()), parent.size())
        if not outer.contains(rect):
            return parent
        parent = parent.parentWidget()
    window_rect = widget.window().rect()
    return None if window_rect.contains(rect) else widget.window()


def text_overflow(label: QLabel) -> str | None:
    """Why ``label`` cannot show all of its text at its size, or None."""
    text = label.text()
    if not text or label.property("elides"):
        return None
    room = label.contentsRect()
    if label.wordWrap():
        needed = label.heightForWidth(label.width())
        return f"needs {needed} px high, has {label.height()}" if needed > label.height() else None
    hint = label.sizeHint()
    if hint.width() > room.width() + 1 or label.fontMetrics().height() > room.height() + 1:
        return f"needs {hint.width()}×{label.fontMetrics().height()}, has {room.size().toTuple()}"
    return None


def problems_on_screen(window: MainWindow) -> list[str]:
    found = []
    for widget in window.findChildren(QWidget):
        if not isinstance(widget, (QLabel, QAbstractButton)) or not shown(widget):
            continue
        name = widget.objectName() or type(widget).__name__
        text = widget.text()[:30]
        ancestor = clipped_by_ancestor(widget)
        if ancestor is not None:
            found.append(f"{name} {text!r} sticks out of {ancestor.objectName() or ancestor}")
        if isinstance(widget, QLabel) and (why := text_overflow(widget)):
            found.append(f"{name} {text!r} {why}")
    return found


@pytest.fixture
def staged(qtbot):
    made = []

    def make(size: tuple[int, int], theme: str) -> MainWindow:
        window = MainWindow()
        qtbot.addWidget(window)
        window.install_deferred_features()
        window.presentation.set_theme(theme, remember=False)
        window.resize(*size)
        window.show()
        QApplication.processEvents()
        made.append(window)
        return window

    yield make
    for window in made:
        window.undo_stack.setClean()
        window.presentation.set_theme("light", remember=False)


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("size", SIZES, ids=lambda size: f"{size[0]}x{size[1]}")
def test_no_text_is_clipped_in_the_lab(staged, size, theme):
    window = staged(size, theme)
    assert window.size().toTuple() == size, "the window must not grow past its screen"
    assert problems_on_screen(window) == []


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("size", SIZES, ids=lambda size: f"{size[0]}x{size[1]}")
def test_the_comparison_fits_and_shows_each_charts_whole_range(staged, size, theme):
    window = staged(size, theme)
    window.show_compare(True)
    QApplication.processEvents()
    assert problems_on_screen(window) == []
    page = window.compare_page
    inner = [area for area in page.findChildren(QAbstractScrollArea) if area is not page]
    for area in inner:
        bars = area.verticalScrollBar(), area.horizontalScrollBar()
        assert all(bar.maximum() == 0 for bar in bars), f"{area.objectName()} scrolls in the page"
    for pane in window.easy, window.hard:
        low, high = pane.chart.getPlotItem().viewRange()[1]
        values = [card.advantage for card in pane.state.snapshot.cards]
        assert low <= min(values) and high >= max(values), (low, high, values)
    if size < (1280, 800):
        return  # a small screen may scroll the whole page (one scroll area, never nested)
    assert page.verticalScrollBar().maximum() == 0, "the comparison does not fit the window"
    page_rect = QRect(page.mapTo(window, page.rect().topLeft()), page.size())
    for pane in window.easy, window.hard:
        for widget in (pane.chart, *pane.trace_grid.cards()[: pane.state.group_size]):
            rect = QRect(widget.mapTo(window, widget.rect().topLeft()), widget.size())
            assert page_rect.contains(rect), f"{widget.objectName()} is not fully on screen"


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("size", SIZES, ids=lambda size: f"{size[0]}x{size[1]}")
def test_every_toolbar_action_is_on_the_toolbar_not_behind_its_overflow(staged, size, theme):
    window = staged(size, theme)
    for action in window.toolbar.actions():
        if action.isSeparator():
            continue
        button = window.toolbar.widgetForAction(action)
        assert button is not None and button.isVisible(), f"{action.text()!r} is hidden"


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("size", SIZES[2:], ids=lambda size: f"{size[0]}x{size[1]}")
def test_the_worked_math_is_shown_whole_on_a_large_screen(staged, size, theme):
    window = staged(size, theme)
    panel = window.math_panel
    document_height = panel.document().size().height()
    assert document_height <= panel.viewport().height(), "the worked math is cut off"


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("lesson_id", ["group-is-baseline", "same-formula-two-groups"])
def test_every_lesson_step_is_fully_visible_at_1280x800(staged, lesson_id, theme):
    window = staged((1280, 800), theme)
    window.lessons.start(lesson_id)
    for index in range(window.lessons.step_count):
        window.lessons.go_to(index)
        QApplication.processEvents()
        where = f"step {index + 1}"
        assert problems_on_screen(window) == [], where
        page = window.pages.currentWidget()
        if isinstance(page, QAbstractScrollArea):
            assert page.verticalScrollBar().maximum() == 0, f"{where} scrolls"
    window.lessons.exit()


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("zoom", [1.5, 2.0, 3.0])
def test_a_zoomed_window_on_a_1280x800_screen_keeps_its_size_and_clips_no_text(
    staged, zoom, theme
):
    window = staged((1280, 800), theme)
    # The offscreen screen is 800x800: fit the zoom to a 1280x800 screen, as on a laptop.
    window.presentation.fit_to(QSize(1280, 800))
    window.presentation.set_zoom(zoom, remember=False)
    window.resize(1280, 800)
    QApplication.processEvents()
    try:
        assert window.size().toTuple() == (1280, 800)
        assert problems_on_screen(window) == []
    finally:
        window.presentation.set_zoom(1.0, remember=False)
        window.presentation.fit_to(None)
