"""Whole lines of token chips, drawn once per look and blitted: a repaint costs a blit a line.

A toggle recolours every chip on screen (all advantages move with the group's mean), and the
token rows painted some 270 chips one blit each, in a Python loop: most of their repaint. The
colours come in few levels and a group's states recur (a card toggled and toggled back, the
pending step 0 and the finished step), so the same line of chips at the same levels comes back.
A line's chips are blitted once into a transparent pixmap of the line, kept under a key of
what they depend on (the row's layout, the line, each chip's colour level), and a repaint
blits the line. Chips never overlap (``gap_x`` apart) and a transparent pixel composes to
nothing, so a line blitted shows the pixels its chips blitted one by one showed, to the bit.

Only where chips are blitted at whole pixels (a pixel ratio of 1, an integer translation) and
``render_cache.CACHING`` is on; elsewhere the painter blits chip by chip as before.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable

import numpy as np
from PySide6.QtGui import QPixmap

__all__ = [
    "MAX_LINE_BUDGET",
    "MIN_LINE_BUDGET",
    "SCREENS_KEPT",
    "LineDrawings",
    "answer_columns",
    "line_key",
]

#: Screens of lines kept: the shown look, the ones before it (a card toggled back, the pending
#: step 0 and the finished step) and one more.
SCREENS_KEPT = 4
#: The least budget in bytes (a small view still keeps a few looks of its lines).
MIN_LINE_BUDGET = 2**20
#: The most, whatever a paint exposes: a grab of the whole widget (every row's lines, tens of
#: thousands of pixels tall) must not make the budget that of a hundred screens.
MAX_LINE_BUDGET = 32 * 2**20
_ANSWERS_KEPT = 256  # rows' final-answer columns, looked up by their flags' identity

Chips = tuple[tuple[int, int, int, str], ...]  # (x, y, width, label) each, as laid out
LineKey = tuple[Chips, bytes, bytes]


def line_key(chips: Chips, steps: np.ndarray, marks: bytes) -> LineKey:
    """What a line of chips looks like: each chip's place, width and label, its colour level
    and its ✂ (``marks``, a byte each or ``b""`` for none: a pending step's row keeps the
    places its marks had, its chips unmarked). By what the line shows, not by which layout
    holds it: each finished step's marks make a layout of their own, yet most lines of two
    such layouts are laid out alike."""
    return (chips, steps.tobytes(), marks)


_answers: dict[int, tuple[tuple[bool, ...], list[int]]] = {}


def answer_columns(is_answer: tuple[bool, ...]) -> list[int]:
    """The columns of a row's final-answer tokens (kept by the flags' identity: the snapshot's
    builder hands an answer's one tuple of flags to every snapshot of it)."""
    found = _answers.get(id(is_answer))
    if found is not None and found[0] is is_answer:
        return found[1]
    columns = [column for column, answer in enumerate(is_answer) if answer]
    if len(_answers) >= _ANSWERS_KEPT:
        _answers.clear()
    _answers[id(is_answer)] = (is_answer, columns)
    return columns


class LineDrawings:
    """Line pixmaps in least-recently-used order within a byte budget that follows the area
    painted: :data:`SCREENS_KEPT` times the largest area one paint has exposed (a scroll
    area's paint exposes what shows), between :data:`MIN_LINE_BUDGET` and
    :data:`MAX_LINE_BUDGET`."""

    def __init__(self) -> None:
        self.pixmaps: OrderedDict[LineKey, QPixmap] = OrderedDict()
        self.bytes = 0
        self.budget = MIN_LINE_BUDGET

    def exposed(self, width: int, height: int) -> None:
        """A paint exposes ``width`` × ``height`` px: the budget grows to keep a few of them."""
        wanted = min(MAX_LINE_BUDGET, SCREENS_KEPT * width * height * 4)
        self.budget = max(self.budget, wanted)

    def get(self, key: LineKey, draw: Callable[[], QPixmap]) -> QPixmap:
        """The line kept under ``key``, drawn by ``draw`` the first time."""
        pixmap = self.pixmaps.get(key)
        if pixmap is not None:
            self.pixmaps.move_to_end(key)
            return pixmap
        pixmap = draw()
        size = pixmap.width() * pixmap.height() * 4
        while self.pixmaps and self.bytes + size > self.budget:
            _key, oldest = self.pixmaps.popitem(last=False)
            self.bytes -= oldest.width() * oldest.height() * 4
        self.pixmaps[key] = pixmap
        self.bytes += size
        return pixmap

    def clear(self) -> None:
        """Forget every line (new fonts or theme: every drawing changes) and the budget."""
        self.pixmaps.clear()
        self.bytes = 0
        self.budget = MIN_LINE_BUDGET
