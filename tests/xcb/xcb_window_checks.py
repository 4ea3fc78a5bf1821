"""Real-display checks: the window on Qt's xcb platform, run by test_real_display.py under Xvfb.

Not collected by the offscreen suite (the file name has no ``test_`` prefix): a QApplication's
platform is fixed at start, and the offscreen platform hides real-display bugs (DESIGN §3; e.g.
``QKeySequence.StandardKey.Redo`` is Ctrl+Y offscreen but Ctrl+Shift+Z under xcb).
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QGuiApplication, QImage, QKeySequence, QShortcut
from PySide6.QtWidgets import QLabel, QWidget

from grpo_desktop.views.common.shortcuts_dialog import shortcut_rows
from grpo_desktop.window.main_window import MainWindow

CONTROL = Qt.KeyboardModifier.ControlModifier
SHIFT = Qt.KeyboardModifier.ShiftModifier


@pytest.fixture(autouse=True)
def real_display(qapp):
    assert QGuiApplication.platformName() == "xcb", (
        "these checks need Qt's xcb platform; run them with "
        "`pytest tests/xcb` (it starts them under xvfb-run with QT_QPA_PLATFORM=xcb)"
    )


@pytest.fixture
def active(qtbot, window) -> MainWindow:
    """The shown window with the keyboard focus: window shortcuts need the active window."""
    with qtbot.waitActive(window):
        window.activateWindow()
    return window


def ambiguous(qtlog) -> list[str]:
    return [record.message for record in qtlog.records if "Ambiguous shortcut" in record.message]


def press(qtbot, window: MainWindow, key: Qt.Key, modifiers=Qt.KeyboardModifier.NoModifier):
    qtbot.keyClick(window, key, modifiers)


def rewards(window: MainWindow) -> tuple[int, ...]:
    return window.state.snapshot.rewards


@pytest.mark.parametrize(
    ("name", "key", "modifiers"),
    [("Ctrl+Shift+Z", Qt.Key.Key_Z, CONTROL | SHIFT), ("Ctrl+Y", Qt.Key.Key_Y, CONTROL)],
)
def test_ctrl_z_undoes_and_each_redo_key_redoes(qtbot, qtlog, active, name, key, modifiers):
    window = active
    window.workbench.toggle(1)
    assert rewards(window) == (1, 1, 0, 1)
    press(qtbot, window, Qt.Key.Key_Z, CONTROL)
    assert rewards(window) == (1, 0, 0, 1), "Ctrl+Z did not undo"
    press(qtbot, window, key, modifiers)
    assert rewards(window) == (1, 1, 0, 1), f"{name} did not redo"
    press(qtbot, window, Qt.Key.Key_Z, CONTROL)
    assert rewards(window) == (1, 0, 0, 1), "Ctrl+Z did not undo after a redo"
    assert ambiguous(qtlog) == []


def enabled_bindings(window: MainWindow) -> dict[str, list[str]]:
    """Every key an enabled action or shortcut of the window answers to, with who binds it."""
    bindings: dict[str, list[str]] = defaultdict(list)
    actions = {id(a): a for a in (*window.actions(), *window.findChildren(QAction))}
    for action in actions.values():
        if action.isEnabled() and _can_fire(action):
            for sequence in action.shortcuts():
                name = action.objectName() or action.text().replace("&", "")
                bindings[sequence.toString()].append(name)
    for shortcut in window.findChildren(QShortcut):
        sequences = shortcut.keys()  # a QShortcut's key sequences (not a dict)
        if shortcut.isEnabled():
            for sequence in sequences:
                bindings[sequence.toString()].append(f"QShortcut {sequence.toString()}")
    bindings.pop("", None)
    return bindings


def _can_fire(action: QAction) -> bool:
    """A widget's own shortcut (Copy as LaTeX in the worked math and in the token detail) fires
    only while its widget shows and has the focus: two of them on different pages never meet."""
    scoped = (Qt.ShortcutContext.WidgetShortcut, Qt.ShortcutContext.WidgetWithChildrenShortcut)
    if action.shortcutContext() not in scoped:
        return True
    parent = action.parent()
    return isinstance(parent, QWidget) and parent.isVisible()


def conflicts(window: MainWindow) -> dict[str, list[str]]:
    return {key: who for key, who in enabled_bindings(window).items() if len(who) > 1}


def test_no_key_is_bound_twice_in_the_lab_or_in_a_lesson(qtbot, qtlog, window):
    window.install_deferred_features()
    window.workbench.toggle(1)
    window.workbench.toggle(2)
    window.undo_action.trigger()  # undo and redo both enabled: their keys count too
    assert window.undo_action.isEnabled() and window.redo_action.isEnabled()
    bindings = enabled_bindings(window)
    for key in ("Ctrl+Z", "Ctrl+Shift+Z", "Ctrl+Y", "V", "F1", "PgDown"):
        assert key in bindings, key
    assert conflicts(window) == {}
    window.lessons.start("group-is-baseline")
    assert "Esc" in enabled_bindings(window)  # the lesson's keys count too
    assert conflicts(window) == {}
    window.lessons.go_to(1)  # a predict step: R reveals
    assert "R" in enabled_bindings(window)
    assert conflicts(window) == {}
    window.lessons.exit()
    assert ambiguous(qtlog) == []


def test_the_redo_action_lists_each_key_once(window):
    keys = [QKeySequence(key).toString() for key in window.redo_action.shortcuts()]
    assert keys == list(dict.fromkeys(keys))
    assert {"Ctrl+Shift+Z", "Ctrl+Y"} <= set(keys)


def test_f1_names_each_redo_key_once(window):
    (redo,) = [key for _menu, key, text in shortcut_rows(window) if text == "Redo"]
    keys = redo.split(" or ")
    assert len(keys) == len(set(keys)) and {"Ctrl+Shift+Z", "Ctrl+Y"} <= set(keys), redo


def workspace(window: MainWindow) -> str:
    """The workspace on screen, read from the page stack, and the one checked action's name."""
    page = window.pages.currentWidget()
    checked = [action.objectName() for action in window.workspace_actions if action.isChecked()]
    assert len(checked) == 1, checked
    if page is window.lab_page:
        assert checked == ["labWorkspaceAction"]
        return "lab"
    if page is window.update_page:
        assert checked == ["updateWorkspaceAction"]
        return "update"
    assert checked == ["compareAction"]
    return "compare"


