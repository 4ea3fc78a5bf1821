"""GRPO on the tiny model: the project's own advantages and loss, a seeded run, learning."""

import copy
from dataclasses import asdict, replace

import numpy as np
import pytest

from grpo_desktop.core.formulas.advantages import group_advantages
from grpo_desktop.core.formulas.clipped_loss import policy_loss
from grpo_desktop.core.lab.lab_rewards import RewardWeights
from grpo_desktop.core.tinylm import load_model
from grpo_desktop.core.tinylm.adam import Adam
from grpo_desktop.core.tinylm.batch import completion_pass, teacher_batch
from grpo_desktop.core.tinylm.evaluation import exact_pass_rates
from grpo_desktop.core.tinylm.grpo import LMTrainingRun
from grpo_desktop.core.tinylm.grpo_config import LM_ALGORITHMS, LMTrainingConfig, check_lm_config
from grpo_desktop.core.tinylm.tasks import get_task
from grpo_desktop.core.tinylm.vocab import encode

SMALL = LMTrainingConfig(steps=3, batch=6, group_size=4, eval_every=0)


@pytest.fixture(scope="module")
def start():
    return load_model()


def without_time(metrics):
    return [{k: v for k, v in asdict(m).items() if k != "seconds"} for m in metrics]


def test_seeded_runs_are_bit_for_bit_reproducible(start):
    runs = [LMTrainingRun(replace(SMALL, seed=7), start) for _ in range(2)]
    for run in runs:
        run.run()
    a, b = runs
    assert without_time(a.metrics) == without_time(b.metrics)
    assert a.groups == b.groups
    for name, value in a.model.parameters().items():
        assert np.array_equal(value, b.model.parameters()[name]), name
    other = LMTrainingRun(replace(SMALL, seed=8), start)
    other.run()
    assert other.groups != a.groups


def test_the_run_leaves_its_starting_model_alone(start):
    before = {k: v.copy() for k, v in start.parameters().items()}
    LMTrainingRun(SMALL, start).run()
    assert all(np.array_equal(before[k], v) for k, v in start.parameters().items())


@pytest.mark.slow  # 20 steps of 32 sampled answers: about 4 s
def test_a_short_run_raises_the_training_prompts_pass_rate(start):
    task = get_task("add")
    prompts = task.train_prompts(np.random.default_rng(123), 64)
    run = LMTrainingRun(LMTrainingConfig(steps=20, batch=32, eval_every=0), start)
    before = exact_pass_rates(run.model, task, prompts).mean()
    run.run()
    after = exact_pass_rates(run.model, task, prompts).mean()
    assert after > before + 0.04
    assert [e.step for e in run.evals] == [0, 20]


def test_advantages_loss_and_update_are_the_projects_own(start):
    """Redo one step by hand from the recorded groups: group_advantages, policy_loss, the
    network's backward and Adam give exactly the run's numbers and weights."""
    config = replace(SMALL, steps=1, beta=0.1, convention="verl", preset="verl/seq-mean-token-mean")
    run = LMTrainingRun(config, start)
    metrics = run.step()
    update = run.last_update
    (groups,) = run.groups
    rewards = np.array([g.rewards for g in groups])
    assert np.array_equal(update.rewards, rewards)
    assert np.array_equal(update.advantages, group_advantages(rewards, "verl"))

    task = get_task("add")
    prompts = [encode(g.prompt) for g in groups for _ in g.completions]
    completions = [encode(c) for g in groups for c in g.completions]
    model = start.astype(np.float32)
    batch = teacher_batch(prompts, completions, model.config.n_ctx)
    forward_pass = completion_pass(model.parameters(), model.config, batch)
    logp = forward_pass.logp.astype(np.float64)
    ref = completion_pass(start.parameters(), model.config, batch).logp.astype(np.float64)
    expected = policy_loss(
        logp,
        logp,
        update.advantages.ravel(),
        batch.mask,
        preset="verl/seq-mean-token-mean",
        ref_logp=ref,
        beta=0.1,
        max_completion_length=task.max_new,
    )
    assert np.array_equal(update.logp, logp)
    assert np.array_equal(update.losses[0].grad_logp, expected.grad_logp)
    assert metrics.loss == expected.loss
    params = model.parameters()
    Adam(params, lr=config.learning_rate).step(params, forward_pass.gradients(expected.grad_logp))
    for name, value in run.model.parameters().items():
        assert np.array_equal(value, params[name]), name


