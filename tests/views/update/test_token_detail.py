"""TokenDetailPanel: the clicked token's whole computation, as plain text from the trace."""

from __future__ import annotations

import dataclasses

import pytest
from PySide6.QtCore import Qt

from grpo_desktop.core.common.theme import LIGHT, PROJECTOR
from grpo_desktop.core.update.update_settings import UpdateSettings
from grpo_desktop.core.update.update_snapshot import (
    ComputationRow,
    PresetInfo,
    TokenComputation,
    UpdateSnapshot,
)
from grpo_desktop.views.update.token_detail import INSTRUCTION, TokenDetailPanel

PRESET = PresetInfo("verl/token-mean", "verl · token-mean", "Σ ℓ / Σ|o|", "tokens", "verl")
COMPUTATION = TokenComputation(
    row=1,
    column=6,
    title="Answer #2, token 7: “ 1081”",
    rows=(
        ComputationRow("ratio r", "exp(logp − old_logp) = exp(−0.3567 + 0.5108)", "1.1667"),
        ComputationRow("clip", "clip(r, 1 − 0.2, 1 + 0.2)", "1.1667"),
        ComputationRow("advantage A", "(r − mean) / std", "−0.5774"),
        ComputationRow("push", "weight · r · A", "−0.0321"),
    ),
    summary="The update lowers this token: its answer was wrong and the ratio is inside the clip.",
)


def snapshot(selected: TokenComputation | None) -> UpdateSnapshot:
    return UpdateSnapshot(
        settings=UpdateSettings(),
        preset=PRESET,
        compare_preset=PRESET,
        rows=(),
        loss=0.0,
        compare_loss=0.0,
        clip_fraction=0.0,
        kl_mean=None,
        inner_step=0,
        max_abs_push=0.0,
        status="",
        selected=selected,
        clip_c_applies=True,
        kl_estimators=("k3",),
        presets=(PRESET,),
    )


@pytest.fixture
def panel(qtbot):
    panel = TokenDetailPanel(LIGHT)
    qtbot.addWidget(panel)
    panel.resize(360, 420)
    with qtbot.waitExposed(panel):
        panel.show()
    return panel


def test_shows_the_instruction_until_a_token_is_selected(panel):
    assert panel.objectName() == "tokenDetail"
    panel.show_snapshot(snapshot(None))
    assert panel.plain_text() == INSTRUCTION
    assert panel.computation() is None


def test_shows_the_title_every_row_and_the_summary_in_order(panel):
    panel.show_snapshot(snapshot(COMPUTATION))
    text = panel.plain_text()
    expected = [COMPUTATION.title]
    for row in COMPUTATION.rows:
        expected += [row.label, row.expression, row.value]
    expected.append(COMPUTATION.summary)
    position = 0
    for piece in expected:  # each piece after the one before it
        position = text.index(piece, position) + len(piece)
    assert INSTRUCTION not in text


def test_text_from_traces_appears_literally(panel):
    risky = dataclasses.replace(
        COMPUTATION,
        title="Answer #1, token 2: “<b>x</b>”",
        rows=(ComputationRow("token <i>", "a & b < c", "<b>1</b>"),),
        summary="It said <script>alert(1)</script> & more.",
    )
    panel.show_snapshot(snapshot(risky))
    text = panel.plain_text()
    assert "“<b>x</b>”" in text
    assert "token <i>" in text
    assert "a & b < c" in text
    assert "<b>1</b>" in text
    assert "<script>alert(1)</script> & more." in text


def test_deselecting_brings_the_instruction_back(panel):
    panel.show_snapshot(snapshot(COMPUTATION))
    panel.show_snapshot(snapshot(None))
    assert panel.plain_text() == INSTRUCTION


def test_never_scrolls_sideways_in_a_narrow_column(panel):
    long = dataclasses.replace(
        COMPUTATION,
        rows=(ComputationRow("expression", "x" * 200, "1.0"),),
    )
    panel.resize(300, 420)
    panel.show_snapshot(snapshot(long))
    assert panel.horizontalScrollBarPolicy() == Qt.ScrollBarPolicy.ScrollBarAlwaysOff
    assert panel.document().size().width() <= panel.viewport().width() + 1


def test_projector_theme_makes_the_text_larger(panel):
    panel.show_snapshot(snapshot(COMPUTATION))
    light = panel.font().pointSizeF()
    panel.set_theme(PROJECTOR)
    assert panel.font().pointSizeF() > light
    assert COMPUTATION.summary in panel.plain_text()


def test_the_result_shows_under_the_title_before_the_steps(qtbot):
    """At 1280×800 the detail is ~215 px tall: ∂loss/∂logp, the last of nine steps, needed
    scrolling. The result is given first, under the title, then worked out step by step."""
    from grpo_desktop.core.update.update_snapshot import ComputationRow, TokenComputation
    from grpo_desktop.views.update.token_detail import token_detail_html

    rows = (
        ComputationRow("advantage A", "answer #2's", "−1.00"),
        ComputationRow("∂loss/∂logp", "w · ∂(surrogate + β·KL)/∂logp", "0.011494"),
        ComputationRow("push", "−∂loss/∂logp", "−0.011494"),
    )
    computation = TokenComputation(1, 2, "Answer #2, token 3: ' 50'", rows, "It lowers.")
    panel = TokenDetailPanel(LIGHT)
    qtbot.addWidget(panel)
    panel.setHtml(token_detail_html(computation, LIGHT))
    lines = [line for line in panel.toPlainText().splitlines() if line.strip()]
    assert lines[0] == "Answer #2, token 3: ' 50'"
    assert lines[1].startswith("∂loss/∂logp 0.011494 · push −0.011494")
    assert lines[2] == "advantage A"


def _with_push(value: str) -> TokenComputation:
    rows = tuple(
        dataclasses.replace(row, value=value) if row.label == "push" else row
        for row in COMPUTATION.rows
    )
    return dataclasses.replace(COMPUTATION, rows=rows)


def test_the_same_tokens_new_numbers_are_laid_out_after_the_frame_the_latest_only(panel, qtbot):
    panel.show_snapshot(snapshot(_with_push("−0.0321")))
    assert "−0.0321" in panel.toPlainText()
    # A card toggled: the selected token's numbers change (twice before the loop runs).
    panel.show_snapshot(snapshot(_with_push("−0.0500")))
    panel.show_snapshot(snapshot(_with_push("−0.0777")))
    assert panel.render_waiting
    assert panel.computation() == _with_push("−0.0777")
    assert "−0.0321" in panel.toPlainText(), "the frame of the click does not lay the text out"
    qtbot.waitUntil(lambda: not panel.render_waiting)
    text = panel.toPlainText()
    assert "−0.0777" in text and "−0.0500" not in text and "−0.0321" not in text
    assert text == TokenDetailPanel.plain_text(panel)


def test_a_newly_selected_token_and_a_read_show_at_once(panel):
    panel.show_snapshot(snapshot(COMPUTATION))
    other = dataclasses.replace(COMPUTATION, column=2, title="Answer #2, token 3: “ x”")
    panel.show_snapshot(snapshot(other))
    assert not panel.render_waiting
    assert "token 3" in panel.toPlainText()
    panel.show_snapshot(snapshot(dataclasses.replace(other, summary="Numbers moved.")))
    assert panel.render_waiting
    assert "Numbers moved." in panel.plain_text(), "a read lays the waiting numbers out first"
    assert not panel.render_waiting
