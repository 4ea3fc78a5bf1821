"""token_layout: where chips, headers and the keys go, as plain functions (no widget)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PySide6.QtCore import Qt

from grpo_desktop.core.common.theme import LIGHT, PROJECTOR
from grpo_desktop.core.update.update_snapshot import AnswerRow, TokenView
from grpo_desktop.views.update.token_layout import (
    RowHeader,
    RowShape,
    TokenStyle,
    display_label,
    flow_row,
    header_texts,
    key_target,
    legend_rect,
    marked_shape,
    plain_shape,
    row_header,
    slot_width,
    verdict,
)

K = Qt.Key
NONE = Qt.KeyboardModifier.NoModifier
CTRL = Qt.KeyboardModifier.ControlModifier


@pytest.fixture
def style(qapp) -> TokenStyle:
    return TokenStyle.build(LIGHT)


# -- keys ---------------------------------------------------------------------------------------


def test_the_first_key_selects_the_first_token_of_the_first_row_with_tokens():
    assert key_target(K.Key_Right, NONE, [0, 3, 2], None) == (1, 0)
    assert key_target(K.Key_Right, NONE, [0, 3, 2], (0, 0)) == (1, 0)  # an empty row: restart
    assert key_target(K.Key_Right, NONE, [0, 0], None) is None  # nothing to select
    assert key_target(K.Key_Right, NONE, [], None) is None


def test_arrows_home_and_end_move_within_a_row_and_stop_at_its_ends():
    lengths = [5, 0, 3]
    assert key_target(K.Key_Right, NONE, lengths, (0, 2)) == (0, 3)
    assert key_target(K.Key_Right, NONE, lengths, (0, 4)) == (0, 4)
    assert key_target(K.Key_Left, NONE, lengths, (0, 0)) == (0, 0)
    assert key_target(K.Key_Home, NONE, lengths, (0, 3)) == (0, 0)
    assert key_target(K.Key_End, NONE, lengths, (0, 1)) == (0, 4)
    assert key_target(K.Key_Space, NONE, lengths, (2, 1)) == (2, 1)
    assert key_target(K.Key_Enter, NONE, lengths, (0, 9)) == (0, 4)  # a column past the end


def test_up_and_down_skip_empty_rows_and_keep_the_column_where_it_fits():
    lengths = [5, 0, 3]
    assert key_target(K.Key_Down, NONE, lengths, (0, 4)) == (2, 2)
    assert key_target(K.Key_Up, NONE, lengths, (2, 1)) == (0, 1)
    assert key_target(K.Key_Up, NONE, lengths, (0, 1)) == (0, 1)  # the top row: stay
    assert key_target(K.Key_Down, NONE, lengths, (2, 1)) == (2, 1)


def test_ctrl_home_and_end_go_to_the_groups_ends_and_other_keys_are_not_ours():
    lengths = [0, 4, 2, 0]
    assert key_target(K.Key_Home, CTRL, lengths, (2, 1)) == (1, 0)
    assert key_target(K.Key_End, CTRL, lengths, (1, 0)) == (2, 1)
    assert key_target(K.Key_Right, CTRL, lengths, (1, 0)) is None
    assert key_target(K.Key_Home, Qt.KeyboardModifier.ShiftModifier, lengths, (1, 0)) is None
    assert key_target(K.Key_PageDown, NONE, lengths, (1, 0)) is None


# -- shapes and flow ----------------------------------------------------------------------------


def test_labels_show_whitespace_and_a_mark_only_widens_its_chip(style):
    assert display_label(" a\n\t\x00") == "␣a↵→␀"
    labels: dict = {}
    plain = plain_shape((" a", "\n", "bb"), style, labels)
    assert plain.labels == ("␣a", "↵", "bb") and plain.breaks.tolist() == [False, True, False]
    assert set(labels) == {" a", "\n", "bb"}  # measured once, kept by the caller
    assert all(w >= style.min_chip_w for w in plain.widths)
    marked = marked_shape(plain, np.array([False, True, False]), style)
    assert marked.widths[1] == plain.widths[1] + style.scissors_w
    assert (marked.widths[0], marked.widths[2]) == (plain.widths[0], plain.widths[2])
    assert len(plain_shape((), style, labels).widths) == 0  # no tokens: an empty row


def test_a_row_flows_between_its_margins_breaks_after_a_newline_and_elides_a_giant(style):
    labels: dict = {}
    shape = plain_shape(("one", " two", "\n", "three", "x" * 400), style, labels)
    header = RowHeader((("#1", True, 2),), (30,))
    left, right = 10, 10 + 200
    row = flow_row(shape, header, left, right, style)
    xs = [x for x, _, _, _ in row.chips]
    assert xs[0] == left and all(x + w <= right for x, _, w, _ in row.chips)
    assert row.line_starts[:2] == (0, 3)  # "three" starts a line after the newline token
    giant = row.chips[4]
    assert giant[2] == right - left and giant[3].endswith("…")
    assert row.height == row.line_tops[-1] + style.chip_h + style.line_gap


def _loop_flow(shape, left, right, style, top):
    """The chip positions as the flow computed them chip by chip before it was vectorised:
    the reference the flow must match."""
    available = right - left
    line_step = style.chip_h + style.line_gap
    y, x, broke = top, left, False
    line_starts, chips = [0], []
    for column, w in enumerate(shape.widths.tolist()):
        if (broke or x + w > right) and x > left:
            x, y = left, y + line_step
            line_starts.append(column)
        label = shape.labels[column]
        if w > available:
            w = available
            label = style.chip_fm.elidedText(
                label, Qt.TextElideMode.ElideRight, w - int(shape.rooms[column])
            )
        chips.append((x, y, w, label))
        x += w + style.gap_x
        broke = bool(shape.breaks[column])
    return tuple(chips), tuple(line_starts)


# The style fixture is read-only fonts and sizes: sharing it between examples is safe.
@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    widths=st.lists(st.integers(min_value=1, max_value=260), min_size=1, max_size=300),
    newline_every=st.integers(min_value=0, max_value=40),
    right=st.integers(min_value=40, max_value=900),
)
def test_the_flow_places_every_chip_where_the_chip_by_chip_reference_did(
    style, widths, newline_every, right
):
    count = len(widths)
    breaks = np.zeros(count, dtype=bool)
    if newline_every:
        breaks[newline_every - 1 :: newline_every] = True
    shape = RowShape(
        tuple(f"t{i}" for i in range(count)),
        np.array(widths, dtype=np.int64),
        np.full(count, 2 * style.pad_x, dtype=np.int64),
        breaks,
    )
    header = RowHeader((("#1", True, 2),), (30,))
    left = 7
    row = flow_row(shape, header, left, right, style)
    top = row.line_tops[0]
    chips, line_starts = _loop_flow(shape, left, right, style, top)
    assert row.chips == chips
    assert row.line_starts == line_starts
    assert row.line_tops == tuple(sorted({y for _, y, _, _ in chips}))
    assert row.height == row.line_tops[-1] + style.chip_h + style.line_gap


def test_a_flowed_row_is_tuples_the_garbage_collector_stops_tracking(style):
    import gc

    shape = plain_shape(tuple(f" w{i}" for i in range(300)), style, {})
    row = flow_row(shape, RowHeader((("#1", True, 2),), (30,)), 10, 400, style)
    gc.collect()  # the chips' tuples of numbers and texts first, then the tuple holding them
    gc.collect()
    assert not any(gc.is_tracked(part) for part in (row.chips, row.line_tops, row.line_starts))
    assert not any(gc.is_tracked(chip) for chip in row.chips)


def test_a_row_of_thousands_of_random_chips_flows_as_the_loop_did(style):
    rng = np.random.default_rng(31)
    labels: dict = {}
    texts = tuple(rng.choice([" the", "\n", " 1081", "=", " answer", "x" * 90], size=4000))
    shape = plain_shape(texts, style, labels)
    marks = rng.random(4000) < 0.1
    for chosen in (shape, marked_shape(shape, marks, style)):
        row = flow_row(chosen, RowHeader((), ()), 12, 612, style)
        assert (row.chips, row.line_starts) == _loop_flow(chosen, 12, 612, style, row.line_tops[0])


def test_header_items_are_as_wide_as_any_value_of_their_digits_and_either_sign(style):
    answer = AnswerRow(0, 1.0, 0.5, (TokenView("a", 0.2, False, False, False),), 0.2, 0.0, True)
    texts = header_texts(answer)
    assert [t for t, _, _ in texts] == ["#1", "✓ right", "A = +0.50", "1 token", "▲ +0.200 raises"]
    assert verdict(answer) == "✓ right"
    assert slot_width("A = +0.50", False, style) == slot_width("A = −9.99", False, style)
    assert row_header(answer, style).widths == tuple(
        slot_width(t, bold, style) for t, bold, _ in texts
    )


def test_the_legend_wraps_within_the_margins_and_grows_with_the_theme(qapp, style):
    narrow, wide = legend_rect(style, 300), legend_rect(style, 1200)
    assert narrow.left() == style.margin and narrow.width() == 300 - 2 * style.margin
    assert narrow.height() > wide.height()
    assert legend_rect(TokenStyle.build(PROJECTOR), 1200).height() > wide.height()
