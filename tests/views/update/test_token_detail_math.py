"""The token detail typesets each expression that has LaTeX and copies it with Ctrl+Shift+L."""

from __future__ import annotations

import dataclasses

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication
from test_token_detail import COMPUTATION, snapshot

from grpo_desktop.core.common.theme import PROJECTOR
from grpo_desktop.core.update.update_snapshot import ComputationRow
from grpo_desktop.views.common.math_render import OBJECT_CHARACTER
from grpo_desktop.views.update.token_detail import TokenDetailPanel

RATIO = r"\exp\left({-0.3567} - ({-0.5108})\right)"
TYPESET = dataclasses.replace(
    COMPUTATION,
    rows=(
        ComputationRow("ratio r", "exp(−0.3567 − (−0.5108))", "1.1667", RATIO),
        ComputationRow("advantage A", "answer #2's, shared by its 5 tokens", "−0.5774"),
    ),
)


def test_expressions_are_typeset_and_read_and_copied_as_plain_text(qtbot):
    panel = TokenDetailPanel(PROJECTOR)
    qtbot.addWidget(panel)
    panel.resize(360, 420)
    panel.show_snapshot(snapshot(TYPESET))
    panel.show()
    QApplication.processEvents()
    # typeset right after the frame that showed the token (its plain text shows until then)
    qtbot.waitUntil(lambda: OBJECT_CHARACTER in panel.document().toPlainText())
    assert panel.document().toPlainText().count(OBJECT_CHARACTER) == 1  # the sentence stays text
    text = panel.plain_text()
    assert "exp(−0.3567 − (−0.5108))" in text and OBJECT_CHARACTER not in text
    qtbot.keyClick(
        panel, Qt.Key.Key_L, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
    )
    assert QApplication.clipboard().text() == RATIO
    panel.selectAll()
    qtbot.keyClick(panel, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
    assert "exp(−0.3567 − (−0.5108))" in QApplication.clipboard().text()


def test_a_toggle_drops_the_old_numbers_lines_still_waiting_to_be_typeset(qtbot):
    from grpo_desktop.views.common import math_render

    def ratio(old: str) -> ComputationRow:
        latex = rf"\exp\left({{-0.3567}} - ({{{old}}})\right)"
        return ComputationRow("ratio r", f"exp(−0.3567 − ({old}))", "1.1667", latex)

    panel = TokenDetailPanel(PROJECTOR)
    qtbot.addWidget(panel)
    panel.resize(360, 420)
    panel.show()
    first = dataclasses.replace(TYPESET, rows=(ratio("-0.4101"),))
    panel.show_snapshot(snapshot(first))
    if not panel._later.waiting:  # the typesetter is not loaded: nothing is ever queued
        return
    typeset = []
    original = math_render.typeset
    math_render.typeset = lambda *args: typeset.append(args[0]) or original(*args)
    try:
        # A card toggled before the first line was typeset: the same token, new numbers.
        panel.show_snapshot(snapshot(dataclasses.replace(TYPESET, rows=(ratio("-0.4202"),))))
        assert not panel._later.waiting, "the old document's line is not typeset any more"
        qtbot.waitUntil(lambda: OBJECT_CHARACTER in panel.document().toPlainText())
    finally:
        math_render.typeset = original
    assert typeset and all("0.4202" in latex for latex in typeset)
    assert "0.4202" in panel.plain_text()
