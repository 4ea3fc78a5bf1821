"""The toy training run, tested as a skeptical reviewer would: reproducible bit for bit, the same
random draws for every algorithm, step 1's degenerate groups as frequent as p^G + (1 − p)^G says,
DAPO never learning from an all-equal group, nothing moving at learning rate 0, every update equal
to the gradient derived independently from :func:`policy_loss` on the group's padded answers, the
learning frontier's formula, the starting pass rates, the critic, and the config's messages."""

from __future__ import annotations

import math
import subprocess
import sys
from dataclasses import replace

import numpy as np
import pytest

import grpo_desktop.core.training.run as training_module
from grpo_desktop.core.formulas.advantages import group_advantages
from grpo_desktop.core.formulas.clipped_loss import LOSS_PRESETS, policy_loss
from grpo_desktop.core.lab.checker import grade
from grpo_desktop.core.lab.lab_rewards import RewardWeights, combined_rewards, component_rewards
from grpo_desktop.core.lab.problems import UnknownProblemError, get_problem
from grpo_desktop.core.training.run import (
    ALGORITHMS,
    METRICS,
    TrainingConfig,
    TrainingRun,
    build_library,
    check_training_config,
    config_from_dict,
    convention_for,
    informative_probability,
)
from grpo_desktop.core.training.training_config import run_inputs_from_dict

SMALL = TrainingConfig(steps=12, seeds=3, batch=4, group_size=4)


def ran(
    config: TrainingConfig,
    steps: int | None = None,
    convention: str = "textbook",
    reward_weights: RewardWeights | None = None,
) -> TrainingRun:
    run = TrainingRun(config, convention, reward_weights)
    run.run(steps)
    return run


def initial_pass_rates(library) -> np.ndarray:
    """Each problem's exact pass rate under the initial softmax, from the library alone."""
    logits = library.initial_logits
    weights = np.where(library.valid, np.exp(logits - logits.max(axis=1, keepdims=True)), 0.0)
    return (weights * library.accuracy).sum(axis=1) / weights.sum(axis=1)


def log_softmax(logits: np.ndarray) -> np.ndarray:
    """Row-wise log-softmax; a -inf logit (no written answer there) stays -inf."""
    shifted = logits - logits.max(axis=-1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))


def logits_of(run: TrainingRun, algorithm: str) -> np.ndarray:
    """The policy's logits (S, P, C). Private state: no public accessor exposes the logits, and
    the update-direction tests need the exact parameters, not only pass rates."""
    return run._states[algorithm].logits.copy()


def candidate_indices(group) -> list[int]:
    """The library column of each answer: trace t's correct version is 2t, its wrong one 2t + 1."""
    return [
        2 * t + (0 if correct else 1)
        for t, correct in zip(group.trace_indices, group.correct_versions)
    ]


# --- reproducibility and shared seeds ------------------------------------------------------------


def test_two_runs_with_one_config_are_identical_bit_for_bit():
    first, second = ran(SMALL), ran(SMALL)
    for name in ALGORITHMS:
        a, b = first.history(name), second.history(name)
        assert set(a) == set(METRICS)
        for metric in METRICS:
            np.testing.assert_array_equal(a[metric], b[metric], err_msg=f"{name} {metric}")
        np.testing.assert_array_equal(first.pass_rates(name), second.pass_rates(name))
        np.testing.assert_array_equal(logits_of(first, name), logits_of(second, name))
        for step in (1, SMALL.steps):
            for seed in range(SMALL.seeds):
                assert first.groups(name, step, seed) == second.groups(name, step, seed)


def test_a_run_at_step_zero_has_made_no_random_streams_yet(tmp_path):
    """Step 0 draws nothing: the streams (and numpy.random's first import, 13 ms of the
    Training page's build) wait for the first step."""
    code = (
        "import sys\n"
        "from grpo_desktop.core.training.run import TrainingRun, TrainingConfig\n"
        "run = TrainingRun(TrainingConfig())\n"
        "assert run.step_count == 0 and run.history('grpo')['pass_rate'].shape[0] > 0\n"
        "print('numpy.random' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp_path,  # not the repository root: that would import the source folder, whose
        # grpo_desktop has no resources subpackage (CI installs the project, not editable)
    )
    assert done.stdout.strip() == "False"


def test_a_copy_made_before_the_first_step_plays_the_same_run_as_the_original():
    original = TrainingRun(SMALL)
    copied = original.copy()
    original.run(SMALL.steps)
    copied.run(SMALL.steps)
    for name in ALGORITHMS:
        np.testing.assert_array_equal(original.pass_rates(name), copied.pass_rates(name))
        assert original.groups(name, SMALL.steps, 0) == copied.groups(name, SMALL.steps, 0)


def test_a_different_seed_gives_a_different_run():
    first, other = ran(SMALL), ran(replace(SMALL, seed=1))
    for name in ALGORITHMS:
        assert not np.array_equal(first.pass_rates(name), other.pass_rates(name)), name
    assert first.groups("grpo", 1, 0) != other.groups("grpo", 1, 0)


def test_the_seeds_of_one_run_differ_from_each_other():
    run = ran(SMALL)
    rates = run.pass_rates("grpo")[-1]  # (S, P)
    assert len({tuple(row) for row in rates.tolist()}) == SMALL.seeds


def test_every_algorithm_draws_the_same_problems_and_answers_at_step_one():
    """Same seeds, side by side: at step 1 every policy is the initial one, so the non-DAPO
    algorithms see identical groups, and DAPO's kept groups begin with the informative ones
    among those same draws, in the same order."""
    run = ran(replace(SMALL, steps=1, seeds=6))
    for seed in range(6):
        reference = run.groups("grpo", 1, seed)
        for name in ("reinforce", "ppo_critic", "dr_grpo", "rloo"):
            groups = run.groups(name, 1, seed)
            assert [g.problem_id for g in groups] == [g.problem_id for g in reference], name
            assert [g.trace_indices for g in groups] == [g.trace_indices for g in reference]
            assert [g.correct_versions for g in groups] == [g.correct_versions for g in reference]
            assert [g.rewards for g in groups] == [g.rewards for g in reference]
        informative = [g for g in reference if len(set(g.rewards)) > 1]
        dapo = run.groups("dapo", 1, seed)[: len(informative)]
        assert [(g.problem_id, g.trace_indices, g.correct_versions) for g in dapo] == [
            (g.problem_id, g.trace_indices, g.correct_versions) for g in informative
        ]


