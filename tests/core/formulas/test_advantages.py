"""The math core: the seeds' worked examples exactly, the libraries' numbers, and bad input."""

from __future__ import annotations

import decimal
import math
import re
import warnings
from decimal import Decimal
from fractions import Fraction

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


@pytest.mark.parametrize(
    ("reward", "degenerate", "pushed"),
    [(3.0, False, (1, 0)), (-2.0, False, (0, 1)), (0.0, True, (0, 0))],
)
def test_a_lone_verl_answer_is_degenerate_only_when_its_reward_is_zero(reward, degenerate, pushed):
    # verl's baseline for a lone answer is 0, not its reward: "degenerate" sat beside "pushed up 1".
    stats = group_stats([reward], "verl")
    assert stats.degenerate is degenerate
    assert (stats.pushed_up, stats.pushed_down) == pushed
    assert stats.centered.tolist() == [reward]  # r − mean with verl's mean of 0


def test_a_lone_answer_under_the_textbook_is_still_degenerate():
    stats = group_stats([3.0])
    assert stats.degenerate and stats.centered.tolist() == [0.0] and stats.no_signal == 1


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
    ("rewards", "message"),
    [
        ([1 + 2j, 0], "not complex"),
        (np.array([1 + 2j, 0]), "not complex"),
        (np.array([[1 + 0j, 0]] * 3), "not complex"),  # a batch: the blocked path declines it
        (np.array([1, np.complex128(1j)], dtype=object), "not complex"),
        ([10**400, 0], "within float64's range"),
        (np.array([10**400, 0], dtype=object), "within float64's range"),
        (["1", "0"], "not text"),
        (np.array(["1", "0"]), "not text"),
        (np.array([None, "1"], dtype=object), "not text"),
        (np.array(["2020-01-01", "2021-01-01"], dtype="datetime64[D]"), "not datetime64"),
        ([object(), 1], "must be numbers"),
    ],
)
@pytest.mark.parametrize("function", [group_advantages, group_stats])
def test_rewards_that_are_not_real_numbers_raise_a_value_error_and_never_warn(
    function, rewards, message
):
    # numpy read "1" as 1.0, dropped imaginary parts with a ComplexWarning and raised
    # OverflowError for 10**400.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match=message):
            function(rewards)


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


def _center_with_shift_matrix(rows):
    """``_center`` as it was before issue 24: the shift as a product with a G x G matrix."""
    group_size = rows.shape[1]
    shift = np.eye(group_size)
    shift[0, :] -= 1.0
    centered = rows @ shift
    shift_mean = (centered @ np.ones(group_size)) / group_size
    centered -= shift_mean[:, None]
    return centered, np.einsum("ij,ij->i", centered, centered)


_ANY_FINITE = st.floats(allow_nan=False, allow_infinity=False)
_AWKWARD = st.sampled_from([0.0, -0.0, 1.0, -1.0, 0.1, 1e-310, -5e-324, 1e200, -1.7e308, 2.0**53])


@given(
    arrays(
        np.float64,
        st.tuples(st.integers(1, 6), st.integers(1, 40)),
        elements=st.one_of(_ANY_FINITE, _AWKWARD),
    ),
    st.booleans(),
)
@settings(max_examples=300)
def test_centering_is_bit_identical_to_the_shift_matrix_product(rows, fortran_order):
    if fortran_order:
        rows = np.asfortranarray(rows)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # both overflow alike on ±1.7e308
        expected = _center_with_shift_matrix(rows)
        actual = _adv._center(rows)
    for new, old in zip(actual, expected):
        assert new.flags.c_contiguous
        _assert_same_bits(new, old)


