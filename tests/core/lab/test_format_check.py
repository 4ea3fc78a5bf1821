"""The format rule: an answer line ends the trace, or a complete \\boxed{} holds the answer."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from grpo_desktop.core.lab.checker import boxed_contents, extract_final_answer, marked_answer
from grpo_desktop.core.lab.format_check import (
    ANSWER_FORMATS,
    describe_format,
    ends_with_answer_line,
    follows_format,
    has_boxed_answer,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("940 + 141\nAnswer: 1081", True),
        ("940 + 141\nanswer: 1,081 apples", True),
        ("940 + 141\nFinal answer: 1081", True),
        ("940 + 141\nFINAL ANSWER = 1081", True),
        ("940 + 141\nThe answer is 1081.", True),
        ("That's 75, I think. Answer: 75", True),
        ("**Answer:** 1081", True),
        ("Answer: x = 6", True),
        ("Answer: 1081\n\n   \n\t", True),  # trailing blank lines do not count
        ("   Answer: 1081   ", True),
        ("940 + 141\r\nAnswer: 1081\r\n", True),  # Windows line ends
        ("940 + 141\rAnswer: 1081", True),  # old Mac line ends
        ("Answer: 1081\nI hope that is right.", False),  # the answer line is not last
        ("Answer: 1081\n940 + 141 = 1081", False),
        ("940 + 141 = 1081", False),
        ("So 23 × 47 = 1081.", False),
        ("940 + 141\nAnswer:", False),  # a marker with no answer after it
        ("940 + 141\nAnswer: .", False),
        ("My answer\n1081", False),  # "answer" without ":", "=" or "is" is no marker
        ("Answers: 1081", False),
        ("\\boxed{1081}", False),
        ("", False),
        ("   \n\n\t", False),
    ],
)
def test_answer_line(text: str, expected: bool) -> None:
    assert ends_with_answer_line(text) is expected
    assert follows_format(text, "answer-line") is expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("940 + 141\n\\boxed{1081}", True),
        ("$\\boxed{1081}$ is the product", True),  # anywhere in the text
        ("\\boxed{\\frac{3}{4}}", True),  # nested braces balance
        ("\\boxed {x = 6}", True),
        ("\\fbox{1081}", True),  # the checker reads \fbox as a box too
        ("\\boxed{1081", False),  # never closed
        ("\\boxed{\\frac{3}{4}", False),  # the inner braces close, the box does not
        ("\\boxed{}", False),  # empty: commits to nothing
        ("\\boxed{  }", False),
        ("boxed{1081}", False),
        ("\\boxed 1081", False),
        ("{1081}", False),
        ("Answer: 1081", False),
        ("", False),
        ("\\boxed{1081\r\n}", True),
    ],
)
def test_boxed(text: str, expected: bool) -> None:
    assert has_boxed_answer(text) is expected
    assert follows_format(text, "boxed") is expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Answer: 1081", True),
        ("\\boxed{1081}", True),
        ("\\boxed{1081}\nAnswer: 1081", True),
        ("\\boxed{1081}\nso that is it", True),  # the box counts wherever it is
        ("Answer: 1081\nso that is it", False),
        ("\\boxed{1081\nAnswer:", False),
        ("940 + 141 = 1081", False),
        ("", False),
    ],
)
def test_answer_line_or_boxed(text: str, expected: bool) -> None:
    assert follows_format(text, "answer-line-or-boxed") is expected


@pytest.mark.parametrize("bad", ["", "Answer-line", "answer_line", "none", None, 3, ["boxed"]])
def test_an_unknown_format_name_lists_the_valid_ones(bad: object) -> None:
    for call in (lambda: follows_format("Answer: 1", bad), lambda: describe_format(bad)):  # type: ignore[arg-type]
        with pytest.raises(ValueError, match="unknown answer format") as info:
            call()
        for name in ANSWER_FORMATS:
            assert repr(name) in str(info.value)


def test_every_format_has_a_short_plain_description() -> None:
    assert describe_format("answer-line") == "a final “Answer:” line"
    assert describe_format("boxed") == "a \\boxed{…} answer"
    assert describe_format("answer-line-or-boxed") == (
        "a final “Answer:” line or a \\boxed{…} answer"
    )
    for name in ANSWER_FORMATS:
        assert len(describe_format(name)) <= 60


def test_the_answer_line_rule_is_the_checkers_marker_rule() -> None:
    """An answer line is one the grader would read an answer from: the same answer comes out."""
    for text in ("Answer: 1,081 apples", "The answer is x = 6.", "Final answer: 16/3"):
        assert ends_with_answer_line(text)
        assert marked_answer(text) == extract_final_answer(text)


def test_a_box_the_format_accepts_is_one_the_grader_reads() -> None:
    text = "7 × 3 = 21\n\\boxed{\\frac{3}{4}}"
    assert has_boxed_answer(text)
    assert boxed_contents(text) == ["\\frac{3}{4}"]
    assert extract_final_answer(text) == "3/4"


_TRICKY = st.sampled_from(
    ["\\boxed{", "\\fbox{", "{", "}", "Answer:", "answer is", "Final answer =", "\n", "\r\n", " "]
)


@given(st.lists(st.one_of(st.text(max_size=20), _TRICKY), max_size=30).map("".join))
def test_never_raises_on_any_text(text: str) -> None:
    line = ends_with_answer_line(text)
    boxed = has_boxed_answer(text)
    assert follows_format(text, "answer-line") is line
    assert follows_format(text, "boxed") is boxed
    assert follows_format(text, "answer-line-or-boxed") is (line or boxed)


@given(st.text())
def test_never_raises_on_arbitrary_unicode(text: str) -> None:
    for name in ANSWER_FORMATS:
        assert isinstance(follows_format(text, name), bool)
