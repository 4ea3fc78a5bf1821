"""The problem library: every shipped problem loads and grades right; broken files say why."""

from __future__ import annotations

import copy
import dataclasses
import json
import os
import threading
from pathlib import Path
from typing import Any

import pytest

from grpo_desktop.core.common.jsonfile import ResourceFileError, UnknownResourceError
from grpo_desktop.core.lab.checker import grade
from grpo_desktop.core.lab.format_check import ANSWER_FORMATS, follows_format
from grpo_desktop.core.lab.problems import (
    DEFAULT_PROBLEM_ID,
    DIFFICULTIES,
    DIFFICULTY_PASS_RATES,
    MAX_FILE_BYTES,
    Problem,
    ProblemError,
    Trace,
    UnknownProblemError,
    difficulty_of,
    get_problem,
    load_problem_file,
    load_problems,
    parse_problem,
    problem_to_dict,
    trace_to_dict,
)

PROBLEMS = load_problems()
TRACE_CASES = [
    pytest.param(problem, index, id=f"{problem.id}-trace{index}")
    for problem in PROBLEMS
    for index in range(len(problem.traces))
]


def _valid_data() -> dict[str, Any]:
    """A fresh, valid problem dict (the default problem's shipped JSON)."""
    return problem_to_dict(get_problem(DEFAULT_PROBLEM_ID))


def _write(tmp_path: Path, data: object, name: str = "mult-23x47.json") -> Path:
    path = tmp_path / name
    text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
    path.write_text(text, encoding="utf-8")
    return path


# --- the shipped library -------------------------------------------------------------------------


def test_at_least_ten_problems_ship() -> None:
    assert len(PROBLEMS) >= 10


def test_ids_are_unique() -> None:
    ids = [problem.id for problem in PROBLEMS]
    assert len(ids) == len(set(ids))


@pytest.mark.parametrize("problem", PROBLEMS, ids=lambda p: p.id)
def test_every_shipped_problem_is_well_formed(problem: Problem) -> None:
    assert problem.difficulty in DIFFICULTIES
    assert 0 < problem.pass_rate < 1
    assert 2 <= problem.group_size <= 64
    assert len(problem.default_rewards) == problem.group_size
    assert len(problem.traces) >= 8


@pytest.mark.parametrize("problem", PROBLEMS, ids=lambda p: p.id)
def test_every_shipped_problems_difficulty_agrees_with_its_pass_rate(problem: Problem) -> None:
    """Easy is 70 % or more, medium 40–70 %, hard below 40 % ("38 + 47" at 50 % is medium)."""
    low, high = DIFFICULTY_PASS_RATES[problem.difficulty]
    assert low <= problem.pass_rate < high, (problem.id, problem.difficulty, problem.pass_rate)
    assert difficulty_of(problem.pass_rate) == problem.difficulty


def test_the_difficulty_bands_cover_every_pass_rate_once() -> None:
    assert set(DIFFICULTY_PASS_RATES) == set(DIFFICULTIES)
    for percent in range(101):
        assert difficulty_of(percent / 100) in DIFFICULTIES
    assert [difficulty_of(p) for p in (0.39, 0.4, 0.69, 0.7, 1.0)] == [
        "hard",
        "medium",
        "medium",
        "easy",
        "easy",
    ]


@pytest.mark.parametrize("problem", PROBLEMS, ids=lambda p: p.id)
def test_shipped_problems_write_powers_as_superscripts_not_carets(problem: Problem) -> None:
    """Cards show 35² − 12²; the hard problem wrote 7^100 and (7^2)^50 (issue 25, item 14)."""
    texts = [problem.title, problem.prompt]
    texts += [text for trace in problem.traces for text in (trace.correct, trace.wrong)]
    assert not [text for text in texts if "^" in text]


@pytest.mark.parametrize(("problem", "index"), TRACE_CASES)
def test_checker_grades_shipped_correct_version_one(problem: Problem, index: int) -> None:
    assert grade(problem.traces[index].correct, problem.answer_key).reward == 1


@pytest.mark.parametrize(("problem", "index"), TRACE_CASES)
def test_checker_grades_shipped_wrong_version_zero(problem: Problem, index: int) -> None:
    assert grade(problem.traces[index].wrong, problem.answer_key).reward == 0


@pytest.mark.parametrize(("problem", "index"), TRACE_CASES)
def test_shipped_traces_fit_on_a_card(problem: Problem, index: int) -> None:
    for text in (problem.traces[index].correct, problem.traces[index].wrong):
        lines = text.split("\n")
        assert 2 <= len(lines) <= 5
        assert all(len(line) <= 40 for line in lines), lines


