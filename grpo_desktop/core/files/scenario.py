"""A lecturer's prepared lab, saved as a ``.grpo.json`` file and loaded back exactly.

Pure Python, no Qt (the import-linter contracts in ``pyproject.toml`` hold every module of
``grpo_desktop.core`` to that).

File format (UTF-8 JSON, at most :data:`MAX_SCENARIO_BYTES`), schema 1::

    {
      "format": "grpo-desktop-scenario",
      "schema": 1,
      "title": "Week 3: why the lone right answer gets +2",
      "problem": {"id": "mult-23x47"},
      "group_size": 4,
      "correct": [true, false, false, true],
      "convention": "textbook",
      "view": "advantage",
      "sample_seed": null
    }

- ``format`` (required): always ``"grpo-desktop-scenario"``.
- ``schema`` (required): ``1``. A larger number means a newer app wrote the file; it is refused
  with a message saying so rather than half-read.
- ``title`` (optional, default ``""``): a note of at most 200 characters for the title/status bar.
- ``problem`` (required): exactly one of ``{"id": "<shipped problem id>"}`` or
  ``{"inline": {...}}``, where the inline object is a full problem dict exactly as in
  ``resources/problems/*.json`` (validated by :func:`grpo_desktop.core.lab.problems.parse_problem`,
  so every correct trace must grade 1 and every wrong one 0). A problem that is not shipped is
  always saved inline; an inline problem may repeat a shipped id only with exactly the shipped
  content (it then loads as the shipped problem), never to change it.
- ``group_size`` (required): an integer from 2 to 64 (``true`` is not an integer).
- ``correct`` (required): ``group_size`` booleans, card 1 first (``true`` = reward 1).
- ``convention`` (required): one of :func:`grpo_desktop.core.convention_names`.
- ``view`` (required): ``"advantage"`` or ``"reward"``.
- ``sample_seed`` (optional, default ``null``): the seed that drew the group, or ``null`` when the
  group was set by hand; a non-negative integer below 2**64.
- ``workspace`` (optional, default ``"lab"``): the workspace the scenario opens on, ``"lab"``,
  ``"update"`` or ``"compare"``. Written only when it is not the lab.
- ``update`` (optional, default the app's defaults): the Update workspace's settings, an object
  with any of ``preset``, ``compare_preset``, ``eps_low``, ``eps_high``, ``clip_ratio_c``,
  ``beta``, ``kl_estimator``, ``inner_steps``, ``learning_rate`` (checked as the app checks them).
  Written only when they differ from the defaults, so a plain lab saves as it always did.
- ``training`` (optional, default the app's defaults): the Training workspace's run, an object
  with any of the fields of :class:`~grpo_desktop.core.training.run.TrainingConfig` (``algorithms``
  and ``problem_ids`` as lists of names). Written only when they differ from the defaults.
  It may also name ``convention`` (refused unless it is the scenario's: the run is given the
  scenario's one convention) and ``reward_weights`` (checked; the run is given the lab's).
- ``policy`` (optional, default ``{"kind": "toy"}``): the policy the workspaces teach on,
  ``{"kind": "toy"}`` or ``{"kind": "tinylm"}``, the latter with an optional ``checkpoint`` (a
  path to a checkpoint ``grpo-desktop lm train --save`` wrote; left out: the shipped one).
  Written only for the tiny model.
- ``lm_training`` (optional, default the app's defaults): the tiny model's GRPO run, an object
  with any of the fields of :class:`~grpo_desktop.core.tinylm.grpo_config.LMTrainingConfig` but
  ``convention`` and ``reward_weights`` (the run takes the scenario's). Written only when they
  differ from the defaults.
- ``reward_weights`` (optional, default accuracy 1, format 0, partial 0): the weight of each of
  the lab's reward functions, ``{"accuracy": 1, "format": 0.5, "partial": 0}``. Written only when
  it differs from the default.
- ``scores`` (optional, default ``null``): continuous mode, one hand-set reward per card (finite
  numbers from −100 to 100). Written only in continuous mode.
- ``problem`` may also be ``{"recorded": {...}}``: a real run's group (its prompt, answers as the
  model wrote them, logged rewards and reward functions; see
  :func:`grpo_desktop.core.lab.reward_fields.recorded_from_dict`), which a lecturer prepared from a
  rollout file the night before.

Anything else is refused: unknown fields, duplicate keys, ``NaN``/``Infinity``, numbers too large
for a float, nesting too deep to decode. Every refusal is a :class:`ScenarioError` whose message is
one sentence naming the file and the field, e.g.
``lesson.grpo.json: field 'correct' must have 4 entries (group_size is 4), got 3``.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from grpo_desktop.core.common.atomic import write_text_atomically
from grpo_desktop.core.common.jsonfile import (
    NotARegularFileError,
    check_regular_file,
    json_type_name,
    read_regular_file,
    unsafe_character_problem,
)
from grpo_desktop.core.formulas.advantages import convention_names
from grpo_desktop.core.lab.lab_limits import VIEWS, WORKSPACES, group_size_problem
from grpo_desktop.core.lab.lab_memento import LabMemento
from grpo_desktop.core.lab.lab_rewards import RewardWeights
from grpo_desktop.core.lab.problems import (
    Problem,
    ProblemError,
    UnknownProblemError,
    get_problem,
    parse_problem,
    problem_to_dict,
    shipped_problem_ids,
)
from grpo_desktop.core.lab.recorded_group import RecordedGroup, reward_magnitude_problem
from grpo_desktop.core.lab.reward_fields import (
    recorded_from_dict,
    recorded_to_dict,
    scores_from_list,
    weights_from_dict,
    weights_to_dict,
)
from grpo_desktop.core.tinylm.grpo_config import (
    LMTrainingConfig,
    check_lm_config,
    lm_config_from_dict,
    lm_config_to_dict,
)
from grpo_desktop.core.training.policy_choice import PolicyChoice, policy_from_dict
from grpo_desktop.core.training.training_config import (
    TrainingConfig,
    check_training_config,
    config_from_dict,
)
from grpo_desktop.core.update.update_settings import (
    UpdateSettings,
    check_update_settings,
    settings_from_dict,
)

__all__ = [
    "MAX_SCENARIO_BYTES",
    "MAX_TITLE_CHARS",
    "SCENARIO_FORMAT",
    "SCENARIO_SCHEMA",
    "SCENARIO_SUFFIX",
    "VIEWS",
    "Scenario",
    "ScenarioError",
    "is_custom_problem",
    "load_scenario",
    "parse_scenario",
    "problem_to_dict",
    "save_scenario",
    "scenario_to_json",
]

SCENARIO_SUFFIX = ".grpo.json"
SCENARIO_FORMAT = "grpo-desktop-scenario"
SCENARIO_SCHEMA = 1
#: A scenario is a few KB; one holding a run's group (64 answers cut at 20,000 characters each)
#: fits in a few MB. Anything past this is a mistake or an attack.
MAX_SCENARIO_BYTES = 8_000_000
MAX_TITLE_CHARS = 200
_MAX_SEED = 2**64 - 1

_REQUIRED = ("format", "schema", "problem", "group_size", "correct", "convention", "view")
_WRITTEN_WHEN_SET = (
    "workspace",
    "update",
    "training",
    "policy",
    "lm_training",
    "reward_weights",
    "scores",
)
#: Field order in saved files (and in the "allowed" list of error messages).
_FIELDS = (
    "format",
    "schema",
    "title",
    "problem",
    "group_size",
    "correct",
    "convention",
    "view",
    "sample_seed",
    "workspace",
    "update",
    "training",
    "policy",
    "lm_training",
    "reward_weights",
    "scores",
)
_DEFAULT_UPDATE = UpdateSettings()
_DEFAULT_WEIGHTS = RewardWeights()
_DEFAULT_TRAINING = TrainingConfig()
_DEFAULT_POLICY = PolicyChoice()
_DEFAULT_LM_TRAINING = LMTrainingConfig()
_SHORT_CHARS = 40


class ScenarioError(ValueError):
    """A scenario file is unusable; the message is one sentence naming the file and the field."""


# --- the scenario ---------------------------------------------------------------------------


def is_custom_problem(problem: Problem) -> bool:
    """True when ``problem`` is not shipped, or differs from the shipped problem with its id."""
    try:
        shipped = get_problem(problem.id)
    except UnknownProblemError:
        return True
    return shipped != problem


@dataclass(frozen=True)
class Scenario:
    """Everything a prepared lab restores: the lab state (see ``LabMemento``) plus view and note.

    Construction validates every field (a ``ValueError`` for a programming mistake), so any
    ``Scenario`` can be saved. ``custom_problem`` must equal :func:`is_custom_problem` of the
    problem; :meth:`from_memento` and :func:`parse_scenario` compute it for you.
    """

    problem: Problem
    custom_problem: bool
    correct: tuple[bool, ...]
    convention: str
    view: str
    sample_seed: int | None
    title: str = ""
    workspace: str = "lab"
    update: UpdateSettings = _DEFAULT_UPDATE
    training: TrainingConfig = _DEFAULT_TRAINING
    weights: RewardWeights = _DEFAULT_WEIGHTS
    policy: PolicyChoice = _DEFAULT_POLICY
    lm_training: LMTrainingConfig = _DEFAULT_LM_TRAINING
    scores: tuple[float, ...] | None = None  # continuous mode: the hand-set rewards
    recorded: RecordedGroup | None = None  # a real run's group (its problem is derived from it)

    def __post_init__(self) -> None:
        if not isinstance(self.problem, Problem):
            raise ValueError(f"problem must be a Problem, got {type(self.problem).__name__}")
        if not isinstance(self.correct, tuple) or not all(
            isinstance(flag, bool) for flag in self.correct
        ):
            raise ValueError("correct must be a tuple of bools")
        size_problem = group_size_problem(len(self.correct))
        if size_problem is not None:
            raise ValueError(f"the number of correct flags {size_problem}")
        if self.convention not in convention_names():
            raise ValueError(
                f"unknown convention {_short(self.convention)}; "
                f"choose one of: {', '.join(convention_names())}"
            )
        if self.view not in VIEWS:
            raise ValueError(f"view must be one of {list(VIEWS)}, got {_short(self.view)}")
        if self.sample_seed is not None and not _is_seed(self.sample_seed):
            raise ValueError(
                f"sample_seed must be None or an integer from 0 to 2**64 - 1, "
                f"got {_short(self.sample_seed)}"
            )
        if not isinstance(self.title, str) or len(self.title) > MAX_TITLE_CHARS:
            raise ValueError(f"title must be a string of at most {MAX_TITLE_CHARS} characters")
        if self.workspace not in WORKSPACES:
            raise ValueError(
                f"workspace must be one of {list(WORKSPACES)}, got {_short(self.workspace)}"
            )
        if not isinstance(self.update, UpdateSettings):
            raise ValueError("update must be UpdateSettings")
        check_update_settings(self.update)
        if not isinstance(self.training, TrainingConfig):
            raise ValueError("training must be a TrainingConfig")
        check_training_config(self.training)  # its run takes the scenario's one convention
        if not isinstance(self.weights, RewardWeights):
            raise ValueError("weights must be RewardWeights")
        if not isinstance(self.policy, PolicyChoice):
            raise ValueError("policy must be a PolicyChoice")
        if not isinstance(self.lm_training, LMTrainingConfig):
            raise ValueError("lm_training must be an LMTrainingConfig")
        check_lm_config(self.lm_training)
        if self.scores is not None:
            scores_from_list(list(self.scores), len(self.correct))
        if self.recorded is not None and self.recorded.problem() != self.problem:
            raise ValueError("a run's group must come with its own problem (recorded.problem())")
        if not isinstance(self.custom_problem, bool):
            raise ValueError("custom_problem must be a bool; use is_custom_problem(problem)")
        if self.custom_problem and self.problem.id in shipped_problem_ids():
            raise ValueError(
                f"problem {self.problem.id!r} differs from the shipped problem with that id; "
                "a custom problem needs an id of its own"
            )
        if self.custom_problem is not is_custom_problem(self.problem):
            raise ValueError(
                f"custom_problem is {self.custom_problem} but problem {self.problem.id!r} "
                f"{'is not' if self.custom_problem else 'is'} the shipped one; "
                "use is_custom_problem(problem)"
            )

    @property
    def group_size(self) -> int:
        return len(self.correct)

    @classmethod
    def from_lab(
        cls,
        memento: LabMemento,
        convention: str,
        view: str,
        title: str = "",
        workspace: str = "lab",
        update: UpdateSettings = _DEFAULT_UPDATE,
        training: TrainingConfig = _DEFAULT_TRAINING,
        policy: PolicyChoice = _DEFAULT_POLICY,
        lm_training: LMTrainingConfig = _DEFAULT_LM_TRAINING,
    ) -> Scenario:
        """A scenario of the lab ``memento`` describes, under the workbench's convention."""
        problem = memento.problem
        return cls(
            problem=problem,
            custom_problem=is_custom_problem(problem),
            correct=tuple(memento.correct),
            convention=convention,
            view=view,
            sample_seed=memento.sample_seed,
            title=title,
            workspace=workspace,
            update=update,
            training=training,
            weights=memento.weights,
            policy=policy,
            lm_training=lm_training,
            scores=memento.scores,
            recorded=memento.recorded,
        )

    def lab_memento(self) -> LabMemento:
        """The lab this scenario restores (its convention and view belong to the workbench)."""
        return LabMemento(
            self.problem, self.correct, self.sample_seed, self.weights, self.scores, self.recorded
        )


