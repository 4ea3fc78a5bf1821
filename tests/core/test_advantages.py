"""The math core: the seeds' worked examples exactly, the libraries' numbers, and bad input."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from grpo_desktop import core
from grpo_desktop.core import group_advantages, group_stats

# --- the seeds' worked examples (DESIGN §4), exactly -------------------------------------------


@pytest.mark.parametrize(
    ("rewards", "mean", "std", "advantages"),
    [
        ([1, 0, 0, 1], 0.5, 0.5, [1.0, -1.0, -1.0, 1.0]),
        ([1, 1, 1, 1], 1.0, 0.0, [0.0, 0.0, 0.0, 0.0]),
        ([0, 0, 0, 0], 0.0, 0.0, [0.0, 0.0, 0.0, 0.0]),
        ([1, 1, 1, 1, 0], 0.8, 0.4, [0.5, 0.5, 0.5, 0.5, -2.0]),
        ([1, 0, 0, 0, 0], 0.2, 0.4, [2.0, -0.5, -0.5, -0.5, -0.5]),
    ],
)
def test_textbook_reproduces_the_seeds_worked_examples(rewards, mean, std, advantages):
    stats = group_stats(rewards)
    assert stats.mean == pytest.approx(mean, abs=1e-15)
    assert stats.std == pytest.approx(std, abs=1e-15)
    np.testing.assert_allclose(stats.advantages, advantages, atol=1e-12)
    assert stats.convention == "textbook"


def test_seed_group_1001_pushes_two_up_and_two_down():
    stats = group_stats([1, 0, 0, 1])
    assert (stats.pushed_up, stats.pushed_down, stats.degenerate) == (2, 2, False)


@pytest.mark.parametrize("rewards", [[1, 1, 1, 1], [0, 0, 0, 0], [0.1, 0.1, 0.1], [7.3] * 64])
@pytest.mark.parametrize("convention", core.convention_names())
def test_all_equal_group_is_degenerate_with_exactly_zero_advantages(rewards, convention):
    stats = group_stats(rewards, convention)
    assert stats.degenerate
    assert stats.advantages.tolist() == [0.0] * len(rewards)
    assert (stats.pushed_up, stats.pushed_down) == (0, 0)


def test_float_residue_group_is_decided_on_values_not_on_std():
    # np.std([0.1, 0.1, 0.1]) is about 1e-17, not 0: equality of the values decides.
    assert np.std([0.1, 0.1, 0.1]) != 0.0
    stats = group_stats([0.1, 0.1, 0.1])
    assert stats.degenerate and stats.std == 0.0


def test_nearly_equal_group_is_not_degenerate():
    stats = group_stats([0.1, 0.1, 0.1 + 1e-12])
    assert not stats.degenerate
    assert (stats.pushed_up, stats.pushed_down) == (1, 2)


# --- what real libraries compute (DESIGN §4) -----------------------------------------------------


def trl_group(r: np.ndarray) -> np.ndarray:
    # trl/trainer/grpo_trainer.py (_generate_and_score_completions): rewards.view(-1, G).mean(1),
    # .std(1) (torch default: unbiased), advantages = (rewards - mean) / (std + 1e-4).
    return (r - r.mean(axis=1, keepdims=True)) / (r.std(axis=1, ddof=1, keepdims=True) + 1e-4)


def trl_batch(r: np.ndarray) -> np.ndarray:
    # trl/trainer/grpo_trainer.py, scale_rewards="batch": std_rewards = rewards.std() over the
    # whole flat batch, the mean still per group.
    return (r - r.mean(axis=1, keepdims=True)) / (r.std(ddof=1) + 1e-4)


def verl_grpo(r: np.ndarray) -> np.ndarray:
    # verl/trainer/ppo/core_algos.py (compute_grpo_outcome_advantage, epsilon=1e-6): per uid,
    # torch.mean / torch.std (unbiased); a group of one gets mean 0 and std 1.
    if r.shape[1] == 1:
        return r / (1.0 + 1e-6)
    return (r - r.mean(axis=1, keepdims=True)) / (r.std(axis=1, ddof=1, keepdims=True) + 1e-6)


def openrlhf_group_norm(r: np.ndarray) -> np.ndarray:
    # openrlhf/trainer/ppo_utils/experience_maker.py, advantage_estimator "group_norm":
    # (rewards - rewards.mean(-1, keepdim=True)) / (rewards.std(-1, keepdim=True) + 1e-9)
    return (r - r.mean(axis=1, keepdims=True)) / (r.std(axis=1, ddof=1, keepdims=True) + 1e-9)


def dr_grpo(r: np.ndarray) -> np.ndarray:
    # openrlhf/trainer/ppo_utils/experience_maker.py, "dr_grpo": rewards - rewards.mean(-1)
    return r - r.mean(axis=1, keepdims=True)


def rloo(r: np.ndarray) -> np.ndarray:
    # openrlhf/trainer/ppo_utils/experience_maker.py, "rloo":
    # baseline = (rewards.sum(-1, keepdim=True) - rewards) / (n_samples - 1); rewards - baseline
    g = r.shape[1]
    return r - (r.sum(axis=1, keepdims=True) - r) / (g - 1)


LIBRARY_REFERENCES = {
    "trl": trl_group,
    "trl_batch": trl_batch,
    "verl": verl_grpo,
    "openrlhf": openrlhf_group_norm,
    "dr_grpo": dr_grpo,
    "rloo": rloo,
}

REFERENCE_BATCHES = [
    [[1, 0, 0, 1]],
    [[1, 1, 1, 1, 0], [1, 0, 0, 0, 0]],
    [[0.2, 0.9, 0.5, 0.4, 1.0, 0.0, 0.7, 0.3]],
    [[1, 0], [0, 1], [1, 1]],
    [[3.0, -1.5, 2.25, 10.0, 0.0, -4.0]],
]


@pytest.mark.parametrize("batch", REFERENCE_BATCHES)
@pytest.mark.parametrize("convention", sorted(LIBRARY_REFERENCES))
def test_library_conventions_match_the_libraries_formulas(convention, batch):
    rewards = np.array(batch, dtype=float)
    expected = LIBRARY_REFERENCES[convention](rewards)
    np.testing.assert_allclose(group_advantages(rewards, convention), expected, atol=1e-5)


@pytest.mark.parametrize("convention", ["trl", "verl", "openrlhf", "trl_batch"])
def test_libraries_give_0866_where_the_textbook_gives_1_on_the_seed_group(convention):
    advantages = group_advantages([1, 0, 0, 1], convention)
    np.testing.assert_allclose(np.abs(advantages), 0.866, atol=1e-3)
    assert advantages[0] > 0 > advantages[1]


def test_trl_value_on_the_seed_group_to_many_digits():
    expected = 0.5 / (math.sqrt(1 / 3) + 1e-4)
    assert group_advantages([1, 0, 0, 1], "trl")[0] == pytest.approx(expected, rel=1e-12)


def test_verl_gives_a_lone_sample_mean_zero_and_std_one():
    stats = group_stats([3.0], "verl")
    assert stats.mean == 0.0 and stats.std == 1.0
    assert stats.advantages[0] == pytest.approx(3.0 / (1 + 1e-6))


def test_rloo_is_g_over_g_minus_one_times_the_centered_reward():
    np.testing.assert_allclose(
        group_advantages([1, 0, 0, 0], "rloo"), [1.0, -1 / 3, -1 / 3, -1 / 3]
    )


def test_every_convention_carries_a_description_and_a_source():
    for convention in core.CONVENTIONS.values():
        assert convention.label and convention.formula and convention.description
        assert convention.source


# --- batches -------------------------------------------------------------------------------------


def test_batch_keeps_its_shape():
    rewards = np.random.default_rng(1).random((7, 5))
    assert group_advantages(rewards).shape == (7, 5)
    assert group_advantages(rewards[0]).shape == (5,)


def test_group_advantages_does_not_modify_or_freeze_the_input():
    rewards = np.array([1.0, 0.0, 0.0, 1.0])
    group_advantages(rewards)
    group_stats(rewards)
    assert rewards.tolist() == [1.0, 0.0, 0.0, 1.0] and rewards.flags.writeable


# --- properties ----------------------------------------------------------------------------------

finite_rewards = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False, allow_infinity=False)
groups = st.lists(finite_rewards, min_size=2, max_size=64)
MEAN_BASELINE = ["textbook", "trl", "verl", "openrlhf", "dr_grpo", "rloo"]
NORMALISED = ["textbook", "trl", "verl", "openrlhf"]


@given(groups, st.sampled_from(MEAN_BASELINE))
def test_mean_baseline_advantages_sum_to_zero(rewards, convention):
    advantages = group_advantages(rewards, convention)
    scale = max(1.0, max(abs(r) for r in rewards))
    assert abs(advantages.sum()) <= 1e-9 * scale * len(rewards)


@given(groups)
def test_textbook_advantages_of_a_non_degenerate_group_have_population_std_one(rewards):
    stats = group_stats(rewards)
    if not stats.degenerate and stats.std > 1e-9 * max(abs(r) for r in rewards):
        assert np.std(stats.advantages) == pytest.approx(1.0, rel=1e-6)


@given(groups, st.sampled_from(core.convention_names()))
def test_signs_follow_reward_minus_mean(rewards, convention):
    stats = group_stats(rewards, convention)
    exact_mean = math.fsum(rewards) / len(rewards)
    for reward, advantage in zip(rewards, stats.advantages):
        if advantage > 0:
            assert reward > exact_mean - 1e-9 * max(1.0, abs(exact_mean))
        elif advantage < 0:
            assert reward < exact_mean + 1e-9 * max(1.0, abs(exact_mean))


@given(
    st.lists(st.floats(min_value=-100, max_value=100), min_size=2, max_size=16),
    st.floats(min_value=0.01, max_value=100),
    st.floats(min_value=-100, max_value=100),
)
def test_textbook_is_invariant_to_positive_affine_rescaling(rewards, a, b):
    original = group_stats(rewards)
    if original.std < 1e-3:
        return  # near-degenerate groups amplify float error without bound
    rescaled = group_advantages([a * r + b for r in rewards])
    np.testing.assert_allclose(rescaled, original.advantages, atol=1e-6)


@given(
    st.lists(st.floats(min_value=-100, max_value=100), min_size=2, max_size=16),
    st.floats(min_value=0.5, max_value=100),
    st.floats(min_value=-100, max_value=100),
    st.sampled_from(["trl", "verl", "openrlhf"]),
)
def test_library_conventions_are_affine_invariant_up_to_their_epsilon(rewards, a, b, convention):
    # (a r + b - mean) / (a std + eps) equals the original up to the eps term, i.e. within
    # |A| * eps / std relative: libraries add eps to the std, so exact invariance would be wrong.
    original = group_stats(rewards, convention)
    if original.std < 1e-2:
        return
    rescaled = group_advantages([a * r + b for r in rewards], convention)
    eps = core.get_convention(convention).eps
    tolerance = np.abs(original.advantages) * 2 * eps / (original.std * min(a, 1.0)) + 1e-6
    assert np.all(np.abs(rescaled - original.advantages) <= tolerance)


@given(
    st.lists(
        st.floats(allow_nan=False, allow_infinity=False, min_value=-1e300, max_value=1e300),
        min_size=1,
        max_size=32,
    ),
    st.sampled_from(NORMALISED),
)
@settings(max_examples=200)
def test_normalised_conventions_give_finite_output_for_every_finite_input(rewards, convention):
    if len(rewards) < core.get_convention(convention).min_group_size:
        return
    assert np.isfinite(group_advantages(rewards, convention)).all()


@given(groups, st.sampled_from(["dr_grpo", "rloo"]))
def test_unnormalised_conventions_give_finite_output_for_finite_input(rewards, convention):
    assert np.isfinite(group_advantages(rewards, convention)).all()


@given(
    arrays(np.float64, st.tuples(st.integers(1, 12), st.integers(2, 16)), elements=finite_rewards),
    st.sampled_from(core.convention_names()),
)
def test_batch_result_equals_the_per_group_loop(batch, convention):
    together = group_advantages(batch, convention)
    if convention == "trl_batch":
        return  # one std over the whole batch: by design not a per-group computation
    for row, expected in zip(batch, together):
        np.testing.assert_allclose(group_advantages(row, convention), expected, atol=1e-9)


def test_a_spread_whose_square_is_subnormal_scores_the_same_alone_and_in_a_batch():
    # Found by the property above: 1.5e-159 squared is subnormal and keeps only a few digits.
    batch = np.array([[1.47206729e-159, 5e-324], [0.0, 5e-324]])
    alone = group_advantages(batch[0], "textbook")
    np.testing.assert_array_equal(alone, [1.0, -1.0])
    np.testing.assert_array_equal(group_advantages(batch, "textbook")[0], alone)


def test_tiny_spread_does_not_underflow_into_a_degenerate_group():
    stats = group_stats([0.0, 1e-300])
    assert not stats.degenerate
    np.testing.assert_allclose(stats.advantages, [-1.0, 1.0])


def test_huge_rewards_are_rescaled_instead_of_overflowing():
    np.testing.assert_allclose(group_advantages([1e300, -1e300]), [1.0, -1.0])


def test_advantages_that_cannot_be_represented_raise_a_clear_error():
    with pytest.raises(ValueError, match="too large"):
        group_advantages([1.7e308, -1.7e308, -1.7e308], "dr_grpo")


# --- bad input -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rewards", "message"),
    [
        ([], "empty group"),
        ([1.0, float("nan")], "index 1 is nan"),
        ([1.0, float("inf")], "index 1 is inf"),
        ([[1, 0], [1]], "ragged batch"),
        ("1 0 0 1", "not text"),
        ([1, "x"], "must be numbers"),
        ([[[1.0]]], "shape"),
    ],
)
def test_bad_rewards_raise_a_readable_value_error(rewards, message):
    with pytest.raises(ValueError, match=message):
        group_advantages(rewards)


@pytest.mark.parametrize(
    ("convention", "library"), [("trl", "TRL"), ("openrlhf", "OpenRLHF"), ("rloo", "RLOO")]
)
def test_convention_undefined_at_one_sample_names_itself(convention, library):
    with pytest.raises(ValueError, match=f"{library}.*undefined for a group of 1"):
        group_stats([1.0], convention)


def test_unknown_convention_lists_the_valid_ones():
    with pytest.raises(ValueError, match="textbook, trl, trl_batch, verl, openrlhf, dr_grpo, rloo"):
        group_advantages([1, 0], "ppo")


def test_group_stats_refuses_a_batch():
    with pytest.raises(ValueError, match="one group"):
        group_stats([[1, 0], [0, 1]])


def test_the_mean_of_huge_rewards_does_not_overflow_or_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        stats = group_stats([1.7e308, 1.7e308, 0.0])
    assert stats.mean == pytest.approx(1.7e308 / 3 * 2)
    np.testing.assert_allclose(stats.advantages, [0.5**0.5, 0.5**0.5, -(2**0.5)])


@pytest.mark.parametrize("convention", ["trl", "trl_batch", "verl", "openrlhf", "rloo"])
def test_a_spread_too_wide_for_float64_is_refused_without_warnings(convention):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match="too large"):
            group_stats([1.7e308, -1.7e308], convention)


def test_a_batch_std_over_a_large_batch_needs_memory_in_proportion_to_it():
    # The batch std once went through an N × N shift matrix: 800,000 rewards needed 4.7 TB.
    import tracemalloc

    rewards = (np.random.default_rng(3).random((100_000, 8)) < 0.5).astype(float)
    tracemalloc.start()
    advantages = group_advantages(rewards, "trl_batch")
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 20 * rewards.nbytes
    group_means = rewards.mean(axis=1, keepdims=True)
    expected = (rewards - group_means) / (rewards.std(ddof=1) + 1e-4)
    np.testing.assert_allclose(advantages, expected, rtol=1e-9, atol=1e-12)