@pytest.mark.parametrize("alone", ["grpo", "reinforce", "ppo_critic", "dapo"])
def test_an_algorithms_run_does_not_depend_on_which_others_run_beside_it(alone):
    """`grpo-desktop train -a grpo` and the six-algorithm run must show the same GRPO curve for
    the same seed: "same seeds, side by side" means the draws are the seed's, not the lineup's."""
    config = replace(SMALL, steps=3)
    together = ran(config)
    by_itself = ran(replace(config, algorithms=(alone,)))
    assert by_itself.groups(alone, 1, 0) == together.groups(alone, 1, 0)
    np.testing.assert_array_equal(by_itself.pass_rates(alone), together.pass_rates(alone))


def test_the_lineup_without_dapo_does_not_change_the_draws():
    config = replace(SMALL, steps=3)
    np.testing.assert_array_equal(
        ran(replace(config, algorithms=("grpo",))).pass_rates("grpo"),
        ran(replace(config, algorithms=("rloo", "grpo"))).pass_rates("grpo"),
    )


# --- what a step records -------------------------------------------------------------------------


def test_shapes_and_step_zero():
    run = ran(SMALL)
    problems = len(run.library.problems)
    for name in ALGORITHMS:
        history = run.history(name)
        for metric, values in history.items():
            assert values.shape == (SMALL.steps + 1, SMALL.seeds), metric
        assert run.pass_rates(name).shape == (SMALL.steps + 1, SMALL.seeds, problems)
        for metric in ("degenerate_fraction", "groups_sampled", "groups_used", "grad_norm"):
            assert np.all(np.isnan(history[metric][0])), (name, metric)
            assert np.all(np.isfinite(history[metric][1:])), (name, metric)
        np.testing.assert_array_equal(history["kl"][0], 0.0)
        assert np.all(history["kl"] >= -1e-12)
        np.testing.assert_allclose(history["pass_rate"], run.pass_rates(name).mean(axis=2))
        assert np.all(np.isnan(history["critic_error"])) == (name != "ppo_critic")


def test_a_finished_run_does_not_step_and_groups_checks_the_step():
    run = ran(replace(SMALL, steps=2))
    assert run.finished and run.step_count == 2
    before = run.pass_rates("grpo").copy()
    run.step()
    run.run(5)
    assert run.step_count == 2
    np.testing.assert_array_equal(run.pass_rates("grpo"), before)
    for step in (0, 3):
        with pytest.raises(ValueError, match="step must be from 1 to 2"):
            run.groups("grpo", step)


def test_recorded_degenerate_fraction_and_groups_used_agree_with_the_groups():
    run = ran(SMALL)
    for name in ("reinforce", "ppo_critic", "grpo", "dr_grpo", "rloo"):
        history = run.history(name)
        for step in range(1, SMALL.steps + 1):
            for seed in range(SMALL.seeds):
                groups = run.groups(name, step, seed)
                degenerate = np.mean([len(set(g.rewards)) == 1 for g in groups])
                assert history["degenerate_fraction"][step, seed] == degenerate
                assert history["groups_used"][step, seed] == SMALL.batch
                assert history["groups_sampled"][step, seed] == SMALL.batch
                assert all(g.used for g in groups)


@pytest.mark.parametrize("group_size", [2, 8])
def test_step_one_degenerate_fraction_matches_p_to_the_g_plus_q_to_the_g(group_size):
    """At step 1 the groups come from the initial policy, so a group of problem i is all right
    or all wrong with probability p_i^G + (1 − p_i)^G; averaged over many draws the recorded
    fraction must agree within the binomial standard error."""
    library = build_library()
    p = initial_pass_rates(library)
    index = {pid: row for row, pid in enumerate(library.problem_ids)}
    observed, expected, variance, count = 0.0, 0.0, 0.0, 0
    for seed in range(3):
        config = TrainingConfig(
            algorithms=("grpo",), steps=1, seeds=32, batch=64, group_size=group_size, seed=seed
        )
        run = ran(config)
        observed += run.history("grpo")["degenerate_fraction"][1].sum() * config.batch
        for s in range(config.seeds):
            for group in run.groups("grpo", 1, s):
                pi = p[index[group.problem_id]]
                q = pi**group_size + (1 - pi) ** group_size
                expected += q
                variance += q * (1 - q)
                count += 1
    standard_error = math.sqrt(variance) / count
    assert count == 3 * 32 * 64
    assert abs(observed / count - expected / count) < 4 * standard_error, (
        observed / count,
        expected / count,
        standard_error,
    )
    # and the draws themselves cover the library evenly: the unconditional expectation agrees too
    unconditional = np.mean(p**group_size + (1 - p) ** group_size)
    assert abs(expected / count - unconditional) < 0.02


def test_step_one_answers_follow_the_initial_policy():
    """The share of right answers sampled at step 1 matches the drawn problems' pass rates."""
    library = build_library()
    p = initial_pass_rates(library)
    index = {pid: row for row, pid in enumerate(library.problem_ids)}
    run = ran(TrainingConfig(algorithms=("grpo",), steps=1, seeds=32, batch=64, group_size=8))
    right, expected, variance, n = 0.0, 0.0, 0.0, 0
    for s in range(32):
        for group in run.groups("grpo", 1, s):
            pi = p[index[group.problem_id]]
            right += sum(group.rewards)
            expected += 8 * pi
            variance += 8 * pi * (1 - pi)
            n += 8
    assert abs(right - expected) < 4 * math.sqrt(variance)


# --- DAPO's dynamic sampling ---------------------------------------------------------------------


def test_dapo_never_updates_on_a_degenerate_group():
    run = ran(TrainingConfig(algorithms=("dapo",), steps=30, seeds=8, batch=6, group_size=4))
    history = run.history("dapo")
    for step in range(1, 31):
        for seed in range(8):
            groups = run.groups("dapo", step, seed)
            assert len(groups) == 6
            for group in groups:
                informative = len(set(group.rewards)) > 1
                assert group.used == informative
                if not group.used:
                    assert group.advantages == (0.0,) * 4
            used = sum(g.used for g in groups)
            assert history["groups_used"][step, seed] == used
            assert used <= history["groups_sampled"][step, seed] <= 6 * 3
            # the used groups come first, in the order they were drawn
            flags = [g.used for g in groups]
            assert flags == sorted(flags, reverse=True)


def test_dapo_with_every_group_degenerate_takes_no_step():
    """One easy problem (p = 0.85), G = 2, one draw: three groups in four are all right or all
    wrong, so many seeds see nothing to learn from at some step, and those must not move."""
    config = TrainingConfig(
        algorithms=("dapo",),
        problem_ids=("percent-15-of-80",),
        steps=20,
        seeds=16,
        batch=1,
        group_size=2,
        dapo_max_draws=1,
    )
    run = TrainingRun(config)
    still = 0
    for step in range(1, 21):
        before = logits_of(run, "dapo")
        run.step()
        after = logits_of(run, "dapo")
        history = run.history("dapo")
        for seed in range(16):
            if history["groups_used"][step, seed] == 0:
                still += 1
                assert history["grad_norm"][step, seed] == 0.0
                np.testing.assert_array_equal(after[seed], before[seed])
                assert run.pass_rates("dapo")[step, seed] == run.pass_rates("dapo")[step - 1, seed]
                assert history["degenerate_fraction"][step, seed] == 1.0
            else:
                assert history["grad_norm"][step, seed] > 0.0
                assert not np.array_equal(after[seed], before[seed])
    assert still > 20  # the case was exercised, many times


