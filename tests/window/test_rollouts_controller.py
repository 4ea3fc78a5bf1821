"""File ▸ Open rollouts…: reading a run (with progress when slow), bad files, a group to the Lab."""

from __future__ import annotations

import time

from PySide6.QtCore import QTimer
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QPushButton
from rollout_files import needs_pyarrow, write_trl, write_verl

from grpo_desktop.core.runs import rollouts
from grpo_desktop.core.runs.rollouts import RolloutError
from grpo_desktop.window import rollouts_controller


def lab_state(window) -> tuple:
    return (window.state.snapshot, window.undo_stack.count(), window.workbench.workspace)


def test_file_menu_offers_open_rollouts_on_a_key_nothing_else_uses(window):
    window.install_deferred_features()
    files = [action.objectName() for action in window.file_menu.actions()]
    assert {"openRolloutsAction", "openRolloutsFolderAction", "rolloutsBrowserAction"} <= set(files)
    assert window.rollouts.open_action.shortcut() == QKeySequence("Ctrl+Shift+O")
    for key, name in (
        ("Ctrl+Shift+O", "openRolloutsAction"),
        ("Ctrl+Shift+B", "rolloutsBrowserAction"),
    ):
        owners = {
            action.objectName()
            for action in window.findChildren(QAction)
            if QKeySequence(key) in action.shortcuts()
        }
        assert owners == {name}


def test_opening_a_verl_folder_shows_the_browser_with_its_steps(window, tmp_path, monkeypatch):
    folder = write_verl(tmp_path / "run")
    monkeypatch.setattr(window.rollouts, "ask_folder", lambda: str(folder))
    before = lab_state(window)
    window.rollouts.open_folder_action.trigger()
    browser = window.rollouts.browser
    assert browser.isVisible()
    assert browser.steps_list.count() == 2 and browser.model.rowCount() == 3
    assert window.rollouts.browser_action.isEnabled()
    assert lab_state(window) == before  # browsing changes nothing until a group is chosen


def test_opening_one_step_file_through_the_file_dialog(window, tmp_path, monkeypatch):
    path = write_verl(tmp_path / "run") / "2.jsonl"
    monkeypatch.setattr(window.rollouts, "ask_file", lambda: str(path))
    window.rollouts.open_action.trigger()
    assert [step.step for step in window.rollouts.source.steps] == [2]
    assert window.rollouts.browser.step_title.text() == "Step 2 · 2.jsonl"


def test_cancelling_the_file_dialog_does_nothing(window, monkeypatch, errors):
    monkeypatch.setattr(window.rollouts, "ask_file", lambda: None)
    assert window.rollouts.open_file_dialog() is False
    assert window.rollouts.source is None and errors == []


def test_a_bad_file_shows_one_message_naming_it_and_leaves_the_lab_untouched(
    window, tmp_path, errors
):
    path = write_verl(tmp_path / "run") / "1.jsonl"
    text = path.read_text(encoding="utf-8")
    cut = text.index("\n", len(text) // 2) + 30  # mid-line, like a run that crashed writing
    path.write_text(text[:cut], encoding="utf-8")
    before = lab_state(window)
    assert window.rollouts.open_path(path) is False
    assert len(errors) == 1 and errors[0].startswith("1.jsonl: line ")
    assert lab_state(window) == before
    assert window.rollouts.source is None and not window.rollouts.browser_action.isEnabled()


def test_a_bad_file_after_a_good_one_keeps_the_good_one_in_the_browser(window, tmp_path, errors):
    good = write_verl(tmp_path / "good")
    assert window.rollouts.open_path(good)
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"input": "<b>x</b>", "output": "y", "score": "high"}\n', encoding="utf-8")
    assert window.rollouts.open_path(bad) is False
    assert len(errors) == 1 and "bad.jsonl" in errors[0]
    assert window.rollouts.source.path == good
    assert window.rollouts.browser.steps_list.count() == 2


def test_the_error_box_shows_the_message_as_plain_text(window):
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QMessageBox

    window.rollouts.show_error("<b>1.jsonl</b>: line 3 is not JSON")
    box = window.rollouts.error_box
    assert isinstance(box, QMessageBox) and box.isVisible()  # shown, nothing waits on it
    assert box.textFormat() == Qt.TextFormat.PlainText
    assert box.text() == "<b>1.jsonl</b>: line 3 is not JSON"
    box.close()


def test_choosing_a_group_hands_it_to_the_workbench_and_steps_aside(
    window, tmp_path, opened, qtbot
):
    window.rollouts.open_path(write_verl(tmp_path / "run"))
    browser = window.rollouts.browser
    browser.select_step(1)
    browser.select_group(1)
    browser.open_button.click()
    assert len(opened) == 1
    group = opened[0]
    assert (group.step, group.group_index, group.rewards) == (1, 1, (1.0, 0.0, 0.0, 1.0))
    assert group.texts[0] == "step 1 q 1 answer 0: 2"
    assert not browser.isVisible()  # the Lab shows the group
    assert "Step 1 · group 2 of 3" in window.statusBar().currentMessage()
    window.rollouts.browser_action.trigger()  # and the browser comes back as it was
    assert browser.isVisible() and browser.selected_group() == 1


