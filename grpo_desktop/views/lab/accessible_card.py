"""A trace card as a screen reader meets it: a check box ("toggle button") you can press.

Checked means the checker says the answer is right. The name is the card's ("Card 3"), the
description its verdict, reward, advantage and push (the widget's accessible description). The
default action, Toggle, asks for exactly what a click asks for (``toggle_requested``), so it goes
through the window's undoable path; in continuous mode Increase and Decrease nudge the reward as
+ and − do. A run's recorded answer cannot be toggled: it is read-only static text, no actions.

Duck-typed on the card (``card_state``, ``reward_range``, ``accessibleDescription``,
``request_toggle``, ``request_nudge``)
so this module does not import the widget.
"""

from __future__ import annotations

from PySide6.QtGui import QAccessible, QAccessibleActionInterface
from PySide6.QtWidgets import QAccessibleWidget, QWidget

__all__ = ["RECORDED_NOTE", "CardAccessible"]

RECORDED_NOTE = "read-only: a run's answer as it was logged"
_TOGGLE = QAccessibleActionInterface.toggleAction()
_INCREASE = QAccessibleActionInterface.increaseAction()
_DECREASE = QAccessibleActionInterface.decreaseAction()


class CardAccessible(QAccessibleWidget):
    """The accessible interface of one ``TraceCard``."""

    def __init__(self, card: QWidget) -> None:
        super().__init__(card, QAccessible.Role.CheckBox, "")
        self._card = card

    def _toggleable(self) -> bool:
        state = self._card.card_state
        return state is not None and state.correct is not None

    def role(self) -> QAccessible.Role:
        if self._card.card_state is not None and not self._toggleable():
            return QAccessible.Role.StaticText
        return QAccessible.Role.CheckBox

    def state(self) -> QAccessible.State:
        state = super().state()
        card = self._card.card_state
        if card is not None and card.correct is None:
            state.readOnly = True
            return state
        state.checkable = True
        state.checked = bool(card is not None and card.correct)
        return state

    def text(self, kind: QAccessible.Text) -> str:
        text = ""
        if kind == QAccessible.Text.Description:
            # The card writes its description when it is read, not on every click; a card that
            # shows nothing yet has none, and Qt's own answer (its tooltip) stands.
            text = self._card.accessibleDescription()
        if not text:
            text = super().text(kind)
        recorded = self._card.card_state is not None and not self._toggleable()
        if kind == QAccessible.Text.Description and recorded:
            return f"{text}; {RECORDED_NOTE}" if text else RECORDED_NOTE
        return text

    # -- the action interface (QAccessibleWidget is one) --------------------------------------

    def actionNames(self) -> list[str]:
        if not self._toggleable():
            return list(super().actionNames())
        names = [_TOGGLE]
        if self._card.reward_range is not None:
            names += [_INCREASE, _DECREASE]
        return names + list(super().actionNames())

    def doAction(self, name: str) -> None:
        if name == _TOGGLE and self._toggleable():
            self._card.request_toggle()
        elif name in (_INCREASE, _DECREASE) and self._toggleable():
            self._card.request_nudge(1 if name == _INCREASE else -1)
        else:
            super().doAction(name)

    def keyBindingsForAction(self, name: str) -> list[str]:
        if name == _TOGGLE:
            return ["Space"]
        if name == _INCREASE:
            return ["+"]
        if name == _DECREASE:
            return ["−"]
        return list(super().keyBindingsForAction(name))
