"""The animation's phase caption: one text item, top centre of the plot, fitted to a fixed band.

The band is measured once per snapshot for all four captions (two phases, both directions), so
the y range can keep it free of bars before an animation starts and never rescale during one.
Each caption then takes the largest font that fits the band, wrapping to two lines if it must.
That font is searched for when the caption is about to show, or in idle time after a pause
(``PREFIT_DELAY_MS``), never in the click that brought new numbers: at 200 % zoom the search
laid a wrapping caption out at a dozen sizes, up to 15 ms of a click. The band of a toggle's
captions can be measured ahead too, in idle time (``measure_ahead``): the click then looks it up.
"""

from __future__ import annotations

import functools
import math
import re

import pyqtgraph as pg
from PySide6.QtCore import QRect, Qt, QTimer
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QFontMetricsF,
    QPainter,
    QPolygonF,
    QTextDocument,
    QTextOption,
)

from grpo_desktop.core.common.formatting import MINUS
from grpo_desktop.core.common.theme import Theme

__all__ = ["PREFIT_DELAY_MS", "StepCaption", "unbreakable"]

CAPTION_MARGIN_PX = 3.0  # QTextDocument margin inside the caption's fill
CAPTION_GAP_PX = 4.0  # between the caption band and the tallest bar
CAPTION_SIDE_PX = 6.0  # free space kept left and right of the caption
CAPTION_ONE_LINE_SHRINK = 0.85  # shrink the caption this far to keep it on one line, then wrap
MIN_POINT_SIZE = 7.0  # below this (before type_scale) a caption is unreadable on a projector
#: Quiet time after the last fit before the captions' fonts are searched for, one caption per
#: event-loop turn (a lecturer's clicks come further apart; a burst of clicks never pays it).
PREFIT_DELAY_MS = 150

_NBSP = "\u00a0"
_BOUND = (" = ", " + ", f" {MINUS} ", " of ", " (reverse)", "par (", " (leave-one-out)")


# A one-character word ("r", "A", "G") never sits alone on a line: it keeps to its neighbour.
_LAST_SHORT_WORD = re.compile(r" (\S)$")
_SHORT_WORD = re.compile(r"(?:(?<=^)|(?<=\s))(\S) ")


@functools.lru_cache(maxsize=256)  # each click's captions come back when it is undone
def unbreakable(caption: str) -> str:
    """The caption with no line break inside "mean = 0.5", "std + 1e-4", "Step 1 of 2" …

    A one-character word is joined to the next word (the last one to the word before it), so a
    wrapped caption never leaves a lone "r" on a line ("add par back (mean = 0.5): r").
    """
    for phrase in _BOUND:
        caption = caption.replace(phrase, phrase.replace(" ", _NBSP))
    caption = _LAST_SHORT_WORD.sub(_NBSP + r"\1", caption)
    caption = _SHORT_WORD.sub(r"\1" + _NBSP, caption)
    return caption.replace("/(", "/\u2060(")  # a word joiner: no break inside "G/(G − 1)"


_NO_FILL = QBrush()
FILL_BAND_ROWS = 16  # device pixel rows per piece of the caption's fill (see StepCaption.paint)


def _available_width(view_width: float) -> float:
    return max(view_width - 2 * CAPTION_SIDE_PX, 40.0)


