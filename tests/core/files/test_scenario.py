"""Scenario files: a prepared lab saves and loads back exactly; every broken file says why."""

from __future__ import annotations

import dataclasses
import json
import os
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from grpo_desktop.core import convention_names
from grpo_desktop.core.files.scenario import (
    MAX_SCENARIO_BYTES,
    SCENARIO_SCHEMA,
    SCENARIO_SUFFIX,
    VIEWS,
    Scenario,
    ScenarioError,
    is_custom_problem,
    load_scenario,
    parse_scenario,
    problem_to_dict,
    save_scenario,
    scenario_to_json,
)
from grpo_desktop.core.lab.lab_memento import LabMemento
from grpo_desktop.core.lab.problems import (
    DEFAULT_PROBLEM_ID,
    Problem,
    get_problem,
    load_problems,
    parse_problem,
)

FILE_NAME = "lesson" + SCENARIO_SUFFIX
DOCUMENTED_KEYS = [
    "format",
    "schema",
    "title",
    "problem",
    "group_size",
    "correct",
    "convention",
    "view",
    "sample_seed",
]


def _shipped_scenario(**changes: Any) -> Scenario:
    values: dict[str, Any] = {
        "problem": get_problem(DEFAULT_PROBLEM_ID),
        "custom_problem": False,
        "correct": (True, False, False, True),
        "convention": "textbook",
        "view": "advantage",
        "sample_seed": None,
        "title": "Week 3 — the seed's example",
    }
    values.update(changes)
    return Scenario(**values)


def _custom_problem(**changes: Any) -> Problem:
    """A problem that is not shipped: a new id and title over the default problem's traces."""
    data = problem_to_dict(get_problem(DEFAULT_PROBLEM_ID))
    data.update({"id": "my-lecture-problem", "title": "My own 23 × 47"}, **changes)
    return parse_problem(data, "test")


def _valid_document() -> dict[str, Any]:
    return {
        "format": "grpo-desktop-scenario",
        "schema": 1,
        "title": "Week 3",
        "problem": {"id": DEFAULT_PROBLEM_ID},
        "group_size": 4,
        "correct": [True, False, False, True],
        "convention": "textbook",
        "view": "advantage",
        "sample_seed": None,
    }


def _write(tmp_path: Path, content: str | bytes, name: str = FILE_NAME) -> Path:
    path = tmp_path / name
    if isinstance(content, str):
        path.write_text(content, encoding="utf-8")
    else:
        path.write_bytes(content)
    return path


def _error(document: dict[str, Any]) -> str:
    with pytest.raises(ScenarioError) as info:
        parse_scenario(json.dumps(document), FILE_NAME)
    return str(info.value)


def _load_error(path: Path) -> str:
    with pytest.raises(ScenarioError) as info:
        load_scenario(path)
    message = str(info.value)
    assert message.startswith(f"{path.name}: "), message
    assert "\n" not in message, message
    assert len(message) < 1000, message
    return message


# --- constants and the module's layer ---------------------------------------------------------


def test_constants():
    assert SCENARIO_SUFFIX == ".grpo.json"
    assert SCENARIO_SCHEMA == 1
    assert MAX_SCENARIO_BYTES == 8_000_000
    assert VIEWS == ("advantage", "reward")
    assert issubclass(ScenarioError, ValueError)


# --- round trips ------------------------------------------------------------------------------


@pytest.mark.parametrize("view", VIEWS)
@pytest.mark.parametrize("convention", convention_names())
def test_round_trip_shipped_problem(tmp_path, convention, view):
    scenario = _shipped_scenario(convention=convention, view=view, sample_seed=7)
    path = tmp_path / FILE_NAME
    save_scenario(scenario, path)
    assert load_scenario(path) == scenario


@pytest.mark.parametrize("view", VIEWS)
@pytest.mark.parametrize("convention", convention_names())
def test_round_trip_custom_problem(tmp_path, convention, view):
    problem = _custom_problem()
    scenario = Scenario(problem, True, (False, True, True), convention, view, None, "Custom")
    path = tmp_path / FILE_NAME
    save_scenario(scenario, path)
    loaded = load_scenario(path)
    assert loaded == scenario
    assert loaded.custom_problem
    assert "inline" in json.loads(path.read_text(encoding="utf-8"))["problem"]


