"""Where a trace card puts things and what it says, as plain functions of its fonts and state.

The fonts and sizes of one (widget font, theme) pair (``CardStyle``), the trace word-wrapped into
lines with its boxed answers, the rectangles of the text, the advantage lines and the reward
slider, the card's width and height, and its texts (header, stamp, verdict, advantage,
accessible description and tooltip). No widget and no cache: ``trace_card_painter.py`` keeps
what these return and draws, and ``trace_card.py`` is the widget.
"""

from __future__ import annotations

import html
import math
from dataclasses import dataclass, fields
from operator import attrgetter

from PySide6.QtCore import QRect, QRectF, QSize
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QTextLayout, QTextOption

from grpo_desktop.core.common.formatting import number, signed
from grpo_desktop.core.common.theme import Theme
from grpo_desktop.core.lab.lab_snapshot import CardState
from grpo_desktop.core.lab.trace_display import Run

# Full-mode cards fit about 26 characters of a typical trace line ("20 × 47 = 940 + 141 = 1081"
# is 26): mostly digits, with narrower spaces and signs, so 24 digits wide.
WIDTH_SAMPLE = "0" * 24
# The widest usual advantage texts; a card is wide enough for them at their (largest) size.
ADVANTAGE_SAMPLE_FULL = "A = −0.00 ▼"
ADVANTAGE_SAMPLE_COMPACT = "−0.00 ▼"
HINT = "Click, Space or Enter to mark it right/wrong"
DRAG_HINT = "Drag sideways, or press + or −, to set its reward"
RECORDED_HINT = "A run's answer, as the model wrote it"
#: A long trace (a real run's completion) shows this many lines and scrolls inside its card.
MAX_VISIBLE_LINES = 14
TOOLTIP_CHARS = 1200  # the tooltip shows the start of a long trace, not a screenful of it
FOCUS_RING = 3.0  # px, the focus ring's pen width
MARGIN = 4  # px around the card body, reserved for the focus ring so focus never moves anything


def scaled(base: QFont, factor: float, bold: bool = False) -> QFont:
    font = QFont(base)
    if base.pointSizeF() > 0:
        font.setPointSizeF(base.pointSizeF() * factor)
    else:  # a pixel-sized font
        font.setPixelSize(max(1, round(base.pixelSize() * factor)))
    if bold:
        font.setWeight(QFont.Weight.Bold)
    return font


@dataclass(frozen=True)
class CardStyle:
    """Fonts and sizes for one (widget font, theme) pair; rebuilt only when either changes."""

    header: QFont
    stamp: QFont
    trace: QFont
    note: QFont  # the reward functions' values: smaller than the trace, which it summarises
    answer: QFont
    advantage: QFont
    word: QFont
    compact_header: QFont
    compact_answer: QFont
    compact_advantage: QFont
    pad: float
    gap: float
    border: float
    radius: float
    colours: dict[str, QColor]  # the theme's colours by field name, parsed once
    _by_value: dict[str, QColor]
    _metrics: dict[int, QFontMetricsF]  # by id() of the fonts above, which this object keeps alive

    def colour(self, value: str) -> QColor:
        """A theme colour given as its hex string (as ``Theme.push_colour`` returns it)."""
        colour = self._by_value.get(value)
        if colour is None:
            colour = self._by_value[value] = QColor(value)
        return colour

    def fm(self, font: QFont) -> QFontMetricsF:
        """Metrics of one of this style's fonts (computed once), or of any other font."""
        metrics = self._metrics.get(id(font))
        return metrics if metrics is not None else QFontMetricsF(font)

    @staticmethod
    def build(base: QFont, theme: Theme) -> CardStyle:
        base = scaled(base, theme.type_scale)
        em = QFontMetricsF(base).height()
        style = CardStyle(
            header=scaled(base, 1.1, bold=True),
            stamp=scaled(base, 0.95, bold=True),
            trace=scaled(base, 1.0),
            note=scaled(base, 0.85),
            answer=scaled(base, 1.15, bold=True),
            advantage=scaled(base, 1.9, bold=True),  # the largest text on the card
            word=scaled(base, 1.0, bold=True),
            compact_header=scaled(base, 0.95, bold=True),
            compact_answer=scaled(base, 0.95),
            compact_advantage=scaled(base, 1.45, bold=True),  # largest in compact mode too
            pad=round(em * 0.7),
            gap=round(em * 0.35),
            border=max(2.0, theme.stroke_width * 2.0),
            radius=round(em * 0.6),
            colours={
                field.name: QColor(getattr(theme, field.name))
                for field in fields(theme)
                if field.type in (str, "str")
                and QColor.isValidColorName(getattr(theme, field.name))
            },
            _by_value={},
            _metrics={},
        )
        for font in (
            style.header,
            style.stamp,
            style.trace,
            style.note,
            style.answer,
            style.advantage,
            style.word,
            style.compact_header,
            style.compact_answer,
            style.compact_advantage,
        ):
            style._metrics[id(font)] = QFontMetricsF(font)
        return style


