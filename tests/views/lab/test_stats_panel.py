"""StatsPanel: four tiles of one height, aligned, with nothing clipped or overlapping."""

from __future__ import annotations

import pytest
from event_log import EventLog
from PySide6.QtGui import QFont, QGuiApplication, QImage
from PySide6.QtWidgets import QApplication

from grpo_desktop.core.common.theme import THEMES
from grpo_desktop.core.lab.lab_snapshot import build_snapshot
from grpo_desktop.core.lab.problems import get_problem
from grpo_desktop.views.common import render_cache, text_runs
from grpo_desktop.views.lab.stats_panel import StatsPanel


@pytest.fixture
def zoomed():
    base = QFont(QGuiApplication.font())

    def zoom(factor: float) -> None:
        font = QFont(base)
        font.setPointSizeF(base.pointSizeF() * factor)
        QApplication.setFont(font)

    yield zoom
    QApplication.setFont(base)


def layout_problems(panel: StatsPanel) -> list[str]:
    problems = []
    heights = {tile.height() for tile in panel.tiles}
    if len(heights) > 1:
        problems.append(f"tiles of different heights {sorted(heights)}")
    rows: dict[int, set[int]] = {}
    for index, tile in enumerate(panel.tiles):
        top = tile.mapTo(panel, tile.rect().topLeft()).y()
        rows.setdefault(index // panel._columns, set()).add(top)
    if any(len(tops) > 1 for tops in rows.values()):
        problems.append(f"tiles of one row start at different heights {rows}")
    for tile in panel.tiles:
        name = tile.objectName()
        caption, value, note = tile.caption, tile.value, tile.note
        for label in (caption, note):
            if label.heightForWidth(label.width()) > label.height():
                problems.append(f"{name}: {label.text()!r} needs more height than it has")
            if label.fontMetrics().horizontalAdvance(label.text().split()[0]) > label.width():
                problems.append(f"{name}: {label.text()!r} is cut mid-word")
        if value.geometry().bottom() >= note.geometry().top():
            problems.append(f"{name}: the number covers the note")
        if caption.geometry().bottom() >= value.geometry().top():
            problems.append(f"{name}: the caption covers the number")
        if note.geometry().bottom() > tile.contentsRect().bottom():
            problems.append(f"{name}: the note sticks out of the tile")
        shown = value.shown_font()
        text_width = value.fontMetrics().horizontalAdvance(value.text())
        scale = shown.pointSizeF() / value.font().pointSizeF()
        if text_width * scale > value.contentsRect().width() + 1:
            problems.append(f"{name}: {value.text()!r} is wider than its tile")
    return problems


@pytest.mark.parametrize("theme", list(THEMES))
@pytest.mark.parametrize("zoom", [1.0, 1.5, 2.0, 3.0])
@pytest.mark.parametrize("width", [440, 620, 760, 1150])
def test_tiles_share_one_height_and_nothing_is_clipped(qtbot, zoomed, theme, zoom, width):
    zoomed(zoom)
    panel = StatsPanel(THEMES[theme])
    qtbot.addWidget(panel)
    panel.show_snapshot(build_snapshot(get_problem("frac-half-plus-quarter"), [1, 0, 1, 1, 0, 1]))
    panel.resize(width, 100)
    panel.show()
    QApplication.processEvents()
    panel.resize(width, panel.heightForWidth(width))
    QApplication.processEvents()
    assert layout_problems(panel) == []


def test_the_par_tile_is_no_taller_and_no_lower_than_the_others_at_default_size(qtbot):
    panel = StatsPanel(THEMES["light"])
    qtbot.addWidget(panel)
    panel.show_snapshot(build_snapshot(get_problem("mult-23x47"), [1, 0, 0, 1]))
    panel.resize(750, 100)
    panel.show()
    QApplication.processEvents()
    par, std = panel.par, panel.std
    assert par.geometry().top() == std.geometry().top()
    assert par.height() == std.height()
    assert (
        par.value.mapTo(panel, par.value.rect().topLeft()).y()
        == std.value.mapTo(panel, std.value.rect().topLeft()).y()
    )


def test_numbers_shown_before_the_panel_has_a_size_take_the_height_of_its_first_size(qtbot):
    """The window's panel gets its first numbers while it is built, before it has a size: its
    tiles were evened for a width it never had, and the first screen laid the lab out twice."""
    from PySide6.QtCore import QEvent
    from PySide6.QtWidgets import QVBoxLayout, QWidget

    window = QWidget()
    qtbot.addWidget(window)
    column = QVBoxLayout(window)
    panel = StatsPanel(THEMES["light"])
    column.addWidget(panel)
    column.addStretch(1)
    panel.show_snapshot(build_snapshot(get_problem("mult-23x47"), [1, 0, 0, 1]))
    heights = EventLog(QEvent.Type.Resize, panel, record=lambda _, event: event.size().height())
    window.resize(900, 400)
    window.show()
    QApplication.processEvents()
    assert heights.seen == [panel.height()]
    assert layout_problems(panel) == []


def test_new_numbers_do_not_lay_the_window_out_again_but_a_new_font_does(qtbot):
    # A label's new text asks every layout up to the window to recompute (~1.5 ms a click);
    # the numbers keep their size, so a click must not. A zoom still re-lays the tiles out.
    from PySide6.QtCore import QEvent
    from PySide6.QtWidgets import QVBoxLayout, QWidget

    window = QWidget()
    qtbot.addWidget(window)
    panel = StatsPanel(THEMES["light"])
    QVBoxLayout(window).addWidget(panel)
    panel.show_snapshot(build_snapshot(get_problem("mult-23x47"), [1, 0, 0, 1]))
    window.resize(900, 200)
    window.show()
    QApplication.processEvents()
    requests = EventLog(QEvent.Type.LayoutRequest)
    requests.watch(QApplication.instance())  # to any widget, the tiles or above
    panel.show_snapshot(build_snapshot(get_problem("mult-23x47"), [1, 1, 0, 1, 0, 0]))
    QApplication.processEvents()
    assert panel.par.value.text() == "0.5"
    QApplication.instance().removeEventFilter(requests)
    assert requests.count == 0
    value_height = panel.par.value.height()
    font = QFont(panel.par.value.font())
    font.setPointSizeF(font.pointSizeF() * 1.5)
    panel.par.value.setFont(font)
    QApplication.processEvents()
    assert panel.par.value.height() > value_height  # the tile made room for the larger number
    assert layout_problems(panel) == []


def test_each_tile_draws_its_rounded_box_in_the_themes_colours_once_per_look(qtbot):
    for theme in THEMES.values():
        panel = StatsPanel(theme)
        qtbot.addWidget(panel)
        panel.resize(760, 100)
        panel.show_snapshot(build_snapshot(get_problem("mult-23x47"), [True, False]))
        panel.show()
        QApplication.processEvents()
        for tile in panel.tiles:
            image = tile.grab().toImage()
            middle = image.height() // 2
            assert image.pixelColor(0, middle).name() == theme.border  # the left edge
            assert image.pixelColor(4, middle).name() == theme.surface  # inside the border
            assert image.pixelColor(2, 2).name() != theme.surface  # a round corner, not square
            box = tile.box.pixmap()
            tile.repaint()
            assert tile.box.pixmap() is box  # the same size and colours: not drawn again
        panel.set_theme(THEMES["dark" if theme.name != "dark" else "light"])
        assert all(tile.box.colours()[0] != theme.surface for tile in panel.tiles)


def grab_pixels(widget) -> QImage:
    return widget.grab().toImage().convertToFormat(QImage.Format.Format_RGB32)


@pytest.mark.parametrize("theme", ["light", "projector"])
def test_the_numbers_blit_what_direct_drawing_draws_and_never_an_old_number(
    qtbot, zoomed, monkeypatch, theme
):
    zoomed(2.0)  # 200 %: the big numbers' glyphs are past Qt's glyph cache
    problem = get_problem("mult-23x47")
    panel = StatsPanel(THEMES[theme])
    qtbot.addWidget(panel)
    panel.resize(1200, 260)
    panel.show()
    qtbot.waitExposed(panel)

    def shown(correct: list[bool]) -> QImage:
        panel.show_snapshot(build_snapshot(problem, correct))
        return grab_pixels(panel)

    # Qt's first rendering of a glyph at a size differs from its later ones by up to 8/255 on
    # 0.2-0.3 % of the pixels, drawn directly both times: which drawing came first then
    # depended on the tests run before this one in its process. Each look is drawn directly
    # once first, so the comparisons below see our drawings, not Qt's first one.
    monkeypatch.setattr(render_cache, "CACHING", False)
    for look in (THEMES["dark"], THEMES[theme]):
        panel.set_theme(look)
        shown([True, True, True, False])
        shown([True, False, False, True])
    monkeypatch.setattr(render_cache, "CACHING", True)
    text_runs.forget()  # this test's drawings only: none an earlier test's panel left
    first = shown([True, False, False, True])
    kept_before = text_runs.runs_kept()
    # Par and std (0.5 each), up and down (2 each), each drawn once; an equal number drawn in
    # the same colour is the same drawing (in the projector theme, one of those pairs is).
    assert kept_before >= 3
    second = shown([True, True, True, False])
    assert second != first
    assert shown([True, True, True, False]) == second  # blitted now
    monkeypatch.setattr(render_cache, "CACHING", False)  # drawn directly, the same way
    assert looks_alike(shown([True, True, True, False]), second)
    assert looks_alike(shown([True, False, False, True]), first)
    panel.set_theme(THEMES["dark"])  # a new colour: new drawings, never the light ones
    monkeypatch.setattr(render_cache, "CACHING", True)
    dark = shown([True, False, False, True])
    monkeypatch.setattr(render_cache, "CACHING", False)
    assert looks_alike(shown([True, False, False, True]), dark)


def looks_alike(a: QImage, b: QImage) -> bool:
    """The same but for a few edge pixels of the big glyphs (filled as paths, see text_runs)."""
    import numpy as np

    def values(image: QImage) -> np.ndarray:
        rows = np.frombuffer(image.constBits(), np.uint8).reshape(image.height(), -1)
        return rows[:, : image.width() * 4].astype(int)

    difference = np.abs(values(a) - values(b))
    return a.size() == b.size() and difference.max() <= 8 and (difference > 0).mean() < 0.002


def test_numbers_prepared_ahead_are_blitted_and_look_as_drawn_in_the_frame(
    qtbot, zoomed, monkeypatch
):
    zoomed(2.0)
    problem = get_problem("mult-23x47")
    panel = StatsPanel(THEMES["light"])
    qtbot.addWidget(panel)
    panel.resize(1200, 260)
    panel.show()
    qtbot.waitExposed(panel)
    panel.show_snapshot(build_snapshot(problem, [True, False, False, True]))
    grab_pixels(panel)
    ahead = build_snapshot(problem, [True, True, True, False, False])  # 0.6, 0.4899, 3, 2
    panel.prepare(ahead)
    drawn = []
    original = text_runs.draw_kept
    monkeypatch.setattr(render_cache.DRAWINGS, "get", counting_get(render_cache.DRAWINGS, drawn))
    panel.show_snapshot(ahead)
    seen = grab_pixels(panel)
    assert drawn == []  # every number was drawn ahead
    monkeypatch.undo()
    assert text_runs.draw_kept is original
    render_cache.DRAWINGS.clear(text_runs.KIND)
    assert grab_pixels(panel) == seen  # drawn afresh in the frame: the same pixels


def counting_get(drawings, drawn: list):
    """``drawings.get`` that notes each drawing it has to make."""
    get = drawings.get

    def counted(key, render):
        return get(key, lambda: drawn.append(key) or render())

    return counted
