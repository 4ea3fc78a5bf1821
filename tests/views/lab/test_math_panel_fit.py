"""MathPanel's fit: the text sizes a panel tries are laid out once per text, box and typesetting.

A window's panel fits its text on every resize by laying it out at several sizes; every window
meets the same text at the same widths, so the heights are kept. What decides a height is in the
key, the typesetting too: a fit made while the math still showed as plain text is made again
once the math arrives (typeset lines are taller).
"""

from __future__ import annotations

from collections import OrderedDict

import pytest
from PySide6.QtCore import QSize
from PySide6.QtWidgets import QApplication

from grpo_desktop.core.common.theme import THEMES
from grpo_desktop.core.lab.lab_snapshot import build_snapshot
from grpo_desktop.core.lab.problems import get_problem
from grpo_desktop.views.common import math_render
from grpo_desktop.views.lab import math_panel
from grpo_desktop.views.lab.math_panel import MathPanel

#: A box the text grows to fill, where typeset fractions (taller than their plain text) fit a
#: smaller text than the plain lines do.
LARGE_BOX = QSize(700, 900)
GROUP = [True, False, False, True]


@pytest.fixture
def typesetter():
    if not math_render.load_typesetter():
        pytest.skip("the typesetter cannot be loaded here")


def panel_in(qtbot, size: QSize, theme=THEMES["light"]) -> MathPanel:
    """A panel shown in a box of ``size`` with the group's worked math (its fit made)."""
    panel = MathPanel(theme)
    qtbot.addWidget(panel)
    panel.resize(size)
    panel.show_snapshot(build_snapshot(get_problem("mult-23x47"), GROUP))
    panel.show()
    QApplication.processEvents()
    return panel


def test_a_second_panel_of_the_same_text_and_box_lays_nothing_out_to_fit_it(qtbot, typesetter):
    first = panel_in(qtbot, LARGE_BOX)
    first.finish_typesetting()
    second = panel_in(qtbot, LARGE_BOX)  # measured with every line typeset
    measured = math_panel.measure_count()
    third = panel_in(qtbot, LARGE_BOX)
    assert math_panel.measure_count() == measured
    assert third.text_scale() == second.text_scale() > 1.0
    assert third.grab().toImage() == second.grab().toImage()


def test_another_width_or_theme_is_measured_afresh(qtbot, typesetter, monkeypatch):
    monkeypatch.setattr(math_panel, "_heights", OrderedDict())
    panel_in(qtbot, LARGE_BOX).finish_typesetting()
    measured = math_panel.measure_count()
    panel_in(qtbot, QSize(LARGE_BOX.width() - 100, LARGE_BOX.height()))
    assert math_panel.measure_count() > measured
    measured = math_panel.measure_count()
    panel_in(qtbot, LARGE_BOX, THEMES["projector"])
    assert math_panel.measure_count() > measured


def test_a_fit_made_before_the_math_was_typeset_is_made_again_once_it_is(
    qtbot, typesetter, monkeypatch
):
    monkeypatch.setattr(math_render, "_cache", OrderedDict())  # no line typeset yet
    before = panel_in(qtbot, LARGE_BOX)  # plain text stands in for the math
    plain_scale = before.text_scale()
    before.finish_typesetting()  # the math arrives
    after = panel_in(qtbot, LARGE_BOX)
    monkeypatch.setattr(math_panel, "_heights", OrderedDict())  # nothing kept: as built afresh
    fresh = panel_in(qtbot, LARGE_BOX)
    assert after.text_scale() == fresh.text_scale() != plain_scale
    assert before.text_scale() == fresh.text_scale()  # refitted when its math arrived
    assert after.grab().toImage() == fresh.grab().toImage()
