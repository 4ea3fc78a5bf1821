"""AdvantageChart as the app uses it: a snapshot in, bars, labels, y range and the animation out.

The pieces have their own tests too: test_advantage_plot.py (drawing given values),
test_chart_values.py (what each view shows), test_phase_caption.py and test_chart_animator.py.
"""

from __future__ import annotations

import dataclasses
import itertools
import random
import time
from collections.abc import Sequence

import pyqtgraph as pg
import pytest
from event_log import EventLog
from PySide6.QtCore import QEvent, QRectF
from PySide6.QtGui import QBrush, QColor, QImage

from grpo_desktop.core.common.theme import LIGHT
from grpo_desktop.core.lab.lab_snapshot import LabSnapshot, build_snapshot
from grpo_desktop.core.lab.problems import get_problem, load_problems
from grpo_desktop.views.common.advantage_plot import AdvantagePlot
from grpo_desktop.views.lab.advantage_chart import AdvantageChart, reverse_phase_labels
from grpo_desktop.views.lab.chart_values import ChartValues

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


def settle(qtbot, chart: AdvantageChart) -> None:
    """Wait until every update posted so far has painted: the window shows what a full paint of
    the chart draws. A fixed 30 ms wait could end first on a loaded machine, and the late paint
    then landed among the paints a test counts."""
    shown = lambda: chart.screen().grabWindow(chart.winId()).toImage()  # noqa: E731
    qtbot.waitUntil(lambda: shown() == chart.grab().toImage().convertToFormat(shown().format()))


@pytest.fixture
def chart(make_chart) -> AdvantageChart:
    return make_chart()


def label_rects(chart: AdvantageChart) -> list[QRectF]:
    """Where the visible value labels are drawn, in scene coordinates, left to right."""
    chart.grab()
    return chart.advantage_plot.value_labels.scene_rects()


def items_of(chart: AdvantageChart, kind: type) -> list:
    return [item for item in chart.getPlotItem().items if isinstance(item, kind)]


# ------------------------------------------------------------------------------ what is drawn


def test_identity_and_phase_safety(chart):
    assert chart.objectName() == "advantageChart"
    plot = chart.getPlotItem()
    assert plot is chart.advantage_plot and isinstance(plot, AdvantagePlot)  # exporters use it
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
    xs, ys = chart.advantage_plot.markers.getData()
    assert list(xs) == [1, 2, 3, 4]
    assert list(ys) == [0, 0, 0, 0]
    # ... and the dots go away when the group has signal again.
    chart.show_snapshot(make_snapshot([1, 0, 1, 1]))
    assert len(chart.advantage_plot.markers.getData()[0]) == 0


def test_labels_sit_above_positive_and_below_negative_bars(chart):
    chart.show_snapshot(make_snapshot([1, 0, 0, 1]))
    zero_y = chart.getPlotItem().getViewBox().mapViewToScene(pg.Point(1, 0)).y()
    rects = label_rects(chart)
    assert len(rects) == 4
    for rect, height in zip(rects, chart.bar_heights()):
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
    rects = label_rects(chart)
    assert rects, "labels should fit at this size"
    for rect, text in zip(rects, chart.label_texts()):
        assert view_rect.contains(rect), text


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
    px_per_card = chart.advantage_plot.px_per_card()
    gaps = [b - a for a, b in itertools.pairwise(ticks)]
    assert min(gaps) * px_per_card >= 20  # room for "64" and a gap


# ------------------------------------------------------------------------------ the y range


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


def test_y_range_is_a_function_of_the_snapshot_not_of_history(chart, make_chart):
    chart.show_snapshot(make_snapshot([1, 0, 0, 1]))  # ±1
    small = chart.y_range()
    chart.show_snapshot(make_snapshot([1, 1, 0, 1]))  # +0.58, −1.73: needs more room
    grown = chart.y_range()
    assert grown[1] > small[1]
    assert grown[1] > 1.74
    chart.show_snapshot(make_snapshot([1, 0, 0, 1]))  # back (an undo): the same axis as before
    assert chart.y_range() == small
    fresh = make_chart()
    fresh.show_snapshot(make_snapshot([1, 0, 0, 1]))
    assert fresh.y_range() == small


def test_the_reward_view_has_no_empty_negative_half(chart):
    chart.show_snapshot(make_snapshot([1, 0, 0, 1]))
    chart.set_view("reward", animate=False)
    low, high = chart.y_range()
    assert -0.1 * high <= low < 0  # just below 0: room for the "no signal" dots, no more
    assert high >= 1.0
    assert min(chart.y_ticks()) >= 0
    chart.set_view("advantage", animate=False)
    assert chart.y_range() == (-high, high)


