"""Animations for slides as data: each frame a :class:`Figure`, its caption and how long it shows.

A lecturer puts the reward → advantage animation (or a training run's first steps) into a slide
deck as an animated GIF. What each frame shows is decided here, in pure Python, from the same
snapshots the window renders: the bar heights interpolated between r, r − mean and A with the
chart's own easing, the par line sliding to 0, the captions worded from the group's numbers and
the convention. ``views/files/animation_frames.py`` paints the figures and
``core/files/gif_encoder.py`` encodes them.

Time is counted in ticks of one frame at :data:`FRAME_RATE`; a hold is one frame that lasts many
ticks (a GIF frame's delay), so a still picture costs one frame, not fifty.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from grpo_desktop.core.common.formatting import MINUS, number, signed
from grpo_desktop.core.common.theme import Theme
from grpo_desktop.core.files.chart_figure import (
    Figure,
    Mark,
    advantage_figure,
    nice_ticks,
    training_figure,
)

if TYPE_CHECKING:
    from grpo_desktop.core.lab.lab_rewards import RewardWeights
    from grpo_desktop.core.lab.lab_snapshot import LabSnapshot
    from grpo_desktop.core.training.training_config import TrainingConfig
    from grpo_desktop.core.training.training_snapshot import TrainingSnapshot

__all__ = [
    "ANIMATIONS",
    "DEFAULT_TRAINING_STEPS",
    "FRAME_MS",
    "FRAME_RATE",
    "HOLD_END_MS",
    "HOLD_MIDDLE_MS",
    "HOLD_START_MS",
    "MAX_ANIMATION_SIZE",
    "MAX_TRAINING_STEPS",
    "MIN_ANIMATION_SIZE",
    "PHASE_MS",
    "TRAINING_GROWTH_MS",
    "TRAINING_HOLD_MS",
    "AnimationFrame",
    "advantage_animation",
    "advantage_captions",
    "check_animation_size",
    "ease_in_out_cubic",
    "first_steps_snapshot",
    "training_animation",
]

#: Frames per second. A GIF's delays are whole hundredths of a second, and PowerPoint, Keynote,
#: Google Slides (a browser) and LibreOffice Impress all treat a delay under 2/100 s as 1/10 s,
#: so 50 fps would play at 10. 25 fps is a delay of exactly 4/100 s: smooth bars, honoured by
#: all four, and half the frames (and file size) of 50.
FRAME_RATE = 25
FRAME_MS = 1000 // FRAME_RATE  # 40 ms: one tick

#: The reward → advantage animation's timing: a still on the rewards, each of the two captioned
#: phases moving for PHASE_MS (the window's 1.5 s per step, rounded to whole frames), a still at
#: r − mean in between, and a longer still on the advantages, the frame a looping GIF rests on.
HOLD_START_MS = 2000
PHASE_MS = 1600
HOLD_MIDDLE_MS = 2000
HOLD_END_MS = 3000

#: A training run's steps grow over at most this long (a step a frame when they fit), then the
#: whole run holds.
TRAINING_GROWTH_MS = 6000
TRAINING_HOLD_MS = 3000

#: Room on the right of the bars, as a share of their span, for the par line's label.
PAR_ROOM = 0.14

#: The most training steps an animation shows (the slide's x axis, and a run computed first).
MAX_TRAINING_STEPS = 500
DEFAULT_TRAINING_STEPS = 40

#: The sizes an animation may have: from a thumbnail to a 4K slide (each frame is kept at a byte
#: a pixel until the GIF is written, so 8K would hold gigabytes).
MIN_ANIMATION_SIZE = (320, 180)
MAX_ANIMATION_SIZE = (3840, 2160)

#: What the export can animate: name → what the dialog and --help call it.
ANIMATIONS = {
    "advantage": "the group's rewards turning into advantages",
    "training": "the training run's first steps",
}


@dataclass(frozen=True)
class AnimationFrame:
    """One picture of an animation: the figure to paint, its caption and how many ticks it shows.

    ``values`` are the plotted bar heights (the lab's animation) or the last step drawn (a
    training run), so a test can check what a frame shows without painting it.
    """

    figure: Figure
    caption: str
    ticks: int
    values: tuple[float, ...] = ()

    @property
    def duration_ms(self) -> int:
        return self.ticks * FRAME_MS


def check_animation_size(width: int, height: int) -> tuple[int, int]:
    """``(width, height)`` if an animation can have that size; a ValueError saying the range."""
    (low_w, low_h), (high_w, high_h) = MIN_ANIMATION_SIZE, MAX_ANIMATION_SIZE
    if not (low_w <= width <= high_w and low_h <= height <= high_h):
        raise ValueError(
            f"an animation's size must be from {low_w}x{low_h} to {high_w}x{high_h}, "
            f"got {width}x{height}"
        )
    return width, height


def _ticks(milliseconds: int) -> int:
    return max(1, round(milliseconds / FRAME_MS))


def ease_in_out_cubic(progress: float) -> float:
    """Qt's ``QEasingCurve.InOutCubic``, which the window's chart animation uses."""
    t = min(max(progress, 0.0), 1.0)
    if t < 0.5:
        return 4.0 * t * t * t
    return 1.0 - (-2.0 * t + 2.0) ** 3 / 2.0


# --- the reward → advantage animation -----------------------------------------------------------


def _eps_text(eps: float) -> str:
    return f"{eps:.0e}".replace("e-0", "e-")


def advantage_captions(snapshot: LabSnapshot) -> tuple[str, str, str, str]:
    """The four captions: on the rewards, step 1 (subtract par), step 2 (divide), on A."""
    stats, convention = snapshot.stats, snapshot.convention
    mean, scale = number(float(stats.mean), 4), number(float(stats.scale), 4)
    start = f"Each answer's reward r: the group's mean, par, is {mean}"
    first = f"Step 1 of 2: subtract the group mean (par = {mean}): r {MINUS} mean"
    if convention.name == "rloo":
        size = stats.group_size
        second = f"Step 2 of 2: scale by G/(G {MINUS} 1) = {size}/{size - 1} (leave-one-out)"
    elif convention.ddof is None:
        second = f"Step 2 of 2: no division by the std ({convention.label}): A = r {MINUS} mean"
    elif stats.scale == 0:
        second = "Step 2 of 2: the std is 0, so every advantage is 0"
    elif convention.eps:
        # Without "A = …": the longer caption would wrap to two lines on the projector's type.
        second = f"Step 2 of 2: divide by the std + {_eps_text(convention.eps)} = {scale}"
    else:
        second = f"Step 2 of 2: divide by the std = {scale}: A = (r {MINUS} mean) / std"
    if stats.degenerate:
        end = "All rewards equal: every advantage A is 0, so the group teaches nothing"
    else:
        end = f"The advantages A: ▲ {stats.pushed_up} pushed up, ▼ {stats.pushed_down} pushed down"
    return start, first, second, end


def _value_range(values: Sequence[float]) -> tuple[float, float]:
    """One y range for every frame (r, r − mean and A), with room for the value labels."""
    finite = [v for v in values if math.isfinite(v)] + [0.0]
    low, high = min(finite), max(finite)
    span = high - low or 1.0
    bottom = low - (0.15 * span if low < 0 else 0.04 * span)
    return bottom, high + 0.15 * span


def advantage_animation(snapshot: LabSnapshot, theme: Theme) -> tuple[AnimationFrame, ...]:
    """The group's rewards becoming advantages, as the window's chart animates them.

    A still on r; phase 1 eases r → r − mean while par slides to 0; a still at r − mean; phase 2
    eases r − mean → A; a still on A. Value labels show on the stills only (the window hides
    them while bars move); the bars keep the colour of their push throughout, so the class sees
    who will go up.
    """
    base = advantage_figure(snapshot, theme, view="advantage")
    panel = base.panels[0]
    bars = panel.marks[0]
    rewards = tuple(float(card.reward) for card in snapshot.cards)
    centered = tuple(float(card.centered) for card in snapshot.cards)
    advantages = tuple(float(card.advantage) for card in snapshot.cards)
    mean = float(snapshot.stats.mean)
    par = f"par = {number(mean, 4)}"
    y_range = _value_range(rewards + centered + advantages)
    y_ticks = nice_ticks(*y_range)
    low, high = panel.x_range  # widened on the right: the par label clear of the last bar
    x_range = (low, high + PAR_ROOM * (high - low))
    start, first, second, end = advantage_captions(snapshot)

    def frame(
        caption: str,
        ticks: int,
        heights: tuple[float, ...],
        labels: tuple[str, ...],
        stage: str,
        line: float,
        line_text: str,
    ) -> AnimationFrame:
        titles = {
            "reward": ("Reward per answer", "reward r"),
            "centered": (f"r {MINUS} mean per answer", f"r {MINUS} mean"),
            "advantage": ("Advantage per answer", "advantage A"),
        }
        title, y_label = titles[stage]
        shown = replace(
            panel,
            title=title,
            y_label=y_label,
            y_range=y_range,
            y_ticks=y_ticks,
            marks=(replace(bars, y=heights, labels=labels),),
            reference=(line, line_text),
            x_range=x_range,
            note="",  # the last caption says it
        )
        figure = Figure(caption, base.subtitle, (shown,))
        return AnimationFrame(figure, caption, ticks, heights)

    moving = _ticks(PHASE_MS)

    def between(
        a: tuple[float, ...], b: tuple[float, ...], step: int
    ) -> tuple[tuple[float, ...], float]:
        eased = ease_in_out_cubic(step / moving)
        return tuple(x + eased * (y - x) for x, y in zip(a, b)), eased

    frames = [
        frame(
            start,
            _ticks(HOLD_START_MS),
            rewards,
            tuple(number(r) for r in rewards),
            "reward",
            mean,
            par,
        )
    ]
    for step in range(1, moving):
        heights, eased = between(rewards, centered, step)
        frames.append(frame(first, 1, heights, (), "centered", mean * (1 - eased), par))
    frames.append(
        frame(
            first,
            _ticks(HOLD_MIDDLE_MS) + 1,  # with the tick that lands on r − mean
            centered,
            tuple(signed(c, 2) for c in centered),
            "centered",
            0.0,
            "0",
        )
    )
    for step in range(1, moving):
        heights, _ = between(centered, advantages, step)
        frames.append(frame(second, 1, heights, (), "advantage", 0.0, "0"))
    frames.append(
        frame(
            end,
            _ticks(HOLD_END_MS) + 1,
            advantages,
            tuple(signed(a, 2) for a in advantages),
            "advantage",
            0.0,
            "0",
        )
    )
    return tuple(frames)


# --- a training run's first steps ---------------------------------------------------------------


def _up_to(mark: Mark, step: int) -> Mark | None:
    """The part of a line or band at steps 0..``step``; None when nothing is drawn yet."""
    kept = sum(1 for x in mark.x if x <= step)
    if kept == 0:
        return None
    return replace(mark, x=mark.x[:kept], y=mark.y[:kept], low=mark.low[:kept] if mark.low else ())


def training_animation(snapshot: TrainingSnapshot, theme: Theme) -> tuple[AnimationFrame, ...]:
    """The pass rate of each chosen algorithm growing step by step, captioned with the step.

    ``snapshot`` is a finished run of the steps to show (its ``config.steps``). One step a frame
    while the steps fit in :data:`TRAINING_GROWTH_MS`, else several steps a frame; the axes are
    the whole run's from the first frame, so nothing rescales, and the last frame holds.
    """
    steps = snapshot.steps_done
    whole = training_figure(snapshot, theme)
    panel = whole.panels[0]
    # Each algorithm's seeds' band only where the Training workspace shades it: six overlapping
    # bands are a blur on a slide.
    shaded = {
        theme.series[series.index % len(theme.series)] for series in snapshot.series if series.band
    }
    panel = replace(
        panel, marks=tuple(m for m in panel.marks if m.kind != "band" or m.colour() in shaded)
    )
    frame_count = max(1, min(steps, _ticks(TRAINING_GROWTH_MS)))
    shown_steps = sorted({round(k * steps / frame_count) for k in range(frame_count + 1)})
    frames = []
    for index, step in enumerate(shown_steps):
        marks = tuple(m for m in (_up_to(mark, step) for mark in panel.marks) if m is not None)
        caption = (
            f"Training: pass rate after step {step} of {steps}"
            if step
            else f"Training: pass rate before the first step (0 of {steps})"
        )
        last = index == len(shown_steps) - 1
        ticks = _ticks(TRAINING_HOLD_MS) if last else 1
        figure = Figure(
            caption,
            whole.subtitle.split(" · step ")[0],  # the run's size; the caption says the step
            (replace(panel, marks=marks, marker_x=None),),
            legend=whole.legend,
            note=whole.note,
        )
        frames.append(AnimationFrame(figure, caption, ticks, (float(step),)))
    if frames and len(frames) > 1:
        first = frames[0]  # the starting policy: long enough to read before anything moves
        frames[0] = replace(first, ticks=_ticks(HOLD_START_MS))
    return tuple(frames)


def first_steps_snapshot(
    config: TrainingConfig,
    steps: int,
    convention: str = "textbook",
    reward_weights: RewardWeights | None = None,
) -> TrainingSnapshot:
    """A fresh run of ``config``'s algorithms and seeds for its first ``steps`` steps, finished:
    what :func:`training_animation` draws (the same run the Training workspace would play)."""
    from grpo_desktop.core.training.run import TrainingRun
    from grpo_desktop.core.training.training_snapshot import build_training_snapshot

    if not 1 <= steps <= MAX_TRAINING_STEPS:
        raise ValueError(f"an animation shows 1 to {MAX_TRAINING_STEPS} steps, got {steps}")
    run = TrainingRun(replace(config, steps=steps), convention, reward_weights)
    run.run()
    return build_training_snapshot(run)
