"""The chart's solid background is filled where a click repaints, never blitted from a cache."""

from __future__ import annotations

from PySide6.QtWidgets import QGraphicsView

from grpo_desktop.core.common.theme import DARK, LIGHT, PROJECTOR
from grpo_desktop.views.lab.advantage_chart import AdvantageChart


def test_the_background_is_filled_not_blitted_from_a_cached_pixmap(qtbot):
    """pyqtgraph keeps the background as a pixmap, whose blit Qt splits across threads and
    waits for: at 200 % on a busy 2-core machine the wait was 7 % of a click's frame."""
    chart = AdvantageChart(LIGHT)
    qtbot.addWidget(chart)
    chart.resize(600, 400)
    with qtbot.waitExposed(chart):
        chart.show()
    assert chart.cacheMode() == QGraphicsView.CacheModeFlag.CacheNone
    for theme in (DARK, PROJECTOR, LIGHT):
        chart.set_theme(theme)
        image = chart.grab().toImage()
        assert image.pixelColor(2, 2).name() == theme.surface.lower()