@pytest.mark.parametrize("size", [(640, 400), (1500, 1300), (2400, 1900), (400, 150)])
def test_value_ticks_stay_few_and_nice_at_any_size(make_chart, size):
    chart = make_chart(*size)
    for rewards in ([1, 0, 0, 1], [1, 1, 1, 1, 0], [1] + [0] * 63):
        chart.show_snapshot(make_snapshot(rewards))
        ticks = chart.y_ticks()
        assert 2 <= len(ticks) <= 9, ticks
        if size[1] >= 400:
            assert len(ticks) >= 5, ticks
        low, high = chart.y_range()
        assert all(low <= t <= high for t in ticks)
        steps = {round(b - a, 9) for a, b in itertools.pairwise(ticks)}
        assert len(steps) == 1, ticks


@pytest.mark.parametrize("group_size", [8, 12, 16, 25, 33, 64])
@pytest.mark.parametrize("width", [360, 640, 1200])
def test_card_ticks_always_show_1_and_g_with_a_regular_step(make_chart, group_size, width):
    chart = make_chart(width, 400)
    chart.show_snapshot(make_snapshot([i % 2 for i in range(group_size)]))
    ticks = chart.x_ticks()
    assert ticks[0] == 1 and ticks[-1] == group_size
    inner = ticks[1:-1]
    steps = {b - a for a, b in itertools.pairwise(inner)}
    assert len(steps) <= 1, ticks  # one step between the ends' neighbours
    px_per_card = chart.advantage_plot.px_per_card()
    gaps = [b - a for a, b in itertools.pairwise(ticks)]
    assert min(gaps) * px_per_card >= 14, ticks  # no two numbers overlap


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
            counts.append(len(chart.scene().items()))
    finally:
        for target in targets:
            del target.removeItem
    assert removed == [], "items must be updated in place, never removed (DESIGN §3)"
    assert items_of(chart, pg.BarGraphItem) == bars
    assert len(bars) == 1
    assert len(set(counts)) == 1  # every label of any group is drawn by the same one item
    assert len(chart.bar_heights()) == len(chart.bar_colours())


def assert_no_overlap(chart: AdvantageChart) -> None:
    rects = label_rects(chart)
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


def test_reference_line_moves_and_show_snapshot_resets_it(chart):
    chart.show_snapshot(make_snapshot([1, 0, 0, 1]))
    chart.set_reference_line(0.5, "par = 0.5")
    assert chart.reference_line() == (0.5, "par = 0.5")
    assert chart.advantage_plot.ref_line.value() == 0.5
    assert len(items_of(chart, pg.InfiniteLine)) == 1
    chart.show_snapshot(make_snapshot([1, 0, 0, 1]))
    assert chart.reference_line() == (0.0, "0")
    assert chart.advantage_plot.ref_line.value() == 0.0


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
    assert chart.advantage_plot.value_labels.colour().name() == "#f0f0f0"
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


# ------------------------------------------------------------------ rewards <-> advantages view


def rewards_of(snapshot: LabSnapshot) -> list[float]:
    return [float(card.reward) for card in snapshot.cards]


def advantages_of(snapshot: LabSnapshot) -> list[float]:
    return [card.advantage for card in snapshot.cards]


def centered_of(snapshot: LabSnapshot) -> list[float]:
    return [card.centered for card in snapshot.cards]


def left_title(chart: AdvantageChart) -> str:
    return chart.getPlotItem().getAxis("left").labelText


def record_frames(chart: AdvantageChart) -> list[tuple[int, list[float], tuple, tuple]]:
    """(phase, heights, y range, reference line) after every animation frame."""
    frames: list[tuple[int, list[float], tuple, tuple]] = []

    def record(*_):
        frames.append((chart.phase(), chart.bar_heights(), chart.y_range(), chart.reference_line()))

    chart.animator.clock.valueChanged.connect(record)  # after the chart's own frame handler
    return frames


def seek(chart: AdvantageChart, fraction: float) -> None:
    """Stop the animation clock at ``fraction`` of its duration (deterministic frames)."""
    animation = chart.animator.clock
    animation.pause()
    animation.setCurrentTime(round(animation.duration() * fraction))


