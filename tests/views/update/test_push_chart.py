"""PushChart: each answer's total push under two presets, so the length bias is seen."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtGui import QAccessible
from PySide6.QtWidgets import QApplication

from grpo_desktop.core.common.theme import DARK, LIGHT, PROJECTOR
from grpo_desktop.core.update.update_settings import UpdateSettings
from grpo_desktop.core.update.update_snapshot import (
    AnswerRow,
    PresetInfo,
    TokenView,
    UpdateSnapshot,
)
from grpo_desktop.views.common.pyqtgraph_internals import GroupedBars
from grpo_desktop.views.update.push_chart import PushChart

MINUS = "\u2212"
TOKEN_MEAN = PresetInfo(
    "verl/token-mean", "verl · token-mean", "Σ ℓ / Σ|o|", "every token counts once", "verl"
)
SEQ_MEAN = PresetInfo(
    "verl/seq-mean-token-mean",
    "verl · seq-mean-token-mean",
    "1/G Σ 1/|o| Σ ℓ",
    "every answer counts once",
    "verl",
)


def row(index: int, reward: float, total: float, compare: float, length: int = 3) -> AnswerRow:
    token = TokenView("a", total / length, False, False, False)
    return AnswerRow(index, reward, reward - 0.5, (token,) * length, total, compare, reward > 0)


def snapshot(rows: tuple[AnswerRow, ...]) -> UpdateSnapshot:
    return UpdateSnapshot(
        settings=UpdateSettings(),
        preset=TOKEN_MEAN,
        compare_preset=SEQ_MEAN,
        rows=rows,
        loss=0.0,
        compare_loss=0.0,
        clip_fraction=0.0,
        kl_mean=None,
        inner_step=0,
        max_abs_push=1.0,
        status="Step 0 is on-policy.",
        selected=None,
        clip_c_applies=True,
        kl_estimators=("k1", "k2", "k3"),
        presets=(TOKEN_MEAN, SEQ_MEAN),
    )


LENGTH_BIAS = snapshot(
    (
        row(0, 1.0, 0.2, 0.577, length=2),
        row(1, 0.0, -0.55, -0.289, length=11),
        row(2, 0.0, -0.4, 0.0, length=8),
    )
)


def group(size: int) -> UpdateSnapshot:
    return snapshot(
        tuple(
            row(i, float(i % 2), 0.1 * (i + 1) * (1 if i % 2 else -1), 0.05 * (i % 3 - 1))
            for i in range(size)
        )
    )


@pytest.fixture
def chart(qtbot):
    chart = PushChart(LIGHT)
    qtbot.addWidget(chart)
    chart.resize(600, 350)
    with qtbot.waitExposed(chart):
        chart.show()
    return chart


def test_bars_are_each_answers_total_under_both_presets(chart):
    chart.show_snapshot(LENGTH_BIAS)
    main, compare = chart.bar_heights()
    assert main == [0.2, -0.55, -0.4]
    assert compare == [0.577, -0.289, 0.0]


def test_bars_are_coloured_by_sign_and_the_presets_by_style(chart):
    chart.show_snapshot(LENGTH_BIAS)
    main, compare = chart.bar_colours()
    assert main == [LIGHT.up, LIGHT.down, LIGHT.down]
    assert compare == [LIGHT.up, LIGHT.down, LIGHT.neutral]
    main_style = {b.style() for b in chart.main_bars.opts["brushes"]}
    compare_style = {b.style() for b in chart.compare_bars.opts["brushes"]}
    assert main_style.isdisjoint(compare_style)  # solid vs hatched: told apart without colour


def test_legend_names_both_presets_and_the_axis_marks_right_and_wrong(chart):
    chart.show_snapshot(LENGTH_BIAS)
    main, compare = chart.legend_texts()
    assert "verl · token-mean" in main
    assert "verl · seq-mean-token-mean" in compare
    assert chart.x_tick_labels() == ["#1 ✓", "#2 ✗", "#3 ✗"]


def test_caption_states_each_presets_net_push_in_words(chart):
    chart.show_snapshot(LENGTH_BIAS)
    caption = chart.caption_text()
    assert f"verl · token-mean: net {MINUS}0.750 (the batch's likelihood goes down)" in caption
    assert "verl · seq-mean-token-mean: net +0.288 (goes up)" in caption
    assert chart.accessibleName()
    assert chart.accessibleDescription().startswith(caption + "\n")  # then every answer's bars


def test_caption_says_so_when_a_preset_has_no_net_push(chart):
    chart.show_snapshot(snapshot((row(0, 1.0, 0.5, 0.25), row(1, 0.0, -0.5, 0.25))))
    caption = chart.caption_text()
    assert "token-mean: net 0.000 (no net change)" in caption
    assert "seq-mean-token-mean: net +0.500 (goes up)" in caption


def test_value_labels_use_the_real_minus_sign(chart):
    chart.show_snapshot(LENGTH_BIAS)
    assert chart.labels_visible()
    assert chart.label_texts() == [
        "+0.200",
        f"{MINUS}0.550",
        f"{MINUS}0.400",
        "+0.577",
        f"{MINUS}0.289",
        "0.000",
    ]


def test_value_labels_sit_beyond_their_bars_ends_inside_the_plot(chart):
    chart.show_snapshot(LENGTH_BIAS)
    chart.grab()
    view = chart.plot.getViewBox()
    rects = chart.value_labels.scene_rects()
    main, compare = chart.bar_heights()
    assert len(rects) == len(main) + len(compare) == 6
    zero = view.mapViewToScene(pg.Point(1, 0)).y()
    for rect, value in zip(rects, main + compare):
        end = view.mapViewToScene(pg.Point(1, value)).y()
        if value >= 0:
            assert rect.bottom() <= end <= zero
        else:
            assert rect.top() >= end > zero
        assert view.sceneBoundingRect().contains(rect)


def test_y_range_is_symmetric_and_covers_both_presets_with_headroom(chart):
    chart.show_snapshot(LENGTH_BIAS)
    low, high = chart.y_range()
    assert low == -high
    assert high > 0.577
    chart.show_snapshot(snapshot((row(0, 1.0, 0.1, 3.0), row(1, 0.0, -0.1, -0.2))))
    assert chart.y_range()[1] > 3.0


def test_group_size_changes_update_the_same_items(chart):
    chart.show_snapshot(group(2))
    items = list(chart.plot.items)
    bars = (chart.main_bars, chart.compare_bars)
    for size in (16, 3, 64, 2):
        chart.show_snapshot(group(size))
        main, compare = chart.bar_heights()
        assert len(main) == len(compare) == size
        assert (chart.main_bars, chart.compare_bars) == bars
        bar_items = [i for i in chart.plot.items if isinstance(i, pg.BarGraphItem)]
        assert bar_items == list(bars)
        assert chart.plot.items == items  # nothing added, nothing removed

    assert chart.x_tick_labels()[0] == "#1 ✗"


def test_large_groups_thin_the_answer_labels_and_hide_crowded_values(chart):
    chart.show_snapshot(group(64))
    ticks = chart.x_tick_labels()
    assert 1 < len(ticks) < 64
    assert not chart.labels_visible()
    assert chart.label_texts() == []


def test_projector_theme_draws_thicker_strokes(chart):
    chart.show_snapshot(LENGTH_BIAS)
    light_width = chart.main_bars.opts["pens"][0].widthF()
    chart.set_theme(PROJECTOR)
    assert chart.main_bars.opts["pens"][0].widthF() > light_width
    assert chart.bar_colours()[0] == [PROJECTOR.up, PROJECTOR.down, PROJECTOR.down]
    assert chart.bar_heights()[0] == [0.2, -0.55, -0.4]


def test_a_snapshot_that_moves_no_total_redraws_nothing_and_one_that_does_redraws(chart):
    chart.show_snapshot(LENGTH_BIAS)
    drawn = []
    original = chart.main_bars.setOpts
    chart.main_bars.setOpts = lambda **opts: drawn.append(opts["height"]) or original(**opts)
    chart.show_snapshot(replace(LENGTH_BIAS, status="a token selected"))
    assert drawn == []
    moved = snapshot((row(0, 1.0, 0.3, 0.577, length=2), *LENGTH_BIAS.rows[1:]))
    chart.show_snapshot(moved)
    assert drawn == [[0.3, -0.55, -0.4]]
    assert chart.bar_heights()[0] == [0.3, -0.55, -0.4]


def read(widget) -> tuple[str, str]:
    """A widget's accessible name and description, as a screen reader gets them."""
    iface = QAccessible.queryAccessibleInterface(widget)
    return iface.text(QAccessible.Text.Name), iface.text(QAccessible.Text.Description)


