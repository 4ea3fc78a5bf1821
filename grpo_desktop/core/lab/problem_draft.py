"""A lecturer's problem while it is being edited: graded, checked and explained in words.

The problem editor (:mod:`grpo_desktop.views.lab.problem_editor`) reads its fields into a
:class:`ProblemDraft` and only renders what the draft answers: each trace version's checker
verdict (:meth:`ProblemDraft.trace_checks`), the default group's pattern, and whether the fields
make a usable problem (:meth:`ProblemDraft.validate`), with the one reason in plain words when they
do not. The same checker that grades the cards in the lab
(:func:`grpo_desktop.core.lab.checker.grade`)
grades both versions, and a problem is usable only when
:func:`grpo_desktop.core.lab.problems.parse_problem` accepts it, so a problem that passes here can
never show "reward 1" next to a wrong answer on stage. The draft also carries the problem's answer
format and each trace's partial credit, the inputs of the format and partial reward components,
and says for each version whether it follows the format (:func:`format_line`); a version that
does not is no mistake, it is what the format component rewards less. Pure Python, no Qt.
"""

from __future__ import annotations

import dataclasses
import functools
import re
import unicodedata
from typing import Any

from grpo_desktop.core.lab.checker import grade
from grpo_desktop.core.lab.format_check import describe_format, follows_format
from grpo_desktop.core.lab.problems import (
    MAX_ID_CHARS,
    MAX_PROMPT_CHARS,
    MAX_TRACE_CHARS,
    MIN_TRACES,
    SCHEMA_VERSION,
    Problem,
    ProblemError,
    parse_problem,
    shipped_problem_ids,
)

__all__ = [
    "ID_PREFIX",
    "SOURCE",
    "DraftValidation",
    "ProblemDraft",
    "TraceCheck",
    "VersionCheck",
    "check_trace",
    "check_version",
    "default_pattern",
    "default_summary",
    "format_line",
    "problem_id_for",
    "slugify",
]

ID_PREFIX = "custom-"
#: How :func:`parse_problem` names an edited problem; stripped from its messages again.
SOURCE = "editor"
#: A final answer longer than this is shortened with "…" in a verdict line.
_SHOWN_ANSWER_CHARS = 40
#: Up to this group size the default group's pattern is drawn (✓ ✗ ✗ ✓); beyond, only counted.
_SHOWN_PATTERN_CARDS = 12


def slugify(text: str) -> str:
    """Lower-case ASCII letters, digits and single hyphens: ``"Multiply 23 × 47"`` →
    ``"multiply-23-47"`` (accents are dropped: ``"Café"`` → ``"cafe"``)."""
    # Accents go (their combining marks are dropped); any other non-ASCII character separates
    # words, so "½" (NFKD "1⁄2") reads "1-2", not "12".
    decomposed = unicodedata.normalize("NFKD", text)
    ascii_text = "".join(
        ch if ch.isascii() else " " for ch in decomposed if not unicodedata.combining(ch)
    )
    return re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")


def problem_id_for(title: str) -> str:
    """The id of a lecturer's problem: ``custom-`` + the title's slug, at most 64 characters,
    always matching ``[a-z0-9-]+`` (``custom-problem`` when the title has no letter or digit)."""
    slug = slugify(title) or "problem"
    candidate = (ID_PREFIX + slug)[:MAX_ID_CHARS].rstrip("-")
    shipped = shipped_problem_ids()
    # Never a shipped problem's id: the chooser would show the shipped title for it, and a
    # scenario holding it could not be opened. Append -2, -3, … until the id is free.
    number = 2
    unique = candidate
    while unique in shipped:
        suffix = f"-{number}"
        unique = candidate[: MAX_ID_CHARS - len(suffix)].rstrip("-") + suffix
        number += 1
    return unique


def _shown(answer: str) -> str:
    answer = " ".join(answer.split())
    if len(answer) > _SHOWN_ANSWER_CHARS:
        return answer[: _SHOWN_ANSWER_CHARS - 1] + "…"
    return answer


def _capitalised(sentence: str) -> str:
    return sentence[:1].upper() + sentence[1:]


@dataclasses.dataclass(frozen=True)
class VersionCheck:
    """What the checker says about one version of a trace, in words.

    ``line`` is the checker's verdict ("Checker: final answer 1081 → reward 1 ✓"); ``problem`` is
    None when the version grades as it must, else the reason in plain words.
    """

    line: str
    problem: str | None = None

    @property
    def advice(self) -> str | None:
        """``problem`` as a sentence of its own (capitalised, full stop), for a verdict box."""
        return f"{_capitalised(self.problem)}." if self.problem else None


