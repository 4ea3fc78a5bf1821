"""render_cache: shared drawings stay within one byte budget and one switch turns keeping off;
labels, buttons, tab bars and the menu bar blit what Qt itself drew, and never show an old look.
(The chrome's own looks are in test_render_cache_chrome.py.)"""

from __future__ import annotations

import numpy as np
from event_log import EventLog
from PySide6.QtCore import QEvent, QPoint, QPointF, Qt
from PySide6.QtGui import QCursor, QEnterEvent, QFont, QImage, QPalette
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QMenuBar,
    QTabBar,
    QToolButton,
    QWidget,
)

from grpo_desktop.views.common.render_cache import CachedScrollBar, PaintCache, cache_paints
from grpo_desktop.views.lab.stats_panel import FittedNumber


def pixels(image: QImage) -> np.ndarray:
    image = image.convertToFormat(QImage.Format.Format_RGB32)
    rows = np.frombuffer(image.constBits(), np.uint8).reshape(image.height(), image.bytesPerLine())
    return rows[:, : image.width() * 4].astype(int)


def looks_alike(a: QImage, b: QImage) -> bool:
    """Equal but for the last bit of a few edge pixels (text blended over transparency first)."""
    return a.size() == b.size() and int(np.abs(pixels(a) - pixels(b)).max()) <= 1


def own_paints(widget: QWidget) -> EventLog:
    """Installed before the cache, so Qt asks it after the cache's filter: it sees the paint
    events the cache let through to the widget's own paintEvent."""
    return EventLog(QEvent.Type.Paint, widget)


def host_with(qtbot, *widgets: QWidget) -> QWidget:
    host = QWidget()
    qtbot.addWidget(host)
    row = QHBoxLayout(host)
    for widget in widgets:
        row.addWidget(widget)
    host.resize(520, 60)
    # The pointer is put beside the host, wherever an earlier test left it: a widget under it
    # paints its hover look itself, which is not what most tests here are about. Before the
    # host shows: a window shown under the pointer has the widget there entered, and moving
    # the pointer away afterwards sends no leave on this platform.
    beside = QPoint(40, 40)
    QCursor.setPos(host.frameGeometry().bottomRight() + beside)
    host.show()
    qtbot.waitExposed(host)
    host.activateWindow()
    qtbot.waitActive(host)  # activation comes later and would empty the caches on its way
    QCursor.setPos(host.frameGeometry().bottomRight() + beside)  # the frame, now it is shown
    settle()
    assert not any(widget.underMouse() for widget in widgets)
    return host


def settle() -> None:
    for _ in range(3):
        QApplication.processEvents()


def cache_of(widget: QWidget) -> PaintCache:
    cache = widget.findChild(PaintCache)
    assert cache is not None
    return cache


def test_a_cached_widget_looks_as_qt_draws_it(qtbot):
    plain = [QLabel("Group mean (par)"), QToolButton(text="All ✓"), QTabBar()]
    cached = [QLabel("Group mean (par)"), QToolButton(text="All ✓"), QTabBar()]
    for tabs in (plain[2], cached[2]):
        tabs.addTab("Worked math")
        tabs.addTab("Rewards")
    hosts = (host_with(qtbot, *plain), host_with(qtbot, *cached))
    cache_paints(*cached)
    for widget in cached:
        widget.repaint()
    settle()  # the looks are rendered at the first idle moment
    for widget, reference in zip(cached, plain, strict=True):
        assert cache_of(widget).looks_kept() == 1
        assert looks_alike(widget.grab().toImage(), reference.grab().toImage()), widget
    assert all(host.isVisible() for host in hosts)


def test_a_new_text_or_state_shows_at_once_never_the_kept_look(qtbot):
    label, button, tabs = QLabel("0.5"), QToolButton(text="Show rewards"), QTabBar()
    button.setCheckable(True)
    for title in ("Worked math", "One model, not four", "Rewards"):
        tabs.addTab(title)
    _host = host_with(qtbot, label, button, tabs)
    cache_paints(label, button, tabs)
    for widget in (label, button, tabs):
        widget.repaint()
    settle()
    label.setText("0.25")
    button.setChecked(True)
    tabs.setCurrentIndex(2)
    settle()
    for widget in (label, button, tabs):
        fresh = widget.grab().toImage()
        widget.removeEventFilter(cache_of(widget))  # Qt's own paint of the same state
        assert looks_alike(fresh, widget.grab().toImage()), widget


