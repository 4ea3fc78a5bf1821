"""The Update and Training pages are built in idle time after the window shows, and nothing a
user sees changes: the lab stays on screen, the hidden run neither plays nor steps, the undo
stack stays empty, a key or a held mouse button pauses the work, and a switch shows the page
the prebuild made, laid out as a page built by the key would be.

No test here measures time (``benchmarks/bench_first_switch.py`` does); waits are for what the
window does, with generous timeouts.
"""

from __future__ import annotations

import itertools

import pyqtgraph as pg
import pytest
from PySide6.QtCore import QPoint, QProcess, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QSplitter, QWidget
from workspaces import assert_showing, ctrl

from grpo_desktop.core.training.policy_choice import PolicyChoice
from grpo_desktop.model.workbench import LAB, TRAINING, UPDATE
from grpo_desktop.views.lab.trace_card import TraceCard
from grpo_desktop.window import idle_prebuild
from grpo_desktop.window.idle_prebuild import PREBUILD_ENV, prebuild_enabled
from grpo_desktop.window.lm_training_page import LMTrainingPage
from grpo_desktop.window.main_window import MainWindow
from grpo_desktop.window.training_page import TrainingPage
from grpo_desktop.window.update_page import UpdatePage

DONE_MS = 60_000  # the prebuild's whole work on a loaded machine, with room to spare


def prebuilt(qtbot, window: MainWindow) -> None:
    qtbot.waitUntil(lambda: window.prebuild.done, timeout=DONE_MS)


def shown_window(qtbot, size=(1280, 800)) -> MainWindow:
    window = MainWindow()
    qtbot.addWidget(window)
    window.resize(*size)
    with qtbot.waitExposed(window):
        window.show()
    return window


def test_after_the_window_idles_the_update_and_training_pages_are_built_unseen(qtbot, window):
    hint = window.statusBar().currentMessage()
    title = window.windowTitle()
    prebuilt(qtbot, window)
    built = window.built_pages
    assert set(built) == {LAB, UPDATE, TRAINING}
    assert isinstance(built[UPDATE], UpdatePage) and isinstance(built[TRAINING], TrainingPage)
    assert not built[UPDATE].isVisible() and not built[TRAINING].isVisible()
    assert_showing(window, LAB)  # the page, the model, the menu, the bar and the title agree
    assert window.statusBar().currentMessage() == hint
    assert window.windowTitle() == title
    assert window.prebuild.slices, "the work was done in steps"
    names = [name for name, _ in window.prebuild.slices]
    assert names.index("push chart: theme") < names.index("update page in the stack")
    update_step = names.index("grpo_desktop.core.update.update_step")
    for module in ("update_settings", "update_snapshot", "standin_policy"):
        assert names.index(f"grpo_desktop.core.update.{module}") < update_step, "a step each"
    assert names.index("token detail") < names.index("controls: fields and layout")
    assert names.index("controls: fields and layout") < names.index("controls: theme")
    for chart in ("push chart", "spill-over chart"):
        parts = [name for name in names if name.startswith(f"{chart}: ")]
        assert len(parts) >= 4, f"the {chart}'s plot in parts"
    charts = [index for index, name in enumerate(names) if name.startswith("charts: ")]
    assert len(charts) >= 8, "each plot of the charts in parts"
    assert max(charts) < names.index("training page in the stack")


def test_the_hidden_run_neither_plays_nor_steps_and_the_undo_stack_stays_empty(qtbot, window):
    prebuilt(qtbot, window)
    state = window.states.training
    assert state.run.step_count == 0 and not state.playing
    assert state.snapshot.steps_done == 0
    assert not window.states.gate(TRAINING).shown and not window.states.gate(UPDATE).shown
    assert window.undo_stack.count() == 0 and window.undo_stack.isClean()
    assert not window.isWindowModified()