@pytest.mark.parametrize("algorithm", LM_ALGORITHMS)
def test_every_algorithm_steps(start, algorithm):
    run = LMTrainingRun(replace(SMALL, algorithm=algorithm, steps=1), start)
    metrics = run.step()
    rewards = run.last_update.rewards
    advantages = run.last_update.advantages
    expected_preset = {"dr_grpo": "trl/dr_grpo", "dapo": "trl/dapo"}.get(algorithm, SMALL.preset)
    assert run.last_update.losses[0].preset.name == expected_preset
    if algorithm == "reinforce":
        assert np.array_equal(advantages, rewards)
    elif algorithm == "rloo":
        assert np.allclose(advantages, group_advantages(rewards, "rloo"))
    elif algorithm == "dr_grpo":
        assert np.allclose(advantages, rewards - rewards.mean(axis=1, keepdims=True))
    if algorithm == "dapo":
        used = [g for g in run.groups[0] if g.used]
        assert all(len(set(g.rewards)) > 1 for g in used)
        assert metrics.groups_used == len(used) <= SMALL.batch
        assert run.config.clip_range == (0.2, 0.28)
    for value in (metrics.reward_mean, metrics.kl, metrics.entropy, metrics.loss):
        assert np.isfinite(value)
    assert 0 <= metrics.degenerate_fraction <= 1
    assert 1 <= metrics.completion_length <= get_task("add").max_new


def test_inner_epochs_go_off_policy_against_old_logp(start):
    run = LMTrainingRun(replace(SMALL, steps=1, epochs=3, learning_rate=1e-3), start)
    run.step()
    first, *later = run.last_update.losses
    real = run.last_update.mask > 0
    assert np.all(first.ratio[real] == 1.0)
    assert any(np.any(loss.ratio[real] != 1.0) for loss in later)


def test_kl_to_the_start_grows_from_zero(start):
    run = LMTrainingRun(replace(SMALL, steps=3, beta=0.04), start)
    first = run.step()
    assert first.kl == pytest.approx(0.0, abs=1e-6)
    run.run()
    assert run.metrics[-1].kl > 0


def test_reward_weights_reach_the_rewards(start):
    weights = RewardWeights(accuracy=1.0, format=0.5)
    run = LMTrainingRun(replace(SMALL, steps=1, reward_weights=weights), start)
    run.step()
    assert any(r in (0.5, 1.5) for g in run.groups[0] for r in g.rewards)


def test_save_writes_a_checkpoint_with_the_runs_settings(start, tmp_path):
    run = LMTrainingRun(replace(SMALL, steps=1), start)
    run.run()
    run.save(tmp_path / "trained.npz")
    loaded = load_model(tmp_path / "trained.npz")
    assert loaded.info["grpo"]["steps_done"] == 1
    assert np.array_equal(loaded.parameters()["wte"], run.model.parameters()["wte"])


@pytest.mark.parametrize(
    "changes",
    [
        {"algorithm": "ppo_critic"},
        {"task": "nope"},
        {"steps": 0},
        {"group_size": 1},
        {"learning_rate": float("nan")},
        {"convention": "x"},
        {"preset": "x"},
        {"batch": True},
        {"algorithm": "dr_grpo", "kl_estimator": "k1"},  # TRL offers k3 only
    ],
)
def test_bad_settings_are_refused(changes):
    with pytest.raises(ValueError):
        check_lm_config(replace(LMTrainingConfig(), **changes))


def test_metrics_as_dicts(start):
    run = LMTrainingRun(replace(SMALL, steps=1), start)
    step = run.step().as_dict()
    assert {"step", "reward_mean", "degenerate_fraction", "kl", "entropy", "loss"} <= set(step)
    assert set(run.evals[-1].as_dict()) == {"step", "pass_rate", "greedy_accuracy"}
    assert copy.deepcopy(step) == step
