"""WCAG 2.1 colour contrast, so every theme's text is checked by numbers, not by eye.

Pure Python. Colours are ``#rrggbb`` strings (the themes' own form). The formulas are WCAG 2.1's
(https://www.w3.org/TR/WCAG21/#dfn-relative-luminance and #dfn-contrast-ratio), with its sRGB
threshold 0.04045.
"""

from __future__ import annotations

__all__ = [
    "AA_GRAPHICS",
    "AA_LARGE_TEXT",
    "AA_TEXT",
    "LARGE_BOLD_PX",
    "LARGE_PX",
    "best_text_on",
    "contrast_ratio",
    "relative_luminance",
    "required_ratio",
]

AA_TEXT = 4.5  # success criterion 1.4.3, normal text
AA_LARGE_TEXT = 3.0  # 1.4.3, large text
AA_GRAPHICS = 3.0  # 1.4.11: chart lines, bars, focus rings against what is next to them
LARGE_PX = 24.0  # 18 pt
LARGE_BOLD_PX = 18.66  # 14 pt bold


def _channels(colour: str) -> tuple[float, float, float]:
    text = colour.strip()
    if len(text) != 7 or text[0] != "#":
        raise ValueError(f"expected a colour as #rrggbb, got {colour!r}")
    try:
        red, green, blue = (int(text[i : i + 2], 16) / 255 for i in (1, 3, 5))
    except ValueError:
        raise ValueError(f"expected a colour as #rrggbb, got {colour!r}") from None
    return red, green, blue


def _linear(channel: float) -> float:
    return channel / 12.92 if channel <= 0.04045 else ((channel + 0.055) / 1.055) ** 2.4


def relative_luminance(colour: str) -> float:
    """WCAG 2.1 relative luminance of a ``#rrggbb`` colour: 0 for black, 1 for white."""
    red, green, blue = (_linear(channel) for channel in _channels(colour))
    return 0.2126 * red + 0.7152 * green + 0.0722 * blue


def contrast_ratio(foreground: str, background: str) -> float:
    """WCAG contrast ratio, from 1 (none) to 21 (black on white); the order does not matter."""
    lighter, darker = sorted(
        (relative_luminance(foreground), relative_luminance(background)), reverse=True
    )
    return (lighter + 0.05) / (darker + 0.05)


def required_ratio(size_px: float, bold: bool = False) -> float:
    """The AA minimum for text of this pixel size: 3 for large text (24 px, or 18.66 px bold),
    4.5 otherwise."""
    large = size_px >= LARGE_PX or (bold and size_px >= LARGE_BOLD_PX)
    return AA_LARGE_TEXT if large else AA_TEXT


def best_text_on(fill: str) -> str:
    """Black or white, whichever reads better on ``fill``."""
    return (
        "#000000"
        if contrast_ratio("#000000", fill) > contrast_ratio("#ffffff", fill)
        else "#ffffff"
    )