def test_ctrl_u_and_ctrl_l_switch_workspaces(qtbot, qtlog, active):
    window = active
    assert workspace(window) == "lab"
    press(qtbot, window, Qt.Key.Key_U, CONTROL)
    assert workspace(window) == "update", "Ctrl+U did not show the Update step"
    assert window.update_page.isVisible()
    press(qtbot, window, Qt.Key.Key_L, CONTROL)
    assert workspace(window) == "lab", "Ctrl+L did not go back to the lab"
    press(qtbot, window, Qt.Key.Key_U, CONTROL)
    press(qtbot, window, Qt.Key.Key_U, CONTROL)
    assert workspace(window) == "lab", "Ctrl+U again did not go back to the lab"
    press(qtbot, window, Qt.Key.Key_U, CONTROL)
    press(qtbot, window, Qt.Key.Key_E, CONTROL)
    assert workspace(window) == "compare", "Ctrl+E did not show easy vs hard from Update"
    press(qtbot, window, Qt.Key.Key_U, CONTROL)
    assert workspace(window) == "update"
    press(qtbot, window, Qt.Key.Key_L, CONTROL)
    assert workspace(window) == "lab"
    assert ambiguous(qtlog) == []


def test_on_the_update_page_keys_edit_and_undo_and_none_is_bound_twice(qtbot, qtlog, active):
    window = active
    window.install_deferred_features()
    press(qtbot, window, Qt.Key.Key_U, CONTROL)
    page = window.update_page
    assert conflicts(window) == {}
    press(qtbot, window, Qt.Key.Key_2)  # card 2 of the lab: the Update rows follow
    assert page.token_rows.snapshot.rows[1].advantage > 0
    page.controls.clip_higher_button.click()
    assert window.workbench.update_settings.eps_high == pytest.approx(0.28)
    press(qtbot, window, Qt.Key.Key_Z, CONTROL)
    assert window.workbench.update_settings.eps_high == pytest.approx(0.2), "Ctrl+Z did nothing"
    assert page.controls.eps_high_spin.value() == pytest.approx(0.2)
    press(qtbot, window, Qt.Key.Key_Z, CONTROL)
    assert page.token_rows.snapshot.rows[1].advantage < 0
    assert conflicts(window) == {}
    assert ambiguous(qtlog) == []


