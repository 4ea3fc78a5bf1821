"""A stand-in policy to update: one logit per written token, not a language model.

Pure numpy. A real model's log-probabilities come from billions of shared weights; this stand-in
gives each token of each answer its own logit θ, with ``logp = log σ(θ)`` (the probability of
writing this token rather than any other). Its start is deterministic: seeded by the token's text
and position, so the same answers always start from the same numbers. What carries over to a
real run is everything the loss does with log-probabilities (ratios, clipping, KL, aggregation);
what does not is how a step on shared weights moves many tokens at once.

Inner steps are real gradient steps of the chosen loss: ``θ ← θ − lr · g / max|g|`` with
``g = ∂loss/∂θ = ∂loss/∂logp · (1 − σ(θ))``. Dividing by the largest |g| makes the learning rate
the largest logit move per step, whatever the preset's scale, while keeping every token's share,
so the length bias shows in the update as it does in the loss.
"""

from __future__ import annotations

import functools
import zlib
from collections.abc import Generator, Sequence
from dataclasses import dataclass

import numpy as np

from grpo_desktop.core.formulas.clipped_loss import (
    CheckedLossInputs,
    PolicyLossResult,
    check_loss_inputs,
)

__all__ = [
    "StandinPolicy",
    "UpdateTrajectory",
    "answer_logits",
    "check_inputs",
    "initial_policy",
    "inner_step_pieces",
    "run_inner_steps",
]

_LOW, _HIGH = 0.35, 0.97  # starting probabilities lie in this range


@dataclass(frozen=True)
class StandinPolicy:
    """Per-token logits of a padded batch (B answers × T positions)."""

    logits: np.ndarray  # (B, T); 0 at padding
    mask: np.ndarray  # (B, T) 0/1

    @functools.cached_property
    def logp(self) -> np.ndarray:
        """log σ(θ) at real tokens, 0 at padding (read-only: computed once per policy, since
        the loss, the trajectory and a token's computation all read it)."""
        # log σ(θ) = min(θ, 0) − log1p(exp(−|θ|)): logaddexp's own formula, in vector passes
        # (numpy's logaddexp runs element by element, 3× slower on a 16 × 2,000 batch).
        softplus = np.log1p(np.exp(-np.abs(self.logits)))
        logp = np.minimum(self.logits, 0.0)
        logp -= softplus
        logp[self.mask != 1] = 0.0
        logp.flags.writeable = False
        return logp


@functools.lru_cache(maxsize=4096)
def _probability_range(text: str) -> tuple[float, float]:
    """Where a token's starting probability lies, by what it is (cached: texts repeat)."""
    if any(ch.isdigit() for ch in text):
        return _LOW, 0.75  # numbers: the model is least sure of them
    if not text.strip():
        return 0.9, _HIGH  # whitespace and line breaks: nearly certain
    return 0.55, _HIGH


def _start_probability(text: str, position: int, seed: int) -> float:
    """A fixed, seeded probability for a token: the same text at the same place, the same p."""
    digest = zlib.crc32(f"{seed}\x00{position}\x00{text}".encode())
    low, high = _probability_range(text)
    return low + (high - low) * (digest / 0xFFFFFFFF)


@functools.lru_cache(maxsize=1024)
def _answer_logits(tokens: tuple[str, ...], seed: int) -> np.ndarray:
    """One answer's starting logits (cached: a click re-scores the same answers)."""
    p = np.array([_start_probability(text, column, seed) for column, text in enumerate(tokens)])
    logits = np.log(p / (1.0 - p))
    logits.flags.writeable = False
    return logits


def answer_logits(tokens: Sequence[str], seed: int = 0) -> np.ndarray:
    """One answer's starting logits, read-only (kept: a click re-scores the same answers)."""
    return _answer_logits(tuple(tokens), seed)


