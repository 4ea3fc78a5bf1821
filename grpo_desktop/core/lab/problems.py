"""The problem library: verifiable problems with sampled reasoning traces, loaded from JSON.

Each problem lives in ``resources/problems/<id>.json`` (shipped in the wheel as
``grpo_desktop.resources``). Loading validates every field *and* the content: each trace's correct
version must be graded 1 by :mod:`grpo_desktop.core.lab.checker` and its wrong version 0, so a card
can never show "reward 1" next to a wrong answer. Pure Python, no Qt.

Two optional keys feed the reward components beside the checker's accuracy: ``"answer_format"``
(the form a trace must present its answer in, see :mod:`grpo_desktop.core.lab.format_check`; absent:
no format component) and, inside a trace, ``"partial"`` (the credit its wrong version earns for a
right method with a slip). Files without them stay valid; the schema stays 1.
"""

from __future__ import annotations

import functools
import math
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from typing import TYPE_CHECKING, Any

from grpo_desktop.core.common.jsonfile import (
    ResourceFileError,
    UnknownResourceError,
    json_type_name,
    read_json_file,
    unsafe_character_problem,
)
from grpo_desktop.core.lab.checker import grade
from grpo_desktop.core.lab.format_check import ANSWER_FORMATS
from grpo_desktop.core.lab.lab_limits import MAX_GROUP_SIZE, MIN_GROUP_SIZE, group_size_problem

if TYPE_CHECKING:  # importlib.resources.abc is 3.11+; 3.10 spells it importlib.abc
    from importlib.resources.abc import Traversable

__all__ = [
    "ANSWER_FORMATS",
    "DEFAULT_PROBLEM_ID",
    "DIFFICULTIES",
    "MAX_FILE_BYTES",
    "MAX_GROUP_SIZE",
    "MIN_GROUP_SIZE",
    "MIN_TRACES",
    "SCHEMA_VERSION",
    "Problem",
    "ProblemError",
    "Trace",
    "UnknownProblemError",
    "get_problem",
    "load_problem_file",
    "load_problems",
    "parse_problem",
    "problem_to_dict",
    "shipped_problem_ids",
    "trace_to_dict",
    "verify_answers",
]

DEFAULT_PROBLEM_ID = "mult-23x47"
SCHEMA_VERSION = 1
DIFFICULTIES = ("easy", "medium", "hard")
#: The pass rates each difficulty names, [low, high): a problem the model solves 70 % of the time
#: or more is easy, 40–70 % medium, below 40 % hard. Every shipped problem keeps to them.
DIFFICULTY_PASS_RATES = {"easy": (0.7, 1.01), "medium": (0.4, 0.7), "hard": (0.0, 0.4)}


def difficulty_of(pass_rate: float) -> str:
    """The difficulty a pass rate names (see :data:`DIFFICULTY_PASS_RATES`)."""
    for name, (low, high) in DIFFICULTY_PASS_RATES.items():
        if low <= pass_rate < high:
            return name
    raise ValueError(f"pass rate {pass_rate!r} is not between 0 and 1")


MIN_TRACES = 8
#: A problem file is a few KB; anything past this is a mistake (or an attack), not a problem.
MAX_FILE_BYTES = 1_000_000

_ID_RE = re.compile(r"[a-z0-9-]+")
MAX_ID_CHARS = 64
MAX_TITLE_CHARS = 80
MAX_PROMPT_CHARS = 2000
MAX_KEY_CHARS = 100
MAX_TRACE_CHARS = 1000
_FIELDS = (
    "schema",
    "id",
    "title",
    "prompt",
    "answer_key",
    "difficulty",
    "pass_rate",
    "group_size",
    "preset_rewards",
    "traces",
)
#: Keys a problem file may leave out.
_OPTIONAL_FIELDS = ("answer_format",)
_TRACE_KEYS = ("correct", "wrong", "partial")


class ProblemError(ResourceFileError):
    """A problem file or id is unusable; the message names the file and the field."""


class UnknownProblemError(ProblemError, UnknownResourceError):
    """No problem has this id (also a ``KeyError``, for dict-like callers)."""


@dataclass(frozen=True)
class Trace:
    """One sampled answer, in a correct and a wrong version (the card shows one of them)."""

    correct: str
    wrong: str
    #: The credit the wrong version earns for a right method with a slip (0 < partial < 1), or
    #: None: the file sets it per trace, so only real slips get it.
    partial: float | None = None

    def text(self, correct: bool) -> str:
        """The version a card shows when its reward is 1 (``correct``) or 0."""
        return self.correct if correct else self.wrong