def test_views_switch_instantly_to_exact_rewards_and_advantages(chart):
    snapshot = make_snapshot([1, 0, 0, 1])
    chart.show_snapshot(snapshot)
    assert chart.view() == "advantage"
    chart.set_view("reward", animate=False)
    assert not chart.is_animating()
    assert chart.view() == "reward"
    assert chart.bar_heights() == rewards_of(snapshot) == [1.0, 0.0, 0.0, 1.0]
    assert chart.reference_line() == (0.5, "par = 0.5")
    assert chart.advantage_plot.ref_line.value() == 0.5
    assert chart.label_texts() == ["1", "0", "0", "1"]
    assert left_title(chart) == "reward r"
    # Push colours in both views: the class sees in advance who will go up.
    assert chart.bar_colours() == [LIGHT.up, LIGHT.down, LIGHT.down, LIGHT.up]
    chart.set_view("advantage", animate=False)
    assert chart.bar_heights() == advantages_of(snapshot)
    assert chart.reference_line() == (0.0, "0")
    assert chart.label_texts() == ["+1.00", "\u22121.00", "\u22121.00", "+1.00"]
    assert left_title(chart) == "advantage A"


def test_seed_11110_in_both_views(chart):
    snapshot = make_snapshot([1, 1, 1, 1, 0])
    chart.show_snapshot(snapshot)
    assert chart.bar_heights() == advantages_of(snapshot)
    assert chart.bar_heights() == pytest.approx([0.5] * 4 + [-2.0])
    chart.set_view("reward", animate=False)
    assert chart.bar_heights() == [1.0, 1.0, 1.0, 1.0, 0.0]
    assert chart.reference_line() == (0.8, "par = 0.8")
    assert chart.label_texts() == ["1", "1", "1", "1", "0"]
    # The wrong answer's r = 0 bar has no height: its dot carries the push colour instead.
    xs, _ = chart.advantage_plot.markers.getData()
    assert list(xs) == [5]
    brushes = chart.advantage_plot.markers.data["brush"]
    assert [QBrush(b).color().name() for b in brushes] == [LIGHT.down]


def test_set_view_validates_and_signals_only_changes(chart, qtbot):
    chart.show_snapshot(make_snapshot([1, 0, 0, 1]))
    with pytest.raises(ValueError, match="unknown view 'rewards'; choose one of"):
        chart.set_view("rewards")
    seen: list[str] = []
    chart.view_changed.connect(seen.append)
    chart.set_view("advantage")  # already shown: nothing happens
    assert not chart.is_animating()
    chart.set_view("reward", animate=False)
    chart.set_view("reward", animate=False)
    assert seen == ["reward"]


def test_show_snapshot_renders_the_current_view(chart):
    chart.show_snapshot(make_snapshot([1, 0, 0, 1]))
    chart.set_view("reward", animate=False)
    snapshot = make_snapshot([1, 1, 1, 0])
    chart.show_snapshot(snapshot)
    assert chart.bar_heights() == [1.0, 1.0, 1.0, 0.0]
    assert chart.reference_line() == (0.75, "par = 0.75")
    assert chart.bar_colours() == [LIGHT.up] * 3 + [LIGHT.down]


def test_animation_ends_at_exact_values_both_ways(chart, qtbot):
    snapshot = make_snapshot([1, 1, 1, 1, 0])
    chart.show_snapshot(snapshot)
    chart.animation_ms = 60
    with qtbot.waitSignal(chart.animation_finished, timeout=2000):
        chart.set_view("reward")
    assert not chart.is_animating()
    assert chart.bar_heights() == rewards_of(snapshot)
    assert chart.reference_line() == (0.8, "par = 0.8")
    assert chart.label_texts() == ["1", "1", "1", "1", "0"]
    assert chart.caption_text() == "" and not chart.advantage_plot.caption.isVisible()
    assert left_title(chart) == "reward r"
    with qtbot.waitSignal(chart.animation_finished, timeout=2000):
        chart.set_view("advantage")
    assert chart.bar_heights() == advantages_of(snapshot)
    assert chart.reference_line() == (0.0, "0")
    assert chart.label_texts() == ["+0.50"] * 4 + ["\u22122.00"]
    assert chart.phase() == 0
    assert left_title(chart) == "advantage A"


