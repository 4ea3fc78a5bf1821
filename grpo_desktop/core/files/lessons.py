"""Lesson mode data: scripted walk-throughs a lecturer pages through with Page Down / Page Up.

Each lesson lives in ``resources/lessons/<id>.json`` (shipped in the wheel as
``grpo_desktop.resources``). A lesson is a list of steps; each step puts one group on screen (or two
side by side, or one group's update step), says in 1–3 short sentences what to notice, and names
the part of the window to highlight. Step texts never compute numbers: the app computes them from
the step's lab, and ``tests/core/test_lessons.py`` checks that every number a text quotes is what
the lab (or, on an update step, the Update workspace) shows.

File format (schema 1; unknown fields are rejected everywhere)::

    {
      "schema": 1,
      "id": "group-is-baseline",          # a-z, 0-9, '-'; must equal the file name
      "order": 10,                         # lessons are listed by (order, id)
      "title": "The group is the baseline",
      "summary": "One or two sentences for the lesson menu.",
      "steps": [                           # at least 2
        {
          "title": "Par is the group mean",
          "text": "1–3 short sentences; only <b>…</b> and <i>…</i> markup.",
          "lab": {"problem_id": "mult-23x47", "correct": [1, 0, 0, 1], "convention": "textbook"},
          "highlight": "stats",            # one of HIGHLIGHTS
          "view": "reward",                # "advantage" or "reward"
          "hide_advantages": false,        # optional, default false (predict-then-reveal)
          "notes": "Ask the room: …"       # optional: the lecturer's own words, plain text up to
                                           # 800 characters; the presenter console shows them
        },
        {"title": "…", "text": "…", "compare": [{…lab…}, {…lab…}], "highlight": "compare", …},
        {
          "title": "Every token weighs the same",
          "text": "…",
          "lab": {"problem_id": "length-bias-sum", "correct": [1, 0]},
          "workspace": "update",           # optional: "lab" (default), "update" or "compare"
          "update": {"preset": "verl/token-mean", "inner_steps": 0},  # optional, update only
          "highlight": "tokens",           # one of UPDATE_HIGHLIGHTS on an update step
          "view": "advantage"
        }
      ]
    }

A step sets exactly one of ``lab`` and ``compare`` (the other is absent or null). ``correct`` holds
2–64 entries, each ``1``/``0`` or ``true``/``false``; ``convention`` is optional (default
``"textbook"``). Rules that keep the stage unsurprising: every group on screen shares one advantage
convention, so a compare step's two labs name the same one (:attr:`LessonStep.convention`);
``highlight: "compare"`` only on a compare step, and a compare step highlights ``"compare"`` or
``"none"``. Predict, then reveal: a step with ``hide_advantages`` (in either view: the reward view
shows r and par, the advantage view only "?") asks the class to predict its group's advantages, so
no earlier step may show them. Every earlier step that puts the same rewards on screen (in any
order, under any convention: the signs and push counts would be the same) must hide them too
(:func:`predict_spoilers`).

The Update workspace: ``"workspace"`` is optional and defaults to ``"lab"`` for a lab step and
``"compare"`` for a compare step (the only value a compare step may name). A lab step with
``"workspace": "update"`` shows its group's update step: the answers as tokens coloured by their
push, the two presets' push chart, a token's computation and the controls. Its ``"update"`` object
sets :class:`~grpo_desktop.core.update.update_snapshot.UpdateSettings` fields (``preset``,
``compare_preset``, ``eps_low``, ``eps_high``, ``clip_ratio_c``, ``beta``, ``kl_estimator``,
``inner_steps``, ``learning_rate``), checked as a scenario's are; a field left out takes its
default, not the previous step's, so a step looks the same whichever way the lecturer pages. Only
an update step may carry ``"update"``; it highlights one of ``"tokens"``, ``"push-chart"``,
``"token-detail"``, ``"update-controls"`` or ``"none"`` (those four names only on an update step),
and it cannot hide the advantages (every token's colour shows its answer's sign). A lab step after
it returns to the lab and leaves the update settings as they were.

The Training workspace: a step with ``"workspace": "training"`` shows a toy training run (the
Training workspace's charts, learning frontier and controls) instead of a group, so it names
neither ``lab`` nor ``compare``. Its fields::

    {
      "title": "…", "text": "…",
      "workspace": "training",
      "training": {"algorithms": ["grpo", "dapo"], "steps": 200},  # optional TrainingConfig fields
      "training_steps": 150,               # optional, default 0: the run already computed this far
      "metric": "groups_sampled",          # optional, default "degenerate_fraction": a METRICS key
      "focus": "grpo",                     # optional: the algorithm whose problems the dots show
      "highlight": "frontier",             # one of TRAINING_HIGHLIGHTS on a training step
      "view": "advantage"                  # the lab's view, kept for the lab steps around it
    }

``training`` is checked as a scenario's is
(:func:`~grpo_desktop.core.training.run.config_from_dict`);
a field left out takes its default, not the previous step's. A lesson's run has at most
:data:`MAX_TRAINING_STEPS` steps and, up to ``training_steps``, at most
:data:`MAX_TRAINING_ANSWERS` sampled answers (algorithms × seeds × batch × G × steps, DAPO's extra
draws included), so showing a step computes in under a second. ``training_steps`` runs from 0
(nothing learnt yet: predict, then reveal on the next step) to the config's ``steps``. ``focus``
must be one of the run's algorithms (default: GRPO if it runs, else the first). A training step
highlights ``"training-charts"``, ``"frontier"``, ``"training-controls"`` or ``"none"`` (those
three only on a training step) and cannot hide advantages. Showing the step puts the config in
force (not an undoable edit), restarts the run from step 0 and computes ``training_steps`` steps,
so the step looks the same whichever way the lecturer pages; the lab keeps its group for the lab
steps around it. Pure Python, no Qt.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from importlib import resources
from typing import TYPE_CHECKING, Any

from grpo_desktop.core.common.jsonfile import (
    ResourceFileError,
    UnknownResourceError,
    json_type_name,
    read_json_file,
    unsafe_character_problem,
)
from grpo_desktop.core.formulas.advantages import (
    DEFAULT_CONVENTION,
    convention_names,
    get_convention,
)
from grpo_desktop.core.lab.lab_limits import (
    MAX_GROUP_SIZE,
    MIN_GROUP_SIZE,
    VIEWS,
    group_size_problem,
)
from grpo_desktop.core.lab.problems import UnknownProblemError, get_problem
from grpo_desktop.core.training.training_config import (
    METRICS,
    TrainingConfig,
    check_convention,
    config_from_dict,
    run_inputs_from_dict,
)
from grpo_desktop.core.update.update_settings import UpdateSettings, settings_from_dict

if TYPE_CHECKING:  # importlib.resources.abc is 3.11+; 3.10 spells it importlib.abc
    from importlib.resources.abc import Traversable

__all__ = [
    "DEFAULT_METRIC",
    "HIGHLIGHTS",
    "LESSON_WORKSPACES",
    "MAX_FILE_BYTES",
    "MAX_GROUP_SIZE",
    "MAX_TRAINING_ANSWERS",
    "MAX_TRAINING_STEPS",
    "MIN_GROUP_SIZE",
    "MIN_STEPS",
    "SCHEMA_VERSION",
    "TRAINING_HIGHLIGHTS",
    "UPDATE_HIGHLIGHTS",
    "VIEWS",
    "Lesson",
    "LessonError",
    "LessonLab",
    "LessonStep",
    "UnknownLessonError",
    "get_lesson",
    "load_lesson_file",
    "load_lessons",
    "parse_lesson",
    "predict_spoilers",
    "training_answers",
    "training_problem",
]

SCHEMA_VERSION = 1
LAB_WORKSPACE, UPDATE_WORKSPACE, COMPARE_WORKSPACE = "lab", "update", "compare"
TRAINING_WORKSPACE = "training"
#: The workspaces a lesson step can show (core.lab_limits.WORKSPACES, in its order).
LESSON_WORKSPACES = (LAB_WORKSPACE, UPDATE_WORKSPACE, TRAINING_WORKSPACE, COMPARE_WORKSPACE)
#: The parts of the Update workspace an update step can draw the eye to ("none": nothing).
UPDATE_HIGHLIGHTS = ("tokens", "push-chart", "token-detail", "update-controls", "none")
#: The parts of the Training workspace a training step can draw the eye to ("none": nothing).
TRAINING_HIGHLIGHTS = ("training-charts", "frontier", "training-controls", "none")
#: The parts of the window a step can draw the eye to (the Update and Training pages' only on
#: their own steps).
HIGHLIGHTS = (
    "cards",
    "stats",
    "chart",
    "math",
    "banner",
    "ppo",
    "compare",
    *UPDATE_HIGHLIGHTS[:-1],
    *TRAINING_HIGHLIGHTS[:-1],
    "none",
)
#: A lesson's training run is short: showing its step computes at once.
MAX_TRAINING_STEPS = 400
#: Answers a training step may sample before it is shown (algorithms × seeds × batch × G × steps,
#: DAPO counted at its most draws). The toy run costs about a microsecond per answer, so this
#: keeps the worst step under a second; the shipped lessons' steps sample far fewer.
MAX_TRAINING_ANSWERS = 800_000
#: The second chart's metric when a training step names none (the Training workspace's default).
DEFAULT_METRIC = "degenerate_fraction"
_UPDATE_ONLY = frozenset(UPDATE_HIGHLIGHTS) - {"none"}
_TRAINING_ONLY = frozenset(TRAINING_HIGHLIGHTS) - {"none"}
MIN_STEPS = 2
MAX_STEPS = 60
#: A lesson file is a few KB; anything past this is a mistake, not a lesson.
MAX_FILE_BYTES = 1_000_000

_ID_RE = re.compile(r"[a-z0-9-]+")
_MAX_ID_CHARS = 64
_MAX_TITLE_CHARS = 80
_MAX_SUMMARY_CHARS = 400
_MAX_STEP_TITLE_CHARS = 60
_MAX_TEXT_CHARS = 400
_MAX_SENTENCES = 3
_ALLOWED_TAGS = ("b", "i")
_TAG_RE = re.compile(r"<(/?)([^<>]*)>")
# A sentence ends at . ! or ? followed by white space or the end (so 0.5 and 1e-4 do not count).
_SENTENCE_END_RE = re.compile(r"[.!?][\"'”’)]*(?:\s+|$)")

_LESSON_FIELDS = ("schema", "id", "order", "title", "summary", "steps")
_STEP_REQUIRED = ("title", "text", "highlight", "view")
_STEP_FIELDS = (
    *_STEP_REQUIRED,
    "lab",
    "compare",
    "hide_advantages",
    "workspace",
    "update",
    "training",
    "training_steps",
    "metric",
    "focus",
    "notes",
)
_MAX_NOTES_CHARS = 800
_LAB_REQUIRED = ("problem_id", "correct")
_LAB_FIELDS = (*_LAB_REQUIRED, "convention")


class LessonError(ResourceFileError):
    """A lesson file or id is unusable; the message names the file and the field."""


class UnknownLessonError(LessonError, UnknownResourceError):
    """No lesson has this id (also a ``KeyError``, for dict-like callers)."""


@dataclass(frozen=True)
class LessonLab:
    """One group on screen: a shipped problem, which cards are correct, and the convention."""

    problem_id: str
    correct: tuple[bool, ...]
    convention: str = DEFAULT_CONVENTION

    @property
    def rewards(self) -> tuple[int, ...]:
        """The checker's rewards, 1 for a correct card and 0 for a wrong one."""
        return tuple(int(flag) for flag in self.correct)