@dataclass(frozen=True)
class Problem:
    """A verifiable problem and the traces its cards show."""

    id: str
    title: str
    prompt: str
    answer_key: str
    difficulty: str
    pass_rate: float
    group_size: int
    default_rewards: tuple[int, ...]
    traces: tuple[Trace, ...]
    #: One of :data:`ANSWER_FORMATS`, or None: the problem asks for no form, so the format
    #: component does not apply to its traces.
    answer_format: str | None = None

    def trace_for(self, card_index: int) -> Trace:
        """The trace card ``card_index`` shows; past the distinct traces they repeat cyclically,
        as a model's samples repeat."""
        if card_index < 0:
            raise ValueError(f"card_index must be >= 0, got {card_index}")
        return self.traces[card_index % len(self.traces)]

    def default_group(self, group_size: int) -> tuple[bool, ...]:
        """Correct (True) / wrong (False) per card for a group of ``group_size``.

        The file's default group (its ``preset_rewards``) when the size matches; otherwise
        ``round(pass_rate * G)`` correct cards
        (half rounds up), at least one correct and one wrong when G >= 2 so the default group always
        carries a learning signal, spread evenly with the first card correct.
        """
        if group_size < 1:
            raise ValueError(f"group_size must be >= 1, got {group_size}")
        if group_size == self.group_size:
            return tuple(bool(r) for r in self.default_rewards)
        n_correct = math.floor(self.pass_rate * group_size + 0.5)
        if group_size >= 2:
            n_correct = min(max(n_correct, 1), group_size - 1)
        else:
            n_correct = min(max(n_correct, 0), 1)
        # Card i is correct when (i * k) mod G < k: exactly k cards, evenly spaced, card 0 first.
        return tuple((i * n_correct) % group_size < n_correct for i in range(group_size))


_fail = ProblemError.for_field


def _string(
    data: Mapping[str, Any], source: str, field: str, max_chars: int, multiline: bool = False
) -> str:
    value = data[field]
    if not isinstance(value, str) or not value.strip():
        raise _fail(source, field, f"must be a non-empty string, got {json_type_name(value)}")
    if len(value) > max_chars:
        raise _fail(source, field, f"must be at most {max_chars} characters, got {len(value)}")
    _check_characters(value, source, field, multiline)
    return value


def _check_characters(text: str, source: str, field: str, multiline: bool) -> None:
    """No control or bidi characters (U+202E…); ``multiline`` text may hold newlines and tabs."""
    problem = unsafe_character_problem(text, multiline)
    if problem is not None:
        raise _fail(source, field, problem)


def _integer(data: Mapping[str, Any], source: str, field: str) -> int:
    value = data[field]
    if isinstance(value, bool) or not isinstance(value, int):
        raise _fail(source, field, f"must be an integer, got {json_type_name(value)}")
    return value


def _parse_traces(value: object, source: str, answer_key: str) -> tuple[Trace, ...]:
    if not isinstance(value, list):
        raise _fail(source, "traces", f"must be a list, got {json_type_name(value)}")
    if len(value) < MIN_TRACES:
        raise _fail(source, "traces", f"must hold at least {MIN_TRACES} traces, got {len(value)}")
    traces = []
    for index, item in enumerate(value):
        name = f"traces[{index}]"
        if not isinstance(item, dict):
            raise _fail(source, name, f"must be an object, got {json_type_name(item)}")
        extra = sorted(set(item) - set(_TRACE_KEYS))
        if extra:
            allowed = ", ".join(repr(key) for key in _TRACE_KEYS)
            raise _fail(source, name, f"has unknown keys {extra}; allowed: {allowed}")
        texts: dict[str, str] = {}
        for kind in ("correct", "wrong"):
            field = f"{name}.{kind}"
            if kind not in item:
                raise _fail(source, field, "is missing")
            text = item[kind]
            if not isinstance(text, str) or not text.strip():
                raise _fail(
                    source, field, f"must be a non-empty string, got {json_type_name(text)}"
                )
            if len(text) > MAX_TRACE_CHARS:
                raise _fail(source, field, f"must be at most {MAX_TRACE_CHARS} characters")
            _check_characters(text, source, field, multiline=True)
            texts[kind] = text
        partial = (
            _partial(item["partial"], source, f"{name}.partial") if "partial" in item else None
        )
        traces.append(Trace(correct=texts["correct"], wrong=texts["wrong"], partial=partial))
    return tuple(traces)


