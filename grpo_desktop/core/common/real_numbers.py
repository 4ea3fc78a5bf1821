"""Numbers handed to a public core function, as float64, or one readable ValueError.

numpy's own conversion is too forgiving and too loud for an API: ``np.asarray("0.5", float)`` is
0.5, a complex array loses its imaginary part with a ComplexWarning, and an integer past float64
(``10**400``) raises OverflowError. The core's public functions promise a ValueError with a
message instead, so they read their numbers through :func:`as_float64`.
"""

from __future__ import annotations

import numpy as np

__all__ = ["NotRealNumbersError", "as_float64"]

_SHOWN_CHARS = 40


class NotRealNumbersError(ValueError):
    """Values that are not real numbers: text, complex numbers, integers too large for float64,
    or objects that are no numbers at all."""


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= _SHOWN_CHARS else text[: _SHOWN_CHARS - 1] + "…"


def as_float64(values: object, what: str, plural: bool = True) -> np.ndarray:
    """``values`` (a number, a nested sequence or an array) as a float64 array of its own shape.

    :class:`NotRealNumbersError` names ``what`` ("rewards"; "p" with ``plural=False`` reads
    "p must be a number") for text (even ``"0.5"``), complex numbers,
    integers too large for float64 and anything else that is not a number. A ragged nested list
    raises numpy's own ValueError, which the caller words for its own arguments. An array that
    already holds real numbers is converted without a copy when it is float64.
    """
    must = f"{what} must be {'numbers' if plural else 'a number'}"
    if isinstance(values, (str, bytes)):
        raise NotRealNumbersError(f"{must}, not text: {_short(values)}")
    array = values if isinstance(values, np.ndarray) else np.asarray(values)
    kind = array.dtype.kind
    if kind in "biuf":
        return array.astype(np.float64, copy=False)
    if kind in "US":
        raise NotRealNumbersError(f"{must}, not text")
    if kind == "c":
        raise NotRealNumbersError(f"{must}, not complex ({array.dtype})")
    if kind != "O":
        raise NotRealNumbersError(f"{must}, not {array.dtype}")
    for value in array.flat:
        if isinstance(value, (str, bytes)):
            raise NotRealNumbersError(f"{must}, not text: {_short(value)}")
        if isinstance(value, (complex, np.complexfloating)):
            raise NotRealNumbersError(f"{must}, not complex: {_short(value)}")
    try:
        return array.astype(np.float64)
    except OverflowError:
        raise NotRealNumbersError(
            f"{must} within float64's range (±1.8e308); got a larger integer"
        ) from None
    except (TypeError, ValueError) as error:
        raise NotRealNumbersError(f"{must}: {error}") from None