def test_dapo_draws_more_groups_when_groups_are_degenerate():
    run = ran(TrainingConfig(algorithms=("dapo",), steps=200, seeds=4))
    history = run.history("dapo")
    assert np.all(history["groups_sampled"][1:] >= 8)
    late = history["groups_sampled"][-20:].mean()
    assert late > history["groups_sampled"][1:21].mean()  # the policy got sure: more redraws


# --- learning rate zero ----------------------------------------------------------------------


@pytest.mark.parametrize("extra", [{}, {"epochs": 3, "beta": 0.5}])
def test_learning_rate_zero_moves_nothing(extra):
    config = replace(SMALL, learning_rate=0.0, **extra)
    run = TrainingRun(config)
    start = {name: logits_of(run, name) for name in ALGORITHMS}
    run.run()
    for name in ALGORITHMS:
        np.testing.assert_array_equal(logits_of(run, name), start[name], err_msg=name)
        rates = run.pass_rates(name)
        np.testing.assert_array_equal(rates, np.broadcast_to(rates[0], rates.shape))
        history = run.history(name)
        np.testing.assert_array_equal(history["kl"], 0.0)
        entropy = history["entropy"]
        np.testing.assert_array_equal(entropy, np.broadcast_to(entropy[0], entropy.shape))
        # the gradient itself is not zero: only the step is
        assert np.all(history["grad_norm"][1:].max(axis=0) > 0), name


# --- the update equals the loss's gradient -----------------------------------------------------


def reference_update(run, name, logits, groups, seed):
    """One step of ``name`` on ``groups`` from ``logits`` (P, C), computed independently: the
    padded (N, T) batch every library sees, with each token of an answer carrying that answer's
    log-probability, ∂loss/∂logp_answer = Σ_t grad_logp[i, t], then through the softmax:
    ∂logp_c/∂θ = onehot(c) − π."""
    config, library = run.config, run.library
    rows = [library.problem_ids.index(g.problem_id) for g in groups for _ in g.rewards]
    columns = [c for g in groups for c in candidate_indices(g)]
    used = np.array([g.used for g in groups for _ in g.rewards])
    advantages = np.array([a for g in groups for a in g.advantages])
    lengths = library.lengths[rows, columns] * used
    width = library.max_length
    mask = (np.arange(width)[None, :] < lengths[:, None]).astype(np.float64)
    ref = np.repeat(log_softmax(library.initial_logits)[rows, columns][:, None], width, axis=1)
    eps_low, eps_high = config.clip_range(name)
    logits = logits.copy()
    old = None
    for _ in range(config.epochs):
        log_policy = log_softmax(logits)
        answer_logp = np.repeat(log_policy[rows, columns][:, None], width, axis=1)
        old = answer_logp if old is None else old
        result = policy_loss(
            answer_logp,
            old,
            advantages,
            mask,
            preset=config.loss_preset(name),
            ref_logp=ref,
            eps_low=eps_low,
            eps_high=eps_high,
            beta=config.beta,
        )
        per_answer = result.grad_logp.sum(axis=1)
        grad = np.zeros_like(logits)
        policy = np.exp(log_policy)
        for row, column, g in zip(rows, columns, per_answer):
            onehot = np.zeros(logits.shape[1])
            onehot[column] = 1.0
            grad[row] += g * np.where(library.valid[row], onehot - policy[row], 0.0)
        logits = logits - config.learning_rate * grad
    return logits


def test_grpo_one_group_moves_the_logits_along_minus_the_policy_loss_gradient():
    """One problem, one group, one step: (θ₁ − θ₀)/lr = −Σ_i (Σ_t ∂loss/∂logp_it)(onehot_i − π)."""
    config = TrainingConfig(
        algorithms=("grpo",),
        problem_ids=("mult-23x47",),
        steps=1,
        seeds=1,
        batch=1,
        learning_rate=0.5,
    )
    for seed in range(20):  # the first seed whose group is not all right or all wrong
        run = TrainingRun(replace(config, seed=seed))
        before = logits_of(run, "grpo")[0, 0]
        run.step()
        (group,) = run.groups("grpo", 1, 0)
        if len(set(group.rewards)) > 1:
            break
    else:
        pytest.fail("no informative group in 20 seeds")
    after = logits_of(run, "grpo")[0, 0]
    library = run.library
    rewards = np.array(group.rewards)
    np.testing.assert_allclose(group.advantages, group_advantages(rewards, "textbook"))
    columns = candidate_indices(group)
    np.testing.assert_array_equal(library.accuracy[0, columns], rewards)

    lengths = library.lengths[0, columns]
    width = library.max_length
    policy = np.exp(before - before.max())
    policy /= policy.sum()
    logp = np.log(policy)[columns]
    batch_logp = np.repeat(logp[:, None], width, axis=1)
    mask = (np.arange(width)[None, :] < lengths[:, None]).astype(float)
    loss = policy_loss(batch_logp, batch_logp, group.advantages, mask, preset="verl/token-mean")
    d_logp = loss.grad_logp.sum(axis=1)  # each answer: Σ_t over its tokens
    # token-mean on-policy: ∂loss/∂logp_i = −A_i · n_i / Σ n
    np.testing.assert_allclose(d_logp, -np.array(group.advantages) * lengths / lengths.sum())
    gradient = np.zeros_like(before)
    for column, g in zip(columns, d_logp):
        gradient += g * (np.eye(len(before))[column] - policy)
    np.testing.assert_allclose((after - before) / config.learning_rate, -gradient, atol=1e-12)
    # and the step raises the right answers' probability (descent on the loss)
    assert run.pass_rates("grpo")[1, 0, 0] > run.pass_rates("grpo")[0, 0, 0]


