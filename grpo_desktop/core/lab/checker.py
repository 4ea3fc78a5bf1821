"""The verifiable-reward checker: find the final answer of a trace and compare it with the key.

GRPO's rewards come from a rule, not a learned model: "1 if the final answer is right, 0 if
wrong". This module is that rule, kept small and pure (no Qt, no numpy) so the problem loader,
the headless CLI and the tests all grade a trace the same way.

Choices worth knowing:

* The final answer is what the trace *commits to*: a ``\\boxed{...}`` beats an "Answer: ..."
  line, which beats the last equation, which beats the last number anywhere.
* Numbers compare by value: ``1,081``, ``1081.0`` and ``\\boxed{1081}`` all equal ``1081``;
  ``3/4`` equals ``0.75``; the Unicode minus ``−12`` equals ``-12``.
* A percent sign is dropped and the number kept as written: ``50%`` is the number 50, so it
  matches a key ``50%`` or ``50`` but not ``0.5``. A model asked "by what percent" that writes
  ``50`` means fifty percent; reading ``0.5`` as fifty percent too would make ``0.5%`` ambiguous.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from fractions import Fraction

__all__ = [
    "Verdict",
    "answers_match",
    "boxed_contents",
    "extract_final_answer",
    "final_answer_span",
    "grade",
    "marked_answer",
    "normalize_number",
]

#: Relative tolerance for answers written with a decimal point (``2.50`` vs ``5/2``).
DECIMAL_REL_TOL = 1e-9

_MINUS_SIGNS = str.maketrans({"\u2212": "-", "\u2012": "-", "\u2013": "-", "\ufe63": "-"})

# A number as a model writes it: optional sign, optional "$", digits with optional thousands
# commas, an optional decimal part or "/denominator", an optional percent sign.
_NUMBER = (
    r"[-+\u2212]?\$?"
    r"(?:(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|\.\d+)"
    r"(?:\s*/\s*\d+)?%?"
)
_NUMBER_RE = re.compile(_NUMBER)
_NUMBER_AT_START_RE = re.compile(
    rf"^({_NUMBER})(?:\s*[,;:.!]?\s+[A-Za-z].*|\s*[,;:.!]*\s*)$", re.DOTALL
)
_ANSWER_MARKER_RE = re.compile(r"\b(?:final\s+answer|answer)\b\s*(?::|=|is\b)", re.I)
_BOXED_RE = re.compile(r"\\(?:boxed|fbox)\s*\{")
_FRAC_RE = re.compile(r"\\[dt]?frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}")

_INTEGER_RE = re.compile(r"[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)")
_DECIMAL_RE = re.compile(
    r"[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)?\.\d+(?:[eE][-+]?\d+)?|[-+]?\d+[eE][-+]?\d+"
)
_FRACTION_RE = re.compile(r"([-+]?\d+)\s*/\s*([-+]?\d+)")


@dataclass(frozen=True)
class Verdict:
    """What the checker decided for one trace: the answer it read and the 0/1 reward."""

    final_answer: str | None
    reward: int


def boxed_contents(text: str) -> list[str]:
    """Contents of every complete ``\\boxed{...}`` (or ``\\fbox{...}``), in order, nested braces
    balanced (``\\boxed{\\frac{3}{4}}``); a box whose braces never close is not one.

    Public so the format check (:mod:`grpo_desktop.core.lab.format_check`) sees exactly the boxes
    the grader reads."""
    found: list[str] = []
    for match in _BOXED_RE.finditer(text):
        depth = 1
        start = match.end()
        for pos in range(start, len(text)):
            if text[pos] == "{":
                depth += 1
            elif text[pos] == "}":
                depth -= 1
                if depth == 0:
                    found.append(text[start:pos])
                    break
    return found


def _clean(candidate: str) -> str | None:
    """Reduce a raw answer fragment to the answer itself, or None if nothing is left.

    Strips LaTeX and markdown wrappers, keeps what follows the last ``=`` (so ``x = 6`` is 6), and
    drops trailing words after a leading number (``27 apples`` is 27, ``1081, done`` is 1081)."""
    text = _FRAC_RE.sub(r"\1/\2", candidate)
    text = text.replace("\\%", "%").replace("{,}", ",").replace("\\,", "").replace("\\!", "")
    text = text.replace("\\left", "").replace("\\right", "").replace("\\text", "")
    if "=" in text or "≈" in text:
        text = re.split(r"[=≈]", text)[-1]
    text = text.strip().strip("*_`").strip()
    text = text.strip("$").strip()
    text = text.rstrip(".,;:!").strip()
    text = text.strip("$").strip()
    if not text:
        return None
    leading = _NUMBER_AT_START_RE.match(text)
    if leading and normalize_number(text) is None:
        text = leading.group(1).rstrip(".,;:!")
    return text or None


def marked_answer(line: str) -> str | None:
    """The answer the last answer marker in ``line`` introduces ("Answer: 6", "Final answer: 6",
    "The answer is 6"), cleaned as :func:`extract_final_answer` cleans it; None when the line has
    no marker or nothing usable follows it ("Answer:" alone).

    The same marker rule the grader uses, for one line: the format check asks it of a trace's
    last line."""
    markers = list(_ANSWER_MARKER_RE.finditer(line))
    if not markers:
        return None
    return _clean(line[markers[-1].end() :].split("\n", 1)[0])


def extract_final_answer(text: str) -> str | None:
    """The final answer a trace commits to, as written (cleaned of wrappers), or None.

    Priority, as graders of math benchmarks do it: the last ``\\boxed{...}``; else the last
    "answer is X" / "Answer: X" / "final answer: X"; else the part after the last ``=`` on the last
    line that holds a number (when that line has no ``=``, its last number: a bare closing
    ``1081.0`` line is the answer, not an earlier equation); else the last number anywhere.
    """
    boxed = boxed_contents(text)
    if boxed:
        return _clean(boxed[-1])

    markers = list(_ANSWER_MARKER_RE.finditer(text))
    if markers:
        rest = text[markers[-1].end() :].split("\n", 1)[0]
        cleaned = _clean(rest)
        if cleaned is not None:
            return cleaned

    lines = [line for line in text.splitlines() if line.strip()]
    for line in reversed(lines):
        if any(ch.isdigit() for ch in line):
            if "=" in line:
                cleaned = _clean(line.rsplit("=", 1)[1])
                if cleaned is not None:
                    return cleaned
            numbers = _NUMBER_RE.findall(line)
            if numbers:
                return _clean(numbers[-1])
    for line in reversed(lines):
        if "=" in line:
            cleaned = _clean(line.rsplit("=", 1)[1])
            if cleaned is not None:
                return cleaned
    return None


def final_answer_span(text: str) -> tuple[int, int] | None:
    """Where in ``text`` the answer :func:`extract_final_answer` reads is written, as a
    ``[start, end)`` character span, or None when there is no final answer.

    A view marks these characters (or the tokens over them) as the answer the reward judged.
    It follows the extractor's priority step by step: inside the last ``\\boxed{...}``, after the
    last answer marker, after the last ``=`` or at the last number of the last line with a digit.
    Within that fragment the span is the cleaned answer itself (``1,081`` in ``Answer: 1,081
    apples``); when cleaning rewrote it (``\\frac{3}{4}`` read as ``3/4``) it is the fragment.
    """
    answer = extract_final_answer(text)
    if answer is None:
        return None

    def locate(start: int, end: int) -> tuple[int, int] | None:
        """The answer's span inside the raw fragment ``text[start:end]``, or None when the
        extractor did not read the answer from this fragment (it cleans to nothing)."""
        if _clean(text[start:end]) != answer:
            return None
        fragment = text[start:end]
        cut = max(fragment.rfind("="), fragment.rfind("≈")) + 1
        found = fragment.find(answer, cut)
        if found < 0:
            found = fragment.rfind(answer)
        if found >= 0:
            return start + found, start + found + len(answer)
        # Rewritten by cleaning: the tidiest piece of the fragment that still reads as the answer.
        region = fragment[cut:]
        for piece, base in (
            (region.lstrip(" \t*_`$").rstrip(" \t*_`$.,;:!"), cut),
            (region.strip(), cut),
            (fragment.strip(), 0),
        ):
            if piece and _clean(piece) == answer:
                offset = start + fragment.index(piece, base)
                return offset, offset + len(piece)
        return start, end

    for match in reversed(list(_BOXED_RE.finditer(text))):
        depth = 1
        for pos in range(match.end(), len(text)):
            if text[pos] == "{":
                depth += 1
            elif text[pos] == "}":
                depth -= 1
            if depth == 0:
                return locate(match.end(), pos)

    markers = list(_ANSWER_MARKER_RE.finditer(text))
    if markers:
        start = markers[-1].end()
        newline = text.find("\n", start)
        span = locate(start, len(text) if newline < 0 else newline)
        if span is not None:
            return span

    lines: list[tuple[int, str]] = []
    offset = 0
    for piece in text.splitlines(keepends=True):
        line = piece.splitlines()[0]
        if line.strip():
            lines.append((offset, line))
        offset += len(piece)
    for start, line in reversed(lines):
        if any(ch.isdigit() for ch in line):
            if "=" in line:
                span = locate(start + line.rindex("=") + 1, start + len(line))
                if span is not None:
                    return span
            numbers = list(_NUMBER_RE.finditer(line))
            if numbers:
                return locate(start + numbers[-1].start(), start + numbers[-1].end())
    for start, line in reversed(lines):
        if "=" in line:
            span = locate(start + line.rindex("=") + 1, start + len(line))
            if span is not None:
                return span
    return None


def normalize_number(s: str) -> Fraction | float | None:
    """The value of a number as a model writes it, or None if ``s`` is not a plain number.

    Integers and fractions come back as exact ``Fraction`` values (``"1,081"``, ``"−12"``,
    ``"3/4"``); numbers with a decimal point come back as ``float`` (``"2.5"``, ``"1081.0"``), to be
    compared with a tolerance. ``"50%"`` is the number 50 (see the module notes). Thousands
    separators must be well formed: ``"1,081"`` is a number, ``"3,4"`` (a list) is not.
    """
    text = s.strip().translate(_MINUS_SIGNS).replace("\u2009", "").replace("\u202f", "")
    text = text.strip("$").strip()
    if text.startswith(("-$", "+$")):
        text = text[0] + text[2:]
    if text.endswith("%"):
        text = text[:-1].rstrip()
    if not text:
        return None
    if _INTEGER_RE.fullmatch(text):
        return Fraction(int(text.replace(",", "")))
    if _DECIMAL_RE.fullmatch(text):
        value = float(text.replace(",", ""))
        return value if math.isfinite(value) else None
    fraction = _FRACTION_RE.fullmatch(text)
    if fraction:
        numerator, denominator = int(fraction.group(1)), int(fraction.group(2))
        if denominator == 0:
            return None
        return Fraction(numerator, denominator)
    return None


def _normalize_text(s: str) -> str:
    """Case- and whitespace-insensitive form of a non-numeric answer."""
    return "".join(s.translate(_MINUS_SIGNS).split()).casefold()


def answers_match(answer: str | None, key: str) -> bool:
    """Whether an extracted answer equals the answer key.

    Numbers compare by value (exactly for integers and fractions, within a relative 1e-9 when a
    decimal is involved); anything else compares as text, ignoring case and whitespace.
    """
    if answer is None:
        return False
    key_clean = _clean(key) or key
    got, want = normalize_number(answer), normalize_number(key_clean)
    if got is not None and want is not None:
        if isinstance(got, Fraction) and isinstance(want, Fraction):
            return got == want
        try:
            return math.isclose(float(got), float(want), rel_tol=DECIMAL_REL_TOL, abs_tol=0.0)
        except OverflowError:  # an integer too large for a float cannot equal a finite decimal
            return False
    if got is not None or want is not None:
        return False
    return _normalize_text(answer) == _normalize_text(key_clean)


def grade(text: str, answer_key: str) -> Verdict:
    """Grade one trace: reward 1 if its final answer matches the key, else 0."""
    final = extract_final_answer(text)
    return Verdict(final_answer=final, reward=int(answers_match(final, answer_key)))
