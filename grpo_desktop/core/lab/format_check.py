"""The format reward's rule: does a trace present its answer in the form the problem asks for?

DeepSeek-R1 adds a format reward to the accuracy reward, and TRL sums such reward functions with
weights (:func:`grpo_desktop.core.formulas.reward_functions.combine_rewards`). A problem file
declares the
form it expects (``"answer_format"``); this module checks a trace against it. The check is about
form only, never about whether the answer is right, and it reads answers with the checker's own
rules (:func:`~grpo_desktop.core.lab.checker.marked_answer` for answer lines,
:func:`~grpo_desktop.core.lab.checker.boxed_contents` for boxes), so "follows the format" and "the
grader found an answer there" never disagree. Pure Python, no Qt.

The formats, exactly:

* ``"answer-line"``: the last non-empty line holds an answer marker ("Answer:", "Final answer:",
  "… answer is", any case, as the checker finds them) followed by an answer on that line.
  ``"So 23 × 47 = 1081"`` is not one; ``"Answer:"`` with nothing after it is not one; a trace
  that goes on after its answer line does not end in one.
* ``"boxed"``: a complete ``\\boxed{...}`` (or ``\\fbox{...}``, which the checker also reads)
  with something inside, anywhere in the text; braces must balance.
* ``"answer-line-or-boxed"``: either of the two.
"""

from __future__ import annotations

from grpo_desktop.core.lab.checker import boxed_contents, marked_answer

__all__ = [
    "ANSWER_FORMATS",
    "describe_format",
    "ends_with_answer_line",
    "follows_format",
    "has_boxed_answer",
]

ANSWER_FORMATS = ("answer-line", "boxed", "answer-line-or-boxed")

_DESCRIPTIONS = {
    "answer-line": "a final “Answer:” line",
    "boxed": "a \\boxed{…} answer",
    "answer-line-or-boxed": "a final “Answer:” line or a \\boxed{…} answer",
}


def _checked(answer_format: object) -> str:
    """``answer_format`` itself when it names a format, else a ValueError listing the valid ones."""
    if not isinstance(answer_format, str) or answer_format not in ANSWER_FORMATS:
        valid = ", ".join(repr(name) for name in ANSWER_FORMATS)
        raise ValueError(f"unknown answer format {answer_format!r}; valid: {valid}")
    return answer_format


def ends_with_answer_line(text: str) -> bool:
    """Whether the last non-empty line of ``text`` is an answer line ("Answer: 1081")."""
    for line in reversed(text.splitlines()):
        if line.strip():
            return marked_answer(line) is not None
    return False


def has_boxed_answer(text: str) -> bool:
    """Whether ``text`` holds a complete, non-empty ``\\boxed{...}``."""
    return any(content.strip() for content in boxed_contents(text))


def follows_format(text: str, answer_format: str) -> bool:
    """Whether ``text`` presents its answer in ``answer_format`` (one of :data:`ANSWER_FORMATS`).

    Raises ValueError for an unknown format name, so a typo never reads as "no trace follows it".
    """
    kind = _checked(answer_format)
    if kind == "answer-line":
        return ends_with_answer_line(text)
    if kind == "boxed":
        return has_boxed_answer(text)
    return ends_with_answer_line(text) or has_boxed_answer(text)


def describe_format(answer_format: str) -> str:
    """The format as a short phrase for the UI: ``"a final “Answer:” line"``."""
    return _DESCRIPTIONS[_checked(answer_format)]