def test_forward_animation_runs_two_captioned_phases(chart, qtbot):
    snapshot = make_snapshot([1, 0, 0, 1])
    chart.show_snapshot(snapshot)
    chart.set_view("reward", animate=False)
    chart.animation_ms = 400
    at_phase: dict[int, tuple[list[float], tuple, str]] = {}
    chart.phase_changed.connect(
        lambda s: at_phase.setdefault(
            s, (chart.bar_heights(), chart.reference_line(), chart.caption_text())
        )
    )
    started = time.monotonic()
    chart.set_view("advantage")
    assert chart.view() == "advantage"  # the target, at once
    assert chart.is_animating() and chart.phase() == 1
    assert chart.caption_text() == snapshot.worked_math.phase_labels[0]
    assert chart.caption_text().startswith("Step 1 of 2: subtract par (mean = 0.5)")
    assert chart.label_texts() == []  # value labels hide while bars move
    with qtbot.waitSignal(chart.animation_finished, timeout=3000):
        pass
    # It ran its whole 400 ms on the wall clock (a loaded machine can only make it longer; a
    # check of is_animating() after a fixed 15 ms wait failed when that wait overran 400 ms).
    assert time.monotonic() - started >= 0.399
    # Each phase starts exactly at the previous phase's end: r, then r − mean (line at 0).
    assert at_phase[1][0] == rewards_of(snapshot)
    assert at_phase[1][1] == (0.5, "par = 0.5")
    assert at_phase[2][0] == centered_of(snapshot) == [0.5, -0.5, -0.5, 0.5]
    assert at_phase[2][1] == (0.0, "0")
    assert (
        at_phase[2][2] == snapshot.worked_math.phase_labels[1] == "Step 2 of 2: divide by std = 0.5"
    )
    assert at_phase[0][2] == ""
    assert chart.bar_heights() == advantages_of(snapshot)


def test_frames_interpolate_with_easing_and_slide_the_line(chart):
    snapshot = make_snapshot([1, 0, 0, 1])
    chart.show_snapshot(snapshot)
    chart.set_view("reward", animate=False)
    chart.animation_ms = 1000
    chart.set_view("advantage")
    seek(chart, 0.25)  # mid phase 1: InOutCubic is exactly half-way at the middle
    assert chart.phase() == 1
    assert chart.bar_heights() == [0.75, -0.25, -0.25, 0.75]
    assert chart.reference_line() == (0.25, "par = 0.5")  # par slides down to 0
    seek(chart, 0.05)  # early: the easing starts slowly
    early = chart.bar_heights()[1]
    assert -0.01 < early < 0.0
    seek(chart, 0.5)  # the phase boundary: exactly r − mean
    assert chart.phase() == 2
    assert chart.bar_heights() == centered_of(snapshot)
    assert chart.caption_text() == snapshot.worked_math.phase_labels[1]
    seek(chart, 0.75)
    assert chart.bar_heights() == [0.75, -0.75, -0.75, 0.75]
    assert chart.reference_line() == (0.0, "0")
    assert chart.is_animating() is False  # paused, not running
    seek(chart, 1.0)  # the clock's end: the animation finishes
    assert chart.bar_heights() == advantages_of(snapshot)


def test_reverse_animation_undoes_the_phases(chart, qtbot):
    snapshot = make_snapshot([1, 1, 1, 1, 0])
    chart.show_snapshot(snapshot)
    chart.animation_ms = 1000
    chart.set_view("reward")
    first, second = reverse_phase_labels(snapshot)
    assert chart.caption_text() == first == "Step 1 of 2 (reverse): multiply back by std = 0.4"
    assert chart.reference_line() == (0.0, "0")
    seek(chart, 0.5)
    assert chart.bar_heights() == centered_of(snapshot)
    assert chart.caption_text() == second == "Step 2 of 2 (reverse): add par back (mean = 0.8): r"
    seek(chart, 0.75)
    line, text = chart.reference_line()
    assert line == pytest.approx(0.4) and text == "par = 0.8"  # par slides back up
    chart.animator.clock.resume()
    with qtbot.waitSignal(chart.animation_finished, timeout=3000):
        pass
    assert chart.bar_heights() == rewards_of(snapshot)
    assert chart.reference_line() == (0.8, "par = 0.8")