@pytest.mark.parametrize("answer_format", [None, "answer-line", "boxed", "answer-line-or-boxed"])
def test_a_custom_problem_keeps_its_answer_format_and_partial_credit(tmp_path, answer_format):
    """The reward components' data travels inside a scenario's inline problem, and a shipped
    problem whose format or credit was edited is a custom problem (it is saved inline)."""
    base = _custom_problem()
    traces = list(base.traces)
    traces[1] = dataclasses.replace(traces[1], partial=0.25)
    problem = dataclasses.replace(base, answer_format=answer_format, traces=tuple(traces))
    scenario = Scenario(problem, True, (False, True, True), "textbook", "advantage", None, "Credit")
    path = tmp_path / FILE_NAME
    save_scenario(scenario, path)
    inline = json.loads(path.read_text(encoding="utf-8"))["problem"]["inline"]
    assert inline["traces"][1]["partial"] == 0.25
    assert "partial" not in inline["traces"][2]  # the default problem gives trace 2 none
    assert inline.get("answer_format") == answer_format
    loaded = load_scenario(path)
    assert loaded == scenario
    assert loaded.problem.traces[1].partial == 0.25
    assert loaded.problem.answer_format == answer_format

    shipped = get_problem(DEFAULT_PROBLEM_ID)
    assert is_custom_problem(dataclasses.replace(shipped, answer_format="boxed"))
    assert not is_custom_problem(dataclasses.replace(shipped))


def test_an_inline_problem_with_a_bad_partial_names_the_inline_field():
    document = _valid_document()
    inline = problem_to_dict(_custom_problem())
    inline["traces"][3]["partial"] = 1.5
    document["problem"] = {"inline": inline}
    with pytest.raises(ScenarioError) as info:
        parse_scenario(json.dumps(document), FILE_NAME)
    assert str(info.value).startswith(
        f"{FILE_NAME}: field 'problem.inline.traces[3].partial' must be strictly between 0 and 1"
    )


@pytest.mark.parametrize("problem", load_problems(), ids=lambda problem: problem.id)
def test_every_shipped_problem_round_trips(problem):
    assert parse_problem(problem_to_dict(problem), "test") == problem
    scenario = Scenario.from_lab(LabMemento(problem, (True, False), 3), "rloo", "reward")
    assert not scenario.custom_problem
    assert parse_scenario(scenario_to_json(scenario), FILE_NAME) == scenario


def test_problem_to_dict_matches_the_shipped_file_layout():
    data = problem_to_dict(get_problem(DEFAULT_PROBLEM_ID))
    shipped = Path(__file__).parents[3] / "resources" / "problems" / f"{DEFAULT_PROBLEM_ID}.json"
    if shipped.exists():
        assert data == json.loads(shipped.read_text(encoding="utf-8"))
    json.dumps(data, allow_nan=False)  # plain JSON types only


def test_a_changed_shipped_problem_cannot_keep_the_shipped_id():
    problem = dataclasses.replace(get_problem(DEFAULT_PROBLEM_ID), prompt="What is 23 × 47?")
    with pytest.raises(ValueError, match="needs an id of its own"):
        _shipped_scenario(problem=problem, custom_problem=True)


def test_an_inline_problem_reusing_a_shipped_id_is_refused_on_load():
    document = _valid_document()
    inline = problem_to_dict(get_problem(DEFAULT_PROBLEM_ID))
    inline["title"] = "Impostor"
    document["problem"] = {"inline": inline}
    message = _error(document)
    assert message.startswith(f"{FILE_NAME}: field 'problem.inline.id' is 'mult-23x47', the id of")
    assert "needs an id of its own" in message


@pytest.mark.parametrize(
    ("field", "text"),
    [
        ("title", "Week 3 \u202egpj.exe"),
        ("title", "two\nlines"),
        ("prompt", "What is 23 \u00d7 47?\u2066"),
        ("answer_key", "1081\x00"),
    ],
)
def test_control_and_bidi_characters_in_an_inline_problem_are_refused(field, text):
    document = _valid_document()
    inline = problem_to_dict(get_problem(DEFAULT_PROBLEM_ID))
    inline["id"] = "custom-week-3"
    inline[field] = text
    document["problem"] = {"inline": inline}
    message = _error(document)
    assert f"field 'problem.inline.{field}' contains the control character U+" in message


