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


# --- the blocked batch path against the full-matrix one it replaced, bit for bit ---------------
# _reference_* are copies of _center, _center_rescaled and _advantages_2d as they were before
# group_advantages scored batches in cache-sized row blocks. The blocked path must give the same
# bits (including 0.0 versus -0.0) for every convention and input.

_adv = core.advantages


def _reference_center(rows):
    group_size = rows.shape[1]
    shift = np.eye(group_size)
    shift[0, :] -= 1.0
    centered = rows @ shift
    shift_mean = (centered @ np.ones(group_size)) / group_size
    centered -= shift_mean[:, None]
    sum_squares = np.einsum("ij,ij->i", centered, centered)
    return centered, sum_squares


def _reference_center_rescaled(rows):
    largest = np.abs(rows).max(axis=1)
    _, exponent = np.frexp(np.where(largest > 0, largest, 1.0))
    scale = np.ldexp(1.0, np.clip(-exponent, -1000, 1000))
    centered, sum_squares = _reference_center(rows * scale[:, None])
    return centered, sum_squares, scale


def _reference_advantages_2d(rewards, convention, largest):
    batch, group_size = rewards.shape
    if largest > _adv._SAFE_HIGH:
        centered, sum_squares, scale = _reference_center_rescaled(rewards)
    else:
        centered, sum_squares = _reference_center(rewards)
        scale = None
        tiny_spread = np.flatnonzero(sum_squares < _adv._SMALLEST_NORMAL)
        if tiny_spread.size and (centered[tiny_spread] != 0.0).any():
            centered, sum_squares, scale = _reference_center_rescaled(rewards)

    if convention.name == "verl" and group_size == 1:
        std = np.ones(batch)
        divisor = std + convention.eps
        return rewards / divisor[:, None], std, divisor

    if convention.ddof is None:
        std = np.sqrt(sum_squares / group_size)
        factor = group_size / (group_size - 1) if convention.name == "rloo" else 1.0
        divisor = np.full(batch, 1.0 / factor)
        if scale is None:
            advantages = np.multiply(centered, factor, out=centered)
        else:
            with np.errstate(over="ignore"):
                centered /= scale[:, None]
                std /= scale
                advantages = np.multiply(centered, factor, out=centered)
    else:
        if convention.name == "trl_batch":
            flat_squares, flat_scale = _adv._flat_sum_squares(rewards.ravel())
            with np.errstate(over="ignore"):
                batch_std = np.sqrt(flat_squares / (rewards.size - 1)) / flat_scale
            if not np.isfinite(batch_std):
                raise ValueError("rewards are too large: the batch std overflows float64")
            std = np.full(batch, batch_std)
            scaled_std = std * scale if scale is not None else std
        else:
            scaled_std = np.sqrt(sum_squares / (group_size - convention.ddof))
            if scale is None:
                std = scaled_std
            else:
                with np.errstate(over="ignore"):
                    std = scaled_std / scale
        eps = convention.eps if scale is None else convention.eps * scale
        scaled_divisor = scaled_std + eps
        divisor = std + convention.eps
        if convention.eps == 0.0:
            scaled_divisor = np.where(scaled_divisor == 0.0, 1.0, scaled_divisor)
        advantages = np.divide(centered, scaled_divisor[:, None], out=centered)

    if largest > _adv._SAFE_HIGH and not np.isfinite(advantages).all():
        raise ValueError("rewards are too large: their advantages overflow float64")
    return advantages, std, divisor


def _reference_group_advantages(rewards, convention):
    chosen = core.get_convention(convention)
    array, largest = _adv._as_reward_array(rewards)
    rows = array.reshape(1, -1) if array.ndim == 1 else array
    _adv._check_group_size(chosen, rows.shape[1])
    advantages, *_ = _reference_advantages_2d(rows, chosen, largest)
    return advantages.reshape(array.shape)


def _assert_same_bits(actual, expected):
    assert actual.shape == expected.shape and actual.dtype == expected.dtype == np.float64
    assert np.array_equal(actual.view(np.int64), expected.view(np.int64))


