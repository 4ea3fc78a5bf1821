"""Numbers handed to the core's public functions: float64 of the same shape, or a ValueError."""

from __future__ import annotations

import warnings
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest

from grpo_desktop.core.common.real_numbers import NotRealNumbersError, as_float64


def test_real_numbers_of_every_kind_become_float64_of_the_same_shape():
    assert as_float64([[1, 0], [True, False]], "x").tolist() == [[1.0, 0.0], [1.0, 0.0]]
    assert as_float64([Fraction(1, 4), Decimal("0.5"), 10**20], "x").tolist() == [0.25, 0.5, 1e20]
    assert as_float64(np.float32(0.5), "x").shape == ()


def test_a_float64_array_is_not_copied():
    values = np.array([1.0, 0.0])
    assert as_float64(values, "x") is values


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ("0.5", "x must be numbers, not text: '0.5'"),
        (["1", "0"], "x must be numbers, not text"),
        ([1 + 2j], "x must be numbers, not complex"),
        ([10**400], "x must be numbers within float64's range"),
        ([None, "1"], "not text"),
        ([object()], "x must be numbers: float() argument"),
    ],
)
def test_what_is_not_a_real_number_is_one_value_error_and_no_warning(values, message):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(NotRealNumbersError) as error_info:
            as_float64(values, "x")
    assert isinstance(error_info.value, ValueError)
    assert message in str(error_info.value)


def test_a_single_value_reads_in_the_singular():
    with pytest.raises(ValueError, match="p must be a number, not text"):
        as_float64("0.5", "p", plural=False)