def test_a_scenario_title_with_a_right_to_left_override_is_refused():
    document = _valid_document()
    document["title"] = "Week 3 \u202egpj.exe"
    assert _error(document) == (
        f"{FILE_NAME}: field 'title' contains the control character U+202E "
        "(RIGHT-TO-LEFT OVERRIDE), which can disguise text; remove it"
    )


def test_newlines_and_tabs_in_an_inline_prompt_and_traces_are_kept():
    document = _valid_document()
    inline = problem_to_dict(get_problem(DEFAULT_PROBLEM_ID))
    inline["id"] = "custom-week-3"
    inline["prompt"] = "Multiply:\n\t23 × 47"
    document["problem"] = {"inline": inline}
    loaded = parse_scenario(json.dumps(document), FILE_NAME)
    assert loaded.problem.prompt == "Multiply:\n\t23 × 47"
    assert "\n" in loaded.problem.traces[0].correct


def test_unchanged_shipped_problem_given_inline_loads_as_shipped():
    document = _valid_document()
    document["problem"] = {"inline": problem_to_dict(get_problem(DEFAULT_PROBLEM_ID))}
    loaded = parse_scenario(json.dumps(document), FILE_NAME)
    assert loaded == _shipped_scenario(title="Week 3")
    assert not loaded.custom_problem
    assert '"id": "mult-23x47"' in scenario_to_json(loaded)


def test_optional_fields_default():
    document = _valid_document()
    del document["title"], document["sample_seed"]
    loaded = parse_scenario(json.dumps(document), FILE_NAME)
    assert loaded.title == ""
    assert loaded.sample_seed is None


def test_largest_seed_and_group_round_trip():
    scenario = _shipped_scenario(correct=(True, False) * 32, sample_seed=2**64 - 1)
    assert parse_scenario(scenario_to_json(scenario), FILE_NAME) == scenario


def test_saved_file_is_pretty_utf8_json_with_the_documented_keys(tmp_path):
    path = tmp_path / FILE_NAME
    save_scenario(_shipped_scenario(), path)
    raw = path.read_bytes()
    text = raw.decode("utf-8")
    assert text.endswith("}\n")
    assert "—" in text  # ensure_ascii=False: the title's dash is kept, not \u2014
    assert '"correct": [true, false, false, true]' in text  # one line, easy to edit by hand
    data = json.loads(text)
    assert list(data) == DOCUMENTED_KEYS
    assert data == {
        "format": "grpo-desktop-scenario",
        "schema": 1,
        "title": "Week 3 — the seed's example",
        "problem": {"id": DEFAULT_PROBLEM_ID},
        "group_size": 4,
        "correct": [True, False, False, True],
        "convention": "textbook",
        "view": "advantage",
        "sample_seed": None,
    }
    assert sorted(tmp_path.iterdir()) == [path]  # no temporary file left behind


def test_save_uses_the_path_as_given(tmp_path):
    path = tmp_path / "plain.json"
    save_scenario(_shipped_scenario(), path)
    assert path.exists()
    assert load_scenario(str(path)) == _shipped_scenario()


def test_a_lab_and_the_workbench_convention_round_trip_through_a_scenario():
    problem = _custom_problem()
    memento = LabMemento(problem, (True, True, False), 42)
    scenario = Scenario.from_lab(memento, "dr_grpo", "reward", title="note")
    assert scenario.custom_problem
    assert scenario.convention == "dr_grpo"
    assert scenario.view == "reward"
    assert scenario.title == "note"
    assert scenario.group_size == 3
    assert scenario.lab_memento() == memento


def test_memento_restores_into_lab_state(tmp_path):
    from grpo_desktop.model.lab_state import LabState

    state = LabState()
    state.sample(11)
    path = tmp_path / FILE_NAME
    save_scenario(Scenario.from_lab(state.memento(), convention_names()[1], "reward"), path)
    fresh = LabState()
    loaded = load_scenario(path)
    fresh.restore(loaded.lab_memento())
    assert fresh.memento() == state.memento()
    assert loaded.convention == convention_names()[1]


