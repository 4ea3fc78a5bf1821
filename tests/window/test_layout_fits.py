"""Every theme at every screen size a lecturer meets: no text clipped, the comparison fully shown.

Checked from widget geometry (offscreen there is no visible region): a text widget must fit its
own text and lie inside each ancestor up to the nearest scroll area, whose content may scroll.
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import QRect, QSize
from PySide6.QtWidgets import QAbstractButton, QAbstractScrollArea, QApplication, QLabel, QWidget

from grpo_desktop.window.main_window import MainWindow

SIZES = ((1024, 768), (1280, 800), (1920, 1080), (3840, 2160))
THEMES = ("light", "dark", "projector")
# The development loop (`pytest -m "not slow"`) keeps the laptop's 1280x800 in the light theme;
# every other size and theme of the sweep is marked slow, and CI runs them all.
LAPTOP = (1280, 800)


def sizes(*chosen: tuple[int, int]) -> list:
    """``chosen`` as parameters named like 1280x800; all but the laptop's are slow."""
    slow = pytest.mark.slow
    return [
        pytest.param(size, id=f"{size[0]}x{size[1]}", marks=() if size == LAPTOP else slow)
        for size in chosen
    ]


def themes(*chosen: str) -> list:
    """``chosen`` as parameters; all but the light theme are slow."""
    return [
        pytest.param(theme, marks=() if theme == "light" else pytest.mark.slow) for theme in chosen
    ]


def shown(widget: QWidget) -> bool:
    return widget.isVisibleTo(widget.window()) and widget.width() > 0 and widget.height() > 0


def clipped_by_ancestor(widget: QWidget) -> QWidget | None:
    """The first ancestor (below a scroll area) whose rectangle does not contain ``widget``."""
    rect = QRect(widget.mapTo(widget.window(), widget.rect().topLeft()), widget.size())
    parent = widget.parentWidget()
    while parent is not None and parent is not widget.window():
        if isinstance(parent.parentWidget(), QAbstractScrollArea):
            return None  # inside a scroll area's viewport: the content may scroll
        outer = QRect(parent.mapTo(parent.window(), parent.rect().topLeft()), parent.size())
        if not outer.contains(rect):
            return parent
        parent = parent.parentWidget()
    window_rect = widget.window().rect()
    return None if window_rect.contains(rect) else widget.window()


def text_overflow(label: QLabel) -> str | None:
    """Why ``label`` cannot show all of its text at its size, or None."""
    text = label.text()
    if not text or label.property("elides"):
        return None
    room = label.contentsRect()
    if label.wordWrap():
        needed = label.heightForWidth(label.width())
        return f"needs {needed} px high, has {label.height()}" if needed > label.height() else None
    hint = label.sizeHint()  # the text's size plus the label's contents margins
    if hint.width() > label.width() + 1 or label.fontMetrics().height() > room.height() + 1:
        return f"needs {hint.width()}×{label.fontMetrics().height()}, has {room.size().toTuple()}"
    return None


def problems_on_screen(window: MainWindow) -> list[str]:
    found = []
    for widget in window.findChildren(QWidget):
        if not isinstance(widget, (QLabel, QAbstractButton)) or not shown(widget):
            continue
        name = widget.objectName() or type(widget).__name__
        text = widget.text()[:30]
        ancestor = clipped_by_ancestor(widget)
        if ancestor is not None:
            found.append(f"{name} {text!r} sticks out of {ancestor.objectName() or ancestor}")
        if isinstance(widget, QLabel) and (why := text_overflow(widget)):
            found.append(f"{name} {text!r} {why}")
    return found


@pytest.mark.parametrize("theme", themes(*THEMES))
@pytest.mark.parametrize("size", sizes(*SIZES))
def test_no_text_is_clipped_in_the_lab(sized, size, theme):
    window = sized(size, theme)
    assert window.size().toTuple() == size, "the window must not grow past its screen"
    assert problems_on_screen(window) == []


