"""The Lab's right column (chart above, worked math below) is split by the math's typeset
height, whatever was typeset when it was first balanced."""

from __future__ import annotations


def test_the_column_is_balanced_again_once_the_waiting_math_is_typeset(sized, qtbot, monkeypatch):
    """Found in screenshots: at 2560x1600 the chart was 752, 789 or 818 px tall from run to run,
    by how many lines the typesetter had finished when the column was balanced."""
    from collections import OrderedDict

    from grpo_desktop.views.common import math_render

    # No line typeset yet: an earlier test in this process may have typeset TRL's lines.
    monkeypatch.setattr(math_render, "_cache", OrderedDict())
    window = sized((2560, 1600))
    page, panel = window.lab_page, window.lab_page.math_panel
    window.lab_page.load_typesetting()
    panel.finish_typesetting()
    window.request_convention("trl")  # new numbers: their lines wait as plain text
    assert panel.typesetting_waiting()
    page.balance_right_column()
    with_plain_lines = page.right_splitter.sizes()
    with qtbot.waitSignal(panel.typeset_arrived, timeout=10_000):
        pass
    balanced = page.right_splitter.sizes()
    assert balanced != with_plain_lines  # the typeset lines are taller: the math got more
    page.balance_right_column()  # balancing now, everything typeset, changes nothing
    assert page.right_splitter.sizes() == balanced
