"""View ▸ Reduce motion: a checkable item of the View menu, remembered, applied app-wide."""

from __future__ import annotations

from grpo_desktop.model.settings import AppSettings
from grpo_desktop.views.common.motion import reduced_motion
from grpo_desktop.window.main_window import MainWindow


def test_reduce_motion_is_a_checkable_view_menu_item_and_is_remembered(window):
    action = window.presentation.reduce_motion_action
    assert action.objectName() == "reduceMotionAction" and action.isCheckable()
    assert action in window.view_menu.actions()
    assert not action.isChecked() and not reduced_motion()
    try:
        action.trigger()
        assert action.isChecked() and reduced_motion()
        assert window.settings.reduce_motion is True
    finally:
        window.presentation.set_reduce_motion(False)
    assert not action.isChecked() and not reduced_motion()
    assert window.settings.reduce_motion is False


def test_a_window_starts_with_the_remembered_preference(qtbot):
    settings = AppSettings()
    settings.reduce_motion = True
    window = MainWindow(settings=settings)
    qtbot.addWidget(window)
    try:
        assert window.presentation.reduce_motion_action.isChecked() and reduced_motion()
    finally:
        window.presentation.set_reduce_motion(False)
    window.undo_stack.setClean()