def test_a_switch_shows_the_page_the_prebuild_built_and_it_renders_the_lab_as_it_is_now(
    qtbot, window
):
    prebuilt(qtbot, window)
    update_page = window.built_pages[UPDATE]
    window.request_toggle(0)  # the lab changes while the Update page waits hidden
    ctrl(qtbot, window, Qt.Key.Key_U)
    assert_showing(window, UPDATE)
    assert window.pages.currentWidget() is update_page and update_page.isVisible()
    snapshot = window.states.update.snapshot
    assert update_page.status.text() == snapshot.status
    assert update_page.state.snapshot.rows[0].correct == window.state.snapshot.cards[0].correct
    training_page = window.built_pages[TRAINING]
    ctrl(qtbot, window, Qt.Key.Key_T)
    assert_showing(window, TRAINING)
    assert window.pages.currentWidget() is training_page and training_page.isVisible()
    assert window.undo_stack.count() == 1  # the toggle, nothing of the prebuild's


def splitter_sizes(page) -> dict[str, list[int]]:
    return {splitter.objectName(): splitter.sizes() for splitter in page.findChildren(QSplitter)}


@pytest.mark.parametrize("workspace", [UPDATE, TRAINING])
def test_a_prebuilt_page_is_laid_out_as_a_page_built_when_asked_for(qtbot, monkeypatch, workspace):
    prebuilt_window = shown_window(qtbot)
    prebuilt(qtbot, prebuilt_window)
    monkeypatch.setenv(PREBUILD_ENV, "0")
    lazy_window = shown_window(qtbot)
    for window in (prebuilt_window, lazy_window):  # two windows: one is active, so no keys
        window.workspace_action[workspace].trigger()
        assert_showing(window, workspace)
    for _ in range(5):  # the pages' own after-resize balancing runs in later turns
        QApplication.processEvents()
    assert lazy_window.built_pages.keys() == {LAB, workspace}  # built by the switch
    prebuilt_page = prebuilt_window.pages.currentWidget()
    lazy_page = lazy_window.pages.currentWidget()
    assert prebuilt_page.geometry() == lazy_page.geometry()
    assert splitter_sizes(prebuilt_page) == splitter_sizes(lazy_page)
    assert prebuilt_page.status.text() == lazy_page.status.text()


def test_the_prebuild_takes_no_step_while_the_typesetting_thread_works(qtbot, monkeypatch):
    """A step beside the typesetting thread shares the GIL with it (twice as long): the steps
    wait until its jobs are back, then build as before."""
    answers = iter([True] * 5)
    steps_taken_when_asked: list[int] = []

    def typesetting_busy() -> bool:
        steps_taken_when_asked.append(len(window.prebuild.slices))
        return next(answers, False)

    monkeypatch.setattr(idle_prebuild, "typesetting_busy", typesetting_busy)
    window = shown_window(qtbot)
    prebuilt(qtbot, window)
    assert steps_taken_when_asked[:6] == [0] * 6  # five turns put off, then the first step


def test_a_typesetting_thread_that_never_ends_holds_the_prebuild_back_only_so_long(
    qtbot, monkeypatch
):
    monkeypatch.setattr(idle_prebuild, "typesetting_busy", lambda: True)
    monkeypatch.setattr(idle_prebuild, "TYPESETTER_WAITS", 3)
    window = shown_window(qtbot)
    prebuilt(qtbot, window)
    assert window.prebuild.done


def widget_geometries(page) -> dict[tuple[int, str], tuple[int, int, int, int]]:
    """Where each widget of ``page`` stands (hidden ones too: a splitter handle among them;
    not a combo box's popup, a window of its own laid out when it first opens)."""
    return {
        (index, f"{type(widget).__name__}:{widget.objectName()}"): widget.geometry().getRect()
        for index, widget in enumerate(page.findChildren(QWidget))
        if widget.window() is page.window()
    }


@pytest.mark.parametrize("workspace", [UPDATE, TRAINING])
def test_the_first_switch_to_a_prebuilt_page_moves_and_resizes_none_of_its_widgets(
    qtbot, window, workspace
):
    """The prebuild lays a page out as its showing will: a splitter part hidden while the page
    was (Update's spillover chart) kept its handle in the prebuild, so the first Ctrl+U
    resized the token rows by the handle's 4 px and laid out and painted the page again."""
    prebuilt(qtbot, window)
    page = window.built_pages[workspace]
    before = widget_geometries(page)
    window.workspace_action[workspace].trigger()
    assert_showing(window, workspace)
    for _ in range(5):
        QApplication.processEvents()
    after = widget_geometries(page)
    assert {key: rect for key, rect in after.items() if before.get(key) != rect} == {}