@given(
    st.lists(st.one_of(_ANY_FINITE, _AWKWARD), min_size=1, max_size=40),
    st.sampled_from(core.convention_names()),
)
@settings(max_examples=300)
def test_scores_are_bit_identical_to_the_shift_matrix_centering(rewards, convention):
    chosen = core.get_convention(convention)
    if len(rewards) < chosen.min_group_size:
        return
    try:
        new = group_stats(rewards, chosen)
    except ValueError as error:  # a spread too wide for float64: refused alike
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(_adv, "_center", _center_with_shift_matrix)
            with pytest.raises(ValueError, match=re.escape(str(error))):
                group_stats(rewards, chosen)
        return
    batch = [rewards, rewards[::-1]]
    try:
        new_batch = group_advantages(batch, chosen)
    except ValueError as error:  # the batch path overflows where one group just fits: alike
        new_batch, batch_error = None, str(error)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_adv, "_center", _center_with_shift_matrix)
        old = group_stats(rewards, chosen)
        if new_batch is None:
            with pytest.raises(ValueError, match=re.escape(batch_error)):
                group_advantages(batch, chosen)
        else:
            old_batch = group_advantages(batch, chosen)
    for mine, theirs in zip(
        (new.advantages, new.centered, np.array([new.mean, new.std, new.scale])),
        (old.advantages, old.centered, np.array([old.mean, old.std, old.scale])),
    ):
        _assert_same_bits(mine, theirs)
    if new_batch is not None:
        _assert_same_bits(new_batch, old_batch)


def test_scoring_a_large_group_needs_memory_in_proportion_to_it():
    # _center once built a G x G shift matrix: 20,000 rewards took 3 GB, 200,000 a MemoryError.
    import tracemalloc

    rewards = np.tile([1.0, 0.0], 2_000)
    tracemalloc.start()
    stats = group_stats(rewards)
    batch = group_advantages(rewards.reshape(1, -1), "dr_grpo")
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 20 * rewards.nbytes
    assert (stats.pushed_up, stats.pushed_down) == (2_000, 2_000)
    np.testing.assert_array_equal(stats.advantages, np.tile([1.0, -1.0], 2_000))
    np.testing.assert_array_equal(batch[0], np.tile([0.5, -0.5], 2_000))


# --- the blocked batch path: exact where the full path is, a few ulps from exact elsewhere ------
# Issue #14 scores batches in cache-sized row blocks, with per-block BLAS sums and a multiply by
# the reciprocal of the divisor. All-equal rows stay exactly +0.0 (each row is shifted by its own
# first reward first, one rounding, so they are exact zeros whatever order the sums take); every
# other advantage may move in its last bits, and is checked against the exact value computed with
# fractions (decimal, 60 digits, for the square root and the division).

_adv = core.formulas.advantages
_BLOCK_CONVENTIONS = ("textbook", "trl", "verl", "openrlhf")


def _ulp_bound(group_size):
    """How far, in ulps of the row's largest |A|, an advantage may sit from the exact one.

    Four single roundings (the shift, the centering, the reciprocal, the multiply) cost about an
    ulp each; the mean and the variance are sums of G terms, whose worst-case error grows with G
    (Higham's gamma_G), the variance's halved by the square root. Measured worst: 4 ulps, for
    G = 2 to 64, the same as the full path's. 8 ulps up to G = 32, G / 4 beyond.
    """
    return max(8.0, group_size / 4)


def _exact_advantages(rewards, convention):
    """The advantages computed exactly (fractions) and rounded once to float64 at the end."""
    chosen = core.get_convention(convention)
    rows = np.asarray(rewards, dtype=np.float64)
    group_size = rows.shape[1]
    out = np.zeros(rows.shape)
    with decimal.localcontext() as context:
        context.prec = 60
        for index, row in enumerate(rows):
            values = [Fraction(float(value)) for value in row]
            mean = sum(values) / group_size
            centered = [value - mean for value in values]
            squares = sum(value * value for value in centered)
            if squares == 0:
                continue
            variance = Decimal(squares.numerator) / Decimal(squares.denominator)
            divisor = (variance / (group_size - chosen.ddof)).sqrt() + Decimal(chosen.eps)
            out[index] = [
                float(Decimal(value.numerator) / Decimal(value.denominator) / divisor)
                for value in centered
            ]
    return out