@dataclass(frozen=True)
class LessonStep:
    """One page of a lesson: what is on screen and what to notice about it."""

    title: str
    text: str  # 1–3 short sentences; may contain <b>…</b> and <i>…</i> only
    lab: LessonLab | None  # the one group on screen, or None for a compare or training step
    compare: tuple[LessonLab, LessonLab] | None  # (easy, hard) side by side, or None
    highlight: str  # one of HIGHLIGHTS
    view: str  # one of VIEWS
    hide_advantages: bool = False  # predict-then-reveal: opens hidden until the lecturer reveals
    # "lab", "update", "training" or "compare"; None (the default) becomes "compare" for a compare
    # step, "training" for a step with neither a lab nor a comparison, and "lab" otherwise.
    workspace: str | None = None
    # The Update workspace's settings on an update step (defaults when the file names none);
    # None on every other step, which leaves the settings as they are.
    update: UpdateSettings | None = None
    # A training step's run (defaults when the file names none), how many of its steps are shown
    # already computed, the second chart's metric and the algorithm the frontier's dots follow;
    # None, 0, None, None on every other step.
    training: TrainingConfig | None = None
    training_steps: int = 0
    metric: str | None = None
    focus: str | None = None
    # A training step's run is given this convention for GRPO's and DAPO's advantages (the
    # file's ``training.convention``); a step with groups takes its labs' convention instead.
    training_convention: str = "textbook"
    #: The lecturer's own words for the step (the presenter console shows them, the room never
    #: does): what to ask the room, what to point at; plain text, "" when the file has none.
    notes: str = ""

    def __post_init__(self) -> None:
        # Every group on screen shares one advantage convention; parse_lesson words this for a
        # file, this guards steps built in code so `convention` can never pick one of two.
        if self.compare is not None and self.compare[0].convention != self.compare[1].convention:
            raise ValueError(
                "a compare step's labs must share one convention, got "
                f"{self.compare[0].convention!r} and {self.compare[1].convention!r}"
            )
        if self.compare is not None and self.lab is not None:
            raise ValueError("a step shows a lab or a comparison, not both")
        if self.compare is not None:
            default, allowed = COMPARE_WORKSPACE, (COMPARE_WORKSPACE,)
            kind = "a compare step"
        elif self.lab is not None:
            default, allowed = LAB_WORKSPACE, (LAB_WORKSPACE, UPDATE_WORKSPACE)
            kind = "a lab step"
        else:
            default, allowed = TRAINING_WORKSPACE, (TRAINING_WORKSPACE,)
            kind = "a step without a lab"
        workspace = default if self.workspace is None else self.workspace
        if workspace not in allowed:
            raise ValueError(
                f"{kind}'s workspace must be one of {list(allowed)}, got {workspace!r}"
            )
        object.__setattr__(self, "workspace", workspace)
        if workspace == UPDATE_WORKSPACE:
            if self.update is None:
                object.__setattr__(self, "update", UpdateSettings())
            if self.hide_advantages:
                raise ValueError("an update step cannot hide the advantages")
        elif self.update is not None:
            raise ValueError("only an update step sets update settings")
        if workspace == TRAINING_WORKSPACE:
            self._settle_training()
        elif (self.training, self.training_steps, self.metric, self.focus) != (None, 0, None, None):
            raise ValueError("only a training step sets training, training_steps, metric or focus")

    def _settle_training(self) -> None:
        """A training step's defaults filled in, and its run checked: small, and its names real."""
        config = TrainingConfig() if self.training is None else self.training
        object.__setattr__(self, "training", config)
        check_convention(self.training_convention)
        if self.hide_advantages:
            raise ValueError("a training step cannot hide the advantages (it shows no group)")
        problem = training_problem(config, self.training_steps)
        if problem is not None:
            raise ValueError(problem)
        metric = DEFAULT_METRIC if self.metric is None else self.metric
        if metric not in METRICS:
            raise ValueError(f"unknown metric {metric!r}; choose from: {', '.join(METRICS)}")
        object.__setattr__(self, "metric", metric)
        focus = self.focus
        if focus is None:
            focus = "grpo" if "grpo" in config.algorithms else config.algorithms[0]
        if focus not in config.algorithms:
            raise ValueError(
                f"focus must be one of the run's algorithms ({', '.join(config.algorithms)}), "
                f"got {focus!r}"
            )
        object.__setattr__(self, "focus", focus)

    @property
    def is_update(self) -> bool:
        """The step shows its group's update step (the Update workspace)."""
        return self.workspace == UPDATE_WORKSPACE

    @property
    def is_training(self) -> bool:
        """The step shows a training run (the Training workspace) and no group."""
        return self.workspace == TRAINING_WORKSPACE

    @property
    def labs(self) -> tuple[LessonLab, ...]:
        """The groups on screen: ``(lab,)``, the two compared labs, or none on a training step."""
        if self.compare is not None:
            return self.compare
        return () if self.lab is None else (self.lab,)

    @property
    def convention(self) -> str:
        """The step's one advantage convention: its lab's, the one both compared labs share, or
        on a training step the convention the run's GRPO and DAPO use."""
        if self.training is not None:
            return self.training_convention
        return self.labs[0].convention


