"""Colours and type scale shared by every view, so a theme switch restyles the whole window.

Pure Python (colours are hex strings): views turn them into QColor themselves. Pushed up / pushed
down use the Okabe–Ito bluish green and vermillion, which colour-blind viewers still tell apart, and
are always paired with ▲ / ▼ and a word.
"""

from __future__ import annotations

from dataclasses import dataclass

from grpo_desktop.core.common.contrast import (
    AA_GRAPHICS,
    AA_TEXT,
    contrast_ratio,
    relative_luminance,
)

__all__ = [
    "DARK",
    "DEFAULT_THEME",
    "LIGHT",
    "PROJECTOR",
    "THEMES",
    "Theme",
    "contrast_failures",
    "contrast_ratio",
    "get_theme",
    "graphic_pairs",
    "relative_luminance",
    "text_pairs",
]


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
    # One colour per training algorithm (REINFORCE, PPO, GRPO, Dr. GRPO, RLOO, DAPO): Okabe–Ito,
    # always paired with a line style and a label, never colour alone.
    series: tuple[str, ...] = ("#b36b00", "#a2457e", "#0072b2", "#2f86c4", "#00745a", "#b34a00")
    # Type size, in two factors that multiply: ``chrome_scale`` scales the application font
    # (menus, toolbar, problem picker, tabs, status bar, and every view's base with them);
    # ``type_scale`` is what the views add on top for their content (numbers, cards, chart).
    # A view multiplies by ``type_scale`` only: the chrome scale is already in the app font.
    type_scale: float = 1.0
    chrome_scale: float = 1.0

    @property
    def content_scale(self) -> float:
        """How much larger than at 100 % zoom in the light theme the views' content is drawn."""
        return self.chrome_scale * self.type_scale

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

DARK = Theme(
    name="dark",
    label="Dark",
    window="#15181d",
    surface="#1f242b",
    text="#eef1f5",
    muted="#b3bcc7",
    border="#4a5360",
    up="#4fd6ad",  # bluish green, lightened for a dark surface
    down="#ff9e66",  # vermillion, lightened likewise
    neutral="#aab3bd",
    up_fill="#163b32",
    down_fill="#43281a",
    neutral_fill="#2b313a",
    focus="#56b4e9",  # Okabe–Ito sky blue
    banner_fill="#3d3411",
    banner_text="#ffe9a8",
    series=("#e69f00", "#cc79a7", "#56b4e9", "#9fd3f5", "#4fd6ad", "#ff9e66"),
)

PROJECTOR = Theme(
    name="projector",
    label="Projector (high contrast)",
    window="#ffffff",
    surface="#ffffff",
    text="#000000",
    muted="#2b2b2b",
    border="#1a1a1a",
    up="#005f46",
    down="#9c3700",
    neutral="#3d3d3d",
    up_fill="#d8f3ea",
    down_fill="#fde2d2",
    neutral_fill="#ebebeb",
    focus="#004f99",
    banner_fill="#fff1b8",
    banner_text="#000000",
    stroke_width=3.0,
    # The back row reads the content 1.35× as large as in the light theme; the chrome grows too
    # (1.25×), so the menus and toolbar a lecturer points at are readable from there as well.
    chrome_scale=1.25,
    type_scale=1.08,
)

THEMES: dict[str, Theme] = {theme.name: theme for theme in (LIGHT, DARK, PROJECTOR)}
DEFAULT_THEME = LIGHT.name


def get_theme(name: str) -> Theme:
    """The theme called ``name``; ValueError listing the valid names otherwise."""
    try:
        return THEMES[name]
    except KeyError:
        raise ValueError(f"unknown theme {name!r}; choose one of: {', '.join(THEMES)}") from None


def text_pairs(theme: Theme) -> dict[str, tuple[str, str]]:
    """Every (text colour, background colour) pair the views draw, named by where it is used.

    Backgrounds are the window (dialogs, the status line, the workspace pages), the surface
    (panels, cards, charts, the lesson bar), the card tints, the banner and the lesson bar's
    filled buttons. Every pair is body text: each must reach 4.5:1 (AA for normal text).
    """
    pairs = {
        "text on window": (theme.text, theme.window),
        "text on surface": (theme.text, theme.surface),
        "muted on window": (theme.muted, theme.window),
        "muted on surface": (theme.muted, theme.surface),
        "pushed-up text on surface": (theme.up, theme.surface),
        "pushed-down text on surface": (theme.down, theme.surface),
        "no-signal text on surface": (theme.neutral, theme.surface),
        # The problem editor's live status ("✓ Ready", "⚠ …") and the rollouts browser's
        # problems line sit on the dialog's or page's window colour.
        "pushed-up text on window": (theme.up, theme.window),
        "pushed-down text on window": (theme.down, theme.window),
        "no-signal text on window": (theme.neutral, theme.window),
        "banner": (theme.banner_text, theme.banner_fill),
        # The lesson bar's Next and Reveal buttons: the surface colour on a focus-blue fill.
        "surface on focus button": (theme.surface, theme.focus),
        "focus-coloured text on surface": (theme.focus, theme.surface),
    }
    for kind, fill in (
        ("up", theme.up_fill),
        ("down", theme.down_fill),
        ("none", theme.neutral_fill),
    ):
        pairs[f"text on {kind} card"] = (theme.text, fill)
        pairs[f"muted on {kind} card"] = (theme.muted, fill)
        # The editor's flagged verdict line is the pushed-down accent on the pushed-down tint.
        pairs[f"accent on {kind} card"] = (
            {"up": theme.up, "down": theme.down, "none": theme.neutral}[kind],
            fill,
        )
    return pairs


def graphic_pairs(theme: Theme) -> dict[str, tuple[str, str]]:
    """Every (mark colour, background) pair of what is not text but must be seen: bars, chart
    lines, the focus ring. WCAG 2.1 criterion 1.4.11 asks 3:1 of them."""
    pairs = {
        "pushed-up bar on surface": (theme.up, theme.surface),
        "pushed-down bar on surface": (theme.down, theme.surface),
        "no-signal bar on surface": (theme.neutral, theme.surface),
        "focus ring on window": (theme.focus, theme.window),
        "focus ring on surface": (theme.focus, theme.surface),
    }
    for index, colour in enumerate(theme.series):
        pairs[f"training series {index + 1} on surface"] = (colour, theme.surface)
    return pairs


def contrast_failures(theme: Theme) -> dict[str, float]:
    """The pairs of ``theme`` below WCAG AA, with their ratio rounded to 2 places; {} when none."""
    failures = {}
    for pairs, minimum in ((text_pairs(theme), AA_TEXT), (graphic_pairs(theme), AA_GRAPHICS)):
        for name, (foreground, background) in pairs.items():
            ratio = contrast_ratio(foreground, background)
            if ratio < minimum:
                failures[name] = round(ratio, 2)
    return failures