def test_the_push_chart_gives_each_answers_totals_under_both_presets(qtbot):
    chart = PushChart()
    qtbot.addWidget(chart)
    chart.show_snapshot(LENGTH_BIAS)
    name, description = read(chart)
    assert name == "Push per answer chart"
    assert description == (
        f"{chart.caption_text()}\n"
        "Total push per answer, verl · token-mean then verl · seq-mean-token-mean:\n"
        "answer 1: +0.200 and +0.577\n"
        "answer 2: −0.550 and −0.289\n"
        "answer 3: −0.400 and 0.000"
    )


def test_a_new_y_range_sets_no_axis_label_and_fits_from_what_was_measured(chart, monkeypatch):
    from PySide6.QtWidgets import QGraphicsView

    # No axis scales its labels: pyqtgraph would typeset a hidden axis's label (HTML) again
    # at every new range. The solid background is filled, not blitted from a cache.
    for name in ("left", "bottom", "right", "top"):
        assert chart.plot.getAxis(name).autoSIPrefix is False
    assert chart.plot_widget.cacheMode() == QGraphicsView.CacheModeFlag.CacheNone
    chart.show_snapshot(LENGTH_BIAS)
    before = chart.y_range()
    measured = []
    original = chart._legend_row_width
    monkeypatch.setattr(chart, "_legend_row_width", lambda: measured.append(1) or original())
    bigger = snapshot(tuple(replace(r, total_push=3 * r.total_push) for r in LENGTH_BIAS.rows))
    chart.show_snapshot(bigger)  # the same legends: their width is known
    assert measured == [] and chart.y_range() != before
    chart.set_theme(PROJECTOR)  # new fonts: measured again
    assert measured == [1]


