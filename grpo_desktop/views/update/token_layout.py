"""Where the token rows put things, as plain functions of the fonts and the snapshot.

What a chip reads (whitespace made visible) and how wide it is, how a row's header and chips flow
between two margins, where the legend goes, and where a navigation key moves the selection. No
widget and no cache here: the token rows' painter (``token_painter.py``) keeps what these return,
and the widget (``token_rows.py``) asks it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from PySide6.QtCore import QRect, QRectF, Qt
from PySide6.QtGui import QFont, QFontMetricsF

from grpo_desktop.core.common.formatting import MINUS, number, signed
from grpo_desktop.core.common.theme import Theme
from grpo_desktop.core.update.update_snapshot import AnswerRow, TokenView
from grpo_desktop.views.common.fonts import scaled_font

__all__ = [
    "LEGEND",
    "NEWLINE_MARK",
    "SCISSORS",
    "SPACE_MARK",
    "RowHeader",
    "RowLayout",
    "RowShape",
    "RowsLayout",
    "TokenStyle",
    "display_label",
    "flags",
    "flow_row",
    "header_texts",
    "key_target",
    "legend_rect",
    "marked_shape",
    "plain_shape",
    "push_summary",
    "row_header",
    "slot_key",
    "slot_width",
    "token_tooltip",
    "verdict",
]

#: What a chip shows for a space: U+2423 OPEN BOX, the typographers' visible space. A middle dot
#: read as multiplication in arithmetic ("·47" as "times 47"). The legend explains both marks.
SPACE_MARK = "␣"
NEWLINE_MARK = "↵"
LEGEND = (
    "▲ green: raises likelihood · ▼ vermillion: lowers · intensity = size of push · "
    "✂ clipped (no gradient) · underlined: the final answer the checker reads · "
    f"{SPACE_MARK} a space, {NEWLINE_MARK} a line break (tokens keep their spaces)"
)
SCISSORS = "✂"
_DIGIT = re.compile(r"\d")
_SWAPS = (("+", MINUS), ("▲", "▼"), ("raises", "lowers"), ("✓ right", "✗ wrong"))
# Whitespace made visible: a space is ␣, a newline ↵ (and the flow breaks after it), a tab →,
# other control characters their Unicode "control picture" (U+2400 + code).
_VISIBLE = {ord(" "): SPACE_MARK, ord("\n"): NEWLINE_MARK, ord("\t"): "→", ord("\r"): "␍"}
_VISIBLE.update({code: chr(0x2400 + code) for code in range(32) if code not in _VISIBLE})
_VISIBLE[0x7F] = "␡"


# -- what a chip and a header say ---------------------------------------------------------------


def display_label(text: str) -> str:
    """The token's characters as its chip shows them: exact, with whitespace made visible."""
    return text.translate(_VISIBLE)


def verdict(answer: AnswerRow) -> str:
    """The checker's verdict, or a run's logged reward where there is no verdict."""
    if answer.correct is None:
        return f"r = {number(answer.reward, 3)}"
    return "✓ right" if answer.correct else "✗ wrong"


def push_summary(total: float) -> tuple[str, int]:
    """The header text for an answer's total push, and its sign (+1, −1 or 0) for the colour."""
    text = signed(total, 3)
    if float(text.replace(MINUS, "-")) == 0.0:
        return "● 0 no push", 0
    if total > 0:
        return f"▲ {text} raises", 1
    return f"▼ {text} lowers", -1


def flags(token: TokenView) -> list[str]:
    """What a token's tooltip says about its clip marks and whether it is the final answer."""
    found = []
    if token.dual_clipped:
        found.append("dual-clipped")
    if token.clipped:
        found.append("clipped (no gradient)")
    if token.is_answer:
        found.append("final answer")
    return found