@pytest.mark.parametrize("name", ALGORITHMS)
def test_every_algorithms_update_equals_the_reference_gradient_step(name):
    config = TrainingConfig(
        algorithms=(name,), steps=4, seeds=2, batch=4, group_size=4, learning_rate=2.0
    )
    run = TrainingRun(config)
    for step in range(1, config.steps + 1):
        before = logits_of(run, name)
        run.step()
        after = logits_of(run, name)
        for seed in range(config.seeds):
            groups = run.groups(name, step, seed)
            if not any(g.used for g in groups):
                np.testing.assert_array_equal(after[seed], before[seed])
                continue
            expected = reference_update(run, name, before[seed], groups, seed)
            np.testing.assert_allclose(after[seed], expected, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize(
    "changes",
    [
        {"preset": "verl/seq-mean-token-mean"},
        {"preset": "verl/seq-mean-token-sum-norm"},
        {"preset": "trl/grpo"},
        {"preset": "trl/gspo"},
        {"preset": "openrlhf/ppo_sample", "run_convention": "trl"},
        {"epochs": 3, "eps_low": 0.05, "eps_high": 0.1},  # off-policy epochs: the clip engages
        {"beta": 0.3, "epochs": 2},
        {"run_convention": "trl_batch"},
        {"algorithms": ("dapo",), "epochs": 3, "beta": 0.2},  # clip-higher 0.2/0.28, off-policy
        {"algorithms": ("dr_grpo",), "epochs": 2},
        {"algorithms": ("ppo_critic",), "epochs": 2, "preset": "openrlhf/ppo_token"},
    ],
)
def test_the_update_equals_the_reference_under_other_losses(changes):
    changes = dict(changes)
    convention = changes.pop("run_convention", "textbook")
    config = replace(
        TrainingConfig(algorithms=("grpo",), steps=3, seeds=2, batch=4, group_size=4), **changes
    )
    assert config.preset in LOSS_PRESETS
    (name,) = config.algorithms
    run = TrainingRun(config, convention)
    for step in range(1, config.steps + 1):
        before = logits_of(run, name)
        run.step()
        after = logits_of(run, name)
        for seed in range(config.seeds):
            groups = run.groups(name, step, seed)
            if not any(g.used for g in groups):
                continue
            expected = reference_update(run, name, before[seed], groups, seed)
            np.testing.assert_allclose(after[seed], expected, rtol=1e-9, atol=1e-12)


def test_trl_batch_advantages_use_each_seeds_whole_batch():
    config = replace(SMALL, algorithms=("grpo",))
    run = ran(config, convention="trl_batch")
    for seed in range(config.seeds):
        groups = run.groups("grpo", 2, seed)
        rewards = np.array([g.rewards for g in groups])
        expected = group_advantages(rewards, "trl_batch")
        np.testing.assert_allclose([g.advantages for g in groups], expected)


@pytest.mark.parametrize(
    ("name", "convention"),
    [("grpo", "textbook"), ("dr_grpo", "dr_grpo"), ("rloo", "rloo"), ("dapo", "textbook")],
)
def test_recorded_advantages_follow_the_algorithms_convention(name, convention):
    run = ran(replace(SMALL, algorithms=(name,)))
    for step in (1, SMALL.steps):
        for group in run.groups(name, step, 1):
            if not group.used:
                continue
            np.testing.assert_allclose(
                group.advantages, group_advantages(np.array(group.rewards), convention)
            )


def test_reinforce_and_ppo_advantages_at_step_one():
    run = ran(replace(SMALL, steps=1, algorithms=("reinforce", "ppo_critic")))
    for group in run.groups("reinforce", 1, 0):
        assert group.advantages == group.rewards
    for group in run.groups("ppo_critic", 1, 0):  # V starts at 0.5 for every problem
        np.testing.assert_allclose(group.advantages, np.array(group.rewards) - 0.5)


# --- the learning frontier ---------------------------------------------------------------------


@pytest.mark.parametrize("group_size", [1, 2, 4, 8, 16, 64])
def test_frontier_is_zero_at_the_ends_symmetric_and_peaks_at_one_half(group_size):
    assert informative_probability(0.0, group_size) == 0.0
    assert informative_probability(1.0, group_size) == 0.0
    assert informative_probability(0.5, group_size) == pytest.approx(1 - 2 * 0.5**group_size)
    p = np.linspace(0.0, 1.0, 1001)
    values = informative_probability(p, group_size)
    np.testing.assert_allclose(values, values[::-1], atol=1e-15)
    np.testing.assert_allclose(
        values, np.maximum(1 - p**group_size - (1 - p) ** group_size, 0), atol=1e-15
    )
    assert values.max() == pytest.approx(values[500])
    assert np.all((values >= 0) & (values <= 1))


def test_frontier_is_vectorised_and_exact_for_tiny_p():
    grid = np.array([[0.0, 0.25], [0.5, 1.0]])
    values = informative_probability(grid, 4)
    assert values.shape == (2, 2)
    assert isinstance(informative_probability(0.3, 4), float)
    assert isinstance(informative_probability(np.float64(0.3), 4), float)
    assert informative_probability([0.5, 0.5], 2).tolist() == [0.5, 0.5]
    assert informative_probability(1e-12, 8) == pytest.approx(8e-12, rel=1e-9)
    assert informative_probability(1 - 1e-12, 8) == pytest.approx(8e-12, rel=1e-3)


@pytest.mark.parametrize(
    ("p", "group_size", "message"),
    [
        (-0.1, 4, "p must lie between 0 and 1"),
        (1.5, 4, "p must lie between 0 and 1"),
        (float("nan"), 4, "p must lie between 0 and 1"),
        ([0.2, 1.01], 4, "p must lie between 0 and 1"),
        (0.5, 0, "group_size must be >= 1"),
        (0.5, -3, "group_size must be >= 1"),
        (0.5, 2.0, "group_size must be a whole number"),
        (0.5, True, "group_size must be a whole number"),
    ],
)
def test_frontier_refuses_bad_input(p, group_size, message):
    with pytest.raises(ValueError, match=message):
        informative_probability(p, group_size)


# --- the starting point ------------------------------------------------------------------------


def test_initial_pass_rates_are_the_stated_rates():
    library = build_library()
    stated = np.array([min(max(p.pass_rate, 0.02), 0.98) for p in library.problems])
    np.testing.assert_allclose(initial_pass_rates(library), stated, rtol=1e-12)
    run = TrainingRun(replace(SMALL, steps=1))
    for name in ALGORITHMS:
        np.testing.assert_allclose(
            run.pass_rates(name)[0], np.broadcast_to(stated, (3, len(stated)))
        )


def test_the_checker_grades_every_correct_version_right_and_every_wrong_one_wrong():
    """The premise of "pass rate = stated rate": the written versions grade as labelled."""
    library = build_library()
    for row, problem in enumerate(library.problems):
        for index, trace in enumerate(problem.traces):
            assert grade(trace.correct, problem.answer_key).reward == 1.0, (problem.id, index)
            assert grade(trace.wrong, problem.answer_key).reward == 0.0, (problem.id, index)
            assert library.accuracy[row, 2 * index] == 1.0
            assert library.accuracy[row, 2 * index + 1] == 0.0


@pytest.mark.parametrize(
    ("stated", "starts_at"), [(0.0, 0.02), (1.0, 0.98), (0.01, 0.02), (0.3, 0.3)]
)
def test_a_stated_rate_of_zero_or_one_starts_just_inside(monkeypatch, stated, starts_at):
    import grpo_desktop.core.training.run as training

    original = get_problem("mult-23x47")
    monkeypatch.setattr(training, "get_problem", lambda pid: replace(original, pass_rate=stated))
    library = training.grade_library(("mult-23x47",))
    assert initial_pass_rates(library)[0] == pytest.approx(starts_at, rel=1e-12)


# --- the critic --------------------------------------------------------------------------------


def test_ppo_critic_error_falls():
    run = ran(TrainingConfig(algorithms=("ppo_critic",), steps=100, seeds=4))
    error = run.history("ppo_critic")["critic_error"]
    assert np.all(np.isfinite(error))
    assert np.all(error[-1] < error[0] / 2), (error[0], error[-1])
    assert error[-10:].mean() < error[1:11].mean()


def test_critic_lr_zero_keeps_the_critic_at_one_half():
    run = ran(TrainingConfig(algorithms=("ppo_critic",), steps=5, seeds=2, critic_lr=0.0))
    error = run.history("ppo_critic")["critic_error"]
    rates = run.pass_rates("ppo_critic")
    np.testing.assert_allclose(error, np.sqrt(((rates - 0.5) ** 2).mean(axis=2)))


# --- learning happens, and the frontier runs out --------------------------------------------


def test_every_algorithm_learns_and_degenerate_groups_grow_as_it_does():
    run = ran(TrainingConfig(steps=200, seeds=4))
    for name in ALGORITHMS:
        history = run.history(name)
        assert history["pass_rate"][-1].mean() > history["pass_rate"][0].mean() + 0.1, name
        if name != "dapo":  # DAPO's fraction counts every group it drew, including redraws
            early = history["degenerate_fraction"][1:21].mean()
            late = history["degenerate_fraction"][-20:].mean()
            assert late > early, name


# --- configuration -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"algorithms": ()}, "choose at least one algorithm"),
        ({"algorithms": ("ppo",)}, "unknown algorithm 'ppo'; choose from: reinforce, ppo_critic"),
        ({"algorithms": ("grpo", "grpo")}, "each algorithm may be chosen once"),
        ({"steps": 0}, "steps must be from 1 to 5000; got 0"),
        ({"seeds": 33}, "seeds must be from 1 to 32; got 33"),
        ({"seeds": -1}, "seeds must be from 1 to 32; got -1"),
        ({"group_size": 1}, "group_size must be from 2 to 64; got 1"),
        ({"batch": 65}, "batch must be from 1 to 64; got 65"),
        ({"steps": 2.5}, "steps must be a whole number; got 2.5"),
        ({"seeds": True}, "seeds must be a whole number; got True"),
        ({"learning_rate": -0.1}, "learning_rate must be from 0 to 100; got -0.1"),
        ({"learning_rate": float("inf")}, "learning_rate must be from 0 to 100; got inf"),
        ({"learning_rate": "4"}, "learning_rate must be a number; got '4'"),
        ({"critic_lr": 1.5}, "critic_lr must be from 0 to 1; got 1.5"),
        ({"preset": "verl/nope"}, "unknown loss preset 'verl/nope'; choose from: verl/token-mean"),
    ],
)
def test_config_validation_names_the_field_and_the_range(changes, message):
    with pytest.raises(ValueError) as error:
        check_training_config(replace(TrainingConfig(), **changes))
    assert message in str(error.value)
    with pytest.raises(ValueError):
        TrainingRun(replace(TrainingConfig(), **changes))


