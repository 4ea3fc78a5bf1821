"""Step 0 of the inner steps, on-policy: the loss worked out per answer
(:meth:`CheckedLossInputs.loss_on_policy`) is the loss evaluated cell by cell at
``logp = old_logp`` (:meth:`CheckedLossInputs.loss_at`), to the bit, for every preset and option
the Update workspace can set."""

from __future__ import annotations

import dataclasses
import itertools

import numpy as np
import pytest

from grpo_desktop.core.formulas.clipped_loss import LOSS_PRESETS, check_loss_inputs

ALL = tuple(LOSS_PRESETS)


def _batch(seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Ragged answers (one of them empty), their log-probs and advantages of every sign."""
    rng = np.random.default_rng(seed)
    lengths = [7, 1, 0, 12, 5, 12]
    width = max(lengths)
    mask = np.zeros((len(lengths), width))
    for row, length in enumerate(lengths):
        mask[row, :length] = 1.0
    old = np.where(mask == 1, np.log(rng.uniform(0.01, 0.99, mask.shape)), 0.0)
    advantages = np.array([1.3, -0.7, 0.0, -2.1, 0.0, 0.45])
    return old, advantages, mask


def _options(name: str):
    """Every combination of the options that change the loss's form for ``name``."""
    spec = LOSS_PRESETS[name]
    duals = (None, True) if spec.dual_clip_optional else (None,)
    betas = (0.0, 0.04)
    for dual, beta, estimator, eps in itertools.product(
        duals, betas, spec.kl_estimators, ((0.2, 0.2), (0.1, 0.28))
    ):
        if beta == 0.0 and estimator != spec.kl_estimators[0]:
            continue  # the estimator is unused at β = 0
        yield dict(
            dual_clip=dual,
            beta=beta,
            kl_estimator=estimator,
            eps_low=eps[0],
            eps_high=eps[1],
            clip_ratio_c=3.0,
        )


def _same_bits(a: object, b: object) -> bool:
    if a is None or b is None:
        return a is b
    x, y = np.asarray(a), np.asarray(b)
    if x.shape != y.shape or x.dtype != y.dtype:
        return False
    if x.dtype == bool:
        return bool(np.array_equal(x, y))
    return x.tobytes() == y.tobytes()  # bit for bit: −0.0 is not +0.0


@pytest.mark.parametrize("name", ALL)
@pytest.mark.parametrize("seed", [0, 1])
def test_step_zero_worked_out_per_answer_equals_the_loss_evaluated_at_old_logp(name, seed):
    old, advantages, mask = _batch(seed)
    for options in _options(name):
        ref = old if options["beta"] > 0 else None
        inputs = check_loss_inputs(old, advantages, mask, preset=name, ref_logp=ref, **options)
        evaluated = inputs.loss_at(old)
        closed = inputs.loss_on_policy()
        for field in dataclasses.fields(evaluated):
            got, want = getattr(closed, field.name), getattr(evaluated, field.name)
            if field.name == "preset":
                assert got == want
                continue
            assert _same_bits(got, want), (name, options, field.name)


@pytest.mark.parametrize("name", ALL)
def test_step_zero_worked_out_per_answer_when_every_advantage_is_zero(name):
    old, _advantages, mask = _batch(3)
    inputs = check_loss_inputs(old, np.zeros(len(mask)), mask, preset=name)
    evaluated, closed = inputs.loss_at(old), inputs.loss_on_policy()
    for field in dataclasses.fields(evaluated):
        if field.name != "preset":
            assert _same_bits(getattr(closed, field.name), getattr(evaluated, field.name))