def _batches(rng, batch, group_size):
    """Named (B, G) reward batches: floats, 0/1, all-equal rows, ±0.0, huge and tiny magnitudes."""
    shape = (batch, group_size)
    normal = rng.normal(size=shape)
    binary = rng.integers(0, 2, size=shape)
    mixed = binary + rng.normal(0.0, 0.1, size=shape)
    equal_rows = rng.random(batch) < 0.3
    mixed[equal_rows] = mixed[equal_rows, :1]  # all-equal rows among spread ones
    binary_equal = binary.astype(np.float64)
    binary_equal[equal_rows] = binary_equal[equal_rows, :1]
    zeros = np.where(rng.random(shape) < 0.5, -0.0, 0.0)
    zeros[:, 0] = 0.0
    signed_zeros = np.where(rng.random(shape) < 0.3, zeros, binary)
    tenths = np.round(rng.random(shape) * 10) / 10  # 0.1-style values, residue-prone means
    tenths[equal_rows] = 0.1
    return {
        "normal": normal,
        "binary float": binary.astype(np.float64),
        "binary int": binary,
        "binary bool": binary.astype(bool),
        "binary, some rows all equal": binary_equal,
        "binary + noise, some rows all equal": mixed,
        "signed zeros and ones": signed_zeros,
        "tenths": tenths,
        "float32": normal.astype(np.float32),
        "large (1e140)": normal * 1e140,
        "near the rescale bound (3e149)": normal * 3e149,
        "huge (1e200, rescaled)": normal * 1e200,
        "small (1e-100)": mixed * 1e-100,
        "tiny (1e-160, squares underflow)": mixed * 1e-160,
        "subnormal": mixed * 5e-320,
        "offset spread (1e6 + noise)": 1e6 + rng.normal(size=shape) * 1e-6,
        "non-contiguous": np.asfortranarray(normal)[:, ::-1],
    }


_BLOCK_CONVENTIONS = ("textbook", "trl", "verl", "openrlhf")


@pytest.mark.parametrize("group_size", [2, 3, 4, 5, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64])
@pytest.mark.parametrize("batch", [1, 2, 3, 4, 5, 7, 9, 33, 257])
def test_blocked_batch_path_gives_the_full_paths_bits_on_small_batches(batch, group_size):
    rng = np.random.default_rng(batch * 100 + group_size)
    for name, rewards in _batches(rng, batch, group_size).items():
        for convention in core.convention_names():
            if group_size < core.get_convention(convention).min_group_size:
                continue
            expected = _reference_group_advantages(rewards, convention)
            _assert_same_bits(group_advantages(rewards, convention), expected), (name, convention)


@pytest.mark.parametrize("group_size", [2, 3, 16, 17, 64])
def test_blocked_batch_path_gives_the_full_paths_bits_around_block_edges(group_size):
    rows = _adv._BLOCK_VALUES // group_size  # rows per block
    rng = np.random.default_rng(group_size)
    for batch in (rows - 1, rows, rows + 1, rows + 3, rows + 4, rows + 5, 2 * rows + 2, 3 * rows):
        for name, rewards in _batches(rng, batch, group_size).items():
            if name.startswith(("binary int", "binary bool", "float32", "non-contiguous")):
                continue
            for convention in _BLOCK_CONVENTIONS:
                expected = _reference_group_advantages(rewards, convention)
                actual = group_advantages(rewards, convention)
                assert np.array_equal(actual.view(np.int64), expected.view(np.int64)), (
                    batch,
                    name,
                    convention,
                )


@pytest.mark.parametrize("convention", _BLOCK_CONVENTIONS)
@pytest.mark.parametrize("batch", [100_000, 100_003])
def test_blocked_batch_path_gives_the_full_paths_bits_on_a_large_batch(batch, convention):
    rng = np.random.default_rng(batch)
    for name in ("binary + noise, some rows all equal", "binary, some rows all equal", "normal"):
        rewards = _batches(rng, batch, 16)[name]
        _assert_same_bits(
            group_advantages(rewards, convention), _reference_group_advantages(rewards, convention)
        )


