"""A toggle that only changes the push chart's totals gives the bars new heights, nothing more."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtWidgets import QApplication

from grpo_desktop.core.common.theme import DARK, LIGHT
from grpo_desktop.core.update.update_settings import UpdateSettings
from grpo_desktop.core.update.update_snapshot import (
    AnswerRow,
    PresetInfo,
    TokenView,
    UpdateSnapshot,
)
from grpo_desktop.views.common.pyqtgraph_internals import GroupedBars
from grpo_desktop.views.update.push_chart import PushChart

PRESET = PresetInfo("verl/token-mean", "verl · token-mean", "Σ ℓ / Σ|o|", "every token", "verl")
COMPARED = PresetInfo("verl/seq-mean", "verl · seq-mean", "1/G Σ 1/|o| Σ ℓ", "every answer", "verl")


def totals(main: list[float], compare: list[float]) -> UpdateSnapshot:
    """A snapshot whose answers push these totals (main preset, compared preset)."""
    rows = tuple(
        AnswerRow(i, 1.0, 0.5, (TokenView("a", m / 3, False, False, False),) * 3, m, c, True)
        for i, (m, c) in enumerate(zip(main, compare, strict=True))
    )
    return UpdateSnapshot(
        settings=UpdateSettings(),
        preset=PRESET,
        compare_preset=COMPARED,
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
        presets=(PRESET, COMPARED),
    )


@pytest.fixture
def chart(qtbot):
    chart = PushChart(LIGHT)
    qtbot.addWidget(chart)
    chart.resize(600, 350)
    with qtbot.waitExposed(chart):
        chart.show()
    return chart


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
