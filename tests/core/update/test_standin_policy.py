"""The stand-in policy: seeded, honest about being a table of logits, and really updated."""

from __future__ import annotations

import numpy as np
import pytest

from grpo_desktop.core import policy_loss
from grpo_desktop.core.formulas import clipped_loss
from grpo_desktop.core.update.standin_policy import (
    StandinPolicy,
    initial_policy,
    inner_step_pieces,
    run_inner_steps,
)

ANSWERS = (("20", " ×", " 47", " =", " 940"), ("Answer", ":", " 1081"), (" no",))


def test_the_start_is_deterministic_and_depends_on_the_seed():
    first = initial_policy(ANSWERS, seed=0)
    again = initial_policy(ANSWERS, seed=0)
    other = initial_policy(ANSWERS, seed=1)
    np.testing.assert_array_equal(first.logits, again.logits)
    assert not np.array_equal(first.logits, other.logits)


def test_start_probabilities_are_plausible_and_padding_is_zero():
    policy = initial_policy(ANSWERS)
    real = policy.mask == 1
    p = np.exp(policy.logp[real])
    assert np.all((p > 0.3) & (p < 0.98))
    assert np.all(policy.logp[~real] == 0.0)
    assert policy.mask.sum(axis=1).tolist() == [5, 3, 1]


def test_log_probabilities_are_log_sigmoid_to_the_last_bits_at_any_logit():
    logits = np.array([[-800.0, -40.0, -1.5, -1e-12, 0.0, 1e-12, 2.0, 40.0, 800.0, 3.0]])
    mask = np.ones_like(logits)
    mask[0, -1] = 0.0  # padding
    logp = StandinPolicy(logits, mask).logp
    exact = -np.logaddexp(0.0, -logits[0, :-1])
    np.testing.assert_allclose(logp[0, :-1], exact, rtol=4e-16, atol=0.0)
    assert np.all(np.isfinite(logp)) and logp[0, -1] == 0.0 and logp[0, 8] == 0.0
    assert not logp.flags.writeable  # shared by the loss and every reader: never changed


def test_step_zero_is_on_policy():
    start = initial_policy(ANSWERS)
    trajectory = run_inner_steps(
        start, np.array([1.0, -1.0, 0.5]), steps=0, learning_rate=0.5, preset="verl/token-mean"
    )
    assert np.all(trajectory.result.ratio[start.mask == 1] == 1.0)
    assert not trajectory.result.clipped.any()


def test_inner_steps_raise_pushed_up_tokens_and_lower_pushed_down_ones():
    start = initial_policy(ANSWERS)
    trajectory = run_inner_steps(
        start, np.array([1.0, -1.0, 0.0]), steps=1, learning_rate=0.5, preset="trl/dapo"
    )
    moved = trajectory.current.logp - start.logp
    assert np.all(moved[0, :5] > 0) and np.all(moved[1, :3] < 0)
    assert moved[2, 0] == 0.0  # A = 0: no push, no move


def test_enough_steps_make_the_clip_engage_and_the_kl_grow():
    start = initial_policy(ANSWERS)
    advantages = np.array([1.0, -1.0, 0.5])
    kl = []
    for steps in (1, 3, 8):
        trajectory = run_inner_steps(
            start, advantages, steps=steps, learning_rate=0.5, preset="verl/token-mean", beta=0.1
        )
        kl.append(float((trajectory.result.kl * start.mask).sum()))
    assert kl[0] < kl[1] < kl[2]
    assert trajectory.result.clipped.any()


def test_bad_step_counts_and_learning_rates_are_refused():
    start = initial_policy(ANSWERS)
    with pytest.raises(ValueError, match="inner steps"):
        run_inner_steps(start, np.zeros(3), steps=-1, learning_rate=0.5, preset="trl/dapo")
    with pytest.raises(ValueError, match="learning rate"):
        run_inner_steps(start, np.zeros(3), steps=1, learning_rate=0.0, preset="trl/dapo")


def _checked_at_every_step(start, advantages, steps, learning_rate, **options):
    """The inner steps with every input checked at every step (policy_loss each time)."""
    old = start.logp
    options["ref_logp"] = old if options.get("beta", 0.0) > 0 else None
    logits, current = start.logits.copy(), start
    result = policy_loss(current.logp, old, advantages, start.mask, **options)
    for _ in range(steps):
        grad = result.grad_logp * (1.0 - 1.0 / (1.0 + np.exp(-logits)))
        largest = float(np.abs(grad).max())
        if largest == 0.0:
            break
        logits = logits - learning_rate * grad / largest
        current = StandinPolicy(np.where(start.mask == 1, logits, 0.0), start.mask)
        result = policy_loss(current.logp, old, advantages, start.mask, **options)
    return current, result


@pytest.mark.parametrize(
    "preset", ["verl/token-mean", "trl/grpo", "trl/gspo", "openrlhf/ppo_token"]
)
def test_inner_steps_checking_inputs_once_equal_checking_them_at_every_step(preset, monkeypatch):
    start = initial_policy(ANSWERS)
    advantages = np.array([1.0, -1.0, 0.5])
    options = dict(preset=preset, eps_low=0.2, eps_high=0.28, beta=0.05)
    checks = []
    real_check = clipped_loss.check_loss_inputs

    def counted(*args, **kwargs):
        checks.append(1)
        return real_check(*args, **kwargs)

    monkeypatch.setattr("grpo_desktop.core.update.standin_policy.check_loss_inputs", counted)
    trajectory = run_inner_steps(start, advantages, steps=5, learning_rate=0.5, **options)
    assert checks == [1]  # once per computation, not at each of its 6 evaluations
    current, result = _checked_at_every_step(start, advantages, 5, 0.5, **options)
    np.testing.assert_array_equal(trajectory.current.logits, current.logits)
    np.testing.assert_array_equal(trajectory.result.grad_logp, result.grad_logp)
    assert trajectory.result.loss == result.loss


def test_inner_steps_in_pieces_are_one_loss_evaluation_each():
    start = initial_policy(ANSWERS)
    advantages = np.array([1.0, -1.0, 0.5])
    pieces = inner_step_pieces(start, advantages, steps=3, learning_rate=0.5, preset="trl/dapo")
    count = 0
    while True:
        try:
            next(pieces)
            count += 1
        except StopIteration as done:
            trajectory = done.value
            break
    assert count == 3  # step 0's evaluation, then one piece per step (the last one returns)
    whole = run_inner_steps(start, advantages, steps=3, learning_rate=0.5, preset="trl/dapo")
    np.testing.assert_array_equal(trajectory.result.grad_logp, whole.result.grad_logp)
