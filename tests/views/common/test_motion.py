"""Reduced motion: one application-wide preference, Qt's own slide and fade effects with it."""

from __future__ import annotations

from PySide6.QtWidgets import QApplication

from grpo_desktop.views.common.motion import (
    UI_EFFECTS,
    motion_preference,
    reduced_motion,
    set_reduced_motion,
)


def test_the_preference_is_one_per_application_and_says_when_it_flips(qapp):
    assert motion_preference() is motion_preference()
    assert reduced_motion() is False  # motion is allowed until someone reduces it
    heard: list[bool] = []
    motion_preference().changed.connect(heard.append)
    try:
        set_reduced_motion(True)
        set_reduced_motion(True)  # no change: nothing to say
        assert reduced_motion() is True
    finally:
        set_reduced_motion(False)
        motion_preference().changed.disconnect(heard.append)
    assert heard == [True, False]


def test_reducing_motion_turns_qt_effects_off_and_back_as_they_were(qapp):
    before = [QApplication.isEffectEnabled(effect) for effect in UI_EFFECTS]
    try:
        set_reduced_motion(True)
        assert not any(QApplication.isEffectEnabled(effect) for effect in UI_EFFECTS)
    finally:
        set_reduced_motion(False)
    assert [QApplication.isEffectEnabled(effect) for effect in UI_EFFECTS] == before
