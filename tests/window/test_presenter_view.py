"""View ▸ Presenter view (F5, --presenter): the room's window without chrome, the lecturer's
console with the lesson's notes, the next step and a timer; keys from either; closing either ends
it. (Two screens: tests/xcb/presenter_checks.py under Xvfb.)"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QShortcut
from PySide6.QtWidgets import QApplication

from grpo_desktop.core.files.lessons import get_lesson
from grpo_desktop.window.presenter_view import elapsed_text


def start(window):
    window.presenter_action.trigger()
    QApplication.processEvents()
    return window.presenter.console


def test_f5_hides_the_rooms_chrome_and_opens_the_console(window):
    assert window.presenter_action.shortcut().toString() == "F5"
    console = start(window)
    assert window.presenter.active and window.presenter_action.isChecked()
    assert not window.menuBar().isVisible() and not window.statusBar().isVisible()
    assert console.isVisible() and console.step_label.text() == "No lesson is running"
    window.presenter_action.trigger()
    QApplication.processEvents()
    assert not window.presenter.active and not window.presenter_action.isChecked()
    assert window.menuBar().isVisible() and window.statusBar().isVisible()


def test_the_console_follows_the_lesson_with_its_notes_and_the_next_step(window):
    console = start(window)
    console.start_requested.emit("group-is-baseline")
    lesson = get_lesson("group-is-baseline")
    assert console.notes.text() == lesson.steps[0].notes
    assert console.next_label.text() == f"Next: {lesson.steps[1].title}"
    assert console.on_screen.text().startswith("On screen: Four sampled answers")
    assert "<b>" not in console.on_screen.text()
    console.next_button.click()
    assert window.lessons.step_index == 1
    assert console.step_label.text().endswith(f"step 2 of 7: {lesson.steps[1].title}")
    assert console.reveal_button.isEnabled()  # a predict step
    console.reveal_button.click()
    assert not window.workbench.advantages_hidden
    for label in (console.notes, console.on_screen, console.step_label, console.next_label):
        assert label.textFormat() == Qt.TextFormat.PlainText


def test_every_key_of_the_room_works_from_the_console(window):
    console = start(window)
    assert set(window.actions()) <= set(console.actions())
    keys = {shortcut.key().toString() for shortcut in window.findChildren(QShortcut)}
    twins = {shortcut.key().toString() for shortcut in console.findChildren(QShortcut)}
    assert keys and keys <= twins
    before = window.state.snapshot.rewards
    twin = next(s for s in console.findChildren(QShortcut) if s.key().toString() == "2")
    twin.activated.emit()
    assert window.state.snapshot.rewards != before


def test_closing_the_console_or_the_main_window_ends_the_view(window, qtbot):
    console = start(window)
    console.close()
    QApplication.processEvents()
    assert not window.presenter.active and window.menuBar().isVisible()
    start(window)
    window.undo_stack.setClean()
    window.close()
    qtbot.waitUntil(lambda: not window.presenter.active, timeout=2000)


def test_the_ringed_part_gets_the_larger_share_of_the_lab(window):
    start(window)
    page = window.lab_page
    window.presenter.console.start_requested.emit("group-is-baseline")
    window.lessons.go_to(1)  # rings the cards
    QApplication.processEvents()
    cards, right = page.lab_splitter.sizes()
    assert cards > 2 * right
    window.presenter.stop()
    cards, right = page.lab_splitter.sizes()
    assert cards < 2 * right


def test_the_clock_reads_like_a_clock():
    assert [elapsed_text(s) for s in (0, 65, 3725)] == ["0:00", "1:05", "1:02:05"]