def test_a_snapshot_mid_animation_ends_it_at_the_new_values(chart, qtbot):
    chart.show_snapshot(make_snapshot([1, 0, 0, 1]))
    chart.animation_ms = 2000
    chart.set_view("reward")
    qtbot.wait(20)
    assert chart.is_animating()
    newer = make_snapshot([1, 1, 1, 0])
    with qtbot.waitSignal(chart.animation_finished, timeout=500):
        chart.show_snapshot(newer)  # a card was clicked
    assert not chart.is_animating() and chart.phase() == 0
    assert chart.view() == "reward"
    assert chart.bar_heights() == rewards_of(newer)
    assert chart.reference_line() == (0.75, "par = 0.75")
    assert chart.label_texts() == ["1", "1", "1", "0"]
    assert chart.caption_text() == ""
    qtbot.wait(40)  # no stale frame arrives afterwards
    assert chart.bar_heights() == rewards_of(newer)


def test_a_new_view_mid_animation_jumps_then_animates_back(chart, qtbot):
    snapshot = make_snapshot([1, 0, 0, 1])
    chart.show_snapshot(snapshot)
    chart.animation_ms = 2000
    chart.set_view("reward")
    finished: list[bool] = []
    chart.animation_finished.connect(lambda: finished.append(True))
    chart.set_view("reward")  # already heading there: keeps running
    assert chart.is_animating() and finished == []
    assert chart.phase() == 1
    chart.animation_ms = 60
    chart.set_view("advantage")
    assert finished == [True]  # the first one was cut short at its end ...
    assert chart.is_animating()  # ... and the way back starts from the exact rewards
    assert chart.bar_heights() == rewards_of(snapshot)
    assert chart.caption_text() == snapshot.worked_math.phase_labels[0]
    with qtbot.waitSignal(chart.animation_finished, timeout=2000):
        pass
    assert chart.bar_heights() == advantages_of(snapshot)


def test_animation_can_be_turned_off(chart, qtbot):
    snapshot = make_snapshot([1, 0, 0, 1])
    chart.show_snapshot(snapshot)
    assert chart.animation_enabled()
    chart.set_animation_enabled(False)
    chart.set_view("reward")
    assert not chart.is_animating()
    assert chart.bar_heights() == rewards_of(snapshot)
    chart.set_animation_enabled(True)
    chart.animation_ms = 2000
    chart.set_view("advantage")
    assert chart.is_animating()
    chart.set_animation_enabled(False)  # the View menu, mid-animation
    assert not chart.is_animating()
    assert chart.bar_heights() == advantages_of(snapshot)
    assert chart.caption_text() == ""


@pytest.mark.parametrize(
    ("rewards", "convention"),
    [
        ([1, 0, 0, 1], "textbook"),
        ([1, 1, 0, 1], "textbook"),
        ([1, 0, 0, 0, 0], "rloo"),
        ([1, 1, 1, 1], "textbook"),
        ([1] + [0] * 63, "textbook"),
        ([1, 1, 0, 1], "dr_grpo"),
    ],
)
def test_y_range_never_moves_during_an_animation(chart, qtbot, rewards, convention):
    snapshot = make_snapshot(rewards, convention)
    chart.show_snapshot(snapshot)
    before = chart.y_range()
    largest = max(
        abs(v) for v in rewards_of(snapshot) + centered_of(snapshot) + advantages_of(snapshot)
    )
    assert before[1] > largest
    frames = record_frames(chart)
    chart.animation_ms = 120
    with qtbot.waitSignal(chart.animation_finished, timeout=2000):
        chart.set_view("reward")
    reward_range = chart.y_range()
    assert reward_range[1] <= before[1] and before[0] <= reward_range[0] < 0
    assert reward_range[1] > max(rewards_of(snapshot))
    with qtbot.waitSignal(chart.animation_finished, timeout=2000):
        chart.set_view("advantage")
    assert chart.y_range() == before
    assert len(frames) >= 4
    # Both edges only slide (monotonically) between the two views' ranges: no jump, no bounce.
    bottoms = [frame[2][0] for frame in frames]
    turn = bottoms.index(max(bottoms))
    assert bottoms[: turn + 1] == sorted(bottoms[: turn + 1])
    assert bottoms[turn:] == sorted(bottoms[turn:], reverse=True)
    tops = [frame[2][1] for frame in frames]
    turn = tops.index(min(tops))
    assert tops[: turn + 1] == sorted(tops[: turn + 1], reverse=True)
    assert tops[turn:] == sorted(tops[turn:])
    assert max(tops) == before[1]
    assert {frame[0] for frame in frames} >= {1, 2}


