"""ProblemDraft: a lecturer's problem as typed, graded by the lab's checker and explained in words.

The dialog that renders these answers is tested in tests/views/test_problem_editor.py.
"""

from __future__ import annotations

import dataclasses
import re

import pytest

from grpo_desktop.core.lab.checker import grade
from grpo_desktop.core.lab.problem_draft import (
    SOURCE,
    DraftValidation,
    ProblemDraft,
    check_trace,
    check_version,
    default_pattern,
    default_summary,
    format_line,
    problem_id_for,
    slugify,
)
from grpo_desktop.core.lab.problems import (
    MAX_PROMPT_CHARS,
    MIN_TRACES,
    Problem,
    get_problem,
    load_problems,
    parse_problem,
    problem_to_dict,
)

SEED = get_problem("mult-23x47")
ID_RE = re.compile(r"[a-z0-9-]+")
READY = "Ready: 8 traces, every correct version grades 1 and every wrong version grades 0."


def draft_of(problem: Problem = SEED, **changes: object) -> ProblemDraft:
    """The draft the editor starts from for ``problem``, with some fields retyped."""
    draft = ProblemDraft(
        original=problem,
        title=problem.title,
        prompt=problem.prompt,
        answer_key=problem.answer_key,
        difficulty=problem.difficulty,
        shown_pass_rate=round(problem.pass_rate, 2),
        group_size=problem.group_size,
        traces=tuple((t.correct, t.wrong) for t in problem.traces),
        answer_format=problem.answer_format,
        partials=tuple(t.partial for t in problem.traces),
    )
    return dataclasses.replace(draft, **changes)


def with_trace(draft: ProblemDraft, row: int, correct: str, wrong: str) -> ProblemDraft:
    traces = list(draft.traces)
    traces[row] = (correct, wrong)
    return dataclasses.replace(draft, traces=tuple(traces))


# ------------------------------------------------------------------------------ ids
@pytest.mark.parametrize(
    ("title", "expected"),
    [
        ("Multiply 23 × 47", "custom-multiply-23-47"),
        ("  Café: 3/4 + ½?  ", "custom-cafe-3-4-1-2"),
        ("×××", "custom-problem"),
        ("", "custom-problem"),
        ("a" * 100, "custom-" + "a" * 57),
        ("word " * 30, None),
    ],
)
def test_problem_id_is_a_valid_slug_of_at_most_64_characters(title, expected):
    problem_id = problem_id_for(title)
    assert ID_RE.fullmatch(problem_id)
    assert len(problem_id) <= 64
    assert problem_id.startswith("custom-")
    assert not problem_id.endswith("-")
    assert "--" not in problem_id
    if expected is not None:
        assert problem_id == expected


def test_slugify_keeps_only_lowercase_ascii_letters_digits_and_single_hyphens():
    assert slugify("Hard: 7^100 mod 13!") == "hard-7-100-mod-13"


def test_the_draft_id_comes_from_the_title_without_its_outer_spaces():
    assert draft_of(title="  My own: 23 × 47  ").problem_id == "custom-my-own-23-47"


# ------------------------------------------------------------------------------ one version
def test_check_version_words_each_case():
    assert check_version("= 1081", "1081", correct=True).line == (
        "Checker: final answer 1081 → reward 1 ✓"
    )
    assert check_version("= 1081", "1081", correct=True).problem is None
    wrong_ok = check_version("= 1071", "1081", correct=False)
    assert wrong_ok.line == "Checker: final answer 1071 → reward 0 ✗"
    assert wrong_ok.problem is None
    bad = check_version("= 1071", "1081", correct=True)
    assert bad.problem == (
        "the correct version grades 0: its final answer 1071 does not match the key 1081"
    )
    none = check_version("no digits here", "1081", correct=True)
    assert none.line == "Checker: no final answer found → reward 0 ✗"
    assert "no final answer" in none.problem
    assert check_version("no digits here", "1081", correct=False).problem is None
    right_as_wrong = check_version("Answer: 1,081", "1081", correct=False)
    assert right_as_wrong.problem.startswith("the wrong version grades 1")
    assert "empty" in check_version("  ", "1081", correct=True).problem
    assert "1,000" in check_version("1 " * 600 + "= 1081", "1081", correct=True).problem