# A boxed answer is laid out with a narrow no-break space either side, room for its rectangle.
BOX_PAD = "\u202f"


@dataclass(frozen=True)
class Line:
    """One visual line of the trace: its text and where its boxes are (x from its left, px)."""

    text: str
    boxes: tuple[tuple[float, float], ...] = ()


def paragraph(runs: tuple[Run, ...]) -> tuple[str, tuple[tuple[int, int], ...]]:
    """The runs of one line as a string, and the character span of each boxed run in it."""
    parts: list[str] = []
    spans: list[tuple[int, int]] = []
    length = 0
    for run in runs:
        piece = f"{BOX_PAD}{run.text}{BOX_PAD}" if run.boxed else run.text
        if run.boxed:
            spans.append((length, length + len(piece)))
        parts.append(piece)
        length += len(piece)
    return "".join(parts), tuple(spans)


def wrap(
    paragraphs: tuple[tuple[Run, ...], ...], font: QFont, fm: QFontMetricsF, width: float
) -> tuple[Line, ...]:
    """The visual lines of the typeset trace, word-wrapped (or broken anywhere) to ``width`` px."""
    option = QTextOption()
    option.setWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
    lines: list[Line] = []
    for runs in paragraphs:
        text, spans = paragraph(runs)
        if not text.strip():
            lines.append(Line(""))
            continue
        layout = QTextLayout(text, font)
        layout.setTextOption(option)
        layout.beginLayout()
        while True:
            line = layout.createLine()
            if not line.isValid():
                break
            line.setLineWidth(max(1.0, width))
            start, end = line.textStart(), line.textStart() + line.textLength()
            shown = text[start:end].rstrip()
            boxes = tuple(
                (
                    fm.horizontalAdvance(text[start : max(start, box_start)]),
                    fm.horizontalAdvance(text[start : min(end, box_end)]),
                )
                for box_start, box_end in spans
                if box_start < end and box_end > start
            )
            lines.append(Line(shown, boxes))
        layout.endLayout()
    return tuple(lines)


# Two meanings a card shows apart (issue 25, item 6): the checker's verdict on the final answer
# (✓ / ✗, on the answer's line, never coloured) and the push (the card's colour, ▲ / ▼ and its
# word, from the reward against par). A hand-set 0.54 above par is a green card whose answer the
# checker still marks ✗; under accuracy + format a right answer below par is red and ✓.
PUSH_WORDS = {
    "up": "pushed up · above par",
    "down": "pushed down · below par",
    "none": "no signal · at par",
}


def reward_stamp(card: CardState, compact: bool) -> str:
    """The reward alone: ``reward 0.54`` (``r = 0.54`` on a compact card)."""
    value = number(card.reward, 3)
    return f"r = {value}" if compact else f"reward {value}"


