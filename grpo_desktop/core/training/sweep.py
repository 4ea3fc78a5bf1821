"""Experiments: one setting of the toy Training run swept over values, each over several seeds.

Pure numpy. A classroom GRPO simulation's group-size experiment (G = 4 / 16 / 32, repeated, in a
table), for any of group size, learning rate, β, algorithm or convention: every value runs the
same configuration with that one setting changed, on the same seeds, and the outcome is read the
same way — the final pass rate (mean over seeds, and the seeds' min and max), the steps each seed
took to reach a target pass rate, and the share of all-equal groups at the first step (the
frontier's prediction: a larger G leaves fewer groups without signal).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np

from grpo_desktop.core.formulas.advantages import DEFAULT_CONVENTION
from grpo_desktop.core.lab.lab_rewards import RewardWeights
from grpo_desktop.core.training.run import TrainingRun
from grpo_desktop.core.training.training_config import (
    ALGORITHMS,
    TrainingConfig,
    check_convention,
    check_training_config,
)

__all__ = [
    "DEFAULT_TARGET",
    "SWEEPS",
    "SweepResult",
    "SweepRow",
    "parse_sweep",
    "run_sweep",
    "sweep_csv",
]

#: What a sweep may change: its name on the command line → the TrainingConfig field it sets
#: (``convention`` is given to the run beside its config, ``algorithm`` runs that one alone).
SWEEPS = {
    "group-size": "group_size",
    "lr": "learning_rate",
    "beta": "beta",
    "algorithm": "algorithms",
    "convention": "convention",
}
DEFAULT_TARGET = 0.8  # the pass rate "steps to reach" counts to
MAX_SWEEP_VALUES = 12


@dataclass(frozen=True)
class SweepRow:
    """One value's outcome over the seeds."""

    value: str | int | float
    final_pass_rate_mean: float
    final_pass_rate_min: float
    final_pass_rate_max: float
    degenerate_fraction_step1: float  # mean over seeds: groups with all-equal rewards, step 1
    steps_to_target: float | None  # mean over the seeds that reached it; None when none did
    reached: int  # seeds that reached the target pass rate

    def as_dict(self) -> dict:
        """As JSON writes it: a number no seed has (every seed diverged) is null."""
        return {
            "value": self.value,
            "final_pass_rate_mean": _finite(self.final_pass_rate_mean),
            "final_pass_rate_min": _finite(self.final_pass_rate_min),
            "final_pass_rate_max": _finite(self.final_pass_rate_max),
            "degenerate_fraction_step1": _finite(self.degenerate_fraction_step1),
            "steps_to_target": self.steps_to_target,
            "reached": self.reached,
        }


@dataclass(frozen=True)
class SweepResult:
    name: str  # e.g. "group-size"
    values: tuple[str | int | float, ...]
    results: tuple[SweepRow, ...]
    algorithm: str  # the algorithm swept (or the values, for an algorithm sweep)
    seeds: int
    steps: int
    target: float

    def as_dict(self) -> dict:
        return {
            "name": self.name,
            "values": list(self.values),
            "target": self.target,
            "results": [row.as_dict() for row in self.results],
        }


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None


def parse_sweep(text: str) -> tuple[str, tuple[str | int | float, ...]]:
    """``group-size=4,16,32`` → ("group-size", (4, 16, 32)); ValueError naming what is wrong."""
    name, equals, listed = text.partition("=")
    name = name.strip()
    if not equals or name not in SWEEPS:
        raise ValueError(
            f"--sweep takes NAME=V1,V2,… with NAME one of {', '.join(SWEEPS)}; got {text!r}"
        )
    parts = [part.strip() for part in listed.split(",") if part.strip()]
    if not 2 <= len(parts) <= MAX_SWEEP_VALUES:
        raise ValueError(f"--sweep {name} needs 2 to {MAX_SWEEP_VALUES} values; got {len(parts)}")
    if len(set(parts)) != len(parts):
        raise ValueError(f"--sweep {name} lists a value twice")
    values: list[str | int | float] = []
    for part in parts:
        if name == "group-size":
            if not part.isdigit():
                raise ValueError(f"--sweep group-size: {part!r} is not a whole number")
            values.append(int(part))
        elif name in ("lr", "beta"):
            try:
                number = float(part)
            except ValueError:
                raise ValueError(f"--sweep {name}: {part!r} is not a number") from None
            if not math.isfinite(number):
                raise ValueError(f"--sweep {name}: {part!r} is not a finite number")
            values.append(number)
        else:
            values.append(part)
    return name, tuple(values)


