"""The trace card's painter: draws a card from its state, and keeps what a click leaves alone.

What a click leaves alone (the box in its push colour, the header, the reward stamp, the answer,
the trace) is drawn once into a layer per look and blitted; only the advantage lines are drawn on
top, from drawings shared by every card that shows the same value (``render_cache.DRAWINGS``, with
the rounded boxes). The painter owns those caches and the trace's wrapped lines; with
``render_cache.CACHING`` off it keeps none of them and draws every paint afresh.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from typing import Protocol

from PySide6.QtCore import QPointF, QRect, QRectF, QSizeF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPalette, QPen, QPixmap

from grpo_desktop.core.common.theme import Theme
from grpo_desktop.core.lab.lab_snapshot import CardState
from grpo_desktop.core.lab.trace_display import Run, display_lines
from grpo_desktop.views.common import render_cache
from grpo_desktop.views.common.render_cache import DRAWINGS, filled_pixmap, transparent_pixmap
from grpo_desktop.views.lab.trace_card_layout import (
    FOCUS_RING,
    MARGIN,
    PUSH_WORDS,
    CardStyle,
    Line,
    advantage_text,
    breakdown_height,
    content_rect,
    final_answer,
    footer_rect,
    header_height,
    header_text,
    layer_fields,
    reward_stamp,
    scaled,
    stamp_size,
    track_rect,
    wrap,
)

__all__ = ["CardFace", "CardPainter", "rounded_box"]

_BOX = "card box"  # the kinds of drawing in render_cache.DRAWINGS
_ADVANTAGE_LINE = "advantage line"
_STYLE_TOKENS: dict[tuple[str, Theme], int] = {}  # (font key, theme) -> a number, per pair
_LAYERS = 6  # layers kept per card: the three push colours, focused or not
#: Wrapped traces kept, shared by every card of one look (style token, text, width): a group's
#: cards repeat a problem's few traces, and each window's layout wraps every card's trace at
#: several widths (the same widths in every window a test suite builds).
_WRAPS = 512
_wrapped: OrderedDict[tuple[int, str, float], tuple[Line, ...]] = OrderedDict()


class CardFace(Protocol):
    """What the painter reads of its card: the widget's state and geometry."""

    @property
    def index(self) -> int: ...
    @property
    def card_state(self) -> CardState | None: ...
    @property
    def compact(self) -> bool: ...
    @property
    def reward_range(self) -> tuple[float, float] | None: ...
    @property
    def first_line(self) -> int: ...
    @property
    def highlighted(self) -> bool: ...
    @property
    def advantage_hidden(self) -> bool: ...
    @property
    def theme(self) -> Theme: ...
    def focus_ring_shown(self) -> bool: ...
    def font(self) -> QFont: ...
    def width(self) -> int: ...
    def height(self) -> int: ...
    def rect(self) -> QRect: ...
    def devicePixelRatioF(self) -> float: ...
    def palette(self) -> QPalette: ...


def rounded_box(
    size: QSizeF, outline: QColor, fill: QColor, width: float, radius: float, widget: CardFace
) -> QPixmap:
    """An antialiased rounded rectangle, rendered once per look and reused by every card.

    At G = 64 a click restyles every card; blitting a cached pixmap instead of stroking two
    antialiased rounded rectangles per card keeps the repaint within a frame.
    """
    ratio = widget.devicePixelRatioF()
    key = (
        _BOX,
        round(size.width(), 2),
        round(size.height(), 2),
        outline.rgba(),
        fill.rgba(),
        round(width, 2),
        round(radius, 2),
        ratio,
    )

    def render() -> QPixmap:
        pixmap = transparent_pixmap(size.width(), size.height(), ratio)
        box = QPainter(pixmap)
        box.setRenderHint(QPainter.RenderHint.Antialiasing)
        box.setPen(QPen(outline, width))
        box.setBrush(fill)
        half = width / 2
        box.drawRoundedRect(
            QRectF(half, half, size.width() - width, size.height() - width), radius, radius
        )
        box.end()
        return pixmap

    return DRAWINGS.get(key, render)