def test_the_update_controls_mnemonics_focus_their_fields(qtbot, qtlog, active):
    """Alt + a label's underlined letter focuses its field: none is taken by a menu."""
    window = active
    window.install_deferred_features()
    press(qtbot, window, Qt.Key.Key_U, CONTROL)
    controls = window.update_page.controls
    for field in controls.fields():
        label = controls.labels[field.objectName()]
        if not field.isEnabled():
            continue
        text = label.text()
        letter = text[text.index("&") + 1].upper()
        press(qtbot, window, getattr(Qt.Key, f"Key_{letter}"), Qt.KeyboardModifier.AltModifier)
        focused = QGuiApplication.focusObject()
        owner = focused if focused is field else getattr(focused, "parent", lambda: None)()
        assert field in (focused, owner), f"Alt+{letter} ({text!r}) did not focus its field"
    assert ambiguous(qtlog) == []


def shown_workspace(window: MainWindow) -> str:
    """As ``workspace``, knowing the Training page too."""
    page = window.pages.currentWidget()
    checked = [action.objectName() for action in window.workspace_actions if action.isChecked()]
    assert len(checked) == 1, checked
    if page.objectName() == "trainingView":
        assert checked == ["trainingWorkspaceAction"]
        return "training"
    return workspace(window)


def test_ctrl_t_switches_to_the_training_run_and_back(qtbot, qtlog, active):
    window = active
    press(qtbot, window, Qt.Key.Key_T, CONTROL)
    assert shown_workspace(window) == "training", "Ctrl+T did not show the Training run"
    page = window.training_page
    assert page.isVisible() and window.windowTitle().startswith("Training run")
    press(qtbot, window, Qt.Key.Key_T, CONTROL)
    assert shown_workspace(window) == "lab", "Ctrl+T again did not go back to the lab"
    press(qtbot, window, Qt.Key.Key_T, CONTROL)
    press(qtbot, window, Qt.Key.Key_L, CONTROL)
    assert shown_workspace(window) == "lab", "Ctrl+L did not go back to the lab"
    press(qtbot, window, Qt.Key.Key_U, CONTROL)
    press(qtbot, window, Qt.Key.Key_T, CONTROL)
    assert shown_workspace(window) == "training", "Ctrl+T did not show Training from Update"
    press(qtbot, window, Qt.Key.Key_E, CONTROL)
    assert shown_workspace(window) == "compare", "Ctrl+E did not show easy vs hard from Training"
    press(qtbot, window, Qt.Key.Key_T, CONTROL)
    assert shown_workspace(window) == "training"
    press(qtbot, window, Qt.Key.Key_L, CONTROL)
    assert shown_workspace(window) == "lab"
    assert ambiguous(qtlog) == []


def test_on_the_training_page_no_key_is_bound_twice_and_a_run_plays(qtbot, qtlog, active):
    window = active
    window.install_deferred_features()
    press(qtbot, window, Qt.Key.Key_T, CONTROL)
    page = window.training_page
    bindings = enabled_bindings(window)
    for key in ("P", "S", "Ctrl+R", "PgDown"):  # the run's keys and the clicker's step
        assert key in bindings, key
    assert conflicts(window) == {}
    press(qtbot, window, Qt.Key.Key_S)
    press(qtbot, window, Qt.Key.Key_PageDown)
    assert page.state.run.step_count == 2, "S and Page Down each take one training step"
    press(qtbot, window, Qt.Key.Key_R, CONTROL)
    assert page.state.run.step_count == 0, "Ctrl+R did not reset the run"
    window.lessons.start("why-runs-stall")
    window.lessons.go_to(1)  # a training step: Page Down is the lesson's, the run's keys stay
    assert conflicts(window) == {}
    window.lessons.exit()
    press(qtbot, window, Qt.Key.Key_P)
    qtbot.waitUntil(lambda: page.state.snapshot.steps_done > 0, timeout=20_000)
    press(qtbot, window, Qt.Key.Key_P)
    assert not page.state.playing, "P did not pause the run"
    qtbot.mouseClick(page.controls.play_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: page.state.snapshot.steps_done > 0, timeout=20_000)
    press(qtbot, window, Qt.Key.Key_L, CONTROL)  # leaving pauses the run
    assert shown_workspace(window) == "lab" and not page.state.playing
    assert conflicts(window) == {}
    assert ambiguous(qtlog) == []