@pytest.mark.parametrize(
    "changes",
    [
        {"custom_problem": True},
        {"correct": [True, False]},
        {"correct": (True,)},
        {"correct": (1, 0)},
        {"convention": "nope"},
        {"view": "chart"},
        {"sample_seed": -1},
        {"sample_seed": True},
        {"title": "x" * 201},
    ],
    ids=repr,
)
def test_scenario_construction_validates(changes):
    with pytest.raises(ValueError):
        _shipped_scenario(**changes)


def test_scenario_construction_rejects_a_custom_problem_marked_shipped():
    with pytest.raises(ValueError, match="custom_problem"):
        Scenario(_custom_problem(), False, (True, False), "textbook", "advantage", None)


# --- bad documents ------------------------------------------------------------------------------


def _without(field: str):
    return lambda document: document.pop(field)


def _setting(field: str, value: Any):
    return lambda document: document.__setitem__(field, value)


def _inline(**changes: Any):
    def mutate(document: dict[str, Any]) -> None:
        data = problem_to_dict(_custom_problem())
        data.update(changes)
        document["problem"] = {"inline": data}

    return mutate


def _inline_without_traces(document: dict[str, Any]) -> None:
    data = problem_to_dict(_custom_problem())
    data["traces"] = data["traces"][:3]
    document["problem"] = {"inline": data}


def _inline_wrong_grade(document: dict[str, Any]) -> None:
    data = problem_to_dict(_custom_problem())
    data["traces"][0]["correct"] = "23 × 47 = 1000"
    document["problem"] = {"inline": data}


BAD_DOCUMENTS = [
    ("format-missing", _without("format"), ["'format'", "is missing"]),
    ("format-wrong", _setting("format", "grpo-problem"), ["'format'", "'grpo-problem'"]),
    ("format-not-string", _setting("format", 1), ["'format'"]),
    ("schema-missing", _without("schema"), ["'schema'", "is missing"]),
    ("schema-string", _setting("schema", "1"), ["'schema'", "positive integer"]),
    ("schema-bool", _setting("schema", True), ["'schema'", "positive integer"]),
    ("schema-zero", _setting("schema", 0), ["'schema'"]),
    (
        "schema-newer",
        _setting("schema", 2),
        ["was saved by a newer GRPO Desktop (schema 2); this version reads schema 1"],
    ),
    ("unknown-field", _setting("colour", "red"), ["unknown field", "'colour'", "allowed"]),
    ("problem-missing", _without("problem"), ["'problem'", "is missing"]),
    ("problem-string", _setting("problem", DEFAULT_PROBLEM_ID), ["'problem'", "a string"]),
    ("problem-empty", _setting("problem", {}), ["'problem'", "exactly one key"]),
    (
        "problem-both",
        _setting("problem", {"id": DEFAULT_PROBLEM_ID, "inline": {}}),
        ["'problem'", "exactly one key"],
    ),
    ("problem-other-key", _setting("problem", {"name": "x"}), ["'problem'", "'name'"]),
    ("problem-id-number", _setting("problem", {"id": 3}), ["'problem.id'", "a string"]),
    (
        "problem-id-unknown",
        _setting("problem", {"id": "mult-99x99"}),
        ["'problem.id'", "unknown problem id 'mult-99x99'", "valid ids:", DEFAULT_PROBLEM_ID],
    ),
    (
        "problem-inline-list",
        _setting("problem", {"inline": []}),
        ["'problem.inline'", "a list"],
    ),
    (
        "problem-inline-few-traces",
        _inline_without_traces,
        ["field 'problem.inline.traces' must hold at least 8 traces, got 3"],
    ),
    (
        "problem-inline-wrong-grade",
        _inline_wrong_grade,
        ["'problem.inline.traces[0].correct'", "graded 0"],
    ),
    (
        "problem-inline-bad-field",
        _inline(difficulty="trivial"),
        ["'problem.inline.difficulty'", "'trivial'"],
    ),
    ("problem-inline-surrogate", _inline(title="A \ud800"), ["'problem.inline.title'"]),
    ("group-size-missing", _without("group_size"), ["'group_size'", "is missing"]),
    ("group-size-bool", _setting("group_size", True), ["'group_size'", "an integer"]),
    ("group-size-float", _setting("group_size", 4.0), ["'group_size'", "an integer"]),
    ("group-size-string", _setting("group_size", "4"), ["'group_size'", "an integer"]),
    ("group-size-one", _setting("group_size", 1), ["'group_size'", "between 2 and 64", "got 1"]),
    ("group-size-65", _setting("group_size", 65), ["'group_size'", "got 65"]),
    ("group-size-huge", _setting("group_size", 10**200), ["'group_size'", "very large"]),
    ("correct-missing", _without("correct"), ["'correct'", "is missing"]),
    ("correct-string", _setting("correct", "1001"), ["'correct'", "a string"]),
    (
        "correct-short",
        _setting("correct", [True, False, False]),
        ["field 'correct' must have 4 entries (group_size is 4), got 3"],
    ),
    ("correct-ints", _setting("correct", [1, 0, 0, 1]), ["'correct[0]'", "true or false"]),
    (
        "correct-null",
        _setting("correct", [True, None, False, True]),
        ["'correct[1]'", "null"],
    ),
    ("convention-missing", _without("convention"), ["'convention'", "is missing"]),
    (
        "convention-unknown",
        _setting("convention", "ppo"),
        ["'convention'", "'ppo'", *convention_names()],
    ),
    ("convention-list", _setting("convention", ["textbook"]), ["'convention'", "a list"]),
    ("view-missing", _without("view"), ["'view'", "is missing"]),
    ("view-unknown", _setting("view", "chart"), ["'view'", "advantage, reward", "'chart'"]),
    ("view-null", _setting("view", None), ["'view'", "null"]),
    ("seed-negative", _setting("sample_seed", -1), ["'sample_seed'", "-1"]),
    ("seed-bool", _setting("sample_seed", False), ["'sample_seed'", "false"]),
    ("seed-float", _setting("sample_seed", 1.5), ["'sample_seed'", "1.5"]),
    ("seed-string", _setting("sample_seed", "7"), ["'sample_seed'", "'7'"]),
    ("seed-too-big", _setting("sample_seed", 2**64), ["'sample_seed'"]),
    ("title-number", _setting("title", 3), ["'title'", "a string", "an integer"]),
    ("title-long", _setting("title", "x" * 201), ["'title'", "at most 200", "got 201"]),
    ("title-surrogate", _setting("title", "\udc00"), ["'title'", "invalid character"]),
]