def _between_0_and_1(value: object, source: str, field: str) -> float:
    """A finite number strictly between 0 and 1 (a bool is not a number; an integer never is in
    range, however large: it is not converted to a float on the way)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _fail(source, field, f"must be a number, got {json_type_name(value)}")
    if isinstance(value, int) or not (math.isfinite(value) and 0.0 < value < 1.0):
        shown = _clipped(str(value)) if abs(value) < 10**30 else "a very large integer"
        raise _fail(source, field, f"must be strictly between 0 and 1, got {shown}")
    return float(value)


def _partial(value: object, source: str, field: str) -> float:
    """A trace's partial credit (0 is "no credit", which is leaving the key out; 1 would make the
    wrong version as good as the right one)."""
    return _between_0_and_1(value, source, field)


def _clipped(text: str, limit: int = 40) -> str:
    """A value for an error message, never a huge dump."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _answer_format(data: Mapping[str, Any], source: str) -> str | None:
    if "answer_format" not in data:
        return None
    value = data["answer_format"]
    if not isinstance(value, str) or value not in ANSWER_FORMATS:
        shown = _clipped(repr(value)) if isinstance(value, str) else json_type_name(value)
        raise _fail(source, "answer_format", f"must be one of {list(ANSWER_FORMATS)}, got {shown}")
    return value


def _check_answers(traces: tuple[Trace, ...], source: str, answer_key: str) -> None:
    """Every correct version must grade 1 and every wrong version 0, or a card would lie."""
    for index, trace in enumerate(traces):
        for kind, want in (("correct", 1), ("wrong", 0)):
            verdict = grade(trace.text(want == 1), answer_key)
            if verdict.reward != want:
                read = (
                    "no final answer"
                    if verdict.final_answer is None
                    else (f"final answer {verdict.final_answer!r}")
                )
                raise _fail(
                    source,
                    f"traces[{index}].{kind}",
                    f"is graded {verdict.reward} by the checker but must be graded {want} "
                    f"({read}, answer key {answer_key!r})",
                )


@functools.cache
def verify_answers(problem: Problem) -> None:
    """Grade every trace of a problem once (cached): shipped problems are checked when they
    first become the lab's problem rather than all at start-up; tests check them all."""
    _check_answers(problem.traces, f"{problem.id}.json", problem.answer_key)


def parse_problem(data: object, source: str, check_answers: bool = True) -> Problem:
    """Validate decoded JSON and build a :class:`Problem`; ``source`` names it in error messages.

    Checks types, ranges, the schema version and the content (every correct version grades 1,
    every wrong version 0), so a broken file fails at load time rather than on stage.
    """
    if not isinstance(data, dict):
        raise ProblemError(
            f"{source}: the top level must be a JSON object, got {json_type_name(data)}"
        )
    if "schema" not in data:
        raise _fail(source, "schema", "is missing")
    schema = _integer(data, source, "schema")
    if schema != SCHEMA_VERSION:
        raise _fail(
            source,
            "schema",
            f"is version {schema}, which this app does not know (it reads {SCHEMA_VERSION})",
        )
    for field in _FIELDS:
        if field not in data:
            raise _fail(source, field, "is missing")
    unknown = sorted(set(data) - set(_FIELDS) - set(_OPTIONAL_FIELDS))
    if unknown:
        allowed = list(_FIELDS + _OPTIONAL_FIELDS)
        raise ProblemError(f"{source}: unknown field(s) {unknown}; allowed: {allowed}")

    problem_id = _string(data, source, "id", MAX_ID_CHARS)
    if not _ID_RE.fullmatch(problem_id):
        raise _fail(source, "id", f"must use only a-z, 0-9 and '-', got {problem_id!r}")
    title = _string(data, source, "title", MAX_TITLE_CHARS)
    prompt = _string(data, source, "prompt", MAX_PROMPT_CHARS, multiline=True)
    answer_key = _string(data, source, "answer_key", MAX_KEY_CHARS)
    answer_format = _answer_format(data, source)

    difficulty = data["difficulty"]
    if difficulty not in DIFFICULTIES:
        raise _fail(
            source, "difficulty", f"must be one of {list(DIFFICULTIES)}, got {difficulty!r}"
        )

    pass_rate = _between_0_and_1(data["pass_rate"], source, "pass_rate")

    group_size = _integer(data, source, "group_size")
    size_problem = group_size_problem(group_size)
    if size_problem is not None:
        raise _fail(source, "group_size", size_problem)

    preset = data["preset_rewards"]
    if not isinstance(preset, list):
        raise _fail(source, "preset_rewards", f"must be a list, got {json_type_name(preset)}")
    if len(preset) != group_size:
        raise _fail(
            source,
            "preset_rewards",
            f"must have group_size ({group_size}) entries, got {len(preset)}",
        )
    for index, reward in enumerate(preset):
        if isinstance(reward, bool) or reward not in (0, 1) or not isinstance(reward, int):
            raise _fail(source, f"preset_rewards[{index}]", f"must be 0 or 1, got {reward!r}")

    traces = _parse_traces(data["traces"], source, answer_key)
    if check_answers:
        _check_answers(traces, source, answer_key)
    return Problem(
        id=problem_id,
        title=title,
        prompt=prompt,
        answer_key=answer_key,
        difficulty=difficulty,
        pass_rate=pass_rate,
        group_size=group_size,
        default_rewards=tuple(int(r) for r in preset),
        traces=traces,
        answer_format=answer_format,
    )


