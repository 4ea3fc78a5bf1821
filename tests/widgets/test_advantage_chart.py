"""AdvantageChart: bars, colours, labels and y range from real snapshots; no item churn."""

from __future__ import annotations

import dataclasses
import itertools
import random
from collections.abc import Sequence

import pyqtgraph as pg
import pytest
from PySide6.QtGui import QColor, QImage

from grpo_desktop.problems import get_problem, load_problems
from grpo_desktop.snapshot import LabSnapshot, Push, build_snapshot
from grpo_desktop.theme import LIGHT
from grpo_desktop.widgets.advantage_chart import AdvantageChart, _SignedAxis, nice_ceiling

PROBLEM_ID = "mult-23x47"
NICE = {m * 10.0**k for m in (1, 1.25, 1.5, 2, 2.5, 3, 4, 5, 6, 8) for k in range(-2, 3)}


def make_snapshot(
    rewards: Sequence[int], convention: str = "textbook", problem_id: str = PROBLEM_ID
) -> LabSnapshot:
    """A snapshot built exactly as the state builds it: the checker grades each card's text."""
    return build_snapshot(get_problem(problem_id), [bool(r) for r in rewards], convention)


@pytest.fixture
def make_chart(qtbot):
    """A factory for shown, laid-out charts (label fitting and headroom measure real pixels)."""

    def make(width: int = 640, height: int = 400, theme=LIGHT) -> AdvantageChart:
        chart = AdvantageChart(theme)
        qtbot.addWidget(chart)
        chart.resize(width, height)
        with qtbot.waitExposed(chart):
            chart.show()
        return chart

    return make


@pytest.fixture
def chart(make_chart) -> AdvantageChart:
    return make_chart()


def visible_labels(chart: AdvantageChart) -> list[pg.TextItem]:
    """The visible value labels, after a paint: TextItem fixes its transform lazily on paint."""
    chart.grab()
    return [item for item in chart._labels if item.isVisible()]


def items_of(chart: AdvantageChart, kind: type) -> list:
    return [item for item in chart.getPlotItem().items if isinstance(item, kind)]


# ------------------------------------------------------------------------------ what is drawn


def test_identity_and_stage_safety(chart):
    assert chart.objectName() == "advantageChart"
    plot = chart.getPlotItem()
    assert plot.getViewBox().state["mouseEnabled"] == [False, False]
    assert not plot.menuEnabled()
    assert not plot.autoBtn.isVisible()
    assert plot.getAxis("left").labelText == "advantage A"


def test_seed_1001(chart):
    chart.show_snapshot(make_snapshot([1, 0, 0, 1]))
    assert chart.bar_heights() == [1.0, -1.0, -1.0, 1.0]
    assert chart.bar_colours() == [LIGHT.up, LIGHT.down, LIGHT.down, LIGHT.up]
    assert chart.label_texts() == ["+1.00", "\u22121.00", "\u22121.00", "+1.00"]
    assert chart.reference_line() == (0.0, "0")


def test_seed_11110(chart):
    chart.show_snapshot(make_snapshot([1, 1, 1, 1, 0]))
    assert chart.bar_heights() == pytest.approx([0.5] * 4 + [-2.0])
    assert chart.bar_colours() == [LIGHT.up] * 4 + [LIGHT.down]
    assert chart.label_texts() == ["+0.50"] * 4 + ["\u22122.00"]


def test_all_equal_group_is_visible_as_no_signal(chart):
    chart.show_snapshot(make_snapshot([1, 1, 1, 1]))
    assert chart.bar_heights() == [0.0] * 4
    assert chart.bar_colours() == [LIGHT.neutral] * 4
    assert chart.label_texts() == ["0.00"] * 4
    # Zero-height bars get a neutral dot on the zero line, so "no signal" is seen.
    xs, ys = chart._markers.getData()
    assert list(xs) == [1, 2, 3, 4]
    assert list(ys) == [0, 0, 0, 0]
    # ... and the dots go away when the group has signal again.
    chart.show_snapshot(make_snapshot([1, 0, 1, 1]))
    assert len(chart._markers.getData()[0]) == 0


def test_labels_sit_above_positive_and_below_negative_bars(chart):
    chart.show_snapshot(make_snapshot([1, 0, 0, 1]))
    zero_y = chart.getPlotItem().getViewBox().mapViewToScene(pg.Point(1, 0)).y()
    for item, height in zip(visible_labels(chart), chart.bar_heights()):
        rect = item.sceneBoundingRect()
        bar_end = chart.getPlotItem().getViewBox().mapViewToScene(pg.Point(1, height)).y()
        if height > 0:
            assert rect.bottom() <= bar_end < zero_y
        else:
            assert rect.top() >= bar_end > zero_y


