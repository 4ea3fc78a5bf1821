"""How a trace reads on a card: its LaTeX typeset as plain runs and boxed runs.

The checker grades the raw text (``core.lab.checker``); the card shows what a reader of the typeset
answer would see. ``\\boxed{1081}`` becomes a run ``1081`` drawn inside a rectangle, ``25\\%``
becomes ``25%`` and ``\\frac{3}{4}`` becomes ``3/4``, the same way the checker reads a boxed answer.
A ``\\boxed{`` with no closing brace is not a box for the checker, so it stays as written here too.

Pure Python, no Qt: the card paints the runs and caches them per text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Run", "display_lines", "display_runs", "plain_text", "unescape"]

_BOXED_RE = re.compile(r"\\(?:boxed|fbox)\s*\{")  # as core.lab.checker finds a boxed answer
_FRAC_RE = re.compile(r"\\[dt]?frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}")
_TEXT_RE = re.compile(r"\\(?:text|mathrm|textbf|mathbf)\s*\{([^{}]*)\}")
_SYMBOLS = {
    "\\%": "%",
    "\\$": "$",
    "\\&": "&",
    "\\#": "#",
    "\\_": "_",
    "\\{": "{",
    "\\}": "}",
    "{,}": ",",
    "\\,": "\u2009",
    "\\;": " ",
    "\\:": " ",
    "\\!": "",
    "\\times": "×",
    "\\cdot": "·",
    "\\div": "÷",
    "\\pm": "±",
    "\\approx": "≈",
    "\\le": "≤",
    "\\ge": "≥",
    "\\neq": "≠",
    "\\left": "",
    "\\right": "",
}
# Longest first, and a command name never stops inside a longer one (\le must not eat \left).
_SYMBOL_RE = re.compile(
    "|".join(
        re.escape(key) + (r"(?![A-Za-z])" if key[-1].isalpha() else "")
        for key in sorted(_SYMBOLS, key=len, reverse=True)
    )
)


@dataclass(frozen=True)
class Run:
    """A piece of one line: plain text, or a boxed answer drawn inside a rectangle."""

    text: str
    boxed: bool = False


def unescape(text: str) -> str:
    """LaTeX escapes and the few commands traces use, as the characters they typeset to."""
    text = _FRAC_RE.sub(r"\1/\2", text)
    text = _TEXT_RE.sub(r"\1", text)
    return _SYMBOL_RE.sub(lambda match: _SYMBOLS[match.group(0)], text)


def _closing_brace(text: str, start: int) -> int | None:
    """The index of the ``}`` that closes a group opened just before ``start``, or None."""
    depth = 1
    for pos in range(start, len(text)):
        if text[pos] == "{" and (pos == 0 or text[pos - 1] != "\\"):
            depth += 1
        elif text[pos] == "}" and (pos == 0 or text[pos - 1] != "\\"):
            depth -= 1
            if depth == 0:
                return pos
    return None


def display_runs(line: str) -> tuple[Run, ...]:
    """One line of a trace as runs: boxed answers split out, escapes typeset, empty runs dropped."""
    runs: list[Run] = []
    position = 0
    for match in _BOXED_RE.finditer(line):
        if match.start() < position:
            continue  # a \boxed inside a box already taken
        end = _closing_brace(line, match.end())
        if end is None:
            break  # unbalanced: the checker sees no box, so neither does the reader
        runs.append(Run(unescape(line[position : match.start()])))
        runs.append(Run(unescape(line[match.end() : end]).strip(), boxed=True))
        position = end + 1
    runs.append(Run(unescape(line[position:])))
    return tuple(run for run in runs if run.text or run.boxed)


def display_lines(text: str) -> tuple[tuple[Run, ...], ...]:
    """Every line of a trace as its runs (an empty line is an empty tuple)."""
    return tuple(display_runs(line) for line in text.split("\n"))


def plain_text(runs: tuple[Run, ...]) -> str:
    """The runs as one string with the boxes left out (for tooltips and screen readers)."""
    return "".join(run.text for run in runs)
