"""The worked math: the formula, then the live computation with this group's numbers.

Typeset with Qt rich text (no web engine, nothing fetched): the state hands over a ``WorkedMath``
and this view only lays it out.
"""

from __future__ import annotations

import html

from PySide6.QtWidgets import QTextBrowser, QWidget

from grpo_desktop.core.explain import WorkedMath
from grpo_desktop.core.snapshot import LabSnapshot
from grpo_desktop.core.theme import LIGHT, Theme
from grpo_desktop.views.fonts import scaled_font


def worked_math_html(worked: WorkedMath, theme: Theme, hidden: bool = False) -> str:
    """The rich text of the panel; with ``hidden`` the advantages wait for the reveal."""
    parts = [
        f"<p style='margin:0 0 2px 0; font-size:140%; font-weight:600'>"
        f"{html.escape(worked.formula)}</p>",
        f"<p style='margin:0 0 8px 0; color:{theme.muted}'>{html.escape(worked.convention_label)}"
        f" · {html.escape(worked.source)}</p>",
    ]
    for index, step in enumerate(worked.steps):
        is_advantage = step.title.startswith("Advantage")
        parts.append(
            f"<p style='margin:6px 0 0 0; font-weight:600'>{index + 1}. "
            f"{html.escape(step.title)}</p>"
        )
        for line in step.lines:
            text = "A = ? (predict first, then reveal)" if hidden and is_advantage else line
            parts.append(f"<p style='margin:0 0 0 16px'>{html.escape(text)}</p>")
    if not hidden:
        parts.append(
            f"<p style='margin:10px 0 0 0; color:{theme.text}'>{html.escape(worked.comparison)}</p>"
        )
        if worked.loudest_note:
            parts.append(
                f"<p style='margin:6px 0 0 0; color:{theme.text}'>★ "
                f"{html.escape(worked.loudest_note)}</p>"
            )
    return "".join(parts)


class MathPanel(QTextBrowser):
    """Formula, source and the step-by-step computation for the current group and convention."""

    def __init__(self, theme: Theme = LIGHT, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("mathPanel")
        self.setAccessibleName("Worked math")
        self.setOpenLinks(False)
        self.setOpenExternalLinks(False)
        self._theme = theme
        self._worked: WorkedMath | None = None
        self._hidden = False
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
        """The height (px) that shows all of the text at ``width`` without scrolling."""
        chrome_w = self.width() - self.viewport().width()
        chrome_h = self.height() - self.viewport().height()
        document = self.document().clone(self)
        document.setTextWidth(max(1, width - chrome_w))
        height = document.size().height()
        document.deleteLater()
        return int(height + 0.999) + chrome_h + 2  # rounding: never one pixel short

    def plain_text(self) -> str:
        return self.toPlainText()

    def set_theme(self, theme: Theme) -> None:
        self._theme = theme
        self.setStyleSheet(
            f"#mathPanel {{ background: {theme.surface}; color: {theme.text};"
            f" border: 1px solid {theme.border}; border-radius: 8px; padding: 6px; }}"
        )
        self.setFont(scaled_font(1.1 * theme.type_scale))
        self._render()

    def _render(self) -> None:
        if self._worked is not None:
            self.setHtml(worked_math_html(self._worked, self._theme, self._hidden))
