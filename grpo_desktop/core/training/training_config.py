"""What a training run is asked to do: its algorithms, metrics and settings, checked.

Split from :mod:`grpo_desktop.core.training.run` so the workbench and scenario files can hold a
run's
configuration without loading the run itself (start-up stays near a bare window). Pure Python.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields, replace

import numpy as np

from grpo_desktop.core.formulas.advantages import convention_names
from grpo_desktop.core.formulas.clipped_loss import LOSS_PRESETS
from grpo_desktop.core.lab.lab_rewards import REWARD_COMPONENTS, RewardWeights
from grpo_desktop.core.lab.problems import get_problem

__all__ = [
    "ALGORITHMS",
    "ALGORITHM_INFO",
    "MAX_STORED_GROUP_BYTES",
    "METRICS",
    "RUN_KEYS",
    "SETTING_LABELS",
    "TRAINING_LIMITS",
    "AlgorithmInfo",
    "TrainingConfig",
    "check_convention",
    "check_reward_weights",
    "check_training_config",
    "config_from_dict",
    "convention_for",
    "largest_stored_value",
    "refused_change_text",
    "run_inputs_from_dict",
    "stored_group_bytes",
    "weights_from_dict",
]


@dataclass(frozen=True)
class AlgorithmInfo:
    name: str
    label: str
    advantage: str  # the formula, one line
    description: str


ALGORITHM_INFO: dict[str, AlgorithmInfo] = {
    info.name: info
    for info in (
        AlgorithmInfo(
            "reinforce", "REINFORCE", "A = r", "No baseline: every right answer is pushed up."
        ),
        AlgorithmInfo(
            "ppo_critic",
            "PPO (critic)",
            "A = r − V(problem)",
            "A learned value per problem: the critic GRPO removes, learning at its own rate.",
        ),
        AlgorithmInfo(
            "grpo",
            "GRPO",
            "A = (r − mean) / std (the workbench's convention)",
            "The group is the baseline.",
        ),
        AlgorithmInfo(
            "dr_grpo", "Dr. GRPO", "A = r − mean; constant normaliser", "No std, no length bias."
        ),
        AlgorithmInfo("rloo", "RLOO", "A = r − mean(others)", "Leave-one-out baseline."),
        AlgorithmInfo(
            "dapo",
            "DAPO",
            "A = (r − mean) / std; all-equal groups dropped and redrawn",
            "Dynamic sampling, clip-higher 0.2/0.28, token-mean.",
        ),
    )
}
ALGORITHMS = tuple(ALGORITHM_INFO)

#: What every step records, per seed: name → (label, unit). Per-problem pass rates come apart.
METRICS: dict[str, tuple[str, str]] = {
    "pass_rate": ("pass rate (exact, mean over problems)", ""),
    "degenerate_fraction": ("degenerate groups (all rewards equal)", ""),
    "groups_sampled": ("groups sampled", ""),
    "groups_used": ("groups used in the update", ""),
    "entropy": ("entropy of the policy", "nats"),
    "kl": ("KL to the initial policy", "nats"),
    "grad_norm": ("gradient norm", ""),
    "critic_error": ("critic error (RMS, V vs true mean reward)", ""),
    "correct_length": ("mean length of sampled right answers", "tokens"),
    "wrong_length": ("mean length of sampled wrong answers", "tokens"),
}


# --- configuration -----------------------------------------------------------------------------


@dataclass(frozen=True)
class TrainingConfig:
    """One training run: which algorithms, how long, how many seeds, and the update's knobs."""

    algorithms: tuple[str, ...] = ALGORITHMS
    steps: int = 200
    seeds: int = 8
    group_size: int = 8
    batch: int = 8  # problems (groups) per step
    learning_rate: float = 4.0
    seed: int = 0
    preset: str = "verl/token-mean"  # the loss for REINFORCE, PPO, GRPO and RLOO
    eps_low: float = 0.2
    eps_high: float = 0.2
    beta: float = 0.0
    epochs: int = 1  # gradient steps per batch; > 1 goes off-policy, so the clip engages
    critic_lr: float = 0.2
    dapo_max_draws: int = 3  # DAPO draws at most this many batches' worth of groups per step
    problem_ids: tuple[str, ...] = ()  # () = every shipped problem

    def loss_preset(self, algorithm: str) -> str:
        return {"dr_grpo": "trl/dr_grpo", "dapo": "trl/dapo"}.get(algorithm, self.preset)

    def clip_range(self, algorithm: str) -> tuple[float, float]:
        return (0.2, 0.28) if algorithm == "dapo" else (self.eps_low, self.eps_high)


def convention_for(algorithm: str, convention: str) -> str:
    """The advantage convention ``algorithm`` uses in a run under ``convention`` (the
    workbench's one convention: GRPO's and DAPO's; Dr. GRPO and RLOO have their own)."""
    return {"dr_grpo": "dr_grpo", "rloo": "rloo"}.get(algorithm, convention)