# --- writing --------------------------------------------------------------------------------


def _scenario_to_dict(scenario: Scenario) -> dict[str, Any]:
    if scenario.recorded is not None:
        problem: dict[str, Any] = {"recorded": recorded_to_dict(scenario.recorded)}
    elif scenario.custom_problem:  # checked against the shipped problem on construction
        problem = {"inline": problem_to_dict(scenario.problem)}
    else:
        problem = {"id": scenario.problem.id}
    values: dict[str, Any] = {
        "format": SCENARIO_FORMAT,
        "schema": SCENARIO_SCHEMA,
        "title": scenario.title,
        "problem": problem,
        "group_size": scenario.group_size,
        "correct": list(scenario.correct),
        "convention": scenario.convention,
        "view": scenario.view,
        "sample_seed": scenario.sample_seed,
        "workspace": scenario.workspace,
        "update": _changed_fields(scenario.update, _DEFAULT_UPDATE),
        # The run uses the scenario's one convention (written above), so it is not written twice.
        "training": _changed_fields(scenario.training, _DEFAULT_TRAINING),
        "policy": scenario.policy.as_dict() if scenario.policy != _DEFAULT_POLICY else None,
        "lm_training": lm_config_to_dict(scenario.lm_training),
        "reward_weights": weights_to_dict(scenario.weights)
        if scenario.weights != _DEFAULT_WEIGHTS
        else None,
        "scores": None if scenario.scores is None else list(scenario.scores),
    }
    fields = [field for field in _FIELDS if field not in _WRITTEN_WHEN_SET]
    if scenario.workspace != "lab":
        fields.append("workspace")
    fields.extend(name for name in _WRITTEN_WHEN_SET[1:] if values[name])
    return {field: values[field] for field in fields}