@pytest.mark.parametrize(
    ("mutate", "expected"),
    [pytest.param(mutate, expected, id=name) for name, mutate, expected in BAD_DOCUMENTS],
)
def test_bad_document_is_refused_naming_file_and_field(tmp_path, mutate, expected):
    document = _valid_document()
    mutate(document)
    path = _write(tmp_path, json.dumps(document, ensure_ascii=True))
    message = _load_error(path)
    for part in expected:
        assert part in message, message


def test_valid_document_loads():
    assert parse_scenario(json.dumps(_valid_document()), FILE_NAME) == _shipped_scenario(
        title="Week 3"
    )


def test_inline_problem_errors_without_a_field_name_the_inline_field():
    document = _valid_document()
    inline = problem_to_dict(_custom_problem())
    inline["colour"] = "red"
    document["problem"] = {"inline": inline}
    with pytest.raises(ScenarioError) as info:
        parse_scenario(json.dumps(document), FILE_NAME)
    message = str(info.value)
    assert message.startswith(f"{FILE_NAME}: field 'problem.inline': unknown field"), message


BAD_TEXTS = [
    ("empty", "", ["empty"]),
    ("whitespace", "  \n", ["empty"]),
    ("top-level-list", "[1, 2]", ["top level", "a list"]),
    ("top-level-string", '"scenario"', ["top level", "a string"]),
    ("top-level-null", "null", ["top level", "null"]),
    ("syntax", '{\n  "format": "grpo-desktop-scenario",\n  "schema" 1\n}', ["line 3 column 12"]),
    ("trailing-comma", '{"format": "grpo-desktop-scenario",}', ["invalid JSON", "line 1"]),
    ("truncated", json.dumps(_valid_document(), indent=2)[:60], ["truncated", "line"]),
    ("nan", json.dumps(_valid_document()).replace("null", "NaN"), ["NaN"]),
    ("infinity", json.dumps(_valid_document()).replace("null", "Infinity"), ["Infinity"]),
    ("minus-infinity", json.dumps(_valid_document()).replace("null", "-Infinity"), ["Infinity"]),
    ("float-overflow", json.dumps(_valid_document()).replace("null", "1e999"), ["too large"]),
    ("huge-integer", '{"schema": ' + "9" * 5000 + "}", ["number too long"]),
    (
        "duplicate-key",
        '{"format": "grpo-desktop-scenario", "schema": 1, "schema": 2}',
        ["'schema'", "appears twice"],
    ),
    (
        "nested-duplicate-key",
        json.dumps(_valid_document()).replace(
            '{"id": "mult-23x47"}', '{"id": "mult-23x47", "id": "x"}'
        ),
        ["'id'", "appears twice"],
    ),
    ("deep-nesting", "[" * 100_000 + "]" * 100_000, ["nested too deeply"]),
    ("deep-objects", '{"a":' * 100_000 + "1" + "}" * 100_000, ["nested too deeply"]),
    ("deep-unclosed", "[" * 100_000, ["nested too deeply"]),
]