def test_a_correct_version_without_a_final_answer_is_told_how_to_end():
    check = check_version("I am not sure.", " 1081 ", correct=True)
    assert check.problem == (
        "the correct version grades 0: the checker finds no final answer in it (end it with a "
        "line like “Answer: 1081”)"
    )


def test_an_empty_version_says_which_final_answer_it_needs():
    assert check_version("", "1081", correct=True).problem == (
        "the correct version is empty: write an answer whose final answer is the key 1081"
    )
    wrong = check_version("\n", "1081", correct=False)
    assert wrong.line == "Checker: nothing to grade yet"
    assert wrong.problem == (
        "the wrong version is empty: write an answer whose final answer is not the key 1081"
    )


def test_without_an_answer_key_nothing_is_flagged_yet():
    for correct in (True, False):
        check = check_version("Answer: 1081", "   ", correct=correct)
        assert check == check_version("", "", correct=correct)
        assert check.line == "Checker: waiting for an answer key"
        assert check.problem is None
        assert check.advice is None


def test_a_long_final_answer_is_shortened_to_40_characters():
    key = "1" * 60
    check = check_version(f"Answer: {key}", key, correct=False)
    shown = "1" * 39 + "…"
    assert check.line == f"Checker: final answer {shown} → reward 1 ✓"
    assert check.problem == (
        f"the wrong version grades 1: its final answer {shown} matches the key {shown}, so it is "
        "not wrong"
    )


def test_advice_is_the_problem_as_a_sentence_of_its_own():
    bad = check_version("= 1071", "1081", correct=True)
    assert bad.advice == (
        "The correct version grades 0: its final answer 1071 does not match the key 1081."
    )
    assert check_version("= 1081", "1081", correct=True).advice is None


# ------------------------------------------------------------------------------ one trace
def test_a_trace_lists_its_problems_correct_version_first():
    both_bad = check_trace("= 1071", "= 1081", "1081")
    assert both_bad.versions == (both_bad.correct, both_bad.wrong)
    assert len(both_bad.problems) == 2
    assert both_bad.problems[0].startswith("the correct version grades 0")
    assert both_bad.problems[1].startswith("the wrong version grades 1")
    assert both_bad.advice == "T" + "; ".join(both_bad.problems)[1:]


def test_a_good_trace_has_no_problems_and_no_advice():
    good = check_trace("= 1081", "= 1071", "1081")
    assert good.problems == ()
    assert good.advice == ""


def test_a_draft_grades_every_version_with_the_labs_checker():
    draft = with_trace(draft_of(), 2, "= 1071", "= 1071")
    checks = draft.trace_checks
    assert len(checks) == len(SEED.traces)
    for (correct, wrong), check in zip(draft.traces, checks):
        assert f"→ reward {grade(correct, '1081').reward} " in check.correct.line
        assert f"→ reward {grade(wrong, '1081').reward} " in check.wrong.line
    assert [bool(check.problems) for check in checks] == [i == 2 for i in range(8)]


# ------------------------------------------------------------------------------ default group
def test_the_default_group_is_the_originals_until_g_or_the_pass_rate_change():
    assert draft_of().default_group == (True, False, False, True)
    assert draft_of(group_size=8, shown_pass_rate=0.25).default_group == (
        True, False, False, False, True, False, False, False,
    )  # fmt: skip
    assert (
        default_pattern(SEED, 0.25, 8) == draft_of(group_size=8, shown_pass_rate=0.25).default_group
    )
    # Back to the original G and pass rate: the original pattern, not the spread one.
    assert default_pattern(SEED, SEED.pass_rate, SEED.group_size) == (True, False, False, True)


def test_the_default_group_is_drawn_only_while_short():
    assert default_summary((True, False, False, True)) == "2 of 4 right\n✓ ✗ ✗ ✓"
    assert default_summary((True,) * 12) == "12 of 12 right\n" + " ".join("✓" * 12)
    assert default_summary(draft_of(group_size=64, shown_pass_rate=0.25).default_group) == (
        "16 of 64 right"
    )


