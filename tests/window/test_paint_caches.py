"""The lab's chrome blits its looks after start-up, and after a click, a new theme, a zoom or a
toggled action it shows exactly what Qt itself would draw."""

from __future__ import annotations

import numpy as np
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication, QLabel, QMenuBar, QTabBar

from grpo_desktop.views.common.render_cache import PaintCache
from grpo_desktop.views.lab.stats_panel import FittedNumber


def pixels(image: QImage) -> np.ndarray:
    image = image.convertToFormat(QImage.Format.Format_RGB32)
    rows = np.frombuffer(image.constBits(), np.uint8).reshape(image.height(), image.bytesPerLine())
    return rows[:, : image.width() * 4].astype(int)


def settle() -> None:
    for _ in range(3):
        QApplication.processEvents()


def cached_and_own(window) -> tuple[QImage, QImage]:
    """The window as the caches show it, and as Qt draws it with every cache taken away."""
    window.repaint()
    settle()  # new looks are rendered at the first idle moment
    cached = window.grab().toImage()
    caches = window.findChildren(PaintCache)
    for cache in caches:
        cache.parent().removeEventFilter(cache)
    own = window.grab().toImage()
    for cache in caches:
        cache.parent().installEventFilter(cache)
    return cached, own


def test_after_start_up_the_menu_bar_tabs_and_tile_captions_blit_their_looks(window):
    window.install_deferred_features()
    settle()
    menu_bar = window.findChild(QMenuBar)
    tab_bar = window.explain_tabs.findChild(QTabBar)
    captions = [label for label in window.findChildren(QLabel, "statCaption")]
    assert len(captions) == 4
    for widget in (menu_bar, tab_bar, *captions):
        assert widget.findChild(PaintCache) is not None, widget
    assert all(number.findChild(PaintCache) is None for number in window.findChildren(FittedNumber))


def test_clicks_themes_zoom_and_actions_show_what_qt_would_draw(window):
    window.install_deferred_features()
    settle()
    steps = (
        lambda: window.workbench.toggle(0),
        lambda: window.presentation.set_theme("projector", remember=False),
        lambda: window.presentation.set_zoom(1.5, remember=False),
        lambda: window.view_toggle.toggle(),  # "Show rewards" / "Show advantages"
        lambda: window.explain_tabs.setCurrentIndex(1),
        lambda: window.convention_combo.setCurrentIndex(1),
        lambda: window.presentation.set_theme("dark", remember=False),
    )
    for step in steps:
        step()
        cached, own = cached_and_own(window)
        assert cached.size() == own.size()
        assert int(np.abs(pixels(cached) - pixels(own)).max()) <= 1
    assert sum(cache.looks_kept() for cache in window.findChildren(PaintCache)) > 20
