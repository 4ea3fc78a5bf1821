"""The clicked token's whole computation: ratio, clip, advantage, KL term, weight and gradient.

Laid out as Qt rich text in a ``QTextBrowser`` (wraps, scrolls vertically, never sideways) from a
``TokenComputation`` the snapshot already computed. Every string in it may come from a trace, so
each is escaped: a token "<b>" shows as those three characters, never as markup. An expression
with LaTeX is typeset (views/common/math_render.py); its plain text stays what Ctrl+C copies and
a screen reader reads, and Ctrl+Shift+L copies the LaTeX.
"""

from __future__ import annotations

import html

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QTextCursor, QTextOption
from PySide6.QtWidgets import QTextBrowser, QWidget

from grpo_desktop.core.common.theme import LIGHT, Theme
from grpo_desktop.core.update.update_snapshot import TokenComputation, UpdateSnapshot
from grpo_desktop.views.common.fonts import scaled_font
from grpo_desktop.views.common.math_render import (
    FIRST_LINE_DELAY_MS,
    OBJECT_CHARACTER,
    TypesetBrowser,
    TypesetLater,
    load_typesetter,
    math_format,
)

__all__ = ["INSTRUCTION", "RESULT_LABELS", "TokenDetailPanel", "token_detail_html"]

#: The steps that are the computation's result: shown first too, under the title, so a column
#: too short for every step (1280×800) still shows them without scrolling.
RESULT_LABELS = ("∂loss/∂logp", "push")

INSTRUCTION = (
    "Click any token to see its whole computation: ratio, clip, advantage, KL term, its "
    "aggregation weight and the gradient."
)


#: The same token's new numbers are laid out this long after the click's frame: in a turn of
#: their own, before the inner steps' first piece (FIRST_LINE_DELAY_MS) and the math's lines.
RENDER_DELAY_MS = FIRST_LINE_DELAY_MS // 2

#: An expression may take this share of the column: the value beside it keeps its room.
EXPRESSION_WIDTH_SHARE = 0.62
_MATH_ANCHOR = "math-"  # the anchor name an expression with LaTeX carries: math-<row index>


def _text(value: str) -> str:
    """Escaped, with line breaks kept: the text shows exactly as it came."""
    return html.escape(value).replace("\n", "<br>")


def _expression(expression: str, latex: str, index: int) -> str:
    """The expression's rich text; one with LaTeX is marked so the panel can typeset it."""
    if not latex:
        return _text(expression)
    return f"<a name='{_MATH_ANCHOR}{index}'>{_text(expression)}</a>"


def token_detail_html(computation: TokenComputation | None, theme: Theme) -> str:
    """The panel's rich text: title, one table row per step, then the summary sentence.

    Each step puts its label and value on one line (the value right-aligned, large, in
    tabular digits) and its expression under the label, so a narrow column still wraps well.
    """
    if computation is None:
        return f"<p style='margin:4px 0; color:{theme.muted}'>{html.escape(INSTRUCTION)}</p>"
    parts = [
        f"<p style='margin:0 0 4px 0; font-size:120%; font-weight:600'>"
        f"{_text(computation.title)}</p>",
    ]
    results = [row for row in computation.rows if row.label in RESULT_LABELS]
    if results:
        shown = " · ".join(
            f"{_text(row.label)} <span style='font-family:monospace; white-space:nowrap'>"
            f"{_text(row.value)}</span>"
            for row in results
        )
        parts.append(
            f"<p style='margin:0 0 6px 0; font-size:115%; font-weight:600'>{shown}"
            f" <span style='font-weight:normal; font-size:87%; color:{theme.muted}'>"
            "(worked out below)</span></p>"
        )
    parts.append("<table width='100%' cellspacing='0' cellpadding='2'>")
    for index, row in enumerate(computation.rows):
        rule = f"border-top:1px solid {theme.border};" if index else ""
        parts.append(
            f"<tr><td valign='top' style='{rule}'>"
            f"<span style='font-weight:600'>{_text(row.label)}</span><br>"
            f"<span style='color:{theme.muted}'>{_expression(row.expression, row.latex, index)}"
            "</span></td>"
            f"<td valign='top' align='right' style='{rule} font-size:125%; font-weight:600;"
            f" font-family:monospace; white-space:nowrap'>{_text(row.value)}</td></tr>"
        )
    parts.append("</table>")
    parts.append(f"<p style='margin:8px 0 0 0'>{_text(computation.summary)}</p>")
    return "".join(parts)