def test_an_unknown_problem_id_is_refused():
    with pytest.raises(UnknownProblemError):
        check_training_config(replace(TrainingConfig(), problem_ids=("no-such-problem",)))


def test_learning_rate_zero_and_the_limits_themselves_are_accepted():
    one = ("grpo",)
    check_training_config(replace(TrainingConfig(), learning_rate=0.0, steps=5000, algorithms=one))
    check_training_config(
        replace(TrainingConfig(), steps=10, seeds=32, group_size=64, batch=64, epochs=8)
    )


def test_a_run_too_large_to_keep_its_groups_is_refused_up_front():
    from grpo_desktop.core.training.run import MAX_STORED_GROUP_BYTES, stored_group_bytes

    huge = replace(TrainingConfig(), steps=5000, seeds=32, batch=64, group_size=64)
    assert stored_group_bytes(huge) > MAX_STORED_GROUP_BYTES
    with pytest.raises(ValueError, match=r"would keep .* MB of sampled groups"):
        check_training_config(huge)
    assert stored_group_bytes(TrainingConfig()) < 2**23  # the default run keeps under 8 MB


def test_the_published_limits_are_the_ones_the_check_enforces():
    from grpo_desktop.core.training.training_config import TRAINING_LIMITS

    small = TrainingConfig(algorithms=("grpo",), steps=10, seeds=1, batch=1, group_size=2)
    for name, (low, high) in TRAINING_LIMITS.items():
        whole = isinstance(getattr(small, name), int)
        for value in (low, high):
            check_training_config(replace(small, **{name: int(value) if whole else value}))
        below, above = (low - 1, high + 1) if whole else (low - 1e-9, high + 1e-9)
        for value in (below, above):
            with pytest.raises(ValueError, match=name):
                check_training_config(replace(small, **{name: value}))


def test_the_largest_value_that_fits_is_the_last_one_the_check_accepts():
    from grpo_desktop.core.training.training_config import largest_stored_value

    config = TrainingConfig(steps=2000, seeds=16)
    most = largest_stored_value(config, "batch")
    assert most == 16
    check_training_config(replace(config, batch=most))
    with pytest.raises(ValueError, match="would keep"):
        check_training_config(replace(config, batch=most + 1))
    assert largest_stored_value(TrainingConfig(), "steps") == 5000  # the limit, not the memory
    with pytest.raises(ValueError, match="does not bound"):
        largest_stored_value(config, "beta")


@pytest.mark.parametrize(
    ("changes", "text"),
    [
        (
            {"batch": 32},  # issue 24, item 6: the window crashed here
            "Batch 32 was not applied: this run would keep 498 MB of sampled groups (at most "
            "256 MB). With the other settings as they are, batch can be at most 16; it stays 8.",
        ),
        (
            {"group_size": 64},
            "G 64 was not applied: this run would keep 945 MB of sampled groups (at most 256 MB). "
            "With the other settings as they are, G can be at most 16; it stays 8.",
        ),
        (
            {"beta": 11.0},
            "KL β 11 was not applied: beta must be from 0 to 10; got 11.0; it stays 0.",
        ),
        ({"batch": 16}, ""),
    ],
)
def test_a_refused_change_is_explained_with_the_setting_its_limit_and_the_value_in_force(
    changes, text
):
    from grpo_desktop.core.training.training_config import refused_change_text

    current = TrainingConfig(steps=2000, seeds=16)
    assert refused_change_text(current, replace(current, **changes)) == text


