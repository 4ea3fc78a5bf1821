"""The token rows as a screen reader meets them: a list of selectable token items with their push.

``TokenRowsAccessible`` (a ``QAccessibleWidget``, role List) has one child per chip, in reading
order (answer 1's tokens, then answer 2's …). A child is named by its text made speakable
("space 1081", "newline") and described by where it is, its push and its marks ("answer 2,
token 7; push +0.0123; clipped (no gradient); final answer"); it is selectable, selected when the
snapshot selects it, focused where the keys are. Children are made only when asked for (16
answers can hold 32,000 tokens), registered with Qt's accessibility cache, and dropped from it
when the rows change. Duck-typed on the view (``snapshot``, ``selected``, ``key_cursor``,
``token_rect``) so this module does not import it.
"""

from __future__ import annotations

import bisect
import functools

from PySide6.QtCore import QPoint, QRect
from PySide6.QtGui import QAccessible, QAccessibleInterface, QColor
from PySide6.QtWidgets import QAccessibleWidget, QWidget

from grpo_desktop.views.update.token_layout import spoken_token, token_description

__all__ = ["TokenAccessible", "TokenRowsAccessible", "child_index"]


def child_index(view: QWidget, row: int, column: int) -> int:
    """The accessible child index of token ``column`` of answer ``row`` (-1 if none)."""
    snapshot = view.snapshot
    if snapshot is None or not 0 <= row < len(snapshot.rows):
        return -1
    if not 0 <= column < len(snapshot.rows[row].tokens):
        return -1
    return sum(len(answer.tokens) for answer in snapshot.rows[:row]) + column


class TokenRowsAccessible(QAccessibleWidget):
    """The accessible interface of a ``TokenRowsView``: a list of token items."""

    def __init__(self, view: QWidget) -> None:
        super().__init__(view, QAccessible.Role.List, "")
        self._view = view
        self._rows: object = None  # the rows the children were made for
        self._starts: list[int] = []  # each answer's first child index
        # Cleared in place, never replaced: the view's destroyed signal drops what it holds.
        self._children: dict[int, TokenAccessible] = {}
        view.destroyed.connect(functools.partial(_drop, self._children))

    def _sync(self) -> None:
        snapshot = self._view.snapshot
        rows = None if snapshot is None else snapshot.rows
        if rows is self._rows:
            return
        self.forget_children()
        self._rows = rows
        starts, total = [], 0
        for answer in rows or ():
            starts.append(total)
            total += len(answer.tokens)
        self._starts = [*starts, total]

    def forget_children(self) -> None:
        """Drop every child made so far from Qt's cache (the rows they read are gone)."""
        _drop(self._children)

    def childCount(self) -> int:
        self._sync()
        return self._starts[-1] if self._starts else 0

    def child(self, index: int) -> QAccessibleInterface | None:
        self._sync()
        if not 0 <= index < self.childCount():
            return None
        item = self._children.get(index)
        if item is None:
            row = bisect.bisect_right(self._starts, index) - 1
            item = TokenAccessible(self, row, index - self._starts[row], index)
            QAccessible.registerAccessibleInterface(item)  # Qt's cache keeps it until dropped
            self._children[index] = item
        return item

    def indexOfChild(self, child: QAccessibleInterface) -> int:
        return child.index if isinstance(child, TokenAccessible) and child.owner is self else -1

    def focusChild(self) -> QAccessibleInterface | None:
        cursor = self._view.key_cursor()
        if not self._view.hasFocus() or cursor is None:
            return super().focusChild()
        index = child_index(self._view, *cursor)
        return self.child(index) if index >= 0 else None

    def childAt(self, x: int, y: int) -> QAccessibleInterface | None:
        hit = self._view.token_at(self._view.mapFromGlobal(QPoint(x, y)))
        return None if hit is None else self.child(child_index(self._view, *hit))


def _drop(children: dict[int, TokenAccessible], *_args: object) -> None:
    """Delete ``children`` from Qt's accessibility cache (which owns them once registered)."""
    for child in children.values():
        QAccessible.deleteAccessibleInterface(QAccessible.uniqueId(child))
    children.clear()


class TokenAccessible(QAccessibleInterface):
    """One token chip: a selectable list item named by its text, described by its push."""

    def __init__(self, owner: TokenRowsAccessible, row: int, column: int, index: int) -> None:
        super().__init__()
        self.owner, self.row, self.column, self.index = owner, row, column, index
        self._view = owner.widget()

    def _token(self):
        snapshot = self._view.snapshot
        try:
            return snapshot.rows[self.row].tokens[self.column]
        except (AttributeError, IndexError):
            return None

    def isValid(self) -> bool:
        return self._token() is not None

    def object(self) -> None:
        return None

    def window(self):
        return self.owner.window()

    def parent(self) -> QAccessibleInterface:
        return self.owner

    def child(self, _index: int) -> None:
        return None

    def childCount(self) -> int:
        return 0

    def childAt(self, _x: int, _y: int) -> None:
        return None

    def indexOfChild(self, _child: QAccessibleInterface) -> int:
        return -1

    def focusChild(self) -> None:
        return None

    def role(self) -> QAccessible.Role:
        return QAccessible.Role.ListItem

    def text(self, kind: QAccessible.Text) -> str:
        token = self._token()
        if token is None:
            return ""
        if kind == QAccessible.Text.Name:
            return spoken_token(token.text)
        if kind == QAccessible.Text.Description:
            return token_description(token, self.row, self.column)
        return ""

    def setText(self, _kind: QAccessible.Text, _text: str) -> None:
        pass

    def state(self) -> QAccessible.State:
        state = QAccessible.State()
        state.selectable = True
        state.focusable = True
        here = (self.row, self.column)
        state.selected = self._view.selected() == here
        state.focused = self._view.hasFocus() and self._view.key_cursor() == here
        state.invisible = not self._view.isVisible()
        return state

    def rect(self) -> QRect:
        local = self._view.token_rect(self.row, self.column)
        if not local.isValid():
            return QRect()
        return QRect(self._view.mapToGlobal(local.topLeft()), local.size())

    def backgroundColor(self) -> QColor:
        return QColor()

    def foregroundColor(self) -> QColor:
        return QColor()