def _changed_fields(settings: Any, defaults: Any) -> dict[str, Any]:
    """The fields of a settings dataclass that differ from the defaults, in declared order
    (tuples as lists, as JSON writes them)."""
    changed = {}
    for name in settings.__dataclass_fields__:
        value = getattr(settings, name)
        if value != getattr(defaults, name):
            if dataclasses.is_dataclass(value):  # nested settings (the run's reward weights)
                value = dataclasses.asdict(value)
            changed[name] = list(value) if isinstance(value, tuple) else value
    return changed


def scenario_to_json(scenario: Scenario) -> str:
    """The file text: pretty JSON, UTF-8 characters kept as they are, a trailing newline.

    Top-level lists stay on one line (``"correct": [true, false, false, true]``) so a lecturer can
    edit the group by hand; the problem object is indented.
    """
    lines = []
    for key, value in _scenario_to_dict(scenario).items():
        if isinstance(value, dict):
            text = json.dumps(value, ensure_ascii=False, allow_nan=False, indent=2)
            text = text.replace("\n", "\n  ")
        else:
            text = json.dumps(value, ensure_ascii=False, allow_nan=False)
        lines.append(f"  {json.dumps(key)}: {text}")
    return "{\n" + ",\n".join(lines) + "\n}\n"


def save_scenario(scenario: Scenario, path: str | os.PathLike[str]) -> None:
    """Write ``scenario`` to ``path`` atomically (the old file survives any failure).

    The path is used as given: the caller adds :data:`SCENARIO_SUFFIX` if it wants one. A
    scenario too large to be read back (a run's group of very long answers) is refused unwritten.
    """
    text = scenario_to_json(scenario)
    size = len(text.encode("utf-8"))
    if size > MAX_SCENARIO_BYTES:
        raise ScenarioError(
            f"{Path(path).name}: this scenario would be {size:,} bytes, more than a scenario may "
            f"be ({MAX_SCENARIO_BYTES:,}); choose a group with shorter answers"
        )
    write_text_atomically(path, text)