class TokenDetailPanel(TypesetBrowser):
    """The selected token's computation, or how to select one; a narrow, read-only column."""

    def __init__(self, theme: Theme = LIGHT, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("tokenDetail")
        self.setAccessibleName("Token computation")
        self.setOpenLinks(False)
        self.setOpenExternalLinks(False)
        # A narrow column: wrap everything (even a long unbroken token), never scroll sideways.
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setWordWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
        self.setLineWrapMode(QTextBrowser.LineWrapMode.WidgetWidth)
        self._theme = theme
        self._computation: TokenComputation | None = None
        self._rendered = False
        # A selected token's new lines are typeset after the click's frame (about 9 ms each).
        self._later = TypesetLater(self._typeset_expressions, self)
        # The same token's new numbers (a card toggled, a setting moved, the inner steps done)
        # are laid out after the click's frame: the rich text and its layout took 6–7 ms of it.
        # A zero timer fires once the click's handling has returned (its frame painted) and
        # starts the delay, so a slow frame does not find the delay run out and lay them out in
        # the same turn; the delay is shorter than the inner steps' (a turn of its own).
        self._render_timer = QTimer(self)
        self._render_timer.setSingleShot(True)
        self._render_timer.timeout.connect(self._render)
        self._render_arm = QTimer(self)
        self._render_arm.setSingleShot(True)
        self._render_arm.setInterval(0)
        self._render_arm.timeout.connect(lambda: self._render_timer.start(RENDER_DELAY_MS))
        self.set_theme(theme)

    def show_snapshot(self, snapshot: UpdateSnapshot) -> None:
        """Show ``snapshot.selected`` (redrawn only when it changed, so the scroll stays put).
        A newly selected token shows at once; the same token's new numbers once the click's
        frame is painted (the latest only: a newer snapshot meanwhile replaces them)."""
        selected, shown = snapshot.selected, self._computation
        if self._rendered and selected == shown:
            return
        self._computation = selected
        same_token = (
            self._rendered
            and selected is not None
            and shown is not None
            and (selected.row, selected.column) == (shown.row, shown.column)
        )
        if same_token:
            # The delay starts again from this click (a delay armed by the last snapshot could
            # run out inside this click's frame), and the last numbers' lines still waiting to
            # be typeset are dropped: their document is about to be replaced, and each line
            # (9 ms) would otherwise take a turn of its own, maybe this click's.
            self._render_timer.stop()
            self._render_arm.start()
            self._drop_typesetting()
            return
        self._render()

    @property
    def render_waiting(self) -> bool:
        """Whether new numbers wait to be laid out after the click's frame."""
        return self._render_arm.isActive() or self._render_timer.isActive()

    def finish(self) -> None:
        """Lay out now the numbers still waiting (a screenshot, a copy, a test)."""
        if self.render_waiting:
            self._render()

    def computation(self) -> TokenComputation | None:
        return self._computation

    def plain_text(self) -> str:
        self.finish()
        return self.toPlainText()

    def set_theme(self, theme: Theme) -> None:
        """Colours from ``theme``; text at the theme's content size."""
        self._theme = theme
        self.setStyleSheet(
            f"#tokenDetail {{ background: {theme.surface}; color: {theme.text};"
            f" border: 1px solid {theme.border}; border-radius: 8px; padding: 4px; }}"
        )
        self.setFont(scaled_font(1.05 * theme.type_scale))
        self._render()

    def _drop_typesetting(self) -> None:
        """Forget the lines still waiting to be typeset (the next render asks for its own)."""
        self._later.drop()

    def _render(self) -> None:
        self._render_arm.stop()
        self._render_timer.stop()
        self._rendered = True
        self.setHtml(token_detail_html(self._computation, self._theme))
        self._typeset_expressions()
        self.setAccessibleDescription(
            self._computation.summary if self._computation is not None else INSTRUCTION
        )

    def _typeset_expressions(self) -> None:
        """Replace each marked expression with its typeset LaTeX (the plain text stays when the
        typesetter refuses it or cannot load)."""
        computation = self._computation
        if computation is None or not any(row.latex for row in computation.rows):
            return
        if not load_typesetter():
            return
        document = self.document()
        marked: dict[int, int] = {}  # row index: where its expression starts
        block = document.begin()
        while block.isValid():
            iterator = block.begin()
            while not iterator.atEnd():
                fragment = iterator.fragment()
                for name in fragment.charFormat().anchorNames():  # on the first character
                    if name.startswith(_MATH_ANCHOR):
                        marked.setdefault(int(name[len(_MATH_ANCHOR) :]), fragment.position())
                iterator += 1
            block = block.next()
        cursor = QTextCursor(document)
        cursor.beginEditBlock()
        for index, start in sorted(marked.items(), key=lambda mark: -mark[1]):
            row = computation.rows[index]
            cursor.setPosition(start)
            cursor.setPosition(start + len(row.expression), QTextCursor.MoveMode.KeepAnchor)
            if cursor.selectedText() != row.expression.replace("\n", "\u2029"):
                continue  # not the expression as laid out: it stays plain text
            base = cursor.charFormat()
            base.setAnchor(False)
            base.setAnchorNames([])
            form = math_format(
                row.latex,
                row.expression,
                self._theme.text,
                base=base,
                width_share=EXPRESSION_WIDTH_SHARE,
                later=self._later,
            )
            if form is not None:
                cursor.insertText(OBJECT_CHARACTER, form)
        cursor.endEditBlock()
        self.moveCursor(QTextCursor.MoveOperation.Start)