def axis_pictures(page) -> dict[tuple[str, str], object]:
    """Each plot's axes' drawings on ``page`` (pyqtgraph keeps one until the axis moves)."""
    return {
        (view.objectName(), axis.orientation): axis.picture
        for view in page.findChildren(pg.PlotWidget)
        for axis in (view.getPlotItem().getAxis(side) for side in ("left", "bottom"))
    }


def test_the_training_pages_plots_are_painted_as_they_stand_so_the_switch_draws_no_axis_again(
    qtbot, window
):
    """An axis sizes itself to the labels it draws: its plot is painted again once its layout
    has moved, so the switch's first paint replays the axes' drawings (a prebuild that left
    them drawn at the old size had the switch draw them again, move them and paint twice)."""
    prebuilt(qtbot, window)
    page = window.built_pages[TRAINING]
    before = axis_pictures(page)
    assert before and all(picture is not None for picture in before.values())
    ctrl(qtbot, window, Qt.Key.Key_T)
    assert_showing(window, TRAINING)
    for _ in range(5):
        QApplication.processEvents()
    after = axis_pictures(page)
    assert {key: after[key] is picture for key, picture in before.items()} == dict.fromkeys(
        before, True
    )


def test_the_tool_bar_keeps_its_height_when_the_training_run_hides_the_lab_controls(qtbot, window):
    bar = window.group_size_tool.parent()
    pages_height = window.pages.height()
    height = bar.height()
    ctrl(qtbot, window, Qt.Key.Key_T)
    QApplication.processEvents()
    assert not window.group_size_spin.isVisible()  # the run has its own G box
    assert bar.height() == height and window.pages.height() == pages_height
    ctrl(qtbot, window, Qt.Key.Key_T)  # back to the lab
    QApplication.processEvents()
    assert window.group_size_spin.isVisible()
    assert bar.height() == height and window.pages.height() == pages_height


