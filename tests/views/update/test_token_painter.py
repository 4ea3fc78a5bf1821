"""TokenRowsPainter: the rows painted without a widget, what it keeps, and its switch."""

from __future__ import annotations

import dataclasses

from PySide6.QtCore import QRect
from PySide6.QtGui import QColor, QImage, QPainter
from test_token_rows import ROWS, SNAPSHOT, answer_row, make_snapshot, tok

from grpo_desktop.core.common.theme import DARK, LIGHT
from grpo_desktop.views.common import render_cache
from grpo_desktop.views.update import token_painter
from grpo_desktop.views.update.token_layout import row_header
from grpo_desktop.views.update.token_painter import TokenRowsPainter


def paint(painter: TokenRowsPainter, width: int = 500) -> QImage:
    height = painter.layout(width).height
    image = QImage(width, height, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(QColor("#123456"))
    canvas = QPainter(image)
    painter.paint(canvas, QRect(0, 0, width, height), width, 1.0, (1, 4), (0, 0))
    canvas.end()
    return image


def test_a_painter_lays_out_and_paints_a_snapshot_with_no_widget(qapp):
    painter = TokenRowsPainter(LIGHT)
    assert painter.prepare(SNAPSHOT)  # new positions
    layout = painter.layout(500)
    assert len(layout.rows) == len(ROWS)
    assert painter.token_rect(1, 4, 500).isValid() and not painter.token_rect(9, 0, 500).isValid()
    assert painter.ring_rect(None, 500) == QRect()
    image = paint(painter)
    assert image.pixelColor(1, 1) == QColor(LIGHT.surface)  # the whole exposed rect is filled


def test_a_new_snapshot_of_the_same_answers_keeps_every_position(qapp):
    painter = TokenRowsPainter(LIGHT)
    painter.prepare(SNAPSHOT)
    before = painter.layout(500)
    rescored = make_snapshot([answer_row(r.index, r.reward, -r.advantage, r.tokens) for r in ROWS])
    assert not painter.prepare(rescored)
    assert painter.layout(500) is before
    longer = make_snapshot([*ROWS, answer_row(3, 1.0, 0.1, [tok("x", 0.1)])])
    assert painter.prepare(longer)


def test_a_new_theme_measures_again_and_forgets_its_chip_drawings(qapp):
    painter = TokenRowsPainter(LIGHT)
    painter.prepare(SNAPSHOT)
    paint(painter)
    assert render_cache.DRAWINGS.kept("token chip") > 0
    light_style = painter.style()
    painter.restyle(DARK)
    painter.prepare(SNAPSHOT)
    assert painter.style() is not light_style
    assert render_cache.DRAWINGS.kept("token chip") == 0


def test_with_caching_off_every_chip_is_drawn_afresh_to_the_same_pixels(qapp, monkeypatch):
    painter = TokenRowsPainter(LIGHT)
    painter.prepare(SNAPSHOT)
    kept = paint(painter)
    drawn = []
    original = token_painter.draw_chip
    monkeypatch.setattr(token_painter, "draw_chip", lambda *a: drawn.append(1) or original(*a))
    paint(painter)
    assert drawn == []  # every chip blitted from its drawing
    monkeypatch.setattr(render_cache, "CACHING", False)
    painter.prepare(make_snapshot(list(ROWS), selected=(1, 4)))
    fresh = paint(painter)
    chips = sum(len(row.tokens) for row in ROWS)
    assert len(drawn) == chips
    assert paint(painter) == fresh == kept
    assert len(drawn) == 2 * chips


def test_a_repaint_blits_whole_lines_and_draws_no_chip_again(qapp):
    painter = TokenRowsPainter(LIGHT)
    painter.prepare(SNAPSHOT)
    first = paint(painter)
    blitted = []
    original = painter.paint_chip
    painter.paint_chip = lambda *args: blitted.append(args[2]) or original(*args)
    rescored = make_snapshot([answer_row(r.index, r.reward, r.advantage, r.tokens) for r in ROWS])
    painter.prepare(rescored)  # a new snapshot of the same looks: its lines are kept
    assert paint(painter) == first
    assert blitted == []  # every line blitted whole, no chip one by one
    assert painter.lines.pixmaps


def rows_with(pushes: list[float], clipped: set[int] = frozenset()) -> list:
    """ROWS with each row's tokens pushed by ``pushes`` (one per row) and ✂ on ``clipped``."""
    return [
        answer_row(
            row.index,
            row.reward,
            row.advantage,
            [
                tok(t.text, push, clipped=column in clipped, answer=t.is_answer)
                for column, t in enumerate(row.tokens)
            ],
        )
        for row, push in zip(ROWS, pushes, strict=True)
    ]


def test_the_lines_after_each_new_snapshot_equal_a_fresh_chip_by_chip_repaint(qapp, monkeypatch):
    # A toggle's new levels, a finished step's ✂ marks, the next toggle's pending step 0 (the
    # marked places kept, its chips unmarked, at the same levels) and a card toggled back.
    finished = make_snapshot(rows_with([0.5, -0.2, 0.1], clipped={1, 3}))
    sequence = [
        SNAPSHOT,
        make_snapshot(rows_with([0.5, -0.2, 0.1])),
        finished,
        dataclasses.replace(make_snapshot(rows_with([0.5, -0.2, 0.1])), pending=True),
        finished,
        SNAPSHOT,
    ]
    kept, fresh = TokenRowsPainter(LIGHT), TokenRowsPainter(LIGHT)
    for snapshot in sequence:
        kept.prepare(snapshot)
        with_lines = paint(kept)
        monkeypatch.setattr(render_cache, "CACHING", False)
        fresh.prepare(snapshot)
        assert paint(fresh) == with_lines
        monkeypatch.setattr(render_cache, "CACHING", True)


def test_a_header_whose_numbers_come_back_is_kept_not_formatted_again(qapp):
    painter = TokenRowsPainter(LIGHT)
    painter.prepare(SNAPSHOT)
    first = list(painter.headers)
    flipped = make_snapshot([answer_row(r.index, r.reward, -r.advantage, r.tokens) for r in ROWS])
    painter.prepare(flipped)
    assert [h.texts for h in painter.headers] == [
        row_header(row, painter.style()).texts for row in flipped.rows
    ]
    painter.prepare(SNAPSHOT)  # a card toggled back: its numbers, so its headers, come back
    assert all(now is kept for now, kept in zip(painter.headers, first, strict=True))
