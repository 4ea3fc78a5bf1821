"""The four numbers a class reads from the back row: par, std, pushed up, pushed down."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QRect, QSize, Qt
from PySide6.QtGui import (
    QAccessible,
    QAccessibleEvent,
    QColor,
    QFont,
    QFontMetricsF,
    QPainter,
    QPaintEvent,
    QPixmap,
    QResizeEvent,
)
from PySide6.QtWidgets import (
    QAccessibleWidget,
    QFrame,
    QGridLayout,
    QLabel,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from grpo_desktop.core.common.formatting import number
from grpo_desktop.core.common.theme import LIGHT, Theme
from grpo_desktop.core.lab.lab_snapshot import LabSnapshot
from grpo_desktop.views.common import accessible_events
from grpo_desktop.views.common.fonts import scaled_font
from grpo_desktop.views.common.render_cache import RoundedBox, fit_budget
from grpo_desktop.views.common.text_runs import draw_text


class FittedNumber(QLabel):
    """A big number on one line that shrinks to its width instead of widening the window.

    Its height stays that of the full-size font, so shrinking never moves the note below it.
    """

    #: The colour beneath the number (its tile's fill), painted by the number itself: None
    #: until a tile sets it (the label is then drawn over whatever is beneath, as before).
    backdrop: Callable[[], QColor] | None = None

    def __init__(self, object_name: str) -> None:
        super().__init__("–", objectName=object_name)
        self.setProperty("elides", True)  # never clipped: it shrinks to fit (see paintEvent)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        # Per text: the font it is drawn in and where its ink goes, for the label's font and
        # contents rect they were worked out in (a click's numbers were mostly shown before:
        # measuring them again, and QFont.key() for the lookup, was a tenth of a toggle's model
        # and views at 200 %).
        self._fits: dict[str, tuple[QFont, QRect]] = {}
        self._fits_for: tuple[QFont, QRect] | None = None
        # The number shown, kept here and not handed to QLabel: QLabel.setText repaints the
        # whole label, at 200 % zoom 731 × 145 px for a number a third as wide, four times a
        # click. A screen reader reads it through NumberAccessible.
        self._text = "–"

    def text(self) -> str:  # Qt override (for Python callers and NumberAccessible)
        return self._text

    def setText(self, text: str) -> None:  # Qt override: repaints only where the digits go
        if text == self._text:
            return
        before = self._ink(self._text)
        self._text = text
        self.update(before.united(self._ink(text)))
        if accessible_events.wanted():
            accessible_events.send(QAccessibleEvent(self, QAccessible.Event.NameChanged))

    def _ink(self, text: str) -> QRect:
        """Where ``text`` is drawn (left-aligned, the label's height), with room for the
        glyphs' overhang and antialiasing, within the label."""
        return self._fit(text)[1]

    def minimumSizeHint(self) -> QSize:  # Qt override: a few digits wide, the full height
        metrics = self.fontMetrics()
        return QSize(metrics.horizontalAdvance("0.0"), metrics.height())

    def sizeHint(self) -> QSize:  # Qt override
        metrics = self.fontMetrics()
        return QSize(metrics.horizontalAdvance(self.text()), metrics.height())

    def set_backdrop(self, backdrop: Callable[[], QColor] | None) -> None:
        """Paint ``backdrop()`` beneath the number (the uniform colour it sits on) and cover
        every pixel: a new number then repaints only itself, nothing beneath it."""
        self.backdrop = backdrop
        self.setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent, backdrop is not None)
        self.update()

    def shown_font(self) -> QFont:
        """The font the number is drawn in: the label's, or smaller until the text fits."""
        return self._font_for(self.text())

    def _font_for(self, text: str) -> QFont:
        """The label's font, or smaller until ``text`` fits its width."""
        return self._fit(text)[0]

    def _fit(self, text: str) -> tuple[QFont, QRect]:
        """(``_font_for``, ``_ink``) of ``text``: worked out once per font and contents rect."""
        font, area = self.font(), self.contentsRect()
        kept_for = self._fits_for
        if kept_for is None or kept_for[1] != area or kept_for[0] != font:
            self._fits.clear()
            self._fits_for = (font, area)
        fit = self._fits.get(text)
        if fit is None:
            width = area.width()
            advance = QFontMetricsF(font).horizontalAdvance(text)
            if advance > width > 0:
                font = QFont(font)
                font.setPointSizeF(font.pointSizeF() * width / advance)
            metrics = QFontMetricsF(font)
            pad = 2.0 + 0.15 * metrics.height()
            ink_width = metrics.horizontalAdvance(text) + 2 * pad
            ink = QRect(round(area.left() - pad), area.top(), round(ink_width + 1), area.height())
            if len(self._fits) >= 64:
                self._fits.clear()
            fit = self._fits[text] = (font, ink.intersected(self.rect()))
        return fit

    def prepare(self, text: str) -> None:
        """Draw ``text`` ahead (idle time) as ``paintEvent`` will, into the kept drawings only:
        showing it is then a blit. A scratch pixmap at the label's pixel ratio stands in for
        the window (a kept drawing's key holds where its box falls within a device pixel: at
        a fractional ratio one drawn here may go unused, and the paint draws it as before)."""
        if text == self.text() or not text:
            return
        scratch = QPixmap(1, 1)
        scratch.setDevicePixelRatio(self.devicePixelRatioF())
        painter = QPainter(scratch)
        self._draw(painter, text)
        painter.end()

    def _draw(self, painter: QPainter, text: str) -> None:
        flags = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter
        colour = self.palette().color(self.foregroundRole())
        draw_text(painter, self.contentsRect(), flags, text, self._font_for(text), colour)

    def paintEvent(self, event: QPaintEvent) -> None:  # Qt override
        # Drawn once per look and blitted (text_runs): at 200 % zoom its glyphs are too big for
        # Qt's glyph cache and were filled as paths on every paint, a quarter of a click.
        painter = QPainter(self)
        if self.backdrop is not None:
            painter.fillRect(event.rect(), self.backdrop())
            if not self.testAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent):
                # A style sheet's "background: transparent" (the tile's labels) polishes the
                # label non-opaque; it paints its backdrop itself, so from the next paint on it
                # is opaque again (this one had the tile painted beneath it: harmless).
                self.setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent)
        self._draw(painter, self.text())
        painter.end()