@pytest.mark.parametrize("rewards", [[1, 0, 0, 1], [1, 1, 1, 1, 0], [1, 0, 0, 0, 0], [1] * 4])
@pytest.mark.parametrize("size", [(640, 400), (400, 260)])
def test_labels_are_not_clipped(make_chart, rewards, size):
    chart = make_chart(*size)
    chart.show_snapshot(make_snapshot(rewards))
    view_rect = chart.getPlotItem().getViewBox().sceneBoundingRect()
    labels = visible_labels(chart)
    assert labels, "labels should fit at this size"
    for item in labels:
        assert view_rect.contains(item.sceneBoundingRect()), item.toPlainText()


def test_x_axis_shows_card_numbers(chart):
    chart.show_snapshot(make_snapshot([1, 0, 0, 1]))
    assert chart.x_ticks() == [1, 2, 3, 4]
    assert chart.getPlotItem().getViewBox().viewRange()[0] == pytest.approx([0.4, 4.6])


def test_x_ticks_are_thinned_at_g64(chart):
    chart.show_snapshot(make_snapshot([i % 2 for i in range(64)]))
    ticks = chart.x_ticks()
    assert chart.getPlotItem().getViewBox().viewRange()[0] == pytest.approx([0.4, 64.6])
    assert 1 in ticks
    assert 4 <= len(ticks) < 64
    px_per_card = chart._px_per_card()
    gaps = [b - a for a, b in itertools.pairwise(ticks)]
    assert min(gaps) * px_per_card >= 20  # room for "64" and a gap


def test_value_axis_uses_the_real_minus_sign(qtbot):
    axis = _SignedAxis("left")
    assert axis.tickStrings([-1.0, 0.0, 1.0], 1.0, 0.5) == ["\u22121.0", "0", "1.0"]


# ------------------------------------------------------------------------------ the y range


def test_nice_ceiling():
    assert nice_ceiling(1.0) == 1.0
    assert nice_ceiling(1.2) == 1.25
    assert nice_ceiling(1.26) == 1.5
    assert nice_ceiling(2.4) == 2.5
    assert nice_ceiling(7.0) == 8.0
    assert nice_ceiling(9.5) == 10.0
    assert nice_ceiling(0.14) == 0.15
    assert nice_ceiling(0.0) == 1.0
    assert nice_ceiling(float("nan")) == 1.0


def test_y_range_is_symmetric_nice_and_covers_the_bars(chart):
    for rewards in ([1, 0, 0, 1], [1, 1, 1, 1, 0], [1, 0, 0, 0, 0], [1] * 6, [1] + [0] * 63):
        chart.show_snapshot(make_snapshot(rewards))
        low, high = chart.y_range()
        assert low == -high
        assert high in NICE
        assert high > max(abs(h) for h in chart.bar_heights())


def test_y_range_does_not_change_on_clicks_that_fit(chart):
    chart.show_snapshot(make_snapshot([1, 0, 0, 1]))
    before = chart.y_range()
    for rewards in ([0, 1, 1, 0], [1, 1, 0, 0], [0, 0, 1, 1]):
        chart.show_snapshot(make_snapshot(rewards))
        assert chart.y_range() == before


def test_y_range_grows_when_needed_and_does_not_shrink_back(chart):
    chart.show_snapshot(make_snapshot([1, 0, 0, 1]))  # ±1
    small = chart.y_range()
    chart.show_snapshot(make_snapshot([1, 1, 0, 1]))  # +0.58, −1.73: needs more room
    grown = chart.y_range()
    assert grown[1] > small[1]
    assert grown[1] > 1.74
    chart.show_snapshot(make_snapshot([1, 0, 0, 1]))  # back to ±1: an ordinary click
    assert chart.y_range() == grown


@pytest.mark.parametrize(
    "change",
    [
        {"rewards": [1, 0, 1, 0, 1, 0]},  # group size
        {"convention": "dr_grpo"},  # convention
        {"problem_id": "other"},  # problem
    ],
)
def test_y_range_resets_when_the_group_changes(make_chart, change):
    chart = make_chart()
    chart.show_snapshot(make_snapshot([1, 1, 0, 1]))  # grows the range to fit −1.73
    grown = chart.y_range()
    kwargs = {"rewards": [1, 0, 0, 1], "convention": "textbook", "problem_id": PROBLEM_ID}
    kwargs.update(change)
    if kwargs["problem_id"] == "other":
        kwargs["problem_id"] = next(p.id for p in load_problems() if p.id != PROBLEM_ID)
    snapshot = make_snapshot(**kwargs)
    chart.show_snapshot(snapshot)
    fresh = make_chart()
    fresh.show_snapshot(snapshot)
    assert chart.y_range() == fresh.y_range()
    assert chart.y_range()[1] < grown[1]


