"""The policy loss of verl, TRL and OpenRLHF, from their formulas (DESIGN §4b).

Sources the expected values are derived from:
* verl b178a3c ``verl/trainer/ppo/core_algos.py``: ``compute_policy_loss_vanilla`` (log-ratio
  clamped to ±20, dual clip ``min(max(−r·A, −clip(r)·A), −A·c)`` for A < 0), ``agg_loss``
  (token-mean, seq-mean-token-mean with ``n_i + 1e-8`` and empty rows left out, seq-mean-token-sum,
  seq-mean-token-sum-norm ``Σ / T`` never divided by B), ``kl_penalty`` (k3 clamped to ±10);
  ``verl/workers/actor/dp_actor.py``: ``policy_loss + β · agg_loss(kld)``.
* TRL f2cd577 ``trl/trainer/grpo_trainer.py`` ``_compute_loss``: no clamp, ``β · k3`` added per
  token, grpo ``(Σ_t m·l / clamp(n_i, 1)).mean()``, bnpo, dr_grpo ``/(B · L)``, dapo
  ``/ num_items_in_batch``; ``importance_sampling_level="sequence"``: ``exp(Σ m·log r / n_i)``.
* OpenRLHF 3c3be62 ``openrlhf/models/loss.py`` ``PolicyLoss`` (log-ratio clamped to ±20, dual clip
  only when asked) and ``aggregate_loss`` (``token_level_loss=False``: ``Σ_t m·l / (n_i + 1e-8)``
  per answer, answers with no tokens left out of the mean; ``PolicyLoss`` sets it only for
  ``policy_loss_type="gspo"``, and ``openrlhf/trainer/ray/ppo_actor.py`` never passes
  ``token_level_loss``), and ``openrlhf/models/utils.py`` ``compute_approx_kl`` (every estimator
  clamped to ±10; ``masked_mean`` there has no eps); the actor adds ``β · masked_mean(kl)``.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from grpo_desktop.core import policy_loss
from grpo_desktop.core.formulas.clipped_loss import (
    LOSS_PRESETS,
    _clipped_surrogate,
    check_loss_inputs,
    get_loss_preset,
    policy_loss_runs,
    policy_loss_summary,
)

ALL = tuple(LOSS_PRESETS)


def length_bias_batch():
    """DESIGN §4b: a short right answer (4 tokens, A = +1), a long wrong one (40, A = −0.5)."""
    mask = np.zeros((2, 40))
    mask[0, :4] = 1
    mask[1, :] = 1
    logp = np.full((2, 40), -0.7)
    return logp, mask, np.array([1.0, -0.5])


def random_batch(seed: int, batch: int = 5, width: int = 9, spread: float = 0.6):
    rng = np.random.default_rng(seed)
    logp = rng.normal(-1.0, 0.6, (batch, width))
    old = logp + rng.normal(0.0, spread, (batch, width))
    ref = logp + rng.normal(0.0, spread, (batch, width))
    mask = (rng.random((batch, width)) < 0.75).astype(float)
    mask[:, 0] = 1.0
    adv = rng.normal(0.0, 1.0, batch)
    return logp, old, ref, mask, adv


def finite_difference(fn, logp, step=1e-6):
    grad = np.zeros_like(logp)
    for index in np.ndindex(logp.shape):
        bump = np.zeros_like(logp)
        bump[index] = step
        grad[index] = (fn(logp + bump) - fn(logp - bump)) / (2 * step)
    return grad


# --- the length bias, in the numbers ---------------------------------------------------


@pytest.mark.parametrize(
    "preset", ["verl/token-mean", "trl/dapo", "trl/bnpo", "openrlhf/ppo_token"]
)
def test_token_mean_pushes_the_batch_down_in_the_length_bias_example(preset):
    logp, mask, adv = length_bias_batch()
    result = policy_loss(logp, logp, adv, mask, preset=preset)
    np.testing.assert_allclose(result.sequence_grad, [-4 / 44, 20 / 44], rtol=1e-12)
    assert result.sequence_grad.round(4).tolist() == [-0.0909, 0.4545]
    assert result.sequence_grad.sum() == pytest.approx(0.364, abs=5e-4)  # likelihood goes down


@pytest.mark.parametrize("preset", ["verl/seq-mean-token-mean", "trl/grpo", "openrlhf/ppo_sample"])
def test_seq_mean_token_mean_pushes_it_up(preset):
    logp, mask, adv = length_bias_batch()
    result = policy_loss(logp, logp, adv, mask, preset=preset)
    np.testing.assert_allclose(result.sequence_grad, [-0.5, 0.25], rtol=1e-7)
    assert result.sequence_grad.sum() == pytest.approx(-0.25, rel=1e-7)


def test_on_policy_the_ratio_is_one_and_nothing_is_clipped():
    logp, mask, adv = length_bias_batch()
    for preset in ALL:
        result = policy_loss(logp, logp, adv, mask, preset=preset)
        assert np.all(result.ratio[mask == 1] == 1.0)
        assert not result.clipped.any() and not result.dual_clipped.any()
        assert result.clip_fraction == 0.0


# --- gradients against finite differences ------------------------------------------------------


@pytest.mark.parametrize("preset", ALL)
@pytest.mark.parametrize("seed", [1, 3, 4])
def test_gradient_matches_finite_differences_off_policy_with_kl(preset, seed):
    logp, old, ref, mask, adv = random_batch(seed)
    estimator = "k2" if get_loss_preset(preset).library != "TRL" and seed == 3 else "k3"
    # GSPO averages log-ratios over an answer: its paper's narrow clip range reaches the clip.
    eps = (3e-3, 4e-3) if get_loss_preset(preset).sequence_ratio else (0.2, 0.28)
    kwargs = dict(
        preset=preset,
        ref_logp=ref,
        beta=0.3,
        eps_low=eps[0],
        eps_high=eps[1],
        kl_estimator=estimator,
    )
    result = policy_loss(logp, old, adv, mask, **kwargs)
    numeric = finite_difference(lambda x: policy_loss(x, old, adv, mask, **kwargs).loss, logp)
    np.testing.assert_allclose(result.grad_logp, numeric, atol=2e-7, rtol=1e-5)
    assert result.clipped.any(), "the batch should exercise the clip"


@pytest.mark.parametrize("preset", ["verl/token-mean", "openrlhf/ppo_token"])
def test_gradient_matches_finite_differences_through_the_dual_clip(preset):
    logp, old, _, mask, _ = random_batch(7, spread=1.5)
    adv = -np.abs(np.linspace(0.5, 2.0, logp.shape[0]))
    kwargs = dict(preset=preset, clip_ratio_c=2.0, dual_clip=True)
    result = policy_loss(logp, old, adv, mask, **kwargs)
    assert result.dual_clipped.any()
    numeric = finite_difference(lambda x: policy_loss(x, old, adv, mask, **kwargs).loss, logp)
    np.testing.assert_allclose(result.grad_logp, numeric, atol=2e-7, rtol=1e-5)


# --- padding never matters ---------------------------------------------------------------------


@pytest.mark.parametrize("preset", ALL)
def test_padded_values_never_change_anything(preset):
    logp, old, ref, mask, adv = random_batch(4)
    kwargs = dict(preset=preset, ref_logp=ref, beta=0.2)
    clean = policy_loss(logp, old, adv, mask, **kwargs)
    noisy = [array.copy() for array in (logp, old, ref)]
    for array, fill in zip(noisy, (np.nan, 50.0, -np.inf)):
        array[mask == 0] = fill
    dirty = policy_loss(noisy[0], noisy[1], adv, mask, preset=preset, ref_logp=noisy[2], beta=0.2)
    assert dirty.loss == clean.loss
    for name in ("grad_logp", "per_token_loss", "ratio", "kl", "weight"):
        np.testing.assert_array_equal(getattr(dirty, name), getattr(clean, name))
    for name in ("grad_logp", "per_token_loss", "ratio", "kl", "weight", "pg_per_token"):
        assert np.all(getattr(clean, name)[mask == 0] == 0.0)


# --- each library's own rules ------------------------------------------------------------------


def one_token(logp, old, adv, preset, **kwargs):
    return policy_loss([[logp]], [[old]], [adv], [[1]], preset=preset, **kwargs)


def test_verl_dual_clip_caps_a_negative_advantage_tokens_loss_at_c_times_A():
    # r = 5, A = −1: −min(r·A, clip(r)·A) = 5, but verl caps it at −A·c = 3 and stops the gradient.
    result = one_token(math.log(5.0), 0.0, -1.0, "verl/token-mean")
    assert result.loss == pytest.approx(3.0)
    assert result.grad_logp[0, 0] == 0.0
    assert result.dual_clipped[0, 0] and not result.clipped[0, 0]


def test_trl_has_no_dual_clip():
    result = one_token(math.log(5.0), 0.0, -1.0, "trl/dapo")
    assert result.loss == pytest.approx(5.0)
    assert result.grad_logp[0, 0] == pytest.approx(5.0)  # −A·r
    assert not result.dual_clipped.any()


def test_openrlhf_dual_clips_only_when_asked():
    plain = one_token(math.log(5.0), 0.0, -1.0, "openrlhf/ppo_token")
    asked = one_token(math.log(5.0), 0.0, -1.0, "openrlhf/ppo_token", dual_clip=True)
    assert plain.loss == pytest.approx(5.0)
    assert asked.loss == pytest.approx(3.0) and asked.grad_logp[0, 0] == 0.0


def test_the_clip_stops_the_gradient_past_one_plus_eps_for_a_positive_advantage():
    result = one_token(math.log(1.5), 0.0, 2.0, "trl/dapo", eps_low=0.2, eps_high=0.28)
    assert result.loss == pytest.approx(-1.28 * 2.0)
    assert result.grad_logp[0, 0] == 0.0 and result.clipped[0, 0]
    inside = one_token(math.log(1.25), 0.0, 2.0, "trl/dapo", eps_low=0.2, eps_high=0.28)
    assert inside.grad_logp[0, 0] == pytest.approx(-2.0 * 1.25) and not inside.clipped[0, 0]


def test_verl_and_openrlhf_clamp_the_log_ratio_at_20_trl_does_not():
    # A > 0 and a tiny ratio: the unclipped side, so only the clamp can stop the gradient.
    for preset in ("verl/token-mean", "openrlhf/ppo_token"):
        result = one_token(-25.0, 0.0, 1.0, preset)
        assert result.ratio[0, 0] == pytest.approx(math.exp(-20.0), rel=1e-12)
        assert result.grad_logp[0, 0] == 0.0
    trl = one_token(-25.0, 0.0, 1.0, "trl/dapo")
    assert trl.ratio[0, 0] == pytest.approx(math.exp(-25.0), rel=1e-12)
    assert trl.grad_logp[0, 0] == pytest.approx(-math.exp(-25.0), rel=1e-12)


def test_k3_is_clamped_at_10_by_verl_not_by_trl():
    # ref − logp = 5: k3 = e^5 − 5 − 1 ≈ 142.4
    k3 = math.exp(5.0) - 6.0
    verl = one_token(-6.0, -6.0, 0.0, "verl/token-mean", ref_logp=[[-1.0]], beta=1.0)
    trl = one_token(-6.0, -6.0, 0.0, "trl/dapo", ref_logp=[[-1.0]], beta=1.0)
    assert verl.kl[0, 0] == 10.0 and verl.grad_logp[0, 0] == 0.0
    assert trl.kl[0, 0] == pytest.approx(k3) and trl.grad_logp[0, 0] == pytest.approx(
        1 - math.exp(5)
    )


def test_openrlhf_clamps_every_estimator_verl_only_k3():
    kwargs = dict(ref_logp=[[-13.0]], beta=1.0, kl_estimator="k1")
    verl = one_token(-1.0, -1.0, 0.0, "verl/token-mean", **kwargs)
    openrlhf = one_token(-1.0, -1.0, 0.0, "openrlhf/ppo_token", **kwargs)
    assert verl.kl[0, 0] == 12.0 and verl.grad_logp[0, 0] == 1.0
    assert openrlhf.kl[0, 0] == 10.0 and openrlhf.grad_logp[0, 0] == 0.0


def test_k2_is_half_the_squared_log_ratio():
    result = one_token(
        -1.0, -1.0, 0.0, "verl/token-mean", ref_logp=[[-1.5]], beta=2.0, kl_estimator="k2"
    )
    assert result.kl[0, 0] == pytest.approx(0.125)
    assert result.loss == pytest.approx(0.25)
    assert result.grad_logp[0, 0] == pytest.approx(2.0 * 0.5)


def test_trl_adds_beta_kl_per_token_before_aggregating_openrlhf_as_a_token_mean():
    logp, old, ref, mask, adv = random_batch(11)
    trl = policy_loss(logp, old, adv, mask, preset="trl/grpo", ref_logp=ref, beta=0.5)
    lengths = mask.sum(axis=1)
    expected = ((trl.pg_per_token + 0.5 * trl.kl) * mask).sum(axis=1) / lengths
    assert trl.loss == pytest.approx(expected.mean(), rel=1e-12)
    sample = policy_loss(logp, old, adv, mask, preset="openrlhf/ppo_sample", ref_logp=ref, beta=0.5)
    pg = ((sample.pg_per_token * mask).sum(axis=1) / (lengths + 1e-8)).mean()
    kl = (sample.kl * mask).sum() / mask.sum()
    assert sample.loss == pytest.approx(pg + 0.5 * kl, rel=1e-12)


def test_verl_adds_beta_times_the_same_aggregation_of_kl():
    logp, old, ref, mask, adv = random_batch(12)
    result = policy_loss(
        logp, old, adv, mask, preset="verl/seq-mean-token-sum", ref_logp=ref, beta=0.5
    )
    answers = mask.shape[0]
    pg = (result.pg_per_token * mask).sum() / answers
    kl = (result.kl * mask).sum() / answers
    assert result.pg_loss == pytest.approx(pg, rel=1e-12)
    assert result.loss == pytest.approx(pg + 0.5 * kl, rel=1e-12)


def test_dr_grpo_constants():
    logp, old, _, mask, adv = random_batch(5)
    batch, width = mask.shape
    trl = policy_loss(logp, old, adv, mask, preset="trl/dr_grpo", max_completion_length=64)
    assert trl.loss == pytest.approx((trl.pg_per_token * mask).sum() / (batch * 64), rel=1e-12)
    verl = policy_loss(logp, old, adv, mask, preset="verl/seq-mean-token-sum-norm")
    assert verl.loss == pytest.approx((verl.pg_per_token * mask).sum() / width, rel=1e-12)
    scaled = policy_loss(
        logp, old, adv, mask, preset="verl/seq-mean-token-sum-norm", loss_scale_factor=100
    )
    assert scaled.loss == pytest.approx((verl.pg_per_token * mask).sum() / 100, rel=1e-12)


def test_empty_rows_verl_leaves_them_out_trl_counts_them():
    logp, old, _, mask, adv = random_batch(6, batch=4)
    with_empty = mask.copy()
    with_empty[2] = 0.0
    keep = [0, 1, 3]
    for preset in ("verl/seq-mean-token-mean", "verl/seq-mean-token-sum"):
        full = policy_loss(logp, old, adv, with_empty, preset=preset)
        short = policy_loss(logp[keep], old[keep], adv[keep], mask[keep], preset=preset)
        assert full.loss == pytest.approx(short.loss, rel=1e-12)
    full = policy_loss(logp, old, adv, with_empty, preset="trl/grpo")
    short = policy_loss(logp[keep], old[keep], adv[keep], mask[keep], preset="trl/grpo")
    assert full.loss == pytest.approx(short.loss * 3 / 4, rel=1e-12)


def test_gspo_uses_one_ratio_per_answer_the_geometric_mean():
    logp, old, _, mask, adv = random_batch(8)
    result = policy_loss(logp, old, adv, mask, preset="trl/gspo")
    lengths = mask.sum(axis=1)
    ratio = np.exp(((logp - old) * mask).sum(axis=1) / lengths)
    for row in range(mask.shape[0]):
        real = mask[row] == 1
        np.testing.assert_allclose(result.ratio[row, real], ratio[row], rtol=1e-12)
        assert len(set(result.clipped[row, real])) == 1  # the whole answer is clipped or not
    clipped_rows = np.array([result.clipped[row, 0] for row in range(mask.shape[0])])
    assert result.clip_fraction == pytest.approx(clipped_rows.mean())


def test_clip_fraction_is_the_share_of_real_tokens_clipped():
    logp, old, _, mask, adv = random_batch(9)
    result = policy_loss(logp, old, adv, mask, preset="verl/token-mean")
    assert result.clip_fraction == pytest.approx(result.clipped.sum() / mask.sum())


# --- inputs checked once, the loss evaluated at many logp (the stand-in's inner steps) -----------


def _same_result(unchecked, checked) -> None:
    """Every number of the two results is the same float (NaN-free arrays, bit for bit)."""
    for name in ("loss", "pg_loss", "kl_loss", "clip_fraction"):
        assert getattr(unchecked, name) == getattr(checked, name), name
    for name in (
        "per_token_loss",
        "pg_per_token",
        "weight",
        "kl_weight",
        "grad_logp",
        "ratio",
        "clipped",
        "dual_clipped",
        "mask",
    ):
        np.testing.assert_array_equal(getattr(unchecked, name), getattr(checked, name), name)
    assert (unchecked.kl is None) == (checked.kl is None)
    if checked.kl is not None:
        np.testing.assert_array_equal(unchecked.kl, checked.kl)
    assert unchecked.preset is checked.preset


@pytest.mark.parametrize("preset", ALL)
@pytest.mark.parametrize("beta", [0.0, 0.05])
def test_the_unchecked_path_gives_policy_losss_numbers_at_every_logp(preset, beta):
    """The formulas of the libraries cited above, once through policy_loss (which checks every
    input) and once through inputs checked once and evaluated at several logp, as the stand-in's
    inner steps do: the same numbers to the last bit, padding (even NaN there) ignored alike."""
    logp, old, ref, mask, adv = random_batch(11)
    options = dict(preset=preset, eps_low=0.2, eps_high=0.28, beta=beta)
    if beta:
        options["ref_logp"] = ref
        options["kl_estimator"] = get_loss_preset(preset).kl_estimators[-1]
    if preset.startswith("openrlhf/") and get_loss_preset(preset).dual_clip_optional:
        options["dual_clip"] = True
    inputs = check_loss_inputs(old, adv, mask, **options)
    rng = np.random.default_rng(3)
    for _step in range(3):
        logp = logp + rng.normal(0.0, 0.3, logp.shape)
        logp[mask == 0] = np.nan  # padding: never read
        _same_result(inputs.loss_at(logp), policy_loss(logp, old, adv, mask, **options))


def test_inputs_checked_once_refuse_what_policy_loss_refuses():
    with pytest.raises(ValueError, match="advantages has a NaN"):
        check_loss_inputs(np.zeros((2, 3)), [np.nan, 1.0], np.ones((2, 3)), preset="trl/dapo")
    with pytest.raises(ValueError, match="needs ref_logp"):
        check_loss_inputs(np.zeros((2, 3)), [1.0, 0.0], np.ones((2, 3)), preset="trl/dapo", beta=1)
    with pytest.raises(ValueError, match="old_logp has shape"):
        check_loss_inputs(
            np.zeros((2, 3)), [1.0, 0.0], np.ones((2, 3)), preset="trl/dapo", shape=(2, 4)
        )


# --- bad input ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (dict(old_logp=np.zeros((2, 3))), "old_logp has shape"),
        (dict(mask=[[1, 0.5, 1, 1], [1, 1, 1, 1]]), "only 0 and 1"),
        (dict(logp=[[np.nan, 0, 0, 0], [0, 0, 0, 0]]), "NaN or infinite"),
        (dict(advantages=[1.0]), "advantages must have shape"),
        (dict(advantages=[np.nan, 1.0]), "advantages has a NaN"),
        (dict(preset="trl/ppo"), "choose one of: verl/token-mean"),
        (dict(beta=0.1), "needs ref_logp"),
        (dict(beta=-1.0), "beta must be"),
        (dict(preset="trl/dapo", kl_estimator="k1"), "TRL offers the KL estimator k3 only"),
        (dict(preset="trl/dapo", dual_clip=True), "has no dual clip"),
        (dict(clip_ratio_c=1.0), "clip_ratio_c must be"),
        (dict(mask=np.zeros((2, 4))), "no real tokens"),
    ],
)
def test_bad_input_raises_a_readable_value_error(change, message):
    arguments = dict(
        logp=np.zeros((2, 4)),
        old_logp=np.zeros((2, 4)),
        advantages=[1.0, -1.0],
        mask=np.ones((2, 4)),
        preset="verl/token-mean",
    )
    arguments.update(change)
    with pytest.raises(ValueError, match=message):
        policy_loss(**arguments)


def test_every_preset_names_its_formula_description_and_source():
    assert set(LOSS_PRESETS) == {
        "verl/token-mean",
        "verl/seq-mean-token-mean",
        "verl/seq-mean-token-sum",
        "verl/seq-mean-token-sum-norm",
        "trl/grpo",
        "trl/bnpo",
        "trl/dr_grpo",
        "trl/dapo",
        "trl/gspo",
        "openrlhf/ppo_token",
        "openrlhf/ppo_sample",
    }
    for preset in LOSS_PRESETS.values():
        assert preset.formula and preset.description and preset.source
        assert preset.library.lower() in preset.source.lower()
        assert ".py" in preset.source


@pytest.mark.parametrize("preset", ALL)
def test_many_runs_at_once_equal_each_run_alone(preset):
    batches = [random_batch(seed, batch=4, width=6) for seed in (21, 22, 23)]
    stacked = [np.stack([batch[i] for batch in batches]) for i in range(5)]
    logp, old, ref, mask, adv = stacked
    runs = policy_loss_runs(logp, old, adv, mask, preset=preset, ref_logp=ref, beta=0.2)
    for index, (lp, o, r, m, a) in enumerate(batches):
        alone = policy_loss(lp, o, a, m, preset=preset, ref_logp=r, beta=0.2)
        assert runs.loss[index] == pytest.approx(alone.loss, rel=1e-12)
        np.testing.assert_allclose(runs.grad_logp[index], alone.grad_logp, rtol=1e-12, atol=0)
        assert runs.clip_fraction[index] == pytest.approx(alone.clip_fraction)


@pytest.mark.parametrize("preset", ALL)
def test_answers_of_identical_tokens_can_be_passed_as_token_counts(preset):
    # The training core's answers: every token of an answer carries the answer's log-prob.
    rng = np.random.default_rng(5)
    runs, answers, width = 3, 6, 9
    lengths = rng.integers(0, width + 1, (runs, answers))
    lengths[:, 0] = np.maximum(lengths[:, 0], 1)
    answer_logp = rng.normal(-1.5, 0.5, (runs, answers))
    old = answer_logp + rng.normal(0, 0.4, (runs, answers))
    ref = answer_logp + rng.normal(0, 0.4, (runs, answers))
    adv = rng.normal(0, 1, (runs, answers))
    mask = (np.arange(width) < lengths[..., None]).astype(float)
    full = [np.broadcast_to(a[..., None], mask.shape) for a in (answer_logp, old, ref)]
    options = dict(preset=preset, beta=0.3, eps_high=0.28, max_completion_length=width)
    expanded = policy_loss_runs(full[0], full[1], adv, mask, ref_logp=full[2], **options)
    column = [a[..., None] for a in (answer_logp, old, ref)]
    counted = policy_loss_runs(
        column[0],
        column[1],
        adv,
        lengths[..., None].astype(float),
        ref_logp=column[2],
        token_counts=True,
        width=width,
        **options,
    )
    np.testing.assert_allclose(counted.loss, expanded.loss, rtol=1e-12)
    np.testing.assert_allclose(
        counted.grad_logp[..., 0], expanded.grad_logp.sum(axis=-1), rtol=1e-10, atol=1e-15
    )
    np.testing.assert_allclose(counted.clip_fraction, expanded.clip_fraction, rtol=1e-12)


def test_a_tie_in_a_min_or_a_max_splits_the_gradient_in_half_as_torch_does():
    # torch.min / torch.max send half the gradient to each input at a tie. A = +1, ε = 0.2:
    # inside the clip range r·A and clip(r)·A are equal (all of it reaches r); at r = 1.3 the
    # clipped term wins (none). A = −1, c = 3 (verl's dual clip, −max(min(…), c·A)): at r = 3 the
    # loss equals its floor, so half passes; beyond, none (a dual-clipped token).
    ratio = np.array([[1.1, 1.2, 1.3, 2.5, 3.0, 3.5]])
    adv = np.array([[1.0, 1.0, 1.0, -1.0, -1.0, -1.0]])
    _value, d_ratio, clipped, dual = _clipped_surrogate(ratio, adv, 0.2, 0.2, 3.0)
    assert d_ratio.tolist() == [[-1.0, -1.0, 0.0, 1.0, 0.5, 0.0]]
    assert clipped.tolist() == [[False, False, True, False, False, False]]
    assert dual.tolist() == [[False, False, False, False, False, True]]


# --- the summary: a large batch in bounded memory ----------------------------------------------


def summary_batch(answers: int = 12, width: int = 30):
    """A random off-policy batch with an empty answer, so every normaliser is exercised."""
    logp, old, ref, mask, adv = random_batch(31, batch=answers, width=width)
    mask[3] = 0.0
    return logp, old, ref, mask, adv


@pytest.mark.parametrize("preset", ALL)
@pytest.mark.parametrize("block_positions", [1, 60, 100])  # one row, two rows, rows of 30 × 3
def test_a_summary_in_blocks_of_rows_equals_the_whole_batch_at_once(preset, block_positions):
    logp, old, ref, mask, adv = summary_batch()
    options = dict(preset=preset, ref_logp=ref, beta=0.2, eps_high=0.28)
    whole = policy_loss(logp, old, adv, mask, **options)
    blocked = policy_loss_summary(logp, old, adv, mask, block_positions=block_positions, **options)
    assert blocked.loss == pytest.approx(whole.loss, rel=1e-13, abs=1e-15)
    assert blocked.pg_loss == pytest.approx(whole.pg_loss, rel=1e-13, abs=1e-15)
    assert blocked.kl_loss == pytest.approx(whole.kl_loss, rel=1e-13, abs=1e-15)
    assert blocked.clip_fraction == pytest.approx(whole.clip_fraction, rel=1e-13, abs=1e-15)
    assert blocked.kl_mean == pytest.approx(whole.kl.sum() / mask.sum(), rel=1e-13)
    np.testing.assert_array_equal(blocked.sequence_grad, whole.sequence_grad)  # row by row
    assert blocked.tokens == int(mask.sum())


@pytest.mark.parametrize("preset", ALL)
def test_a_summary_of_a_batch_within_one_block_is_policy_loss_to_the_last_bit(preset):
    logp, old, ref, mask, adv = summary_batch()
    whole = policy_loss(logp, old, adv, mask, preset=preset, ref_logp=ref, beta=0.2)
    summary = policy_loss_summary(logp, old, adv, mask, preset=preset, ref_logp=ref, beta=0.2)
    assert (summary.loss, summary.pg_loss, summary.kl_loss, summary.clip_fraction) == (
        whole.loss,
        whole.pg_loss,
        whole.kl_loss,
        whole.clip_fraction,
    )
    assert summary.kl_mean == float(whole.kl.sum() / whole.mask.sum())
    np.testing.assert_array_equal(summary.sequence_grad, whole.sequence_grad)


def test_a_summary_without_beta_has_no_kl_mean():
    logp, old, _ref, mask, adv = summary_batch()
    for block_positions in (1, 10_000):
        summary = policy_loss_summary(
            logp, old, adv, mask, preset="verl/token-mean", block_positions=block_positions
        )
        assert summary.kl_mean is None and summary.kl_loss == 0.0


def test_a_summary_in_blocks_uses_memory_for_one_block_not_for_the_batch():
    import tracemalloc

    logp, old, ref, mask, adv = random_batch(41, batch=200, width=250)  # 50,000 positions
    options = dict(preset="trl/grpo", ref_logp=ref, beta=0.1)
    tracemalloc.start()
    try:
        policy_loss(logp, old, adv, mask, **options)
        whole_peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.reset_peak()
        policy_loss_summary(logp, old, adv, mask, block_positions=2_500, **options)
        blocked_peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # policy_loss keeps about 20 (B, T) arrays; the summary boolean masks and one block's arrays,
    # less than two copies of one input in all.
    assert whole_peak > 10 * logp.nbytes
    assert blocked_peak < 2 * logp.nbytes


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (dict(mask_value=0.5), "mask must hold only 0 and 1"),
        (dict(mask_value=0.0), "mask has no real tokens"),
        (dict(logp_value=math.inf), "logp has a NaN or infinite value at a real"),
        (dict(old_value=math.nan), "old_logp has a NaN or infinite value at a real"),
        (dict(ref_value=math.inf), "ref_logp has a NaN or infinite value at a real"),
        (dict(eps_low=-1.0), "eps_low must be a finite number >= 0"),
        (dict(no_ref=True), "beta > 0 needs ref_logp"),
    ],
)
def test_a_summary_in_blocks_refuses_what_policy_loss_refuses(change, message):
    logp, old, ref, mask, adv = summary_batch()
    if "mask_value" in change:
        mask[:] = change["mask_value"]
    for name, array in (("logp_value", logp), ("old_value", old), ("ref_value", ref)):
        if name in change:
            array[-1, 0] = change[name]  # in the last block: every block is checked
    options = dict(preset="verl/token-mean", beta=0.2, eps_low=change.get("eps_low", 0.2))
    options["ref_logp"] = None if change.get("no_ref") else ref
    with pytest.raises(ValueError, match=re.escape(message)):
        policy_loss(logp, old, adv, mask, **options)
    with pytest.raises(ValueError, match=re.escape(message)):
        policy_loss_summary(logp, old, adv, mask, block_positions=30, **options)


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("logp", [["-0.5", "-0.7"]], "logp must be numbers, not text"),
        ("logp", [[-0.5 + 1j, -0.7]], "logp must be numbers, not complex"),
        ("old_logp", [[10**400, -0.7]], "old_logp must be numbers within float64's range"),
        ("advantages", ["1.0"], "advantages must be numbers, not text"),
        ("mask", [[1, "1"]], "mask must be numbers, not text"),
        ("eps_low", "0.2", "eps_low must be a number, not text"),
        ("beta", 10**400, "beta must be a finite number; got an integer past float64"),
    ],
    ids=["text", "complex", "huge-int", "text-advantage", "text-mask", "text-eps", "huge-beta"],
)
def test_inputs_that_are_not_real_numbers_are_a_value_error_without_warnings(field, value, message):
    import warnings

    arguments = {
        "logp": [[-0.5, -0.7]],
        "old_logp": [[-0.5, -0.7]],
        "advantages": [1.0],
        "mask": [[1, 1]],
        "preset": "verl/token-mean",
    }
    arguments[field] = value
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match=re.escape(message)):
            policy_loss(**arguments)


def test_openrlhf_sample_level_divides_each_answer_by_n_i_plus_1e_8():
    """OpenRLHF ``aggregate_loss(token_level_loss=False)`` (openrlhf/models/loss.py, 3c3be62):
    ``seq_loss = (loss * mask).sum(-1) / (token_counts + 1e-8)``, then ``masked_mean`` over the
    answers with tokens. One-token answers show the eps: 1/(1 + 1e-8), not 1."""
    mask = np.array([[1.0, 0.0, 0.0], [1.0, 1.0, 1.0], [0.0, 0.0, 0.0]])
    logp = np.full((3, 3), -0.5)
    adv = np.array([1.0, -0.5, 2.0])
    result = policy_loss(logp, logp, adv, mask, preset="openrlhf/ppo_sample")
    expected = (-1.0 / (1 + 1e-8) + 0.5 * 3 / (3 + 1e-8)) / 2  # on-policy: l = −A per token
    assert result.loss == pytest.approx(expected, rel=1e-15, abs=0)
    assert result.loss != pytest.approx((-1.0 + 0.5) / 2, rel=1e-12, abs=0)
    np.testing.assert_array_equal(result.weight[0], [1 / ((1 + 1e-8) * 2), 0.0, 0.0])
    assert result.weight[2].tolist() == [0.0, 0.0, 0.0]


def test_openrlhf_presets_say_where_openrlhf_computes_them():
    sample = get_loss_preset("openrlhf/ppo_sample")
    assert "PolicyLoss(token_level_loss=False)" in sample.source
    assert 'policy_loss_type="gspo"' in sample.source
    assert "ppo_actor.py) never passes it" in sample.source
    assert "(n_i + 1e-8)" in sample.formula
    assert "its PPO is token-level" in sample.description
    token = get_loss_preset("openrlhf/ppo_token")
    assert "what its PPO actor (ppo_actor.py) always uses" in token.source


def test_trls_gspo_does_not_clamp_its_sequence_log_ratio():
    """TRL ``_compute_loss``: ``log_importance_weights = (log_ratio * mask).sum(-1) /
    mask.sum(-1).clamp(min=1.0)``, then ``exp``, no clamp (verl's ``compute_policy_loss_gspo``
    would clamp the log-ratio at max 10; the app has no verl GSPO preset)."""
    logp = np.array([[-1.0, -1.0], [-1.0, -1.0]])
    old = logp - np.array([[15.0, 15.0], [0.0, 0.0]])
    result = policy_loss(logp, old, [1.0, -1.0], np.ones((2, 2)), preset="trl/gspo")
    assert result.ratio[0, 0] == pytest.approx(math.exp(15.0), rel=1e-12)
    assert result.clip_fraction == 0.5  # one of two answers: a share of the answers
