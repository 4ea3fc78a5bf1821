"""Test set-up: Qt renders offscreen, and nothing touches the user's real settings or home."""

import os
import sys

# Must run before anything imports Qt: with no display and no platform set, Qt aborts pytest.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest


@pytest.fixture(autouse=True)
def private_home(tmp_path_factory, monkeypatch):
    """Each test gets its own empty home, config and data folders and its own QSettings file."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / ".local" / "share"))
    monkeypatch.setenv("XDG_STATE_HOME", str(home / ".local" / "state"))
    from PySide6.QtCore import QSettings

    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(home / ".config"))
    return home


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item):
    """Once a test is torn down (pytest-qt's close and its fixtures first), the windows it gave
    pytest-qt are retired (``qt_retire``): left as they were, every later zoom or theme change
    re-laid out all of them."""
    registered = [ref for ref, _before_close in getattr(item, "qt_widgets", ())]
    result = yield
    if registered:
        from qt_retire import retire

        for ref in registered:
            widget = ref()
            if widget is not None:
                retire(widget)
    return result


# views/common/fonts.py SCREEN_SCALE_PROPERTY (not imported: no Qt)
SCREEN_SCALE = "grpoScreenScale"


@pytest.fixture(autouse=True)
def application_look_restored():
    """Zoom and themes set the application's font and palette; each test gets them back as it
    found them, so a test that zooms to 200 % cannot shrink or grow every later test's window.
    Nothing is imported here: a test that never loads Qt stays free of it."""
    widgets = sys.modules.get("PySide6.QtWidgets")
    app = widgets.QApplication.instance() if widgets is not None else None
    saved = (
        (widgets.QApplication.font(), widgets.QApplication.palette(), app.property(SCREEN_SCALE))
        if app
        else None
    )
    yield
    if saved is not None and widgets.QApplication.instance() is app:
        widgets.QApplication.setFont(saved[0])
        widgets.QApplication.setPalette(saved[1])
        app.setProperty(SCREEN_SCALE, saved[2])


@pytest.fixture(autouse=True)
def no_mouse_button_left_held():
    """A test that presses a button must release it: Qt keeps the button held for the whole
    process, and a later test's window then waits for the drag to end (its prebuild did)."""
    yield
    gui = sys.modules.get("PySide6.QtGui")
    if gui is not None and gui.QGuiApplication.instance() is not None:
        held = gui.QGuiApplication.mouseButtons()
        assert held == held.NoButton, f"the test left {held} held"


@pytest.fixture(autouse=True)
def no_blocking_prompts(monkeypatch):
    """Closing a window with unsaved changes asks a modal question; tests answer 'discard'.

    Tests of the prompt itself override ``ask_keep_changes`` again.
    """
    from grpo_desktop.window.scenario_files import ScenarioFiles

    monkeypatch.setattr(ScenarioFiles, "ask_keep_changes", lambda self: "discard")


@pytest.fixture(scope="session")
def lesson_worksheets():
    """Every shipped lesson's worksheet, built once per test process: the training lessons run
    the toy run (about 4 s of CPU), and two test modules read the same frozen worksheets."""
    from grpo_desktop.core.files.lessons import load_lessons
    from grpo_desktop.core.files.worksheet import build_worksheet

    return {lesson.id: build_worksheet(lesson) for lesson in load_lessons()}


@pytest.fixture
def window(qtbot):
    """The lab window as a user first sees it, shown at 1280×800.

    Afterwards the application font and palette (which zoom and themes change) are put back,
    and the undo stack is marked clean so closing never waits on the unsaved-changes question.
    """
    from PySide6.QtGui import QGuiApplication, QPalette
    from PySide6.QtWidgets import QApplication

    from grpo_desktop.window.main_window import MainWindow

    base_font = QGuiApplication.font()
    main_window = MainWindow()
    qtbot.addWidget(main_window)
    main_window.resize(1280, 800)
    with qtbot.waitExposed(main_window):
        main_window.show()
    yield main_window
    main_window.undo_stack.setClean()
    QApplication.setFont(base_font)
    QApplication.setPalette(QPalette())