def test_a_new_font_palette_size_or_enabled_state_empties_the_cache(qtbot):
    label = QLabel("answers above par")
    _host = host_with(qtbot, label)
    cache_paints(label)
    label.repaint()
    settle()
    cache = cache_of(label)
    changes = (
        lambda: label.setFont(QFont(label.font().family(), 20)),
        lambda: label.setStyleSheet("color: #b34700;"),
        lambda: label.resize(label.width() + 10, label.height()),
        lambda: label.setEnabled(False),
        lambda: label.setPalette(QPalette(Qt.GlobalColor.darkBlue)),
    )
    for change in changes:
        assert cache.looks_kept() == 1
        change()
        assert cache.looks_kept() == 0
        label.repaint()
        settle()


def shown_and_cached(qtbot, widget: QWidget) -> tuple[QWidget, EventLog]:
    """``widget`` shown in a host, its own paints counted, its cache given and filled."""
    host = host_with(qtbot, widget)
    own = own_paints(widget)
    cache_paints(widget)
    widget.repaint()
    settle()
    assert cache_of(widget).looks_kept() == 1
    return host, own


def test_repaints_of_an_unchanged_look_blit_without_qts_paint(qtbot):
    tabs = QTabBar()
    for title in ("Worked math", "One model, not four", "Rewards"):
        tabs.addTab(title)
    _host, own = shown_and_cached(qtbot, tabs)
    before = own.count
    for _ in range(5):
        tabs.repaint()
    assert own.count == before  # the cache answered every one
    tabs.setCurrentIndex(1)  # a new look: Qt paints it, then it is kept too
    tabs.repaint()
    assert own.count == before + 1


def test_under_the_pointer_a_widget_paints_its_hover_look_itself(qtbot):
    button = QToolButton(text="Sample")
    button.setAutoRaise(True)
    _host, own = shown_and_cached(qtbot, button)
    before = own.count
    QApplication.sendEvent(button, QEnterEvent(QPointF(3, 3), QPointF(3, 3), QPointF(3, 3)))
    button.repaint()
    assert own.count == before + 1  # Qt's own paint ran: the hover look, not the kept one
    QApplication.sendEvent(button, QEvent(QEvent.Type.Leave))
    button.repaint()
    assert own.count == before + 1


def test_only_qts_own_widgets_without_a_keyboard_cursor_get_a_cache(qtbot):
    selectable = QLabel("copy me")
    selectable.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByKeyboard)
    fitted = FittedNumber("statPar")
    plain = QComboBox()
    kept = [QLabel("Std"), QToolButton(), QTabBar(), QMenuBar()]
    _host = host_with(qtbot, selectable, fitted, plain, *kept)
    cache_paints(selectable, fitted, plain, *kept, kept[0])  # kept[0] twice: one cache
    assert selectable.findChild(PaintCache) is None
    assert fitted.findChild(PaintCache) is None  # a subclass draws what no key here sees
    assert plain.findChild(PaintCache) is None
    assert all(len(widget.findChildren(PaintCache)) == 1 for widget in kept)


def test_a_label_the_mouse_selects_in_blits_its_text_but_paints_a_selection_itself(qtbot):
    prompt = QLabel("What is 6 × 7?")
    prompt.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    _host = host_with(qtbot, prompt)
    own = own_paints(prompt)
    cache_paints(prompt)
    assert prompt.findChild(PaintCache) is not None
    prompt.repaint()
    QApplication.processEvents()  # the look is rendered at the next idle moment
    before = own.count
    prompt.repaint()
    assert own.count == before  # blitted
    prompt.setSelection(0, 4)
    prompt.repaint()
    assert own.count == before + 1  # the selection is drawn by Qt, never a kept look
    prompt.setSelection(0, 0)
    prompt.setText("What is 5 × 8?")
    prompt.repaint()
    assert own.count == before + 2  # a new text: painted, then kept


