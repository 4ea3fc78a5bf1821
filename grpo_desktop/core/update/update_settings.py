"""The Update workspace's settings: what they are, their limits, checked, read from files, and
the two demonstrations (Length bias, Clip-higher).

Split from :mod:`grpo_desktop.core.update.update_step` so the workbench and scenario files can hold
the
settings without loading the tokenizer and the stand-in policy (start-up stays near a bare
window). Pure Python.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields, replace

from grpo_desktop.core.formulas.clipped_loss import get_loss_preset

__all__ = [
    "CLIP_HIGHER_CORRECT",
    "CLIP_HIGHER_PROBLEM_ID",
    "LENGTH_BIAS_SETTINGS",
    "MAX_INNER_STEPS",
    "UPDATE_LIMITS",
    "UpdateLimit",
    "UpdateSettings",
    "check_update_settings",
    "clip_higher_settings",
    "settings_from_dict",
]


@dataclass(frozen=True)
class UpdateSettings:
    """Everything a lecturer sets in the Update workspace (saved in scenarios, undoable)."""

    preset: str = "verl/token-mean"
    compare_preset: str = "verl/seq-mean-token-mean"
    eps_low: float = 0.2
    eps_high: float = 0.2
    clip_ratio_c: float = 3.0
    beta: float = 0.0
    kl_estimator: str = "k3"
    inner_steps: int = 0
    learning_rate: float = 0.5
    # The comparison's own ε_high, or None for the main one's: one preset against itself with
    # two upper clips (Clip-higher: DAPO's 0.28 against the symmetric 0.2) is a comparison too.
    compare_eps_high: float | None = None

    @property
    def compare_clip(self) -> tuple[float, float]:
        """The comparison side's (ε_low, ε_high)."""
        high = self.compare_eps_high
        return (self.eps_low, self.eps_high if high is None else high)

    @property
    def clips_differ(self) -> bool:
        """The two sides clip at different ranges."""
        return self.compare_clip != (self.eps_low, self.eps_high)

    def compare_side(self) -> UpdateSettings:
        """The settings the comparison side runs under: its preset and its clip range as the
        main ones (the comparison's own fields cleared, so equal sides share one cache entry)."""
        low, high = self.compare_clip
        return replace(
            self,
            preset=self.compare_preset,
            eps_low=low,
            eps_high=high,
            compare_eps_high=None,
        )


MAX_INNER_STEPS = 50


@dataclass(frozen=True)
class UpdateLimit:
    """A setting's range: ``low`` to ``high``, the low end itself refused when ``low_open``."""

    low: float
    high: float
    low_open: bool = False  # c must exceed 1, a learning rate must be positive

    def admits(self, value: float) -> bool:
        return (self.low < value if self.low_open else self.low <= value) and value <= self.high

    def lowest(self, decimals: int) -> float:
        """The least value a control showing ``decimals`` decimals may offer."""
        return self.low + 10.0**-decimals if self.low_open else self.low

    @property
    def text(self) -> str:
        """``between 0 and 10``, or ``in (0, 5]`` when the low end is refused."""
        if self.low_open:
            return f"in ({self.low:g}, {self.high:g}]"
        return f"between {self.low:g} and {self.high:g}"


_EPS = UpdateLimit(0.0, 10.0)
#: Each numeric setting's range, as :func:`check_update_settings` enforces it: the Update
#: controls take their spin boxes' ranges from here, so they never offer a value it refuses.
UPDATE_LIMITS: dict[str, UpdateLimit] = {
    "eps_low": _EPS,
    "eps_high": _EPS,
    "compare_eps_high": _EPS,
    "clip_ratio_c": UpdateLimit(1.0, 20.0, low_open=True),
    "beta": UpdateLimit(0.0, 10.0),
    "learning_rate": UpdateLimit(0.0, 5.0, low_open=True),
    "inner_steps": UpdateLimit(0, MAX_INNER_STEPS),
}
LENGTH_BIAS_SETTINGS = UpdateSettings(
    preset="verl/token-mean", compare_preset="verl/seq-mean-token-mean", inner_steps=0
)


