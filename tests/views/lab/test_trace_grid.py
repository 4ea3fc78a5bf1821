"""TraceGrid: one findable card per answer, columns follow the width, a toggle moves nothing."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtGui import QFont, QImage
from PySide6.QtWidgets import QApplication, QWidget

from grpo_desktop.core.lab.lab_snapshot import LabSnapshot, build_snapshot
from grpo_desktop.core.lab.problems import get_problem
from grpo_desktop.views.lab.trace_card import TraceCard
from grpo_desktop.views.lab.trace_grid import TraceGrid


def make_snapshot(rewards, problem_id: str = "mult-23x47") -> LabSnapshot:
    """A snapshot built exactly as the state builds it: the checker grades each card's text."""
    return build_snapshot(get_problem(problem_id), [bool(r) for r in rewards])


def rewards_for(group_size: int) -> list[int]:
    return [1 if i % 3 == 0 else 0 for i in range(group_size)]


class Host(QWidget):
    """A plain window holding the grid, filling it (no layout: the offscreen platform warns
    when a layout sets a top-level window's minimum size)."""

    def __init__(self) -> None:
        super().__init__()
        self.grid = TraceGrid(parent=self)

    def resizeEvent(self, event) -> None:
        self.grid.setGeometry(self.rect())


@pytest.fixture
def window(qtbot):
    host = Host()
    grid = host.grid
    qtbot.addWidget(host)
    host.resize(900, 600)
    with qtbot.waitExposed(host):
        host.show()
    return host, grid


def findable(host: QWidget, group_size: int) -> list[TraceCard | None]:
    return [host.findChild(TraceCard, f"traceCard{i}") for i in range(group_size)]


def geometries(grid: TraceGrid) -> list:
    return [card.geometry() for card in grid.cards()]


@pytest.mark.parametrize("group_size", [4, 8, 64])
def test_grid_creates_exactly_g_findable_cards(window, group_size):
    host, grid = window
    grid.show_snapshot(make_snapshot(rewards_for(group_size)))
    cards = findable(host, group_size)
    assert all(card is not None and card.isVisible() for card in cards)
    assert [card.index for card in cards] == list(range(group_size))
    assert host.findChild(TraceCard, f"traceCard{group_size}") is None
    assert grid.card(2) is cards[2]
    assert grid.group_size == group_size


def test_shrinking_from_64_to_4_leaves_only_4_findable_cards(window):
    host, grid = window
    grid.show_snapshot(make_snapshot(rewards_for(64)))
    grid.show_snapshot(make_snapshot([1, 0, 0, 1]))
    assert all(card is not None for card in findable(host, 4))
    assert all(host.findChild(TraceCard, f"traceCard{i}") is None for i in range(4, 64))
    visible = [c for c in host.findChildren(TraceCard) if c.isVisible()]
    assert sorted(c.objectName() for c in visible) == [f"traceCard{i}" for i in range(4)]
    with pytest.raises(IndexError):
        grid.card(4)
    # And growing again reuses the pool: all 64 findable once more.
    grid.show_snapshot(make_snapshot(rewards_for(64)))
    assert all(card is not None and card.isVisible() for card in findable(host, 64))


def test_card_clicks_are_re_emitted_by_the_grid(qtbot, window):
    _, grid = window
    grid.show_snapshot(make_snapshot([1, 0, 0, 1]))
    with qtbot.waitSignal(grid.toggle_requested, timeout=1000) as blocker:
        qtbot.mouseClick(grid.card(2), Qt.MouseButton.LeftButton)
    assert blocker.args == [2]


def test_column_count_grows_with_the_width(qtbot, window):
    host, grid = window
    grid.show_snapshot(make_snapshot(rewards_for(64)))
    counts = []
    for width in (300, 600, 900, 1280, 1800):
        host.resize(width, 600)
        qtbot.waitUntil(lambda w=width: grid.width() == w, timeout=1000)
        counts.append(grid.column_count())
    assert counts == sorted(counts)
    assert counts[0] < counts[-1]
    # Cards stretch equally to fill a row.
    first_row = [c for c in grid.cards() if c.y() == grid.card(0).y()]
    assert len(first_row) == grid.column_count()
    assert len({c.width() for c in first_row}) <= 2  # leftover pixels spread one by one


def test_a_toggle_does_not_move_or_resize_any_card(window):
    _, grid = window
    rewards = [1, 0, 0, 1]
    grid.show_snapshot(make_snapshot(rewards))
    before = geometries(grid)
    for i in range(4):
        rewards[i] ^= 1
        grid.show_snapshot(make_snapshot(rewards))
        assert geometries(grid) == before
    assert grid.card(0).property("correct") is False


def test_a_toggle_at_g64_does_not_move_or_resize_any_card(window):
    _, grid = window
    rewards = rewards_for(64)
    grid.show_snapshot(make_snapshot(rewards))
    before = geometries(grid)
    rewards[10] ^= 1
    grid.show_snapshot(make_snapshot(rewards))
    assert geometries(grid) == before
    assert grid.card(10).property("correct") is bool(rewards[10])