class NumberAccessible(QAccessibleWidget):
    """A stat's number as a screen reader meets it: static text whose name is the number shown
    (the label keeps it in Python, so Qt's own label interface would read a stale text)."""

    def __init__(self, number: QWidget) -> None:
        super().__init__(number, QAccessible.Role.StaticText, "")
        self._number = number

    def text(self, kind: QAccessible.Text) -> str:
        if kind == QAccessible.Text.Name:
            return self._number.text()
        return super().text(kind)


accessible_events.register(FittedNumber, NumberAccessible)


class _NumberSlot(QWidget):
    """The number's place in its tile's layout; the :class:`FittedNumber` itself stays out of it.

    A label's new text asks its layout to recompute, and a layout change climbs to the window:
    every click would lay the whole window out again for four numbers whose size never changes
    (the number's width is ignored, its height is its font's). So the layout holds this empty,
    transparent slot with the number's size hints, and the number, a child of the same tile,
    follows the slot's geometry at a fixed size (Qt skips the layout request of a widget whose
    size is fixed). A new font (a zoom, a theme) still re-lays the tile out, through the slot.
    """

    def __init__(self, number: FittedNumber, parent: QWidget) -> None:
        super().__init__(parent)
        self.number = number
        self.setSizePolicy(number.sizePolicy())
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        number.installEventFilter(self)

    def sizeHint(self) -> QSize:  # Qt override
        return self.number.sizeHint()

    def minimumSizeHint(self) -> QSize:  # Qt override
        return self.number.minimumSizeHint()

    def eventFilter(self, watched, event: QEvent) -> bool:  # Qt override
        if watched is self.number and event.type() in (
            QEvent.Type.FontChange,
            QEvent.Type.StyleChange,
        ):
            self.updateGeometry()
        return False

    def moveEvent(self, event) -> None:  # Qt override
        super().moveEvent(event)
        self.number.move(self.pos())

    def resizeEvent(self, event: QResizeEvent) -> None:  # Qt override
        super().resizeEvent(event)
        self.number.setFixedSize(self.size())
        self.number.move(self.pos())