def _assert_near(actual, expected, rewards, ulps):
    """``actual`` is +0.0 in every all-equal row of ``rewards`` and within ``ulps`` ulps of the
    row's largest |expected| everywhere else."""
    rows = np.asarray(rewards, dtype=np.float64)  # rows equal once rounded to float64 are equal
    assert actual.shape == rows.shape and actual.dtype == np.float64
    equal = (rows == rows[:, :1]).all(axis=1)
    assert not actual[equal].view(np.int64).any(), "an all-equal row is not +0.0 throughout"
    scale = np.abs(expected).max(axis=1, keepdims=True)
    error = np.abs(actual - expected) / np.spacing(np.maximum(scale, np.finfo(np.float64).tiny))
    assert error.max(initial=0.0) <= ulps, f"{error.max():.2f} ulps from the reference"


def _full_path(rewards, convention):
    """The full-matrix path, as group_stats and the batches the blocked path declines take it."""
    array, largest = _adv._as_reward_array(rewards)
    advantages, *_ = _adv._advantages_2d(array, core.get_convention(convention), largest)
    return advantages


def _assert_same_bits(actual, expected):
    assert actual.shape == expected.shape and actual.dtype == expected.dtype == np.float64
    assert np.array_equal(actual.view(np.int64), expected.view(np.int64))


def _assert_near_full_path(actual, rewards, convention):
    # Each is within _ulp_bound of the exact advantages (checked on small batches, where exact
    # references are affordable), so they are within twice that of each other.
    expected = _full_path(rewards, convention)
    _assert_near(actual, expected, rewards, 2 * _ulp_bound(np.shape(rewards)[1]))


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
    signed_zeros[equal_rows] = zeros[equal_rows]  # rows of +0.0 and -0.0 only: all-equal
    tenths = np.round(rng.random(shape) * 10) / 10  # 0.1-style values, residue-prone means
    tenths[equal_rows] = 0.1
    offset = 1e6 + rng.normal(size=shape) * 1e-6
    offset[equal_rows] = offset[equal_rows, :1]
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
        "near the old rescale bound (3e149)": normal * 3e149,
        "huge (1e200, rescaled)": normal * 1e200,
        "small (1e-100)": mixed * 1e-100,
        "tiny (1e-160, squares underflow)": mixed * 1e-160,
        "subnormal": mixed * 5e-320,
        "offset spread (1e6 + noise)": offset,
        "ints with an offset": rng.integers(-3, 4, size=shape) + 2**40,
        "non-contiguous": np.asfortranarray(normal)[:, ::-1],
    }


@pytest.mark.parametrize("group_size", [2, 3, 4, 5, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64])
@pytest.mark.parametrize("batch", [1, 2, 3, 9])
def test_blocked_batch_path_is_within_a_few_ulps_of_exact_on_small_batches(batch, group_size):
    rng = np.random.default_rng(batch * 100 + group_size)
    for name, rewards in _batches(rng, batch, group_size).items():
        for convention in _BLOCK_CONVENTIONS:
            actual = group_advantages(rewards, convention)
            if _adv._blocked_advantages(rewards, core.get_convention(convention)) is None:
                # Declined (squares that overflow or underflow): the full path, which rescales.
                _assert_same_bits(actual, _full_path(rewards, convention))
                continue
            expected = _exact_advantages(rewards, convention)
            _assert_near(actual, expected, rewards, _ulp_bound(group_size)), (name, convention)


@pytest.mark.parametrize("group_size", [2, 3, 16, 17, 64])
@pytest.mark.parametrize("batch", [33, 257])
def test_blocked_batch_path_agrees_with_the_full_path_on_every_kind_of_batch(batch, group_size):
    rng = np.random.default_rng(batch * 100 + group_size)
    for rewards in _batches(rng, batch, group_size).values():
        for convention in core.convention_names():
            if group_size < core.get_convention(convention).min_group_size:
                continue
            _assert_near_full_path(group_advantages(rewards, convention), rewards, convention)