def check_convention(convention: object) -> str:
    """``convention`` if it names an advantage convention; a ValueError listing them if not."""
    if convention not in convention_names():
        names = ", ".join(convention_names())
        raise ValueError(f"unknown convention {convention!r}; choose from: {names}")
    return convention  # type: ignore[return-value]


def check_reward_weights(weights: object) -> RewardWeights:
    """``weights`` if they are RewardWeights; a ValueError if not."""
    if not isinstance(weights, RewardWeights):
        raise ValueError(f"reward_weights must be RewardWeights; got {weights!r}")
    return weights


_LIMITS = {
    "steps": (1, 5000),
    "seeds": (1, 32),
    "group_size": (2, 64),
    "batch": (1, 64),
    "seed": (0, 2**32 - 1),
    "epochs": (1, 8),
    "dapo_max_draws": (1, 10),
}
_NUMBER_LIMITS = {
    "learning_rate": (0.0, 100.0),
    "eps_low": (0.0, 10.0),
    "eps_high": (0.0, 10.0),
    "beta": (0.0, 10.0),
    "critic_lr": (0.0, 1.0),
}
#: Each numeric setting's range, as :func:`check_training_config` enforces it: a control that
#: edits a setting takes its range from here, so it can never offer a value the run refuses.
TRAINING_LIMITS: dict[str, tuple[float, float]] = {**_LIMITS, **_NUMBER_LIMITS}

#: A setting as a person calls it, for messages about a change (the window's labels).
SETTING_LABELS = {
    "algorithms": "the algorithms",
    "steps": "steps",
    "seeds": "seeds",
    "group_size": "G",
    "batch": "batch",
    "learning_rate": "learning rate",
    "beta": "KL β",
    "epochs": "epochs",
}

#: The settings whose product bounds what a run keeps (with the number of algorithms).
_STORED_FACTORS = ("steps", "seeds", "batch", "group_size")


MAX_STORED_GROUP_BYTES = 256 * 2**20  # every step's groups are kept, to open any of them


def stored_group_bytes(config: TrainingConfig) -> int:
    """What a finished run keeps of its sampled groups: per group, the problem (4 bytes), used
    (1), and per answer its candidate (2) and advantage (8)."""
    per_group = 5 + 10 * config.group_size
    return config.steps * len(config.algorithms) * config.seeds * config.batch * per_group


def _too_much_kept(config: TrainingConfig) -> str:
    """What is wrong when ``config``'s run would keep too much of its groups ("" if nothing)."""
    kept = stored_group_bytes(config)
    if kept <= MAX_STORED_GROUP_BYTES:
        return ""
    return (
        f"this run would keep {kept / 2**20:,.0f} MB of sampled groups (at most "
        f"{MAX_STORED_GROUP_BYTES / 2**20:,.0f} MB)"
    )


def check_training_config(config: TrainingConfig) -> TrainingConfig:
    """``config`` if usable; a ValueError that names the bad field and the valid range."""
    if not config.algorithms:
        raise ValueError("choose at least one algorithm")
    for name in config.algorithms:
        if name not in ALGORITHM_INFO:
            raise ValueError(f"unknown algorithm {name!r}; choose from: {', '.join(ALGORITHMS)}")
    if len(set(config.algorithms)) != len(config.algorithms):
        raise ValueError("each algorithm may be chosen once")
    for name, (low, high) in _LIMITS.items():
        value = getattr(config, name)
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise ValueError(f"{name} must be a whole number; got {value!r}")
        if not low <= value <= high:
            raise ValueError(f"{name} must be from {low} to {high}; got {value}")
    for name, (low, high) in _NUMBER_LIMITS.items():
        value = getattr(config, name)
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueError(f"{name} must be a number; got {value!r}")
        if not (math.isfinite(value) and low <= value <= high):
            raise ValueError(f"{name} must be from {low:g} to {high:g}; got {value!r}")
    too_much = _too_much_kept(config)
    if too_much:
        raise ValueError(
            f"{too_much}: use fewer steps, seeds or algorithms, or a smaller batch or G"
        )
    if config.preset not in LOSS_PRESETS:
        raise ValueError(
            f"unknown loss preset {config.preset!r}; choose from: {', '.join(LOSS_PRESETS)}"
        )
    for problem_id in config.problem_ids:
        get_problem(problem_id)  # UnknownProblemError lists the valid ids
    return config