def caption_clear_of_bars(chart: AdvantageChart, snapshot: LabSnapshot) -> None:
    """The caption is inside the plot and above every bar (and every bar top it may reach)."""
    chart.grab()
    view = chart.getPlotItem().getViewBox()
    caption = chart.advantage_plot.caption.sceneBoundingRect()
    assert chart.advantage_plot.caption.isVisible()
    assert view.sceneBoundingRect().adjusted(-1, -1, 1, 1).contains(caption)
    # Every bar drawn now (the range slides with the phase, so bars to come fit it later).
    tallest = max(abs(value) for value in chart.bar_heights())
    bar_top = view.mapViewToScene(pg.Point(1, tallest)).y()
    assert caption.bottom() <= bar_top


@pytest.mark.parametrize("size", [(640, 400), (370, 243), (300, 260)])
@pytest.mark.parametrize(
    ("rewards", "convention"),
    [
        ([1, 0, 0, 1], "textbook"),
        ([1, 1, 0, 1], "trl"),
        ([1, 1, 0, 1], "dr_grpo"),
        ([1, 0, 0, 0, 0], "rloo"),
        ([i % 2 for i in range(64)], "textbook"),
    ],
)
def test_the_caption_never_covers_a_bar(make_chart, size, rewards, convention):
    chart = make_chart(*size)
    snapshot = make_snapshot(rewards, convention)
    chart.show_snapshot(snapshot)
    chart.animation_ms = 1000
    for view in ("reward", "advantage"):
        chart.set_view(view)
        for fraction in (0.25, 0.75):
            seek(chart, fraction)
            caption_clear_of_bars(chart, snapshot)
        chart.set_view(view, animate=False)  # the same view, instantly: finishes it
        assert chart.phase() == 0 and chart.caption_text() == ""


def test_switching_views_moves_no_axis(chart):
    """The right margin is reserved for "par = …", so the plot keeps its width in both views."""
    chart.show_snapshot(make_snapshot([1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]))  # par = 0.09091
    chart.grab()
    view = chart.getPlotItem().getViewBox()
    before = view.sceneBoundingRect()
    chart.set_view("reward", animate=False)
    assert chart.reference_line()[1] == "par = 0.09091"
    chart.grab()
    assert view.sceneBoundingRect() == before


def test_an_animation_creates_and_removes_no_items(chart, qtbot):
    chart.show_snapshot(make_snapshot([i % 3 == 0 for i in range(64)]))
    chart.set_view("reward", animate=False)
    chart.set_view("advantage", animate=False)  # both views drawn once: the label pool is full
    removed: list[object] = []
    plot = chart.getPlotItem()
    targets = (plot, plot.getViewBox(), chart.scene())
    for target in targets:
        target.removeItem = lambda item, *args, _list=removed: _list.append(item)
    try:
        items = list(plot.items)
        chart.animation_ms = 100
        for view in ("reward", "advantage"):
            with qtbot.waitSignal(chart.animation_finished, timeout=2000):
                chart.set_view(view)
    finally:
        for target in targets:
            del target.removeItem
    assert removed == []
    assert plot.items == items


def test_theme_switch_keeps_the_view(chart):
    chart.show_snapshot(make_snapshot([1, 0, 0, 1]))
    chart.set_view("reward", animate=False)
    chart.set_theme(dataclasses.replace(LIGHT, name="big", type_scale=1.5))
    assert left_title(chart) == "reward r"
    assert chart.bar_heights() == [1.0, 0.0, 0.0, 1.0]
    assert chart.reference_line() == (0.5, "par = 0.5")


def test_hidden_advantages_show_no_bars_no_colours_until_revealed(make_chart):
    chart = make_chart()
    chart.show_snapshot(make_snapshot([1, 0, 0, 1]))
    chart.set_advantages_hidden(True)
    assert chart.bar_heights() == [0.0, 0.0, 0.0, 0.0]
    assert len(set(chart.bar_colours())) == 1
    chart.set_view("reward", animate=False)
    assert chart.bar_heights() == [1.0, 0.0, 0.0, 1.0]
    assert len(set(chart.bar_colours())) == 1
    chart.set_view("advantage", animate=False)
    chart.set_advantages_hidden(False)
    assert chart.bar_heights() == [1.0, -1.0, -1.0, 1.0]
    assert len(set(chart.bar_colours())) == 2


def test_a_tall_chart_draws_larger_value_labels(make_chart):
    sizes = []
    for width, height in ((640, 400), (1400, 1300)):
        chart = make_chart(width, height)
        chart.show_snapshot(make_snapshot([1, 0, 0, 1]))
        assert len(label_rects(chart)) == 4
        sizes.append(chart.advantage_plot.value_labels.font().pointSizeF())
    assert sizes[1] >= 1.5 * sizes[0]