def test_a_refused_algorithm_is_named():
    from grpo_desktop.core.training.training_config import refused_change_text

    current = replace(
        TrainingConfig(steps=2000, seeds=16), algorithms=ALGORITHMS[:5], batch=10, group_size=16
    )
    check_training_config(current)  # five algorithms fit, six do not
    assert refused_change_text(current, replace(current, algorithms=ALGORITHMS)) == (
        "Adding DAPO was not applied: this run would keep 302 MB of sampled groups (at most "
        "256 MB)."
    )


def test_config_from_dict():
    config = config_from_dict({"algorithms": ["grpo", "dapo"], "steps": 10, "problem_ids": []})
    assert config.algorithms == ("grpo", "dapo") and config.steps == 10 and config.problem_ids == ()
    with pytest.raises(ValueError, match="unknown training setting"):
        config_from_dict({"stpes": 10})
    with pytest.raises(ValueError, match="algorithms must be a list of names"):
        config_from_dict({"algorithms": "grpo"})
    with pytest.raises(ValueError, match="steps must be from 1 to 5000"):
        config_from_dict({"steps": 0})


def test_dapo_batch_std_counts_only_the_groups_it_keeps():
    """With TRL's batch std (convention trl_batch), DAPO's advantages must come from the groups
    that enter the update: the all-equal groups it dropped are not part of the batch (verl's
    DAPO filters groups before computing advantages)."""
    run = ran(TrainingConfig(algorithms=("dapo",), steps=150, seeds=4), convention="trl_batch")
    checked = 0
    for step in range(100, 151):
        for seed in range(4):
            used = [g for g in run.groups("dapo", step, seed) if g.used]
            if not used:
                continue
            expected = group_advantages(np.array([g.rewards for g in used]), "trl_batch")
            np.testing.assert_allclose([g.advantages for g in used], expected)
            checked += 1
    assert checked > 0


# --- reward functions: the run's rewards are the lab's weighted sum ----------------------------

WEIGHTED = RewardWeights(accuracy=1.0, format=0.5, partial=1.0)


def test_default_weights_reproduce_the_checkers_0_1_run_bit_for_bit(monkeypatch):
    """The weighted sum at the default weights (1 × accuracy, 0 × the rest) must change nothing:
    the same run with the library's rewards forced to the checker's 0/1 verdicts is identical."""
    config = TrainingConfig(steps=25, seeds=3, batch=4, group_size=6, seed=11, epochs=2, beta=0.01)
    weighted = ran(config)
    monkeypatch.setattr(
        training_module.CandidateLibrary, "rewards", lambda self, weights=None: self.accuracy
    )
    plain = ran(config)
    assert weighted.reward_weights == RewardWeights()
    for name in ALGORITHMS:
        for metric, values in weighted.history(name).items():
            np.testing.assert_array_equal(values, plain.history(name)[metric], err_msg=metric)
        np.testing.assert_array_equal(weighted.pass_rates(name), plain.pass_rates(name))
        for step in (1, 13, 25):
            assert weighted.groups(name, step, 2) == plain.groups(name, step, 2)


def test_the_librarys_components_are_the_labs_for_the_same_cards():
    """Candidate 2t is trace t's right version, 2t + 1 its wrong one: shown as cards in that
    order, the lab's component_rewards give the library's format and partial credit."""
    library = build_library()
    for row, problem in enumerate(library.problems):
        cards = replace(problem, traces=tuple(t for t in problem.traces for _ in range(2)))
        flags = [column % 2 == 0 for column in range(2 * len(problem.traces))]
        width = len(flags)
        lab = component_rewards(cards, flags, library.accuracy[row, :width])
        np.testing.assert_array_equal(library.format[row, :width], lab["format"], problem.id)
        np.testing.assert_array_equal(library.partial[row, :width], lab["partial"], problem.id)
        assert np.isnan(library.format[row, width:]).all()
        assert np.isnan(library.partial[row, width:]).all()


def test_a_problem_without_a_format_skips_the_format_reward(monkeypatch):
    """No declared format: NaN (skipped by nansum), so a format weight changes no reward; right
    versions never get partial credit."""
    original = get_problem("mult-23x47")
    monkeypatch.setattr(
        training_module, "get_problem", lambda pid: replace(original, answer_format=None)
    )
    library = training_module.grade_library(("mult-23x47",))
    assert np.isnan(library.format).all()
    assert np.isnan(library.partial[0, 0::2]).all()
    np.testing.assert_array_equal(
        library.rewards(RewardWeights(format=0.5)), library.rewards(RewardWeights())
    )


def test_weighted_runs_reward_each_answer_with_trls_nansum_of_the_components():
    run = ran(SMALL, reward_weights=WEIGHTED)
    library = run.library
    expected = combined_rewards(library.components(), WEIGHTED)
    np.testing.assert_array_equal(run.rewards, np.where(library.valid, expected, 0.0))
    assert set(np.unique(run.rewards[library.valid])) - {0.0, 1.0}  # not just the checker's
    for name in ALGORITHMS:
        for group in run.groups(name, 12, 0):
            row = library.problem_ids.index(group.problem_id)
            columns = candidate_indices(group)
            assert group.rewards == tuple(float(expected[row, c]) for c in columns)


def test_pass_rates_and_answer_lengths_stay_the_checkers_whatever_the_weights():
    """The algorithms learn from the weighted reward; the pass rate still counts what the checker
    calls right (a wrong answer in the right format is not a pass)."""
    run = ran(SMALL, reward_weights=WEIGHTED)
    library = run.library
    logits = logits_of(run, "grpo")
    policy = np.where(library.valid, np.exp(log_softmax(logits)), 0.0)
    np.testing.assert_allclose(
        run.pass_rates("grpo")[-1], (policy * library.accuracy).sum(axis=-1), rtol=1e-12
    )
    np.testing.assert_allclose(run.pass_rates("grpo")[0][0], initial_pass_rates(library))
    groups = [g for g in run.groups("grpo", 12, 0)]
    right = [
        library.lengths[library.problem_ids.index(g.problem_id), c]
        for g in groups
        for c, ok in zip(candidate_indices(g), g.correct_versions)
        if ok
    ]
    assert run.history("grpo")["correct_length"][-1, 0] == pytest.approx(np.mean(right))