@pytest.mark.parametrize("theme", themes(*THEMES))
@pytest.mark.parametrize("size", sizes(*SIZES))
def test_the_comparison_fits_and_shows_each_charts_whole_range(sized, size, theme):
    window = sized(size, theme)
    window.show_compare(True)
    QApplication.processEvents()
    assert problems_on_screen(window) == []
    page = window.compare_page
    # What shows in the page: a combo box's hidden popup list is not part of it.
    inner = [
        area
        for area in page.findChildren(QAbstractScrollArea)
        if area is not page and area.isVisible()
    ]
    assert len(inner) >= 2, "the two labs' worked math, at least"
    for area in inner:
        bars = area.verticalScrollBar(), area.horizontalScrollBar()
        assert all(bar.maximum() == 0 for bar in bars), f"{area.objectName()} scrolls in the page"
    for pane in window.easy, window.hard:
        low, high = pane.chart.getPlotItem().viewRange()[1]
        values = [card.advantage for card in pane.state.snapshot.cards]
        assert low <= min(values) and high >= max(values), (low, high, values)
    if size < (1280, 800):
        return  # a small screen may scroll the whole page (one scroll area, never nested)
    assert page.verticalScrollBar().maximum() == 0, "the comparison does not fit the window"
    page_rect = QRect(page.mapTo(window, page.rect().topLeft()), page.size())
    for pane in window.easy, window.hard:
        for widget in (pane.chart, *pane.trace_grid.cards()[: pane.state.group_size]):
            rect = QRect(widget.mapTo(window, widget.rect().topLeft()), widget.size())
            assert page_rect.contains(rect), f"{widget.objectName()} is not fully on screen"


def chart_part_rect(chart, item) -> QRect:
    """A chart item's rectangle in the chart's own coordinates."""
    return chart.mapFromScene(item.sceneBoundingRect()).boundingRect()


