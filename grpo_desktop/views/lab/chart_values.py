"""What the advantage chart shows for one snapshot: both views' bars, labels, par and captions.

Read off a ``LabSnapshot`` once per click and kept, so switching views, hiding the advantages or
running an animation frame only picks values. A view formats the numbers ``core`` computed and
never computes them (DESIGN §2); this module is where the chart does that formatting.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from grpo_desktop.core.common.formatting import MINUS, number, signed
from grpo_desktop.core.lab.lab_snapshot import LabSnapshot, Push

__all__ = [
    "AXIS_TITLES",
    "ChartValues",
    "ViewState",
    "par_label",
    "reverse_phase_labels",
]

#: The value axis's title per view, and while the animation's first step shows r − mean.
AXIS_TITLES = {"reward": "reward r", "advantage": "advantage A", "centered": f"r {MINUS} mean"}


#: A group's rewards and advantages take a few values that come back click after click: each
#: value is formatted once (a click formats 2 × G labels; at G = 64 that was a tenth of the
#: chart's share of a click).
_FORMATTED = 4096  # formatted labels kept per kind, then forgotten all at once


def _reward_text(value: float, kept: dict[float, str] = {}) -> str:  # noqa: B006 (the memo)
    text = kept.get(value)
    if text is None:
        if len(kept) >= _FORMATTED:
            kept.clear()
        text = kept[value] = number(value)
    return text


def _advantage_text(value: float, kept: dict[float, str] = {}) -> str:  # noqa: B006 (the memo)
    text = kept.get(value)
    if text is None:
        if len(kept) >= _FORMATTED:
            kept.clear()
        text = kept[value] = signed(value, 2)
    return text


def _short(value: float) -> str:
    """A number as the worked math writes it (4 significant digits, real minus sign)."""
    return number(value, 4)


def par_label(mean: float) -> str:
    """The reward view's reference line label: ``par = 0.5``."""
    return f"par = {_short(mean)}"


def reverse_phase_labels(snapshot: LabSnapshot) -> tuple[str, str]:
    """Captions for advantage -> reward: undo phase 2 (the scaling), then phase 1 (the par)."""
    stats, convention = snapshot.stats, snapshot.convention
    if convention.name == "rloo":
        size = snapshot.group_size
        first = f"divide by G/(G {MINUS} 1) = {size}/{size - 1} (undo leave-one-out)"
    elif convention.ddof is None:
        first = f"nothing to undo: A already is r {MINUS} mean"
    elif stats.scale == 0:
        first = f"std is 0, so every r {MINUS} mean is 0 too"
    elif convention.eps:
        eps = f"{convention.eps:.0e}".replace("e-0", "e-")
        first = f"multiply back by std + {eps} = {_short(stats.scale)}"
    else:
        first = f"multiply back by std = {_short(stats.scale)}"
    second = f"add par back (mean = {_short(stats.mean)}): r"
    return f"Step 1 of 2 (reverse): {first}", f"Step 2 of 2 (reverse): {second}"


def _largest_size(*groups: tuple[float, ...]) -> float:
    """The largest finite |value| of the groups (0 when there is none)."""
    sizes = list(map(abs, itertools.chain(*groups)))
    largest = max(sizes, default=0.0)
    if math.isfinite(largest):  # the usual case: no inf or nan to leave out
        return largest
    return max((size for size in sizes if math.isfinite(size)), default=0.0)


def _largest_finite(values: tuple[float, ...]) -> float:
    """The largest finite value (0 when there is none)."""
    return max((value for value in values if math.isfinite(value)), default=0.0)


class ViewState(NamedTuple):
    """One view's final picture: what ``AdvantagePlot.render_bars`` and its line are given."""

    heights: Sequence[float]
    pushes: Sequence[Push]
    texts: Sequence[str]
    line: float  # the reference line: 0 for advantages, the group mean ("par") for rewards
    line_text: str


@dataclass(frozen=True)
class ChartValues:
    """Both views of one group, formatted once: r, r − mean and A with their labels and par."""

    range_key: tuple[int, str, str]  # group size, problem, convention: a new one resets the range
    rewards: tuple[float, ...]
    centered: tuple[float, ...]  # r − mean: where the first animation stage ends
    advantages: tuple[float, ...]
    pushes: tuple[Push, ...]  # the colours in both views: the class sees who will go up
    reward_texts: tuple[str, ...]
    advantage_texts: tuple[str, ...]
    mean: float
    par_text: str
    forward_captions: tuple[str, str]  # reward -> advantage, as the worked math words them
    reverse_captions: tuple[str, str]
    # Worked out here once, as the rest (a click asked for each twice, an animation again):
    extent: float  # the largest |value| any view or animation stage draws: the y range covers it
    reward_extent: float  # the largest reward: the reward view's own top (nothing below 0)
    rewards_nonnegative: bool  # no reward below 0: the reward view needs no negative half
    label_chars: int  # the longest label of either view, so one label font fits both

    @classmethod
    def from_snapshot(cls, snapshot: LabSnapshot) -> ChartValues:
        cards = snapshot.cards
        rewards = tuple([float(card.reward) for card in cards])
        centered = tuple([card.centered for card in cards])
        advantages = tuple([card.advantage for card in cards])
        reward_texts = tuple(map(_reward_text, rewards))
        advantage_texts = tuple(map(_advantage_text, advantages))
        mean = float(snapshot.stats.mean)
        return cls(
            range_key=(snapshot.group_size, snapshot.problem.id, snapshot.convention.name),
            rewards=rewards,
            centered=centered,
            advantages=advantages,
            pushes=tuple([card.push for card in cards]),
            reward_texts=reward_texts,
            advantage_texts=advantage_texts,
            mean=mean,
            par_text=par_label(mean),
            forward_captions=snapshot.worked_math.phase_labels,
            reverse_captions=reverse_phase_labels(snapshot),
            extent=_largest_size(rewards, centered, advantages),
            reward_extent=_largest_finite(rewards),
            rewards_nonnegative=all(r >= 0 for r in rewards),
            label_chars=max(map(len, itertools.chain(reward_texts, advantage_texts)), default=0),
        )

    @property
    def captions(self) -> tuple[str, ...]:
        """Every phase caption either animation may show (the caption's font must fit them)."""
        return (*self.forward_captions, *self.reverse_captions)

    def state(self, view: str, advantages_hidden: bool = False) -> ViewState:
        """The final picture of ``view`` ("reward" or "advantage").

        With ``advantages_hidden`` (predict, then reveal) every bar is neutral grey, since colours
        would give the signs away, and the advantage view draws no bars and "?" labels.
        """
        if view == "reward":
            heights, texts = self.rewards, self.reward_texts
            line, line_text = self.mean, self.par_text
        else:
            heights, texts = self.advantages, self.advantage_texts
            line, line_text = 0.0, "0"
        pushes: Sequence[Push] = self.pushes
        if advantages_hidden:
            pushes = (Push.NONE,) * len(pushes)
            if view == "advantage":
                heights, texts = (0.0,) * len(heights), ("?",) * len(texts)
        return ViewState(heights, pushes, texts, line, line_text)
