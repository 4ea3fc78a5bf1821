"""New heights for the same bars (a click, an animation frame) skip pyqtgraph's per-option
preparation of every bar and leave the bars exactly as pyqtgraph's own ``setOpts`` leaves them:
the same rectangles, bounds, options and looks."""

from __future__ import annotations

import random

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtGui import QBrush, QColor, QPen

from grpo_desktop.views.common.pyqtgraph_internals import GroupedBars

LOOKS = [
    (QPen(QColor(colour)), QBrush(QColor(colour))) for colour in ("#1b9e77", "#d95f02", "#777")
]


def state(bars: pg.BarGraphItem) -> tuple:
    """What painting, bounds and readers of the item use."""
    return (
        bars._rectarray.ndarray().tolist(),
        bars.dataBounds(0),
        bars.dataBounds(1),
        bars.boundingRect().getRect(),
        list(np.asarray(bars.opts["height"], dtype=float)),
        bars._pens,
        bars._brushes,
        bars.pixelPadding(),
    )


def random_heights(rng: random.Random, count: int) -> list[float]:
    choices = (0.0, -0.0, 1e-300, -2.5, 1.0 / 3.0, 7)
    return [rng.choice(choices) if rng.random() < 0.2 else rng.uniform(-3, 3) for _ in range(count)]


@pytest.mark.parametrize("seed", range(6))
def test_new_heights_leave_the_bars_as_pyqtgraphs_setopts_does(qtbot, seed, monkeypatch):
    rng = random.Random(seed)
    count = rng.choice([1, 2, 5, 16, 64])
    width = rng.choice([0.6, 0.8, [0.5] * count])
    x = rng.choice([list(range(1, count + 1)), np.arange(count) * 1.5])
    looks = [rng.choice(LOOKS) for _ in range(count)]
    start = {
        "x": x,
        "height": random_heights(rng, count),
        "width": width,
        "pens": [pen for pen, _ in looks],
        "brushes": [brush for _, brush in looks],
    }
    ours, pyqtgraphs = GroupedBars(**start), pg.BarGraphItem(**start)
    prepared = []
    prepare = pg.BarGraphItem._prepareData
    monkeypatch.setattr(
        pg.BarGraphItem, "_prepareData", lambda item: prepared.append(item) or prepare(item)
    )
    for step in range(12):
        change: dict = {"height": random_heights(rng, count)}
        if step % 3 == 2:  # a click recolours a bar too
            looks[rng.randrange(count)] = rng.choice(LOOKS)
            change["pens"] = [pen for pen, _ in looks]
            change["brushes"] = [brush for _, brush in looks]
        if step % 4 == 1:
            change["height"] = np.array(change["height"])
        ours.setOpts(**change)
        pyqtgraphs.setOpts(**change)
        assert state(ours) == state(pyqtgraphs), step
        assert ours.picture is None and ours._shape is None
    assert ours not in prepared, "new heights went through pyqtgraph's preparation of each bar"


def test_other_changes_still_go_through_pyqtgraph(qtbot):
    """New x, widths or a count of bars change more than the heights."""
    ours = GroupedBars(x=[1, 2, 3], height=[1.0, -1.0, 0.5], width=0.6, pens=None, brushes=None)
    reference = pg.BarGraphItem(
        x=[1, 2, 3], height=[1.0, -1.0, 0.5], width=0.6, pens=None, brushes=None
    )
    for change in (
        {"x": [2, 3, 4], "height": [0.5, 0.5, -0.5]},
        {"x": [1, 2], "height": [1.0, 2.0]},  # a bar fewer
        {"width": 0.3, "height": [0.25, -0.75]},
        {"height": [3.0, -3.0]},
    ):
        ours.setOpts(**change)
        reference.setOpts(**change)
        assert state(ours) == state(reference), change