def token_tooltip(token: TokenView, row: int, column: int) -> str:
    """What hovering a chip says: the exact text (quoted, escapes shown), its push and flags."""
    quoted = json.dumps(token.text, ensure_ascii=False)
    push = signed(token.push, 4) if token.push else "0"
    lines = [f"Answer #{row + 1}, token {column + 1}: {quoted}", f"push {push}"]
    marks = flags(token)
    if marks:
        lines.append(", ".join(marks))
    return "\n".join(lines)


# -- sizes and positions -----------------------------------------------------------------------


@dataclass(frozen=True)
class TokenStyle:
    """Fonts, metrics and sizes for one (application font, theme) pair."""

    legend: QFont
    header: QFont
    header_bold: QFont
    chip: QFont
    mark: QFont
    legend_fm: QFontMetricsF
    header_fm: QFontMetricsF
    chip_fm: QFontMetricsF
    mark_fm: QFontMetricsF
    margin: int
    pad_x: int
    pad_y: int
    gap_x: int
    line_gap: int
    header_gap: int
    row_gap: int
    item_gap: int
    chip_h: int
    min_chip_w: int
    scissors_w: int
    radius: float
    stroke: float
    ring: float
    underline: float

    @staticmethod
    def build(theme: Theme) -> TokenStyle:
        scale = theme.type_scale
        chip = scaled_font(scale)
        fm = QFontMetricsF(chip)
        em = fm.height()
        mark = scaled_font(scale * 0.8)
        legend = scaled_font(scale * 0.9)
        header = scaled_font(scale)
        header_bold = scaled_font(scale, bold=True)
        stroke = max(1.0, theme.stroke_width * 0.67)
        ring = max(2.5, theme.stroke_width * 1.6)
        underline = max(2.0, theme.stroke_width * 1.4)
        pad_y = max(2, round(em * 0.15))
        mark_fm = QFontMetricsF(mark)
        return TokenStyle(
            legend=legend,
            header=header,
            header_bold=header_bold,
            chip=chip,
            mark=mark,
            legend_fm=QFontMetricsF(legend),
            header_fm=QFontMetricsF(header_bold),
            chip_fm=fm,
            mark_fm=mark_fm,
            margin=max(4, round(em * 0.5)),
            pad_x=max(3, round(em * 0.3)),
            pad_y=pad_y,
            # Between chips: room for the focus ring and a dual clip's outer outline.
            gap_x=max(round(ring) + 1, round(em * 0.18), round(2 * stroke + 4)),
            # Below each line of chips: room for the answer underline and the focus ring.
            line_gap=max(round(underline + ring) + 2, round(em * 0.35)),
            header_gap=max(round(2 * stroke + 3), round(em * 0.3)),
            row_gap=max(8, round(em * 0.9)),
            item_gap=round(em * 0.9),
            chip_h=round(em) + 2 * pad_y,
            min_chip_w=max(6, round(em * 0.5)),
            scissors_w=round(mark_fm.horizontalAdvance(SCISSORS)) + 2,
            radius=max(2.0, em * 0.18),
            stroke=stroke,
            ring=ring,
            underline=underline,
        )


@dataclass(frozen=True, eq=False)
class RowShape:
    """What one row's chip positions depend on, token by token: the same for every click that
    only re-scores the answer (compared by identity: the view keeps one per text and marks).

    The widths, rooms and breaks are read-only numpy arrays, so a row of thousands of chips
    flows in a few vector passes (:func:`flow_row`)."""

    labels: tuple[str, ...]  # what each chip reads (whitespace made visible)
    widths: np.ndarray  # int64, natural width in px (before clamping to a narrow widget)
    rooms: np.ndarray  # int64, the part of each width that is not the label: padding and ✂
    breaks: np.ndarray  # bool, a newline token: the flow continues on the next line


def _frozen(array: np.ndarray) -> np.ndarray:
    array.flags.writeable = False
    return array


@dataclass(frozen=True)
class RowHeader:
    texts: tuple[tuple[str, bool, int], ...]  # (text, bold, sign of the colour: 1, −1, 0, 2=text)
    widths: tuple[int, ...]