def training_answers(config: TrainingConfig, steps: int) -> int:
    """How many answers ``steps`` steps of ``config`` sample (DAPO at its most draws)."""
    per_step = sum(
        config.batch * (config.dapo_max_draws if name == "dapo" else 1)
        for name in config.algorithms
    )
    return per_step * config.seeds * config.group_size * steps


def training_problem(config: TrainingConfig, training_steps: int) -> str | None:
    """Why a lesson cannot show ``config`` at ``training_steps`` steps, or None if it can."""
    if config.steps > MAX_TRAINING_STEPS:
        return (
            f"a lesson's run has at most {MAX_TRAINING_STEPS} steps (it computes when the step "
            f"is shown), got {config.steps}"
        )
    if isinstance(training_steps, bool) or not isinstance(training_steps, int):
        return f"training_steps must be a whole number, got {training_steps!r}"
    if not 0 <= training_steps <= config.steps:
        return (
            f"training_steps must be from 0 to the run's {config.steps} steps, got {training_steps}"
        )
    answers = training_answers(config, training_steps)
    if answers > MAX_TRAINING_ANSWERS:
        return (
            f"the run samples {answers:,} answers before the step shows, at most "
            f"{MAX_TRAINING_ANSWERS:,}: fewer seeds, algorithms, steps, a smaller batch or G"
        )
    return None