# ----------------------------------------------------------------------- no churn, no overlap


def test_many_updates_at_g64_reuse_the_same_items(chart):
    removed: list[object] = []
    plot = chart.getPlotItem()
    targets = (plot, plot.getViewBox(), chart.scene())
    for target in targets:  # record removals (restored below, before the widget closes)
        target.removeItem = lambda item, *args, _list=removed: _list.append(item)
    try:
        rng = random.Random(7)
        bars = items_of(chart, pg.BarGraphItem)
        counts = []
        for round_ in range(60):
            size = 64 if round_ % 3 else rng.choice([4, 16, 64])
            chart.show_snapshot(make_snapshot([rng.randint(0, 1) for _ in range(size)]))
            counts.append(len(items_of(chart, pg.TextItem)))
    finally:
        for target in targets:
            del target.removeItem
    assert removed == [], "items must be updated in place, never removed (DESIGN §3)"
    assert items_of(chart, pg.BarGraphItem) == bars
    assert len(bars) == 1
    assert max(counts) <= 64
    assert counts[-1] == max(counts)  # the pool stops growing
    assert len(chart.bar_heights()) == len(chart.bar_colours())


def assert_no_overlap(chart: AdvantageChart) -> None:
    rects = [item.sceneBoundingRect() for item in visible_labels(chart)]
    for a, b in itertools.combinations(rects, 2):
        assert not a.intersects(b)


@pytest.mark.parametrize(("size", "width"), [(64, 640), (16, 640), (16, 1000), (64, 2600)])
def test_labels_never_overlap(make_chart, size, width):
    chart = make_chart(width, 400)
    rewards = [1 if i % 3 == 0 else 0 for i in range(size)]
    chart.show_snapshot(make_snapshot(rewards))
    assert_no_overlap(chart)
    if chart.labels_visible():
        assert len(chart.label_texts()) == size
    else:
        assert chart.label_texts() == []


def test_labels_hide_at_g64_on_a_laptop_sized_chart_and_return_when_wide(chart):
    chart.show_snapshot(make_snapshot([1 if i % 3 == 0 else 0 for i in range(64)]))
    assert chart.label_texts() == []
    chart.resize(2600, 400)
    chart.getPlotItem().layout.activate()
    assert len(chart.label_texts()) == 64
    assert_no_overlap(chart)


def test_render_bars_rejects_mismatched_inputs(chart):
    with pytest.raises(ValueError, match="one push and one label per bar"):
        chart.render_bars([1.0, -1.0], [Push.UP], ["+1.00", "\u22121.00"])


def test_reference_line_moves_and_show_snapshot_resets_it(chart):
    chart.show_snapshot(make_snapshot([1, 0, 0, 1]))
    chart.set_reference_line(0.5, "par = 0.5")
    assert chart.reference_line() == (0.5, "par = 0.5")
    assert chart._ref_line.value() == 0.5
    assert len(items_of(chart, pg.InfiniteLine)) == 1
    chart.show_snapshot(make_snapshot([1, 0, 0, 1]))
    assert chart.reference_line() == (0.0, "0")
    assert chart._ref_line.value() == 0.0


# ----------------------------------------------------------------------------- theme, pixels


def test_theme_switch_changes_bar_colours(chart):
    chart.show_snapshot(make_snapshot([1, 0, 1, 1]))
    dark = dataclasses.replace(
        LIGHT,
        name="test",
        surface="#101418",
        text="#f0f0f0",
        up="#40c0a0",
        down="#ff8040",
        neutral="#a0a0a0",
        stroke_width=3.0,
        type_scale=1.5,
    )
    chart.set_theme(dark)
    assert chart.bar_colours() == ["#40c0a0", "#ff8040", "#40c0a0", "#40c0a0"]
    assert chart.bar_heights() == pytest.approx([0.57735, -1.73205, 0.57735, 0.57735], abs=1e-5)
    assert chart.backgroundBrush().color().name() == "#101418"
    assert all(item.color.name() == "#f0f0f0" for item in visible_labels(chart))
    assert chart.label_texts() == ["+0.58", "\u22121.73", "+0.58", "+0.58"]
    assert_no_overlap(chart)


def test_renders_to_a_non_blank_png(chart, tmp_path):
    chart.show_snapshot(make_snapshot([1, 0, 0, 1]))
    path = tmp_path / "chart.png"
    assert chart.grab().save(str(path))
    image = QImage(str(path))
    assert (image.width(), image.height()) == (640, 400)
    colours = {
        image.pixelColor(x, y).name()
        for x in range(0, image.width(), 4)
        for y in range(0, image.height(), 4)
    }
    assert len(colours) > 5
    assert QColor(LIGHT.up).name() in colours
    assert QColor(LIGHT.down).name() in colours