def check_version(text: str, answer_key: str, *, correct: bool) -> VersionCheck:
    """Grade the ``correct`` (must grade 1) or wrong (must grade 0) version of a trace."""
    kind = "correct" if correct else "wrong"
    key = answer_key.strip()
    if not key:
        return VersionCheck("Checker: waiting for an answer key")
    if not text.strip():
        if correct:
            need = f"write an answer whose final answer is the key {_shown(key)}"
        else:
            need = f"write an answer whose final answer is not the key {_shown(key)}"
        return VersionCheck("Checker: nothing to grade yet", f"the {kind} version is empty: {need}")
    verdict = grade(text, key)
    mark = "✓" if verdict.reward else "✗"
    if verdict.final_answer is None:
        line = f"Checker: no final answer found → reward {verdict.reward} {mark}"
    else:
        line = (
            f"Checker: final answer {_shown(verdict.final_answer)} → reward {verdict.reward} {mark}"
        )
    if len(text) > MAX_TRACE_CHARS:
        return VersionCheck(
            line,
            f"the {kind} version is {len(text):,} characters long; the limit is "
            f"{MAX_TRACE_CHARS:,}",
        )
    if correct and verdict.reward != 1:
        if verdict.final_answer is None:
            return VersionCheck(
                line,
                "the correct version grades 0: the checker finds no final answer in it (end it "
                f"with a line like “Answer: {_shown(key)}”)",
            )
        return VersionCheck(
            line,
            f"the correct version grades 0: its final answer {_shown(verdict.final_answer)} "
            f"does not match the key {_shown(key)}",
        )
    if not correct and verdict.reward != 0:
        return VersionCheck(
            line,
            f"the wrong version grades 1: its final answer {_shown(verdict.final_answer or '')} "
            f"matches the key {_shown(key)}, so it is not wrong",
        )
    return VersionCheck(line)


@dataclasses.dataclass(frozen=True)
class TraceCheck:
    """Both versions of one trace, checked: the list marks a trace that still needs work."""

    correct: VersionCheck
    wrong: VersionCheck

    @property
    def versions(self) -> tuple[VersionCheck, VersionCheck]:
        """``(correct, wrong)``, in the order the editor shows them."""
        return (self.correct, self.wrong)

    @property
    def problems(self) -> tuple[str, ...]:
        """What keeps this trace from being usable, correct version first; empty when usable."""
        return tuple(check.problem for check in self.versions if check.problem)

    @property
    def advice(self) -> str:
        """The problems as one capitalised line (a tooltip); empty when the trace is usable."""
        return _capitalised("; ".join(self.problems))


def check_trace(correct: str, wrong: str, answer_key: str) -> TraceCheck:
    """Grade both versions of a trace against ``answer_key``."""
    return TraceCheck(
        check_version(correct, answer_key, correct=True),
        check_version(wrong, answer_key, correct=False),
    )


def format_line(text: str, answer_format: str | None) -> str | None:
    """Whether one version follows the problem's answer format, as a verdict line ("Format (a
    final “Answer:” line): yes → 1 ✓"); None when the problem declares no format or the version
    is still empty."""
    if answer_format is None or not text.strip():
        return None
    wanted = describe_format(answer_format)
    if follows_format(text, answer_format):
        return f"Format ({wanted}): yes → 1 ✓"
    return f"Format ({wanted}): no → 0 ✗"


def default_pattern(original: Problem, pass_rate: float, group_size: int) -> tuple[bool, ...]:
    """The default group's correct/wrong pattern for the edited problem.

    The original problem's default group while its group size and pass rate are unchanged; otherwise
    ``round(pass_rate · G)`` correct answers spread evenly, computed by
    :meth:`Problem.default_group`.
    """
    if group_size == original.group_size and pass_rate == original.pass_rate:
        return tuple(bool(r) for r in original.default_rewards)
    # group_size 0 never matches, so default_group computes the spread pattern.
    scratch = dataclasses.replace(original, pass_rate=pass_rate, group_size=0, default_rewards=())
    return scratch.default_group(group_size)


def default_summary(pattern: tuple[bool, ...]) -> str:
    """``"2 of 4 right"``, with the pattern drawn below (``✓ ✗ ✗ ✓``) while it is short."""
    text = f"{sum(pattern)} of {len(pattern)} right"
    if len(pattern) <= _SHOWN_PATTERN_CARDS:
        text += "\n" + " ".join("✓" if r else "✗" for r in pattern)
    return text


@dataclasses.dataclass(frozen=True)
class DraftValidation:
    """Whether a draft is a usable problem: ``problem`` when it is, else ``reason`` in words."""

    problem: Problem | None
    reason: str | None = None

    @property
    def ok(self) -> bool:
        """Whether the draft may be used (the editor's OK button)."""
        return self.problem is not None

    @property
    def message(self) -> str:
        """One sentence for the status line: what is ready, or the first thing to fix."""
        if self.problem is None:
            return self.reason or ""
        return (
            f"Ready: {len(self.problem.traces)} traces, every correct version grades 1 and every "
            "wrong version grades 0."
        )