def test_default_problem_comes_first_with_the_seed_numbers() -> None:
    first = PROBLEMS[0]
    assert first.id == DEFAULT_PROBLEM_ID == "mult-23x47"
    assert first.prompt == "Compute 23 × 47."
    assert first.answer_key == "1081"
    assert first.group_size == 4
    assert first.default_rewards == (1, 0, 0, 1)
    assert first.default_group(4) == (True, False, False, True)


def test_rest_is_sorted_by_difficulty_then_id() -> None:
    rest = PROBLEMS[1:]
    keys = [(DIFFICULTIES.index(p.difficulty), p.id) for p in rest]
    assert keys == sorted(keys)


def test_an_easy_problem_has_the_seed_group_1_1_1_1_0() -> None:
    assert any(
        p.difficulty == "easy" and p.group_size == 5 and p.default_rewards == (1, 1, 1, 1, 0)
        for p in PROBLEMS
    )


def test_a_hard_problem_has_the_seed_group_1_0_0_0_0() -> None:
    assert any(
        p.difficulty == "hard" and p.group_size == 5 and p.default_rewards == (1, 0, 0, 0, 0)
        for p in PROBLEMS
    )


def test_load_problems_is_cached() -> None:
    assert load_problems() is load_problems()


def test_get_problem_finds_each_id() -> None:
    for problem in PROBLEMS:
        assert get_problem(problem.id) is problem


def test_unknown_id_error_lists_the_valid_ids() -> None:
    with pytest.raises(UnknownProblemError) as info:
        get_problem("no-such-problem")
    message = str(info.value)
    assert "no-such-problem" in message
    assert all(problem.id in message for problem in PROBLEMS)
    assert isinstance(info.value, KeyError)
    assert isinstance(info.value, ProblemError)
    assert message == (
        "unknown problem id 'no-such-problem'; valid ids: "
        + ", ".join(problem.id for problem in PROBLEMS)
    )


def test_problem_errors_share_the_resource_file_base_with_lesson_errors() -> None:
    assert issubclass(ProblemError, ResourceFileError)
    assert issubclass(ProblemError, ValueError)
    assert issubclass(UnknownProblemError, UnknownResourceError)
    with pytest.raises(ResourceFileError) as info:
        get_problem("no-such-problem")
    assert isinstance(info.value, UnknownProblemError)
    # KeyError's str() would quote the message; the shared base keeps it readable.
    assert str(info.value).startswith("unknown problem id 'no-such-problem'; valid ids: ")


def test_error_constructors_keep_the_problem_error_class() -> None:
    bad_field = ProblemError.for_field("mine.json", "title", "is missing")
    assert type(bad_field) is ProblemError
    assert str(bad_field) == "mine.json: field 'title' is missing"
    unknown = UnknownProblemError.for_id("problem", "nope", iter(["a", "b"]))
    assert type(unknown) is UnknownProblemError
    assert str(unknown) == "unknown problem id 'nope'; valid ids: a, b"
    assert str(UnknownProblemError()) == ""


@pytest.mark.parametrize("problem", PROBLEMS, ids=lambda p: p.id)
def test_every_shipped_problem_declares_a_format_its_traces_vary_on(problem: Problem) -> None:
    """Some traces follow the declared format and some do not, so the format component carries
    a signal in every group rather than a constant."""
    assert problem.answer_format in ANSWER_FORMATS
    verdicts = {
        follows_format(text, problem.answer_format)
        for trace in problem.traces
        for text in (trace.correct, trace.wrong)
    }
    assert verdicts == {True, False}


# Wrong versions whose method is right but whose arithmetic slipped; the rest get no credit.
# length-bias-sum has none on purpose: its lesson contrasts short right answers with long wrong
# ones, and credit for the wrong ones would blur that.
SHIPPED_PARTIAL = {
    "algebra-3x-plus-7": {3: 0.5, 5: 0.5},
    "decimal-7-5-div-3": {0: 0.5, 2: 0.5, 7: 0.5},
    "easy-add-17-25": {0: 0.5, 2: 0.5, 5: 0.5},
    "frac-half-plus-quarter": {4: 0.5, 5: 0.5, 7: 0.5},
    "handshakes-12-people": {1: 0.5},
    "hard-remainder-7-pow-100": {1: 0.5, 3: 0.5},
    "hard-sum-odd-to-99": {0: 0.5, 2: 0.5},
    "hours-in-365-days": {0: 0.5, 1: 0.5, 3: 0.5},
    "length-bias-sum": {},
    "mult-23x47": {0: 0.5, 1: 0.5, 3: 0.5},
    "order-of-ops-negative": {1: 0.5, 5: 0.5, 7: 0.5},
    "percent-15-of-80": {0: 0.5, 3: 0.5, 7: 0.5},
    "percent-increase-40-50": {4: 0.5},
    "word-apples-left": {0: 0.5, 7: 0.5},
}