def verdict(card: CardState, compact: bool) -> str:
    """The checker's verdict on the final answer ("" for a run's answer, which has none)."""
    if card.correct is None:
        return ""
    if compact:
        return "✓" if card.correct else "✗"
    return "checker ✓" if card.correct else "checker ✗"


def final_answer(card: CardState, compact: bool = False) -> str:
    """The answer the checker read, and its verdict: ``→ 1091 · checker ✗``."""
    answer = "→ (no answer)" if card.final_answer is None else f"→ {card.final_answer}"
    mark = verdict(card, compact)
    if not mark:
        return answer
    return f"{answer} {mark}" if compact else f"{answer} · {mark}"


# What a card's layer (all but its advantage lines) draws of its state: all but the numbers a
# click changes (the sign of A counts as well: it colours the box). One C call reads them all.
layer_fields = attrgetter(
    *(f.name for f in fields(CardState) if f.name not in ("advantage", "centered"))
)


def only_advantage_changed(shown: CardState | None, card: CardState) -> bool:
    """Whether ``card`` differs from the card ``shown`` only in the size of its advantage, so the
    card's layer is the same and only the advantage lines need new pixels."""
    return (
        shown is not None
        and (shown.advantage > 0) == (card.advantage > 0)
        and (shown.advantage < 0) == (card.advantage < 0)
        and layer_fields(shown) == layer_fields(card)
    )


def header_text(index: int, highlighted: bool) -> str:
    """The card's number, starred when the lecturer highlights it."""
    return f"#{index + 1} ★" if highlighted else f"#{index + 1}"


def advantage_text(card: CardState, prefix: str, hidden: bool) -> str:
    """``A = +1.00 ▲`` (with ``prefix``), or a question mark while the class predicts."""
    if hidden:
        return f"{prefix}?"
    return f"{prefix}{signed(card.advantage, 2)} {card.push.glyph}"


# -- sizes and rectangles -------------------------------------------------------------------


def stamp_size(style: CardStyle, label: str) -> QSize:
    """The reward pill around ``label``."""
    fm = style.fm(style.stamp)
    return QSize(
        int(fm.horizontalAdvance(label) + fm.height() + 0.999),
        int(fm.height() * 1.25 + 0.999),
    )


def header_height(style: CardStyle) -> float:
    return max(style.fm(style.header).height(), stamp_size(style, "reward 0").height())


def breakdown_height(style: CardStyle, compact: bool, card: CardState | None) -> float:
    """The line of reward functions' values, in full mode when the card has one."""
    if compact or card is None or not card.breakdown:
        return 0.0
    return style.fm(style.note).height() + style.gap * 0.5


def knob_size(style: CardStyle) -> float:
    return round(style.fm(style.stamp).height() * 0.9)


def slider_height(style: CardStyle, reward_range: tuple[float, float] | None) -> float:
    """Room under the text for the reward slider (continuous mode only)."""
    return 0.0 if reward_range is None else style.gap + knob_size(style)


def footer_height(style: CardStyle) -> float:
    return (
        style.fm(style.answer).height()
        + style.fm(style.advantage).height()
        + style.fm(style.word).height()
    )


def content_rect(
    width: int, height: int, style: CardStyle, reward_range: tuple[float, float] | None
) -> QRectF:
    """Where the card's text goes: inside the padding, above the reward slider if any."""
    body = QRectF(0, 0, width, height).adjusted(MARGIN, MARGIN, -MARGIN, -MARGIN)
    inner = body.adjusted(style.pad, style.pad, -style.pad, -style.pad)
    return inner.adjusted(0, 0, 0, -slider_height(style, reward_range))


def footer_rect(style: CardStyle, content: QRectF, compact: bool) -> QRect:
    """Whole pixels that hold the advantage lines (and nothing a click leaves alone)."""
    height = style.fm(style.compact_advantage if compact else style.advantage).height()
    if not compact:
        height += style.fm(style.word).height()
    top = math.floor(content.bottom() - height)
    left = math.floor(content.left())
    return QRect(left, top, math.ceil(content.right()) - left, math.ceil(content.bottom()) - top)