@dataclasses.dataclass(frozen=True)
class ProblemDraft:
    """The editor's fields as typed, with ``original`` the problem the editor started from.

    Text fields are kept unstripped (the problem strips them); ``shown_pass_rate`` is the pass
    rate box's value, which shows two decimals. ``answer_format`` and ``partials`` (one entry per
    trace, None for no credit; missing entries are None) come last with defaults, so a draft
    built without them describes a problem without them.
    """

    original: Problem
    title: str
    prompt: str
    answer_key: str
    difficulty: str
    shown_pass_rate: float
    group_size: int
    traces: tuple[tuple[str, str], ...]  # (correct, wrong) texts, in list order
    answer_format: str | None = None
    partials: tuple[float | None, ...] = ()

    def partial_for(self, row: int) -> float | None:
        """Trace ``row``'s partial credit, None when it has none."""
        return self.partials[row] if 0 <= row < len(self.partials) else None

    def format_lines(self, row: int) -> tuple[str | None, str | None]:
        """``(correct, wrong)`` versions of trace ``row`` against the answer format (see
        :func:`format_line`)."""
        correct, wrong = self.traces[row]
        return format_line(correct, self.answer_format), format_line(wrong, self.answer_format)

    @property
    def problem_id(self) -> str:
        """The id the problem gets from its title."""
        return problem_id_for(self.title.strip())

    @property
    def pass_rate(self) -> float:
        """The box's value, or the original's exact value while the box still shows it (so an
        untouched 0.375 stays 0.375 rather than becoming the 0.38 the box rounds it to)."""
        value = round(self.shown_pass_rate, 2)
        if value == round(self.original.pass_rate, 2):
            return self.original.pass_rate
        return value

    @property
    def default_group(self) -> tuple[bool, ...]:
        """The default group's correct/wrong pattern (see :func:`default_pattern`)."""
        return default_pattern(self.original, self.pass_rate, self.group_size)

    @functools.cached_property
    def trace_checks(self) -> tuple[TraceCheck, ...]:
        """Each trace's two versions graded against the answer key, in list order."""
        return tuple(check_trace(correct, wrong, self.answer_key) for correct, wrong in self.traces)

    def to_data(self) -> dict[str, Any]:
        """The draft as a problem file's JSON object (``resources/problems/*.json``)."""
        data: dict[str, Any] = {
            "schema": SCHEMA_VERSION,
            "id": self.problem_id,
            "title": self.title.strip(),
            "prompt": self.prompt.strip(),
            "answer_key": self.answer_key.strip(),
        }
        if self.answer_format is not None:
            data["answer_format"] = self.answer_format
        traces: list[dict[str, Any]] = []
        for row, (correct, wrong) in enumerate(self.traces):
            trace: dict[str, Any] = {"correct": correct, "wrong": wrong}
            partial = self.partial_for(row)
            if partial is not None:
                trace["partial"] = partial
            traces.append(trace)
        data.update(
            difficulty=self.difficulty,
            pass_rate=self.pass_rate,
            group_size=self.group_size,
            preset_rewards=[int(r) for r in self.default_group],  # the file's key
            traces=traces,
        )
        return data

    def first_reason(self) -> str | None:
        """The first thing keeping the draft from being a usable problem, in plain words, in the
        order a lecturer fills the dialog in; None when nothing the editor words is wrong."""
        title, prompt = self.title.strip(), self.prompt.strip()
        if not title:
            return "Give the problem a title: the problem chooser lists it by that name."
        if not prompt:
            return "Write the prompt: the question the model answers."
        if len(prompt) > MAX_PROMPT_CHARS:
            return (
                f"Shorten the prompt to at most {MAX_PROMPT_CHARS:,} characters "
                f"({len(prompt):,} now)."
            )
        if not self.answer_key.strip():
            return "Enter the answer key: the checker compares every final answer with it."
        count = len(self.traces)
        if count < MIN_TRACES:
            return (
                f"Add at least {MIN_TRACES} traces ({count} so far): a group of answers needs "
                "samples to draw from."
            )
        for row, trace in enumerate(self.trace_checks):
            if trace.problems:
                return f"Trace {row + 1}: {trace.problems[0]}."
        return None

    def validate(self) -> DraftValidation:
        """The problem the draft describes, or the one reason it is not usable yet.

        :func:`parse_problem` has the last word, so the editor never accepts a problem the app
        would refuse to load; a rule it enforces that :meth:`first_reason` does not word yet is
        reported in its own message.
        """
        reason = self.first_reason()
        if reason is not None:
            return DraftValidation(None, reason)
        try:
            return DraftValidation(parse_problem(self.to_data(), SOURCE))
        except ProblemError as exc:
            return DraftValidation(None, str(exc).removeprefix(f"{SOURCE}: "))