def test_shipped_partial_credit_is_on_the_slips_only() -> None:
    assert {p.id for p in PROBLEMS} == set(SHIPPED_PARTIAL)
    for problem in PROBLEMS:
        given = {i: t.partial for i, t in enumerate(problem.traces) if t.partial is not None}
        assert given == SHIPPED_PARTIAL[problem.id], problem.id


@pytest.mark.parametrize("problem", PROBLEMS, ids=lambda p: p.id)
def test_shipped_files_keep_their_layout(problem: Problem) -> None:
    """problem_to_dict writes each shipped file byte for byte (json.dumps, indent 2), so a file
    saved by the app and a file edited by hand read the same in a diff."""
    shipped = Path(__file__).parents[3] / "resources" / "problems" / f"{problem.id}.json"
    if not shipped.exists():
        pytest.skip("running from an installed wheel")
    text = json.dumps(problem_to_dict(problem), indent=2, ensure_ascii=False) + "\n"
    assert text == shipped.read_text(encoding="utf-8")


# --- Trace and Problem behaviour -----------------------------------------------------------------


def test_trace_text_picks_the_version() -> None:
    trace = Trace(correct="= 1081", wrong="= 1071")
    assert trace.text(True) == "= 1081"
    assert trace.text(False) == "= 1071"


def test_the_reward_component_fields_come_last_with_none_defaults() -> None:
    """Code that builds a Trace or Problem positionally (recorded groups, tests) keeps working."""
    trace = Trace("= 1081", "= 1071")
    assert trace.partial is None
    assert Trace("= 1081", "= 1071", 0.25).partial == 0.25
    fields = ("= 1081", "= 1071")
    problem = Problem("p", "T", "Q", "1081", "easy", 0.5, 4, (1, 0, 0, 1), (Trace(*fields),) * 8)
    assert problem.answer_format is None
    assert dataclasses.replace(problem, answer_format="boxed") == Problem(
        "p", "T", "Q", "1081", "easy", 0.5, 4, (1, 0, 0, 1), (Trace(*fields),) * 8, "boxed"
    )


def test_a_file_without_the_optional_keys_loads_with_none() -> None:
    data = _valid_data()
    data.pop("answer_format", None)
    for trace in data["traces"]:
        trace.pop("partial", None)
    problem = parse_problem(data, "p.json")
    assert problem.answer_format is None
    assert all(trace.partial is None for trace in problem.traces)
    assert problem_to_dict(problem) == data  # nothing added on the way back
    assert "answer_format" not in problem_to_dict(problem)


@pytest.mark.parametrize("answer_format", ANSWER_FORMATS)
def test_answer_format_and_partial_round_trip(answer_format: str) -> None:
    data = _valid_data()
    data["answer_format"] = answer_format
    data["traces"][2]["partial"] = 0.25
    data["traces"][4]["partial"] = 1e-9
    problem = parse_problem(data, "p.json")
    assert problem.answer_format == answer_format
    assert problem.traces[2].partial == 0.25
    assert problem.traces[4].partial == 1e-9
    assert parse_problem(problem_to_dict(problem), "p.json") == problem
    assert problem_to_dict(problem) == data
    assert list(problem_to_dict(problem))[:6] == [
        "schema", "id", "title", "prompt", "answer_key", "answer_format"
    ]  # fmt: skip


def test_trace_to_dict_writes_partial_only_when_set() -> None:
    assert trace_to_dict(Trace("a", "b")) == {"correct": "a", "wrong": "b"}
    assert trace_to_dict(Trace("a", "b", 0.5)) == {"correct": "a", "wrong": "b", "partial": 0.5}


def test_partial_credit_is_a_float_and_changes_equality() -> None:
    data = _valid_data()
    data["traces"][2]["partial"] = 0.5
    with_credit = parse_problem(data, "p.json")
    assert isinstance(with_credit.traces[2].partial, float)
    data["traces"][2].pop("partial")
    assert parse_problem(data, "p.json") != with_credit