def test_a_format_weight_gives_an_all_right_group_signal():
    """Under 0/1 rewards an all-right group is degenerate; with the format reward its answers
    differ, so GRPO pushes the well-formed ones and DAPO keeps the group."""
    config = replace(SMALL, steps=30)
    run = ran(config, reward_weights=RewardWeights(format=0.5))
    found = 0
    for step in range(1, 31):
        for seed in range(3):
            for name in ("grpo", "dapo"):
                for group in run.groups(name, step, seed):
                    if all(group.correct_versions) and len(set(group.rewards)) > 1:
                        assert group.used
                        assert any(a != 0 for a in group.advantages)
                        found += 1
    assert found > 0
    plain = ran(config)
    degenerate = run.history("grpo")["degenerate_fraction"][1:].mean()
    assert degenerate < plain.history("grpo")["degenerate_fraction"][1:].mean()


def test_the_critic_learns_the_mean_weighted_reward():
    """V(problem) tracks the mean reward its groups scored; its error is measured against the
    policy's true mean reward (the pass rate only under 0/1 rewards)."""
    config = TrainingConfig(algorithms=("ppo_critic",), steps=5, seeds=2, critic_lr=0.0)
    run = ran(config, reward_weights=WEIGHTED)
    library = run.library
    policy = np.where(library.valid, np.exp(log_softmax(logits_of(run, "ppo_critic"))), 0.0)
    mean_reward = (policy * run.rewards).sum(axis=-1)
    error = run.history("ppo_critic")["critic_error"][-1]
    np.testing.assert_allclose(error, np.sqrt(((mean_reward - 0.5) ** 2).mean(axis=1)))


def test_config_from_dict_reads_reward_weights_and_the_convention_beside_the_config():
    data = {"reward_weights": {"accuracy": 1, "format": 0.5}, "convention": "trl", "steps": 9}
    assert config_from_dict(data) == TrainingConfig(steps=9)
    assert run_inputs_from_dict(data) == (
        "trl",
        RewardWeights(accuracy=1.0, format=0.5, partial=0.0),
    )
    assert run_inputs_from_dict({}) == (None, None)
    with pytest.raises(ValueError, match="unknown convention 'nope'; choose from: textbook"):
        config_from_dict({"convention": "nope"})
    with pytest.raises(ValueError, match=r"unknown reward function\(s\) 'fromat'.*accuracy"):
        config_from_dict({"reward_weights": {"fromat": 0.5}})
    with pytest.raises(ValueError, match=r"reward_weights: weight of 'format' must be between"):
        config_from_dict({"reward_weights": {"format": 11}})
    with pytest.raises(ValueError, match=r"reward_weights: weight of 'partial' must be a number"):
        config_from_dict({"reward_weights": {"partial": "0.5"}})
    with pytest.raises(ValueError, match="reward_weights must be an object"):
        config_from_dict({"reward_weights": [1, 0.5, 0]})


def test_a_run_refuses_weights_that_are_not_reward_weights_and_unknown_conventions():
    with pytest.raises(ValueError, match="reward_weights must be RewardWeights"):
        TrainingRun(TrainingConfig(), reward_weights={"accuracy": 1})
    with pytest.raises(ValueError, match="unknown convention 'nope'; choose from: textbook"):
        TrainingRun(TrainingConfig(), "nope")


def test_convention_for_gives_dr_grpo_and_rloo_their_own():
    assert [convention_for(name, "trl") for name in ALGORITHMS] == [
        "trl",
        "trl",
        "trl",
        "dr_grpo",
        "rloo",
        "trl",
    ]


# --- divergence ---------------------------------------------------------------------------------

#: β 10 with 8 epochs overflows DAPO's logits at step 1 in most seeds (issue 24, item 7); the other
#: algorithms stay finite.
DIVERGING = TrainingConfig(algorithms=("grpo", "dapo"), steps=6, seeds=3, beta=10.0, epochs=8)


def test_a_diverging_run_names_the_algorithm_the_seeds_and_the_first_step():
    run = ran(DIVERGING)
    dapo = run.divergence("dapo")
    assert dapo.diverged and dapo.first_step == 1
    assert len(dapo.steps) == 3 and dapo.seed_count >= 1
    sentence = dapo.sentence()
    assert sentence.startswith("DAPO diverged ") and "step 1" in sentence
    assert "nan" not in sentence.lower()
    assert not run.divergence("grpo").diverged and run.divergence("grpo").sentence() == ""


def test_a_diverged_seed_has_no_numbers_from_its_divergence_on_and_none_are_nan_before():
    run = ran(DIVERGING)
    history = run.history("dapo")
    for seed, step in enumerate(run.divergence("dapo").steps):
        if step is None:
            continue
        for metric in ("pass_rate", "entropy", "kl"):
            assert np.isfinite(history[metric][:step, seed]).all()
            assert np.isnan(history[metric][step:, seed]).all()
        # The groups of the diverging step were drawn from a real policy; later ones were not.
        assert np.isfinite(history["groups_used"][step, seed])
        assert np.isnan(history["groups_used"][step + 1 :, seed]).all()
        assert np.isnan(run.pass_rates("dapo")[step:, seed]).all()
        assert run.groups("dapo", step, seed)
        if step < run.step_count:
            assert run.groups("dapo", step + 1, seed) == ()


def test_a_training_step_raises_no_numpy_warning_even_when_it_diverges():
    import warnings

    run = TrainingRun(DIVERGING)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # any RuntimeWarning that would reach stderr fails here
        run.run()
    assert run.divergence("dapo").diverged


def test_a_stable_run_reports_no_divergence():
    run = ran(SMALL)
    for name in SMALL.algorithms:
        divergence = run.divergence(name)
        assert not divergence.diverged and divergence.first_step is None
        assert divergence.steps == (None,) * SMALL.seeds


@pytest.mark.parametrize(
    ("steps", "sentence"),
    [
        (
            (1, 1),
            "DAPO diverged at step 1 in every seed: its logits overflowed, so it has no "
            "numbers from step 1 on.",
        ),
        (
            (None, 3, 4),
            "DAPO diverged in 2 of 3 seeds, the first at step 3: its logits "
            "overflowed, so from step 3 on its numbers are the other seed's only.",
        ),
        (
            (1, 2),
            "DAPO diverged in every seed, the first at step 1 and the last at step 2: its "
            "logits overflowed, so from step 1 on its numbers come from the seeds still running, "
            "and from step 2 on it has none.",
        ),
    ],
)
def test_the_divergence_sentence_says_which_algorithm_which_seeds_and_from_which_step(
    steps, sentence
):
    text = training_module.Divergence("dapo", steps).sentence()
    assert text.startswith(sentence)
    assert text.endswith("A smaller learning rate or β, or fewer epochs, may keep it finite.")