def problem_to_dict(problem: Problem) -> dict[str, Any]:
    """``problem`` as the dict ``parse_problem`` accepts (the layout of ``resources/problems``);
    the optional keys only when set, so a problem without them writes what it was read from."""
    data: dict[str, Any] = {
        "schema": SCHEMA_VERSION,
        "id": problem.id,
        "title": problem.title,
        "prompt": problem.prompt,
        "answer_key": problem.answer_key,
    }
    if problem.answer_format is not None:
        data["answer_format"] = problem.answer_format
    data.update(
        {
            "difficulty": problem.difficulty,
            "pass_rate": problem.pass_rate,
            "group_size": problem.group_size,
            "preset_rewards": list(problem.default_rewards),
            "traces": [trace_to_dict(trace) for trace in problem.traces],
        }
    )
    return data


def trace_to_dict(trace: Trace) -> dict[str, Any]:
    """One trace as a problem file writes it; ``"partial"`` only when set."""
    data: dict[str, Any] = {"correct": trace.correct, "wrong": trace.wrong}
    if trace.partial is not None:
        data["partial"] = trace.partial
    return data


def load_problem_file(
    path: str | os.PathLike[str] | Traversable, check_answers: bool = True
) -> Problem:
    """Read and validate one problem file (UTF-8 JSON, at most :data:`MAX_FILE_BYTES`).

    The problem's ``id`` must equal the file name without ``.json``, so ids stay findable.
    """
    data, source = read_json_file(path, ProblemError, MAX_FILE_BYTES)
    problem = parse_problem(data, source, check_answers)
    stem = source[: -len(".json")] if source.endswith(".json") else source
    if problem.id != stem:
        raise _fail(source, "id", f"must match the file name ({stem!r}), got {problem.id!r}")
    return problem


def _sort_key(problem: Problem) -> tuple[bool, int, str]:
    return (problem.id != DEFAULT_PROBLEM_ID, DIFFICULTIES.index(problem.difficulty), problem.id)


@functools.cache
def load_problems() -> tuple[Problem, ...]:
    """All shipped problems: the default first, then easy, medium, hard, then by id (cached)."""
    folder = resources.files("grpo_desktop.resources").joinpath("problems")
    files = sorted(
        (entry for entry in folder.iterdir() if entry.name.endswith(".json")),
        key=lambda entry: entry.name,
    )
    # Grading every trace of every problem costs start-up time; verify_answers does it for a
    # problem when the lab first shows it (and the test suite for all of them).
    problems = [load_problem_file(entry, check_answers=False) for entry in files]
    seen: dict[str, str] = {}
    for entry, problem in zip(files, problems):
        if problem.id in seen:
            raise _fail(entry.name, "id", f"{problem.id!r} is already used by {seen[problem.id]}")
        seen[problem.id] = entry.name
    if DEFAULT_PROBLEM_ID not in seen:
        raise ProblemError(f"problems: the default problem {DEFAULT_PROBLEM_ID!r} is missing")
    return tuple(sorted(problems, key=_sort_key))


@functools.cache
def _problems_by_id() -> dict[str, Problem]:
    return {problem.id: problem for problem in load_problems()}


def shipped_problem_ids() -> frozenset[str]:
    """The ids of the shipped problems: a custom problem never takes one of them."""
    return frozenset(_problems_by_id())


def get_problem(problem_id: str) -> Problem:
    """The shipped problem with this id; :class:`UnknownProblemError` lists the valid ids."""
    by_id = _problems_by_id()
    try:
        return by_id[problem_id]
    except KeyError:
        valid = (problem.id for problem in load_problems())
        raise UnknownProblemError.for_id("problem", problem_id, valid) from None