@pytest.mark.parametrize(
    ("text", "expected"),
    [pytest.param(text, expected, id=name) for name, text, expected in BAD_TEXTS],
)
def test_bad_json_is_refused(tmp_path, text, expected):
    path = _write(tmp_path, text)
    started = time.perf_counter()
    message = _load_error(path)
    assert time.perf_counter() - started < 2.0
    for part in expected:
        assert part in message, message


def test_missing_file(tmp_path):
    message = _load_error(tmp_path / FILE_NAME)
    assert "does not exist" in message


def test_folder_instead_of_file(tmp_path):
    folder = tmp_path / FILE_NAME
    folder.mkdir()
    assert "folder" in _load_error(folder)


def test_unreadable_file(tmp_path, monkeypatch):
    path = _write(tmp_path, json.dumps(_valid_document()))

    def denied(*args: Any, **kwargs: Any) -> Any:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "open", denied)  # chmod 0 does not stop root, so simulate it
    assert "cannot read the file (Permission denied)" in _load_error(path)


def test_not_utf8(tmp_path):
    path = _write(tmp_path, b'{"title": "caf\xe9"}')
    message = _load_error(path)
    assert "not UTF-8" in message
    assert "byte offset 14" in message


def test_utf8_bom_is_accepted(tmp_path):
    path = _write(tmp_path, b"\xef\xbb\xbf" + json.dumps(_valid_document()).encode())
    assert load_scenario(path) == _shipped_scenario(title="Week 3")