# --- reading --------------------------------------------------------------------------------


def load_scenario(path: str | os.PathLike[str]) -> Scenario:
    """Read and validate a scenario file; :class:`ScenarioError` says what is wrong with it."""
    file = Path(path)
    source = file.name or str(file)
    try:
        size = check_regular_file(file).st_size  # a FIFO or a device is refused unread
        if size > MAX_SCENARIO_BYTES:
            raise _too_large(source, size)
        raw = read_regular_file(file, MAX_SCENARIO_BYTES)  # the file may have grown since
    except FileNotFoundError:
        raise ScenarioError(f"{source}: the file does not exist") from None
    except NotARegularFileError as exc:
        if exc.kind == "a folder":
            raise ScenarioError(f"{source}: is a folder, not a scenario file") from None
        raise ScenarioError(f"{source}: is {exc.kind}, not a scenario file") from None
    except OSError as exc:
        raise ScenarioError(f"{source}: cannot read the file ({exc.strerror or exc})") from exc
    if len(raw) > MAX_SCENARIO_BYTES:
        raise _too_large(source, len(raw))
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ScenarioError(
            f"{source}: the file is not UTF-8 text ({exc.reason} at byte offset {exc.start})"
        ) from None
    return parse_scenario(text, source)


def parse_scenario(text: str, source: str) -> Scenario:
    """Decode and validate scenario JSON; ``source`` (usually the file name) starts each message."""
    if not isinstance(text, str):
        raise ScenarioError(f"{source}: expected text, got {type(text).__name__}")
    if len(text) > MAX_SCENARIO_BYTES:  # characters <= bytes, so this is a safe early refusal
        raise _too_large(source, len(text))
    data = _decode_json(text, source)
    return _parse_document(data, source)


