"""The keyboard shortcuts overlay (F1 or ?): every action and key, read from the window itself.

Built from the window's actions when opened, so it can never drift from what the keys really do.
"""

from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QMainWindow, QTextBrowser, QVBoxLayout

from grpo_desktop.views.fonts import scaled_font

FIXED_KEYS = (
    ("1 – 9", "Mark card 1–9 right or wrong"),
    ("Space / Enter", "Mark the focused card right or wrong"),
    ("Arrow keys", "Move between cards (next / previous step during a lesson)"),
    ("Tab", "Move between cards and controls"),
)


def _key_text(action: QAction) -> str:
    keys = [k.toString(QKeySequence.SequenceFormat.NativeText) for k in action.shortcuts()]
    return " or ".join(k for k in keys if k)


def shortcut_rows(window: QMainWindow) -> list[tuple[str, str, str]]:
    """(menu, key, what it does) for every window action that has a shortcut."""
    rows: list[tuple[str, str, str]] = []
    seen: set[int] = set()
    for menu_action in window.menuBar().actions():
        menu = menu_action.menu()
        if menu is None:
            continue
        title = menu.title().replace("&", "")
        for action in _all_actions(menu):
            key = _key_text(action)
            if key and id(action) not in seen:
                seen.add(id(action))
                rows.append((title, key, action.text().replace("&", "")))
    for action in window.actions():
        key = _key_text(action)
        if key and id(action) not in seen:
            seen.add(id(action))
            rows.append(("Other", key, action.text().replace("&", "")))
    return rows


def _all_actions(menu) -> list[QAction]:
    actions = []
    for action in menu.actions():
        if action.menu() is not None:
            actions.extend(_all_actions(action.menu()))
        elif not action.isSeparator():
            actions.append(action)
    return actions


class ShortcutsDialog(QDialog):
    """A large, readable table of every shortcut; Escape or F1 closes it."""

    def __init__(self, window: QMainWindow) -> None:
        super().__init__(window)
        self.setObjectName("shortcutsDialog")
        self.setWindowTitle("Keyboard shortcuts")
        browser = QTextBrowser(objectName="shortcutsText")
        browser.setOpenLinks(False)
        browser.setFont(scaled_font(1.15))
        rows = [("Cards", key, text) for key, text in FIXED_KEYS] + shortcut_rows(window)
        parts = ["<table cellspacing='0' cellpadding='4'>"]
        group = None
        for menu, key, text in rows:
            if menu != group:
                group = menu
                parts.append(f"<tr><td colspan='2'><b>{html.escape(menu)}</b></td></tr>")
            parts.append(
                f"<tr><td style='padding-right:24px'><code>{html.escape(key)}</code></td>"
                f"<td>{html.escape(text)}</td></tr>"
            )
        parts.append("</table>")
        browser.setHtml("".join(parts))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        column = QVBoxLayout(self)
        column.addWidget(browser)
        column.addWidget(buttons)
        self.resize(640, 620)
        self.setWindowModality(Qt.WindowModality.WindowModal)
        self.text = browser
