"""How numbers are written on screen and in the terminal: real minus sign, explicit plus.

Pure Python so the headless ``score`` command and the Qt views write numbers the same way.
"""

from __future__ import annotations

MINUS = "\u2212"


def signed(value: float, decimals: int = 2) -> str:
    """``+1.00``, ``−1.00`` or ``0.00``: the way the seeds write an advantage."""
    text = f"{abs(value):.{decimals}f}"
    if float(text) == 0.0:
        return text
    return ("+" if value > 0 else MINUS) + text


def number(value: float, significant: int = 6) -> str:
    """A short plain number (``0.5``, ``0.447214``, ``−12``) with the real minus sign."""
    text = f"{value:.{significant}g}"
    if text in ("-0", "0"):
        return "0"
    return text.replace("-", MINUS)


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