@dataclass(frozen=True)
class RowLayout:
    """One row's positions, with y measured from the row's top: a row whose shape, header and
    width did not change keeps its layout when another row changes or moves.

    Tuples all through, of numbers and texts: once the garbage collector has seen a layout it
    stops tracking it, so the layouts kept for every row and width (some 70,000 chips on a long
    group) are not walked again by each full collection, which a click may have to wait for."""

    height: int  # header and chips
    header: tuple[tuple[int, int, int], ...]  # (x, baseline y, index into RowHeader.texts)
    line_tops: tuple[int, ...]  # y of each line of chips
    line_starts: tuple[int, ...]  # index of the first chip on each line
    chips: tuple[tuple[int, int, int, str], ...]  # (x, y, width, shown label)


@dataclass
class RowsLayout:
    width: int
    height: int
    legend: QRect
    row_tops: list[int]
    rows: list[RowLayout]


def plain_shape(
    texts: tuple[str, ...], style: TokenStyle, labels: dict[str, tuple[str, int, bool]]
) -> RowShape:
    """The shape of a row of ``texts`` with no ✂ marks; each text's (label, width, breaks) is
    looked up in ``labels`` and added there on a miss."""
    fm = style.chip_fm
    extra = 2 * style.pad_x
    minimum = style.min_chip_w
    entries = []
    for text in texts:
        entry = labels.get(text)
        if entry is None:
            label = display_label(text)
            entry = labels[text] = (
                label,
                max(minimum, round(fm.horizontalAdvance(label)) + extra),
                "\n" in text,
            )
        entries.append(entry)
    count = len(entries)
    if not entries:
        empty = _frozen(np.zeros(0, dtype=np.int64))
        return RowShape((), empty, empty, _frozen(np.zeros(0, dtype=bool)))
    shown, widths, breaks = zip(*entries, strict=True)
    return RowShape(
        shown,
        _frozen(np.fromiter(widths, dtype=np.int64, count=count)),
        _frozen(np.full(count, extra, dtype=np.int64)),
        _frozen(np.fromiter(breaks, dtype=bool, count=count)),
    )


def marked_shape(plain: RowShape, marks: np.ndarray, style: TokenStyle) -> RowShape:
    """``plain`` with a ✂ on the chips ``marks`` (a bool per token) marks: a mark only widens
    its chip."""
    widen = np.asarray(marks, dtype=bool) * np.int64(style.scissors_w)
    return RowShape(
        plain.labels,
        _frozen(plain.widths + widen),
        _frozen(plain.rooms + widen),
        plain.breaks,
    )


def header_texts(answer: AnswerRow) -> tuple[tuple[str, bool, int], ...]:
    """A row's header items: (text, bold, colour sign: 1 up, −1 down, 0 neutral, 2 text)."""
    count = len(answer.tokens)
    push_text, sign = push_summary(answer.total_push)
    return (
        (f"#{answer.index + 1}", True, 2),
        (verdict(answer), False, 2),
        (f"A = {signed(answer.advantage, 2)}", False, 2),
        (f"{count} token" if count == 1 else f"{count} tokens", False, 2),
        (push_text, True, sign),
    )


def slot_width(text: str, bold: bool, style: TokenStyle) -> int:
    """The width of a header item: wide enough for any value with as many digits and either
    sign, so a click that changes A or the push does not move a single chip."""
    metrics = QFontMetricsF(style.header_bold if bold else style.header)
    variants = {_DIGIT.sub("0", text)}
    for one, other in _SWAPS:
        variants |= {v.replace(one, other) for v in variants}
        variants |= {v.replace(other, one) for v in variants}
    return max(round(metrics.horizontalAdvance(v)) + 1 for v in variants)


def slot_key(text: str, bold: bool) -> tuple[str, bool]:
    """What ``slot_width`` depends on: the text with its digits as zeros, and the weight."""
    return (_DIGIT.sub("0", text), bold)


