"""The token chips' looks: colours, pens and each chip's paint, made once per look and kept.

A toggle recolours every chip on screen, but a group's chips come in few colour levels and
texts: a chip is looked up by what it shows (text, level, clip marks, whether it is the final
answer), its fill, text colour and outline by (level, marked), and every ``QColor`` and
``QPen`` by its value, so a click makes none of them again.
"""

from __future__ import annotations

from typing import NamedTuple

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPen

from grpo_desktop.core.common.theme import Theme
from grpo_desktop.views.update.token_colours import LEVELS, tint
from grpo_desktop.views.update.token_layout import SCISSORS, TokenStyle

__all__ = ["Chip", "ChipLooks", "draw_chip"]


class Chip(NamedTuple):
    """How one token's chip is painted."""

    fill: QColor
    text: QColor
    pen: QPen
    clipped: bool
    dual: bool
    answer: bool
    key: tuple = ()  # (text, level, clipped, dual, answer): what its drawing depends on


def draw_chip(painter: QPainter, chip: Chip, label: str, width: int, style: TokenStyle) -> None:
    """A chip's box, label and ✂ mark, with its top left corner at the painter's origin."""
    painter.setPen(chip.pen)
    painter.setBrush(chip.fill)
    inset = chip.pen.widthF() / 2
    box = QRectF(0, 0, width, style.chip_h).adjusted(inset, inset, -inset, -inset)
    painter.drawRoundedRect(box, style.radius, style.radius)
    painter.setPen(chip.text)
    painter.setFont(style.chip)
    painter.drawText(QPointF(style.pad_x, style.pad_y + style.chip_fm.ascent()), label)
    if chip.clipped or chip.dual:
        painter.setFont(style.mark)
        painter.drawText(
            QPointF(
                width - style.pad_x - style.scissors_w + 1,
                style.pad_y + style.mark_fm.ascent(),
            ),
            SCISSORS,
        )


class ChipLooks:
    """Colours, pens and chips by what they show, for the painter's theme and style (it
    forgets the looks when either changes; colours and pens are kept by their value)."""

    def __init__(self) -> None:
        self._chips: dict[tuple, Chip] = {}  # (text, level, clipped, dual, answer) → chip
        self._looks: dict[tuple[int, bool], tuple[QColor, QColor, QPen]] = {}
        self._colours: dict[str, QColor] = {}
        self._pens: dict[tuple[str, float], QPen] = {}

    def forget(self) -> None:
        """A new theme or style: every look is made again."""
        self._looks.clear()
        self._chips.clear()

    def forget_chips(self) -> None:
        """Start the chips again (a long lesson's memory stays flat)."""
        self._chips.clear()

    def chips_kept(self) -> int:
        return len(self._chips)

    def colour(self, value: str) -> QColor:
        colour = self._colours.get(value)
        if colour is None:
            colour = self._colours[value] = QColor(value)
        return colour

    def pen(self, value: str, width: float, dashed: bool = False) -> QPen:
        key = (value, width if not dashed else -width)
        pen = self._pens.get(key)
        if pen is None:
            pen = QPen(self.colour(value), width)
            if dashed:
                pen.setStyle(Qt.PenStyle.DashLine)
            self._pens[key] = pen
        return pen

    def chip(self, key: tuple, theme: Theme, style: TokenStyle) -> Chip:
        """The chip of ``key`` = (text, level, clipped, dual, answer)."""
        chip = self._chips.get(key)
        if chip is None:
            _text, step, clipped, dual, answer = key
            marked = clipped or dual
            look = self._looks.get((step, marked))
            if look is None:
                look = self._looks[(step, marked)] = self._look(step, marked, theme, style)
            chip = self._chips[key] = Chip(*look, clipped, dual, answer, key)
        return chip

    def _look(
        self, step: int, marked: bool, theme: Theme, style: TokenStyle
    ) -> tuple[QColor, QColor, QPen]:
        """Fill, text colour and outline pen of a chip at a signed intensity ``step``."""
        fill, text, outline = tint(step / LEVELS, theme)
        if marked:
            pen = self.pen(theme.text, style.stroke, dashed=True)
        elif step == 0:
            pen = self.pen(outline, 1.0)
        else:
            pen = self.pen(outline, style.stroke * 0.75)
        return self.colour(fill), self.colour(text), pen