def test_large_file_is_refused_before_reading(tmp_path, monkeypatch):
    path = _write(tmp_path, b" " * 9_000_000)

    def no_reading(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a too-large file must be refused before it is read")

    monkeypatch.setattr(os, "open", no_reading)
    started = time.perf_counter()
    message = _load_error(path)
    assert time.perf_counter() - started < 1.0
    assert "9,000,000 bytes" in message
    assert "8,000,000" in message


def test_large_text_is_refused_by_parse_scenario():
    with pytest.raises(ScenarioError, match="more than a scenario may be"):
        parse_scenario(" " * (MAX_SCENARIO_BYTES + 1), FILE_NAME)


def test_file_just_under_the_limit_is_parsed(tmp_path):
    text = json.dumps(_valid_document())
    path = _write(tmp_path, text + " " * (MAX_SCENARIO_BYTES - len(text)))
    assert load_scenario(path).title == "Week 3"


def test_errors_quote_huge_values_briefly(tmp_path):
    document = _valid_document()
    document["convention"] = "x" * 100_000
    message = _load_error(_write(tmp_path, json.dumps(document)))
    assert "'convention'" in message
    assert len(message) < 300


# --- atomic saving ------------------------------------------------------------------------------


def test_failed_save_leaves_the_old_file_intact(tmp_path, monkeypatch):
    path = tmp_path / FILE_NAME
    save_scenario(_shipped_scenario(), path)
    before = path.read_bytes()

    def failing_replace(*args: Any, **kwargs: Any) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", failing_replace)
    with pytest.raises(OSError):
        save_scenario(_shipped_scenario(view="reward", title="new"), path)
    assert path.read_bytes() == before
    assert sorted(tmp_path.iterdir()) == [path]  # the temporary file was removed
    assert load_scenario(path) == _shipped_scenario()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_a_named_pipe_is_refused_at_once_instead_of_hanging(tmp_path):
    fifo = tmp_path / FILE_NAME
    os.mkfifo(fifo)
    message = _run_with_timeout(lambda: _load_error(fifo))
    assert message == f"{FILE_NAME}: is a named pipe (FIFO), not a scenario file"


def test_a_device_is_refused_unread():
    if not Path("/dev/zero").exists():
        pytest.skip("no /dev/zero")
    assert "zero: is a device, not a scenario file" in _load_error(Path("/dev/zero"))


def _run_with_timeout(function: Any, seconds: float = 3.0) -> Any:
    """Run ``function`` in a daemon thread; fail (rather than hang the suite) if it blocks."""
    result: list[Any] = []
    worker = threading.Thread(target=lambda: result.append(function()), daemon=True)
    worker.start()
    worker.join(seconds)
    if worker.is_alive():
        pytest.fail(f"still blocked after {seconds} s")
    return result[0]


# --- the Update workspace in a scenario ----------------------------------------------------------


def test_a_scenario_can_open_on_the_update_step_with_its_settings(tmp_path):
    from grpo_desktop.core.update.update_settings import UpdateSettings

    settings = UpdateSettings(preset="trl/dapo", eps_high=0.28, inner_steps=4, beta=0.04)
    scenario = _shipped_scenario(workspace="update", update=settings)
    path = tmp_path / FILE_NAME
    save_scenario(scenario, path)
    saved = json.loads(path.read_text(encoding="utf-8"))
    assert saved["workspace"] == "update"
    assert saved["update"] == {
        "preset": "trl/dapo",
        "eps_high": 0.28,
        "beta": 0.04,
        "inner_steps": 4,
    }
    assert load_scenario(path) == scenario


def test_a_plain_lab_saves_without_workspace_or_update_fields(tmp_path):
    path = tmp_path / FILE_NAME
    save_scenario(_shipped_scenario(), path)
    assert list(json.loads(path.read_text(encoding="utf-8"))) == DOCUMENTED_KEYS


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            {"workspace": "garden"},
            "field 'workspace' must be one of lab, update, training, compare",
        ),
        ({"update": [1]}, "field 'update' must be an object, got a list"),
        ({"update": {"betta": 0.1}}, "field 'update' unknown update setting(s): betta"),
        ({"update": {"preset": "trl/ppo"}}, "unknown loss preset 'trl/ppo'"),
        ({"update": {"inner_steps": 2.5}}, "inner_steps must be a whole number"),
        ({"update": {"eps_high": True}}, "eps_high must be a finite number"),
    ],
)
def test_bad_update_fields_are_refused_in_one_sentence(change, message):
    document = _valid_document()
    document.update(change)
    assert message in _error(document)


def test_the_run_takes_the_scenarios_one_convention_and_it_is_written_once():
    from grpo_desktop.core.files.scenario import scenario_to_json
    from grpo_desktop.core.training.run import TrainingConfig

    scenario = _shipped_scenario(convention="verl", training=TrainingConfig(steps=50))
    document = json.loads(scenario_to_json(scenario))
    assert document["convention"] == "verl"
    assert document["training"] == {"steps": 50}
    parsed = parse_scenario(scenario_to_json(scenario), FILE_NAME)
    assert (parsed.convention, parsed.training) == ("verl", TrainingConfig(steps=50))


def test_a_run_convention_that_disagrees_with_the_scenarios_is_refused():
    document = _valid_document() | {"training": {"convention": "verl", "steps": 50}}
    assert _error(document) == (
        f"{FILE_NAME}: field 'training.convention' is 'verl' but the scenario's convention is "
        "'textbook'; the run uses the scenario's one convention: remove 'training.convention' or "
        "make the two agree"
    )
    agreeing = _valid_document() | {
        "convention": "verl",
        "training": {"convention": "verl", "steps": 50},
    }
    parsed = parse_scenario(json.dumps(agreeing), FILE_NAME)
    assert (parsed.convention, parsed.training.steps) == ("verl", 50)


def test_a_run_without_a_convention_takes_the_scenarios():
    document = _valid_document() | {"convention": "trl", "training": {"steps": 50}}
    parsed = parse_scenario(json.dumps(document), FILE_NAME)
    assert (parsed.convention, parsed.training.steps) == ("trl", 50)