@pytest.mark.slow  # eight batches of about a block each, per group size and convention
@pytest.mark.parametrize("group_size", [2, 3, 16, 17, 64])
def test_blocked_batch_path_around_block_edges(group_size):
    rows = _adv._BLOCK_VALUES // group_size  # rows per block
    rng = np.random.default_rng(group_size)
    for batch in (rows - 1, rows, rows + 1, rows + 3, rows + 4, rows + 5, 2 * rows + 2, 3 * rows):
        for name, rewards in _batches(rng, batch, group_size).items():
            if name.startswith(("binary int", "binary bool", "float32", "non-contiguous")):
                continue
            for convention in _BLOCK_CONVENTIONS:
                _assert_near_full_path(group_advantages(rewards, convention), rewards, convention)


@pytest.mark.slow  # 1.6 million rewards per batch
@pytest.mark.parametrize("convention", _BLOCK_CONVENTIONS)
@pytest.mark.parametrize("batch", [100_000, 100_003])
def test_blocked_batch_path_on_a_large_batch(batch, convention):
    rng = np.random.default_rng(batch)
    for name in ("binary + noise, some rows all equal", "binary, some rows all equal", "normal"):
        rewards = _batches(rng, batch, 16)[name]
        _assert_near_full_path(group_advantages(rewards, convention), rewards, convention)


@pytest.mark.parametrize("convention", _BLOCK_CONVENTIONS)
def test_blocked_batch_path_scores_ordinary_batches_itself(convention):
    # The tests above pass trivially if the blocked path always declines: it must not.
    rng = np.random.default_rng(5)
    chosen = core.get_convention(convention)
    for batch, group_size in ((1, 2), (3, 16), (10_000, 16), (1_000, 64)):
        batches = _batches(rng, batch, group_size)
        for name in (
            "normal",
            "binary int",
            "binary, some rows all equal",
            "signed zeros and ones",
            "large (1e140)",
            "small (1e-100)",
            "offset spread (1e6 + noise)",
        ):
            assert _adv._blocked_applies(batches[name], chosen)
            advantages = _adv._blocked_advantages(batches[name], chosen)
            assert advantages is not None, name
            _assert_same_bits(group_advantages(batches[name], convention), advantages)
            _assert_near_full_path(advantages, batches[name], convention)


def test_blocked_batch_path_makes_all_equal_rows_exactly_zero():
    rewards = np.repeat(np.array([[0.1], [0.0], [-0.0], [1.0], [-3.7], [1e-300], [1e300]]), 16, 1)
    rewards[2, ::3] = 0.0  # +0.0 and -0.0 mixed in one row: equal, so all-equal
    for convention in _BLOCK_CONVENTIONS:
        advantages = group_advantages(rewards, convention)
        assert np.array_equal(advantages.view(np.int64), np.zeros_like(advantages).view(np.int64))


def test_blocked_batch_path_keeps_the_exact_results_of_the_seeds():
    # Where the full path is exact the blocked one is too: these are exact in binary.
    rewards = np.array([[1, 0, 0, 1], [1, 1, 1, 1], [0, 0, 0, 0], [3, 1, 3, 1]], dtype=float)
    assert group_advantages(rewards).tolist() == [
        [1.0, -1.0, -1.0, 1.0],
        [0.0, 0.0, 0.0, 0.0],
        [0.0, 0.0, 0.0, 0.0],
        [1.0, -1.0, 1.0, -1.0],
    ]


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf], ids=["nan", "inf", "-inf"])
@pytest.mark.parametrize("where", [(0, 0), (5000, 3), (9999, 15)])
def test_blocked_batch_path_leaves_bad_rewards_to_the_full_paths_errors(bad, where):
    rewards = np.zeros((10_000, 16))
    rewards[where] = bad
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match=f"index {where[0]}, {where[1]} is"):
            group_advantages(rewards, "trl")