class StepCaption(pg.TextItem):
    """A phase caption ("Step 1 of 2: subtract par …") over a translucent fill of the surface.

    Anchored by its top centre; the plot places it at the top of its y range and keeps
    ``band_px()`` pixels there free of bars. Hidden until ``show_text``.
    """

    def __init__(self) -> None:
        super().__init__(text="", anchor=(0.5, 0.0))
        document = self.textItem.document()
        document.setDocumentMargin(CAPTION_MARGIN_PX)
        document.setDefaultTextOption(QTextOption(Qt.AlignmentFlag.AlignHCenter))
        self.setZValue(30)  # over bars, line, dots and value labels
        self.setVisible(False)
        self._base_font = QFont()  # the theme's caption size; fit() may shrink it per caption
        self._font_key = ""  # the base font's key, asked for once per font: Qt builds a string
        self._type_scale = 1.0
        self._sizes: list[float] = []  # the sizes a caption may take, largest first (see fit)
        self._one_line_size = 0.0  # the size of those a caption shrinks to to stay on one line
        self._captions: tuple[str, ...] = ()  # as displayed (see unbreakable)
        self._source = ""  # the caption shown, as the snapshot wrote it
        self._showing = False
        self._fonts: dict[str, tuple[QFont, bool]] = {}  # caption -> (font, wraps), once fitted
        # What the last fit measured, for the fonts searched for later: (captions, sizes,
        # available px, inner px, band px); None before the first fit.
        self._fitting: tuple[tuple[str, ...], list[float], float, float, float] | None = None
        self._floor_heights: dict[tuple[str, int, str, float], float] = {}  # at the floor size
        self._prefit = QTimer(self)  # fits the captions' fonts in idle time, one per turn
        self._prefit.setSingleShot(True)
        self._prefit.timeout.connect(self._prefit_one)
        self._fit_cache: dict[tuple[str, int, str, float], tuple[float, bool, float]] = {}
        self._advances: dict[tuple[str, float], float] = {}  # (caption, size) -> its width
        self._displayed_kept: dict[tuple[str, ...], tuple[str, ...]] = {}
        # (captions, available px, font key) -> what fit() measures for them: (the fitting
        # tuple, band px); measured ahead or by an earlier fit.
        self._measured: dict[tuple[tuple[str, ...], float, str], tuple[tuple, float]] = {}
        self._fonts_by_size: dict[tuple[str, float], QFont] = {}
        self._metrics_key: tuple[str, tuple[float, ...]] | None = None
        self._metrics_by_size: dict[float, QFontMetricsF] = {}
        self._band_px = 0.0
        self._layout_key: tuple[tuple[str, ...], int, str] | None = None
        self._scratch = QTextDocument()  # measures wrapped captions, reused
        self._scratch.setDocumentMargin(CAPTION_MARGIN_PX)
        self._set_base_font(self._base_font, self._type_scale)

    def paint(self, painter: QPainter, *args: object) -> None:
        """``TextItem.paint``, with the fill drawn in bands of a few pixel rows.

        The same antialiased polygon, clipped to whole device rows, so every pixel gets exactly
        the colour one fill gives it. In one piece, a two-line caption's translucent fill has
        enough spans for Qt's raster engine to split the blend across its GUI thread pool and
        wait for the threads: on a busy two-core machine that wait took up to 20 ms of a frame.
        """
        fill = self.fill
        self.fill = _NO_FILL  # the base class does its scene bookkeeping and draws no fill
        try:
            super().paint(painter, *args)
        finally:
            self.fill = fill
        if fill.style() == Qt.BrushStyle.NoBrush:
            return
        polygon = self.textItem.mapToParent(self.textItem.boundingRect())
        transform = painter.transform()
        bordered = self.border.style() != Qt.PenStyle.NoPen  # a pen reaches past the polygon
        if bordered or not transform.isAffine() or transform.isRotating():
            self._fill(painter, fill, polygon, None)
            return
        bounds = transform.map(polygon).boundingRect()
        top, bottom = math.floor(bounds.top()), math.ceil(bounds.bottom())
        for row in range(top, bottom, FILL_BAND_ROWS):
            band = QRect(
                math.floor(bounds.left()) - 1,
                row,
                math.ceil(bounds.width()) + 3,
                min(FILL_BAND_ROWS, bottom - row),
            )
            self._fill(painter, fill, polygon, band)

    def _fill(
        self, painter: QPainter, fill: QBrush, polygon: QPolygonF, band: QRect | None
    ) -> None:
        """The fill as ``TextItem.paint`` draws it, clipped to ``band`` (device pixels)."""
        painter.save()
        if band is not None:
            transform = painter.transform()
            painter.resetTransform()
            painter.setClipRect(band, Qt.ClipOperation.IntersectClip)
            painter.setTransform(transform)
        painter.setPen(self.border)
        painter.setBrush(fill)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        painter.drawPolygon(polygon)
        painter.restore()

    def set_style(self, theme: Theme, font: QFont) -> None:
        """Colours and the largest caption font for ``theme``; call ``fit`` afterwards."""
        self._set_base_font(font, theme.type_scale)
        self.setColor(theme.text)
        fill = QColor(theme.surface)
        fill.setAlpha(235)  # opaque enough to read over a grid or a bar that strays under it
        self.fill = QBrush(fill)
        self._layout_key = None

    def _set_base_font(self, font: QFont, type_scale: float) -> None:
        """The largest caption font and what follows from it: the sizes a caption may take
        (largest first, in half points down to the floor) and the one a caption shrinks to
        to stay on one line."""
        self._base_font = font
        self._font_key = font.key()
        self._type_scale = type_scale
        largest = font.pointSizeF()
        floor = min(MIN_POINT_SIZE * max(type_scale, 1.0), largest)
        self._sizes = [largest - 0.5 * i for i in range(int((largest - floor) / 0.5) + 1)]
        self._sizes.append(floor)
        one_line_floor = max(floor, largest * CAPTION_ONE_LINE_SHRINK)
        self._one_line_size = min(self._sizes, key=lambda size: abs(size - one_line_floor))
        self._advances = {}
        self._measured = {}

    def set_captions(self, captions: tuple[str, ...]) -> None:
        """Every caption the next animations may show; call ``fit`` afterwards."""
        self._captions = self._displayed(captions)

    def _displayed(self, captions: tuple[str, ...]) -> tuple[str, ...]:
        """``captions`` as displayed (``unbreakable``), kept per set of captions."""
        shown = self._displayed_kept.get(captions)
        if shown is None:
            if len(self._displayed_kept) >= 64:
                self._displayed_kept.clear()
            shown = self._displayed_kept[captions] = tuple(unbreakable(text) for text in captions)
        return shown

    def band_px(self) -> float:
        """The height at the top of the plot the captions need, gap to the bars included."""
        return self._band_px

    def shown_text(self) -> str:
        """The caption shown now, as the snapshot wrote it ("" when hidden)."""
        return self._source if self.isVisible() else ""

    def show_text(self, caption: str, view_width: float) -> None:
        """Show ``caption`` in the font ``fit`` chose for it."""
        self._source = caption
        self._showing = True
        self.setText(unbreakable(caption))
        self._apply_layout(view_width)
        if not self.isVisible():
            self.setVisible(True)

    def hide_text(self) -> None:
        self._showing = False
        self.setVisible(False)

    def fit(self, view_width: float) -> bool:
        """The band at the top the captions need; True if recomputed.

        The band is one line of the caption font if every caption fits on one line (allowing a
        slight shrink), two lines otherwise, or taller when a caption does not fit it even at
        the smallest font. Each caption then takes the largest font (down to a floor) whose
        layout fits the band: searched for when it shows (``fonts_fitted``), as the band needs
        only each caption's layout at the floor. Two-line heights are measured with the same
        QTextDocument layout the caption uses. Runs on each click (the captions carry the
        group's numbers), so it is cached per set of captions and per caption text.
        """
        available = _available_width(view_width)
        key = (self._captions, round(available), self._font_key)
        if key == self._layout_key:
            return False
        self._layout_key = key
        self._fitting, self._band_px = self._measure(self._captions, available)
        self._fonts = {}
        self._apply_layout(view_width)
        self._prefit.start(PREFIT_DELAY_MS)
        return True

    def measure_ahead(self, captions: tuple[str, ...], view_width: float) -> None:
        """Measure (idle time) the band ``fit`` would find for ``captions`` at ``view_width``,
        so a click that brings them looks it up instead of measuring their text."""
        self._measure(self._displayed(captions), _available_width(view_width))

    def _measure(
        self, captions: tuple[str, ...], available: float
    ) -> tuple[tuple[tuple[str, ...], list[float], float, float, float], float]:
        """(the fitting tuple, the band in px) of ``captions`` (as displayed) in ``available``
        px in the base font: measured once, then kept (clicks come back to the same groups)."""
        key = (captions, available, self._font_key)
        measured = self._measured.get(key)
        if measured is not None:
            return measured
        sizes = self._sizes
        largest = sizes[0]
        inner = available - 2 * CAPTION_MARGIN_PX - 2
        metrics = self._metrics(sizes)
        full = metrics[largest]
        one_line = full.height() + 2 * CAPTION_MARGIN_PX + 1
        one_line_size = self._one_line_size
        fits_one_line = all(self._advance(text, one_line_size) <= inner for text in captions)
        band = one_line if fits_one_line else one_line + full.lineSpacing()
        tallest = one_line
        for text in captions:
            tallest = max(tallest, self._height_past_band(text, sizes, metrics, available, band))
        band_px = math.ceil(max(band, tallest)) + CAPTION_GAP_PX
        measured = ((captions, sizes, available, inner, band), band_px)
        if len(self._measured) >= 64:
            self._measured.clear()
        self._measured[key] = measured
        return measured

    def _advance(self, text: str, size: float) -> float:
        """The width of ``text`` on one line at ``size`` points, measured once per font."""
        key = (text, size)
        advance = self._advances.get(key)
        if advance is None:
            if len(self._advances) >= 512:
                self._advances.clear()
            advance = self._metrics(self._sizes)[size].horizontalAdvance(text)
            self._advances[key] = advance
        return advance

    def _fitted_captions(self) -> tuple[str, ...]:
        return self._fitting[0] if self._fitting is not None else ()

    def fonts_fitted(self) -> bool:
        """Whether every caption's font is known (searched for in idle time after a fit)."""
        return all(text in self._fonts for text in self._fitted_captions())

    def fit_fonts(self) -> None:
        """Search for every caption's font now (what idle time does after a fit)."""
        self._prefit.stop()
        for text in self._fitted_captions():
            self._font_for(text)

    def _prefit_one(self) -> None:
        """One caption's font, then the next one in the next turn of the event loop."""
        pending = [text for text in self._fitted_captions() if text not in self._fonts]
        if pending:
            self._font_for(pending[0])
        if len(pending) > 1:
            self._prefit.start(0)

    def _font_for(self, text: str) -> tuple[QFont, bool] | None:
        """(font, wraps) of caption ``text`` for the band of the last fit; None when ``text``
        is not one of the captions fitted (it shows in the base font, unwrapped)."""
        fitted = self._fonts.get(text)
        if fitted is not None or text not in self._fitted_captions():
            return fitted
        assert self._fitting is not None
        _captions, sizes, available, inner, band = self._fitting
        metrics = self._metrics(sizes)
        size, wrap, _height = self._fit_one(text, sizes, metrics, available, inner, band)
        fitted = self._fonts[text] = (self._sized_font(size), wrap)
        return fitted

    def _height_past_band(
        self,
        text: str,
        sizes: list[float],
        metrics: dict[float, QFontMetricsF],
        available: float,
        band: float,
    ) -> float:
        """The height ``_fit_one`` gives ``text`` if that is taller than ``band``, else at most
        ``band``: the band's height needs no more. The search stops at the first size that fits,
        so a caption whose layout at the floor fits has a fitting size and a height within the
        band; only one that does not fit there is searched for in full (a very narrow plot)."""
        key = (text, round(available), self._font_key, round(band, 2))
        cached = self._fit_cache.get(key)
        if cached is not None:
            return cached[2]
        inner = available - 2 * CAPTION_MARGIN_PX - 2
        floor = sizes[-1]
        height = self._floor_heights.get(key)
        if height is None:
            if self._advance(text, floor) <= inner:
                height = metrics[floor].height() + 2 * CAPTION_MARGIN_PX
            else:
                height = self._wrapped_height(text, floor, available)
            if len(self._floor_heights) > 512:
                self._floor_heights.clear()
            self._floor_heights[key] = height
        if height <= band:
            return height
        return self._fit_one(text, sizes, metrics, available, inner, band)[2]

    def _sized_font(self, size: float) -> QFont:
        """The base font at ``size`` points; kept, as each click asks for the same sizes."""
        key = (self._font_key, size)
        font = self._fonts_by_size.get(key)
        if font is None:
            if len(self._fonts_by_size) > 64:
                self._fonts_by_size.clear()
            font = QFont(self._base_font)
            font.setPointSizeF(size)
            self._fonts_by_size[key] = font
        return font

    def _metrics(self, sizes: list[float]) -> dict[float, QFontMetricsF]:
        """Metrics of the base font at each of ``sizes``, kept until the font changes."""
        key = (self._font_key, tuple(sizes))
        if self._metrics_key != key:
            self._metrics_key = key
            self._metrics_by_size = {size: QFontMetricsF(self._sized_font(size)) for size in sizes}
        return self._metrics_by_size

    def _fit_one(
        self,
        text: str,
        sizes: list[float],
        metrics: dict[float, QFontMetricsF],
        available: float,
        inner: float,
        band: float,
    ) -> tuple[float, bool, float]:
        """(point size, wraps, height in px) of the largest layout of ``text`` within ``band``."""
        key = (text, round(available), self._font_key, round(band, 2))
        cached = self._fit_cache.get(key)
        if cached is not None:
            return cached
        result = None
        for size in sizes:
            if metrics[size].horizontalAdvance(text) <= inner:  # one line: no layout needed
                result = (size, False, metrics[size].height() + 2 * CAPTION_MARGIN_PX)
                if result[2] <= band:
                    break
            else:
                result = (size, True, self._wrapped_height(text, size, available))
                if result[2] <= band:
                    break
        assert result is not None
        if len(self._fit_cache) > 512:
            self._fit_cache.clear()
        self._fit_cache[key] = result
        return result

    def _wrapped_height(self, text: str, size: float, width: float) -> float:
        """The height of ``text`` laid out at ``size`` points in ``width`` px, as the caption
        lays it out. The scratch document is emptied before its width or font changes: each of
        those lays out the text it holds again, which made every new caption three layouts."""
        document = self._scratch
        font = self._sized_font(size)
        if document.textWidth() != width or document.defaultFont() != font:
            document.setPlainText("")
            document.setTextWidth(width)
            document.setDefaultFont(font)
        document.setPlainText(text)
        return document.size().height()

    def _apply_layout(self, view_width: float) -> None:
        """Give the shown caption its font, and a wrap width when it needs two lines."""
        if not self._showing:
            return
        text = unbreakable(self._source)  # toPlainText() would turn NBSPs to spaces
        font, wrap = self._font_for(text) or (self._base_font, False)
        self.setFont(font)
        self.setTextWidth(_available_width(view_width) if wrap else -1)
        self.updateTextPos()