def test_ctrl_shift_r_starts_continuous_mode_and_plus_minus_move_a_focused_cards_reward(
    qtbot, qtlog, active
):
    window = active
    press(qtbot, window, Qt.Key.Key_R, CONTROL | SHIFT)
    assert window.state.by_hand, "Ctrl+Shift+R did not start continuous mode"
    card = window.lab.trace_grid.card(1)
    card.setFocus(Qt.FocusReason.TabFocusReason)
    qtbot.waitUntil(card.hasFocus)
    qtbot.keyClick(card, Qt.Key.Key_Plus)
    qtbot.keyClick(card, Qt.Key.Key_Plus)
    assert rewards(window)[1] == pytest.approx(0.1)
    qtbot.keyClick(card, Qt.Key.Key_Minus)
    assert rewards(window)[1] == pytest.approx(0.05)
    press(qtbot, window, Qt.Key.Key_Z, CONTROL)
    assert rewards(window)[1] == pytest.approx(0.1), "Ctrl+Z undid more than one key press"
    press(qtbot, window, Qt.Key.Key_R, CONTROL | SHIFT)
    assert not window.state.by_hand and rewards(window)[1] == 0
    assert ambiguous(qtlog) == []


def test_arrow_keys_move_the_token_selection_and_the_screen_keeps_no_old_ring(qtbot, active):
    """The token rows repaint only the rings a selection leaves and enters: on a real display
    the rows' pixels after each key must be what a full render of them draws (but for a few
    antialiased edge pixels, which the screen rounds one step apart, ring or not)."""
    window = active
    window.install_deferred_features()
    press(qtbot, window, Qt.Key.Key_U, CONTROL)
    rows = window.update_page.token_rows
    rows.setFocus()
    qtbot.waitUntil(rows.hasFocus)
    screen = QGuiApplication.primaryScreen()
    for key in (Qt.Key.Key_Right, Qt.Key.Key_Right, Qt.Key.Key_Down, Qt.Key.Key_Left):
        before = rows.selected()
        qtbot.keyClick(rows, key)
        qtbot.waitUntil(lambda before=before: rows.selected() != before)
        QGuiApplication.processEvents()
        corner = rows.mapTo(window, rows.rect().topLeft())
        shown = screen.grabWindow(
            window.winId(), corner.x(), corner.y(), rows.width(), rows.height()
        )
        apart = channel_steps(shown.toImage(), rows.grab().toImage())
        assert apart.max() <= 4, f"after {key.name}: a pixel {apart.max()} steps from the render"


def channel_steps(first: QImage, second: QImage) -> np.ndarray:
    """Per pixel, the largest difference of any colour channel between two same-size images."""
    pixels = []
    for image in (first, second):
        rgb = image.convertToFormat(QImage.Format.Format_RGB32)
        data = np.frombuffer(rgb.constBits(), np.uint8).reshape(rgb.height(), -1, 4)
        pixels.append(data[:, : rgb.width(), :3].astype(np.int16))
    assert pixels[0].shape == pixels[1].shape
    return np.abs(pixels[0] - pixels[1]).max(axis=2)


