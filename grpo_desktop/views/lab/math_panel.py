"""The worked math: the formula, then the live computation with this group's numbers.

Typeset with Qt rich text (no web engine, nothing fetched): the state hands over a ``WorkedMath``
and this view only lays it out. The formula and each line of math are typeset from their LaTeX
(views/common/math_render.py) once the typesetter is loaded (``load_typesetting``, right after the
first screen); until then, and for any line it refuses, the plain text shows. The plain text is
what Ctrl+C copies and a screen reader reads; Ctrl+Shift+L copies the LaTeX.
"""

from __future__ import annotations

import functools
import html
from collections import OrderedDict
from collections.abc import Callable
from typing import NamedTuple

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import (
    QColor,
    QFont,
    QPainter,
    QPaintEvent,
    QResizeEvent,
    QTextBlock,
    QTextBlockFormat,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
)
from PySide6.QtWidgets import QWidget

from grpo_desktop.core.common.theme import LIGHT, Theme
from grpo_desktop.core.lab.explain import WorkedMath
from grpo_desktop.core.lab.lab_snapshot import LabSnapshot
from grpo_desktop.views.common.fonts import scaled_font, screen_scale
from grpo_desktop.views.common.math_render import (
    OBJECT_CHARACTER,
    TypesetBrowser,
    TypesetLater,
    is_typeset,
    load_typesetter,
    load_typesetter_in_background,
    math_format,
    math_scale,
    register_math_objects,
    set_math_scale,
    typesetter_loaded,
)
from grpo_desktop.views.common.render_cache import CachedScrollBar, fit_budget

MAX_TEXT_SCALE = 3.0  # the text grows up to this factor to fill a large box
#: The typeset math may be drawn this much smaller (its text stays) where the box is too short to
#: show it all: fractions are taller than the plain text's one line.
LEAST_MATH_SCALE = 0.85
FORMULA_MATH_SIZE = 1.15  # the typeset formula against the text (its plain text is at 140 %)
#: Text heights kept (see ``_measured_height``): the sizes a few windows' fits try.
HEIGHTS_KEPT = 256

_heights: OrderedDict[tuple, float] = OrderedDict()
_measures = 0


class Paragraph(NamedTuple):
    """One paragraph of the panel: its style, its plain text and, for math, its LaTeX."""

    style: str
    text: str
    latex: str = ""
    size: float = 1.0  # the typeset math's size against the text


def _paragraphs(worked: WorkedMath, theme: Theme, hidden: bool) -> list[Paragraph]:
    """The panel's paragraphs, in order."""
    paragraphs = [
        Paragraph(
            "margin:0 0 2px 0; font-size:140%; font-weight:600",
            worked.formula,
            worked.formula_latex,
            FORMULA_MATH_SIZE,
        ),
        Paragraph(
            f"margin:0 0 8px 0; color:{theme.muted}",
            f"{worked.convention_label} · {worked.source}",
        ),
    ]
    for index, step in enumerate(worked.steps):
        is_advantage = step.title.startswith("Advantage")
        paragraphs.append(
            Paragraph("margin:6px 0 0 0; font-weight:600", f"{index + 1}. {step.title}")
        )
        for number, line in enumerate(step.lines):
            if hidden and is_advantage:
                paragraphs.append(
                    Paragraph("margin:0 0 0 16px", "A = ? (predict first, then reveal)")
                )
            else:
                paragraphs.append(Paragraph("margin:0 0 0 16px", line, step.line_latex(number)))
    if not hidden:
        paragraphs.append(Paragraph(f"margin:10px 0 0 0; color:{theme.text}", worked.comparison))
        if worked.loudest_note:
            paragraphs.append(
                Paragraph(f"margin:6px 0 0 0; color:{theme.text}", f"★ {worked.loudest_note}")
            )
    return paragraphs


def _paragraphs_html(paragraphs: list[Paragraph]) -> str:
    return "".join(f"<p style='{p.style}'>{html.escape(p.text)}</p>" for p in paragraphs)


