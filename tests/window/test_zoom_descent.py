"""The zoom shown when the one asked for does not fit: the same as stepping down one zoom at a time
from the top, in fewer relayouts (``window.zoom_descent`` and ``StageControls.apply``)."""

from __future__ import annotations

import itertools

import pytest
from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import QApplication

from grpo_desktop.model.settings import ZOOM_MAX, ZOOM_MIN
from grpo_desktop.window import stage_controls
from grpo_desktop.window.stage_controls import ZOOM_STEP, StageControls, screen_scale_for
from grpo_desktop.window.zoom_descent import largest_fitting_zoom, zoom_for_room, zoom_ladder


def step_by_step(ladder, fits, guess, start=0):
    """The plain descent: each zoom from the top until one fits (the last is shown anyway)."""
    for zoom in ladder:
        if fits(zoom) or zoom == ladder[-1]:
            return zoom
    raise AssertionError("unreachable: the last zoom is always shown")


REQUESTED = [round(ZOOM_MIN + ZOOM_STEP * i, 2) for i in range(10)]


def test_the_ladder_steps_down_to_the_smallest_zoom():
    assert zoom_ladder(2.0, ZOOM_STEP, ZOOM_MIN) == [2.0, 1.75, 1.5, 1.25, 1.0, 0.75]
    assert zoom_ladder(ZOOM_MIN, ZOOM_STEP, ZOOM_MIN) == [ZOOM_MIN]
    assert zoom_ladder(0.9, ZOOM_STEP, ZOOM_MIN) == [0.9, ZOOM_MIN]
    assert zoom_ladder(ZOOM_MAX, ZOOM_STEP, ZOOM_MIN)[-2:] == [1.0, ZOOM_MIN]


@pytest.mark.parametrize("requested", REQUESTED)
def test_every_answer_and_every_guess_give_the_step_by_step_zoom(requested):
    """Every place fitting can start, with every guess (right, off by any number of steps, out
    of the ladder, none): the zoom found is the plain descent's, and it is the last applied."""
    ladder = zoom_ladder(requested, ZOOM_STEP, ZOOM_MIN)
    guesses = [None, 0.1, 9.0, *ladder, *(zoom + 0.1 for zoom in ladder)]
    for first_fitting, first_guess, later_guess, start in itertools.product(
        range(len(ladder) + 1), guesses, [None, ladder[0], ZOOM_MIN, "true"], range(len(ladder))
    ):
        fitting = set(ladder[first_fitting:])
        expected = step_by_step(ladder, fitting.__contains__, None)
        applied = []

        def fits(zoom, fitting=fitting, applied=applied):
            applied.append(zoom)
            return zoom in fitting

        def guess(failed, applied=applied, first=first_guess, later=later_guess, true=expected):
            if len(applied) == 1:
                return first
            return true if later == "true" else later

        found = largest_fitting_zoom(ladder, fits, guess, start)
        case = (ladder, first_fitting, first_guess, later_guess, start, applied)
        assert found == expected, case
        assert applied[-1] == found, case
        assert len(applied) <= len(ladder) + 3, case


def test_a_right_guess_takes_the_step_above_it_and_itself():
    ladder = zoom_ladder(3.0, ZOOM_STEP, ZOOM_MIN)
    applied = []

    def fits(zoom):
        applied.append(zoom)
        return zoom <= 1.5

    assert largest_fitting_zoom(ladder, fits, lambda failed: 1.5) == 1.5
    assert applied == [3.0, 1.75, 1.5]  # the step-by-step descent tries seven


def test_a_guess_one_step_low_halves_the_steps_above_it():
    ladder = zoom_ladder(3.0, ZOOM_STEP, ZOOM_MIN)
    applied = []

    def fits(zoom):
        applied.append(zoom)
        return zoom <= 1.75

    assert largest_fitting_zoom(ladder, fits, lambda failed: 1.5) == 1.75
    assert applied == [3.0, 1.75, 2.5, 2.0, 1.75]  # the step-by-step descent tries six