def test_a_tool_button_under_the_pointer_shows_its_hover_look_and_loses_it_after(qtbot, active):
    """The lab's chrome blits kept looks (views/common/render_cache.py); the real pointer's hover
    look
    must still show, and be gone, not kept, once the pointer leaves."""
    from PySide6.QtCore import QPoint, QRect
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QToolBar, QToolButton

    window = active
    window.install_deferred_features()
    QGuiApplication.processEvents()
    toolbar = window.findChild(QToolBar, "presetsToolbar")
    button = next(b for b in toolbar.findChildren(QToolButton) if b.text() == "Sample")
    elsewhere = window.lab.trace_grid
    QTest.mouseMove(elsewhere, elsewhere.rect().center())
    qtbot.waitUntil(lambda: not button.underMouse())
    screen = QGuiApplication.primaryScreen()

    def on_screen() -> QImage:
        QGuiApplication.processEvents()
        corner = button.mapTo(window, QPoint(0, 0))
        grabbed = screen.grabWindow(
            window.winId(), corner.x(), corner.y(), button.width(), button.height()
        )
        return grabbed.toImage()

    def rendered() -> QImage:  # the window's render there: the kept look over the tool bar
        corner = button.mapTo(window, QPoint(0, 0))
        return window.grab(QRect(corner, button.size())).toImage()

    qtbot.waitUntil(lambda: channel_steps(on_screen(), rendered()).max() <= 4)
    resting = on_screen()
    QTest.mouseMove(button, button.rect().center())
    qtbot.waitUntil(button.underMouse)
    qtbot.waitUntil(lambda: channel_steps(on_screen(), resting).max() > 16)  # the hover look
    QTest.mouseMove(elsewhere, elsewhere.rect().center())
    qtbot.waitUntil(lambda: not button.underMouse())
    qtbot.waitUntil(lambda: channel_steps(on_screen(), resting).max() <= 4)
    assert channel_steps(rendered(), resting).max() <= 4


def test_cards_repainting_only_their_advantage_lines_show_what_a_full_render_draws(qtbot, active):
    """A card whose advantage changes size but not sign repaints only its advantage lines
    (views/lab/trace_card.py): on a real display every card must still show what it draws whole."""
    window = active
    window.install_deferred_features()
    window.workbench.set_group_size(8)
    screen = QGuiApplication.primaryScreen()
    cards = window.lab.trace_grid.cards()[:8]
    for key in (Qt.Key.Key_1, Qt.Key.Key_2, Qt.Key.Key_3, Qt.Key.Key_2):
        before = rewards(window)
        press(qtbot, window, key)
        qtbot.waitUntil(lambda before=before: rewards(window) != before)
        for _ in range(3):
            QGuiApplication.processEvents()
        for card in cards:
            corner = card.mapTo(window, card.rect().topLeft())
            on_screen = screen.grabWindow(
                window.winId(), corner.x(), corner.y(), card.width(), card.height()
            )
            apart = channel_steps(on_screen.toImage(), card.grab().toImage())
            assert apart.max() <= 4, f"after {key.name}: card {card.objectName()} is stale"


def test_at_200_percent_the_experiment_dialog_opens_with_room_for_every_setting(qtbot, window):
    """Its size was 720 × 760 px at any zoom: at 200 % on this 1920 × 1080 screen Qt gave each
    setting's row about half the height its text needs (dialog_size.py)."""
    from grpo_desktop.window.experiment_dialog import open_experiment

    window.resize(1920, 1040)
    window.presentation.set_zoom(2.0, remember=False)
    dialog = open_experiment(window)
    qtbot.waitExposed(dialog)
    fields = [
        dialog.setting_combo,
        dialog.values_edit,
        dialog.algorithm_combo,
        dialog.seeds_spin,
        dialog.steps_spin,
        dialog.target_spin,
    ]
    labels = [label for label in dialog.findChildren(QLabel) if label.buddy() in fields]
    assert len(labels) == len(fields)
    squeezed = [
        (part.objectName() or part.text(), part.height(), part.minimumSizeHint().height())
        for part in fields + labels
        if part.height() < part.minimumSizeHint().height()
    ]
    assert squeezed == []
    assert dialog.frameGeometry().height() <= dialog.screen().availableGeometry().height()
    dialog.close()
    window.presentation.set_zoom(1.0, remember=False)