def test_trace_for_repeats_cyclically() -> None:
    problem = get_problem(DEFAULT_PROBLEM_ID)
    n = len(problem.traces)
    for card in range(3 * n):
        assert problem.trace_for(card) is problem.traces[card % n]
    with pytest.raises(ValueError):
        problem.trace_for(-1)


def test_default_group_uses_the_files_preset_rewards_when_sizes_match() -> None:
    for problem in PROBLEMS:
        assert problem.default_group(problem.group_size) == tuple(
            bool(r) for r in problem.default_rewards
        )


@pytest.mark.parametrize("problem", PROBLEMS, ids=lambda p: p.id)
def test_default_group_is_never_degenerate(problem: Problem) -> None:
    for size in range(2, 65):
        preset = problem.default_group(size)
        assert len(preset) == size
        assert any(preset) and not all(preset), (size, preset)
        assert preset == problem.default_group(size)  # deterministic


def test_default_group_follows_the_pass_rate_and_spreads_evenly() -> None:
    hard = get_problem("hard-remainder-7-pow-100")  # pass_rate 0.2
    assert hard.default_group(10) == (True, False, False, False, False) * 2
    default = get_problem(DEFAULT_PROBLEM_ID)  # pass_rate 0.5
    assert default.default_group(8) == (True, False) * 4
    assert default.default_group(64).count(True) == 32


def test_default_group_rejects_an_empty_group() -> None:
    with pytest.raises(ValueError):
        get_problem(DEFAULT_PROBLEM_ID).default_group(0)


# --- validation ----------------------------------------------------------------------------------


def test_a_valid_file_loads(tmp_path: Path) -> None:
    problem = load_problem_file(_write(tmp_path, _valid_data()))
    assert problem == get_problem(DEFAULT_PROBLEM_ID)


def test_load_problem_file_accepts_a_string_path(tmp_path: Path) -> None:
    assert load_problem_file(str(_write(tmp_path, _valid_data()))).id == DEFAULT_PROBLEM_ID


def _error_for(tmp_path: Path, data: object, name: str = "mult-23x47.json") -> str:
    with pytest.raises(ProblemError) as info:
        load_problem_file(_write(tmp_path, data, name))
    return str(info.value)


def test_invalid_json_names_the_file_and_position(tmp_path: Path) -> None:
    message = _error_for(tmp_path, '{"schema": 1,,}')
    assert message.startswith("mult-23x47.json: invalid JSON at line 1")


def test_missing_file_names_the_file(tmp_path: Path) -> None:
    with pytest.raises(ProblemError, match=r"^gone\.json: cannot read"):
        load_problem_file(tmp_path / "gone.json")


def test_a_broken_file_is_a_resource_file_error_but_not_a_key_error(tmp_path: Path) -> None:
    data = _valid_data()
    del data["title"]
    with pytest.raises(ResourceFileError) as info:
        load_problem_file(_write(tmp_path, data))
    assert type(info.value) is ProblemError
    assert not isinstance(info.value, KeyError)
    assert str(info.value) == "mult-23x47.json: field 'title' is missing"


def test_non_utf8_file_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "latin.json"
    path.write_bytes(b'{"title": "caf\xe9"}')
    with pytest.raises(ProblemError, match=r"^latin\.json: the file is not UTF-8"):
        load_problem_file(path)