def row_header(
    answer: AnswerRow, style: TokenStyle, width_of: Callable[[str, bool], int] | None = None
) -> RowHeader:
    """The header of ``answer``'s row; ``width_of`` (text, bold) measures an item (by default
    ``slot_width``; the painter passes its cached one)."""
    texts = header_texts(answer)
    if width_of is None:
        return RowHeader(texts, tuple(slot_width(t, bold, style) for t, bold, _ in texts))
    return RowHeader(texts, tuple(width_of(t, bold) for t, bold, _ in texts))


def legend_rect(style: TokenStyle, width: int) -> QRect:
    """Where the legend is drawn, word-wrapped between the margins, at the top."""
    margin = style.margin
    left, right = margin, max(margin + style.min_chip_w, width - margin)
    available = right - left
    legend = style.legend_fm.boundingRect(
        QRectF(left, margin, available, 1e6),
        int(Qt.AlignmentFlag.AlignLeft | Qt.TextFlag.TextWordWrap),
        LEGEND,
    )
    return QRect(left, margin, available, int(legend.height() + 0.999))


def flow_row(
    shape: RowShape, header: RowHeader, left: int, right: int, style: TokenStyle
) -> RowLayout:
    """One row's header and chips flowed between ``left`` and ``right``, from y = 0.

    Chips flow like words: a chip starts a new line when it would cross ``right`` (unless it is
    the line's first) or follows a newline token; one wider than the view is elided to fit.
    One pass over the chips as Python lists: a binary search for each line's end over the
    cumulative widths (tried: ``np.searchsorted`` per line, then ``bisect``) measured slower in
    the app, since a line holds some 25 chips and numpy's per-call cost outweighs the loop's.
    """
    available = right - left
    line_step = style.chip_h + style.line_gap
    gap_x = style.gap_x
    header_h = round(style.header_fm.lineSpacing())
    header_ascent = round(style.header_fm.ascent())
    y = 0
    # Header items flow like words: they wrap as units on a narrow view.
    placed: list[tuple[int, int, int]] = []
    x = left
    for item, item_w in enumerate(header.widths):
        if x > left and x + item_w > right:
            x = left
            y += header_h
        placed.append((x, y + header_ascent, item))
        x += item_w + style.item_gap
    y += header_h + style.header_gap
    widths = shape.widths.tolist()
    line_tops = [y] if widths else []
    line_starts = [0] if widths else []
    xs: list[int] = []
    ys: list[int] = []
    x = left
    broke = False
    breaks = shape.breaks.tolist()
    for column, w in enumerate(widths):
        if (broke or x + w > right) and x > left:
            x = left
            y += line_step
            line_tops.append(y)
            line_starts.append(column)
        if w > available:  # one token wider than the view: elided to fit (below)
            w = widths[column] = available
        xs.append(x)
        ys.append(y)
        x += w + gap_x
        broke = breaks[column]
    labels: list[str] | tuple[str, ...] = shape.labels
    if len(xs) and max(widths) == available:
        wide = np.flatnonzero(shape.widths > available).tolist()
        if wide:
            labels = list(labels)
            fm = style.chip_fm
            for column in wide:
                room = available - int(shape.rooms[column])
                labels[column] = fm.elidedText(labels[column], Qt.TextElideMode.ElideRight, room)
    if widths:
        y += line_step
    chips = tuple(zip(xs, ys, widths, labels, strict=True))
    return RowLayout(y, tuple(placed), tuple(line_tops), tuple(line_starts), chips)


# -- where the keys go --------------------------------------------------------------------------

_ACTIVATE_KEYS = (Qt.Key.Key_Space, Qt.Key.Key_Return, Qt.Key.Key_Enter)
_NAVIGATION_KEYS = (
    Qt.Key.Key_Left,
    Qt.Key.Key_Right,
    Qt.Key.Key_Up,
    Qt.Key.Key_Down,
    Qt.Key.Key_Home,
    Qt.Key.Key_End,
    *_ACTIVATE_KEYS,
)
_CTRL = Qt.KeyboardModifier.ControlModifier


