"""The keyboard shortcuts overlay (F1 or ?): every action and key, read from the window itself.

Built from the window's actions when opened, so it can never drift from what the keys really do.
"""

from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QMainWindow, QTextBrowser, QVBoxLayout

from grpo_desktop.views.common.dialog_size import text_sized
from grpo_desktop.views.common.fonts import scaled_font

FIXED_KEYS = (
    ("1 – 9", "Mark card 1–9 right or wrong"),
    ("Space / Enter", "Mark the focused card right or wrong"),
    ("+ / −", "Continuous mode: raise or lower the focused card's reward"),
    ("Arrow keys", "Move between cards (next / previous step during a lesson)"),
    ("Tab", "Move between cards and controls"),
)


def _keys(action: QAction) -> list[str]:
    """The action's keys as the user reads them, each once, in the action's order."""
    keys = (k.toString(QKeySequence.SequenceFormat.NativeText) for k in action.shortcuts())
    return list(dict.fromkeys(k for k in keys if k))


def shortcut_rows(window: QMainWindow) -> list[tuple[str, str, str]]:
    """(menu, key, what it does) for every window action that has a shortcut.

    Each key is listed once: an action's repeated key shows once, and a key two actions share
    (enabled at different times, e.g. Page Down in and outside a lesson) names both on one row.
    """
    entries: list[tuple[str, list[str], list[str]]] = []  # (menu, keys, what they do)
    row_of_key: dict[str, int] = {}
    seen: set[int] = set()
    menus = [
        (m.menu().title().replace("&", ""), _all_actions(m.menu()))
        for m in window.menuBar().actions()
        if m.menu() is not None
    ]
    for title, actions in [*menus, ("Other", window.actions())]:
        for action in actions:
            keys = _keys(action)
            if not keys or id(action) in seen:
                continue
            seen.add(id(action))
            text = action.text().replace("&", "")
            shared = [row_of_key[key] for key in keys if key in row_of_key]
            if shared:  # the key is listed already: say there what else it does
                _, listed, texts = entries[shared[0]]
                listed.extend(key for key in keys if key not in row_of_key)
                if text not in texts:
                    texts.append(text)
                row = shared[0]
            else:
                entries.append((title, keys, [text]))
                row = len(entries) - 1
            for key in keys:
                row_of_key.setdefault(key, row)
    return [(menu, " or ".join(keys), " / ".join(texts)) for menu, keys, texts in entries]


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
        self.resize(text_sized(self, 45.9, 44.4))  # 640 × 620 at 100 % on a laptop
        self.setWindowModality(Qt.WindowModality.WindowModal)
        self.text = browser
