"""What a GRPO run on the tiny model is asked to do: the algorithm and its knobs, checked.

The algorithms are the toy run's (:mod:`grpo_desktop.core.training.training_config`): the same
names,
labels, and the same rules for which advantage convention, loss preset and clip range each one
uses (``convention_for`` / ``TrainingConfig.loss_preset`` / ``clip_range``), so "DAPO" means the
same thing on the toy and on the network. Only ``ppo_critic`` is left out: a per-prompt critic
does not carry over to prompts it has never seen.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, fields, replace

from grpo_desktop.core.formulas.advantages import convention_names
from grpo_desktop.core.formulas.clipped_loss import LOSS_PRESETS
from grpo_desktop.core.lab.lab_rewards import RewardWeights
from grpo_desktop.core.tinylm.tasks import DEFAULT_TASK, get_task
from grpo_desktop.core.training.training_config import (
    ALGORITHM_INFO,
    TrainingConfig,
    convention_for,
)

__all__ = [
    "LM_ALGORITHMS",
    "LM_SCENARIO_FIELDS",
    "LMTrainingConfig",
    "check_lm_config",
    "lm_config_from_dict",
    "lm_config_to_dict",
]

LM_ALGORITHMS = tuple(name for name in ALGORITHM_INFO if name != "ppo_critic")

_WHOLE = {
    "steps": (1, 5000),
    "group_size": (2, 64),
    "batch": (1, 256),
    "epochs": (1, 8),
    "seed": (0, 2**32 - 1),
    "dapo_max_draws": (1, 10),
    "eval_every": (0, 5000),
}
_REAL = {
    "learning_rate": (0.0, 1.0),
    "beta": (0.0, 10.0),
    "eps_low": (0.0, 10.0),
    "eps_high": (0.0, 10.0),
    "temperature": (1e-3, 10.0),
}


@dataclass(frozen=True)
class LMTrainingConfig:
    """One GRPO run on the tiny model. The defaults are the measured ones (DESIGN §8)."""

    task: str = DEFAULT_TASK
    algorithm: str = "grpo"
    steps: int = 200
    group_size: int = 8
    batch: int = 64  # prompts (groups) per step
    learning_rate: float = 3e-4
    beta: float = 0.0  # KL to the starting checkpoint (TRL's default is 0 too)
    epochs: int = 1  # optimiser steps per batch, each against the batch's old_logp
    seed: int = 0
    convention: str = "textbook"  # GRPO's and DAPO's advantage convention
    preset: str = "verl/token-mean"  # the loss of REINFORCE, GRPO and RLOO
    eps_low: float = 0.2
    eps_high: float = 0.2
    kl_estimator: str = "k3"
    dapo_max_draws: int = 3
    temperature: float = 1.0
    eval_every: int = 10  # 0: evaluate only at the start and the end
    reward_weights: RewardWeights = field(default_factory=RewardWeights)

    def _toy(self) -> TrainingConfig:
        return TrainingConfig(
            preset=self.preset,
            eps_low=self.eps_low,
            eps_high=self.eps_high,
        )

    @property
    def loss_preset(self) -> str:
        return self._toy().loss_preset(self.algorithm)

    @property
    def clip_range(self) -> tuple[float, float]:
        return self._toy().clip_range(self.algorithm)

    @property
    def advantage_convention(self) -> str | None:
        """The convention of ``group_advantages``; None for REINFORCE (A = r, no baseline)."""
        if self.algorithm == "reinforce":
            return None
        return convention_for(self.algorithm, self.convention)

    def as_dict(self) -> dict:
        values = asdict(self)
        values["reward_weights"] = self.reward_weights.as_dict()
        return values


def check_lm_config(config: LMTrainingConfig) -> LMTrainingConfig:
    """``config`` if usable; a ValueError naming the bad setting and its range otherwise."""
    get_task(config.task)
    if config.algorithm not in LM_ALGORITHMS:
        raise ValueError(
            f"unknown algorithm {config.algorithm!r}; choose one of: {', '.join(LM_ALGORITHMS)}"
        )
    for name, (low, high) in _WHOLE.items():
        value = getattr(config, name)
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise ValueError(f"{name} must be a whole number from {low} to {high}; got {value!r}")
    for name, (low, high) in _REAL.items():
        value = getattr(config, name)
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        if not (ok and math.isfinite(value) and low <= value <= high):
            raise ValueError(f"{name} must be a number from {low:g} to {high:g}; got {value!r}")
    if config.convention not in convention_names():
        raise ValueError(
            f"unknown convention {config.convention!r}; choose one of: "
            + ", ".join(convention_names())
        )
    if config.preset not in LOSS_PRESETS:
        raise ValueError(
            f"unknown loss preset {config.preset!r}; choose one of: {', '.join(LOSS_PRESETS)}"
        )
    if config.kl_estimator not in LOSS_PRESETS[config.loss_preset].kl_estimators:
        raise ValueError(
            f"the {config.loss_preset} loss offers the KL estimators "
            f"{', '.join(LOSS_PRESETS[config.loss_preset].kl_estimators)}; "
            f"got {config.kl_estimator!r}"
        )
    if not isinstance(config.reward_weights, RewardWeights):
        raise ValueError(f"reward_weights must be RewardWeights; got {config.reward_weights!r}")
    return config


#: What a scenario's ``lm_training`` may set: everything but the convention and the reward,
#: which the run takes from the workbench (the one convention on screen, the Lab's weights).
LM_SCENARIO_FIELDS = tuple(
    item.name
    for item in fields(LMTrainingConfig)
    if item.name not in ("convention", "reward_weights")
)


def lm_config_from_dict(data: dict) -> LMTrainingConfig:
    """A run's settings from a scenario's ``lm_training`` mapping (unknown keys refused)."""
    unknown = sorted(set(data) - set(LM_SCENARIO_FIELDS))
    if unknown:
        raise ValueError(
            f"unknown setting(s): {', '.join(map(str, unknown))} (the run takes the scenario's "
            "convention and reward weights)"
            if set(unknown) & {"convention", "reward_weights"}
            else f"unknown setting(s): {', '.join(map(str, unknown))}"
        )
    return check_lm_config(replace(LMTrainingConfig(), **data))


def lm_config_to_dict(config: LMTrainingConfig) -> dict:
    """The settings a scenario writes: those that differ from the defaults."""
    default = LMTrainingConfig()
    return {
        name: getattr(config, name)
        for name in LM_SCENARIO_FIELDS
        if getattr(config, name) != getattr(default, name)
    }
