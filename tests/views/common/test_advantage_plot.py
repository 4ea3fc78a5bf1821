"""AdvantagePlot: draws the heights, colours and labels it is given, on items made once."""

from __future__ import annotations

import pyqtgraph as pg
import pytest

from grpo_desktop.core.common.theme import DARK, LIGHT
from grpo_desktop.core.lab.lab_snapshot import Push
from grpo_desktop.views.common.advantage_plot import AdvantagePlot, SignedAxis, nice_ceiling

MINUS = "\u2212"
CAPTIONS = (
    "Step 1 of 2: subtract par (mean = 0.5): r \u2212 mean",
    "Step 2 of 2: divide by std = 0.5",
)


@pytest.fixture
def plot(qtbot):
    """A plot on its own in a plain PlotWidget, themed and laid out at 640×400."""
    plot = AdvantagePlot("advantage A")
    widget = pg.PlotWidget(plotItem=plot)
    qtbot.addWidget(widget)
    plot.set_theme(LIGHT, widget.font())
    widget.resize(640, 400)
    with qtbot.waitExposed(widget):
        widget.show()
    yield plot


def host(plot: AdvantagePlot) -> pg.PlotWidget:
    return plot.scene().views()[0]


def draw(plot: AdvantagePlot, heights: list[float]) -> None:
    pushes = [Push.UP if h > 0 else Push.DOWN if h < 0 else Push.NONE for h in heights]
    plot.render_bars(heights, pushes, [f"{h:+.2f}".replace("-", MINUS) for h in heights])


def test_draws_the_heights_colours_and_labels_it_is_given(plot):
    plot.render_bars([1.0, -0.5, 0.0], [Push.UP, Push.DOWN, Push.NONE], ["a", "b", "c"])
    assert plot.bar_heights() == [1.0, -0.5, 0.0]
    assert plot.bar_colours() == [LIGHT.up, LIGHT.down, LIGHT.neutral]
    assert plot.label_texts() == ["a", "b", "c"]
    assert plot.x_ticks() == [1, 2, 3]
    xs, _ = plot.markers.getData()
    assert list(xs) == [3]  # the zero-height bar gets a dot, so it is seen


def test_render_bars_rejects_mismatched_inputs(plot):
    with pytest.raises(ValueError, match="one push and one label per bar"):
        plot.render_bars([1.0, -1.0], [Push.UP], ["+1.00", "\u22121.00"])


def test_a_non_finite_height_draws_as_zero(plot):
    plot.render_bars([float("nan"), 1.0], [Push.NONE, Push.UP], ["?", "1"])
    assert plot.bar_heights() == [0.0, 1.0]


def test_redraws_reuse_the_one_bar_item_and_the_label_pool(plot):
    draw(plot, [1.0, -1.0, -1.0, 1.0])
    items = list(plot.items)
    for heights in ([0.5, -0.5, 0.25, -0.25], [2.0, -1.0, 0.0, 1.0], [0.0] * 4):
        draw(plot, heights)
        assert plot.items == items
        assert plot.bar_heights() == heights
    assert len([item for item in plot.items if isinstance(item, pg.BarGraphItem)]) == 1


def test_y_range_follows_what_is_drawn_not_what_was(plot):
    draw(plot, [1.0, -1.0])
    first = plot.y_range()
    assert first[0] == -first[1] and first[1] > 1.0
    draw(plot, [0.9, -0.9])
    assert plot.y_range() == first  # a nice R: small changes keep the axis
    draw(plot, [3.0, -1.0])
    grown = plot.y_range()
    assert grown[1] > 3.0
    draw(plot, [1.0, -1.0])
    assert plot.y_range() == first  # and it comes back: no memory of earlier draws


def test_the_floor_drops_the_empty_negative_half(plot):
    draw(plot, [1.0, 0.0])
    low, high = plot.y_range()
    plot.set_floor(1.0)
    assert plot.y_range()[1] == high
    assert -0.1 * high <= plot.y_range()[0] < 0
    plot.set_floor(0.5)
    assert low < plot.y_range()[0] < -0.1 * high
    plot.set_floor(0.0)
    assert plot.y_range() == (low, high)