@dataclass(frozen=True)
class Lesson:
    """A titled sequence of at least two steps; ``order`` decides its place in the menu."""

    id: str
    title: str
    summary: str
    steps: tuple[LessonStep, ...]
    order: int = 0


# --- validation helpers --------------------------------------------------------------------------


_fail = LessonError.for_field


def _check_keys(
    data: Mapping[str, Any],
    source: str,
    field: str,
    required: tuple[str, ...],
    allowed: tuple[str, ...],
) -> None:
    prefix = f"{field}." if field else ""
    for key in required:
        if key not in data:
            raise _fail(source, prefix + key, "is missing")
    unknown = sorted(set(data) - set(allowed))
    if unknown:
        where = f"field '{field}' has" if field else "the lesson has"
        raise LessonError(f"{source}: {where} unknown field(s) {unknown}; allowed: {list(allowed)}")


def _string(value: object, source: str, field: str, max_chars: int, multiline: bool = False) -> str:
    if not isinstance(value, str) or not value.strip():
        raise _fail(source, field, f"must be a non-empty string, got {json_type_name(value)}")
    if len(value) > max_chars:
        raise _fail(source, field, f"must be at most {max_chars} characters, got {len(value)}")
    problem = unsafe_character_problem(value, multiline)  # no U+202E or other control characters
    if problem is not None:
        raise _fail(source, field, problem)
    return value


