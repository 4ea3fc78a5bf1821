"""How numbers are written on screen and in the terminal: real minus sign, explicit plus.

Pure Python so the headless ``score`` command and the Qt views write numbers the same way.
"""

from __future__ import annotations

from decimal import Decimal

MINUS = "\u2212"

#: From this magnitude on, fixed-point notation would print more digits than float64 holds (1e200
#: had 201 of them): ``signed`` writes such values in scientific notation.
FIXED_POINT_LIMIT = 1e15


def signed(value: float, decimals: int = 2) -> str:
    """``+1.00``, ``−1.00`` or ``0.00``: the way the seeds write an advantage.

    From :data:`FIXED_POINT_LIMIT` on, ``+1.00e+200``: the same digits after the point, in
    scientific notation.
    """
    size = abs(value)
    if size >= FIXED_POINT_LIMIT:
        return ("+" if value > 0 else MINUS) + f"{size:.{decimals}e}"
    text = f"{size:.{decimals}f}"
    if float(text) == 0.0:
        return text
    return ("+" if value > 0 else MINUS) + text


def number(value: float | Decimal, significant: int = 6) -> str:
    """A short plain number (``0.5``, ``0.447214``, ``−12``, ``1e+200``) with the real minus sign.

    A ``Decimal`` carries a value float64 cannot hold (the square of 1e200, 1e+400), written in
    scientific notation as a float of its size would be.
    """
    if isinstance(value, Decimal) and value.is_finite():
        text = _scientific(value, significant)
    else:
        text = f"{value:.{significant}g}"
    if text in ("-0", "0"):
        return "0"
    return text.replace("-", MINUS)


def _scientific(value: Decimal, significant: int) -> str:
    """``2.25e+400``: ``significant`` digits at most, trailing zeros dropped, as ``g`` does."""
    if value.is_zero():
        return "0"
    mantissa, _, exponent = f"{value:.{max(significant - 1, 0)}e}".partition("e")
    if "." in mantissa:
        mantissa = mantissa.rstrip("0").rstrip(".")
    sign = exponent[0] if exponent[0] in "+-" else "+"
    digits = exponent.lstrip("+-").rjust(2, "0")
    return f"{mantissa}e{sign}{digits}"


def ascii_fallback(text: str) -> str:
    """The same text with ASCII stand-ins, for terminals that cannot print − ▲ ▼ ×."""
    return (
        text.replace(MINUS, "-")
        .replace("▲", "^")
        .replace("▼", "v")
        .replace("×", "x")
        .replace("·", "*")
        .replace("—", "-")
    )