def test_the_reward_view_is_scaled_to_the_rewards_not_to_the_advantages(chart):
    chart.show_snapshot(make_snapshot([1, 1, 0, 1]))  # A reaches −1.73; rewards only 1
    advantage_range = chart.y_range()
    chart.set_view("reward", animate=False)
    low, high = chart.y_range()
    assert 1.0 < high < advantage_range[1]
    assert high <= 1.5  # a nice top just above the rewards and their labels
    assert -0.1 * high <= low < 0
    chart.set_view("advantage", animate=False)
    assert chart.y_range() == advantage_range


def test_a_click_that_rescales_the_axis_paints_the_chart_once(chart, qtbot):
    """The new range moves the labels before the paint, and the tick margin keeps its width, so
    a click is one paint of the chart, not two or three (issue #14: a click within a frame)."""
    chart.show_snapshot(make_snapshot([1, 1, 1, 0]))  # ticks down to −1.73: the widest labels
    settle(qtbot, chart)  # painted: the margin has grown to fit those labels
    left_width = chart.getPlotItem().getAxis("left").width()
    counter = EventLog(QEvent.Type.Paint, chart.viewport())
    for rewards in ([1, 0, 0, 1], [1, 1, 0, 1], [0, 1, 1, 0]):  # ±1, ±2, ±1: a new range each
        before = chart.y_range()
        chart.show_snapshot(make_snapshot(rewards))
        counter.seen.clear()
        qtbot.waitUntil(lambda: counter.count >= 1)  # a loaded machine paints later, not never
        qtbot.wait(30)  # every other posted update and zero timer, as the event loop runs them
        assert chart.y_range() != before
        assert counter.count == 1
        assert chart.getPlotItem().getAxis("left").width() == left_width
    chart.viewport().removeEventFilter(counter)


def test_a_range_seen_before_replays_its_axes_and_looks_the_same(chart, qtbot, monkeypatch):
    """The y axes keep their last drawings: coming back to a range replays them, unchanged."""
    first, other = make_snapshot([1, 0, 0, 1]), make_snapshot([1, 1, 0, 1])  # ±1, then ±2
    chart.show_snapshot(first)
    settle(qtbot, chart)
    before = chart.grab().toImage()
    chart.show_snapshot(other)
    settle(qtbot, chart)  # both ranges drawn before the axes are watched
    drawn: list[str] = []
    for side in ("left", "right"):
        axis = chart.getPlotItem().getAxis(side)
        original = axis.generateDrawSpecs
        monkeypatch.setattr(
            axis,
            "generateDrawSpecs",
            lambda p, _o=original, _side=side: drawn.append(_side) or _o(p),
        )
    chart.show_snapshot(first)
    qtbot.wait(30)
    assert chart.grab().toImage() == before
    assert drawn == [], "both y axes replayed their remembered drawing"
    # New pens for the value axis, a new text colour for the reference label's: drawn afresh.
    chart.set_theme(dataclasses.replace(LIGHT, muted="#ff0000", text="#00ff00"))
    qtbot.wait(30)
    chart.grab()
    assert set(drawn) == {"left", "right"}


def test_the_zero_dots_item_is_painted_only_when_a_bar_is_zero(chart):
    markers = chart.advantage_plot.markers
    chart.show_snapshot(make_snapshot([1, 0, 0, 1]))
    assert not markers.isVisible()  # no zero bar: nothing to paint
    chart.show_snapshot(make_snapshot([1, 1, 1, 1]))
    assert markers.isVisible() and len(markers.getData()[0]) == 4


@pytest.fixture
def screen_reader_listens():
    """Someone hears accessibility events (``accessible_events.wanted()``), as a screen reader."""
    from grpo_desktop.views.common import accessible_events

    remove_listener = accessible_events.add_listener(lambda event: None)
    yield
    remove_listener()