def test_cards_are_compact_above_g8(window):
    _, grid = window
    grid.fill = False  # compare the cards' own sizes, not how far they grow into the height
    grid.show_snapshot(make_snapshot(rewards_for(8)))
    assert not grid.compact
    assert not any(card.compact for card in grid.cards())
    full_width = grid.card(0).minimum_card_width()
    grid.show_snapshot(make_snapshot(rewards_for(9)))
    assert grid.compact
    assert all(card.compact for card in grid.cards())
    assert grid.card(0).minimum_card_width() < full_width


def test_no_horizontal_scroll_bar_at_1280_px_with_g64(qtbot, window):
    host, grid = window
    host.resize(1280, 800)
    qtbot.waitUntil(lambda: grid.width() == 1280, timeout=1000)
    grid.show_snapshot(make_snapshot(rewards_for(64)))
    assert not grid.horizontalScrollBar().isVisible()
    right = max(card.geometry().right() for card in grid.cards())
    assert right < grid.viewport().width()
    assert grid.widget().width() <= grid.viewport().width()


def show_64_cards_in_a_short_grid(qtbot, host, grid) -> None:
    """64 cards in a 300 px tall grid: more rows than fit, so it scrolls vertically."""
    host.resize(600, 300)
    qtbot.waitUntil(lambda: grid.height() == 300, timeout=1000)
    grid.show_snapshot(make_snapshot(rewards_for(64)))
    qtbot.waitUntil(grid.verticalScrollBar().isVisible, timeout=1000)


def test_rows_grow_downwards_and_scroll_vertically(qtbot, window):
    host, grid = window
    show_64_cards_in_a_short_grid(qtbot, host, grid)
    assert grid.widget().height() > grid.viewport().height()
    assert not grid.horizontalScrollBar().isVisible()


def test_arrow_keys_move_focus_between_cards(qtbot, window):
    _, grid = window
    grid.show_snapshot(make_snapshot(rewards_for(16)))
    columns = grid.column_count()
    assert columns > 1
    grid.card(0).setFocus()
    qtbot.waitUntil(grid.card(0).hasFocus, timeout=1000)

    qtbot.keyClick(grid.card(0), Qt.Key.Key_Right)
    assert grid.card(1).hasFocus()
    qtbot.keyClick(grid.card(1), Qt.Key.Key_Down)
    assert grid.card(1 + columns).hasFocus()
    qtbot.keyClick(grid.card(1 + columns), Qt.Key.Key_Left)
    assert grid.card(columns).hasFocus()
    qtbot.keyClick(grid.card(columns), Qt.Key.Key_Up)
    assert grid.card(0).hasFocus()
    qtbot.keyClick(grid.card(0), Qt.Key.Key_Left)  # at the edge: stays
    assert grid.card(0).hasFocus()


def test_arrow_keys_do_not_toggle(qtbot, window):
    _, grid = window
    grid.show_snapshot(make_snapshot([1, 0, 0, 1]))
    grid.card(0).setFocus()
    with qtbot.assertNotEmitted(grid.toggle_requested):
        qtbot.keyClick(grid.card(0), Qt.Key.Key_Right)


def test_page_down_still_scrolls_the_grid(qtbot, window):
    host, grid = window
    host.resize(600, 300)
    qtbot.waitUntil(lambda: grid.height() == 300, timeout=1000)
    grid.show_snapshot(make_snapshot(rewards_for(64)))
    grid.card(0).setFocus()
    qtbot.waitUntil(grid.card(0).hasFocus, timeout=1000)
    assert grid.verticalScrollBar().value() == 0
    qtbot.keyClick(grid.card(0), Qt.Key.Key_PageDown)
    assert grid.verticalScrollBar().value() > 0


def test_theme_reaches_every_card(window):
    from dataclasses import replace

    from grpo_desktop.core.common.theme import LIGHT

    _, grid = window
    grid.show_snapshot(make_snapshot([1, 0, 0, 1]))
    before = grid.card(0).height()
    grid.set_theme(replace(LIGHT, name="big", type_scale=1.6))
    assert grid.card(0).height() > before


def test_a_larger_widget_font_reflows_into_larger_cards(window):
    _, grid = window
    grid.fill = False  # the zoom alone: no growing into the height on top of it
    grid.show_snapshot(make_snapshot([1, 0, 0, 1]))
    before = grid.card(0).size()
    columns = grid.column_count()
    font = QFont(grid.font())
    font.setPointSizeF(font.pointSizeF() * 1.8)
    grid.setFont(font)  # what an app-wide zoom does
    assert grid.card(0).height() > before.height()
    assert grid.column_count() < columns


def test_an_empty_grid_has_sensible_size_hints_and_no_findable_cards(qtbot):
    grid = TraceGrid()
    qtbot.addWidget(grid)
    assert grid.sizeHint().width() > grid.minimumSizeHint().width() > 0
    assert grid.findChild(TraceCard, "traceCard0") is None
    assert grid.group_size == 0