@pytest.mark.parametrize("theme", themes("light", "projector"))
@pytest.mark.parametrize("size", sizes(*SIZES))
def test_the_comparisons_degenerate_banner_stays_off_the_charts_axes(sized, size, theme):
    """Easy vs hard with an all-correct easy group: the banner floats in the plot's data area,
    styled as a banner, and covers neither axis nor their numbers."""
    window = sized(size, theme)
    window.show_compare(True)
    easy = window.easy
    window.workbench.toggle(4, easy.state)  # 1, 1, 1, 1, 1: every answer right
    for _ in range(3):
        QApplication.processEvents()
    assert easy.state.snapshot.stats.degenerate and easy.banner.isVisible()
    assert problems_on_screen(window) == []
    chart, banner = easy.chart, easy.banner
    plot = chart.getPlotItem()
    where = banner.geometry()
    room = chart_part_rect(chart, plot.vb).height()
    if where.height() + 2 * banner.FLOAT_MARGIN > room:
        pytest.skip(f"the chart's plot area is {room} px tall: no room to float clear of it")
    assert chart.rect().contains(where)
    assert chart_part_rect(chart, plot.vb).contains(where), "the banner leaves the plot area"
    for side in ("left", "bottom"):
        axis = chart_part_rect(chart, plot.getAxis(side))
        assert not axis.intersects(where), f"the banner covers the {side} axis"
    # Drawn as a banner (its fill), though its object name carries the pane's prefix.
    fill = banner.grab().toImage().pixelColor(6, banner.height() // 2)
    assert fill.name() == window.theme.banner_fill.lower(), fill.name()


@pytest.mark.parametrize("theme", themes(*THEMES))
@pytest.mark.parametrize("size", sizes(*SIZES))
def test_every_toolbar_action_is_on_the_toolbar_not_behind_its_overflow(sized, size, theme):
    window = sized(size, theme)
    for action in window.toolbar.actions():
        if action.isSeparator():
            continue
        button = window.toolbar.widgetForAction(action)
        assert button is not None and button.isVisible(), f"{action.text()!r} is hidden"


@pytest.mark.parametrize("theme", themes(*THEMES))
@pytest.mark.parametrize("size", sizes(*SIZES[2:]))
def test_the_worked_math_is_shown_whole_on_a_large_screen(sized, size, theme):
    window = sized(size, theme)
    panel = window.math_panel
    document_height = panel.document().size().height()
    assert document_height <= panel.viewport().height(), "the worked math is cut off"


@pytest.mark.parametrize("theme", themes(*THEMES))
@pytest.mark.parametrize("lesson_id", ["group-is-baseline", "same-formula-two-groups"])
def test_every_lesson_step_is_fully_visible_at_1280x800(sized, lesson_id, theme):
    window = sized((1280, 800), theme)
    window.lessons.start(lesson_id)
    for index in range(window.lessons.step_count):
        window.lessons.go_to(index)
        QApplication.processEvents()
        where = f"step {index + 1}"
        assert problems_on_screen(window) == [], where
        page = window.pages.currentWidget()
        if isinstance(page, QAbstractScrollArea):
            assert page.verticalScrollBar().maximum() == 0, f"{where} scrolls"
    window.lessons.exit()


@pytest.mark.parametrize("theme", themes(*THEMES))
@pytest.mark.parametrize("zoom", [1.5, 2.0, pytest.param(3.0, marks=pytest.mark.slow)])
def test_a_zoomed_window_on_a_1280x800_screen_keeps_its_size_and_clips_no_text(sized, zoom, theme):
    window = sized((1280, 800), theme)
    # The offscreen screen is 800x800: fit the zoom to a 1280x800 screen, as on a laptop.
    window.presentation.fit_to(QSize(1280, 800))
    window.presentation.set_zoom(zoom, remember=False)
    window.resize(1280, 800)
    QApplication.processEvents()
    try:
        assert window.size().toTuple() == (1280, 800)
        assert problems_on_screen(window) == []
    finally:
        window.presentation.set_zoom(1.0, remember=False)
        window.presentation.fit_to(None)


# --- the Update workspace -------------------------------------------------------------------

UPDATE_THEMES = ("light", "projector")
PLOT_MIN_PX = 150  # bars and axes a room can read, under the chart's title, caption and legend


def window_rect(widget: QWidget) -> QRect:
    return QRect(widget.mapTo(widget.window(), widget.rect().topLeft()), widget.size())


def overlapping(widgets) -> list[str]:
    """Pairs of shown widgets whose rectangles intersect."""
    shown_ones = [widget for widget in widgets if shown(widget)]
    found = []
    for index, first in enumerate(shown_ones):
        for second in shown_ones[index + 1 :]:
            if window_rect(first).intersects(window_rect(second)):
                found.append(f"{first.objectName()} overlaps {second.objectName()}")
    return found


def squeezed(widgets) -> list[str]:
    """Shown widgets smaller than their own minimum size (a layout had to cut them)."""
    found = []
    for widget in widgets:
        if not shown(widget):
            continue
        least = widget.minimumSize()
        if widget.minimumHeight() == 0 and not widget.hasHeightForWidth():
            least = least.expandedTo(QSize(0, widget.minimumSizeHint().height()))
        if widget.height() < least.height() or widget.width() < least.width():
            name = widget.objectName() or type(widget).__name__
            found.append(f"{name} is {widget.size().toTuple()}, needs {least.toTuple()}")
    return found


def update_page_problems(window: MainWindow, ringed: QWidget | None = None) -> list[str]:
    page = window.update_page
    assert window.pages.currentWidget() is page and page.isVisible()
    controls = page.controls
    found = problems_on_screen(window)
    parts = (page.note, page.status, page.numbers, page.rows, page.right_column)
    found += overlapping(parts)
    found += overlapping((controls, page.chart, page.detail))
    found += overlapping((*controls.fields(), *controls.labels.values()))
    found += overlapping(
        (*controls.fields(), controls.length_bias_button, controls.clip_higher_button)
    )
    found += squeezed(
        (*parts, controls, page.chart, page.chart.plot_widget, page.detail, page.token_rows)
    )
    found += squeezed((*controls.fields(), controls.length_bias_button))
    if page.chart.plot_widget.height() < PLOT_MIN_PX:
        found.append(f"the push chart's plot is {page.chart.plot_widget.height()} px tall")
    # The controls are on screen without scrolling: the column opens at its top. In a lesson
    # that rings the chart or the detail, that part is what must be in view instead.
    viewport = page.right_column.viewport()
    seen = window_rect(viewport)
    in_view = (*controls.fields(), controls.length_bias_button, controls.clip_higher_button)
    if ringed is not None and ringed in (page.chart, page.detail):
        in_view = (ringed,)
    for widget in in_view:
        if not shown(widget) or not seen.contains(window_rect(widget)):
            found.append(f"{widget.objectName()} is not visible in the right column")
    page_rect = window_rect(page)
    for widget in parts:
        if not page_rect.contains(window_rect(widget)):
            found.append(f"{widget.objectName()} sticks out of the page")
    return found


def show_update_page(window: MainWindow) -> None:
    window.workbench.set_workspace("update")
    for _ in range(3):
        QApplication.processEvents()


@pytest.mark.parametrize("theme", themes(*UPDATE_THEMES))
@pytest.mark.parametrize("size", sizes(*SIZES))
def test_the_update_page_fits_every_screen(sized, size, theme):
    window = sized(size, theme)
    show_update_page(window)
    assert window.size().toTuple() == size, "the Update page must not grow the window"
    assert update_page_problems(window) == []
    # The right column is wide enough for the compact form (labels beside their fields).
    assert window.update_page.controls.layout_mode() == "beside"
    if size >= (1280, 800):  # a laptop or larger: the whole column shows, nothing scrolls
        assert window.update_page.right_column.verticalScrollBar().maximum() == 0


@pytest.mark.parametrize("theme", themes(*UPDATE_THEMES))
@pytest.mark.parametrize("size", sizes(*SIZES))
def test_the_update_page_fits_with_a_token_selected_and_the_length_bias_group(
    sized, qtbot, size, theme
):
    window = sized(size, theme)
    show_update_page(window)
    page = window.update_page
    page.state.select(1, 2)
    page.controls.length_bias_button.click()
    for _ in range(3):
        QApplication.processEvents()
    assert page.detail.computation() is not None and len(page.token_rows.snapshot.rows) == 2
    assert window.size().toTuple() == size
    assert update_page_problems(window) == []
    if size >= (1280, 800):  # the token's ∂loss/∂logp reads without scrolling the detail
        assert gradient_in_view(page.detail), "∂loss/∂logp needs scrolling to reach"


def gradient_in_view(detail) -> bool:
    """Whether the detail's first "∂loss/∂logp" and its value show in its viewport as it is."""
    found = detail.document().find("∂loss/∂logp")
    if found.isNull():
        return False
    found.movePosition(found.MoveOperation.EndOfBlock)  # the line's end: the value
    line = detail.cursorRect(found)
    return detail.viewport().rect().contains(line)


@pytest.mark.parametrize("theme", themes(*UPDATE_THEMES))
def test_the_update_page_at_200_percent_on_a_1280x800_screen(sized, theme):
    window = sized((1280, 800), theme)
    window.presentation.fit_to(QSize(1280, 800))
    window.presentation.set_zoom(2.0, remember=False)
    lab_zoom = window.presentation.shown_zoom  # what the lab shows of 200 % on this screen
    window.presentation.set_zoom(1.0, remember=False)
    show_update_page(window)
    window.presentation.set_zoom(2.0, remember=False)
    window.resize(1280, 800)
    for _ in range(3):
        QApplication.processEvents()
    try:
        assert window.size().toTuple() == (1280, 800)
        assert window.presentation.shown_zoom >= lab_zoom, "the Update page stepped the zoom down"
        assert update_page_problems(window) == []
    finally:
        window.presentation.set_zoom(1.0, remember=False)
        window.presentation.fit_to(None)


@pytest.mark.parametrize("size", sizes((1024, 768), LAPTOP))
def test_having_shown_the_update_page_changes_nothing_in_the_lab(sized, size):
    """Every page of the stack counts towards the window's minimum: the Update page's must not
    grow the window or step the zoom down once the lecturer goes back to the lab."""
    window = sized(size, "projector")
    window.presentation.fit_to(QSize(*size))
    zoom = window.presentation.shown_zoom
    show_update_page(window)
    window.workbench.set_workspace("lab")
    window.presentation.fit_to(QSize(*size))
    window.resize(*size)
    QApplication.processEvents()
    try:
        assert window.presentation.shown_zoom == zoom
        assert window.size().toTuple() == size
        assert problems_on_screen(window) == []
    finally:
        window.presentation.fit_to(None)


@pytest.mark.parametrize("theme", themes(*UPDATE_THEMES))
def test_every_step_of_the_length_bias_lesson_fits_at_1280x800(sized, theme):
    window = sized((1280, 800), theme)
    window.lessons.start("update-step-length-bias")
    for index in range(window.lessons.step_count):
        window.lessons.go_to(index)
        for _ in range(10):  # the step's layout, then the ring's scroll, each a posted event
            QApplication.processEvents()
        where = f"step {index + 1}"
        assert window.size().toTuple() == (1280, 800), where
        if window.pages.currentWidget().objectName() == "updateView":
            step = window.lessons.lesson.steps[index]
            ringed = window.highlight_target(step.highlight)
            assert update_page_problems(window, ringed) == [], where
            if theme == "light":  # the projector's larger type may scroll the right column
                assert window.update_page.right_column.verticalScrollBar().maximum() == 0, where
        else:
            assert problems_on_screen(window) == [], where
    window.lessons.exit()


# --- the Training workspace -----------------------------------------------------------------

TRAINING_PLOT_MIN_PX = 120  # each chart over steps: lines and axes a room can follow
FRONTIER_MIN_PX = 180  # the frontier's curves, their labels and the dots (the column may scroll)


def training_page_problems(window: MainWindow) -> list[str]:
    """What is wrong with the Training page as shown: clipped text, overlaps, squeezed parts,
    short plots, parts outside the page. Its side column (controls over the frontier) may
    scroll on a short screen; the controls are then in view at its top."""
    page = window.training_page
    assert window.pages.currentWidget() is page and page.isVisible()
    controls, charts, frontier, groups = page.controls, page.charts, page.frontier, page.groups
    found = [
        line
        for line in problems_on_screen(window)
        # A legend label's right margin is the gap to the next entry, not room for its text.
        if not (line.startswith("trainingLegend_") and legend_text_fits(window, line))
    ]
    left = (page.status, charts, groups)
    side = (controls, frontier)
    found += overlapping((page.note, *left, page.side_column))
    found += overlapping(side)
    # The run's buttons sit above the side column: the form's fields scroll under them.
    run_buttons = (controls.play_button, controls.step_button, controls.reset_button)
    form = tuple(field for field in controls.fields() if field not in run_buttons)
    found += overlapping((*form, *controls.labels.values()))
    found += overlapping(run_buttons)
    found += overlapping((*form, controls.progress))
    found += overlapping((charts.pass_title, *charts.plots(), charts.metric_title))
    found += overlapping((frontier.title, frontier.plot_widget, frontier.caption))
    found += overlapping((groups.heading, groups.list))
    found += squeezed((page.note, *left, *side, *charts.plots(), frontier.plot_widget, groups.list))
    found += squeezed((*controls.fields(), controls.step_button, controls.reset_button))
    for plot in charts.plots():
        if plot.height() < TRAINING_PLOT_MIN_PX:
            found.append(f"{plot.objectName()} is {plot.height()} px tall")
    if frontier.plot_widget.height() < FRONTIER_MIN_PX:
        found.append(f"the frontier's plot is {frontier.plot_widget.height()} px tall")
    page_rect = window_rect(page)
    for widget in (page.note, *left, page.side_column, *charts.plots(), groups.list):
        if not shown(widget):
            found.append(f"{widget.objectName()} is not shown")
        elif not page_rect.contains(window_rect(widget)):
            found.append(f"{widget.objectName()} sticks out of the page")
    seen = window_rect(page.side_column.viewport())
    for widget in (controls, *controls.fields()):
        if widget not in run_buttons and (
            not shown(widget) or not seen.contains(window_rect(widget))
        ):
            found.append(f"{widget.objectName()} is not visible in the side column")
    found += run_buttons_hidden(window)
    if not shown(frontier.plot_widget):
        found.append("the frontier is not shown")
    return found


def run_buttons_hidden(window: MainWindow) -> list[str]:
    """Play, Step and Reset are on screen, above the side column (never scrolled with it)."""
    page, controls = window.training_page, window.training_page.controls
    found = []
    for button in (controls.play_button, controls.step_button, controls.reset_button):
        if not shown(button) or not window_rect(page).contains(window_rect(button)):
            found.append(f"{button.objectName()} is not on screen")
        elif page.side_column.isAncestorOf(button):
            found.append(f"{button.objectName()} scrolls with the side column")
    return found


def legend_text_fits(window: MainWindow, line: str) -> bool:
    name = line.split(" ", 1)[0]
    label = window.training_page.charts.findChild(QLabel, name)
    margins = label.contentsMargins()
    needed = label.sizeHint().width() - margins.left() - margins.right()
    return needed <= label.contentsRect().width() + 1 and (
        label.fontMetrics().height() <= label.contentsRect().height() + 1
    )


def side_scrolls(window: MainWindow) -> bool:
    return window.training_page.side_column.verticalScrollBar().maximum() > 0


def show_training_page(window: MainWindow, steps: int = 0, selected: int | None = None) -> None:
    window.workbench.set_workspace("training")
    page = window.training_page
    if steps:
        page.state.run.run(steps)
        page.state.step_once()  # the run moved on: shown once, as a step does
    if selected is not None:
        page.state.select_step(selected)
    for _ in range(3):
        QApplication.processEvents()


@pytest.mark.parametrize("theme", themes(*UPDATE_THEMES))
@pytest.mark.parametrize("size", sizes(*SIZES))
def test_the_training_page_fits_every_screen(sized, size, theme):
    window = sized(size, theme)
    show_training_page(window)
    assert window.size().toTuple() == size, "the Training page must not grow the window"
    assert training_page_problems(window) == []
    if size >= (1280, 800):  # a laptop or larger: the whole side column shows, nothing scrolls
        assert not side_scrolls(window)


@pytest.mark.parametrize("theme", themes(*UPDATE_THEMES))
@pytest.mark.parametrize("size", sizes(*SIZES))
def test_the_training_page_fits_mid_run_with_a_steps_groups_listed(sized, size, theme):
    window = sized(size, theme)
    show_training_page(window, steps=79, selected=40)
    page = window.training_page
    assert page.state.snapshot.steps_done == 80 and page.groups.list.count() == 8
    assert window.size().toTuple() == size
    assert training_page_problems(window) == []
    assert page.groups.visible_lines >= 3
    assert page.groups.shown_lines() == page.groups.visible_lines, "half a row shows"
    if size >= (3840, 2160):  # a large screen shows the list as a laptop does, its text larger
        base = QApplication.instance().property("grpoBasePointSize")
        assert page.groups.list.font().pointSizeF() >= 2 * base
    if size >= (1280, 800):
        assert not side_scrolls(window)


@pytest.mark.parametrize("theme", themes(*UPDATE_THEMES))
def test_the_training_page_at_200_percent_on_a_1280x800_screen(sized, theme):
    window = sized((1280, 800), theme)
    window.presentation.fit_to(QSize(1280, 800))
    window.presentation.set_zoom(2.0, remember=False)
    lab_zoom = window.presentation.shown_zoom
    window.presentation.set_zoom(1.0, remember=False)
    show_training_page(window, steps=79, selected=40)
    window.presentation.set_zoom(2.0, remember=False)
    window.resize(1280, 800)
    for _ in range(3):
        QApplication.processEvents()
    try:
        assert window.size().toTuple() == (1280, 800)
        assert window.presentation.shown_zoom >= lab_zoom, "the Training page stepped the zoom down"
        assert training_page_problems(window) == []
        # The side column scrolls here; scrolled down, the frontier's plot is whole in view.
        column = window.training_page.side_column
        column.verticalScrollBar().setValue(column.verticalScrollBar().maximum())
        QApplication.processEvents()
        plot = window.training_page.frontier.plot_widget
        assert window_rect(column.viewport()).contains(window_rect(plot))
    finally:
        window.presentation.set_zoom(1.0, remember=False)
        window.presentation.fit_to(None)


@pytest.mark.parametrize("size", sizes((1024, 768), LAPTOP))
def test_having_shown_the_training_page_changes_nothing_in_the_lab(sized, size):
    """Every page of the stack counts towards the window's minimum: the Training page's must
    not grow the window or step the zoom down once the lecturer goes back to the lab."""
    window = sized(size, "projector")
    window.presentation.fit_to(QSize(*size))
    zoom = window.presentation.shown_zoom
    show_training_page(window, steps=10, selected=5)
    window.workbench.set_workspace("lab")
    window.presentation.fit_to(QSize(*size))
    window.resize(*size)
    QApplication.processEvents()
    try:
        assert window.presentation.shown_zoom == zoom
        assert window.size().toTuple() == size
        assert problems_on_screen(window) == []
    finally:
        window.presentation.fit_to(None)


@pytest.mark.parametrize("theme", themes(*UPDATE_THEMES))
def test_the_stall_lessons_run_buttons_stay_in_view_at_1024x768(sized, theme):
    """Scrolled to a ringed frontier, the side column took Play, Step and Reset out of view."""
    window = sized((1024, 768), theme)
    window.lessons.start("why-runs-stall")
    for index in range(window.lessons.step_count):
        window.lessons.go_to(index)
        for _ in range(10):
            QApplication.processEvents()
        if window.lessons.step.is_training:
            assert run_buttons_hidden(window) == [], f"step {index + 1}"
    window.lessons.exit()


@pytest.mark.parametrize("theme", themes(*UPDATE_THEMES))
def test_every_step_of_the_stall_lesson_fits_at_1280x800(sized, theme):
    """The lesson bar above the Training page: a training step still fits a laptop screen."""
    window = sized((1280, 800), theme)
    window.lessons.start("why-runs-stall")
    for index in range(window.lessons.step_count):
        window.lessons.go_to(index)
        for _ in range(10):  # the step's layout, then the ring's scroll, each a posted event
            QApplication.processEvents()
        where = f"step {index + 1}"
        assert window.size().toTuple() == (1280, 800), where
        if window.lessons.step.is_training:
            # A ringed frontier is scrolled into view (on a short screen the controls above
            # it then scroll out of the side column); any other ring leaves the controls at
            # the column's top.
            ringed = window.highlight_target(window.lessons.step.highlight)
            column = window.training_page.side_column
            found = training_page_problems(window)
            if column.widget().isAncestorOf(ringed) and ringed is not window.training_page.controls:
                found = [line for line in found if "not visible in the side column" not in line]
                view, part = window_rect(column.viewport()), window_rect(ringed)
                # A part taller than the column shows its top (the Update page's rule too).
                fits = (
                    view.contains(part)
                    if part.height() <= view.height()
                    else (view.top() <= part.top() <= view.top() + view.height() // 4)
                )
                if not fits:
                    found.append(f"the ringed {ringed.objectName()} is not in view")
            assert found == [], where
        else:
            assert problems_on_screen(window) == [], where
    window.lessons.exit()
