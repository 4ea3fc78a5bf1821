"""How a scenario file writes a lab's rewards: weights, hand-set scores and a real run's group.

Pure Python. Kept apart from :mod:`grpo_desktop.core.files.scenario` (which reads the rest of the
file)
so each reader stays small. Every reader raises ``ValueError`` with a message that starts with the
field's path inside its object (``"texts[3] must be text, got a number"``); the scenario reader
adds the file and the field name.
"""

from __future__ import annotations

import math
from typing import Any

from grpo_desktop.core.common.jsonfile import json_type_name
from grpo_desktop.core.lab.lab_limits import MAX_GROUP_SIZE, group_size_problem
from grpo_desktop.core.lab.lab_rewards import REWARD_COMPONENTS, RewardWeights, check_score
from grpo_desktop.core.lab.recorded_group import (
    MAX_PROMPT_CHARS,
    MAX_TEXT_CHARS,
    RUN_FORMATS,
    TINYLM_FORMAT,
    TRUNCATED,
    RecordedGroup,
)

__all__ = [
    "recorded_from_dict",
    "recorded_to_dict",
    "scores_from_list",
    "weights_from_dict",
    "weights_to_dict",
]

_RECORDED_KEYS = (
    "run_format",
    "file_name",
    "step",
    "group_index",
    "group_count",
    "prompt",
    "answer_key",
    "texts",
    "rewards",
    "components",
    "logged_advantages",
)
#: What a group the tiny model sampled adds (written only for run format "tinylm").
_SAMPLING_KEYS = ("seed", "temperature", "parameters")
#: Room for the "[cut: N more characters]" note a long text carries after its cut.
_NOTE_ROOM = len(TRUNCATED) + 20
MAX_NAME_CHARS = 255


def weights_to_dict(weights: RewardWeights) -> dict[str, float]:
    return weights.as_dict()


def weights_from_dict(value: Any) -> RewardWeights:
    if not isinstance(value, dict):
        raise ValueError(f"must be an object of weights, got {json_type_name(value)}")
    unknown = [name for name in value if name not in REWARD_COMPONENTS]
    if unknown:
        raise ValueError(
            f"has unknown reward function {unknown[0]!r}; the lab's are "
            + ", ".join(REWARD_COMPONENTS)
        )
    for name, weight in value.items():
        if isinstance(weight, bool) or not isinstance(weight, (int, float)):
            raise ValueError(f"{name} must be a number, got {json_type_name(weight)}")
    return RewardWeights(**{name: float(weight) for name, weight in value.items()})


def scores_from_list(value: Any, group_size: int) -> tuple[float, ...]:
    """Hand-set rewards, one per card."""
    if not isinstance(value, list):
        raise ValueError(f"must be a list of numbers, got {json_type_name(value)}")
    if len(value) != group_size:
        raise ValueError(f"must have {group_size} entries (one per card), got {len(value)}")
    scores = []
    for index, score in enumerate(value):
        try:
            scores.append(check_score(score))
        except ValueError as error:
            raise ValueError(f"[{index}]: {error}") from None
    return tuple(scores)


def recorded_to_dict(group: RecordedGroup) -> dict[str, Any]:
    return {
        "run_format": group.run_format,
        "file_name": group.file_name,
        "step": group.step,
        "group_index": group.group_index,
        "group_count": group.group_count,
        "prompt": group.prompt,
        "answer_key": group.answer_key,
        "texts": list(group.texts),
        "rewards": list(group.rewards),
        "components": {
            name: [None if math.isnan(v) else v for v in values]
            for name, values in group.components
        },
        "logged_advantages": None
        if group.logged_advantages is None
        else list(group.logged_advantages),
        **({"unscored": group.unscored} if group.unscored else {}),
        **(
            {key: getattr(group, key) for key in _SAMPLING_KEYS}
            if group.run_format == TINYLM_FORMAT
            else {}
        ),
    }


def _text(value: Any, name: str, limit: int) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{name} must be text, got {json_type_name(value)}")
    if len(value) > limit:
        raise ValueError(f"{name} must be at most {limit} characters, got {len(value)}")
    return value