def test_a_group_shown_before_the_grid_has_a_size_fills_the_first_size_it_gets(qtbot):
    """The window's grid gets its group while it is built, before it has any size: its cards
    are placed when it first gets one."""
    host = Host()
    qtbot.addWidget(host)
    grid = host.grid
    grid.show_snapshot(make_snapshot([1, 0, 0, 1]))
    host.resize(900, 600)
    with qtbot.waitExposed(host):
        host.show()
    boxes = geometries(grid)
    assert grid.column_count() == 2 and len({box.y() for box in boxes}) == 2
    assert all(box.width() > 400 for box in boxes)
    assert max(box.right() for box in boxes) >= grid.viewport().width() - 10
    assert not any(a.intersects(b) for i, a in enumerate(boxes) for b in boxes[i + 1 :])


def test_grown_cards_do_not_raise_the_grids_size_hints(qtbot):
    grid = TraceGrid()
    qtbot.addWidget(grid)
    grid.show_snapshot(make_snapshot([1, 0, 0, 1]))
    grid.resize(600, 300)
    grid.show()
    plain_hint, plain_minimum = grid.sizeHint(), grid.minimumSizeHint()
    grid.resize(1800, 1600)  # room to grow
    qtbot.waitUntil(lambda: grid.card_scale() > 1.5)
    assert grid.minimumSizeHint().width() <= plain_minimum.width() + 2
    assert grid.sizeHint().width() <= plain_hint.width() + 8


@pytest.mark.parametrize("group_size", [4, 16])
def test_room_for_a_banner_lengthens_the_scroll_and_moves_or_restyles_no_card(
    window, group_size, monkeypatch
):
    """The degenerate banner comes and goes on a click: the grid only scrolls further. Its
    cards are not planned again (which tried larger fonts on each of them, 2–4 ms)."""
    _host, grid = window
    grid.fill_reserve = lambda width: 60  # the banner's room, as the window sets it
    grid.show_snapshot(make_snapshot(rewards_for(group_size)))
    grid.resize(grid.width(), grid.height() + 1)  # a new box: laid out, filling it
    before, contents = geometries(grid), grid.widget().height()
    fonts = [card.font() for card in grid.cards()]
    planned = []
    original = TraceGrid._plan
    monkeypatch.setattr(TraceGrid, "_plan", lambda self, a: planned.append(a) or original(self, a))
    grid.set_bottom_reserve(60)
    assert grid.widget().height() == contents + 60
    grid.set_bottom_reserve(0)
    assert grid.widget().height() == contents
    assert planned == []
    assert geometries(grid) == before
    assert [card.font() for card in grid.cards()] == fonts


def test_the_rows_in_view_are_the_cards_the_viewport_shows_at_every_scroll(qtbot, window):
    host, grid = window
    show_64_cards_in_a_short_grid(qtbot, host, grid)
    bar = grid.verticalScrollBar()
    contents = grid.widget()
    for value in sorted(
        {0, 1, bar.maximum() // 3, bar.maximum() // 2, bar.maximum() - 1, bar.maximum()}
    ):
        bar.setValue(value)
        view = QRect(contents.mapFrom(grid.viewport(), QPoint(0, 0)), grid.viewport().size())
        seen = [i for i, card in enumerate(grid.cards()) if card.geometry().intersects(view)]
        first, last = grid._rows_in_view()
        assert seen, value
        assert first <= seen[0] and seen[-1] < last, (value, first, last, seen)
        # whole rows: at most the rows the viewport touches
        assert last - first <= len(seen) + 2 * grid.column_count(), (value, first, last, seen)


def test_a_card_toggled_out_of_view_shows_its_new_state_when_scrolled_into_view(qtbot, window):
    host, grid = window
    host.resize(600, 300)
    qtbot.waitUntil(lambda: grid.height() == 300, timeout=1000)
    rewards = rewards_for(64)
    grid.show_snapshot(make_snapshot(rewards))
    qtbot.waitUntil(grid.verticalScrollBar().isVisible, timeout=1000)
    QApplication.processEvents()
    last = grid.card(63)
    assert last.visibleRegion().isEmpty()  # scrolled out of view
    for i in (0, 1, 63):  # every card's advantage changes, and card 63's look
        rewards[i] ^= 1
        grid.show_snapshot(make_snapshot(rewards))
        QApplication.processEvents()
    grid.verticalScrollBar().setValue(grid.verticalScrollBar().maximum())
    QApplication.processEvents()
    assert not last.visibleRegion().isEmpty()
    shown = QRect(last.mapTo(host, QPoint(0, 0)), last.size()) & host.rect()
    on_screen = host.backingStore().paintDevice().copy(shown)  # what the window shows
    drawn = host.grab(shown).toImage()  # what a full render draws
    rgb = QImage.Format.Format_RGB32
    assert on_screen.convertToFormat(rgb) == drawn.convertToFormat(rgb)