#: The group Clip-higher shows: the lab's own 23 × 47, two right answers and two wrong. Their
#: number tokens start unlikely (p 0.35–0.75), so pushed up they reach ratio 1.2 within a step
#: or two; on it, after 4 inner steps, 27 of the 46 tokens with A > 0 are clipped under the
#: symmetric ε_high 0.2 and 19 under 0.28.
CLIP_HIGHER_PROBLEM_ID = "mult-23x47"
CLIP_HIGHER_CORRECT = (True, False, False, True)


def clip_higher_settings(settings: UpdateSettings) -> UpdateSettings:
    """DAPO's clip-higher against the symmetric clip: TRL's ``dapo`` loss on both sides, ε_low
    0.2 on both, ε_high 0.28 (solid) against 0.2 (hatched), after 4 inner steps at learning
    rate 0.5 so the clip engages, and β = 0 (DAPO drops the KL term; TRL's default too).
    TRL ``GRPOConfig(epsilon=0.2, epsilon_high=0.28, loss_type="dapo")``; verl's DAPO recipe
    sets the same range as ``clip_ratio_low`` / ``clip_ratio_high``."""
    return replace(
        settings,
        preset="trl/dapo",
        compare_preset="trl/dapo",
        eps_low=0.2,
        eps_high=0.28,
        compare_eps_high=0.2,
        beta=0.0,
        inner_steps=4,
        learning_rate=0.5,
    )


def check_update_settings(settings: UpdateSettings) -> UpdateSettings:
    """``settings`` if every value is usable; a ValueError naming the bad one otherwise."""
    get_loss_preset(settings.preset)
    get_loss_preset(settings.compare_preset)
    for name in ("eps_low", "eps_high", "clip_ratio_c", "beta", "learning_rate"):
        value = getattr(settings, name)
        if (
            isinstance(value, bool)
            or not isinstance(value, (int, float))
            or not math.isfinite(value)
        ):
            raise ValueError(f"{name} must be a finite number; got {value!r}")
    limits = UPDATE_LIMITS
    eps = limits["eps_low"]
    if not limits["eps_low"].admits(settings.eps_low) or not limits["eps_high"].admits(
        settings.eps_high
    ):
        raise ValueError(f"eps_low and eps_high must lie {eps.text}")
    value = settings.compare_eps_high  # None: the comparison clips as the main side does
    if value is not None and (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        or not math.isfinite(value)
        or not limits["compare_eps_high"].admits(value)
    ):
        raise ValueError(
            f"compare_eps_high must be null or lie {limits['compare_eps_high'].text}; got {value!r}"
        )
    c = limits["clip_ratio_c"]
    if not c.admits(settings.clip_ratio_c):
        raise ValueError(
            f"clip_ratio_c must be > {c.low:g} and at most {c.high:g}; "
            f"got {settings.clip_ratio_c!r}"
        )
    for name in ("beta", "learning_rate"):
        if not limits[name].admits(getattr(settings, name)):
            raise ValueError(
                f"{name} must lie {limits[name].text}; got {getattr(settings, name)!r}"
            )
    steps, most = settings.inner_steps, limits["inner_steps"]
    if isinstance(steps, bool) or not isinstance(steps, int) or not most.admits(steps):
        raise ValueError(f"inner_steps must be a whole number from {most.low:g} to {most.high:g}")
    if settings.kl_estimator not in ("k1", "k2", "k3"):
        raise ValueError(f"kl_estimator must be k1, k2 or k3; got {settings.kl_estimator!r}")
    return settings


def settings_from_dict(data: dict) -> UpdateSettings:
    """Settings from a scenario file's mapping (unknown keys refused, types checked)."""
    known = {field.name for field in fields(UpdateSettings)}
    unknown = sorted(set(data) - known)
    if unknown:
        raise ValueError(f"unknown update setting(s): {', '.join(unknown)}")
    return check_update_settings(replace(UpdateSettings(), **data))