def key_target(
    key: int,
    modifiers: Qt.KeyboardModifier,
    lengths: list[int],
    cursor: tuple[int, int] | None,
) -> tuple[int, int] | None:
    """Where a navigation key moves the selection, or None when it is not one of ours.

    ``lengths`` holds each row's token count and ``cursor`` the (row, column) the keys last
    reached. Arrows move within a row and to the nearest row with tokens, Home and End to a
    row's ends, Ctrl+Home and Ctrl+End to the group's; Space and Enter ask for the cursor's token.
    """
    filled = [i for i, n in enumerate(lengths) if n]
    if not filled or not _is_navigation(key, modifiers):
        return None
    if cursor is None or not (0 <= cursor[0] < len(lengths) and lengths[cursor[0]]):
        return filled[0], 0  # the first key press selects the first token
    row, column = cursor[0], min(cursor[1], lengths[cursor[0]] - 1)
    if modifiers == _CTRL:
        return (filled[0], 0) if key == Qt.Key.Key_Home else (filled[-1], lengths[filled[-1]] - 1)
    if key in (Qt.Key.Key_Up, Qt.Key.Key_Down):
        return _next_row(key == Qt.Key.Key_Down, row, column, filled, lengths)
    return row, _within_row(key, column, lengths[row])


def _is_navigation(key: int, modifiers: Qt.KeyboardModifier) -> bool:
    if modifiers == Qt.KeyboardModifier.NoModifier:
        return key in _NAVIGATION_KEYS
    return modifiers == _CTRL and key in (Qt.Key.Key_Home, Qt.Key.Key_End)


def _within_row(key: int, column: int, length: int) -> int:
    """The column a key moves to along a row of ``length`` tokens (Space, Enter: stay)."""
    if key == Qt.Key.Key_Left:
        return max(0, column - 1)
    if key == Qt.Key.Key_Right:
        return min(length - 1, column + 1)
    if key == Qt.Key.Key_Home:
        return 0
    if key == Qt.Key.Key_End:
        return length - 1
    return column


def _next_row(
    down: bool, row: int, column: int, filled: list[int], lengths: list[int]
) -> tuple[int, int]:
    """The nearest row with tokens below (or above) ``row``, at the same column or its end."""
    rows = [i for i in filled if i > row] if down else [i for i in filled if i < row][::-1]
    target = rows[0] if rows else row
    return target, min(column, lengths[target] - 1)


# -- what a screen reader hears ------------------------------------------------------------------

_SPOKEN = {" ": "space", "\n": "newline", "\t": "tab", "\r": "carriage return"}
_RUNS = re.compile(r"(\s+)")


def spoken_token(text: str) -> str:
    """A token's text as a screen reader should say it: whitespace named (" 1081" is
    "space 1081", "\\n\\n" is "2 newlines"), other control characters by code point."""
    words = []
    for run in _RUNS.split(text):
        if not run:
            continue
        if run.isspace():
            index = 0
            while index < len(run):  # name each kind of whitespace with its count
                char = run[index]
                count = len(run[index:]) - len(run[index:].lstrip(char))
                name = _SPOKEN.get(char, f"U+{ord(char):04X}")
                words.append(name if count == 1 else f"{count} {name}s")
                index += count
        else:
            controls = "".join(
                f" U+{ord(c):04X} " if ord(c) < 32 or ord(c) == 0x7F else c for c in run
            )
            words.append(" ".join(controls.split()))
    return " ".join(words) if words else "empty token"


def token_description(token: TokenView, row: int, column: int) -> str:
    """A chip's accessible description: where it is, its push and its marks."""
    push = signed(token.push, 4) if token.push else "0"
    parts = [f"answer {row + 1}, token {column + 1}", f"push {push}", *flags(token)]
    return "; ".join(parts)
