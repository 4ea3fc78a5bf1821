"""The answer checker: what final answer a trace commits to, and whether it matches the key."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from grpo_desktop.core.lab.checker import (
    Verdict,
    answers_match,
    extract_final_answer,
    final_answer_span,
    grade,
    normalize_number,
)
from grpo_desktop.core.lab.problems import load_problems

WORKED = "20 × 47 = 940\n3 × 47 = 141\n940 + 141 = 1081"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (WORKED, "1081"),
        ("23 × 47\n= 1081", "1081"),
        ("940 + 141\nAnswer: 1,081", "1,081"),
        ("940 + 141\nanswer: 1081", "1081"),
        ("The sum is 1081.\nFinal answer: 1081", "1081"),
        ("940 + 141\n\\boxed{1081}", "1081"),
        ("$\\boxed{1081}$", "1081"),
        ("940 + 141 = 1081.0", "1081.0"),
        ("940 + 141\n1081.0", "1081.0"),
        ("940 + 141 makes it.\nThe answer is 1081.", "1081"),
        ("8 − 20 = −12", "−12"),
        ("Answer: $-12$", "-12"),
        ("\\boxed{\\frac{3}{4}}", "3/4"),
        ("\\boxed{25\\%}", "25%"),
        ("3x = 18\n\\boxed{x = 6}", "6"),
        ("Answer: x = 6", "6"),
        ("36 − 9\n= 27 apples", "27"),
        ("Answer: 8,760 hours", "8,760"),
        ("Final answer: 8640 + 120 = 8760", "8760"),
    ],
)
def test_extract_final_answer_reads_each_format(text: str, expected: str) -> None:
    assert extract_final_answer(text) == expected


def test_boxed_beats_an_answer_line_and_equations() -> None:
    text = "2 + 2 = 5\nAnswer: 5\n\\boxed{4}"
    assert extract_final_answer(text) == "4"


def test_answer_line_beats_a_later_equation() -> None:
    assert extract_final_answer("Answer: 12\ncheck: 3 × 4 = 12.5") == "12"


def test_last_answer_line_wins() -> None:
    assert extract_final_answer("Answer: 7\nWait, recheck.\nAnswer: 8") == "8"


def test_last_equation_wins_over_earlier_numbers() -> None:
    assert extract_final_answer("I tried 5 and 7.\n2 × 6 = 12") == "12"


def test_last_number_is_the_fallback() -> None:
    assert extract_final_answer("it is probably 42 or so") == "42"


@pytest.mark.parametrize("text", ["", "   ", "I am not sure.", "Answer:", "\\boxed{}"])
def test_no_answer_gives_none_and_reward_zero(text: str) -> None:
    assert extract_final_answer(text) is None
    assert grade(text, "1081") == Verdict(final_answer=None, reward=0)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("1081", Fraction(1081)),
        ("1,081", Fraction(1081)),
        ("-1,234,567", Fraction(-1234567)),
        ("−12", Fraction(-12)),
        ("-12", Fraction(-12)),
        ("3/4", Fraction(3, 4)),
        ("$40", Fraction(40)),
        ("50%", Fraction(50)),
        ("1081.0", 1081.0),
        ("0.75", 0.75),
        ("2.5", 2.5),
        (".5", 0.5),
    ],
)
def test_normalize_number_understands_written_numbers(text: str, value: Fraction | float) -> None:
    result = normalize_number(text)
    assert result == value
    assert type(result) is type(value)


@pytest.mark.parametrize("text", ["", "abc", "3,4", "1,08", "1/0", "x = 6", "nan", "inf", "1e999"])
def test_normalize_number_rejects_non_numbers(text: str) -> None:
    assert normalize_number(text) is None


@pytest.mark.parametrize(
    ("answer", "key"),
    [
        ("1,081", "1081"),
        ("1081.0", "1081"),
        ("−12", "-12"),
        ("-12.0", "−12"),
        ("3/4", "0.75"),
        ("0.75", "3/4"),
        ("6/8", "3/4"),
        ("5/2", "2.5"),
        ("2.50", "2.5"),
        ("25", "25%"),
        ("25%", "25%"),
        ("8760", "8,760"),
        ("Paris", "  paris "),
        ("x + 1", "X+1"),
    ],
)
def test_answers_match_equal_values(answer: str, key: str) -> None:
    assert answers_match(answer, key)


@pytest.mark.parametrize(
    ("answer", "key"),
    [
        ("1071", "1081"),
        ("12", "-12"),
        ("0.5", "50%"),
        ("2/6", "3/4"),
        ("1081.0001", "1081"),
        ("Lyon", "Paris"),
        ("1081 or 1071", "1081"),
        (None, "1081"),
        ("1081", "Paris"),
    ],
)
def test_answers_match_rejects_different_answers(answer: str | None, key: str) -> None:
    assert not answers_match(answer, key)


def test_decimals_compare_with_a_relative_tolerance() -> None:
    assert answers_match("0.3333333333333", "1/3")
    assert not answers_match("0.3333", "1/3")


def test_integers_compare_exactly_even_when_huge() -> None:
    big = 10**30
    assert answers_match(str(big), str(big))
    assert not answers_match(str(big + 1), str(big))
    assert not answers_match(str(10**400), "1.5")


def test_grade_the_worked_example() -> None:
    assert grade(WORKED, "1081") == Verdict(final_answer="1081", reward=1)
    wrong = "20 × 47 = 940\n3 × 47 = 131\n940 + 131 = 1071"
    assert grade(wrong, "1081") == Verdict(final_answer="1071", reward=0)


def test_a_correct_number_mentioned_early_does_not_rescue_a_wrong_final_answer() -> None:
    assert grade("Maybe 1081?\nNo: 23 × 47 = 1071", "1081").reward == 0


def _with_separators(n: int) -> str:
    return f"{n:,}"


@given(st.integers(min_value=-(10**15), max_value=10**15))
def test_any_integer_in_any_format_matches_its_key(n: int) -> None:
    key = str(n)
    for text in (
        f"Answer: {_with_separators(n)}",
        f"x = {n}.0",
        f"\\boxed{{{n}}}",
        f"The answer is {n}.",
        f"= {key.replace('-', '−')}",
    ):
        assert grade(text, key).reward == 1, text


@given(st.integers(min_value=-(10**9), max_value=10**9), st.integers(1, 10**6))
def test_any_other_integer_fails(n: int, delta: int) -> None:
    assert grade(f"Answer: {_with_separators(n + delta)}", str(n)).reward == 0


@given(st.integers(-1000, 1000), st.integers(1, 1000))
def test_a_fraction_matches_its_decimal_value(numerator: int, denominator: int) -> None:
    value = Fraction(numerator, denominator)
    assert answers_match(f"{numerator}/{denominator}", repr(float(value)))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Answer: 1,081", "1,081"),
        ("\\boxed{1081}", "1081"),
        ("940 + 141 = 1081", "1081"),
        ("1081 = 940 + 141\n940 + 141 = 1081", "1081"),
        ("2 + 2 = 5\nAnswer: 5\n\\boxed{4}", "4"),
        ("3x = 18\n\\boxed{x = 6}", "6"),
        ("Answer: 27 apples", "27"),
        ("36 − 9\n= 27 apples", "27"),
        ("Answer: $-12$", "-12"),
        ("The answer is 1081.", "1081"),
        ("Final answer: 8640 + 120 = 8760", "8760"),
        ("940 + 141\n1081.0", "1081.0"),
        ("a\r\nb = 7\r\n", "7"),
        # Cleaning rewrote these: the span is the raw fragment the answer came from.
        ("\\boxed{\\frac{3}{4}}", "\\frac{3}{4}"),
        ("\\boxed{25\\%}", "25\\%"),
    ],
)
def test_final_answer_span_covers_the_answer_the_checker_reads(text: str, expected: str) -> None:
    span = final_answer_span(text)
    assert span is not None
    assert text[span[0] : span[1]] == expected


def test_final_answer_span_picks_the_last_occurrence_on_the_answer_line() -> None:
    text = "940 + 141 = 1081"
    assert final_answer_span(text) == (12, 16)
    text = "Answer: 12\ncheck: 3 × 4 = 12.5"
    assert final_answer_span(text) == (8, 10)


def test_final_answer_span_is_none_without_an_answer() -> None:
    assert final_answer_span("no number") is None
    assert final_answer_span("") is None


def _span_reads_as_answer(text: str) -> bool:
    """The span holds the checker's answer: literally, or as the raw form cleaning rewrote."""
    answer = extract_final_answer(text)
    span = final_answer_span(text)
    if answer is None or span is None:
        return answer is None and span is None
    written = text[span[0] : span[1]]
    return (
        written == answer
        or extract_final_answer(written) == answer
        or answers_match(extract_final_answer("\\boxed{" + written + "}"), answer)
    )


def test_final_answer_span_of_every_shipped_trace() -> None:
    for problem in load_problems():
        for index, trace in enumerate(problem.traces):
            for text in (trace.correct, trace.wrong):
                assert final_answer_span(text) is not None, (problem.id, index)
                assert _span_reads_as_answer(text), (problem.id, index, text)


@given(st.integers(min_value=-(10**9), max_value=10**9), st.sampled_from(["", " apples", "."]))
def test_final_answer_span_finds_a_number_in_any_format(n: int, suffix: str) -> None:
    written = _with_separators(n)
    for text in (
        f"Work: {n} + 0 = {written}{suffix}",
        f"Answer: {written}{suffix}\nchecked",
        f"{n} first\n\\boxed{{{written}}}",
    ):
        span = final_answer_span(text)
        assert span is not None and text[span[0] : span[1]] == written, text