def test_an_untouched_pass_rate_keeps_the_originals_exact_value():
    original = dataclasses.replace(SEED, pass_rate=0.375)
    assert draft_of(original, shown_pass_rate=0.38).pass_rate == 0.375
    assert draft_of(original, shown_pass_rate=0.379999).pass_rate == 0.375
    assert draft_of(original, shown_pass_rate=0.4).pass_rate == 0.4
    assert draft_of(original, shown_pass_rate=0.41000001).pass_rate == 0.41
    assert draft_of(original, shown_pass_rate=0.38).to_data()["pass_rate"] == 0.375


# ------------------------------------------------------------------------------ validation
def test_the_seed_drafts_into_the_same_problem_under_a_custom_id():
    draft = draft_of()
    assert draft.to_data() == {**problem_to_dict(SEED), "id": "custom-multiply-23-47"}
    validation = draft.validate()
    assert validation.ok
    assert validation.problem == dataclasses.replace(SEED, id="custom-multiply-23-47")
    assert validation.reason is None
    assert validation.message == READY


@pytest.mark.parametrize("problem", load_problems(), ids=lambda p: p.id)
def test_every_shipped_problem_survives_the_editor_unchanged(problem: Problem):
    validation = draft_of(problem).validate()
    assert validation.problem == dataclasses.replace(problem, id=problem_id_for(problem.title))


def test_the_data_strips_the_text_fields_but_not_the_traces():
    draft = with_trace(
        draft_of(title=" Mine ", prompt="\nCompute 23 × 47.\n", answer_key=" 1081 "),
        0,
        "  = 1081\n",
        "= 1071 ",
    )
    data = draft.to_data()
    assert (data["title"], data["prompt"], data["answer_key"]) == (
        "Mine",
        "Compute 23 × 47.",
        "1081",
    )
    assert (data["traces"][0]["correct"], data["traces"][0]["wrong"]) == ("  = 1081\n", "= 1071 ")
    assert parse_problem(data, "test") == draft.validate().problem


@pytest.mark.parametrize(
    ("changes", "reason"),
    [
        pytest.param(
            {"title": "  ", "prompt": "", "answer_key": ""},
            "Give the problem a title: the problem chooser lists it by that name.",
            id="title-first",
        ),
        pytest.param(
            {"prompt": " \n", "answer_key": ""},
            "Write the prompt: the question the model answers.",
            id="prompt-next",
        ),
        pytest.param(
            {"prompt": "x" * (MAX_PROMPT_CHARS + 100), "answer_key": ""},
            "Shorten the prompt to at most 2,000 characters (2,100 now).",
            id="prompt-too-long",
        ),
        pytest.param(
            {"answer_key": "  ", "traces": ()},
            "Enter the answer key: the checker compares every final answer with it.",
            id="answer-key",
        ),
        pytest.param(
            {"traces": ((" = 1081", "= 1071"),) * (MIN_TRACES - 1)},
            "Add at least 8 traces (7 so far): a group of answers needs samples to draw from.",
            id="too-few-traces",
        ),
        pytest.param(
            {"traces": ()},
            "Add at least 8 traces (0 so far): a group of answers needs samples to draw from.",
            id="no-traces",
        ),
    ],
)
def test_the_first_reason_follows_the_order_the_dialog_is_filled_in(changes, reason):
    validation = draft_of(**changes).validate()
    assert validation == DraftValidation(None, reason)
    assert not validation.ok
    assert validation.message == reason


def test_the_first_bad_trace_and_its_first_bad_version_are_named():
    draft = with_trace(with_trace(draft_of(), 4, "= 1071", "= 1081"), 6, "", "")
    assert draft.validate().reason == (
        "Trace 5: the correct version grades 0: its final answer 1071 does not match the key 1081."
    )
    assert with_trace(draft_of(), 1, "= 1081", "Answer: 1,081").first_reason() == (
        "Trace 2: the wrong version grades 1: its final answer 1,081 matches the key 1081, so it "
        "is not wrong."
    )


def test_a_rule_only_the_loader_knows_is_reported_without_the_source_name():
    """parse_problem has the last word: its message shows, minus the "editor: " it is given."""
    validation = draft_of(title="T" * 100).validate()
    assert validation.problem is None
    assert validation.reason == "field 'title' must be at most 80 characters, got 100"
    assert not validation.reason.startswith(f"{SOURCE}:")