class StatTile(QFrame):
    """A caption, one big number and a note; the panel gives all four tiles one height.

    The tile draws its own rounded box once per size and colours (``RoundedBox``): drawn by the
    style sheet it was a rounded path filled and stroked on every repaint. The box is opaque
    (drawn over the window's colour) and the number paints its own backdrop, the box's fill: a
    click's new number repaints the number's rectangle alone, not the box, the tile's labels and
    the window's background beneath it (at 200 % zoom four numbers' worth of each).
    """

    def __init__(self, value_name: str, caption: str, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName(f"{value_name}Tile")
        self.box = RoundedBox(self, opaque=True)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        self.caption = QLabel(caption, objectName="statCaption")
        self.caption.setWordWrap(True)  # "Group mean (par)" wraps on a narrow tile, never clips
        self.value = FittedNumber(value_name)
        self.value.setParent(self)  # placed by its slot in the layout, not by the layout
        # Inside the box, clear of its border and round corners (the margins below): the fill.
        self.value.set_backdrop(self.box.fill)
        self.note = QLabel(objectName="statNote")
        self.note.setWordWrap(True)  # narrow tiles wrap the note rather than widen the window
        self.note.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        column = QVBoxLayout(self)
        column.setContentsMargins(12, 6, 12, 6)
        column.setSpacing(0)
        column.addWidget(self.caption)
        slot = _NumberSlot(self.value, self)
        # Beneath the number (it has the same rectangle): a new number, opaque, then repaints
        # alone instead of with the transparent slot over it and the tile beneath that.
        slot.stackUnder(self.value)
        column.addWidget(slot)
        column.addWidget(self.note)
        column.addStretch(1)  # a tile taller than its text keeps the text at the top

    def paintEvent(self, event: QPaintEvent) -> None:  # Qt override
        self.box.paint()

    def show_value(self, value: str, note: str, accessible: str) -> None:
        self.value.setText(value)
        self.value.updateGeometry()
        self.note.setText(note)
        self.setAccessibleName(accessible)

    def comfortable_width(self, widest_number: str = "0.0000") -> int:
        """The width at which the caption needs no wrap and ``widest_number`` no shrinking."""
        margins = self.layout().contentsMargins()
        caption = self.caption.fontMetrics().horizontalAdvance(self.caption.text())
        number = self.value.fontMetrics().horizontalAdvance(widest_number)
        return max(caption, number) + margins.left() + margins.right() + 2 * self.frameWidth()

    def height_for_width(self, width: int) -> int:
        """The height this tile's text needs at ``width`` px (caption and note may wrap)."""
        return self.layout().totalHeightForWidth(width)


CAPTIONS = ("Group mean (par)", "Group std", "▲ Pushed up", "▼ Pushed down")
# Side by side (easy vs hard) each lab has half the width: short captions, no notes, one row.
COMPACT_CAPTIONS = ("Mean (par)", "Std", "▲ Up", "▼ Down")


class StatsPanel(QFrame):
    """Group mean (par), group std, pushed up, pushed down — updated on every change."""

    def __init__(self, theme: Theme = LIGHT, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("statsPanel")
        self._snapshot: LabSnapshot | None = None
        self._hidden = False
        self._compact = False
        self.par = StatTile("statPar", CAPTIONS[0])
        self.std = StatTile("statStd", CAPTIONS[1])
        self.pushed_up = StatTile("statPushedUp", CAPTIONS[2])
        self.pushed_down = StatTile("statPushedDown", CAPTIONS[3])
        self._grid = QGridLayout(self)
        self._grid.setContentsMargins(0, 0, 0, 0)
        self._grid.setSpacing(8)
        self._columns = 0
        self._arrange(4)
        self.set_theme(theme)

    def _arrange(self, columns: int) -> None:
        """Four tiles in a row, or two rows of two when the panel is narrow."""
        if columns == self._columns:
            return
        self._columns = columns
        for tile in self.tiles:
            self._grid.removeWidget(tile)
        for index, tile in enumerate(self.tiles):
            self._grid.addWidget(tile, index // columns, index % columns)
        for column in range(4):
            self._grid.setColumnStretch(column, 1 if column < columns else 0)
        self.updateGeometry()  # one row or two: the height the panel needs has changed

    def set_compact(self, compact: bool) -> None:
        """Short captions and no notes, so the four tiles fit one row of a half-width lab."""
        self._compact = compact
        for tile, full, short in zip(self.tiles, CAPTIONS, COMPACT_CAPTIONS):
            tile.caption.setText(short if compact else full)
            tile.note.setVisible(not compact)
        self.set_theme(self._theme)  # the compact number size
        self._columns = 0  # arrange afresh at the next resize
        self._arrange(4)
        if self.width() > 0:
            self._arrange(4 if self.width() >= self._row_width() else 2)
            self._even_heights(self.width())

    def _row_width(self) -> int:
        spacing = self._grid.spacing() * 3
        widest = "0.00" if self._compact else "0.0000"
        return sum(tile.comfortable_width(widest) for tile in self.tiles) + spacing

    def minimumSizeHint(self) -> QSize:  # Qt override: two rows of two is the narrowest form
        widest_pair = max(
            self.tiles[0].minimumSizeHint().width() + self.tiles[1].minimumSizeHint().width(),
            self.tiles[2].minimumSizeHint().width() + self.tiles[3].minimumSizeHint().width(),
        )
        # The tiles' minimum height is the even height their text needs (set by _even_heights).
        height = max(
            max(tile.minimumSizeHint().height(), tile.minimumHeight()) for tile in self.tiles
        )
        rows = 1 if self._columns == 4 else 2
        return QSize(widest_pair + self._grid.spacing(), rows * height + (rows - 1) * 8)

    def _even_heights(self, width: int) -> None:
        """Every tile as tall as the tallest one needs at this width: one height, aligned."""
        if not self.testAttribute(Qt.WidgetAttribute.WA_Resized):
            # Never given a size (the window's panel gets its first numbers while it is built):
            # evened at the default 640 px, the tiles asked for a taller row than they get, so
            # the first screen laid the cards out twice. The panel's first resize evens them.
            return
        spacing = self._grid.spacing() * (self._columns - 1)
        tile_width = max(1, (width - spacing) // self._columns)
        height = max(tile.height_for_width(tile_width) for tile in self.tiles)
        for tile in self.tiles:
            if tile.minimumHeight() != height:
                tile.setMinimumHeight(height)

    def resizeEvent(self, event: QResizeEvent) -> None:  # Qt override
        fit_budget(self)  # the window's pixels: what the kept drawings need
        self._arrange(4 if event.size().width() >= self._row_width() else 2)
        self._even_heights(event.size().width())
        super().resizeEvent(event)

    @property
    def tiles(self) -> tuple[StatTile, ...]:
        return (self.par, self.std, self.pushed_up, self.pushed_down)

    def set_advantages_hidden(self, hidden: bool) -> None:
        """Predict, then reveal: the push counts give the answer away, so they wait too."""
        self._hidden = hidden
        if self._snapshot is not None:
            self.show_snapshot(self._snapshot)

    def show_snapshot(self, snapshot: LabSnapshot) -> None:
        self._snapshot = snapshot
        for tile, (value, note, accessible) in zip(self.tiles, self._shown_values(snapshot)):
            tile.show_value(value, note, accessible)
        self._even_heights(self.width())

    def prepare(self, snapshot: LabSnapshot) -> None:
        """Draw ahead (idle time) the numbers ``snapshot`` would show: a new number then
        costs its frame a blit."""
        for tile, (value, _note, _accessible) in zip(self.tiles, self._shown_values(snapshot)):
            tile.value.prepare(value)

    def _shown_values(self, snapshot: LabSnapshot) -> list[tuple[str, str, str]]:
        """(number, note, accessible name) of each tile for ``snapshot``."""
        stats = snapshot.stats
        convention = snapshot.convention
        par = number(stats.mean, 4)
        std = number(stats.std, 4)
        std_note = {0: "population std", 1: "sample std (n − 1)"}.get(
            convention.ddof, "not divided by (shown for reference)"
        )
        shown = [
            (par, "the baseline every answer is compared with", f"Group mean {par}"),
            (std, std_note, f"Group std {std}"),
        ]
        if self._hidden:
            for caption in CAPTIONS[2:]:
                shown.append(("?", "predict, then reveal", f"{caption[2:]} hidden"))
            return shown
        up, down = stats.pushed_up, stats.pushed_down
        shown.append(
            (str(up), "answer above par" if up == 1 else "answers above par", f"Pushed up {up}")
        )
        shown.append(
            (
                str(down),
                "answer below par" if down == 1 else "answers below par",
                f"Pushed down {down}",
            )
        )
        return shown

    def set_theme(self, theme: Theme) -> None:
        self._theme = theme
        for tile in self.tiles:
            tile.box.set_colours(theme.surface, theme.border)
        self.setStyleSheet(
            f"StatTile QLabel {{ background: transparent; border: none; color: {theme.text}; }}"
            f"StatTile #statCaption, StatTile #statNote {{ color: {theme.muted}; }}"
            f"#statPushedUpTile #statPushedUp, #statPushedUpTile #statCaption"
            f" {{ color: {theme.up}; }}"
            f"#statPushedDownTile #statPushedDown, #statPushedDownTile #statCaption"
            f" {{ color: {theme.down}; }}"
        )
        for tile in self.tiles:
            tile.caption.setFont(scaled_font(1.1 * theme.type_scale, bold=True))
            number_scale = 2.1 if self._compact else 2.6
            tile.value.setFont(scaled_font(number_scale * theme.type_scale, bold=True))
            tile.note.setFont(scaled_font(0.9 * theme.type_scale))
        if self.width() > 0:
            self._even_heights(self.width())