def _configured(
    base: TrainingConfig, convention: str, name: str, value: str | int | float
) -> tuple[TrainingConfig, str]:
    if name == "convention":
        return base, check_convention(value)
    if name == "algorithm":
        if value not in ALGORITHMS:
            raise ValueError(
                f"--sweep algorithm: unknown algorithm {value!r}; "
                f"choose from {', '.join(ALGORITHMS)}"
            )
        return check_training_config(replace(base, algorithms=(str(value),))), convention
    field = SWEEPS[name]
    try:
        return check_training_config(replace(base, **{field: value})), convention
    except ValueError as error:
        raise ValueError(f"--sweep {name}={value}: {error}") from None


def run_sweep(
    base: TrainingConfig,
    name: str,
    values: Sequence[str | int | float],
    convention: str = DEFAULT_CONVENTION,
    reward_weights: RewardWeights | None = None,
    target: float = DEFAULT_TARGET,
    progress: Callable[[int, int], None] | None = None,
) -> SweepResult:
    """Run ``base`` once per value with that setting changed (one algorithm: ``base``'s only
    one, or each value of an algorithm sweep); every configuration is checked before any runs."""
    if name != "algorithm" and len(base.algorithms) != 1:
        raise ValueError(
            "a sweep compares one algorithm across values: choose it with --algorithm "
            "(or sweep algorithm=…)"
        )
    if not 0 < target <= 1:
        raise ValueError(f"the target pass rate must be in (0, 1]; got {target!r}")
    planned = [_configured(base, convention, name, value) for value in values]
    rows = []
    for index, ((config, run_convention), value) in enumerate(zip(planned, values)):
        run = TrainingRun(config, run_convention, reward_weights)
        run.run()
        algorithm = config.algorithms[0]
        rows.append(_row(run, algorithm, value, target))
        if progress is not None:
            progress(index + 1, len(planned))
    return SweepResult(
        name=name,
        values=tuple(values),
        results=tuple(rows),
        algorithm="" if name == "algorithm" else base.algorithms[0],
        seeds=base.seeds,
        steps=base.steps,
        target=target,
    )


def _row(run: TrainingRun, algorithm: str, value: str | int | float, target: float) -> SweepRow:
    history = run.history(algorithm)
    rates = history["pass_rate"]  # (steps + 1, S)
    final = rates[-1]
    finite = final[np.isfinite(final)]
    degenerate = history["degenerate_fraction"][1] if rates.shape[0] > 1 else np.array([np.nan])
    reached_steps = []
    for seed in range(rates.shape[1]):
        hits = np.flatnonzero(rates[:, seed] >= target)
        if hits.size:
            reached_steps.append(int(hits[0]))
    return SweepRow(
        value=value,
        final_pass_rate_mean=float(finite.mean()) if finite.size else math.nan,
        final_pass_rate_min=float(finite.min()) if finite.size else math.nan,
        final_pass_rate_max=float(finite.max()) if finite.size else math.nan,
        degenerate_fraction_step1=float(np.nanmean(degenerate))
        if np.isfinite(degenerate).any()
        else math.nan,
        steps_to_target=float(np.mean(reached_steps)) if reached_steps else None,
        reached=len(reached_steps),
    )


def sweep_csv(result: SweepResult) -> str:
    """The table as CSV (one row per value), for a spreadsheet or a worksheet."""
    header = (
        f"{result.name},final_pass_rate_mean,final_pass_rate_min,final_pass_rate_max,"
        f"degenerate_fraction_step1,steps_to_{result.target:g},seeds_reached"
    )
    lines = [header]
    for row in result.results:
        steps = "" if row.steps_to_target is None else f"{row.steps_to_target:g}"
        lines.append(
            f"{row.value},{row.final_pass_rate_mean:.6f},{row.final_pass_rate_min:.6f},"
            f"{row.final_pass_rate_max:.6f},{row.degenerate_fraction_step1:.6f},{steps},"
            f"{row.reached}"
        )
    return "\n".join(lines) + "\n"