def test_too_large_file_is_refused(tmp_path: Path) -> None:
    message = _error_for(tmp_path, " " * (MAX_FILE_BYTES + 1))
    assert message.startswith("mult-23x47.json: the file is larger than")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_a_named_pipe_is_refused_at_once_instead_of_hanging(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    errors: list[str] = []

    def load() -> None:
        try:
            load_problem_file(fifo, check_answers=False)
        except ProblemError as error:
            errors.append(str(error))

    worker = threading.Thread(target=load, daemon=True)
    worker.start()
    worker.join(3.0)
    assert not worker.is_alive(), "loading a FIFO blocked"
    assert errors == [
        "pipe.json: cannot read the file (it is a named pipe (FIFO), not a regular file)"
    ]


def test_top_level_must_be_an_object(tmp_path: Path) -> None:
    assert "top level must be a JSON object" in _error_for(tmp_path, [1, 2])


def _mutated(change: Any) -> dict[str, Any]:
    data = copy.deepcopy(_valid_data())
    change(data)
    return data


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (
            lambda d: d.pop("answer_key"),
            "field 'answer_key' is missing",
        ),
        (
            lambda d: d.update(group_size="4"),
            "field 'group_size' must be an integer, got a string",
        ),
        (
            lambda d: d.update(title=""),
            "field 'title' must be a non-empty string",
        ),
        (
            lambda d: d.update(pass_rate=True),
            "field 'pass_rate' must be a number, got a boolean",
        ),
        (
            lambda d: d.update(pass_rate=1.0),
            "field 'pass_rate' must be strictly between 0 and 1",
        ),
        (
            lambda d: d.update(group_size=65, preset_rewards=[1, 0] * 32 + [1]),
            "field 'group_size' must be between 2 and 64",
        ),
        (
            lambda d: d.update(preset_rewards=[1, 0, 0]),
            "field 'preset_rewards' must have group_size (4) entries, got 3",
        ),
        (
            lambda d: d.update(preset_rewards=[1, 0, 2, 1]),
            "field 'preset_rewards[2]' must be 0 or 1",
        ),
        (
            lambda d: d.update(preset_rewards=[1, 0, False, 1]),
            "field 'preset_rewards[2]' must be 0 or 1",
        ),
        (
            lambda d: d.update(difficulty="extreme"),
            "field 'difficulty' must be one of ['easy', 'medium', 'hard']",
        ),
        (
            lambda d: d.update(schema=2),
            "field 'schema' is version 2, which this app does not know",
        ),
        (
            lambda d: d.pop("schema"),
            "field 'schema' is missing",
        ),
        (
            lambda d: d.update(id="Mult 23x47"),
            "field 'id' must use only a-z, 0-9 and '-'",
        ),
        (
            lambda d: d.update(traces=d["traces"][:7]),
            "field 'traces' must hold at least 8 traces, got 7",
        ),
        (
            lambda d: d["traces"][3].update(wrong=""),
            "field 'traces[3].wrong' must be a non-empty string",
        ),
        (
            lambda d: d["traces"][5].pop("correct"),
            "field 'traces[5].correct' is missing",
        ),
        (
            lambda d: d["traces"].__setitem__(2, "= 1081"),
            "field 'traces[2]' must be an object, got a string",
        ),
        (
            lambda d: d.update(hint="multiply"),
            "unknown field(s) ['hint']",
        ),
        (
            lambda d: d.update(answer_format="Boxed"),
            "field 'answer_format' must be one of ['answer-line', 'boxed', "
            "'answer-line-or-boxed'], got 'Boxed'",
        ),
        (
            lambda d: d.update(answer_format=None),
            "field 'answer_format' must be one of ['answer-line', 'boxed', "
            "'answer-line-or-boxed'], got null",
        ),
        (
            lambda d: d.update(answer_format="x" * 500),
            "got 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…",
        ),
        (
            lambda d: d["traces"][2].update(partial=True),
            "field 'traces[2].partial' must be a number, got a boolean",
        ),
        (
            lambda d: d["traces"][2].update(partial="0.5"),
            "field 'traces[2].partial' must be a number, got a string",
        ),
        (
            lambda d: d["traces"][2].update(partial=None),
            "field 'traces[2].partial' must be a number, got null",
        ),
        (
            lambda d: d["traces"][2].update(partial=0),
            "field 'traces[2].partial' must be strictly between 0 and 1, got 0",
        ),
        (
            lambda d: d["traces"][2].update(partial=1.0),
            "field 'traces[2].partial' must be strictly between 0 and 1, got 1.0",
        ),
        (
            lambda d: d["traces"][2].update(partial=-0.5),
            "field 'traces[2].partial' must be strictly between 0 and 1, got -0.5",
        ),
        (
            lambda d: d["traces"][2].update(partial=10**400),
            "field 'traces[2].partial' must be strictly between 0 and 1, got a very large integer",
        ),
        (
            lambda d: d.update(pass_rate=-(10**400)),
            "field 'pass_rate' must be strictly between 0 and 1, got a very large integer",
        ),
        (
            lambda d: d["traces"][2].update(credit=0.5),
            "field 'traces[2]' has unknown keys ['credit']; allowed: 'correct', 'wrong', 'partial'",
        ),
    ],
    ids=[
        "missing-field",
        "wrong-type",
        "empty-string",
        "bool-is-not-a-number",
        "pass-rate-range",
        "group-size-range",
        "preset-length",
        "preset-value",
        "preset-bool",
        "difficulty",
        "unknown-schema",
        "missing-schema",
        "id-pattern",
        "too-few-traces",
        "empty-trace",
        "missing-trace-version",
        "trace-not-object",
        "unknown-field",
        "answer-format-name",
        "answer-format-null",
        "answer-format-long-name-clipped",
        "partial-bool",
        "partial-string",
        "partial-null",
        "partial-zero",
        "partial-one",
        "partial-negative",
        "partial-huge-integer",
        "pass-rate-huge-integer",
        "unknown-trace-key",
    ],
)
def test_invalid_field_error_names_file_and_field(
    tmp_path: Path, change: Any, expected: str
) -> None:
    message = _error_for(tmp_path, _mutated(change))
    assert message.startswith("mult-23x47.json: ")
    assert expected in message