def test_reserved_values_are_covered_before_they_are_drawn(plot):
    plot.reserve(4.0, 5, "par = 0.5")
    draw(plot, [1.0, -1.0])
    assert plot.y_range()[1] > 4.0


def test_suppressed_labels_hide_until_released(plot):
    plot.set_labels_suppressed(True)
    draw(plot, [1.0, -1.0])
    assert plot.label_texts() == []
    assert plot.labels_visible()  # they would fit: only held back
    plot.set_labels_suppressed(False)
    draw(plot, [1.0, -1.0])
    assert plot.label_texts() == ["+1.00", f"{MINUS}1.00"]


def test_reference_line_moves_and_its_label_never_resizes_the_plot(plot):
    draw(plot, [1.0, -1.0])
    host(plot).grab()
    before = plot.getViewBox().sceneBoundingRect()
    plot.set_reference_line(0.09091, "par = 0.09091")  # the widest par the margin reserves
    assert plot.reference_line() == (0.09091, "par = 0.09091")
    assert plot.ref_line.value() == 0.09091
    host(plot).grab()
    assert plot.getViewBox().sceneBoundingRect() == before


def test_theme_restyles_the_bars_and_keeps_the_title(plot):
    plot.set_value_title("reward r")
    draw(plot, [1.0, -1.0, 0.0])
    plot.set_theme(DARK, host(plot).font())
    assert plot.bar_colours() == [DARK.up, DARK.down, DARK.neutral]
    assert plot.getAxis("left").labelText == "reward r"


def test_caption_sits_at_the_top_inside_the_plot(plot):
    plot.set_captions(CAPTIONS)
    draw(plot, [1.0, -1.0, -1.0, 1.0])
    plot.show_caption(CAPTIONS[0])
    host(plot).grab()  # TextItem places itself on paint
    view = plot.getViewBox().sceneBoundingRect()
    caption = plot.caption.sceneBoundingRect()
    assert plot.caption.shown_text() == CAPTIONS[0]
    assert view.adjusted(-1, -1, 1, 1).contains(caption)
    assert caption.bottom() <= plot.getViewBox().mapViewToScene(pg.Point(1, 1.0)).y()
    plot.hide_caption()
    assert plot.caption.shown_text() == ""


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


def test_value_axis_uses_the_real_minus_sign(qtbot):
    axis = SignedAxis("left")
    assert axis.tickStrings([-1.0, 0.0, 1.0], 1.0, 0.5) == ["\u22121.0", "0", "1.0"]


def test_grouped_bars_draw_exactly_what_pyqtgraphs_bars_draw(qtbot):
    from PySide6.QtGui import QBrush, QColor

    from grpo_desktop.views.common.advantage_plot import GroupedBars

    up = (pg.mkPen("#00745a", width=2), QBrush(QColor("#3fb68b")))
    down = (pg.mkPen("#b3541e", width=2), QBrush(QColor("#f08a4b")))
    heights = [1.2, -0.8, 0.0, 0.5, -1.5, 1.2, -0.8, 0.3]
    chosen = [up, down, down, up, down, up, down, up]  # two looks, interleaved
    images = []
    for kind in (pg.BarGraphItem, GroupedBars):
        widget = pg.PlotWidget()
        qtbot.addWidget(widget)
        widget.resize(400, 300)
        bars = kind(x=list(range(1, 9)), height=[0.0] * 8, width=0.6)
        bars.setOpts(pens=[pen for pen, _ in chosen], brushes=[brush for _, brush in chosen])
        bars.setOpts(height=heights)  # new heights only: what a click sends
        widget.addItem(bars)
        widget.setRange(xRange=(0, 9), yRange=(-2, 2), padding=0)
        widget.show()
        qtbot.waitExposed(widget)
        images.append(widget.grab().toImage())
    assert images[0] == images[1]