def largest_stored_value(config: TrainingConfig, name: str) -> int:
    """The largest ``name`` (steps, seeds, batch or G) whose run keeps at most
    MAX_STORED_GROUP_BYTES of groups, the other settings as in ``config`` (below the setting's
    least value when none does); never above the setting's own limit."""
    if name not in _STORED_FACTORS:
        raise ValueError(f"{name!r} does not bound what a run keeps; choose from {_STORED_FACTORS}")
    low, high = _LIMITS[name]
    fits = [
        value
        for value in (low, high)
        if stored_group_bytes(replace(config, **{name: value})) <= MAX_STORED_GROUP_BYTES
    ]
    if not fits:
        return low - 1
    if high in fits:
        return high
    while high - low > 1:  # bytes grow with the value: the last one that fits
        middle = (low + high) // 2
        if stored_group_bytes(replace(config, **{name: middle})) <= MAX_STORED_GROUP_BYTES:
            low = middle
        else:
            high = middle
    return low


def refused_change_text(current: TrainingConfig, requested: TrainingConfig) -> str:
    """Why ``requested`` (``current`` with a change a person made) is refused, in the words of
    the setting changed, and what stays in force; "" when it is not refused. E.g. "Batch 32 was
    not applied: this run would keep 522 MB of sampled groups (at most 256 MB). With the other
    settings as they are, batch can be at most 15; it stays 8." """
    too_much = _too_much_kept(requested)
    try:
        check_training_config(requested)
    except ValueError as error:
        reason = too_much or str(error)
    else:
        return ""
    changed = [
        item.name
        for item in fields(TrainingConfig)
        if getattr(current, item.name) != getattr(requested, item.name)
    ]
    if len(changed) != 1:
        return f"These settings were not applied: {reason}."
    name = changed[0]
    if name == "algorithms":
        added = [other for other in requested.algorithms if other not in current.algorithms]
        subject = f"Adding {ALGORITHM_INFO[added[0]].label}" if added else "This change"
        return f"{subject} was not applied: {reason}."
    label = SETTING_LABELS.get(name, name)
    value = getattr(requested, name)
    text = f"{label[:1].upper()}{label[1:]} {value:g} was not applied: {reason}"
    if too_much and name in _STORED_FACTORS:
        most = largest_stored_value(current, name)
        if most >= _LIMITS[name][0]:
            text += f". With the other settings as they are, {label} can be at most {most}"
    return f"{text}; it stays {getattr(current, name):g}."


#: Keys a scenario's or lesson's ``training`` object may hold beside the config's fields: the
#: run's convention and reward weights, which the file format keeps there but a run is given
#: (:class:`~grpo_desktop.core.training.run.TrainingRun`), not configured with.
RUN_KEYS = ("convention", "reward_weights")


def config_from_dict(data: dict) -> TrainingConfig:
    """A config from a scenario file's mapping (lists become tuples; unknown keys refused).

    ``convention`` and ``reward_weights`` are checked but not part of the config: read them
    with :func:`run_inputs_from_dict`."""
    known = {item.name for item in fields(TrainingConfig)} | set(RUN_KEYS)
    unknown = sorted(set(data) - known)
    if unknown:
        raise ValueError(f"unknown training setting(s): {', '.join(unknown)}")
    values = {name: value for name, value in data.items() if name not in RUN_KEYS}
    for name in ("algorithms", "problem_ids"):
        if name in values:
            if not isinstance(values[name], (list, tuple)) or not all(
                isinstance(item, str) for item in values[name]
            ):
                raise ValueError(f"{name} must be a list of names")
            values[name] = tuple(values[name])
    if "reward_weights" in data:
        weights_from_dict(data["reward_weights"])
    config = check_training_config(replace(TrainingConfig(), **values))
    if "convention" in data:
        check_convention(data["convention"])
    return config


def run_inputs_from_dict(data: dict) -> tuple[str | None, RewardWeights | None]:
    """The ``convention`` and ``reward_weights`` a ``training`` mapping names (None for each it
    leaves out), checked."""
    convention = check_convention(data["convention"]) if "convention" in data else None
    weights = weights_from_dict(data["reward_weights"]) if "reward_weights" in data else None
    return convention, weights


def weights_from_dict(data: object) -> RewardWeights:
    """``{"accuracy": 1, "format": 0.5}`` as RewardWeights (a function left out weighs its
    default); a ValueError naming the unknown function or the bad weight."""
    if isinstance(data, RewardWeights):
        return data
    if not isinstance(data, dict):
        raise ValueError(
            "reward_weights must be an object of reward function → weight, e.g. "
            '{"accuracy": 1, "format": 0.5}'
        )
    unknown = sorted(str(name) for name in set(data) - set(REWARD_COMPONENTS))
    if unknown:
        raise ValueError(
            f"reward_weights: unknown reward function(s) {', '.join(map(repr, unknown))}; "
            f"the functions are {', '.join(REWARD_COMPONENTS)}"
        )
    try:
        return RewardWeights(**data)
    except ValueError as error:
        raise ValueError(f"reward_weights: {error}") from None
