"""Reduced motion, one preference for the whole application (View ▸ Reduce motion).

The window's stage controls set it from the settings (``set_reduced_motion``); a view asks
``reduced_motion()`` at the moment it would move something, so a view built later (the Training
run, the comparison's charts) follows it without being told, and ``motion_preference().changed``
tells the views that have something moving right now (a playing run, a running animation).

Reduced, nothing slides or tweens: the reward → advantage animation shows each of its captioned
steps at once, a training run advances only on a key press, and Qt's own menu, combo box and
tooltip slide and fade effects are off. The preference lives on the application (one per process,
like the screen scale in ``fonts.py``), never in a widget.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QObject, Qt, Signal
from PySide6.QtWidgets import QApplication

__all__ = ["MotionPreference", "motion_preference", "reduced_motion", "set_reduced_motion"]

PREFERENCE_NAME = "grpoMotionPreference"
#: Qt's own animated effects (menus slide or fade in, combo boxes slide open, tooltips fade).
UI_EFFECTS = (
    Qt.UIEffect.UI_AnimateMenu,
    Qt.UIEffect.UI_FadeMenu,
    Qt.UIEffect.UI_AnimateCombo,
    Qt.UIEffect.UI_AnimateTooltip,
    Qt.UIEffect.UI_FadeTooltip,
    Qt.UIEffect.UI_AnimateToolBox,
)


class MotionPreference(QObject):
    """The application's reduced-motion preference; emits ``changed`` when it flips."""

    changed = Signal(bool)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.setObjectName(PREFERENCE_NAME)
        self._reduced = False
        self._effects: dict[Qt.UIEffect, bool] = {}  # Qt's effects as they were, to restore

    @property
    def reduced(self) -> bool:
        return self._reduced

    def set_reduced(self, reduced: bool) -> None:
        reduced = bool(reduced)
        if reduced == self._reduced:
            return
        self._reduced = reduced
        if isinstance(QCoreApplication.instance(), QApplication):
            if reduced:
                self._effects = {e: QApplication.isEffectEnabled(e) for e in UI_EFFECTS}
                for effect in UI_EFFECTS:
                    QApplication.setEffectEnabled(effect, False)
            else:
                for effect, enabled in self._effects.items():
                    QApplication.setEffectEnabled(effect, enabled)
                self._effects = {}
        self.changed.emit(reduced)


_fallback: MotionPreference | None = None  # before (or without) a QApplication: tests, scripts


def motion_preference() -> MotionPreference:
    """The application's one preference (made on first use, a child of the application)."""
    global _fallback
    app = QCoreApplication.instance()
    if app is None:
        if _fallback is None:
            _fallback = MotionPreference()
        return _fallback
    found = app.findChild(MotionPreference, PREFERENCE_NAME)
    if found is None:
        found = MotionPreference(app)
    return found


def reduced_motion() -> bool:
    """Whether motion is reduced right now."""
    return motion_preference().reduced


def set_reduced_motion(reduced: bool) -> None:
    """Reduce motion everywhere (or allow it again); ``changed`` fires only on a change."""
    motion_preference().set_reduced(reduced)