_any_reward = st.floats(-1e300, 1e300, allow_nan=False, allow_infinity=False, width=64) | (
    st.sampled_from([0.0, -0.0, 1.0, 0.1, 5e-324])
)


def _check_against_exact(rewards, convention):
    """group_advantages is the blocked path's result, within the ulp bound of exact; or, where
    the blocked path declines, the full path's result or error."""
    chosen = core.get_convention(convention)
    blocked = _adv._blocked_advantages(rewards, chosen)
    if blocked is None:
        try:
            expected = _full_path(rewards, convention)
        except ValueError as error:
            with pytest.raises(ValueError, match=re.escape(str(error)[:30])):
                group_advantages(rewards, convention)
            return
        _assert_same_bits(group_advantages(rewards, convention), expected)
        return
    _assert_same_bits(group_advantages(rewards, convention), blocked)
    expected = _exact_advantages(rewards, convention)
    _assert_near(blocked, expected, rewards, _ulp_bound(rewards.shape[1]))


@settings(max_examples=200, deadline=None)
@given(
    arrays(np.float64, st.tuples(st.integers(1, 40), st.integers(2, 20)), elements=_any_reward),
    st.sampled_from(_BLOCK_CONVENTIONS),
)
def test_blocked_batch_path_is_within_a_few_ulps_of_exact_on_any_batch(rewards, convention):
    _check_against_exact(rewards, convention)


@st.composite
def _offset_batches(draw):
    """Batches of G = 2 to 64 whose rows are an offset (up to 1e15, or none) plus a spread that
    may be far below it (1e6 + 1e-6 style), small integers, or signed zeros; some rows repeat
    their first value throughout."""
    batch = draw(st.integers(1, 6))
    group_size = draw(st.integers(2, 64))
    offset = draw(st.sampled_from([0.0, -0.0, 1.0, 1e6, -3.5e8, 2.0**40, 1e15]))
    spread = draw(st.sampled_from([1.0, 1e-3, 1e-6, 2.0**-20, 1e-9]))
    units = st.integers(-5, 5).map(float) | st.floats(-1, 1, allow_subnormal=False) | st.just(-0.0)
    rows = []
    for _ in range(batch):
        if draw(st.booleans()) and draw(st.booleans()):  # a quarter of rows: all equal
            value = offset + draw(units) * spread
            rows.append([value] * group_size)
        else:
            rows.append([offset + draw(units) * spread for _ in range(group_size)])
    return np.array(rows, dtype=np.float64)


@settings(max_examples=200, deadline=None)
@given(_offset_batches(), st.sampled_from(_BLOCK_CONVENTIONS))
def test_blocked_batch_path_is_within_a_few_ulps_of_exact_on_offset_and_integer_batches(
    rewards, convention
):
    _check_against_exact(rewards, convention)


@given(
    arrays(np.int64, st.tuples(st.integers(1, 6), st.integers(2, 64)), elements=st.integers(-9, 9)),
    st.sampled_from(_BLOCK_CONVENTIONS),
)
@settings(deadline=None)
def test_blocked_batch_path_is_within_a_few_ulps_of_exact_on_integer_rewards(rewards, convention):
    _check_against_exact(rewards, convention)


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
        contiguous = {c: group_advantages(rewards, c) for c in ("textbook", "trl")}
        for name, view in _views(rewards).items():
            assert not view.flags.c_contiguous, name
            for convention in ("textbook", "trl"):
                chosen = core.get_convention(convention)
                blocked = _adv._blocked_advantages(view, chosen)
                assert blocked is not None, (name, convention)
                # The same values give the same bits, however they are laid out in memory.
                _assert_same_bits(blocked, contiguous[convention])
                _assert_same_bits(group_advantages(view, convention), blocked)