@pytest.mark.parametrize("convention", _BLOCK_CONVENTIONS)
def test_blocked_batch_path_scores_ordinary_batches_itself(convention):
    # The bit-for-bit tests above pass trivially if the blocked path always declines: it must not.
    rng = np.random.default_rng(5)
    for batch, group_size in ((1, 2), (3, 16), (10_000, 16), (1_000, 64)):
        batches = _batches(rng, batch, group_size)
        for name in (
            "normal",
            "binary int",
            "binary, some rows all equal",
            "signed zeros and ones",
        ):
            chosen = core.get_convention(convention)
            assert _adv._blocked_applies(batches[name], chosen)
            advantages = _adv._blocked_advantages(batches[name], chosen)
            assert advantages is not None
            _assert_same_bits(advantages, _reference_group_advantages(batches[name], convention))


def test_blocked_batch_path_makes_all_equal_rows_exactly_zero():
    rewards = np.repeat(np.array([[0.1], [0.0], [1.0], [-3.7], [1e-300]]), 16, axis=1)
    for convention in _BLOCK_CONVENTIONS:
        advantages = group_advantages(rewards, convention)
        assert np.array_equal(advantages.view(np.int64), np.zeros_like(advantages).view(np.int64))


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf], ids=["nan", "inf", "-inf"])
@pytest.mark.parametrize("where", [(0, 0), (5000, 3), (9999, 15)])
def test_blocked_batch_path_leaves_bad_rewards_to_the_full_paths_errors(bad, where):
    rewards = np.zeros((10_000, 16))
    rewards[where] = bad
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match=f"index {where[0]}, {where[1]} is"):
            group_advantages(rewards, "trl")


@settings(max_examples=200, deadline=None)
@given(
    arrays(
        np.float64,
        st.tuples(st.integers(1, 40), st.integers(2, 20)),
        elements=st.floats(-1e300, 1e300, allow_nan=False, allow_infinity=False, width=64)
        | st.sampled_from([0.0, -0.0, 1.0, 0.1, 5e-324]),
    ),
    st.sampled_from(_BLOCK_CONVENTIONS),
)
def test_blocked_batch_path_gives_the_full_paths_bits_on_any_batch(rewards, convention):
    try:
        expected = _reference_group_advantages(rewards, convention)
    except ValueError as error:
        with pytest.raises(ValueError, match=str(error)[:30]):
            group_advantages(rewards, convention)
        return
    _assert_same_bits(group_advantages(rewards, convention), expected)


# --- the blocked batch path at its edges (issue #14's batch-scoring work) -----------------------


def _views(rewards):
    """The same rewards as arrays the blocked path must read without a contiguous copy of its own:
    Fortran order, every other row of a taller array, reversed columns, a window of a wider one."""
    batch, group_size = rewards.shape
    taller = np.zeros((2 * batch, group_size))
    taller[::2] = rewards
    wider = np.zeros((batch, group_size + 5))
    wider[:, 3 : 3 + group_size] = rewards
    return {
        "Fortran order": np.asfortranarray(rewards),
        "every other row": taller[::2],
        "reversed columns": np.ascontiguousarray(rewards[:, ::-1])[:, ::-1],
        "window of a wider array": wider[:, 3 : 3 + group_size],
    }


@pytest.mark.parametrize("group_size", [2, 16, 64])
def test_blocked_batch_path_reads_non_contiguous_batches_across_block_edges(group_size):
    rows = _adv._BLOCK_VALUES // group_size
    rng = np.random.default_rng(40 + group_size)
    for batch in (rows - 1, rows + 1, 2 * rows + 3):
        rewards = _batches(rng, batch, group_size)["binary + noise, some rows all equal"]
        for name, view in _views(rewards).items():
            assert not view.flags.c_contiguous, name
            for convention in ("textbook", "trl"):
                chosen = core.get_convention(convention)
                blocked = _adv._blocked_advantages(view, chosen)
                assert blocked is not None, (name, convention)
                expected = _reference_group_advantages(view, convention)
                _assert_same_bits(blocked, expected)
                _assert_same_bits(group_advantages(view, convention), expected)


