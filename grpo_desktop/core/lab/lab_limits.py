"""What a lab may be set to: the group sizes, the two chart views, and a typed reward pattern.

One place for each rule, so the window, the command line, scenario files and lessons refuse the
same things with the same words.
"""

from __future__ import annotations

MIN_GROUP_SIZE = 2
MAX_GROUP_SIZE = 64
VIEWS = ("advantage", "reward")  # what the charts show; the first is where the app starts
DEFAULT_VIEW = VIEWS[0]
WORKSPACES = ("lab", "update", "training", "compare")  # the group, its update, a run, easy/hard
MAX_SAMPLE_SEED = 2**64 - 1
#: The largest |reward| the lab takes, logged by a run or set by hand: no reward function gives
#: more, and up to it every convention's r − mean, std and RLOO advantage stays far inside
#: float64 (a spread of ±1.7e308 overflows TRL's sample std). The rollout readers keep the same
#: bound (``rollouts.MAX_REWARD_MAGNITUDE``; a test keeps the two equal).
MAX_REWARD_MAGNITUDE = 1e100  # numpy's generators take any such seed, and a scenario stores it


def group_size_problem(group_size: int) -> str | None:
    """Why ``group_size`` is not a usable G (None when it is); file readers add their context."""
    if MIN_GROUP_SIZE <= group_size <= MAX_GROUP_SIZE:
        return None
    shown = "a very large integer" if abs(group_size) >= 10**30 else str(group_size)
    return f"must be between {MIN_GROUP_SIZE} and {MAX_GROUP_SIZE}, got {shown}"


def check_group_size(group_size: int) -> None:
    problem = group_size_problem(group_size)
    if problem is not None:
        raise ValueError(f"group size {problem}")


def check_sample_seed(seed: int) -> None:
    """A seed a sampled group can be drawn, replayed and saved with."""
    if not 0 <= seed <= MAX_SAMPLE_SEED:
        shown = "a very large integer" if abs(seed) >= 10**30 else str(seed)
        raise ValueError(f"a sample seed must be an integer from 0 to 2**64 − 1, got {shown}")


def next_sample_seed(seed: int) -> int:
    """The seed after ``seed``: counting on wraps to 0 rather than leaving the savable range."""
    return 0 if seed >= MAX_SAMPLE_SEED else seed + 1


def check_view(view: str) -> None:
    if view not in VIEWS:
        raise ValueError(f"unknown view {view!r}; choose one of: {', '.join(VIEWS)}")


def parse_reward_pattern(text: str) -> tuple[bool, ...]:
    """``"1,0,0,1"`` -> correct flags; the message says what is accepted."""
    parts = [part.strip() for part in text.replace(" ", ",").split(",") if part.strip()]
    if not parts or any(part not in ("0", "1") for part in parts):
        raise ValueError(
            f"rewards must be 0s and 1s separated by commas, e.g. 1,0,0,1 (got {text!r}): "
            "each is the checker's verdict on one answer"
        )
    flags = tuple(part == "1" for part in parts)
    check_group_size(len(flags))
    return flags