def track_rect(style: CardStyle, content: QRectF) -> QRectF:
    """The reward slider's track: the knob's centre runs from its left to its right end."""
    knob = knob_size(style)
    return QRectF(
        content.left() + knob / 2, content.bottom() + style.gap, content.width() - knob, knob
    )


def minimum_width(style: CardStyle, compact: bool) -> int:
    """The narrowest a card can be in this mode while staying legible (px)."""
    if compact:
        content = max(
            style.fm(style.compact_advantage).horizontalAdvance(ADVANTAGE_SAMPLE_COMPACT),
            style.fm(style.compact_header).horizontalAdvance("#64")
            + style.gap * 2
            + stamp_size(style, "r = 0").width(),
        )
    else:
        content = max(
            style.fm(style.trace).horizontalAdvance(WIDTH_SAMPLE),
            style.fm(style.advantage).horizontalAdvance(ADVANTAGE_SAMPLE_FULL),
        )
    return int(content + 2 * (MARGIN + style.pad) + 0.999)


def card_height(
    style: CardStyle,
    compact: bool,
    trace_lines: int,
    card: CardState | None,
    reward_range: tuple[float, float] | None,
) -> int:
    """The height a card needs for ``trace_lines`` wrapped lines (at most MAX_VISIBLE_LINES
    show; a longer trace scrolls inside the card)."""
    if compact:
        body = (
            stamp_size(style, "r = 0").height()
            + style.gap
            + style.fm(style.compact_answer).height()
            + style.gap * 0.5
            + style.fm(style.compact_advantage).height()
        )
    else:
        lines = min(trace_lines, MAX_VISIBLE_LINES)
        body = (
            header_height(style)
            + style.gap
            + lines * style.fm(style.trace).lineSpacing()
            + style.gap * 2
            + footer_height(style)
            + breakdown_height(style, compact, card)
        )
    return int(body + slider_height(style, reward_range) + 2 * (MARGIN + style.pad) + 0.999)


# -- what the card says to a screen reader and in its tooltip -------------------------------


def tooltip_trace(paragraphs: tuple[tuple[Run, ...], ...]) -> str:
    """The typeset trace as tooltip rich text: boxed answers in bold brackets."""
    return "<br>".join(
        "".join(
            f"<b>[{html.escape(run.text)}]</b>" if run.boxed else html.escape(run.text)
            for run in runs
        )
        for runs in paragraphs
    )


def describe(card: CardState, index: int, continuous: bool, trace_html: str) -> tuple[str, str]:
    """The accessible description and the tooltip of ``card`` (``trace_html``: its trace as
    ``tooltip_trace`` writes it; ``continuous``: its reward can be dragged)."""
    answer = "no final answer" if card.final_answer is None else f"final answer {card.final_answer}"
    if card.correct is not None:
        answer += ", checker: right" if card.correct else ", checker: wrong"
    reward = number(card.reward, 4)
    parts = f" ({card.breakdown})" if card.breakdown else ""
    push = PUSH_WORDS[card.push.value]
    description = f"{answer}, reward {reward}{parts}, advantage {signed(card.advantage, 2)}, {push}"
    checked = ""
    if card.correct is not None:
        checked = " · checker: ✓ right" if card.correct else " · checker: ✗ wrong"
    summary = (
        f"<b>Answer {index + 1}</b> — {html.escape(reward_stamp(card, False))}"
        f"{checked}; A = {signed(card.advantage, 2)} {card.push.glyph} {html.escape(push)}"
    )
    breakdown = f"<p>{html.escape(card.breakdown)}</p>" if card.breakdown else ""
    hints = [HINT] if card.correct is not None else [RECORDED_HINT]
    if continuous:
        hints.append(DRAG_HINT)
    hint = html.escape("; ".join(hints))
    return description, f"<p>{summary}</p>{breakdown}<p>{trace_html}</p><p><i>{hint}</i></p>"