def test_bars_outlined_in_their_own_colour_are_filled_wider_with_only_edges_moved(qtbot):
    # The chart's pens are cosmetic, in the fill's colour: GroupedBars fills each bar grown by
    # half the pen instead of stroking it. Against pyqtgraph's stroked bars, a pixel may differ
    # only on an edge (one of its neighbours differs from it in pyqtgraph's picture).
    import numpy as np
    from PySide6.QtGui import QBrush, QColor, QImage

    from grpo_desktop.views.common.advantage_plot import GroupedBars, _cosmetic_pen

    for width_px, size in ((1.5, (400, 300)), (3.0, (640, 360)), (1.5, (1000, 420))):
        looks = [(_cosmetic_pen(c, width_px), QBrush(QColor(c))) for c in ("#00745a", "#b3541e")]
        count = 48
        # No zero heights: the chart dots those and draws its zero line over them.
        heights = [((i * 37) % 23 - 11.5) / 7 for i in range(count)]
        chosen = [looks[i % 3 == 0] for i in range(count)]
        images = []
        for kind in (pg.BarGraphItem, GroupedBars):
            widget = pg.PlotWidget()
            qtbot.addWidget(widget)
            widget.resize(*size)
            bars = kind(x=list(range(1, count + 1)), height=[0.0] * count, width=0.6)
            bars.setOpts(pens=[pen for pen, _ in chosen], brushes=[brush for _, brush in chosen])
            bars.setOpts(height=heights)
            widget.addItem(bars)
            widget.setRange(xRange=(0, count + 1), yRange=(-2, 2), padding=0)
            widget.show()
            qtbot.waitExposed(widget)
            image = widget.grab().toImage().convertToFormat(QImage.Format.Format_RGB32)
            rows = np.frombuffer(image.constBits(), np.uint8).reshape(image.height(), -1)
            images.append(rows[:, : image.width() * 4].reshape(image.height(), -1, 4).copy())
        reference, grown = images
        differs = (reference != grown).any(axis=2)
        assert differs.sum() < differs.size / 100  # the same bars, give or take their edges
        padded = np.pad(reference, ((1, 1), (1, 1), (0, 0)), mode="edge")
        centre = padded[1:-1, 1:-1]
        edge = np.zeros(differs.shape, bool)
        for dy, dx in ((0, 1), (2, 1), (1, 0), (1, 2)):
            near = padded[dy : dy + differs.shape[0], dx : dx + differs.shape[1]]
            edge |= (near != centre).any(axis=2)
        assert not (differs & ~edge).any(), (width_px, size)


def test_a_range_seen_before_writes_the_ticks_it_wrote_then_without_working_them_out(
    plot, qtbot, monkeypatch
):
    """A class's clicks move among a few ranges: each range's value ticks are worked out once
    per plot height and tick font, and are those a plot drawing that range afresh writes."""
    from grpo_desktop.views.common import advantage_plot

    worked_out = []
    nice_ticks = advantage_plot._nice_value_ticks
    monkeypatch.setattr(
        advantage_plot,
        "_nice_value_ticks",
        lambda *args: worked_out.append(args[:3]) or nice_ticks(*args),
    )
    groups = ([1.0, -1.0], [2.0, -0.5, 0.25], [0.3, -0.1])
    shown = []
    for heights in groups:
        draw(plot, heights)
        shown.append((plot.y_range(), plot.y_ticks()))
    ranges = len(worked_out)
    for heights, ticks in zip(groups, shown, strict=True):
        draw(plot, heights)
        assert (plot.y_range(), plot.y_ticks()) == ticks
    assert len(worked_out) == ranges, "a range seen before worked its ticks out again"
    fresh = AdvantagePlot("advantage A")
    widget = pg.PlotWidget(plotItem=fresh)
    qtbot.addWidget(widget)
    fresh.set_theme(LIGHT, host(plot).font())
    widget.resize(host(plot).size())
    with qtbot.waitExposed(widget):
        widget.show()
    for heights, ticks in zip(groups, shown, strict=True):
        draw(fresh, heights)
        assert (fresh.y_range(), fresh.y_ticks()) == ticks
    plot.set_theme(DARK, host(plot).font())  # a new tick font: worked out again in it
    before = len(worked_out)
    draw(plot, groups[0])
    assert len(worked_out) > before