def _too_large(source: str, size: int) -> ScenarioError:
    return ScenarioError(
        f"{source}: the file is {size:,} bytes, more than a scenario may be "
        f"({MAX_SCENARIO_BYTES:,} bytes)"
    )


def _decode_json(text: str, source: str) -> Any:
    if text.startswith("\ufeff"):
        text = text[1:]
    if not text.strip():
        raise ScenarioError(f"{source}: the file is empty, not a scenario")

    def pairs_hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        result: dict[str, Any] = {}
        for key, value in pairs:
            if key in result:
                raise ScenarioError(
                    f"{source}: field {_short(key)} appears twice in the same object"
                )
            result[key] = value
        return result

    def reject_constant(name: str) -> Any:
        raise ScenarioError(f"{source}: {name} is not allowed in a scenario (JSON has no {name})")

    def finite_float(literal: str) -> float:
        value = float(literal)
        if not math.isfinite(value):
            raise ScenarioError(f"{source}: the number {_short(literal, raw=True)} is too large")
        return value

    try:
        return json.loads(
            text,
            object_pairs_hook=pairs_hook,
            parse_constant=reject_constant,
            parse_float=finite_float,
        )
    except ScenarioError:
        raise
    except json.JSONDecodeError as exc:
        if exc.pos >= len(text.rstrip()) or exc.msg.startswith("Unterminated string"):
            raise ScenarioError(
                f"{source}: the JSON ends early (at line {exc.lineno} column {exc.colno}); "
                "the file looks truncated"
            ) from None
        raise ScenarioError(
            f"{source}: invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"
        ) from None
    except RecursionError:
        raise ScenarioError(f"{source}: the JSON is nested too deeply to be a scenario") from None
    except ValueError:  # an integer literal past Python's 4300-digit limit
        raise ScenarioError(f"{source}: the JSON holds a number too long to read") from None