# -- shared drawings and the switch ---------------------------------------------------------------


def test_shared_drawings_stay_within_the_one_budget_oldest_first_out(qtbot):
    from grpo_desktop.views.common.render_cache import DrawingCache, transparent_pixmap

    cache = DrawingCache(3 * 10 * 10 * 4)  # three 10 × 10 drawings
    made = []

    def render(tag: str):
        made.append(tag)
        return transparent_pixmap(10, 10, 1.0)

    for tag in ("a", "b", "c"):
        cache.get(("box", tag), lambda tag=tag: render(tag))
    cache.get(("box", "a"), lambda: render("a again"))  # used: now the most recent
    cache.get(("chip", "d"), lambda: render("d"))  # makes room: "b" goes
    assert made == ["a", "b", "c", "d"]
    assert set(cache.pixmaps) == {("box", "a"), ("box", "c"), ("chip", "d")}
    assert cache.bytes == 3 * 400 and cache.kept("box") == 2
    cache.clear("box")
    assert list(cache.pixmaps) == [("chip", "d")] and cache.bytes == 400


def test_with_caching_off_every_drawing_is_made_afresh_and_looks_the_same(qtbot, monkeypatch):
    from grpo_desktop.views.common import render_cache
    from grpo_desktop.views.lab.stats_panel import StatTile

    tile = StatTile("Group mean (par)", "the baseline")
    qtbot.addWidget(tile)
    tile.resize(220, 120)
    kept = tile.grab().toImage()
    cache = render_cache.DrawingCache(2**20)
    made = []
    monkeypatch.setattr(render_cache, "CACHING", False)
    assert not render_cache.caching()
    for _ in range(2):
        cache.get(("box",), lambda: made.append(1) or render_cache.transparent_pixmap(4, 4, 1.0))
    assert len(made) == 2 and not cache.pixmaps
    first = tile.grab().toImage()
    box = tile.box.pixmap()
    assert tile.grab().toImage() == first == kept  # the same pixels, drawn again
    assert tile.box.pixmap() is not box


def test_the_shared_budget_grows_with_the_windows_pixels_and_gives_them_back(qtbot):
    from grpo_desktop.views.common import render_cache
    from grpo_desktop.views.common.render_cache import DRAWINGS, MEMORY_BUDGET, fit_budget

    window = QWidget()
    qtbot.addWidget(window)
    try:
        window.resize(1280, 800)
        fit_budget(window)
        assert DRAWINGS.max_bytes == MEMORY_BUDGET
        window.resize(2560, 1600)  # 200 %: every drawing has four times the pixels
        fit_budget(window)
        assert DRAWINGS.max_bytes == 4 * MEMORY_BUDGET
        window.resize(8000, 4000)
        fit_budget(window)
        assert DRAWINGS.max_bytes == int(render_cache.MOST_BUDGET_SCALE * MEMORY_BUDGET)
        window.resize(640, 400)
        fit_budget(window)
        assert DRAWINGS.max_bytes == MEMORY_BUDGET
        assert DRAWINGS.bytes <= DRAWINGS.max_bytes
    finally:
        DRAWINGS.set_budget(MEMORY_BUDGET)


def test_a_scroll_bar_back_at_any_of_a_handful_of_ranges_draws_none_of_them_again(qtbot):
    # The worked math's bar meets a few ranges as clicks change its text's height (numbers shown
    # as plain text until typeset, the ★ note): each is drawn once, however the clicks go.
    bar = CachedScrollBar(Qt.Orientation.Vertical)
    qtbot.addWidget(bar)
    bar.setPageStep(100)
    bar.resize(14, 300)
    bar.show()
    ranges = (400, 410, 420, 430, 440, 450, 460)
    for maximum in ranges:
        bar.setRange(0, maximum)
        bar.grab()
    drawn = {pixmap.cacheKey() for pixmap in bar._cache._looks.values()}
    assert len(drawn) == len(ranges)
    for maximum in ranges[::-1] + ranges:
        bar.setRange(0, maximum)
        bar.grab()
    assert {pixmap.cacheKey() for pixmap in bar._cache._looks.values()} == drawn