@pytest.mark.parametrize("group_size", [2, 16, 64])
def test_blocked_batch_path_casts_other_dtypes_as_the_full_path_across_block_edges(group_size):
    rows = _adv._BLOCK_VALUES // group_size
    rng = np.random.default_rng(50 + group_size)
    batches = _batches(rng, 2 * rows + 1, group_size)
    for name in ("binary int", "binary bool", "float32", "ints with an offset"):
        for convention in ("textbook", "trl"):
            as_float = group_advantages(batches[name].astype(np.float64), convention)
            _assert_same_bits(group_advantages(batches[name], convention), as_float)


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
        actual = group_advantages(rewards, convention)
        _assert_near(actual, _exact_advantages(rewards, convention), rewards, 8)
        assert not actual[[0, 1, 2, 4]].view(np.int64).any()


@pytest.mark.parametrize("group_size", [2, 16, 64])
@pytest.mark.parametrize(
    ("kind", "factor"),
    [
        ("huge, squares overflow", 1e200),
        ("tiny spread, squares underflow", 1e-160),
        ("subnormal", 5e-320),
    ],
)
def test_a_row_that_needs_rescaling_among_ordinary_rows_of_one_block(group_size, kind, factor):
    # The blocked path declines the whole batch (returns None) and the full path, which rescales,
    # scores it: every row, the ordinary ones included, gets the full path's bits.
    rows = _adv._BLOCK_VALUES // group_size
    rng = np.random.default_rng(group_size)
    rewards = _batches(rng, 2 * rows + 2, group_size)["binary + noise, some rows all equal"]
    for where in (0, rows // 2, rows - 1, rows, 2 * rows + 1):
        batch = rewards.copy()
        batch[where] = rng.normal(size=group_size) * factor
        for convention in _BLOCK_CONVENTIONS:
            assert _adv._blocked_advantages(batch, core.get_convention(convention)) is None
            _assert_same_bits(group_advantages(batch, convention), _full_path(batch, convention))


@pytest.mark.slow  # 1.6 million rewards
@pytest.mark.parametrize("group_size", [2, 64])
def test_blocked_batch_path_on_a_large_batch_at_g_2_and_64(group_size):
    rng = np.random.default_rng(60 + group_size)
    rewards = _batches(rng, 1_600_003 // group_size, group_size)[
        "binary + noise, some rows all equal"
    ]
    for convention in ("textbook", "trl"):
        _assert_near_full_path(group_advantages(rewards, convention), rewards, convention)


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


# --- the blocked batch path's threads ------------------------------------------------------------


@pytest.fixture
def many_threads(monkeypatch):
    """Split even small batches between four threads, whatever this machine's core count."""
    monkeypatch.setattr(_adv, "_usable_cores", lambda: 4)
    monkeypatch.setattr(_adv, "_BLOCK_THREADS", 4)
    monkeypatch.setattr(_adv, "_BLOCK_PER_THREAD", 1)


@pytest.mark.parametrize("group_size", [2, 16, 17, 64])
def test_the_threads_do_not_change_a_single_bit(group_size, many_threads, monkeypatch):
    rows = _adv._BLOCK_VALUES // group_size
    rng = np.random.default_rng(70 + group_size)
    for batch in (rows + 1, 3 * rows + 5, 5 * rows):
        rewards = _batches(rng, batch, group_size)["binary + noise, some rows all equal"]
        for convention in ("textbook", "trl"):
            chosen = core.get_convention(convention)
            threaded = _adv._blocked_advantages(rewards, chosen)
            with monkeypatch.context() as single:
                single.setattr(_adv, "_BLOCK_THREADS", 1)
                alone = _adv._blocked_advantages(rewards, chosen)
            assert threaded is not None and alone is not None
            _assert_same_bits(threaded, alone)


@pytest.mark.parametrize("bad", [np.nan, np.inf, 1e-160], ids=["nan", "inf", "underflow"])
def test_a_row_only_one_thread_sees_sends_the_whole_batch_to_the_full_path(bad, many_threads):
    rows = _adv._BLOCK_VALUES // 16
    rewards = np.random.default_rng(8).normal(size=(4 * rows, 16))
    rewards[3 * rows + 7, 1:] = bad  # the last thread's range only
    if bad == 1e-160:
        rewards[3 * rows + 7] *= np.linspace(1, 2, 16)  # a tiny spread whose squares underflow
        rewards[3 * rows + 7, 0] = 1e-160
        assert _adv._blocked_advantages(rewards, core.get_convention("trl")) is None
        _assert_same_bits(group_advantages(rewards, "trl"), _full_path(rewards, "trl"))
        return
    with pytest.raises(ValueError, match=f"index {3 * rows + 7}, 1 is"):
        group_advantages(rewards, "trl")


def test_a_thread_that_cannot_start_leaves_its_blocks_to_the_caller(many_threads, monkeypatch):
    rows = _adv._BLOCK_VALUES // 16
    rewards = np.random.default_rng(9).normal(size=(4 * rows + 3, 16))
    expected = group_advantages(rewards, "trl")

    def refuse(thread):
        raise RuntimeError("can't start new thread")

    monkeypatch.setattr(_adv.threading.Thread, "start", refuse)
    _assert_same_bits(group_advantages(rewards, "trl"), expected)


# --- a group with missing rewards: TRL >= 1.6 ----------------------------------------------------


def test_scored_group_stats_leaves_a_missing_reward_out_as_trl_1_6_does():
    """TRL ``grpo_trainer.py`` ``_generate_and_score_completions`` (since 1c7c7f9, TRL 1.6):
    ``rewards[unscorable_mask] = nan``; ``nanmean``/``nanstd`` per group; ``nan_to_num`` -> 0."""
    from grpo_desktop.core.formulas.advantages import scored_group_stats

    scored = scored_group_stats([1.0, np.nan, 0.0, 0.0], "trl")
    expected = group_stats([1.0, 0.0, 0.0], "trl")
    assert scored.advantages.tolist() == [*expected.advantages[:1], 0.0, *expected.advantages[1:]]
    assert scored.mean == expected.mean and scored.std == expected.std
    assert scored.scored.tolist() == [True, False, True, True] and scored.scored_count == 3
    assert (scored.pushed_up, scored.pushed_down, scored.no_signal) == (1, 2, 1)
    assert not scored.degenerate


def test_scored_group_stats_of_one_or_no_reward():
    from grpo_desktop.core.formulas.advantages import scored_group_stats

    lone = scored_group_stats([np.nan, 2.0, np.nan], "trl")  # TRL: nanstd of one value is NaN
    assert lone.advantages.tolist() == [0.0, 0.0, 0.0]
    assert lone.mean == 2.0 and lone.std is None and lone.degenerate
    empty = scored_group_stats([np.nan, np.nan], "textbook")
    assert empty.advantages.tolist() == [0.0, 0.0] and empty.mean is None and empty.degenerate
    with pytest.raises(ValueError, match="undefined for 1 scored answer"):
        scored_group_stats([np.nan, 2.0], "rloo")
    with pytest.raises(ValueError, match="must be finite"):
        scored_group_stats([np.inf, 2.0], "trl")


def test_the_textbook_convention_is_attributed_to_the_seeds_not_to_deepseekmath():
    """DeepSeekMath does not say which std it uses; the seeds' worked examples use population."""
    textbook = core.CONVENTIONS["textbook"]
    assert "DeepSeekMath GRPO" not in textbook.source
    assert textbook.source == "the seeds' worked examples, population std"
    assert "DeepSeekMath does not say which std it uses" in textbook.description


def test_dr_grpo_is_named_as_trls_scale_rewards_none():
    """TRL ``grpo_config.py``: ``scale_rewards`` ``False`` or ``"none"``: no scaling
    (``{True: "group", False: "none"}``), i.e. A = r − mean."""
    dr_grpo = core.CONVENTIONS["dr_grpo"]
    assert 'TRL GRPOTrainer, scale_rewards="none"' in dr_grpo.source
    assert 'scale_rewards="none" or False' in dr_grpo.description
