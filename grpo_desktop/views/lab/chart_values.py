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

    @classmethod
    def from_snapshot(cls, snapshot: LabSnapshot) -> ChartValues:
        cards = snapshot.cards
        rewards = tuple(float(card.reward) for card in cards)
        advantages = tuple(card.advantage for card in cards)
        mean = float(snapshot.stats.mean)
        return cls(
            range_key=(snapshot.group_size, snapshot.problem.id, snapshot.convention.name),
            rewards=rewards,
            centered=tuple(card.centered for card in cards),
            advantages=advantages,
            pushes=tuple(card.push for card in cards),
            reward_texts=tuple(map(_reward_text, rewards)),
            advantage_texts=tuple(map(_advantage_text, advantages)),
            mean=mean,
            par_text=par_label(mean),
            forward_captions=snapshot.worked_math.phase_labels,
            reverse_captions=reverse_phase_labels(snapshot),
        )

    @property
    def extent(self) -> float:
        """The largest |value| any view or animation stage draws: the y range must cover it."""
        values = itertools.chain(self.rewards, self.centered, self.advantages)
        return max((abs(v) for v in values if math.isfinite(v)), default=0.0)

    @property
    def reward_extent(self) -> float:
        """The largest reward: the reward view's own top (it draws nothing below 0)."""
        return max((r for r in self.rewards if math.isfinite(r)), default=0.0)

    @property
    def rewards_nonnegative(self) -> bool:
        """No reward below 0: the reward view needs no negative half."""
        return all(r >= 0 for r in self.rewards)

    @property
    def label_chars(self) -> int:
        """The longest label of either view, so one label font fits both."""
        texts = itertools.chain(self.reward_texts, self.advantage_texts)
        return max((len(t) for t in texts), default=0)

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