# --- a run with other algorithms, at the same step -------------------------------------------


def assert_same_algorithm(first: TrainingRun, second: TrainingRun, name: str) -> None:
    assert first.step_count == second.step_count
    for metric, values in first.history(name).items():
        assert values.tobytes() == second.history(name)[metric].tobytes(), (name, metric)
    assert first.pass_rates(name).tobytes() == second.pass_rates(name).tobytes(), name
    assert logits_of(first, name).tobytes() == logits_of(second, name).tobytes(), name
    for step in range(1, first.step_count + 1):
        assert first.groups(name, step, 1) == second.groups(name, step, 1), (name, step)


@pytest.mark.parametrize(
    ("before", "after"),
    [
        (("grpo", "rloo", "dapo"), ("grpo", "dapo")),  # one unchecked
        (("grpo", "rloo"), ("grpo", "rloo", "dapo")),  # DAPO added: its own stream caught up
        (("grpo", "dapo"), ("reinforce", "grpo")),  # one out, one in
    ],
)
def test_a_run_with_other_algorithms_keeps_its_steps_and_plays_on_as_a_fresh_run_would(
    before, after
):
    config = replace(SMALL, algorithms=before)
    played = ran(config, 5)
    changed = played.with_algorithms(after)
    assert changed.step_count == 5 and changed.config.algorithms == after
    changed.run(4)
    fresh = ran(replace(SMALL, algorithms=after), 9)
    for name in after:
        assert_same_algorithm(changed, fresh, name)
    assert played.step_count == 5, "the run it came from is left as it was"
    played.run(4)
    for name in before:
        assert_same_algorithm(played, ran(config, 9), name)


def test_a_runs_nbytes_counts_its_arrays_and_grows_with_the_groups_it_keeps():
    run = TrainingRun(SMALL)
    empty = run.nbytes
    assert empty > 0
    run.run(3)
    assert run.nbytes > empty


# --- a step a part at a time ---------------------------------------------------------------------


def test_a_run_stepped_a_part_at_a_time_is_the_run_stepped_whole_bit_for_bit():
    whole = ran(SMALL, 7)
    parts = TrainingRun(SMALL)
    taken = 0
    while parts.step_count < 7:
        parts.step_part()
        taken += 1
    assert taken == 7 * len(SMALL.algorithms), "a part per algorithm"
    for name in SMALL.algorithms:
        assert_same_algorithm(parts, whole, name)
        np.testing.assert_array_equal(logits_of(parts, name), logits_of(whole, name))


def test_a_step_begun_shows_nothing_until_it_is_whole():
    config = replace(DIVERGING, algorithms=("dapo", "grpo"))  # DAPO's part (it diverges) first
    run = TrainingRun(config)
    before = {name: run.history(name)["pass_rate"].copy() for name in config.algorithms}
    assert not run.step_part(), "DAPO's share of the step"
    assert run.stepping and run.step_count == 0
    assert run._states["dapo"].diverged_at.any(), "its logits overflowed in this part"
    for name in config.algorithms:
        assert run.history(name)["pass_rate"].tobytes() == before[name].tobytes()
        assert run.pass_rates(name).shape[0] == 1
        assert not run.divergence(name).diverged, "a divergence counts once its step does"
    assert run.step_part(), "GRPO's share: the step is whole"
    assert not run.stepping and run.step_count == 1
    assert run.divergence("dapo").first_step == 1
    whole = TrainingRun(config)
    whole.step()
    for name in config.algorithms:
        assert_same_algorithm(run, whole, name)


def test_step_finishes_a_step_begun_and_counts_it_once():
    run = TrainingRun(SMALL)
    run.step_part()
    run.step()
    assert run.step_count == 1 and not run.stepping
    for name in SMALL.algorithms:
        assert_same_algorithm(run, ran(SMALL, 1), name)


def test_a_run_with_other_algorithms_finishes_the_step_begun_first():
    run = TrainingRun(SMALL)
    run.run(2)
    run.step_part()
    changed = run.with_algorithms(("grpo", "rloo"))
    assert changed.step_count == 3 and not changed.stepping
    assert run.step_count == 3 and not run.stepping
    changed.run(2)
    fresh = ran(replace(SMALL, algorithms=("grpo", "rloo")), 5)
    for name in ("grpo", "rloo"):
        assert_same_algorithm(changed, fresh, name)


def test_a_finished_run_takes_no_part():
    run = ran(SMALL)
    assert run.finished and not run.step_part() and not run.stepping
    assert run.step_count == SMALL.steps


def test_the_library_graded_a_few_problems_a_step_is_the_library_graded_at_once():
    """library_steps grades LIBRARY_ROWS_PER_STEP problems a step (the whole library at once
    is longer than a frame) and leaves the result for build_library, which grades nothing."""
    ids = ("mult-23x47", *[pid for pid in build_library().problem_ids if pid != "mult-23x47"][:6])
    steps = list(training_module.library_steps(ids))
    per_step = training_module.LIBRARY_ROWS_PER_STEP
    assert len(steps) == math.ceil(len(ids) / per_step)
    assert steps[-1] == f"problem library: {len(ids)} of {len(ids)} graded"
    graded = build_library(ids)
    assert build_library(ids) is graded
    at_once = training_module.grade_library(ids)
    assert graded.problem_ids == at_once.problem_ids == ids
    for name in ("accuracy", "format", "partial", "valid", "lengths", "initial_logits"):
        np.testing.assert_array_equal(getattr(graded, name), getattr(at_once, name), err_msg=name)
        assert not getattr(graded, name).flags.writeable


def test_the_library_kept_already_takes_no_grading_step(monkeypatch):
    """The prebuild's grading is skipped when the run's library was graded before (a second
    window, a lesson's run): it would grade all of it again in idle time, for nothing."""
    ids = ("mult-23x47",)
    kept = build_library(ids)
    monkeypatch.setattr(
        training_module, "_LibraryGrading", lambda *_: pytest.fail("graded a kept library again")
    )
    assert list(training_module.library_steps(ids)) == []
    assert build_library(ids) is kept


def test_the_libraries_kept_are_the_most_recently_used(monkeypatch):
    monkeypatch.setattr(training_module, "_LIBRARIES", type(training_module._LIBRARIES)())
    monkeypatch.setattr(training_module, "LIBRARIES_KEPT", 2)
    first = build_library(("mult-23x47",))
    second_id = next(pid for pid in build_library().problem_ids if pid != "mult-23x47")
    assert build_library(("mult-23x47",)) is first  # used last: the whole library goes first
    build_library((second_id,))
    assert list(training_module._LIBRARIES) == [("mult-23x47",), (second_id,)]
    assert build_library(("mult-23x47",)) is first