def test_a_snapshot_read_ahead_shows_as_one_read_in_the_frame_without_reading_it_again(
    make_chart, monkeypatch, screen_reader_listens
):
    """While a screen reader listens the click writes the text alternative too (its change goes
    out as an event): read ahead, the chart reads nothing off the snapshot in the frame."""
    from grpo_desktop.views.lab import advantage_chart, chart_values

    ahead_chart, fresh_chart = make_chart(), make_chart()
    for shown in (ahead_chart, fresh_chart):
        shown.show_snapshot(make_snapshot([1, 0, 0, 1]))
    toggled = make_snapshot([1, 1, 0, 1])
    ahead_chart.prepare(toggled)
    reads = []
    read_values = chart_values.ChartValues.from_snapshot
    monkeypatch.setattr(
        chart_values.ChartValues,
        "from_snapshot",
        classmethod(lambda cls, snapshot: reads.append("values") or read_values(snapshot)),
    )
    describe = advantage_chart.advantage_chart_text
    monkeypatch.setattr(
        advantage_chart,
        "advantage_chart_text",
        lambda snapshot, mode: reads.append("text") or describe(snapshot, mode),
    )
    ahead_chart.show_snapshot(toggled)
    assert reads == []
    fresh_chart.show_snapshot(toggled)
    assert reads == ["values", "text"]
    assert ahead_chart.bar_heights() == fresh_chart.bar_heights()
    assert ahead_chart.label_texts() == fresh_chart.label_texts()
    assert ahead_chart.accessibleDescription() == fresh_chart.accessibleDescription()


def test_a_snapshot_read_ahead_brings_captions_measured_ahead(make_chart, monkeypatch):
    """Its captions carry the toggle's mean and std: their band is measured in idle time, and
    the click's band is the one a chart measuring them in the click finds."""
    from grpo_desktop.views.common.step_caption import StepCaption

    ahead_chart, fresh_chart = make_chart(), make_chart()
    for shown in (ahead_chart, fresh_chart):
        shown.show_snapshot(make_snapshot([1, 0, 0, 1]))
    toggled = make_snapshot([1, 1, 0, 1])
    ahead_chart.prepare(toggled)
    measured = []
    advance = StepCaption._advance
    monkeypatch.setattr(
        StepCaption,
        "_advance",
        lambda self, text, size: measured.append(text) or advance(self, text, size),
    )
    ahead_chart.show_snapshot(toggled)
    assert measured == []
    fresh_chart.show_snapshot(toggled)
    assert measured, "the chart shown afresh measures the new captions"
    ahead, fresh = ahead_chart.advantage_plot.caption, fresh_chart.advantage_plot.caption
    assert ahead.band_px() == fresh.band_px()
    assert ahead_chart.y_range() == fresh_chart.y_range()


def test_a_snapshot_read_ahead_for_another_view_is_described_afresh(make_chart):
    chart = make_chart()
    chart.show_snapshot(make_snapshot([1, 0, 0, 1]))
    toggled = make_snapshot([1, 1, 0, 1])
    chart.prepare(toggled)
    chart.set_advantages_hidden(True)  # predict, then reveal: after it was read ahead
    chart.show_snapshot(toggled)
    from grpo_desktop.views.lab.advantage_chart import HIDDEN_TEXT

    assert chart.accessibleDescription() == HIDDEN_TEXT


def test_the_snapshots_read_ahead_for_other_toggles_are_let_go_at_the_next_read_ahead(make_chart):
    """Not in the frame of the click that showed another one: freeing a group's snapshots took
    0.5 ms of a click at G = 64. Read ahead (idle time), the chart lets them go."""
    import gc
    import weakref

    chart = make_chart()
    chart.show_snapshot(make_snapshot([1, 0, 0, 1]))
    taken, not_taken = make_snapshot([1, 1, 0, 1]), make_snapshot([0, 0, 0, 1])
    chart.prepare(taken)
    chart.prepare(not_taken)
    not_taken_ref = weakref.ref(not_taken)
    del not_taken
    chart.show_snapshot(taken)
    gc.collect()
    assert not_taken_ref() is not None, "still held after the click's frame"
    chart.prepare(make_snapshot([1, 1, 1, 1]))
    gc.collect()
    assert not_taken_ref() is None, "let go when the next toggle is read ahead"
    assert chart.bar_heights() == pytest.approx(ChartValues.from_snapshot(taken).advantages)


def test_a_snapshot_read_ahead_before_another_showed_still_shows_its_own_values(make_chart):
    """A snapshot read ahead, another shown, then the first: its values are still its own."""
    chart = make_chart()
    first, second = make_snapshot([1, 1, 0, 1]), make_snapshot([0, 0, 0, 1])
    chart.prepare(first)
    chart.prepare(second)
    chart.show_snapshot(second)
    chart.show_snapshot(first)
    fresh = make_chart()
    fresh.show_snapshot(first)
    assert chart.bar_heights() == fresh.bar_heights()
    assert chart.accessibleDescription() == fresh.accessibleDescription()