def test_the_guess_is_where_the_room_needed_meets_the_room():
    # One zoom too large: shrunk by the room missing (the height here: 1000 px for 800).
    assert zoom_for_room({2.5: (700, 1000)}, (800, 800)) == pytest.approx(2.0)
    # Two: along the line through them, in each dimension that does not fit.
    assert zoom_for_room({2.5: (700, 1000), 2.25: (650, 900)}, (800, 800)) == pytest.approx(2.0)
    assert zoom_for_room({3.0: (1000, 700), 2.0: (900, 700)}, (800, 800)) == pytest.approx(1.0)
    # A need that does not shrink with the zoom gives no line: the ratio stands in.
    assert zoom_for_room({2.5: (700, 1000), 2.0: (700, 1000)}, (800, 800)) == pytest.approx(1.6)


# --- on the window: the same zoom, screen scale and size as the plain descent ---------------


def plain_descent(monkeypatch) -> None:
    """StageControls as it was: each zoom from the top in turn."""
    monkeypatch.setattr(stage_controls, "largest_fitting_zoom", step_by_step)


def zoom_through(window, zooms) -> list[tuple]:
    """What each zoom shows: the zoom, the screen scale, the window's size and the font."""
    shown = []
    for zoom in zooms:
        window.presentation.set_zoom(zoom, remember=False)
        QApplication.processEvents()
        shown.append(
            (
                zoom,
                window.presentation.shown_zoom,
                window.presentation.screen_scale,
                window.size().toTuple(),
                QApplication.font().pointSizeF(),
            )
        )
    return shown


def shown_by_both(sized, monkeypatch, size, theme, workspace, group_size, zooms, fit):
    """The zooms run through on two windows made alike: the plain descent's, then the new."""
    results = []
    for plain in (True, False):
        with monkeypatch.context() as patch:
            if plain:
                plain_descent(patch)
            window = sized(size, theme, group_size)
            if workspace != "lab":
                window.workbench.set_workspace(workspace)
                for _ in range(3):
                    QApplication.processEvents()
            window.presentation.fit_to(QSize(*size) if fit else None)
            results.append(zoom_through(window, zooms))
            window.presentation.set_zoom(1.0, remember=False)
            window.close()
    return results


# Each case a window in a different situation: a laptop, a small screen with a large group, the
# screen scale above 1 on the Update page and on a projector, and the 800×800 offscreen screen.
GRID = [
    ((1280, 800), "light", "lab", 4, True),
    ((1024, 768), "projector", "lab", 16, True),
    ((1920, 1080), "light", "update", 4, True),
    ((2560, 1600), "projector", "lab", 4, True),
    ((1280, 800), "projector", "update", 4, False),
]


@pytest.mark.slow
@pytest.mark.parametrize(("size", "theme", "workspace", "group_size", "fit"), GRID, ids=str)
def test_every_screen_theme_and_workspace_shows_the_plain_descents_zoom(
    sized, monkeypatch, size, theme, workspace, group_size, fit
):
    """From the top, from a zoom already too large, and back down: the same zoom, screen scale,
    window size and font as the plain descent, step for step."""
    plain, new = shown_by_both(
        sized, monkeypatch, size, theme, workspace, group_size, [3.0, 2.25, 2.75], fit
    )
    assert new == plain
    wanted = screen_scale_for(QSize(*size))
    stepped_down = [row for row in new if row[1] < row[0] or row[2] < wanted]
    assert stepped_down, "neither a zoom nor a screen scale was too large"


def test_zooming_in_past_the_fit_lays_the_window_out_a_few_times_not_once_per_step(
    qtbot, window, monkeypatch
):
    """Ctrl+= to 275 % on the 800×800 offscreen screen shows 150 %: stepping down one zoom at a
    time laid the window out six times (275, 250, …, 150). The window fills the room, so the zoom
    found at 250 % is checked with the step above it, which not fitting rules out every larger
    zoom: two layouts."""
    applied = []
    apply_zoom = StageControls._apply_zoom
    monkeypatch.setattr(
        StageControls,
        "_apply_zoom",
        lambda self, *args: applied.append(args[1]) or apply_zoom(self, *args),
    )
    window.presentation.set_zoom(2.5, remember=False)
    first = list(applied)
    applied.clear()
    qtbot.keyClick(window, Qt.Key.Key_Equal, Qt.KeyboardModifier.ControlModifier)
    assert window.presentation.zoom == 2.75
    assert window.presentation.shown_zoom == 1.5
    assert applied == [1.75, 1.5]
    assert len(first) <= 5, first  # found without a last answer: five layouts, not six