def _parse_document(data: Any, source: str) -> Scenario:
    if not isinstance(data, dict):
        raise ScenarioError(
            f"{source}: the top level must be a JSON object, got {json_type_name(data)}"
        )

    if "format" not in data:
        raise _field(source, "format", "is missing, so this is not a GRPO Desktop scenario")
    if data["format"] != SCENARIO_FORMAT:
        raise _field(source, "format", f"must be {SCENARIO_FORMAT!r}, got {_short(data['format'])}")

    if "schema" not in data:
        raise _field(source, "schema", "is missing")
    schema = data["schema"]
    if not _is_int(schema) or schema < 1:
        raise _field(source, "schema", f"must be a positive integer, got {_short(schema)}")
    if schema > SCENARIO_SCHEMA:
        raise ScenarioError(
            f"{source}: was saved by a newer GRPO Desktop (schema {_short(schema, raw=True)}); "
            f"this version reads schema {SCENARIO_SCHEMA}"
        )

    unknown = [key for key in data if key not in _FIELDS]
    if unknown:
        names = ", ".join(_short(key) for key in unknown[:5])
        raise ScenarioError(f"{source}: unknown field(s) {names}; allowed: {', '.join(_FIELDS)}")
    for field in _REQUIRED:
        if field not in data:
            raise _field(source, field, "is missing")

    title = data.get("title", "")
    if not isinstance(title, str):
        raise _field(source, "title", f"must be a string, got {json_type_name(title)}")
    if len(title) > MAX_TITLE_CHARS:
        raise _field(
            source, "title", f"must be at most {MAX_TITLE_CHARS} characters, got {len(title)}"
        )
    _check_encodable(title, source, "title")
    unsafe = unsafe_character_problem(title)
    if unsafe is not None:
        raise _field(source, "title", unsafe)

    problem, custom, recorded = _parse_problem_field(data["problem"], source)

    group_size = data["group_size"]
    if not _is_int(group_size):
        raise _field(source, "group_size", f"must be an integer, got {json_type_name(group_size)}")
    size_problem = group_size_problem(group_size)
    if size_problem is not None:
        raise _field(source, "group_size", size_problem)

    correct = data["correct"]
    if not isinstance(correct, list):
        raise _field(
            source, "correct", f"must be a list of true/false, got {json_type_name(correct)}"
        )
    if len(correct) != group_size:
        raise _field(
            source,
            "correct",
            f"must have {group_size} entries (group_size is {group_size}), got {len(correct)}",
        )
    for index, flag in enumerate(correct):
        if not isinstance(flag, bool):
            raise _field(
                source, f"correct[{index}]", f"must be true or false, got {json_type_name(flag)}"
            )

    convention = data["convention"]
    names = convention_names()
    if not isinstance(convention, str) or convention not in names:
        raise _field(
            source,
            "convention",
            f"must be one of {', '.join(names)}, got {_short(convention)}",
        )

    view = data["view"]
    if not isinstance(view, str) or view not in VIEWS:
        raise _field(source, "view", f"must be one of {', '.join(VIEWS)}, got {_short(view)}")

    seed = data.get("sample_seed")
    if seed is not None and not _is_seed(seed):
        raise _field(
            source,
            "sample_seed",
            f"must be null or an integer from 0 to 2**64 - 1, got {_short(seed)}",
        )

    workspace = data.get("workspace", "lab")
    if not isinstance(workspace, str) or workspace not in WORKSPACES:
        raise _field(
            source, "workspace", f"must be one of {', '.join(WORKSPACES)}, got {_short(workspace)}"
        )
    update = data.get("update", {})
    if not isinstance(update, dict):
        raise _field(source, "update", f"must be an object, got {json_type_name(update)}")
    try:
        settings = settings_from_dict(update)
    except ValueError as exc:
        raise _field(source, "update", str(exc)) from None
    training = data.get("training", {})
    if not isinstance(training, dict):
        raise _field(source, "training", f"must be an object, got {json_type_name(training)}")
    try:
        run = config_from_dict(training)
    except ValueError as exc:
        raise _field(source, "training", str(exc)) from None
    if "convention" in training and training["convention"] != convention:
        raise _field(
            source,
            "training.convention",
            f"is {_short(training['convention'])} but the scenario's convention is "
            f"{_short(convention)}; "
            "the run uses the scenario's one convention: remove 'training.convention' or make "
            "the two agree",
        )
    try:
        policy = policy_from_dict(data.get("policy", {}))
    except ValueError as exc:
        raise _field(source, "policy", str(exc)) from None
    lm_training = data.get("lm_training", {})
    if not isinstance(lm_training, dict):
        raise _field(source, "lm_training", f"must be an object, got {json_type_name(lm_training)}")
    try:
        lm_run = lm_config_from_dict(lm_training)
    except (ValueError, TypeError) as exc:
        raise _field(source, "lm_training", str(exc)) from None
    try:
        weights = weights_from_dict(data.get("reward_weights", {}))
    except ValueError as exc:
        raise _field(source, "reward_weights", str(exc)) from None
    scores = data.get("scores")
    if scores is not None:
        try:
            scores = scores_from_list(scores, group_size)
        except ValueError as exc:
            raise _field(source, "scores", str(exc)) from None
    if recorded is not None and len(recorded.texts) != group_size:
        raise _field(
            source,
            "group_size",
            f"is {group_size} but the run's group in 'problem' has {len(recorded.texts)} answers",
        )

    return Scenario(
        problem=problem,
        custom_problem=custom,
        correct=tuple(correct),
        convention=convention,
        view=view,
        sample_seed=seed,
        title=title,
        workspace=workspace,
        update=settings,
        training=run,
        weights=weights,
        policy=policy,
        lm_training=lm_run,
        scores=scores,
        recorded=recorded,
    )


