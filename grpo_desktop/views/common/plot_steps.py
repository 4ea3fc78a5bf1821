"""A pyqtgraph plot made in parts, so the idle prebuild never holds a turn for a whole plot."""

from __future__ import annotations

from collections.abc import Generator

import pyqtgraph as pg


def plot_widget_in_steps(
    left_axis: type[pg.AxisItem] = pg.AxisItem,
    bottom_axis: type[pg.AxisItem] = pg.AxisItem,
) -> Generator[str, None, pg.PlotWidget]:
    """The parts pyqtgraph's ``PlotWidget`` would make, made ahead: the view box without the
    context menu the plot never shows, the axes (top and right hidden, as a plot's own are), the
    plot item, the widget. Yields each part's name; returns the widget."""
    viewbox = pg.ViewBox(enableMenu=False)
    axes = {
        "left": left_axis("left"),
        "bottom": bottom_axis("bottom"),
        "top": pg.AxisItem("top"),
        "right": pg.AxisItem("right"),
    }
    yield "view box and axes"
    plot = pg.PlotItem(viewBox=viewbox, axisItems=axes)
    plot.hideAxis("top")
    plot.hideAxis("right")
    yield "plot item"
    return pg.PlotWidget(plotItem=plot)