def test_a_group_the_lab_cannot_hold_shows_the_reason_and_opens_nothing(
    window, tmp_path, opened, errors
):
    folder = write_verl(tmp_path / "run", {5: [[1.0], [0.0, 1.0]]})  # a group of one answer
    window.rollouts.open_path(folder)
    assert window.rollouts.open_group(5, 0) is False
    assert opened == [] and len(errors) == 1 and "1 answers" in errors[0]
    assert window.rollouts.open_group(5, 1) is True


@needs_pyarrow
def test_a_trl_file_opens_and_its_groups_carry_the_logged_advantages(
    window, tmp_path, opened, errors
):
    path = write_trl(tmp_path / "completions")
    assert window.rollouts.open_path(path)
    browser = window.rollouts.browser
    assert "TRL convention" in browser.convention.text()
    window.rollouts.open_group(10, 0)
    assert errors == [] and opened[0].logged_advantages is not None


def slow_reader(seconds: float, calls: list[float]):
    """An ``open_rollouts`` that takes ``seconds``, reporting progress as the real one does."""

    def read(path, progress=None):
        start = time.monotonic()
        while (elapsed := time.monotonic() - start) < seconds:
            calls.append(elapsed)
            if progress is not None:
                progress(elapsed / seconds)
            time.sleep(0.02)
        raise RolloutError(f"{path.name}: finished (the fake reader loads nothing)")

    return read


def test_a_slow_read_shows_progress_keeps_the_window_painting_and_can_be_cancelled(
    window, tmp_path, monkeypatch, errors
):
    calls: list[float] = []
    monkeypatch.setattr(rollouts, "open_rollouts", slow_reader(8.0, calls))
    seen = {}
    ticks = []
    heartbeat = QTimer(window)
    heartbeat.timeout.connect(lambda: ticks.append(time.monotonic()))
    heartbeat.start(50)

    def look_and_cancel() -> None:
        dialog = window.rollouts.progress_dialog
        seen["at"] = time.monotonic()
        seen["visible"] = dialog.isVisible()
        seen["value"] = dialog.value()
        dialog.findChild(QPushButton).click()  # its Cancel button

    QTimer.singleShot(1600, look_and_cancel)
    started = time.monotonic()
    assert window.rollouts.open_path(tmp_path / "big.jsonl") is False
    heartbeat.stop()
    # A loaded machine only makes each moment later, so the bounds are read from the clock, not
    # fixed: the reader takes 8 s, and the progress it reported cannot be ahead of the look.
    assert time.monotonic() - started < 8.0  # cancelled, not read to the end
    assert seen["visible"]
    looked_after = seen["at"] - started
    assert 100 < seen["value"] <= 1000 * looked_after / 8.0 + 1  # per mille of the 8 s read
    assert errors == [] and window.rollouts.source is None
    # The event loop ran all along (the window kept painting): the 50 ms heartbeat ticked again
    # and again while the reader read, before the cancel. A blocked loop ticks not at all before
    # the read ends; a quiet machine ticks about 30 times, a loaded one as few as 2 (it once
    # failed a "more than 15" here, the main thread starved for most of the 1.6 s).
    assert len([t for t in ticks if t < seen["at"]]) >= 2
    assert "cancelled" in window.statusBar().currentMessage()


def test_a_quick_read_never_shows_the_progress_dialog(window, tmp_path, monkeypatch):
    shown = []
    monkeypatch.setattr(
        rollouts_controller.QProgressDialog, "showEvent", lambda self, event: shown.append(1)
    )
    # A small run reads in milliseconds; on a machine loaded by the whole suite the reader's
    # thread was once descheduled past the one second, and the dialog rightly showed. The
    # dialog's wait is the same mechanism at any length: ten seconds keeps the test about it.
    monkeypatch.setattr(rollouts_controller, "SHOW_PROGRESS_AFTER_MS", 10_000)
    started = time.monotonic()
    assert window.rollouts.open_path(write_verl(tmp_path / "run"))
    assert time.monotonic() - started < 10
    assert shown == []


def test_the_progress_dialog_waits_one_second_before_it_shows(window, tmp_path):
    window.rollouts.open_path(write_verl(tmp_path / "run"))
    assert window.rollouts.progress_dialog.minimumDuration() == 1000


def test_the_browser_follows_the_projector_theme(window, tmp_path):
    window.rollouts.open_path(write_verl(tmp_path / "run"))
    before = window.rollouts.browser.table.font().pointSizeF()
    window.presentation.set_theme("projector", remember=False)
    assert window.rollouts.browser.table.font().pointSizeF() > before


def test_each_file_menu_entry_has_its_own_mnemonic(window):
    window.install_deferred_features()
    letters = []
    for action in window.file_menu.actions():
        text = action.text()
        if "&" in text:
            letters.append(text[text.index("&") + 1].lower())
    assert len(letters) == len(set(letters)), letters


def test_a_chosen_group_shows_in_the_lab_as_one_undo_step(window, tmp_path):
    window.workbench.set_workspace("update")
    window.rollouts.open_path(write_verl(tmp_path / "run"))
    before = window.undo_stack.count()
    browser = window.rollouts.browser
    browser.select_step(2)
    browser.select_group(1)
    browser.open_button.click()
    assert window.workbench.workspace == "lab"
    assert window.state.recorded is not None and window.state.recorded.step == 2
    assert tuple(window.state.snapshot.rewards) == (0.0, 1.0, 1.0, 1.0)
    assert window.undo_stack.count() == before + 1
    window.undo_stack.undo()
    assert window.state.recorded is None
