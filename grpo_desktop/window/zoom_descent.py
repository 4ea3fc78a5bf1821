"""The zoom a window shows when the one asked for does not fit: the largest step down that does.

Trying a zoom is a relayout of the whole window (about 0.1 s of CPU on a slow machine), so the
steps are not tried one at a time from the top. Fitting is monotone in the zoom (a smaller zoom
needs no more room), so the answer is the one zoom that fits while the step above it does not:
the search starts at a guess (the last answer in the same setting, or the room a failed try
measured), checks the step above it and the guess itself, and halves the steps left when the
guess was wrong. The answer is the one stepping down a zoom at a time
would give, in fewer tries (``tests/window/test_zoom_descent.py`` compares the two).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence


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
    start: int = 0,
) -> float:
    """The first zoom of ``ladder`` that fits, as trying each from the top would find it.

    ``fits(zoom)`` applies ``zoom`` and says whether the window fits; the ladder's last zoom is
    shown whether it fits or not. ``guess(zoom)`` is asked after ``zoom`` did not fit: the zoom
    likely to be the answer, or None. The zoom returned is the last one applied. ``start``: the
    index tried first (the zooms above it need not be tried when it does not fit; when it does,
    the search starts again from the top).
    """
    if start > 0 and start < len(ladder) - 1:
        if fits(ladder[start]):
            return largest_fitting_zoom(ladder, fits, guess)
    elif fits(ladder[0]) or len(ladder) == 1:
        return ladder[0]
    else:
        start = 0
    # Indices into the ladder: the smallest zoom known not to fit, the largest known to fit.
    failing, fitting = start, len(ladder) - 1
    target = _step_at_or_below(ladder, guess(ladder[start]), failing, fitting)
    last_tried = start
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
                target = None  # the guess was low: halve what is left above it
        else:
            failing = trial
            if target is None or trial != target - 1:  # not the miss the guess expected
                target = _step_at_or_below(ladder, guess(ladder[trial]), failing, fitting)
    if last_tried != fitting:
        fits(ladder[fitting])  # shown: the window is left laid out at the zoom returned
    return ladder[fitting]


def _step_at_or_below(
    ladder: Sequence[float], zoom: float | None, failing: int, fitting: int
) -> int | None:
    """The index of the ladder's largest zoom at or below ``zoom``, kept between the step below
    ``failing`` and ``fitting`` (None stays None)."""
    if zoom is None:
        return None
    at_or_below = [index for index, step in enumerate(ladder) if step <= zoom + 1e-9]
    index = at_or_below[0] if at_or_below else len(ladder) - 1
    return min(max(index, failing + 1), fitting)


def zoom_for_room(needed: Mapping[float, tuple[int, int]], room: tuple[int, int]) -> float | None:
    """The zoom at which the size needed would meet ``room``, from the zooms that did not fit
    (``needed``: each one's width and height): along the line through the two smallest, in each
    dimension that did not fit; after one, that zoom shrunk by the room missing (text grows with
    the zoom, margins do not). A guess only: wrapped lines make the need jump."""
    tried = sorted(needed)
    low = tried[0]
    if len(tried) > 1:
        high = tried[1]
        meets = [
            low - (need - have) * (high - low) / (above - need)
            for have, need, above in zip(room, needed[low], needed[high], strict=True)
            if need > have and above > need
        ]
        if meets:
            return min(meets)
    if min(needed[low]) <= 0:
        return None
    return low * min(have / need for have, need in zip(room, needed[low], strict=True))
