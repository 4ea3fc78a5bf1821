"""The learning frontier's public function refuses what is not a probability or a group size
with a ValueError that says so: never numpy's warnings, never OverflowError, never a guess."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from grpo_desktop.core import informative_probability


@pytest.mark.parametrize(
    ("p", "group_size", "message"),
    [
        ("0.5", 8, "p must be a number, not text"),
        (b"0.5", 8, "p must be a number, not text"),
        (["0.5", "0.2"], 8, "p must be a number, not text"),
        (0.5 + 0j, 8, "not complex"),
        (np.array([0.5 + 0.1j]), 8, "not complex"),
        (10**400, 8, "within float64's range"),
        (None, 8, "p must lie between 0 and 1"),
        (0.5, 10**400, "group_size must be at most 1.8e\\+308"),
        (0.5, "8", "group_size must be a whole number"),
    ],
)
def test_bad_p_or_group_size_is_a_value_error_without_warnings(p, group_size, message):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match=message):
            informative_probability(p, group_size)


@pytest.mark.parametrize("group_size", [2**63, 10**19, 10**300])
def test_a_group_size_beyond_int64_is_computed_not_an_overflow(group_size):
    assert informative_probability(0.5, group_size) == 1.0
    assert informative_probability([0.0, 1.0], group_size).tolist() == [0.0, 0.0]


def test_a_group_size_beyond_int64_keeps_tiny_p_exact():
    # 1 − (1 − p)^G = 1 − e^(−G p) for tiny p: 1 − e^(−1) at G p = 1.
    assert informative_probability(1e-300, 10**300) == pytest.approx(1 - np.exp(-1.0), rel=1e-12)


def test_group_sizes_numpy_could_already_take_give_the_same_bits_as_before():
    p = np.linspace(0.0, 1.0, 101)
    for group_size in (1, 2, 8, 64, 2**40, 2**62):
        with np.errstate(divide="ignore"):  # log1p(-1) is -inf, as in the function
            expected = -np.expm1(group_size * np.log1p(-p)) - p**group_size
        expected = np.where((p == 0) | (p == 1), 0.0, np.maximum(expected, 0.0))
        np.testing.assert_array_equal(informative_probability(p, group_size), expected)