def test_a_valid_draft_is_exactly_what_the_loader_accepts():
    draft = with_trace(draft_of(difficulty="hard"), 7, "23 × 47 = 1081", "23 × 47 = 1080")
    problem = draft.validate().problem
    assert problem is not None
    assert problem == parse_problem(draft.to_data(), "test")
    assert problem.difficulty == "hard"
    for trace in problem.traces:
        assert grade(trace.correct, problem.answer_key).reward == 1
        assert grade(trace.wrong, problem.answer_key).reward == 0


def test_a_custom_problem_never_gets_a_shipped_id(monkeypatch):
    from grpo_desktop.core.lab import problem_draft

    shipped = frozenset({"custom-multiply", "custom-multiply-2"})
    monkeypatch.setattr(problem_draft, "shipped_problem_ids", lambda: shipped)
    assert problem_id_for("Multiply") == "custom-multiply-3"
    long_title = "x" * 100
    taken = frozenset({problem_id_for(long_title)})  # custom-xxx…, 64 characters
    monkeypatch.setattr(problem_draft, "shipped_problem_ids", lambda: taken)
    unique = problem_id_for(long_title)
    assert unique.endswith("-2") and len(unique) <= 64 and ID_RE.fullmatch(unique)


def test_no_shipped_title_turns_into_a_shipped_id():
    ids = {problem.id for problem in load_problems()}
    for problem in load_problems():
        assert problem_id_for(problem.title) not in ids
        assert problem_id_for(problem.id) not in ids


# ------------------------------------------------------------------------------ reward components
@pytest.mark.parametrize(
    ("text", "answer_format", "expected"),
    [
        ("= 1081\nAnswer: 1081", "answer-line", "Format (a final “Answer:” line): yes → 1 ✓"),
        ("= 1081", "answer-line", "Format (a final “Answer:” line): no → 0 ✗"),
        ("\\boxed{1081}", "boxed", "Format (a \\boxed{…} answer): yes → 1 ✓"),
        ("\\boxed{1081", "boxed", "Format (a \\boxed{…} answer): no → 0 ✗"),
        ("= 1081", None, None),  # no format declared: nothing to say
        ("  \n", "boxed", None),  # nothing typed yet
    ],
)
def test_format_line_says_whether_a_version_follows_the_format(text, answer_format, expected):
    assert format_line(text, answer_format) == expected


def test_a_draft_without_format_or_credit_writes_neither():
    data = draft_of(dataclasses.replace(SEED, answer_format=None), partials=()).to_data()
    assert "answer_format" not in data
    assert all(set(trace) == {"correct", "wrong"} for trace in data["traces"])


def test_the_format_and_partial_credit_reach_the_problem():
    draft = draft_of(answer_format="boxed", partials=(None, 0.25, None))
    data = draft.to_data()
    assert list(data)[:6] == ["schema", "id", "title", "prompt", "answer_key", "answer_format"]
    assert data["answer_format"] == "boxed"
    assert data["traces"][1]["partial"] == 0.25
    assert all("partial" not in data["traces"][row] for row in (0, 2, 3, 7))
    problem = draft.validate().problem
    assert problem is not None
    assert problem.answer_format == "boxed"
    assert [t.partial for t in problem.traces] == [None, 0.25] + [None] * 6
    assert draft.partial_for(1) == 0.25
    assert draft.partial_for(5) is None  # past the partials given: none
    assert draft.partial_for(-1) is None


def test_format_lines_check_both_versions_of_a_trace():
    draft = draft_of(answer_format="answer-line")
    assert draft.format_lines(1) == (
        "Format (a final “Answer:” line): yes → 1 ✓",
        "Format (a final “Answer:” line): yes → 1 ✓",
    )
    assert draft.format_lines(3)[0] == "Format (a final “Answer:” line): no → 0 ✗"  # \\boxed
    assert draft_of(answer_format=None).format_lines(1) == (None, None)


def test_a_version_missing_the_format_is_still_usable():
    """Missing the format is what the format reward scores lower, not a broken trace."""
    draft = draft_of(answer_format="boxed")
    assert draft.format_lines(0)[0] is not None and draft.format_lines(0)[0].endswith("✗")
    assert draft.validate().ok


def test_a_bad_partial_is_reported_by_the_loader_without_the_source_name():
    validation = draft_of(partials=(1.5,)).validate()
    assert not validation.ok
    assert (
        validation.reason == "field 'traces[0].partial' must be strictly between 0 and 1, got 1.5"
    )