@pytest.mark.parametrize("group_size", [2, 16, 64])
def test_blocked_batch_path_casts_other_dtypes_as_the_full_path_across_block_edges(group_size):
    rows = _adv._BLOCK_VALUES // group_size
    rng = np.random.default_rng(50 + group_size)
    batches = _batches(rng, 2 * rows + 1, group_size)
    for name in ("binary int", "binary bool", "float32"):
        for convention in ("textbook", "trl"):
            expected = _reference_group_advantages(batches[name], convention)
            _assert_same_bits(group_advantages(batches[name], convention), expected)


@pytest.mark.skipif(
    np.finfo(np.longdouble).nmant <= np.finfo(np.float64).nmant,
    reason="long double is float64 on this platform",
)
def test_long_double_rewards_are_rounded_to_float64_before_they_are_shifted():
    # 1 + 2**-60 is 1.0 in float64: the full path casts first, so the row is all-equal (A = 0).
    # Shifting in long double first would leave 2**-60 and score the row as spread.
    rewards = np.ones((5, 16), dtype=np.longdouble)
    rewards[:, 1] += np.longdouble(2) ** -60
    rewards[3] = np.arange(16)
    for convention in _BLOCK_CONVENTIONS:
        expected = _reference_group_advantages(rewards, convention)
        actual = group_advantages(rewards, convention)
        _assert_same_bits(actual, expected)
        assert not actual[[0, 1, 2, 4]].any()


@pytest.mark.parametrize("group_size", [2, 16, 64])
@pytest.mark.parametrize(
    ("kind", "factor"),
    [("huge, rescaled", 1e200), ("tiny spread, squares underflow", 1e-160), ("subnormal", 5e-320)],
)
def test_a_row_that_needs_rescaling_among_ordinary_rows_of_one_block(group_size, kind, factor):
    # The blocked path declines the whole batch (returns None) and the full path, which rescales,
    # scores it: every row, the ordinary ones included, keeps the full path's bits.
    rows = _adv._BLOCK_VALUES // group_size
    rng = np.random.default_rng(group_size)
    rewards = _batches(rng, 2 * rows + 2, group_size)["binary + noise, some rows all equal"]
    for where in (0, rows // 2, rows - 1, rows, 2 * rows + 1):
        batch = rewards.copy()
        batch[where] = rng.normal(size=group_size) * factor
        for convention in _BLOCK_CONVENTIONS:
            assert _adv._blocked_advantages(batch, core.get_convention(convention)) is None
            expected = _reference_group_advantages(batch, convention)
            _assert_same_bits(group_advantages(batch, convention), expected)


@pytest.mark.parametrize("group_size", [2, 64])
def test_blocked_batch_path_gives_the_full_paths_bits_on_a_large_batch_at_g_2_and_64(group_size):
    rng = np.random.default_rng(60 + group_size)
    rewards = _batches(rng, 1_600_003 // group_size, group_size)[
        "binary + noise, some rows all equal"
    ]
    for convention in ("textbook", "trl"):
        _assert_same_bits(
            group_advantages(rewards, convention), _reference_group_advantages(rewards, convention)
        )


@pytest.mark.parametrize("group_size", [2, 64])
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf], ids=["nan", "inf", "-inf"])
def test_bad_rewards_on_either_side_of_a_block_edge_are_reported_as_today(group_size, bad):
    rows = _adv._BLOCK_VALUES // group_size
    for where in ((rows - 1, group_size - 1), (rows, 0), (rows, group_size - 1)):
        rewards = np.ones((2 * rows, group_size))
        rewards[where] = bad
        for convention in ("textbook", "trl"):
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                with pytest.raises(ValueError, match=f"index {where[0]}, {where[1]} is"):
                    group_advantages(rewards, convention)


def test_blocked_batch_path_leaves_the_callers_large_batch_alone():
    rewards = np.random.default_rng(7).normal(size=(3 * (_adv._BLOCK_VALUES // 16) + 1, 16))
    before = rewards.copy()
    group_advantages(rewards, "trl")
    assert np.array_equal(rewards.view(np.int64), before.view(np.int64))
    assert rewards.flags.writeable