def test_a_card_toggled_back_replays_both_axes_drawings(chart, monkeypatch):
    from PySide6.QtWidgets import QApplication

    drawn: list[pg.AxisItem] = []
    generate = pg.AxisItem.generateDrawSpecs
    monkeypatch.setattr(
        pg.AxisItem, "generateDrawSpecs", lambda self, p: drawn.append(self) or generate(self, p)
    )
    before = LENGTH_BIAS
    toggled = snapshot(  # card 2 now right, and every push larger: a new y range
        (row(0, 1.0, 2.2, 0.9, 2), row(1, 0.0, -1.55, -0.4, 11), row(2, 1.0, 0.8, 0.2, 8))
    )
    images, replayed = [], []
    axes = {chart.plot.getAxis("left"), chart.plot.getAxis("bottom")}
    for shown in (before, toggled) * 3:  # the first pair settles the axis's label width
        chart.show_snapshot(shown)
        drawn.clear()
        for _ in range(3):
            QApplication.processEvents()
        images.append(chart.plot_widget.grab().toImage())
        replayed.append(not axes & set(drawn))
    assert chart.x_tick_labels()[2].endswith("✓")
    assert images[4] == images[2] and images[5] == images[3]
    assert replayed[-2:] == [True, True], "both ranges and both sets of ticks were drawn before"


def totals(main: list[float], compare: list[float]) -> UpdateSnapshot:
    """A snapshot whose answers push these totals (main preset, compared preset)."""
    return snapshot(tuple(row(i, 1.0, m, c) for i, (m, c) in enumerate(zip(main, compare))))


@pytest.fixture
def options_given(monkeypatch):
    """The option names each ``GroupedBars.setOpts`` call is given, in order."""
    given: list[set[str]] = []
    set_opts = GroupedBars.setOpts

    def recording(self, **opts):
        given.append(set(opts))
        return set_opts(self, **opts)

    monkeypatch.setattr(GroupedBars, "setOpts", recording)
    return given


def rectangles(bars: GroupedBars) -> np.ndarray:
    return bars._rectarray.ndarray().copy()


def test_new_totals_of_the_same_signs_give_the_bars_new_heights_only(chart, options_given):
    chart.show_snapshot(totals([0.2, -0.5, 0.3], [0.1, -0.2, 0.4]))
    options_given.clear()
    chart.show_snapshot(totals([0.25, -0.45, 0.35], [0.15, -0.1, 0.3]))
    assert options_given == [{"height"}, {"height"}]
    assert chart.bar_heights() == ([0.25, -0.45, 0.35], [0.15, -0.1, 0.3])


def test_heights_only_place_the_bars_where_placing_them_afresh_does(chart, qtbot):
    chart.show_snapshot(totals([0.2, -0.5, 0.3], [0.1, -0.2, 0.4]))
    chart.show_snapshot(totals([0.25, -0.45, 0.35], [0.15, -0.1, 0.3]))
    fresh = PushChart(LIGHT)
    qtbot.addWidget(fresh)
    fresh.resize(600, 350)
    fresh.show()
    fresh.show_snapshot(totals([0.25, -0.45, 0.35], [0.15, -0.1, 0.3]))
    for kept, new in ((chart.main_bars, fresh.main_bars), (chart.compare_bars, fresh.compare_bars)):
        assert np.array_equal(rectangles(kept), rectangles(new))


def test_a_total_changing_sign_recolours_its_bar(chart, options_given):
    chart.show_snapshot(totals([0.2, -0.5, 0.3], [0.1, -0.2, 0.4]))
    options_given.clear()
    chart.show_snapshot(totals([0.2, 0.5, 0.3], [0.1, -0.2, 0.4]))
    assert options_given == [{"height", "pens", "brushes"}, {"height"}]
    assert chart.bar_colours()[0] == [LIGHT.up, LIGHT.up, LIGHT.up]


def test_a_new_theme_or_group_size_gives_the_bars_their_new_looks_and_places(chart):
    chart.show_snapshot(totals([0.2, -0.5, 0.3], [0.1, -0.2, 0.4]))
    chart.set_theme(DARK)
    chart.show_snapshot(totals([0.25, -0.45, 0.35], [0.15, -0.1, 0.3]))
    assert chart.bar_colours()[0] == [DARK.up, DARK.down, DARK.up]
    chart.show_snapshot(totals([0.25, -0.45], [0.15, -0.1]))
    QApplication.processEvents()
    assert len(chart.main_bars._rectarray) == 2
    assert chart.main_bars.opts["x"] == [0.8, 1.8]
