"""One GRPO step on the toy policy: answers above the mean become more likely, by the loss's own
gradient (checked against finite differences of ``policy_loss``, the function in
grpo_desktop/core/formulas/clipped_loss.py the Update step and the Training run use)."""

from __future__ import annotations

import numpy as np
import pytest

from grpo_desktop.core.formulas.advantages import group_advantages
from grpo_desktop.core.formulas.clipped_loss import LOSS_PRESETS, policy_loss
from grpo_desktop.core.lab.problems import DEFAULT_PROBLEM_ID, get_problem
from grpo_desktop.core.training.one_step import (
    candidate_logits,
    toy_loss_gradient,
    toy_one_step,
)
from grpo_desktop.core.update.pretokenize import pretokenize_pieces

CORRECT = (True, False, False, True)


def _loss_at(logits, problem, correct, advantages, preset, start_logp):
    """policy_loss with every token of an answer carrying that answer's log-probability."""
    log_policy = logits - np.logaddexp.reduce(logits)
    traces = len(problem.traces)
    lengths = [len(pretokenize_pieces(problem.trace_for(i).text(f))) for i, f in enumerate(correct)]
    width = max(lengths)
    mask = np.array([[1.0] * n + [0.0] * (width - n) for n in lengths])
    logp = np.array(
        [log_policy[2 * (i % traces) + (0 if f else 1)] for i, f in enumerate(correct)]
    )[:, None] * np.ones((1, width))
    old = start_logp[:, None] * np.ones((1, width))
    return policy_loss(
        logp * mask, old * mask, advantages, mask, preset=preset, max_completion_length=width
    ).loss


@pytest.mark.parametrize("preset", ["verl/token-mean", "trl/grpo", "trl/dr_grpo", "trl/dapo"])
def test_the_step_follows_the_losss_gradient(preset):
    problem = get_problem(DEFAULT_PROBLEM_ID)
    advantages = group_advantages(np.array([1.0, 0, 0, 1]), "textbook")
    logits = candidate_logits(problem)
    candidates, grad = toy_loss_gradient(problem, CORRECT, advantages, logits, preset)
    start = (logits - np.logaddexp.reduce(logits))[candidates]
    numeric = np.zeros_like(logits)
    for k in range(len(logits)):
        up, down = logits.copy(), logits.copy()
        up[k] += 1e-6
        down[k] -= 1e-6
        numeric[k] = (
            _loss_at(up, problem, CORRECT, advantages, preset, start)
            - _loss_at(down, problem, CORRECT, advantages, preset, start)
        ) / 2e-6
    np.testing.assert_allclose(grad, numeric, atol=1e-7)


def test_answers_above_the_mean_become_more_likely_and_below_less():
    step = toy_one_step(get_problem(DEFAULT_PROBLEM_ID), CORRECT, [1, 0, 0, 1], convention="verl")
    assert [a.change for a in step.answers] == [
        "more likely",
        "less likely",
        "less likely",
        "more likely",
    ]
    assert all(a.p_before == pytest.approx(1 / 16) for a in step.answers)  # 8 traces, p = 0.5


def test_an_all_equal_group_moves_nothing_and_lr_zero_moves_nothing():
    problem = get_problem(DEFAULT_PROBLEM_ID)
    flat = toy_one_step(problem, CORRECT, [1, 1, 1, 1], convention="textbook")
    still = toy_one_step(problem, CORRECT, [1, 0, 0, 1], convention="textbook", lr=0.0)
    for step in (flat, still):
        assert all(a.p_after == pytest.approx(a.p_before, abs=1e-15) for a in step.answers)


def test_every_preset_and_its_name_is_reported():
    problem = get_problem(DEFAULT_PROBLEM_ID)
    for preset in LOSS_PRESETS:
        step = toy_one_step(problem, CORRECT, [1, 0, 0, 1], convention="textbook", preset=preset)
        assert step.as_dict()["preset"] == preset


@pytest.mark.parametrize(
    ("rewards", "lr", "words"),
    [
        ([1, 0, 0], 4.0, "one reward each"),
        ([1, 0, 0, float("nan")], 4.0, "finite"),
        ([1, 0, 0, 1], -1.0, "learning rate"),
    ],
)
def test_bad_input_is_refused_with_a_sentence(rewards, lr, words):
    with pytest.raises(ValueError, match=words):
        toy_one_step(
            get_problem(DEFAULT_PROBLEM_ID), CORRECT, rewards, convention="textbook", lr=lr
        )
