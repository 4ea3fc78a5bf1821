"""Reward patterns: the named groups a lecturer reaches for (the Presets menu and tool bar offer
them) and the easy-vs-hard pair."""

from __future__ import annotations

from dataclasses import dataclass

EASY_PROBLEM_ID = "easy-add-17-25"
HARD_PROBLEM_ID = "hard-remainder-7-pow-100"
EASY_REWARDS = (True, True, True, True, False)
HARD_REWARDS = (True, False, False, False, False)


@dataclass(frozen=True)
class RewardPattern:
    """A named group the toolbar and the Presets menu offer."""

    key: str
    label: str
    tooltip: str
    problem_id: str | None  # switch to this problem first; None keeps the current one
    correct: tuple[bool, ...] | None  # None: every card of the current size, see ``fill``
    fill: bool = True


REWARD_PATTERNS: tuple[RewardPattern, ...] = (
    RewardPattern(
        "seed",
        "1, 0, 0, 1",
        "The seed's worked example: two right, two wrong (G = 4)",
        None,
        (True, False, False, True),
    ),
    RewardPattern(
        "all-correct", "All ✓", "Every answer right: a degenerate group", None, None, True
    ),
    RewardPattern(
        "all-wrong", "All ✗", "Every answer wrong: a degenerate group", None, None, False
    ),
    RewardPattern(
        "easy",
        "Easy 1,1,1,1,0",
        "An easy problem: four of five right; the lone wrong one gets −2.0",
        EASY_PROBLEM_ID,
        EASY_REWARDS,
    ),
    RewardPattern(
        "hard",
        "Hard 1,0,0,0,0",
        "A hard problem: one of five right (the lone right one gets +2.0)",
        HARD_PROBLEM_ID,
        HARD_REWARDS,
    ),
)


def get_reward_pattern(key: str) -> RewardPattern:
    for pattern in REWARD_PATTERNS:
        if pattern.key == key:
            return pattern
    names = ", ".join(p.key for p in REWARD_PATTERNS)
    raise ValueError(f"unknown preset {key!r}; choose one of: {names}")
