"""Numbers as the seeds write them, and huge ones in scientific notation, never 300 digits."""

from __future__ import annotations

from decimal import Decimal

import pytest

from grpo_desktop.core.common.formatting import FIXED_POINT_LIMIT, number, signed


@pytest.mark.parametrize(
    ("value", "decimals", "text"),
    [
        (1.0, 2, "+1.00"),
        (-0.866, 6, "−0.866000"),
        (0.0, 2, "0.00"),
        (1e-9, 2, "0.00"),
        (123456789012345.0, 2, "+123456789012345.00"),
        (1e200, 6, "+1.000000e+200"),
        (-1e200, 2, "−1.00e+200"),
        (FIXED_POINT_LIMIT, 4, "+1.0000e+15"),
    ],
)
def test_signed_writes_huge_values_in_scientific_notation(value, decimals, text):
    # signed(1e200, 6) printed 201 digits and six decimals.
    assert signed(value, decimals) == text


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (0.5, "0.5"),
        (-12.0, "−12"),
        (1e200, "1e+200"),
        (Decimal("1e200") ** 2, "1e+400"),
        (Decimal("1.5e200") ** 2, "2.25e+400"),
        (-(Decimal("2.5e-300") ** 2), "−6.25e−600"),
        (Decimal("1e308") * 2, "2e+308"),
        (Decimal(0), "0"),
    ],
)
def test_number_writes_values_beyond_float64_as_a_float_of_their_size_would_be(value, text):
    assert number(value, 4) == text