def test_a_correct_trace_the_checker_grades_wrong_is_refused(tmp_path: Path) -> None:
    data = _mutated(lambda d: d["traces"][3].update(correct="20 × 47 = 940\n= 1071"))
    message = _error_for(tmp_path, data)
    assert message.startswith("mult-23x47.json: field 'traces[3].correct' is graded 0")
    assert "'1071'" in message
    assert "'1081'" in message


def test_a_wrong_trace_the_checker_grades_right_is_refused(tmp_path: Path) -> None:
    data = _mutated(lambda d: d["traces"][0].update(wrong="Answer: 1,081"))
    message = _error_for(tmp_path, data)
    assert message.startswith("mult-23x47.json: field 'traces[0].wrong' is graded 1")


def test_a_trace_with_no_final_answer_is_refused(tmp_path: Path) -> None:
    data = _mutated(lambda d: d["traces"][1].update(correct="I am not sure."))
    assert "field 'traces[1].correct' is graded 0" in _error_for(tmp_path, data)
    assert "no final answer" in _error_for(tmp_path, data)


def test_id_must_match_the_file_name(tmp_path: Path) -> None:
    message = _error_for(tmp_path, _valid_data(), name="other.json")
    assert message.startswith("other.json: field 'id' must match the file name ('other')")


def test_duplicate_json_keys_are_refused(tmp_path: Path) -> None:
    text = json.dumps(_valid_data(), ensure_ascii=False)[:-1] + ', "title": "again"}'
    assert "field 'title' appears twice" in _error_for(tmp_path, text)


@pytest.mark.parametrize("value", [float("nan"), float("inf"), float("-inf")])
def test_partial_credit_must_be_finite(value: float) -> None:
    data = _valid_data()
    data["traces"][0]["partial"] = value
    with pytest.raises(
        ProblemError, match=r"^p\.json: field 'traces\[0\]\.partial' must be strictly"
    ):
        parse_problem(data, "p.json")


def test_parse_problem_uses_the_given_source_name() -> None:
    with pytest.raises(ProblemError, match=r"^scenario\.json: field 'difficulty'"):
        parse_problem(_mutated(lambda d: d.update(difficulty=None)), "scenario.json")


def test_a_byte_order_mark_is_tolerated(tmp_path: Path) -> None:
    path = tmp_path / "mult-23x47.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(_valid_data()).encode("utf-8"))
    assert load_problem_file(path).id == DEFAULT_PROBLEM_ID


@pytest.mark.parametrize(
    ("change", "field", "code"),
    [
        ({"title": "Multiply \u202e74 x 32"}, "title", "U+202E (RIGHT-TO-LEFT OVERRIDE)"),
        ({"title": "Multiply\n23 × 47"}, "title", "U+000A (a line break)"),
        ({"prompt": "What is 23 × 47?\u200f"}, "prompt", "U+200F (RIGHT-TO-LEFT MARK)"),
        ({"answer_key": "1081\u0000"}, "answer_key", "U+0000 (a control character)"),
    ],
)
def test_control_and_bidi_characters_are_refused(change, field, code):
    data = _valid_data()
    data.update(change)
    with pytest.raises(ProblemError) as info:
        parse_problem(data, "p.json", check_answers=False)
    assert str(info.value) == (
        f"p.json: field '{field}' contains the control character {code}, "
        "which can disguise text; remove it"
    )


def test_a_trace_with_a_bidi_override_is_refused_but_newlines_and_tabs_are_kept():
    data = _valid_data()
    data["prompt"] = "Multiply:\n\t23 × 47"
    assert parse_problem(data, "p.json").prompt == "Multiply:\n\t23 × 47"
    data["traces"][0]["wrong"] += "\u202d"
    with pytest.raises(ProblemError, match=r"field 'traces\[0\]\.wrong' contains the control"):
        parse_problem(data, "p.json")
