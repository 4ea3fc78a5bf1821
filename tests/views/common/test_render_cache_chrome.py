"""Scroll bars, tool bar and tab frame that draw their look once: they look like Qt's own."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QImage, QPalette
from PySide6.QtWidgets import QLabel, QMainWindow, QScrollBar, QTabWidget, QToolBar, QWidget

from grpo_desktop.views.common.render_cache import CachedScrollBar, CachedTabWidget, CachedToolBar


def pixels(widget: QWidget) -> np.ndarray:
    image = widget.grab().toImage().convertToFormat(QImage.Format.Format_RGB32)
    data = np.frombuffer(image.constBits(), np.uint8).reshape(image.height(), -1, 4)
    return data[:, : image.width(), :3].astype(int)


def worst_difference(plain: QWidget, cached: QWidget) -> int:
    a, b = pixels(plain), pixels(cached)
    assert a.shape == b.shape
    return int(np.abs(a - b).max())


def make_windows(qtbot, toolbar_kind: type, tabs_kind: type) -> tuple[QMainWindow, QTabWidget]:
    window = QMainWindow()
    qtbot.addWidget(window)
    toolbar = toolbar_kind("Presets", window)
    toolbar.setMovable(False)
    for text in ("1, 0, 0, 1", "All ✓", "Easy", "Hard"):
        toolbar.addAction(text)
    window.addToolBar(toolbar)
    tabs = tabs_kind()
    for title in ("Worked math", "One model, not four", "Rewards"):
        tabs.addTab(QLabel(title), title)
    window.setCentralWidget(tabs)
    window.resize(640, 360)
    window.show()
    qtbot.waitExposed(window)
    return window, tabs


@pytest.fixture
def pair(qtbot):
    plain = make_windows(qtbot, QToolBar, QTabWidget)
    cached = make_windows(qtbot, CachedToolBar, CachedTabWidget)
    return plain, cached


def test_the_window_looks_as_with_qt_own_tool_bar_and_tab_frame(pair):
    (plain, _), (cached, _) = pair
    # The style's own drawing, composited once more: at most one level of rounding.
    assert worst_difference(plain, cached) <= 1


def test_another_tab_or_palette_is_a_new_look_drawn_right(pair, qtbot):
    (plain, plain_tabs), (cached, cached_tabs) = pair
    for tabs in (plain_tabs, cached_tabs):
        tabs.setCurrentIndex(2)
    assert worst_difference(plain, cached) <= 1
    for window in (plain, cached):
        window.setPalette(QPalette(QColor("#24262b")))  # a dark window, as the dark theme's
    qtbot.wait(10)
    assert cached.palette().color(QPalette.ColorRole.Window) == plain.palette().color(
        QPalette.ColorRole.Window
    )
    assert worst_difference(plain, cached) <= 1


def test_an_unchanged_look_is_drawn_once(pair):
    _, (cached, tabs) = pair
    toolbar = cached.findChild(CachedToolBar)
    cached.grab()
    drawn = {id(w): [p.cacheKey() for p in w._cache._looks.values()] for w in (toolbar, tabs)}
    cached.grab()
    cached.repaint()
    again = {id(w): [p.cacheKey() for p in w._cache._looks.values()] for w in (toolbar, tabs)}
    assert again == drawn
    assert all(drawn.values())  # both did draw through the cache


def test_the_cached_scroll_bar_looks_like_a_plain_one_and_draws_once_per_look(qtbot):
    bars = []
    for kind in (QScrollBar, CachedScrollBar):
        bar = kind(Qt.Orientation.Vertical)
        qtbot.addWidget(bar)
        bar.setRange(0, 400)
        bar.setPageStep(100)
        bar.setValue(120)
        bar.resize(14, 300)
        bar.show()
        bars.append(bar)
    plain, cached = (
        bar.grab().toImage().convertToFormat(QImage.Format.Format_RGB32) for bar in bars
    )
    assert plain.size() == cached.size()
    worst = max(
        abs(getattr(plain.pixelColor(x, y), part)() - getattr(cached.pixelColor(x, y), part)())
        for x in range(plain.width())
        for y in range(plain.height())
        for part in ("red", "green", "blue")
    )
    assert worst <= 1  # the style's own drawing, composited once more: at most rounding
    bar = bars[1]
    (drawn,) = (pixmap.cacheKey() for pixmap in bar._cache._looks.values())
    bar.grab()
    assert [p.cacheKey() for p in bar._cache._looks.values()] == [drawn], (
        "unchanged: not drawn again"
    )
    bar.setValue(200)
    bar.grab()
    assert len(bar._cache._looks) == 2  # a new look, drawn once; the old one kept for coming back
    bar.setValue(120)
    bar.grab()
    assert len(bar._cache._looks) == 2 and drawn in [
        p.cacheKey() for p in bar._cache._looks.values()
    ]