def _integer(value: object, source: str, field: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise _fail(source, field, f"must be an integer, got {json_type_name(value)}")
    return value


def _choice(value: object, source: str, field: str, choices: tuple[str, ...]) -> str:
    if not isinstance(value, str) or value not in choices:
        raise _fail(source, field, f"must be one of {list(choices)}, got {value!r}")
    return value


def _check_markup(text: str, source: str, field: str) -> None:
    """Only <b>…</b> and <i>…</i>, properly nested; no other tag and no stray '<' or '>'."""
    open_tags: list[str] = []
    for match in _TAG_RE.finditer(text):
        closing, name = match.group(1) == "/", match.group(2)
        if name not in _ALLOWED_TAGS:
            raise _fail(source, field, f"may only use <b> and <i> markup, got {match.group(0)!r}")
        if not closing:
            open_tags.append(name)
        elif not open_tags or open_tags.pop() != name:
            raise _fail(source, field, f"has a mismatched {match.group(0)!r}")
    if open_tags:
        raise _fail(source, field, f"leaves <{open_tags[-1]}> unclosed")
    bare = _TAG_RE.sub("", text)
    if "<" in bare or ">" in bare:
        raise _fail(source, field, "has a stray '<' or '>' (write it as ≤, ≥ or in words)")


def _text(value: object, source: str, field: str) -> str:
    text = _string(value, source, field, _MAX_TEXT_CHARS, multiline=True)
    _check_markup(text, source, field)
    sentences = len(_SENTENCE_END_RE.findall(_TAG_RE.sub("", text).strip()))
    if sentences > _MAX_SENTENCES:
        raise _fail(
            source, field, f"must be 1 to {_MAX_SENTENCES} short sentences, got {sentences}"
        )
    return text


def _parse_lab(value: object, source: str, field: str) -> LessonLab:
    if not isinstance(value, dict):
        raise _fail(source, field, f"must be an object, got {json_type_name(value)}")
    _check_keys(value, source, field, _LAB_REQUIRED, _LAB_FIELDS)

    problem_id = _string(value["problem_id"], source, f"{field}.problem_id", _MAX_ID_CHARS)
    try:
        get_problem(problem_id)
    except UnknownProblemError as exc:
        raise _fail(source, f"{field}.problem_id", f"names no shipped problem: {exc}") from None

    correct = value["correct"]
    name = f"{field}.correct"
    if not isinstance(correct, list):
        raise _fail(source, name, f"must be a list, got {json_type_name(correct)}")
    size_problem = group_size_problem(len(correct))
    if size_problem is not None:
        raise _fail(source, name, f"must have one entry per answer: the group size {size_problem}")
    for index, flag in enumerate(correct):
        if not (isinstance(flag, bool) or (isinstance(flag, int) and flag in (0, 1))):
            raise _fail(source, f"{name}[{index}]", f"must be 1, 0, true or false, got {flag!r}")

    convention = _choice(
        value.get("convention", DEFAULT_CONVENTION),
        source,
        f"{field}.convention",
        convention_names(),
    )
    needed = get_convention(convention).min_group_size
    if len(correct) < needed:  # every convention today is defined for G >= 2; keep the guard
        raise _fail(source, name, f"needs at least {needed} entries for {convention!r}")
    return LessonLab(
        problem_id=problem_id,
        correct=tuple(bool(flag) for flag in correct),
        convention=convention,
    )


def _parse_step(value: object, source: str, field: str) -> LessonStep:
    if not isinstance(value, dict):
        raise _fail(source, field, f"must be an object, got {json_type_name(value)}")
    _check_keys(value, source, field, _STEP_REQUIRED, _STEP_FIELDS)
    notes = ""
    if "notes" in value:
        notes = _string(value["notes"], source, f"{field}.notes", _MAX_NOTES_CHARS, multiline=True)
    return replace(_parse_step_body(value, source, field), notes=notes)


def _parse_step_body(value: dict, source: str, field: str) -> LessonStep:
    title = _string(value["title"], source, f"{field}.title", _MAX_STEP_TITLE_CHARS)
    text = _text(value["text"], source, f"{field}.text")

    raw_lab, raw_compare = value.get("lab"), value.get("compare")
    if value.get("workspace") == TRAINING_WORKSPACE:
        return _parse_training_step(value, title, text, source, field)
    if (raw_lab is None) == (raw_compare is None):
        state = "both are set" if raw_lab is not None else "neither is set"
        raise _fail(source, f"{field}.lab", f"or '{field}.compare' must be set, not both ({state})")
    lab: LessonLab | None = None
    compare: tuple[LessonLab, LessonLab] | None = None
    if raw_lab is not None:
        lab = _parse_lab(raw_lab, source, f"{field}.lab")
    else:
        if not isinstance(raw_compare, list) or len(raw_compare) != 2:
            got = (
                f"{len(raw_compare)} entries"
                if isinstance(raw_compare, list)
                else (json_type_name(raw_compare))
            )
            raise _fail(source, f"{field}.compare", f"must be a list of exactly 2 labs, got {got}")
        compare = (
            _parse_lab(raw_compare[0], source, f"{field}.compare[0]"),
            _parse_lab(raw_compare[1], source, f"{field}.compare[1]"),
        )
        first, second = (lab.convention for lab in compare)
        if first != second:  # every group on screen shares one advantage convention
            raise _fail(
                source,
                f"{field}.compare[1].convention",
                f"must be the same as '{field}.compare[0].convention' ({first!r}), got "
                f"{second!r}: both groups of a compare step share one advantage convention",
            )

    workspace = _parse_workspace(value.get("workspace"), compare is not None, source, field)
    update = _parse_update(value.get("update"), workspace, source, field)
    for key in ("training", "training_steps", "metric", "focus"):
        if key in value:
            raise _fail(
                source,
                f"{field}.{key}",
                'is allowed only on a training step ("workspace": "training")',
            )

    highlight = _choice(value["highlight"], source, f"{field}.highlight", HIGHLIGHTS)
    if compare is None and highlight == "compare":
        raise _fail(source, f"{field}.highlight", "can be 'compare' only on a compare step")
    if compare is not None and highlight not in ("compare", "none"):
        raise _fail(
            source,
            f"{field}.highlight",
            f"must be 'compare' or 'none' on a compare step, got {highlight!r}",
        )
    if workspace == UPDATE_WORKSPACE and highlight not in UPDATE_HIGHLIGHTS:
        raise _fail(
            source,
            f"{field}.highlight",
            f"must be one of {list(UPDATE_HIGHLIGHTS)} on an update step (the lab is not on "
            f"screen), got {highlight!r}",
        )
    if workspace != UPDATE_WORKSPACE and highlight in _UPDATE_ONLY:
        raise _fail(
            source,
            f"{field}.highlight",
            f'can be {highlight!r} only on an update step ("workspace": "update")',
        )
    if highlight in _TRAINING_ONLY:
        raise _fail(
            source,
            f"{field}.highlight",
            f'can be {highlight!r} only on a training step ("workspace": "training")',
        )
    view = _choice(value["view"], source, f"{field}.view", VIEWS)

    hide = value.get("hide_advantages", False)
    if not isinstance(hide, bool):
        raise _fail(
            source, f"{field}.hide_advantages", f"must be true or false, got {json_type_name(hide)}"
        )
    if hide and workspace == UPDATE_WORKSPACE:
        raise _fail(
            source,
            f"{field}.hide_advantages",
            "must be false on an update step: every token's colour shows its answer's sign",
        )
    return LessonStep(
        title=title,
        text=text,
        lab=lab,
        compare=compare,
        highlight=highlight,
        view=view,
        hide_advantages=hide,
        workspace=workspace,
        update=update,
    )


def _parse_training_step(
    value: dict[str, Any], title: str, text: str, source: str, field: str
) -> LessonStep:
    """A step that shows a training run: its config, how far it has run, metric and focus."""
    for key in ("lab", "compare", "update"):
        if value.get(key) is not None:
            raise _fail(
                source,
                f"{field}.{key}",
                "must be left out on a training step: it shows a training run, not a group",
            )
    highlight = _choice(value["highlight"], source, f"{field}.highlight", HIGHLIGHTS)
    if highlight not in TRAINING_HIGHLIGHTS:
        raise _fail(
            source,
            f"{field}.highlight",
            f"must be one of {list(TRAINING_HIGHLIGHTS)} on a training step (the lab is not on "
            f"screen), got {highlight!r}",
        )
    view = _choice(value["view"], source, f"{field}.view", VIEWS)
    if value.get("hide_advantages", False) is not False:
        raise _fail(
            source,
            f"{field}.hide_advantages",
            "must be false on a training step: it shows no group's advantages (predict, then "
            "reveal with a step at training_steps 0 and the next one further on)",
        )

    name = f"{field}.training"
    raw = value.get("training")
    convention = None
    if raw is None:
        config = TrainingConfig()
    elif not isinstance(raw, dict):
        raise _fail(source, name, f"must be an object, got {json_type_name(raw)}")
    else:
        try:
            config = config_from_dict(raw)
            convention = run_inputs_from_dict(raw)[0]
        except (ValueError, TypeError) as exc:
            raise _fail(source, name, f"is not usable: {exc}") from None
    if config.steps > MAX_TRAINING_STEPS:
        raise _fail(
            source,
            f"{name}.steps",
            f"must be at most {MAX_TRAINING_STEPS} in a lesson (the run computes when the step "
            f"is shown), got {config.steps}",
        )

    steps = _integer(value.get("training_steps", 0), source, f"{field}.training_steps")
    if not 0 <= steps <= config.steps:
        raise _fail(
            source,
            f"{field}.training_steps",
            f"must be from 0 to the run's {config.steps} steps, got {steps}",
        )
    metric = _choice(value.get("metric", DEFAULT_METRIC), source, f"{field}.metric", tuple(METRICS))
    focus = value.get("focus")
    if focus is not None:
        focus = _choice(focus, source, f"{field}.focus", config.algorithms)
    problem = training_problem(config, steps)
    if problem is not None:  # too much to compute when the step is shown
        raise _fail(source, name, f"is too large for a lesson: {problem}")
    return LessonStep(
        title=title,
        text=text,
        lab=None,
        compare=None,
        highlight=highlight,
        view=view,
        workspace=TRAINING_WORKSPACE,
        training=config,
        training_steps=steps,
        metric=metric,
        focus=focus,
        training_convention="textbook" if convention is None else convention,
    )


def _parse_workspace(value: object, is_compare: bool, source: str, field: str) -> str:
    """The step's workspace: the lab by default, compare for a compare step (and only that)."""
    name = f"{field}.workspace"
    if value is None:
        return COMPARE_WORKSPACE if is_compare else LAB_WORKSPACE
    workspace = _choice(value, source, name, LESSON_WORKSPACES)
    if is_compare and workspace != COMPARE_WORKSPACE:
        raise _fail(source, name, f"must be 'compare' on a compare step, got {workspace!r}")
    if not is_compare and workspace == COMPARE_WORKSPACE:
        raise _fail(
            source, name, "can be 'compare' only on a compare step (one with 'compare' labs)"
        )
    return workspace


def _parse_update(value: object, workspace: str, source: str, field: str) -> UpdateSettings | None:
    """An update step's settings (each field checked as a scenario's is); None elsewhere."""
    name = f"{field}.update"
    if workspace != UPDATE_WORKSPACE:
        if value is not None:
            raise _fail(source, name, 'is allowed only on an update step ("workspace": "update")')
        return None
    if value is None:
        return UpdateSettings()
    if not isinstance(value, dict):
        raise _fail(source, name, f"must be an object, got {json_type_name(value)}")
    try:
        return settings_from_dict(value)
    except (ValueError, TypeError) as exc:
        raise _fail(source, name, f"is not usable: {exc}") from None


def _same_rewards(first: LessonLab, second: LessonLab) -> bool:
    """The same rewards in any order: the same advantages, push counts and signs on screen."""
    return sorted(first.rewards) == sorted(second.rewards)


def predict_spoilers(steps: tuple[LessonStep, ...]) -> list[tuple[int, int]]:
    """(earlier, predict) step indices where the earlier step shows what the later one hides.

    A step that hides the advantages asks the class to predict them; any earlier step that shows
    the advantages of the same rewards (with ``hide_advantages`` off) gives the answer away.
    """
    spoilers = []
    for index, step in enumerate(steps):
        if not step.hide_advantages:
            continue
        for earlier in range(index):
            before = steps[earlier]
            if not before.hide_advantages and any(
                _same_rewards(shown, hidden) for shown in before.labs for hidden in step.labs
            ):
                spoilers.append((earlier, index))
    return spoilers


def _check_predictions(steps: tuple[LessonStep, ...], source: str) -> None:
    for earlier, index in predict_spoilers(steps):
        rewards = ", ".join(str(r) for r in steps[index].labs[0].rewards)
        raise _fail(
            source,
            f"steps[{earlier}].hide_advantages",
            f"must be true: step {earlier + 1} would show the advantages of rewards {rewards} "
            f"before step {index + 1} asks the class to predict them (predict, then reveal)",
        )


# --- public API ----------------------------------------------------------------------------------


def parse_lesson(data: object, source: str) -> Lesson:
    """Validate decoded JSON and build a :class:`Lesson`; ``source`` names it in error messages.

    Checks every field's type and range, rejects unknown fields, and checks that each lab's problem
    is shipped, its convention exists and a compare step's two labs share one convention, so a
    broken lesson fails at load time, not on stage.
    """
    if not isinstance(data, dict):
        raise LessonError(
            f"{source}: the top level must be a JSON object, got {json_type_name(data)}"
        )
    if "schema" not in data:
        raise _fail(source, "schema", "is missing")
    schema = _integer(data["schema"], source, "schema")
    if schema != SCHEMA_VERSION:
        raise _fail(
            source,
            "schema",
            f"is version {schema}, which this app does not know (it reads {SCHEMA_VERSION})",
        )
    _check_keys(data, source, "", _LESSON_FIELDS, _LESSON_FIELDS)

    lesson_id = _string(data["id"], source, "id", _MAX_ID_CHARS)
    if not _ID_RE.fullmatch(lesson_id):
        raise _fail(source, "id", f"must use only a-z, 0-9 and '-', got {lesson_id!r}")
    order = _integer(data["order"], source, "order")
    title = _string(data["title"], source, "title", _MAX_TITLE_CHARS)
    summary = _string(data["summary"], source, "summary", _MAX_SUMMARY_CHARS, multiline=True)

    steps = data["steps"]
    if not isinstance(steps, list):
        raise _fail(source, "steps", f"must be a list, got {json_type_name(steps)}")
    if not MIN_STEPS <= len(steps) <= MAX_STEPS:
        raise _fail(
            source, "steps", f"must hold {MIN_STEPS} to {MAX_STEPS} steps, got {len(steps)}"
        )
    parsed = tuple(_parse_step(step, source, f"steps[{i}]") for i, step in enumerate(steps))
    _check_predictions(parsed, source)  # no step shows what a later step asks to predict
    return Lesson(id=lesson_id, title=title, summary=summary, steps=parsed, order=order)


def load_lesson_file(path: str | os.PathLike[str] | Traversable) -> Lesson:
    """Read and validate one lesson file (UTF-8 JSON, at most :data:`MAX_FILE_BYTES`).

    The lesson's ``id`` must equal the file name without ``.json``, so ids stay findable.
    """
    data, source = read_json_file(path, LessonError, MAX_FILE_BYTES)
    lesson = parse_lesson(data, source)
    stem = source[: -len(".json")] if source.endswith(".json") else source
    if lesson.id != stem:
        raise _fail(source, "id", f"must match the file name ({stem!r}), got {lesson.id!r}")
    return lesson


@functools.cache
def load_lessons() -> tuple[Lesson, ...]:
    """All shipped lessons, sorted by their ``order`` field, then by id (cached)."""
    folder = resources.files("grpo_desktop.resources").joinpath("lessons")
    try:
        entries = [entry for entry in folder.iterdir() if entry.name.endswith(".json")]
    except OSError as exc:  # e.g. a wheel built without lessons/*.json in its package-data
        raise LessonError(
            f"lessons: cannot list the shipped lessons folder ({exc.strerror or exc})"
        ) from exc
    lessons = [load_lesson_file(entry) for entry in sorted(entries, key=lambda e: e.name)]
    return tuple(sorted(lessons, key=lambda lesson: (lesson.order, lesson.id)))


@functools.cache
def _lessons_by_id() -> dict[str, Lesson]:
    return {lesson.id: lesson for lesson in load_lessons()}


def get_lesson(lesson_id: str) -> Lesson:
    """The shipped lesson with this id; :class:`UnknownLessonError` lists the valid ids."""
    try:
        return _lessons_by_id()[lesson_id]
    except KeyError:
        valid = (lesson.id for lesson in load_lessons())
        raise UnknownLessonError.for_id("lesson", lesson_id, valid) from None