def _count(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{name} must be a whole number from 0, got {json_type_name(value)}")
    return value


def _numbers(value: Any, name: str, size: int, missing: bool = False) -> tuple[float, ...]:
    """``size`` finite numbers (``None`` allowed as a missing value, read as NaN)."""
    if not isinstance(value, list) or len(value) != size:
        got = f"{len(value)} entries" if isinstance(value, list) else json_type_name(value)
        raise ValueError(f"{name} must be a list of {size} numbers (one per answer), got {got}")
    numbers = []
    for index, item in enumerate(value):
        if item is None and missing:
            numbers.append(math.nan)
            continue
        if isinstance(item, bool) or not isinstance(item, (int, float)) or not math.isfinite(item):
            raise ValueError(f"{name}[{index}] must be a finite number, got {item!r}")
        numbers.append(float(item))
    return tuple(numbers)


def recorded_from_dict(value: Any) -> RecordedGroup:
    """A run's group as a scenario stores it; every field checked."""
    if not isinstance(value, dict):
        raise ValueError(f"must be an object, got {json_type_name(value)}")
    missing = [key for key in _RECORDED_KEYS if key not in value]
    if missing:
        raise ValueError(f"has no {missing[0]!r}")
    run_format = value["run_format"]
    if run_format not in RUN_FORMATS:
        raise ValueError(
            f"run_format must be 'verl', 'trl' or 'tinylm', got {str(run_format)[:40]!r}"
        )
    optional = ("unscored", *(_SAMPLING_KEYS if run_format == TINYLM_FORMAT else ()))
    unknown = [key for key in value if key not in (*_RECORDED_KEYS, *optional)]
    if unknown:
        raise ValueError(f"has unknown key {str(unknown[0])[:40]!r}")
    texts = value["texts"]
    if not isinstance(texts, list):
        raise ValueError(f"texts must be a list of answers, got {json_type_name(texts)}")
    size_problem = group_size_problem(len(texts))
    if size_problem is not None:
        raise ValueError(f"texts: the number of answers {size_problem}")
    size = len(texts)
    group_count = _count(value["group_count"], "group_count")
    group_index = _count(value["group_index"], "group_index")
    if group_index >= group_count:
        raise ValueError(
            f"group_index must be below group_count ({group_count}), got {group_index}"
        )
    key = value["answer_key"]
    components = value["components"]
    if not isinstance(components, dict):
        raise ValueError(f"components must be an object, got {json_type_name(components)}")
    advantages = value["logged_advantages"]
    unscored = _count(value.get("unscored", 0), "unscored")
    if unscored > MAX_GROUP_SIZE:
        raise ValueError(f"unscored must be at most {MAX_GROUP_SIZE}, got {unscored}")
    return RecordedGroup(
        run_format=value["run_format"],
        file_name=_text(value["file_name"], "file_name", MAX_NAME_CHARS),
        step=_count(value["step"], "step"),
        group_index=group_index,
        group_count=group_count,
        prompt=_text(value["prompt"], "prompt", MAX_PROMPT_CHARS + _NOTE_ROOM),
        answer_key=None if key is None else _text(key, "answer_key", MAX_NAME_CHARS),
        texts=tuple(
            _text(text, f"texts[{i}]", MAX_TEXT_CHARS + _NOTE_ROOM) for i, text in enumerate(texts)
        ),
        rewards=_numbers(value["rewards"], "rewards", size),
        components=tuple(
            (
                _text(name, "components", MAX_NAME_CHARS),
                _numbers(values, f"components.{name}", size, missing=True),
            )
            for name, values in components.items()
        ),
        logged_advantages=None
        if advantages is None
        else _numbers(advantages, "logged_advantages", size),
        unscored=unscored,
        **_sampling(value) if run_format == TINYLM_FORMAT else {},
    )


def _sampling(value: dict[str, Any]) -> dict[str, Any]:
    """A tiny-model group's seed, temperature and parameter count (each may be absent)."""
    found: dict[str, Any] = {}
    for key in ("seed", "parameters"):
        if value.get(key) is not None:
            found[key] = _count(value[key], key)
    temperature = value.get("temperature")
    if temperature is not None:
        if (
            isinstance(temperature, bool)
            or not isinstance(temperature, (int, float))
            or not (math.isfinite(temperature) and temperature > 0)
        ):
            raise ValueError(f"temperature must be a number above 0, got {temperature!r}")
        found["temperature"] = float(temperature)
    return found