def _put_paragraph(
    cursor: QTextCursor,
    block: QTextBlock,
    paragraph: Paragraph,
    theme: Theme,
    later: TypesetLater | None = None,
) -> None:
    """Replace ``block``'s content with ``paragraph``: its typeset math when it has LaTeX the
    typesetter takes (with ``later``: only when it was typeset before; otherwise plain text
    now, typeset after the frame), its plain text otherwise."""
    text_format = block.begin().fragment().charFormat()
    if text_format.isImageFormat() or text_format.objectType() != 0:  # math shown there now
        text_format = _paragraph_formats(paragraph.style)[1]
    cursor.setPosition(block.position())
    cursor.setPosition(block.position() + block.length() - 1, QTextCursor.MoveMode.KeepAnchor)
    math = math_format(
        paragraph.latex,
        paragraph.text,
        theme.text,
        base=text_format,
        size=paragraph.size,
        later=later,
    )
    if math is None:
        cursor.insertText(paragraph.text, text_format)
    else:
        cursor.insertText(OBJECT_CHARACTER, math)


def _typeset_math(
    document: QTextDocument,
    paragraphs: list[Paragraph],
    theme: Theme,
    later: TypesetLater | None = None,
) -> None:
    """Typeset each math line of ``document``, which holds ``paragraphs`` as plain text (with
    ``later``: the lines typeset before now, the others after the frame)."""
    if not typesetter_loaded() or not any(p.latex for p in paragraphs):
        return
    register_math_objects(document)
    cursor = QTextCursor(document)
    cursor.beginEditBlock()
    for index, paragraph in enumerate(paragraphs):
        if paragraph.latex:
            _put_paragraph(cursor, document.findBlockByNumber(index), paragraph, theme, later)
    cursor.endEditBlock()


@functools.lru_cache(maxsize=16)
def _paragraph_formats(style: str) -> tuple[QTextBlockFormat, QTextCharFormat]:
    """The block and character formats Qt gives a paragraph of ``style`` (as ``setHtml`` would),
    for appending one paragraph without typesetting the whole text again."""
    document = QTextDocument()
    document.setHtml(_paragraphs_html([Paragraph(style, "x")]))
    block = document.firstBlock()
    return block.blockFormat(), block.begin().fragment().charFormat()


def measure_count() -> int:
    """How many text heights were laid out to be measured in this process (one kept adds none)."""
    return _measures


def _typeset_state(paragraphs: list[Paragraph], colour: str) -> tuple[bool, ...] | None:
    """Which math lines would be typeset if laid out now (the others show as plain text, and
    are shorter): None while the typesetter is not loaded, else a flag per line with LaTeX."""
    if not typesetter_loaded():
        return None
    return tuple(is_typeset(p.latex, colour) for p in paragraphs if p.latex)


def _measured_height(
    paragraphs: list[Paragraph],
    theme: Theme,
    font: QFont,
    width: float,
    math: float,
    margin: float,
    later: TypesetLater | None,
) -> float:
    """The height of ``paragraphs`` laid out at ``width`` px in ``font`` (math ``math`` times
    its size), kept per everything that decides it. A panel's fit lays its text out at several
    sizes on every resize (a fifth of building a window), and each window meets the same text
    at the same widths: the suite builds a thousand. The key holds which lines are typeset, so
    a height measured with plain text stand-ins is measured again once their math arrives."""
    global _measures
    key = (
        tuple(paragraphs),
        theme.text,
        font.key(),
        float(width),
        float(math),
        float(margin),
        _typeset_state(paragraphs, theme.text),
    )
    height = _heights.get(key)
    if height is not None:
        _heights.move_to_end(key)
        return height
    _measures += 1
    document = QTextDocument()
    set_math_scale(document, math)
    document.setDocumentMargin(margin)
    document.setDefaultFont(font)
    document.setTextWidth(max(1.0, float(width)))
    document.setHtml(_paragraphs_html(paragraphs))
    _typeset_math(document, paragraphs, theme, later)  # measured as shown
    height = _heights[key] = document.size().height()
    if len(_heights) > HEIGHTS_KEPT:
        _heights.popitem(last=False)
    return height