def _parse_problem_field(value: Any, source: str) -> tuple[Problem, bool, RecordedGroup | None]:
    """The problem, whether it is custom, and the run's group it comes from (if it does)."""
    if not isinstance(value, dict):
        raise _field(
            source,
            "problem",
            f'must be an object like {{"id": "mult-23x47"}} or {{"inline": {{...}}}}, '
            f"got {json_type_name(value)}",
        )
    keys = list(value)
    if len(keys) != 1 or keys[0] not in ("id", "inline", "recorded"):
        shown = ", ".join(_short(key) for key in keys[:5]) or "none"
        raise _field(
            source,
            "problem",
            f"must have exactly one key, 'id', 'inline' or 'recorded', got {shown}",
        )
    if keys[0] == "recorded":
        try:
            group = recorded_from_dict(value["recorded"])
        except ValueError as exc:
            raise _field(source, "problem.recorded", str(exc)) from None
        too_large = reward_magnitude_problem(group.rewards)
        if too_large is not None:
            raise _field(source, "problem.recorded", too_large)
        problem = group.problem()
        return problem, is_custom_problem(problem), group

    if keys[0] == "id":
        problem_id = value["id"]
        if not isinstance(problem_id, str):
            raise _field(
                source, "problem.id", f"must be a string, got {json_type_name(problem_id)}"
            )
        try:
            return get_problem(problem_id), False, None
        except UnknownProblemError as exc:
            message = str(exc)
            if len(problem_id) > _SHORT_CHARS:
                message = message.replace(repr(problem_id), _short(problem_id), 1)
            raise _field(source, "problem.id", f"is not a shipped problem: {message}") from None

    inline = value["inline"]
    if not isinstance(inline, dict):
        raise _field(
            source, "problem.inline", f"must be a problem object, got {json_type_name(inline)}"
        )
    try:
        problem = parse_problem(inline, source)
    except ProblemError as exc:
        raise ScenarioError(_clip(_inline_message(str(exc), source), 400)) from None
    except (TypeError, ValueError, RecursionError) as exc:  # defensive: never a traceback
        raise _field(source, "problem.inline", f"is not a valid problem ({exc})") from None
    if problem.id in shipped_problem_ids() and is_custom_problem(problem):
        raise _field(
            source,
            "problem.inline.id",
            f"is {problem.id!r}, the id of a shipped problem, but the problem differs from it; "
            "a custom problem needs an id of its own (e.g. 'custom-…')",
        )
    for name, text in (
        ("title", problem.title),
        ("prompt", problem.prompt),
        ("answer_key", problem.answer_key),
        *((f"traces[{i}]", t.correct + t.wrong) for i, t in enumerate(problem.traces)),
    ):
        _check_encodable(text, source, f"problem.inline.{name}")
    return problem, is_custom_problem(problem), None


