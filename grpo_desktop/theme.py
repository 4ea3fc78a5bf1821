"""Colours and type scale shared by every view, so a theme switch restyles the whole window.

Pure Python (colours are hex strings): views turn them into QColor themselves. Pushed up / pushed
down use the Okabe–Ito bluish green and vermillion, which colour-blind viewers still tell apart, and
are always paired with ▲ / ▼ and a word.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Theme:
    name: str
    label: str
    window: str  # window background
    surface: str  # panels and cards
    text: str  # main text on window and surface
    muted: str  # secondary text on window and surface
    border: str  # card and panel outlines
    up: str  # pushed up: strokes, bars, ▲ text on surface
    down: str  # pushed down
    neutral: str  # no signal
    up_fill: str  # card background tint for pushed up (text stays readable on it)
    down_fill: str
    neutral_fill: str
    focus: str  # keyboard focus ring
    banner_fill: str  # degenerate banner
    banner_text: str
    stroke_width: float = 1.5  # outlines and chart strokes; thicker on a projector
    type_scale: float = 1.0  # multiplies every font size; larger on a projector

    def push_colour(self, advantage: float) -> str:
        """The stroke colour for an answer with this advantage."""
        if advantage > 0:
            return self.up
        if advantage < 0:
            return self.down
        return self.neutral

    def push_fill(self, advantage: float) -> str:
        """The background tint for an answer with this advantage."""
        if advantage > 0:
            return self.up_fill
        if advantage < 0:
            return self.down_fill
        return self.neutral_fill


LIGHT = Theme(
    name="light",
    label="Light",
    window="#f4f5f7",
    surface="#ffffff",
    text="#1b1f24",
    muted="#4f5863",
    border="#c9ced6",
    up="#00745a",  # Okabe–Ito bluish green #009E73, darkened for 4.5:1 text contrast on white
    down="#b34a00",  # Okabe–Ito vermillion #D55E00, darkened likewise
    neutral="#5f6670",
    up_fill="#e3f4ee",
    down_fill="#fbeae0",
    neutral_fill="#eef0f3",
    focus="#0072b2",  # Okabe–Ito blue
    banner_fill="#fff4d6",
    banner_text="#4a3800",
)

THEMES: dict[str, Theme] = {LIGHT.name: LIGHT}
DEFAULT_THEME = LIGHT.name


def get_theme(name: str) -> Theme:
    """The theme called ``name``; ValueError listing the valid names otherwise."""
    try:
        return THEMES[name]
    except KeyError:
        raise ValueError(f"unknown theme {name!r}; choose one of: {', '.join(THEMES)}") from None
