"""The zoom a window shows when the one asked for does not fit: the largest step down that does.

Trying a zoom is a relayout of the whole window (about 0.1 s of CPU on a slow machine), so the
steps are not tried one at a time from the top. Fitting is monotone in the zoom (a smaller zoom
needs no more room), so the answer is the one zoom that fits while the step above it does not:
the search starts at a guess (the last answer in the same setting, or the room a failed try
measured), checks the step above it and the guess itself, moves up a step when the guess was low,
and halves the steps left when it is lost. The answer is the one stepping down a zoom at a time
would give, in fewer tries (``tests/window/test_zoom_descent.py`` compares the two).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence


def zoom_ladder(requested: float, step: float, lowest: float) -> list[float]:
    """The zooms tried when ``requested`` does not fit, largest first: down by ``step`` to
    ``lowest`` (shown whether it fits or not), each rounded to the hundredth as the setting is."""
    zooms = [requested]
    while zooms[-1] > lowest:
        zooms.append(max(lowest, round(zooms[-1] - step, 2)))
    return zooms


def largest_fitting_zoom(
    ladder: Sequence[float],
    fits: Callable[[float], bool],
    guess: Callable[[float], float | None],
) -> float:
    """The first zoom of ``ladder`` that fits, as trying each from the top would find it.

    ``fits(zoom)`` applies ``zoom`` and says whether the window fits; the ladder's last zoom is
    shown whether it fits or not. ``guess(zoom)`` is asked after ``zoom`` did not fit: the zoom
    likely to be the answer, or None. The zoom returned is the last one applied.
    """
    if fits(ladder[0]) or len(ladder) == 1:
        return ladder[0]
    # Indices into the ladder: the smallest zoom known not to fit, the largest known to fit.
    failing, fitting = 0, len(ladder) - 1
    target = _index_of(ladder, guess(ladder[0]))
    last_tried = 0
    while fitting - failing > 1:
        if target is not None and failing < target - 1:
            trial = target - 1  # the step above the guess: expected not to fit
        elif target is not None and target < fitting:
            trial = target
        else:
            trial = (failing + fitting) // 2
        last_tried = trial
        if fits(ladder[trial]):
            fitting = trial
            if target is not None and trial == target - 1:
                target = trial  # the guess was low: the step above is next to check
        else:
            failing = trial
            if target is None or trial != target - 1:  # not the miss the guess expected
                target = _index_of(ladder, guess(ladder[trial]))
        if target is not None and not failing < target <= fitting:
            target = None  # the guess is out of what is left: halve it instead
    if last_tried != fitting:
        fits(ladder[fitting])  # shown: the window is left laid out at the zoom returned
    return ladder[fitting]


def _index_of(ladder: Sequence[float], zoom: float | None) -> int | None:
    """The ladder's step nearest ``zoom`` (None stays None)."""
    if zoom is None:
        return None
    return min(range(len(ladder)), key=lambda index: abs(ladder[index] - zoom))