def initial_policy(answers: Sequence[Sequence[str]], seed: int = 0) -> StandinPolicy:
    """The stand-in's starting logits for ``answers`` (each a sequence of token texts)."""
    width = max(max((len(tokens) for tokens in answers), default=0), 1)
    logits = np.zeros((len(answers), width))
    mask = np.zeros((len(answers), width))
    for row, tokens in enumerate(answers):
        logits[row, : len(tokens)] = _answer_logits(tuple(tokens), seed)
        mask[row, : len(tokens)] = 1.0
    logits.flags.writeable = False  # a start may be shared (update_step keeps one per group)
    mask.flags.writeable = False
    return StandinPolicy(logits, mask)


@dataclass(frozen=True)
class UpdateTrajectory:
    """The loss at the shown inner step, and the policies it came through."""

    start: StandinPolicy  # the rollout policy: old_logp and the reference
    current: StandinPolicy  # after the inner steps
    result: PolicyLossResult  # the loss and gradient at ``current``
    steps: int


def check_inputs(
    start: StandinPolicy, advantages: np.ndarray, **loss_options: object
) -> CheckedLossInputs:
    """The loss's inputs for steps from ``start`` (old_logp, and the reference when β > 0, are
    its log-probabilities), checked as :func:`policy_loss` checks them."""
    old = start.logp
    reference = old if loss_options.get("beta", 0.0) > 0 else None  # type: ignore[operator]
    return check_loss_inputs(old, advantages, start.mask, ref_logp=reference, **loss_options)


def run_inner_steps(
    start: StandinPolicy,
    advantages: np.ndarray,
    *,
    steps: int,
    learning_rate: float,
    **loss_options,
) -> UpdateTrajectory:
    """Take ``steps`` gradient steps of the loss from ``start``; old_logp and ref stay at start.

    ``loss_options`` go to :func:`policy_loss` (preset, eps_low, eps_high, clip_ratio_c, beta,
    kl_estimator). Step 0 is on-policy: the ratio is 1 everywhere and nothing is clipped.
    """
    pieces = inner_step_pieces(
        start, advantages, steps=steps, learning_rate=learning_rate, **loss_options
    )
    while True:
        try:
            next(pieces)
        except StopIteration as done:
            return done.value


def inner_step_pieces(
    start: StandinPolicy,
    advantages: np.ndarray,
    *,
    steps: int,
    learning_rate: float,
    checked: CheckedLossInputs | None = None,
    **loss_options,
) -> Generator[None, None, UpdateTrajectory]:
    """:func:`run_inner_steps` as pieces: it yields after each evaluation of the loss (step 0's,
    then one per step) and returns the trajectory, so a GUI can run one piece per turn of its
    event loop. The inputs are checked once (the ValueErrors of :func:`policy_loss`, raised by
    the first piece), and each step evaluates the loss unchecked at the policy's own logp;
    ``checked`` is that check done already (:func:`check_loss_inputs` of ``start.logp``,
    ``advantages``, ``start.mask`` and the options, the reference being ``start.logp`` when
    β > 0), for callers that step several presets from one start."""
    if steps < 0:
        raise ValueError(f"inner steps must be >= 0; got {steps}")
    if not np.isfinite(learning_rate) or learning_rate <= 0:
        raise ValueError(f"the learning rate must be a finite number > 0; got {learning_rate}")
    inputs = checked if checked is not None else check_inputs(start, advantages, **loss_options)
    logits = start.logits  # read-only: each step makes a new array
    current = start
    result = inputs.loss_on_policy()  # step 0: loss_at(start.logp), bit for bit, cheaper
    for _ in range(steps):
        yield
        sigma = 1.0 / (1.0 + np.exp(-logits))
        grad = result.grad_logp * (1.0 - sigma)
        largest = float(np.abs(grad).max())
        if largest == 0.0:
            break  # nothing pushes any more (every token clipped, or no signal)
        logits = logits - learning_rate * grad / largest
        current = StandinPolicy(np.where(start.mask == 1, logits, 0.0), start.mask)
        result = inputs.loss_at(current.logp)
    return UpdateTrajectory(start=start, current=current, result=result, steps=steps)