def worked_math_html(worked: WorkedMath, theme: Theme, hidden: bool = False) -> str:
    """The rich text of the panel; with ``hidden`` the advantages wait for the reveal."""
    return _paragraphs_html(_paragraphs(worked, theme, hidden))


class MathPanel(TypesetBrowser):
    """Formula, source and the step-by-step computation for the current group and convention."""

    #: The lines typeset after their frame are in: the text may now need another height.
    typeset_arrived = Signal()

    def __init__(self, theme: Theme = LIGHT, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("mathPanel")
        self.setAccessibleName("Worked math")
        self.setOpenLinks(False)
        self.setOpenExternalLinks(False)
        scroll_bar = CachedScrollBar(Qt.Orientation.Vertical)
        # The bar sits inside the panel's padding, on its plain background: a click that grows
        # or shrinks the text repaints the bar alone, not the window and the tabs beneath it.
        scroll_bar.set_backdrop(lambda: QColor(self._theme.surface))
        self.setVerticalScrollBar(scroll_bar)
        self.verticalScrollBar().rangeChanged.connect(self._keep_scroll_bar)
        # The text area paints its own background (paintEvent), so new numbers repaint only it,
        # not the panel's rounded frame and the tab frame beneath it as well.
        self.viewport().setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent, True)
        self._theme = theme
        self._worked: WorkedMath | None = None
        self._hidden = False
        self._scale = 1.0  # the text's size over the theme's, grown to fill a large box
        self._rendering = False  # new text toggling the scroll bar is not a new box to fit
        self._shown: list[Paragraph] = []  # the paragraphs the document holds
        self._shown_font: QFont | None = None  # the font they were typeset in
        self._shown_typeset = False  # whether the math in them was typeset (or is plain text)
        # New lines are typeset after the frame that asked for them, one per turn of the loop.
        self._later = TypesetLater(self._typeset_arrived, self)
        self.document().setUndoRedoEnabled(False)  # text is replaced in place: keep no history
        self.set_theme(theme)

    def show_snapshot(self, snapshot: LabSnapshot) -> None:
        if snapshot.worked_math == self._worked:
            return
        self._worked = snapshot.worked_math
        self._render()

    def set_advantages_hidden(self, hidden: bool) -> None:
        if hidden != self._hidden:
            self._hidden = hidden
            self._render()

    def needed_height(self, width: int) -> int:
        """The height (px) that shows all of the text, at its plain size, at ``width``."""
        chrome_w = self.width() - self.viewport().width()
        chrome_h = self.height() - self.viewport().height()
        height = self._text_height(width - chrome_w, 1.0, 1.0)
        return int(height + 0.999) + chrome_h + 2  # rounding: never one pixel short

    def text_scale(self) -> float:
        """How much larger than the theme's size the text is drawn to fill the box (below 1
        only to show it whole in a box a large screen's type size would make it scroll in)."""
        return self._scale

    def resizeEvent(self, event: QResizeEvent) -> None:  # Qt override
        fit_budget(self)  # the window's pixels: what its kept lines need
        if not self._rendering:
            self._release_scroll_bar()  # a new box: it decides afresh whether the text fits
        super().resizeEvent(event)
        if not self._rendering:
            self._fit_text()

    def plain_text(self) -> str:
        return self.toPlainText()

    def load_typesetting(self) -> bool:
        """Load the typesetter (if not yet) and typeset the math shown as plain text so far;
        False when it cannot be loaded (the plain text stays)."""
        if not load_typesetter():
            return False
        if any(p.latex for p in self._shown) and self._shown_typeset is False:
            self._shown = []  # typeset the whole text afresh
            self._render()
            self._fit_text()
        return True

    def load_typesetting_in_background(self, loaded: Callable[[], None]) -> None:
        """Import the typesetter on another thread, then call ``loaded`` on this one (which
        calls ``load_typesetting``): the import's 100-150 ms stay off the GUI thread."""
        load_typesetter_in_background(self, loaded)

    def paintEvent(self, event: QPaintEvent) -> None:  # Qt override: the viewport's paint
        painter = QPainter(self.viewport())
        painter.fillRect(event.rect(), QColor(self._theme.surface))
        painter.end()
        super().paintEvent(event)

    def set_theme(self, theme: Theme) -> None:
        self._theme = theme
        self.setStyleSheet(
            f"#mathPanel {{ background: {theme.surface}; color: {theme.text};"
            f" border: 1px solid {theme.border}; border-radius: 8px; padding: 6px; }}"
        )
        self.setFont(self._font(self._scale))
        self._render()

    def _font(self, scale: float) -> QFont:
        return scaled_font(1.1 * self._theme.type_scale * scale)

    def _paragraphs(self) -> list[Paragraph]:
        return [] if self._worked is None else _paragraphs(self._worked, self._theme, self._hidden)

    def _html(self) -> str:
        return _paragraphs_html(self._paragraphs())

    def _replace_changed(self, paragraphs: list[Paragraph]) -> bool:
        """Put the new numbers into the paragraphs that changed, in place, if the document
        has the same paragraphs in the same styles (a click), give or take paragraphs at the
        end (the ★ note that comes and goes): only those blocks are laid out again, the scroll
        bar keeps its range, nothing else is re-typeset. False otherwise."""
        document = self.document()
        shown = self._shown
        kept = min(len(paragraphs), len(shown))
        if (
            self._shown_font != self.font()
            or kept == 0
            or document.blockCount() != len(shown)
            or self._shown_typeset != typesetter_loaded()
            or any(new.style != old.style for new, old in zip(paragraphs[:kept], shown[:kept]))
            or not all(p.text for p in paragraphs[kept:])
        ):
            return False
        changed = [i for i in range(kept) if paragraphs[i] != shown[i]]
        blocks = []
        for i in changed:
            block = document.findBlockByNumber(i)
            if not block.isValid() or not block.text() or not paragraphs[i].text:
                return False
            blocks.append(block)
        if not changed and len(paragraphs) == len(shown):
            return True
        cursor = QTextCursor(document)
        cursor.beginEditBlock()
        for block, i in zip(blocks, changed, strict=True):
            _put_paragraph(cursor, block, paragraphs[i], self._theme, self._later)
        if len(shown) > kept:  # paragraphs gone from the end: from the last kept one's end on
            last = document.findBlockByNumber(kept - 1)
            cursor.setPosition(last.position() + last.length() - 1)
            cursor.movePosition(QTextCursor.MoveOperation.End, QTextCursor.MoveMode.KeepAnchor)
            cursor.removeSelectedText()
        for paragraph in paragraphs[kept:]:  # new paragraphs at the end, typeset alone
            block_format, char_format = _paragraph_formats(paragraph.style)
            cursor.movePosition(QTextCursor.MoveOperation.End)
            cursor.insertBlock(block_format, char_format)
            cursor.insertText(paragraph.text, char_format)
            if paragraph.latex:
                _put_paragraph(cursor, cursor.block(), paragraph, self._theme, self._later)
        cursor.endEditBlock()
        self._shown = paragraphs
        return True

    def _typeset_arrived(self) -> None:
        """The lines typeset after the frame: put each where its plain text stands in."""
        document = self.document()
        cursor = QTextCursor(document)
        cursor.beginEditBlock()
        for index, paragraph in enumerate(self._shown):
            block = document.findBlockByNumber(index)
            if paragraph.latex and block.isValid() and block.text() == paragraph.text:
                _put_paragraph(cursor, block, paragraph, self._theme, self._later)
        cursor.endEditBlock()
        if self._scale != 1.0 and self.document().size().height() > self.viewport().height():
            self._fit_text()  # the typeset lines are taller than their plain text
        self.typeset_arrived.emit()

    def typesetting_waiting(self) -> bool:
        """Whether lines shown as plain text wait to be typeset (the text will grow)."""
        return self._later.waiting

    def finish_typesetting(self) -> None:
        """Typeset every line waiting now (before a screenshot or an export)."""
        if self._later.waiting:
            self._later.finish()

    def _keep_scroll_bar(self, _minimum: int, maximum: int) -> None:
        """Once the text needs the scroll bar in this box, the bar stays for the clicks that
        follow. A click that adds or drops the ★ note would otherwise show and hide it, and
        every line would re-wrap to the new width: text jumping on stage, and the whole
        document laid out again on that click."""
        if maximum > 0:
            self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOn)

    def _release_scroll_bar(self) -> None:
        """Let the bar go when the text no longer needs it (a new box or a new text)."""
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)

    def _text_height(self, width: float, scale: float, math: float | None = None) -> float:
        """The document's height at ``width`` px with the text at ``scale`` (and the math
        ``math`` times its size; the shown document's when None)."""
        return _measured_height(
            self._paragraphs(),
            self._theme,
            self._font(scale),
            width,
            math_scale(self.document()) if math is None else math,
            self.document().documentMargin(),
            self._later,
        )

    def _fit_text(self) -> None:
        """The largest text (up to MAX_TEXT_SCALE, in 0.1 steps) that the box shows whole.

        A large screen's box is filled. A box too small for the plain size takes the text back
        towards its size at 1280×800 (never below: the app font's screen scale undone, see
        views/common/fonts.py) when that shows it whole, and otherwise keeps the plain size and
        scrolls.
        """
        if self._worked is None:
            return
        room, width = self.viewport().height() - 2, self.viewport().width()
        scale = 1.0
        plain = self._text_height(width, 1.0, 1.0)
        least = round(1.0 / screen_scale(), 2)
        if 0 < plain * 1.1 <= room:
            scale = min(MAX_TEXT_SCALE, int(room / plain * 10) / 10)
            while scale > 1.0 and self._text_height(width, scale, 1.0) > room:
                scale = round(scale - 0.1, 1)
        elif plain > room > 0 and least < 1.0 and self._text_height(width, least, 1.0) <= room:
            # Text height shrinks about as the font does: start near the fit, step up to 1.
            scale = max(least, int(room / plain * 20) / 20)
            while scale < 1.0 and self._text_height(width, round(scale + 0.05, 2), 1.0) <= room:
                scale = round(scale + 0.05, 2)
            while scale > least and self._text_height(width, scale, 1.0) > room:
                scale = max(least, round(scale - 0.05, 2))
        math = 1.0
        if self._shown_typeset and self._text_height(width, scale, 1.0) > room > 0:
            while math > LEAST_MATH_SCALE and self._text_height(width, scale, math) > room:
                math = round(math - 0.05, 2)
            if self._text_height(width, scale, math) > room:
                math = 1.0  # it scrolls all the same: at its full size
        set_math_scale(self.document(), math)
        if scale != self._scale:
            self._scale = scale
            self.setFont(self._font(scale))

    def _render(self) -> None:
        if self._worked is not None:
            paragraphs = self._paragraphs()
            self._rendering = True
            try:
                if not self._replace_changed(paragraphs):
                    self._release_scroll_bar()
                    self.setHtml(_paragraphs_html(paragraphs))  # the text cursor back at the top
                    _typeset_math(self.document(), paragraphs, self._theme, self._later)
                    self._shown, self._shown_font = paragraphs, self.font()
                    self._shown_typeset = typesetter_loaded()
            finally:
                self._rendering = False
            # A click keeps the text's size unless the new text no longer fits (the browser
            # lays its own document out anyway); a resize searches afresh.
            if self._scale != 1.0 and self.document().size().height() > self.viewport().height():
                self._fit_text()