def test_a_held_mouse_button_pauses_the_prebuild_and_it_goes_on_after(qtbot, window, monkeypatch):
    monkeypatch.setattr(idle_prebuild, "RESUME_AFTER_MS", 50)
    card = window.findChild(TraceCard, "traceCard0")
    centre = QPoint(card.width() // 2, card.height() // 2)
    QTest.mousePress(card, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, centre)
    assert QApplication.mouseButtons() & Qt.MouseButton.LeftButton
    assert window.prebuild.running  # started when the window showed, not yet done
    steps = len(window.prebuild.slices)
    qtbot.wait(idle_prebuild.START_AFTER_MS + 600)  # past its start: it would have begun
    assert len(window.prebuild.slices) == steps and not window.prebuild.done
    QTest.mouseRelease(card, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, centre)
    prebuilt(qtbot, window)
    assert window.built_pages.keys() == {LAB, UPDATE, TRAINING}


def test_a_key_pauses_the_prebuild_until_the_user_is_quiet(qtbot, window, monkeypatch):
    monkeypatch.setattr(idle_prebuild, "RESUME_AFTER_MS", 600_000)  # quiet for ten minutes
    prebuild = window.prebuild
    qtbot.waitUntil(lambda: bool(prebuild.slices), timeout=DONE_MS)  # begun
    QTest.keyClick(window, Qt.Key.Key_Right)
    assert prebuild.running
    steps = len(prebuild.slices)
    qtbot.wait(idle_prebuild.START_AFTER_MS + 600)
    assert len(prebuild.slices) == steps and prebuild.running and not prebuild.done


def test_a_switch_in_the_middle_of_a_build_finishes_that_page_at_once(qtbot, window):
    window.prebuild.stop()
    steps = window.workspaces[UPDATE].build_steps()
    while next(steps) != "push chart: plot item":  # half a chart made, not yet in the stack
        pass
    assert UPDATE not in window.built_pages
    ctrl(qtbot, window, Qt.Key.Key_U)
    assert_showing(window, UPDATE)
    page = window.update_page
    assert page.isVisible() and page.status.text() == window.states.update.snapshot.status
    assert list(steps) == []  # nothing left of the build
    assert len(window.pages.findChildren(UpdatePage)) == 1  # one page, not a second one


def test_a_theme_changed_during_a_build_is_the_theme_of_the_page(qtbot, window):
    window.prebuild.stop()
    steps = window.workspaces[TRAINING].build_steps()
    while next(steps) != "frontier: theme":  # the frontier built in the theme shown then
        pass
    light = window.theme
    window.presentation.set_theme("dark", remember=False)
    assert window.theme.muted != light.muted
    for _ in steps:
        pass
    page = window.built_pages[TRAINING]
    assert window.theme.muted in page.note.styleSheet()


def test_with_the_tiny_model_chosen_its_page_is_built_and_no_worker_starts(qtbot, window):
    window.workbench.apply_policy(PolicyChoice("tinylm"))
    prebuilt(qtbot, window)
    page = window.built_pages[TRAINING]
    assert isinstance(page, LMTrainingPage) and not page.isVisible()
    assert window.states.lm_training.worker_pid is None
    assert window.findChildren(QProcess) == []
    assert window.states.training_run() is None  # the toy run was never made
    assert window.undo_stack.count() == 0


def test_prebuild_off_builds_no_page_until_its_key(qtbot, monkeypatch):
    monkeypatch.setenv(PREBUILD_ENV, "0")
    assert not prebuild_enabled()
    window = shown_window(qtbot)
    qtbot.wait(idle_prebuild.START_AFTER_MS + 600)
    assert window.built_pages.keys() == {LAB} and not window.prebuild.running
    ctrl(qtbot, window, Qt.Key.Key_T)
    assert_showing(window, TRAINING)


def test_a_window_never_shown_builds_nothing(qtbot):
    window = MainWindow()
    qtbot.addWidget(window)
    qtbot.wait(idle_prebuild.START_AFTER_MS + 600)
    assert window.built_pages.keys() == {LAB} and not window.prebuild.running


def test_a_closed_window_stops_building(qtbot, window):
    window.close()
    qtbot.wait(idle_prebuild.START_AFTER_MS + 600)
    assert not window.prebuild.running and not window.prebuild.done
    assert window.built_pages.keys() == {LAB}


def test_a_window_closed_before_its_features_install_installs_none(qtbot, window):
    window.close()  # painted, its features due 150 ms after
    qtbot.wait(idle_prebuild.AFTER_FIRST_PAINT_MS + 300)
    assert window.lessons is None and window.export_actions is None


def test_a_window_closed_while_its_features_install_installs_no_more(qtbot, window):
    """The typesetter's import, the last part, went on after the window had gone."""
    window.prebuild.after_first_paint.emit()  # the first part now, the next in a later turn
    assert window.export_actions is not None and window.lessons is None
    window.close()
    qtbot.wait(idle_prebuild.AFTER_FIRST_PAINT_MS + 300)
    assert window.lessons is None


def test_a_page_the_user_opened_first_is_kept_and_the_prebuild_does_the_other(qtbot, window):
    ctrl(qtbot, window, Qt.Key.Key_U)
    page = window.update_page
    ctrl(qtbot, window, Qt.Key.Key_U)  # back to the lab
    assert_showing(window, LAB)
    prebuilt(qtbot, window)
    assert window.built_pages[UPDATE] is page
    names = [name for name, _ in window.prebuild.slices]
    assert "update page in the stack" not in names and "paint updateView" not in names
    assert "training page in the stack" in names


def test_a_tall_large_part_is_painted_in_bands_and_a_small_one_whole(qtbot):
    from PySide6.QtWidgets import QWidget

    tall = QWidget()
    qtbot.addWidget(tall)
    tall.resize(600, 500)
    bands = idle_prebuild._bands(tall)
    assert len(bands) == 4 and all(widget is tall for widget, _ in bands)
    rects = [band for _, band in bands]
    assert rects[0].top() == 0 and rects[-1].bottom() == 499, "the whole height, once"
    assert all(a.bottom() + 1 == b.top() for a, b in itertools.pairwise(rects))
    assert all(r.width() == 600 and r.height() <= idle_prebuild.PAINT_BAND_PX for r in rects)
    for size in ((600, 150), (40, 700)):  # short, or tall but narrow (a splitter handle)
        small = QWidget()
        qtbot.addWidget(small)
        small.resize(*size)
        assert idle_prebuild._bands(small) == [(small, None)]


def test_the_update_pages_token_rows_are_painted_in_bands_ahead(qtbot, window, monkeypatch):
    monkeypatch.setattr(idle_prebuild, "PAINT_STEP_WIDGETS", 0)  # a piece a step: each named
    prebuilt(qtbot, window)
    names = [name for name, _ in window.prebuild.slices]
    bands = [name for name in names if "tokenRowsScroll (" in name]
    assert len(bands) >= 2 and "(0–160 px)" in bands[0], names


def test_the_deferred_features_wait_for_the_first_paint_however_late_it_comes(qtbot):
    """Lessons, exports and the typesetting install 150 ms after the window first paints: a
    window built long before it shows (a slow machine, a long start-up) paints first."""
    from PySide6.QtCore import QEvent, QObject

    window = MainWindow()
    qtbot.addWidget(window)
    qtbot.wait(400)  # more than the 150 ms, before any paint
    assert window.lessons is None and window.export_actions is None

    order: list[str] = []

    class FirstPaint(QObject):
        def eventFilter(self, watched, event):  # Qt override
            if event.type() == QEvent.Type.Paint and not order:
                order.append("painted")
            return False

    watcher = FirstPaint(window)
    window.installEventFilter(watcher)
    window.prebuild.after_first_paint.connect(lambda: order.append("features"))
    window.show()
    qtbot.waitUntil(lambda: window.lessons is not None, timeout=DONE_MS)
    assert order == ["painted", "features"]


def test_the_features_install_once_however_often_the_window_paints_while_it_builds(qtbot):
    """The steps' application-wide filter sees the window's later paints too: each one had set
    the deferred features installing again 150 ms later (the chrome's looks cached again, the
    right column balanced again) for as long as clicks kept the prebuild waiting."""
    window = MainWindow()
    qtbot.addWidget(window)
    emitted: list[int] = []
    window.prebuild.after_first_paint.connect(lambda: emitted.append(1))
    window.show()
    qtbot.waitUntil(lambda: window.prebuild.running and window.prebuild._watching, timeout=DONE_MS)
    for _ in range(5):
        QTest.mouseClick(window.lab.trace_grid.card(1), Qt.MouseButton.LeftButton)  # it waits
        window.repaint()
        qtbot.wait(40)
    qtbot.wait(400)
    assert emitted == [1]


def test_the_rest_of_a_page_is_painted_a_batch_of_pieces_a_step_in_one_render_each(
    qtbot, window, monkeypatch
):
    """Each render of a hidden page lays the whole window out first: the pieces beside the
    plots go in batches of at most PAINT_STEP_WIDGETS widgets, one render of the page each
    (a grab per piece spent most of its time laying out), and the graphics views are grabbed
    on their own."""
    from PySide6.QtWidgets import QWidget

    renders: list[tuple[str, int]] = []
    grabs: list[str] = []
    real_render, real_grab = QWidget.render, QWidget.grab

    def render(widget, *args, **kwargs):
        if widget.objectName() in ("trainingView", "updateView"):  # the pages, not the caches
            renders.append((widget.objectName(), len(window.prebuild.slices)))
        return real_render(widget, *args, **kwargs)

    def grab(widget, *args, **kwargs):
        grabs.append(widget.objectName())
        return real_grab(widget, *args, **kwargs)

    monkeypatch.setattr(QWidget, "render", render)
    monkeypatch.setattr(QWidget, "grab", grab)
    prebuilt(qtbot, window)
    names = [name for name, _ in window.prebuild.slices]
    training = [name for name in names if name.startswith("paint trainingView: ")]
    assert training, names
    assert [page for page, _ in renders].count("trainingView") == len(training)
    assert len({step for _, step in renders}) == len(renders), "one render a step"
    assert set(grabs) <= {
        "trainingPassPlot",
        "trainingMetricPlot",
        "frontierPlotArea",
        "pushChartPlot",
        "spilloverPlot",
    } | {name.removeprefix("paint ").split(" again")[0] for name in names}
    pieces = sum(
        1 + int(name.split(" and ")[1].split()[0]) if " and " in name else 1 for name in training
    )
    assert pieces > len(training), "several pieces to a render"