class CardPainter:
    """Paints one card (its ``face``) and owns what is kept to paint it fast."""

    def __init__(self, face: CardFace) -> None:
        self.face = face
        self._style: CardStyle | None = None
        self._style_key: tuple[QFont, Theme] | None = None
        self.token = -1  # _STYLE_TOKENS' number for the style, set with it
        # The text and advantage-line rectangles, per size and look (see text_rects).
        self._rects: tuple[tuple, QRectF, QRect] | None = None
        self._typeset: tuple[str, tuple[tuple[Run, ...], ...]] = ("", ())  # parsed once per text
        self.layers: dict[tuple, QPixmap] = {}  # the card without its advantage, per look
        self.last_first_line = 0  # the most a long trace can scroll, as last painted

    def paint(self, painter: QPainter) -> None:
        """The card: its layer, then its advantage lines (``painter`` is on the card)."""
        style = self.style()
        card = self.face.card_state
        advantage = 0.0 if card is None or self.face.advantage_hidden else card.advantage
        accent = style.colour(self.face.theme.push_colour(advantage))
        painter.drawPixmap(0, 0, self.layer(style, card, accent, advantage))
        if card is not None:
            content, footer = self.text_rects(style)
            painter.drawPixmap(footer.topLeft(), self.footer(style, card, accent, content, footer))

    def style(self) -> CardStyle:
        """Fonts and sizes for the card's font and theme, rebuilt only when either changes."""
        face = self.face
        font, theme = face.font(), face.theme
        key = (font, theme)
        if self._style is None or key != self._style_key:
            self._style = CardStyle.build(font, theme)
            self._style_key = key
            # Cards built from the same font and theme draw alike: one number for that pair
            # lets them share drawings without hashing a whole theme on every paint.
            self.token = _STYLE_TOKENS.setdefault((font.key(), theme), len(_STYLE_TOKENS))
            self.layers.clear()
        return self._style

    def forget(self) -> None:
        """Drop the card's layers (a card retired to the grid's pool redraws them anyway)."""
        self.layers.clear()

    def content_rect(self, style: CardStyle) -> QRectF:
        face = self.face
        return content_rect(face.width(), face.height(), style, face.reward_range)

    def footer_rect(self, style: CardStyle, content: QRectF) -> QRect:
        return footer_rect(style, content, self.face.compact)

    def track_rect(self, style: CardStyle) -> QRectF:
        return track_rect(style, self.content_rect(style))

    def text_rects(self, style: CardStyle) -> tuple[QRectF, QRect]:
        """``_content_rect`` and ``_footer_rect``, kept per size and look: a click asks for them
        twice for every card (its repaint region, then its paint)."""
        key = (
            self.face.width(),
            self.face.height(),
            self.face.compact,
            self.face.reward_range,
            self.token,
        )
        if self._rects is None or self._rects[0] != key:
            content = self.content_rect(style)
            self._rects = (key, content, self.footer_rect(style, content))
        return self._rects[1], self._rects[2]

    def footer(
        self, style: CardStyle, card: CardState, accent: QColor, content: QRectF, footer: QRect
    ) -> QPixmap:
        """The advantage lines, drawn where ``paintEvent`` would draw them, shared by every card
        of this size that shows the same text in the same colour."""
        key = (
            _ADVANTAGE_LINE,
            advantage_text(card, "", self.face.advantage_hidden),
            None if self.face.advantage_hidden else card.push,  # hidden: "?" for every card
            self.face.compact,
            accent.rgba(),
            self.token,
            footer.getRect(),
            content.getRect(),
            self.face.devicePixelRatioF(),
        )

        def render() -> QPixmap:
            pixmap = transparent_pixmap(
                footer.width(), footer.height(), self.face.devicePixelRatioF()
            )
            painter = QPainter(pixmap)
            painter.setRenderHint(QPainter.RenderHint.Antialiasing)
            painter.translate(-footer.left(), -footer.top())
            if self.face.compact:
                self._paint_compact(painter, style, card, content, accent, layer=False)
            else:
                self._paint_full(painter, style, card, content, accent, layer=False)
            painter.end()
            return pixmap

        return DRAWINGS.get(key, render)

    def layer(
        self, style: CardStyle, card: CardState | None, accent: QColor, advantage: float
    ) -> QPixmap:
        """The card without its advantage, cached per look (a card keeps one per push sign).

        Opaque, over the window's colour that shows around the rounded box: a blit that needs
        no blending, and Qt paints nothing beneath the card (``WA_OpaquePaintEvent``).
        """
        ratio = self.face.devicePixelRatioF()
        backdrop = self.face.palette().color(QPalette.ColorRole.Window)
        key = (
            None if card is None else layer_fields(card),
            self.face.reward_range,
            self.face.first_line,
            self.face.compact,
            self.face.highlighted,
            self.face.advantage_hidden,
            self.face.focus_ring_shown(),
            self.face.width(),
            self.face.height(),
            ratio,
            accent.rgba(),
            advantage > 0,
            advantage < 0,
            id(style),  # a new style (font or theme) also empties the cache
            backdrop.rgba(),
        )
        pixmap = self.layers.get(key) if render_cache.CACHING else None
        if pixmap is None:
            if len(self.layers) >= 6:  # the three push colours, focused or not
                self.layers.clear()
            pixmap = filled_pixmap(self.face.width(), self.face.height(), ratio, backdrop)
            painter = QPainter(pixmap)
            self.paint_layer(painter, style, card, accent, advantage)
            painter.end()
            if render_cache.CACHING:
                self.layers[key] = pixmap
        return pixmap

    def paint_layer(
        self,
        painter: QPainter,
        style: CardStyle,
        card: CardState | None,
        accent: QColor,
        advantage: float,
    ) -> None:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        colours = style.colours
        body = QRectF(self.face.rect()).adjusted(MARGIN, MARGIN, -MARGIN, -MARGIN)

        border = style.border * (2 if self.face.highlighted else 1)
        fill = style.colour(self.face.theme.push_fill(advantage))
        painter.drawPixmap(
            body.topLeft(), rounded_box(body.size(), accent, fill, border, style.radius, self.face)
        )

        if self.face.focus_ring_shown():
            ring = QRectF(self.face.rect()).adjusted(
                FOCUS_RING / 2, FOCUS_RING / 2, -FOCUS_RING / 2, -FOCUS_RING / 2
            )
            painter.setPen(QPen(colours["focus"], FOCUS_RING))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            radius = style.radius + MARGIN - FOCUS_RING / 2
            painter.drawRoundedRect(ring, radius, radius)

        if card is None:
            return
        content = self.content_rect(style)
        if self.face.compact:
            self._paint_compact(painter, style, card, content, accent, layer=True)
        else:
            self._paint_full(painter, style, card, content, accent, layer=True)
        if self.face.reward_range is not None:
            self._paint_slider(painter, style, card, accent)

    def _paint_slider(
        self, painter: QPainter, style: CardStyle, card: CardState, accent: QColor
    ) -> None:
        """The reward as a knob on a track (continuous mode): drag the card sideways to move it."""
        low, high = self.face.reward_range or (0.0, 1.0)
        track = self.track_rect(style)
        fraction = 0.0 if high <= low else min(1.0, max(0.0, (card.reward - low) / (high - low)))
        x = track.left() + fraction * track.width()
        middle = track.center().y()
        thickness = max(2.0, track.height() / 3)
        painter.setPen(Qt.PenStyle.NoPen)
        groove_colour = QColor(style.colours["muted"])
        groove_colour.setAlphaF(0.35)  # the empty part of the track: faint in every theme
        painter.setBrush(groove_colour)
        groove = QRectF(track.left(), middle - thickness / 2, track.width(), thickness)
        painter.drawRoundedRect(groove, thickness / 2, thickness / 2)
        painter.setBrush(accent if card.advantage else style.colours["text"])
        filled = QRectF(track.left(), middle - thickness / 2, x - track.left(), thickness)
        painter.drawRoundedRect(filled, thickness / 2, thickness / 2)
        painter.setPen(QPen(style.colours["surface"], max(1.0, thickness / 2)))
        painter.setBrush(accent if card.advantage else style.colours["text"])
        radius = track.height() / 2
        painter.drawEllipse(QPointF(x, middle), radius, radius)

    def _paint_full(
        self,
        painter: QPainter,
        style: CardStyle,
        card: CardState,
        rect: QRectF,
        accent: QColor,
        layer: bool,
    ) -> None:
        """The card's text: with ``layer`` all but the advantage and its word, else just those."""
        text = style.colours["text"]
        top = rect.top()
        header_h = header_height(style)

        # Footer, anchored to the bottom so the advantages of a row line up.
        word_fm = style.fm(style.word)
        adv_fm = style.fm(style.advantage)
        ans_fm = style.fm(style.answer)
        y = rect.bottom() - word_fm.height()
        if not layer:
            self._draw_line(
                painter,
                style,
                style.word,
                accent,
                "predict, then reveal"
                if self.face.advantage_hidden
                else PUSH_WORDS[card.push.value],
                rect.left(),
                y,
                word_fm.height(),
                rect.width(),
            )
            y -= adv_fm.height()
            shown = advantage_text(card, "A = ", self.face.advantage_hidden)
            self._draw_fitted(
                painter,
                style,
                style.advantage,
                accent,
                shown,
                rect.left(),
                y,
                rect.width(),
            )
            return
        y -= adv_fm.height()

        # Header: "#3" on the left, the reward stamp on the right.
        stamp = self._paint_stamp(painter, style, card, rect.right(), top, header_h, compact=False)
        self._draw_line(
            painter,
            style,
            style.header,
            text,
            header_text(self.face.index, self.face.highlighted),
            rect.left(),
            top,
            header_h,
            stamp.left() - style.gap - rect.left(),
        )

        y -= ans_fm.height()
        self._draw_line(
            painter,
            style,
            style.answer,
            text if card.final_answer is not None else style.colours["muted"],
            final_answer(card),
            rect.left(),
            y,
            ans_fm.height(),
            rect.width(),
        )
        if card.breakdown:
            small = style.fm(style.note)
            y -= breakdown_height(style, self.face.compact, self.face.card_state)
            self._draw_line(
                painter,
                style,
                style.note,
                style.colours["muted"],
                card.breakdown,
                rect.left(),
                y,
                small.height(),
                rect.width(),
            )
        footer_top = y - style.gap

        # A hairline between the trace and the verdict.
        painter.setPen(QPen(style.colours["border"], 1.0))
        painter.drawLine(QPointF(rect.left(), footer_top), QPointF(rect.right(), footer_top))

        # The trace, word-wrapped, from its first shown line; when more follows, the last line
        # that fits is elided and a scroll bar says how much there is.
        fm = style.fm(style.trace)
        lines = self.trace_lines(style, rect.width())
        y = top + header_h + style.gap
        limit = footer_top - style.gap
        fitting = max(1, int((limit - y - fm.height() + 0.5) // fm.lineSpacing()) + 1)
        self.last_first_line = max(0, len(lines) - fitting)
        first = min(self.face.first_line, self.last_first_line)
        if len(lines) > fitting:
            self._paint_scroll_bar(painter, style, rect, y, limit, first, fitting, len(lines))
        painter.setFont(style.trace)
        painter.setPen(text)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        for i, line in enumerate(lines[first:], start=first):
            if y + fm.height() > limit + 0.5:
                break
            shown = line.text
            last_fitting = y + fm.lineSpacing() + fm.height() > limit + 0.5
            if last_fitting and i < len(lines) - 1:
                shown = fm.elidedText(shown + " …", Qt.TextElideMode.ElideRight, rect.width())
            painter.drawText(QPointF(rect.left(), y + fm.ascent()), shown)
            if line.boxes:  # a boxed answer, typeset as LaTeX draws \boxed
                self._paint_boxes(painter, line, shown, fm, rect.left(), y, text)
                painter.setPen(text)
            y += fm.lineSpacing()

    @staticmethod
    def _paint_scroll_bar(
        painter: QPainter,
        style: CardStyle,
        rect: QRectF,
        top: float,
        bottom: float,
        first: int,
        shown: int,
        total: int,
    ) -> None:
        """A thin bar in the card's right padding: where the shown lines sit in a long trace."""
        width = max(3.0, style.pad / 3)
        left = rect.right() + (style.pad - width) / 2
        height = bottom - top
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(style.colours["border"])
        painter.drawRoundedRect(QRectF(left, top, width, height), width / 2, width / 2)
        painter.setBrush(style.colours["muted"])
        thumb = max(width * 2, height * shown / total)
        offset = (height - thumb) * first / max(1, total - shown)
        painter.drawRoundedRect(QRectF(left, top + offset, width, thumb), width / 2, width / 2)

    @staticmethod
    def _paint_boxes(
        painter: QPainter,
        line: Line,
        shown: str,
        fm: QFontMetricsF,
        left: float,
        top: float,
        colour: QColor,
    ) -> None:
        right = fm.horizontalAdvance(shown) if shown != line.text else math.inf
        pen = QPen(colour, max(1.0, fm.height() / 16))
        painter.setPen(pen)
        half = pen.widthF() / 2
        for start, end in line.boxes:
            end = min(end, right)
            if end > start:
                painter.drawRect(
                    QRectF(
                        left + start + half,
                        top + half,
                        end - start - 2 * half,
                        fm.height() - 2 * half,
                    )
                )

    def _paint_compact(
        self,
        painter: QPainter,
        style: CardStyle,
        card: CardState,
        rect: QRectF,
        accent: QColor,
        layer: bool,
    ) -> None:
        """The card's text: with ``layer`` all but the advantage, else just the advantage."""
        adv_fm = style.fm(style.compact_advantage)
        y = rect.bottom() - adv_fm.height()
        if not layer:
            shown = advantage_text(card, "", self.face.advantage_hidden)
            self._draw_fitted(
                painter,
                style,
                style.compact_advantage,
                accent,
                shown,
                rect.left(),
                y,
                rect.width(),
            )
            return
        text = style.colours["text"]
        stamp_h = stamp_size(style, "r = 0").height()
        top = rect.top()
        stamp = self._paint_stamp(painter, style, card, rect.right(), top, stamp_h, compact=True)
        self._draw_line(
            painter,
            style,
            style.compact_header,
            text,
            header_text(self.face.index, self.face.highlighted),
            rect.left(),
            top,
            stamp_h,
            stamp.left() - style.gap - rect.left(),
        )
        ans_fm = style.fm(style.compact_answer)
        y -= ans_fm.height() + style.gap * 0.5
        self._draw_line(
            painter,
            style,
            style.compact_answer,
            text if card.final_answer is not None else style.colours["muted"],
            final_answer(card, compact=True),
            rect.left(),
            y,
            ans_fm.height(),
            rect.width(),
        )

    def _paint_stamp(
        self,
        painter: QPainter,
        style: CardStyle,
        card: CardState,
        right: float,
        top: float,
        height: float,
        compact: bool,
    ) -> QRectF:
        """Draw the reward pill right-aligned at ``right``; returns its rectangle."""
        label = reward_stamp(card, compact)
        size = stamp_size(style, label)
        pill = QRectF(
            right - size.width(), top + (height - size.height()) / 2, size.width(), size.height()
        )
        painter.drawPixmap(
            pill.topLeft(),
            rounded_box(
                pill.size(),
                style.colours["muted"],
                style.colours["surface"],
                1.0,
                pill.height() / 2,
                self.face,
            ),
        )
        painter.setFont(style.stamp)
        painter.setPen(style.colours["text"])
        painter.drawText(pill, Qt.AlignmentFlag.AlignCenter, label)
        return pill

    @staticmethod
    def _draw_line(
        painter: QPainter,
        style: CardStyle,
        font: QFont,
        colour: QColor,
        text: str,
        left: float,
        top: float,
        height: float,
        width: float,
    ) -> None:
        """One line, vertically centred in ``height``, elided to ``width``."""
        fm = style.fm(font)
        text = fm.elidedText(text, Qt.TextElideMode.ElideRight, max(0.0, width))
        painter.setFont(font)
        painter.setPen(colour)
        baseline = top + (height - fm.height()) / 2 + fm.ascent()
        painter.drawText(QPointF(left, baseline), text)

    @staticmethod
    def _draw_fitted(
        painter: QPainter,
        style: CardStyle,
        font: QFont,
        colour: QColor,
        text: str,
        left: float,
        top: float,
        width: float,
    ) -> None:
        """One line at ``font``, shrunk (never elided: it is a number) until it fits ``width``."""
        fm = style.fm(font)
        advance = fm.horizontalAdvance(text)
        baseline = top + fm.ascent()
        if advance > width > 0:
            font = scaled(font, width / advance)
            small = QFontMetricsF(font)
            baseline = top + (fm.height() - small.height()) / 2 + small.ascent()
        painter.setFont(font)
        painter.setPen(colour)
        painter.drawText(QPointF(left, baseline), text)

    def typeset_lines(self, text: str) -> tuple[tuple[Run, ...], ...]:
        """The trace's lines as plain and boxed runs, parsed once per text."""
        if self._typeset[0] != text or not self._typeset[1]:
            self._typeset = (text, display_lines(text))
        return self._typeset[1]

    def trace_lines(self, style: CardStyle, width: float) -> tuple[Line, ...]:
        text = "" if self.face.card_state is None else self.face.card_state.text
        key = (self.token, text, round(width, 1))
        lines = _wrapped.get(key) if render_cache.CACHING else None
        if lines is not None:
            _wrapped.move_to_end(key)
            return lines
        paragraphs = self.typeset_lines(text)
        lines = wrap(paragraphs, style.trace, style.fm(style.trace), width) if text else ()
        _wrapped[key] = lines
        if len(_wrapped) > _WRAPS:
            _wrapped.popitem(last=False)
        return lines