def _inline_message(message: str, source: str) -> str:
    """parse_problem's "<src>: field 'traces' ..." as "<src>: field 'problem.inline.traces' ..."."""
    field_prefix = f"{source}: field '"
    if message.startswith(field_prefix):
        return f"{field_prefix}problem.inline.{message[len(field_prefix) :]}"
    if message.startswith(f"{source}: "):
        return f"{source}: field 'problem.inline': {message[len(source) + 2 :]}"
    return f"{source}: field 'problem.inline': {message}"


# --- small helpers --------------------------------------------------------------------------


def _field(source: str, field: str, problem: str) -> ScenarioError:
    return ScenarioError(f"{source}: field '{field}' {problem}")


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_seed(value: object) -> bool:
    return _is_int(value) and 0 <= value <= _MAX_SEED  # type: ignore[operator]


def _check_encodable(text: str, source: str, field: str) -> None:
    """JSON may spell lone UTF-16 surrogates (\\ud800), which no UTF-8 file can hold on save."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise _field(source, field, "contains an invalid character (a lone surrogate)") from None


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _short(value: object, raw: bool = False) -> str:
    """A value for an error message: JSON-like, at most ~40 characters, never a huge dump."""
    if isinstance(value, (list, dict)):
        return json_type_name(value)
    if isinstance(value, bool) or value is None:
        text = json.dumps(value)
    elif isinstance(value, int) and abs(value) >= 10**30:
        text = "a very large integer"
    elif raw:
        text = str(value)
    else:
        text = repr(value)
    return _clip(text, _SHORT_CHARS)
