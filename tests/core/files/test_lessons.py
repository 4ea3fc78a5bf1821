"""Lesson mode data: the shipped lessons load, quote only numbers the app computes, and broken
lesson files say which file and which field are wrong."""

from __future__ import annotations

import copy
import dataclasses
import json
import re
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from grpo_desktop import core
from grpo_desktop.core.common.formatting import signed
from grpo_desktop.core.common.jsonfile import ResourceFileError, UnknownResourceError
from grpo_desktop.core.files.lessons import (
    DEFAULT_METRIC,
    HIGHLIGHTS,
    LESSON_WORKSPACES,
    MAX_TRAINING_ANSWERS,
    MAX_TRAINING_STEPS,
    TRAINING_HIGHLIGHTS,
    UPDATE_HIGHLIGHTS,
    VIEWS,
    Lesson,
    LessonError,
    LessonLab,
    LessonStep,
    UnknownLessonError,
    get_lesson,
    load_lesson_file,
    load_lessons,
    parse_lesson,
    predict_spoilers,
    training_answers,
)
from grpo_desktop.core.lab.lab_limits import WORKSPACES
from grpo_desktop.core.lab.lab_snapshot import build_snapshot
from grpo_desktop.core.lab.problems import ProblemError, get_problem
from grpo_desktop.core.training.run import (
    FRONTIER_GROUP_SIZES,
    METRICS,
    TrainingConfig,
    TrainingRun,
    check_training_config,
    informative_probability,
)
from grpo_desktop.core.training.training_snapshot import TrainingSnapshot, build_training_snapshot
from grpo_desktop.core.update.update_settings import UpdateSettings
from grpo_desktop.core.update.update_step import build_update_snapshot, check_update_settings

LESSONS = load_lessons()
STEP_CASES = [
    pytest.param(lesson, index, id=f"{lesson.id}-step{index}")
    for lesson in LESSONS
    for index in range(len(lesson.steps))
]
SHIPPED_DIR = Path(str(resources.files("grpo_desktop.resources").joinpath("lessons")))
MINUS = "\u2212"


def _shipped_data(lesson_id: str = "group-is-baseline") -> dict[str, Any]:
    return json.loads((SHIPPED_DIR / f"{lesson_id}.json").read_text(encoding="utf-8"))


def _write(tmp_path: Path, data: object, name: str = "group-is-baseline.json") -> Path:
    path = tmp_path / name
    text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
    path.write_text(text, encoding="utf-8")
    return path


# --- the numbers a step text quotes --------------------------------------------------------------

_TAG = re.compile(r"</?[bi]>")
_SIGNED = re.compile(r"(?<![\w.])([+±" + MINUS + r"])(\d+(?:\.\d+)?)")
_ASCII_NEGATIVE = re.compile(r"(?<![\w.])-\d")
_MEAN_STD = re.compile(r"\b(mean|std)\s+(\d+(?:\.\d+)?)", re.IGNORECASE)
_ALL_ZERO = re.compile(r"\badvantages?\s+(?:is\s+|are\s+)?0(?![.\d])")
_REWARD_LIST = re.compile(r"(?<![\d.+±\-" + MINUS + r"])[01](?:,\s*[01]){2,}(?!\d|\.\d)")


def _matches(value: float, written: str) -> bool:
    """Whether ``value`` shows as ``written`` at the precision the text uses."""
    decimals = len(written.split(".")[1]) if "." in written else 0
    return f"{abs(value):.{decimals}f}" == written and (value != 0 or float(written) == 0)


def quoted_numbers(step: LessonStep) -> tuple[list[str], list[str]]:
    """(quotes found, quotes that do not match the step's own lab or compared labs)."""
    text = _TAG.sub("", step.text)
    stats = [core.group_stats(lab.rewards, lab.convention) for lab in step.labs]
    advantages = [float(a) for s in stats for a in s.advantages]
    found: list[str] = []
    wrong: list[str] = []

    for match in _SIGNED.finditer(text):
        sign, digits = match.groups()
        found.append(match.group(0))
        up = any(a > 0 and _matches(a, digits) for a in advantages)
        down = any(a < 0 and _matches(a, digits) for a in advantages)
        ok = {"+": up, MINUS: down, "±": up and down}[sign]
        if not ok:
            wrong.append(f"advantage {match.group(0)} (lab advantages {advantages})")
    for match in _ASCII_NEGATIVE.finditer(text):
        wrong.append(f"{match.group(0)!r} uses a hyphen; write the minus sign {MINUS}")
    for match in _MEAN_STD.finditer(text):
        name, digits = match.group(1).lower(), match.group(2)
        found.append(match.group(0))
        if not any(_matches(getattr(s, name), digits) for s in stats):
            values = [getattr(s, name) for s in stats]
            wrong.append(f"{match.group(0)!r} (lab {name} {values})")
    for match in _ALL_ZERO.finditer(text):
        found.append(match.group(0))
        if not any(s.degenerate and not s.advantages.any() for s in stats):
            wrong.append(f"{match.group(0)!r} but the lab's advantages are {advantages}")
    for match in _REWARD_LIST.finditer(text):
        found.append(match.group(0))
        quoted = tuple(int(r) for r in re.findall(r"[01]", match.group(0)))
        if quoted not in [lab.rewards for lab in step.labs]:
            wrong.append(
                f"rewards {match.group(0)!r} (lab rewards {[lab.rewards for lab in step.labs]})"
            )
    return found, wrong


@pytest.mark.parametrize(("lesson", "index"), STEP_CASES)
def test_every_number_in_a_step_text_is_what_its_lab_shows(lesson: Lesson, index: int) -> None:
    _, wrong = quoted_numbers(lesson.steps[index])
    assert wrong == [], f"{lesson.id} step {index}: {wrong}"


def test_the_shipped_texts_quote_the_seeds_numbers() -> None:
    """The check above is not vacuous: the seeds' key numbers are quoted and were checked."""
    found = {
        quote for lesson in LESSONS for step in lesson.steps for quote in quoted_numbers(step)[0]
    }
    for quote in ("+1", f"{MINUS}1", f"{MINUS}2.0", "+0.5", "+2.0", f"{MINUS}0.5", "±0.866"):
        assert quote in found
    assert {"mean 0.5", "std 0.5", "mean 1", "mean 0", "Mean 0.8", "std 0.4"} <= found


def test_the_number_check_catches_wrong_numbers() -> None:
    lab = LessonLab("mult-23x47", (True, False, False, True))
    step = LessonStep(
        title="t",
        text="Mean 0.7, std 0.5, every advantage 0: +3.0, −1, ±1, -1 on 1, 1, 0, 0.",
        lab=lab,
        compare=None,
        highlight="math",
        view="advantage",
    )
    _, wrong = quoted_numbers(step)
    joined = " | ".join(wrong)
    assert len(wrong) == 5, joined
    for fragment in ("Mean 0.7", "'advantage 0'", "+3.0", "'-1'", "1, 1, 0, 0"):
        assert fragment in joined


def test_predict_steps_do_not_give_the_answer_away() -> None:
    hidden = [step for lesson in LESSONS for step in lesson.steps if step.hide_advantages]
    assert len(hidden) >= 3
    for step in hidden:
        assert not _SIGNED.search(step.text), step.title
        assert "reveal" in step.text.lower()


def test_no_lesson_shows_advantages_before_the_class_predicts_them() -> None:
    for lesson in LESSONS:
        assert predict_spoilers(lesson.steps) == [], lesson.id
        predicts = [i for i, step in enumerate(lesson.steps) if step.hide_advantages]
        if not predicts:  # a lesson that asks no prediction (the update step's) has none to spoil
            continue
        first_predict = predicts[0]
        for step in lesson.steps[: first_predict + 1]:  # hidden from the start up to the reveal
            assert step.hide_advantages, (lesson.id, step.title)
        assert lesson.steps[0].hide_advantages and lesson.steps[0].view == "reward"


def _step(correct: tuple[int, ...], hide: bool, problem: str = "mult-23x47") -> LessonStep:
    lab = LessonLab(problem, tuple(bool(flag) for flag in correct))
    view = "reward" if not hide else "advantage"
    return LessonStep("t", "Text.", lab, None, "cards", view, hide)


def test_predict_spoilers_are_steps_showing_the_same_rewards_earlier() -> None:
    seed, easy, hard = (1, 0, 0, 1), (1, 1, 1, 1, 0), (1, 0, 0, 0, 0)
    assert predict_spoilers((_step(seed, False), _step(seed, True))) == [(0, 1)]
    assert predict_spoilers((_step((0, 1, 1, 0), False), _step(seed, True))) == [(0, 1)]
    assert predict_spoilers((_step(seed, True), _step(seed, True), _step(seed, False))) == []
    # Seed 002's shape: the easy group revealed, then the hard group predicted.
    steps = (_step(easy, True), _step(easy, False), _step(hard, True), _step(hard, False))
    assert predict_spoilers(steps) == []


# --- the shipped lessons -------------------------------------------------------------------------


def test_the_lessons_ship_in_order() -> None:
    assert [lesson.id for lesson in LESSONS] == [
        "group-is-baseline",
        "same-formula-two-groups",
        "update-step-length-bias",
        "why-runs-stall",
    ]
    assert [lesson.title for lesson in LESSONS] == [
        "The group is the baseline",
        "Same formula, two groups",
        "The length bias",
        "Why runs stall",
    ]
    assert [lesson.order for lesson in LESSONS] == [10, 20, 30, 40]
    assert load_lessons() is LESSONS  # cached


def test_lessons_are_read_through_importlib_resources() -> None:
    names = {
        entry.name
        for entry in resources.files("grpo_desktop.resources").joinpath("lessons").iterdir()
    }
    assert {f"{lesson.id}.json" for lesson in LESSONS} <= names


@pytest.mark.parametrize(("lesson", "index"), STEP_CASES)
def test_every_step_loads_into_valid_group_stats(lesson: Lesson, index: int) -> None:
    step = lesson.steps[index]
    assert step.highlight in HIGHLIGHTS
    assert step.view in VIEWS
    if step.is_training:  # a training run on screen, no group
        assert step.lab is None and step.compare is None and step.labs == ()
        return
    assert (step.lab is None) != (step.compare is None)
    assert 1 <= len(step.labs) <= 2
    for lab in step.labs:
        problem = get_problem(lab.problem_id)
        assert problem.id == lab.problem_id
        assert 2 <= len(lab.correct) <= 64
        stats = core.group_stats(lab.rewards, lab.convention)
        assert stats.group_size == len(lab.correct)
        assert stats.convention == lab.convention
        assert all(abs(a) < 1e6 for a in stats.advantages)


def test_seed_000_lesson_covers_the_seed() -> None:
    lesson = get_lesson("group-is-baseline")
    groups = [step.lab.rewards for step in lesson.steps if step.lab is not None]
    assert lesson.steps[0].view == "reward"
    assert lesson.steps[0].lab == LessonLab("mult-23x47", (True, False, False, True))
    assert (1, 1, 1, 1) in groups and (0, 0, 0, 0) in groups
    assert any(step.hide_advantages for step in lesson.steps)
    assert {"banner", "ppo"} <= {step.highlight for step in lesson.steps}
    assert "frontier is where the gradient is" in lesson.steps[-1].text


def test_seed_002_lesson_covers_the_seed() -> None:
    lesson = get_lesson("same-formula-two-groups")
    easy = LessonLab("easy-add-17-25", (True, True, True, True, False))
    hard = LessonLab("hard-remainder-7-pow-100", (True, False, False, False, False))
    compares = [step for step in lesson.steps if step.compare is not None]
    assert compares and compares[0].compare == (easy, hard)
    assert compares[0].highlight == "compare"
    assert any(step.lab == easy and step.hide_advantages for step in lesson.steps)
    assert any(step.lab == hard and step.hide_advantages for step in lesson.steps)
    assert any(step.lab is not None and step.lab.convention == "trl" for step in lesson.steps)


def test_lesson_objects_are_frozen() -> None:
    lesson = LESSONS[0]
    with pytest.raises(dataclasses.FrozenInstanceError):
        lesson.title = "changed"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        lesson.steps[0].text = "changed"  # type: ignore[misc]
    assert isinstance(lesson.steps, tuple)
    assert isinstance(lesson.steps[0].labs[0].correct, tuple)


def test_get_lesson_lists_valid_ids() -> None:
    assert get_lesson("same-formula-two-groups").title == "Same formula, two groups"
    with pytest.raises(UnknownLessonError) as info:
        get_lesson("nope")
    message = str(info.value)
    assert "'nope'" in message
    assert "group-is-baseline" in message and "same-formula-two-groups" in message
    assert isinstance(info.value, KeyError) and isinstance(info.value, LessonError)
    assert message == (
        "unknown lesson id 'nope'; valid ids: group-is-baseline, same-formula-two-groups, "
        "update-step-length-bias, why-runs-stall"
    )


def test_lesson_errors_share_the_resource_file_base_with_problem_errors() -> None:
    assert issubclass(LessonError, ResourceFileError)
    assert issubclass(LessonError, ValueError)
    assert issubclass(UnknownLessonError, UnknownResourceError)
    assert not issubclass(LessonError, ProblemError)
    with pytest.raises(ResourceFileError) as info:
        get_lesson("nope")
    assert type(info.value) is UnknownLessonError
    assert str(info.value).startswith("unknown lesson id 'nope'")  # not KeyError's quoted repr
    bad_field = LessonError.for_field("mine.json", "steps", "is missing")
    assert type(bad_field) is LessonError
    assert str(bad_field) == "mine.json: field 'steps' is missing"


# --- broken lesson files -------------------------------------------------------------------------


def _set(path: str, value: object) -> Callable[[dict[str, Any]], None]:
    """A mutation that sets ``data[a][b]…`` (``path`` like "steps.2.lab.correct")."""

    def mutate(data: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        target: Any = data
        for key in parents:
            target = target[int(key)] if isinstance(target, list) else target[key]
        if isinstance(target, list):
            target[int(last)] = value
        else:
            target[last] = value

    return mutate


def _delete(path: str) -> Callable[[dict[str, Any]], None]:
    def mutate(data: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        target: Any = data
        for key in parents:
            target = target[int(key)] if isinstance(target, list) else target[key]
        del target[last]

    return mutate


def _compare_step(index: int, labs: object) -> Callable[[dict[str, Any]], None]:
    """A mutation that turns step ``index`` into a compare step showing ``labs``."""

    def mutate(data: dict[str, Any]) -> None:
        step = data["steps"][index]
        del step["lab"]
        step.update(compare=labs, highlight="compare", hide_advantages=False)

    return mutate


_LAB = {"problem_id": "mult-23x47", "correct": [1, 0, 0, 1]}

BAD_FIELDS = [
    pytest.param(
        _set("steps.0.lab.problem_id", "no-such-problem"),
        "steps[0].lab.problem_id",
        "mult-23x47",
        id="unknown-problem",
    ),
    pytest.param(
        _set("steps.1.compare", [_LAB, _LAB]), "steps[1].lab", "both", id="lab-and-compare"
    ),
    pytest.param(_delete("steps.1.lab"), "steps[1].lab", "neither", id="neither-lab-nor-compare"),
    pytest.param(
        _set("steps.0.highlight", "sparkles"), "steps[0].highlight", "'cards'", id="bad-highlight"
    ),
    pytest.param(
        _set("steps.0.highlight", "compare"),
        "steps[0].highlight",
        "compare step",
        id="compare-highlight-on-lab",
    ),
    pytest.param(_set("steps.0.view", "tokens"), "steps[0].view", "'advantage'", id="bad-view"),
    pytest.param(lambda d: d.update(steps=d["steps"][:1]), "steps", "2 to", id="too-few-steps"),
    pytest.param(_set("steps", {}), "steps", "a list", id="steps-not-a-list"),
    pytest.param(
        _set("steps.2.lab.correct", [1]),
        "steps[2].lab.correct",
        "one entry per answer: the group size must be between 2 and 64, got 1",
        id="correct-too-short",
    ),
    pytest.param(
        _set("steps.2.lab.correct", [1, 0] * 33),
        "steps[2].lab.correct",
        "the group size must be between 2 and 64",
        id="correct-too-long",
    ),
    pytest.param(
        _set("steps.2.lab.correct", [1, 2]),
        "steps[2].lab.correct[1]",
        "got 2",
        id="correct-entry-not-0-1",
    ),
    pytest.param(
        _set("steps.0.lab.convention", "ppo"),
        "steps[0].lab.convention",
        "'trl'",
        id="bad-convention",
    ),
    pytest.param(
        _set("steps.0.lab.seed", 1),
        "steps[0].lab",
        "unknown field(s) ['seed']",
        id="unknown-lab-field",
    ),
    pytest.param(
        _set("steps.3.remarks", "x"),
        "steps[3]",
        "unknown field(s) ['remarks']",
        id="unknown-step-field",
    ),
    pytest.param(_delete("steps.0.title"), "steps[0].title", "missing", id="missing-step-title"),
    pytest.param(
        _set("steps.0.text", "<script>x</script>"), "steps[0].text", "<b> and <i>", id="bad-markup"
    ),
    pytest.param(
        _set("steps.0.text", "One. Two. Three. Four."),
        "steps[0].text",
        "1 to 3",
        id="too-many-sentences",
    ),
    pytest.param(
        _set("steps.0.hide_advantages", "yes"),
        "steps[0].hide_advantages",
        "true or false",
        id="hide-not-bool",
    ),
    pytest.param(
        _set("steps.0.hide_advantages", False),
        "steps[0].hide_advantages",
        "must be true: step 1 would show the advantages of rewards 1, 0, 0, 1 before step 2 "
        "asks the class to predict them",
        id="advantages-shown-before-the-class-predicts-them",
    ),
    pytest.param(
        lambda data: (
            _set("steps.0.hide_advantages", False)(data),
            _set("steps.0.lab.correct", [0, 1, 1, 0])(data),
        ),
        "steps[0].hide_advantages",
        "before step 2 asks the class to predict them",
        id="same-rewards-in-another-order-shown-before-the-predict-step",
    ),
    pytest.param(_compare_step(1, [_LAB]), "steps[1].compare", "exactly 2", id="compare-one-lab"),
    pytest.param(
        _compare_step(1, [_LAB, {**_LAB, "correct": [1]}]),
        "steps[1].compare[1].correct",
        "the group size must be between 2 and 64",
        id="compare-lab-too-short",
    ),
    pytest.param(
        lambda data: (
            _compare_step(1, [_LAB, _LAB])(data),
            _set("steps.1.highlight", "cards")(data),
        ),
        "steps[1].highlight",
        "'compare' or 'none' on a compare step",
        id="compare-step-highlights-cards",
    ),
    pytest.param(
        _compare_step(1, [{**_LAB, "convention": "textbook"}, {**_LAB, "convention": "trl"}]),
        "steps[1].compare[1].convention",
        "must be the same as 'steps[1].compare[0].convention' ('textbook'), got 'trl'",
        id="compare-labs-differ-in-convention",
    ),
    pytest.param(
        _compare_step(1, [{**_LAB, "convention": "dr_grpo"}, _LAB]),
        "steps[1].compare[1].convention",
        "('dr_grpo'), got 'textbook': both groups of a compare step share one advantage convention",
        id="compare-lab-defaults-to-another-convention",
    ),
    pytest.param(_set("id", "same-formula-two-groups"), "id", "file name", id="id-not-file-name"),
    pytest.param(_set("id", "Group_Is_Baseline"), "id", "a-z", id="bad-id-pattern"),
    pytest.param(_set("order", "first"), "order", "integer", id="order-not-int"),
    pytest.param(_set("schema", 2), "schema", "version 2", id="unknown-schema"),
]


@pytest.mark.parametrize(("mutate", "field", "detail"), BAD_FIELDS)
def test_a_bad_field_names_the_file_and_the_field(
    tmp_path: Path, mutate: Callable[[dict[str, Any]], None], field: str, detail: str
) -> None:
    data = copy.deepcopy(_shipped_data())
    mutate(data)
    with pytest.raises(LessonError) as info:
        load_lesson_file(_write(tmp_path, data))
    message = str(info.value)
    assert message.startswith("group-is-baseline.json: "), message
    assert f"'{field}'" in message, message
    assert detail in message, message


def test_unknown_top_level_field_is_named(tmp_path: Path) -> None:
    data = _shipped_data()
    data["author"] = "me"
    with pytest.raises(
        LessonError, match=r"^group-is-baseline\.json: .*unknown field\(s\) \['author'\]"
    ):
        load_lesson_file(_write(tmp_path, data))


@pytest.mark.parametrize(
    ("text", "detail"),
    [
        pytest.param('{"schema": 1, "id": ', "invalid JSON at line 1", id="invalid-json"),
        pytest.param(
            '{"schema": 1, "schema": 1}', "field 'schema' appears twice", id="duplicate-key"
        ),
        pytest.param("[1, 2]", "top level must be a JSON object", id="not-an-object"),
        pytest.param("", "invalid JSON", id="empty-file"),
    ],
)
def test_unreadable_files_name_the_file(tmp_path: Path, text: str, detail: str) -> None:
    with pytest.raises(LessonError) as info:
        load_lesson_file(_write(tmp_path, text))
    assert str(info.value).startswith("group-is-baseline.json: ")
    assert detail in str(info.value)


def test_non_utf8_and_missing_files(tmp_path: Path) -> None:
    path = tmp_path / "group-is-baseline.json"
    path.write_bytes(b'{"title": "\xff"}')
    with pytest.raises(LessonError, match="not UTF-8"):
        load_lesson_file(path)
    with pytest.raises(LessonError, match=r"^missing\.json: cannot read"):
        load_lesson_file(tmp_path / "missing.json")


def test_parse_lesson_accepts_booleans_and_defaults() -> None:
    data = _shipped_data()
    data["steps"][0]["lab"] = {"problem_id": "mult-23x47", "correct": [True, False]}
    del data["steps"][0]["hide_advantages"]  # another group: nothing to give away
    lesson = parse_lesson(data, "inline")
    step = lesson.steps[0]
    assert step.lab == LessonLab("mult-23x47", (True, False), "textbook")
    assert step.hide_advantages is False
    assert lesson.order == 10


# --- one convention per step ---------------------------------------------------------------------


@pytest.mark.parametrize(("lesson", "index"), STEP_CASES)
def test_every_shipped_step_shows_one_convention(lesson: Lesson, index: int) -> None:
    step = lesson.steps[index]
    if step.is_training:  # no group on screen: the convention is the run's GRPO and DAPO use
        assert step.training is not None and step.convention == step.training_convention
        return
    assert {lab.convention for lab in step.labs} == {step.convention}


def test_a_steps_convention_is_its_labs_or_the_one_its_compared_labs_share() -> None:
    data = _shipped_data()
    data["steps"][0]["lab"] = {**_LAB, "convention": "trl"}
    _compare_step(1, [{**_LAB, "convention": "dr_grpo"}, {**_LAB, "convention": "dr_grpo"}])(data)
    lesson = parse_lesson(data, "inline")
    assert lesson.steps[0].convention == "trl"
    assert lesson.steps[1].compare is not None
    assert lesson.steps[1].convention == "dr_grpo"
    shipped = get_lesson("same-formula-two-groups")
    compared = [step.convention for step in shipped.steps if step.compare is not None]
    assert compared and set(compared) == {"textbook"}


def test_a_compare_step_built_in_code_refuses_two_conventions() -> None:
    easy = LessonLab("easy-add-17-25", (True, True, True, True, False), "textbook")
    hard = LessonLab("hard-remainder-7-pow-100", (True, False, False, False, False), "trl")
    with pytest.raises(ValueError, match=r"share one convention, got 'textbook' and 'trl'"):
        LessonStep("t", "x", None, (easy, hard), "compare", "advantage")
    step = LessonStep("t", "x", None, (easy, dataclasses.replace(hard, convention="textbook")),
                      "compare", "advantage")  # fmt: skip
    assert step.convention == "textbook"


@pytest.mark.parametrize(
    ("path", "value"),
    [
        ("title", "Baseline \u202eenilesab"),
        ("summary", "A group\u2067 is its own baseline."),
        ("steps.0.title", "Step\tone"),
        ("steps.0.text", "Read the cards.\x07"),
    ],
)
def test_control_and_bidi_characters_in_a_lesson_are_refused(path, value):
    data = _shipped_data()
    _set(path, value)(data)
    field = path.replace("steps.0.", "steps[0].")
    with pytest.raises(LessonError, match=rf"field '{re.escape(field)}' contains the control"):
        parse_lesson(data, "group-is-baseline.json")


# --- update steps: the Update workspace in a lesson -------------------------------------------

LENGTH_BIAS = "update-step-length-bias"
_UPDATE_STEP = {
    "workspace": "update",
    "update": {"preset": "trl/dapo", "compare_preset": "verl/seq-mean-token-mean"},
    "highlight": "tokens",
}


def _update_step(index: int, **fields: object) -> Callable[[dict[str, Any]], None]:
    """A mutation that turns step ``index`` into an update step, then sets ``fields``."""

    def mutate(data: dict[str, Any]) -> None:
        step = data["steps"][index]
        step.update(_UPDATE_STEP)
        step["update"] = dict(_UPDATE_STEP["update"])
        for key, value in fields.items():
            if value is _DROP:
                step.pop(key, None)
            else:
                step[key] = value

    return mutate


_DROP = object()


def test_an_update_step_parses_with_its_settings() -> None:
    data = _shipped_data()
    _update_step(2, update={"preset": "trl/dapo", "eps_high": 0.28, "inner_steps": 4})(data)
    _update_step(3, update=_DROP, highlight="push-chart")(data)
    lesson = parse_lesson(data, "inline")
    step = lesson.steps[2]
    assert step.workspace == "update" and step.is_update
    assert step.update == UpdateSettings(preset="trl/dapo", eps_high=0.28, inner_steps=4)
    assert step.highlight == "tokens"
    # Left out, the settings are the defaults (not the previous step's): paging either way
    # shows the same thing.
    assert lesson.steps[3].update == UpdateSettings()
    assert lesson.steps[3].highlight == "push-chart"
    for other in (lesson.steps[0], lesson.steps[4]):
        assert other.workspace == "lab" and other.update is None and not other.is_update


@pytest.mark.parametrize("highlight", UPDATE_HIGHLIGHTS)
def test_every_update_highlight_is_allowed_on_an_update_step(highlight: str) -> None:
    data = _shipped_data()
    _update_step(2, highlight=highlight)(data)
    assert parse_lesson(data, "inline").steps[2].highlight == highlight
    assert highlight in HIGHLIGHTS


def test_a_lesson_shows_only_workspaces_the_window_has() -> None:
    assert set(LESSON_WORKSPACES) <= set(WORKSPACES)
    assert LESSON_WORKSPACES == ("lab", "update", "training", "compare")
    assert LESSON_WORKSPACES == WORKSPACES  # in the window's order


def test_a_lab_step_may_name_its_workspace_and_a_compare_step_its_own() -> None:
    data = _shipped_data()
    data["steps"][2]["workspace"] = "lab"
    _compare_step(3, [_LAB, _LAB])(data)
    data["steps"][3]["workspace"] = "compare"
    lesson = parse_lesson(data, "inline")
    assert lesson.steps[2].workspace == "lab"
    assert lesson.steps[3].workspace == "compare" and not lesson.steps[3].is_update
    assert parse_lesson(_shipped_data(), "inline") == parse_lesson(_shipped_data(), "inline")


BAD_UPDATE_FIELDS = [
    pytest.param(
        _set("steps.2.update", {"preset": "trl/dapo"}),
        "steps[2].update",
        'only on an update step ("workspace": "update")',
        id="update-settings-on-a-lab-step",
    ),
    pytest.param(
        _set("steps.2.workspace", "tokens"),
        "steps[2].workspace",
        "['lab', 'update', 'training', 'compare']",
        id="unknown-workspace",
    ),
    pytest.param(
        _set("steps.2.workspace", "compare"),
        "steps[2].workspace",
        "only on a compare step",
        id="compare-workspace-on-a-lab-step",
    ),
    pytest.param(
        lambda data: (
            _compare_step(1, [_LAB, _LAB])(data),
            _set("steps.1.workspace", "update")(data),
        ),
        "steps[1].workspace",
        "must be 'compare' on a compare step, got 'update'",
        id="update-workspace-on-a-compare-step",
    ),
    pytest.param(
        _update_step(2, update=[1, 2]),
        "steps[2].update",
        "must be an object, got a list",
        id="update-not-an-object",
    ),
    pytest.param(
        _update_step(2, update={"preset": "trl/dapo", "temperature": 1.0}),
        "steps[2].update",
        "unknown update setting(s): temperature",
        id="unknown-update-setting",
    ),
    pytest.param(
        _update_step(2, update={"preset": "trl/ppo"}),
        "steps[2].update",
        "unknown loss preset 'trl/ppo'",
        id="unknown-loss-preset",
    ),
    pytest.param(
        _update_step(2, update={"compare_preset": 3}),
        "steps[2].update",
        "unknown loss preset 3",
        id="compare-preset-not-a-name",
    ),
    pytest.param(
        _update_step(2, update={"inner_steps": 51}),
        "steps[2].update",
        "inner_steps must be a whole number from 0 to 50",
        id="too-many-inner-steps",
    ),
    pytest.param(
        _update_step(2, update={"inner_steps": 2.0}),
        "steps[2].update",
        "inner_steps must be a whole number",
        id="inner-steps-not-whole",
    ),
    pytest.param(
        _update_step(2, update={"eps_high": "0.28"}),
        "steps[2].update",
        "eps_high must be a finite number",
        id="eps-high-a-string",
    ),
    pytest.param(
        _update_step(2, update={"beta": True}),
        "steps[2].update",
        "beta must be a finite number",
        id="beta-a-boolean",
    ),
    pytest.param(
        _update_step(2, update={"learning_rate": 0}),
        "steps[2].update",
        "learning_rate must lie in (0, 5]",
        id="learning-rate-zero",
    ),
    pytest.param(
        _update_step(2, update={"kl_estimator": "k4"}),
        "steps[2].update",
        "kl_estimator must be k1, k2 or k3",
        id="unknown-kl-estimator",
    ),
    pytest.param(
        _update_step(2, highlight="cards"),
        "steps[2].highlight",
        "on an update step (the lab is not on screen), got 'cards'",
        id="lab-highlight-on-an-update-step",
    ),
    pytest.param(
        _update_step(2, highlight="math"),
        "steps[2].highlight",
        "got 'math'",
        id="math-highlight-on-an-update-step",
    ),
    pytest.param(
        _set("steps.2.highlight", "tokens"),
        "steps[2].highlight",
        "can be 'tokens' only on an update step",
        id="tokens-highlight-on-a-lab-step",
    ),
    pytest.param(
        _set("steps.2.highlight", "push-chart"),
        "steps[2].highlight",
        "can be 'push-chart' only on an update step",
        id="push-chart-highlight-on-a-lab-step",
    ),
    pytest.param(
        _update_step(1, hide_advantages=True),
        "steps[1].hide_advantages",
        "must be false on an update step",
        id="update-step-hides-the-advantages",
    ),
    pytest.param(
        lambda data: (
            _update_step(0, hide_advantages=False, highlight="none")(data),
            _set("steps.0.view", "advantage")(data),
        ),
        "steps[0].hide_advantages",
        "must be true: step 1 would show the advantages of rewards 1, 0, 0, 1 before step 2",
        id="update-step-spoils-a-later-prediction",
    ),
    pytest.param(
        _update_step(2, remarks="x"),
        "steps[2]",
        "unknown field(s) ['remarks']",
        id="unknown-field-on-an-update-step",
    ),
]


@pytest.mark.parametrize(("mutate", "field", "detail"), BAD_UPDATE_FIELDS)
def test_a_bad_update_step_names_the_file_and_the_field(
    tmp_path: Path, mutate: Callable[[dict[str, Any]], None], field: str, detail: str
) -> None:
    data = copy.deepcopy(_shipped_data())
    mutate(data)
    with pytest.raises(LessonError) as info:
        load_lesson_file(_write(tmp_path, data))
    message = str(info.value)
    assert message.startswith("group-is-baseline.json: "), message
    assert f"'{field}'" in message, message
    assert detail in message, message


def test_a_step_built_in_code_gets_its_workspace_and_settings() -> None:
    lab = LessonLab("length-bias-sum", (True, False))
    step = LessonStep("t", "x", lab, None, "cards", "advantage")
    assert step.workspace == "lab" and step.update is None
    update = LessonStep("t", "x", lab, None, "tokens", "advantage", workspace="update")
    assert update.update == UpdateSettings() and update.is_update
    easy = LessonLab("easy-add-17-25", (True, True, True, True, False))
    assert LessonStep("t", "x", None, (easy, easy), "compare", "advantage").workspace == "compare"
    with pytest.raises(ValueError, match="workspace must be one of"):
        LessonStep("t", "x", None, (easy, easy), "compare", "advantage", workspace="update")
    with pytest.raises(ValueError, match="workspace must be one of"):
        LessonStep("t", "x", lab, None, "cards", "advantage", workspace="compare")
    with pytest.raises(ValueError, match="only an update step sets update settings"):
        LessonStep("t", "x", lab, None, "cards", "advantage", update=UpdateSettings())
    with pytest.raises(ValueError, match="cannot hide the advantages"):
        LessonStep("t", "x", lab, None, "tokens", "advantage", True, workspace="update")


# --- the shipped length-bias lesson: its settings are valid and its claims are true -------------

_NUMBER = re.compile(r"(?<![\w.])[+±" + MINUS + r"]?\d+(?:\.\d+)?")


def _update_snapshot(step: LessonStep):
    assert step.lab is not None and step.update is not None
    lab = build_snapshot(get_problem(step.lab.problem_id), step.lab.correct, step.lab.convention)
    return build_update_snapshot(lab, step.update)


def update_numbers_shown(step: LessonStep) -> set[str]:
    """Every number an update step's screen shows: the problem's prompt, each answer's token
    count and, as the push chart writes them, each answer's total and the net push under both
    presets."""
    assert step.lab is not None
    shown = set(re.findall(r"\d+(?:\.\d+)?", get_problem(step.lab.problem_id).prompt))
    snapshot = _update_snapshot(step)
    shown |= {str(len(row.tokens)) for row in snapshot.rows}
    values = [row.total_push for row in snapshot.rows]
    values += [row.compare_total_push for row in snapshot.rows]
    values += [snapshot.net_push, snapshot.compare_net_push]
    for value in values:
        for places in range(1, 5):
            shown.add(signed(value, places))
    return shown


def update_step_number_problems(step: LessonStep) -> list[str]:
    """Numbers an update step's text quotes that its screen does not show."""
    text = _TAG.sub("", step.text)
    shown = update_numbers_shown(step)
    return [match.group(0) for match in _NUMBER.finditer(text) if match.group(0) not in shown] + [
        f"{m.group(0)!r} uses a hyphen" for m in _ASCII_NEGATIVE.finditer(text)
    ]


UPDATE_STEP_CASES = [
    pytest.param(lesson, index, id=f"{lesson.id}-step{index}")
    for lesson in LESSONS
    for index, step in enumerate(lesson.steps)
    if step.is_update
]


@pytest.mark.parametrize(("lesson", "index"), UPDATE_STEP_CASES)
def test_an_update_step_quotes_only_numbers_its_screen_shows(lesson: Lesson, index: int) -> None:
    step = lesson.steps[index]
    assert update_step_number_problems(step) == [], f"{lesson.id} step {index}"
    assert quoted_numbers(step)[0] == []  # no advantage, mean or std: the lab is not on screen


def test_the_update_number_check_catches_wrong_numbers() -> None:
    lab = LessonLab("length-bias-sum", (True, False))
    step = LessonStep(
        "t",
        "Totals +0.15 and −0.85, net −0.69 over 11 and 61 tokens; not +0.16, 0.50 or 12 tokens.",
        lab,
        None,
        "push-chart",
        "advantage",
        workspace="update",
    )
    assert update_step_number_problems(step) == ["+0.16", "0.50", "12"]


def test_the_length_bias_lesson_ships_with_valid_update_steps() -> None:
    lesson = get_lesson(LENGTH_BIAS)
    assert lesson.title == "The length bias" and lesson.order == 30
    assert 4 <= len(lesson.steps) <= 7
    assert predict_spoilers(lesson.steps) == []
    assert not lesson.steps[0].is_update  # the group in the lab first
    assert lesson.steps[0].lab == LessonLab("length-bias-sum", (True, False))
    assert sum(step.is_update for step in lesson.steps) >= 3
    problems = set()
    for step in lesson.steps:
        assert step.lab is not None and step.compare is None
        problems.add(step.lab.problem_id)
        if step.is_update:
            assert step.update is not None
            assert check_update_settings(step.update) is step.update
            assert step.highlight in UPDATE_HIGHLIGHTS and not step.hide_advantages
            _update_snapshot(step)  # builds
    assert problems == {"length-bias-sum", "mult-23x47"}
    presets = {step.update.preset for step in lesson.steps if step.update is not None}
    assert {"verl/token-mean", "verl/seq-mean-token-mean", "trl/dr_grpo"} <= presets


def test_the_length_bias_lessons_claims_are_what_the_update_step_computes() -> None:
    steps = {step.title: step for step in get_lesson(LENGTH_BIAS).steps}

    first = steps["Short and right, long and wrong"]
    assert first.lab is not None
    stats = core.group_stats(first.lab.rewards, first.lab.convention)
    assert [float(a) for a in stats.advantages] == [1.0, -1.0]

    # Token-mean: every token's push is A / N; the long wrong answer outweighs, the batch goes down.
    for title in ("Every token weighs the same", "Add up the pushes"):
        snapshot = _update_snapshot(steps[title])
        assert snapshot.settings.preset == "verl/token-mean"
        right, wrong = snapshot.rows
        assert len(wrong.tokens) > 3 * len(right.tokens)
        n = snapshot.token_count
        assert all(t.push == pytest.approx(1 / n) for t in right.tokens)
        assert all(t.push == pytest.approx(-1 / n) for t in wrong.tokens)
        assert abs(wrong.total_push) > 3 * right.total_push > 0
        assert snapshot.net_push < 0  # "the batch's likelihood goes down"

    # Seq-mean-token-mean: A / (n_i · B); the short answer's tokens each get the bigger push,
    # and the totals are equal and opposite.
    snapshot = _update_snapshot(steps["Every answer weighs the same"])
    assert snapshot.settings.preset == "verl/seq-mean-token-mean"
    right, wrong = snapshot.rows
    for row in (right, wrong):
        per_token = row.advantage / (len(row.tokens) * len(snapshot.rows))
        assert all(t.push == pytest.approx(per_token) for t in row.tokens)
    assert right.tokens[0].push > 3 * abs(wrong.tokens[0].push)
    assert right.total_push == pytest.approx(-wrong.total_push)
    assert snapshot.net_push == pytest.approx(0, abs=1e-6)

    # Dr. GRPO: a constant divisor, the same per-token push in both answers; dapo is token-mean.
    # (Its steps' claims in full: tests/core/test_length_bias_lesson.py.)
    snapshot = _update_snapshot(steps["What it does not change"])
    assert snapshot.settings.preset == "trl/dr_grpo"
    assert snapshot.settings.compare_preset == "trl/dapo"
    pushes = {round(abs(t.push), 12) for row in snapshot.rows for t in row.tokens}
    assert len(pushes) == 1
    token_mean = _update_snapshot(steps["Every token weighs the same"])
    assert [row.compare_total_push for row in snapshot.rows] == pytest.approx(
        [row.total_push for row in token_mean.rows]
    )

    # 23 × 47: answers of similar length, so the two presets' bars are much closer.
    def gap(step: LessonStep) -> float:
        rows = _update_snapshot(step).rows
        return max(abs(r.total_push - r.compare_total_push) for r in rows)

    same = steps["Same lengths, small bias"]
    assert same.lab is not None and same.lab.problem_id == "mult-23x47"
    lengths = [len(row.tokens) for row in _update_snapshot(same).rows]
    assert (min(lengths), max(lengths)) == (17, 29)  # "run from 17 to 29 tokens"
    assert "from 17 to 29 tokens" in same.text
    assert gap(same) < gap(steps["Add up the pushes"]) / 3


# --- training steps: the Training workspace in a lesson -----------------------------------------

STALL = "why-runs-stall"
_TRAINING_STEP = {
    "workspace": "training",
    "training": {"algorithms": ["grpo", "dapo"], "steps": 100},
    "training_steps": 40,
    "metric": "groups_sampled",
    "focus": "dapo",
    "highlight": "frontier",
    "view": "advantage",
}


def _training_step(index: int, **fields: object) -> Callable[[dict[str, Any]], None]:
    """A mutation that turns step ``index`` into a training step (``_DROP`` removes a field)."""

    def mutate(data: dict[str, Any]) -> None:
        step = data["steps"][index]
        for key in ("lab", "compare", "hide_advantages"):
            step.pop(key, None)
        step.update(copy.deepcopy(_TRAINING_STEP))
        for key, value in fields.items():
            if value is _DROP:
                step.pop(key, None)
            else:
                step[key] = value

    return mutate


def test_a_training_step_parses_with_its_run() -> None:
    data = _shipped_data()
    _training_step(2)(data)
    _training_step(3, training=_DROP, training_steps=_DROP, metric=_DROP, focus=_DROP)(data)
    lesson = parse_lesson(data, "inline")
    step = lesson.steps[2]
    assert step.workspace == "training" and step.is_training and not step.is_update
    assert step.lab is None and step.compare is None and step.labs == ()
    assert step.training == TrainingConfig(algorithms=("grpo", "dapo"), steps=100)
    assert (step.training_steps, step.metric, step.focus) == (40, "groups_sampled", "dapo")
    assert step.highlight == "frontier" and step.update is None
    # Left out, every field takes its default (not the previous step's): paging either way
    # shows the same run.
    default = lesson.steps[3]
    assert default.training == TrainingConfig()
    assert (default.training_steps, default.metric, default.focus) == (0, DEFAULT_METRIC, "grpo")
    assert DEFAULT_METRIC == "degenerate_fraction"
    for other in (lesson.steps[0], lesson.steps[4]):
        assert other.workspace == "lab" and not other.is_training
        assert (other.training, other.training_steps, other.metric, other.focus) == (
            None,
            0,
            None,
            None,
        )


@pytest.mark.parametrize("highlight", TRAINING_HIGHLIGHTS)
def test_every_training_highlight_is_allowed_on_a_training_step(highlight: str) -> None:
    data = _shipped_data()
    _training_step(2, highlight=highlight)(data)
    assert parse_lesson(data, "inline").steps[2].highlight == highlight
    assert highlight in HIGHLIGHTS


def test_a_training_steps_focus_defaults_to_grpo_or_the_first_algorithm() -> None:
    data = _shipped_data()
    _training_step(2, focus=_DROP)(data)
    _training_step(3, focus=_DROP, training={"algorithms": ["rloo", "dapo"], "steps": 50})(data)
    lesson = parse_lesson(data, "inline")
    assert lesson.steps[2].focus == "grpo"
    assert lesson.steps[3].focus == "rloo"


BAD_TRAINING_FIELDS = [
    pytest.param(
        _set("steps.2.training", {"steps": 10}),
        "steps[2].training",
        'only on a training step ("workspace": "training")',
        id="training-on-a-lab-step",
    ),
    pytest.param(
        _set("steps.2.training_steps", 3),
        "steps[2].training_steps",
        "only on a training step",
        id="training-steps-on-a-lab-step",
    ),
    pytest.param(
        _set("steps.2.metric", "kl"),
        "steps[2].metric",
        "only on a training step",
        id="metric-on-lab",
    ),
    pytest.param(
        _set("steps.2.focus", "grpo"),
        "steps[2].focus",
        "only on a training step",
        id="focus-on-lab",
    ),
    pytest.param(
        _training_step(2, lab=_LAB),
        "steps[2].lab",
        "must be left out on a training step",
        id="lab-on-a-training-step",
    ),
    pytest.param(
        _training_step(2, compare=[_LAB, _LAB]),
        "steps[2].compare",
        "must be left out on a training step",
        id="compare-on-a-training-step",
    ),
    pytest.param(
        _training_step(2, update={"preset": "trl/dapo"}),
        "steps[2].update",
        "must be left out on a training step",
        id="update-settings-on-a-training-step",
    ),
    pytest.param(
        _training_step(2, training=[1]),
        "steps[2].training",
        "must be an object, got a list",
        id="training-not-an-object",
    ),
    pytest.param(
        _training_step(2, training={"temperature": 1.0}),
        "steps[2].training",
        "unknown training setting(s): temperature",
        id="unknown-training-setting",
    ),
    pytest.param(
        _training_step(2, training={"algorithms": ["grpo", "ppo"]}),
        "steps[2].training",
        "unknown algorithm 'ppo'",
        id="unknown-algorithm",
    ),
    pytest.param(
        _training_step(2, training={"group_size": 1}),
        "steps[2].training",
        "group_size must be from 2 to 64; got 1",
        id="group-size-too-small",
    ),
    pytest.param(
        _training_step(2, training={"steps": MAX_TRAINING_STEPS + 1}),
        "steps[2].training.steps",
        f"must be at most {MAX_TRAINING_STEPS} in a lesson",
        id="run-too-long",
    ),
    pytest.param(
        _training_step(2, training={"steps": 400, "seeds": 32}, training_steps=400),
        "steps[2].training",
        "is too large for a lesson: the run samples",
        id="run-too-costly",
    ),
    pytest.param(
        _training_step(2, training_steps=101),
        "steps[2].training_steps",
        "must be from 0 to the run's 100 steps, got 101",
        id="more-steps-shown-than-the-run-has",
    ),
    pytest.param(
        _training_step(2, training_steps=-1),
        "steps[2].training_steps",
        "must be from 0 to the run's 100 steps, got -1",
        id="negative-training-steps",
    ),
    pytest.param(
        _training_step(2, training_steps=True),
        "steps[2].training_steps",
        "must be an integer, got a boolean",
        id="training-steps-a-boolean",
    ),
    pytest.param(
        _training_step(2, metric="loss"), "steps[2].metric", "'pass_rate'", id="unknown-metric"
    ),
    pytest.param(
        _training_step(2, focus="rloo"),
        "steps[2].focus",
        "must be one of ['grpo', 'dapo'], got 'rloo'",
        id="focus-not-in-the-run",
    ),
    pytest.param(
        _training_step(2, highlight="cards"),
        "steps[2].highlight",
        "on a training step (the lab is not on screen), got 'cards'",
        id="lab-highlight-on-a-training-step",
    ),
    pytest.param(
        _training_step(2, highlight="tokens"),
        "steps[2].highlight",
        "got 'tokens'",
        id="update-highlight-on-a-training-step",
    ),
    pytest.param(
        _set("steps.2.highlight", "frontier"),
        "steps[2].highlight",
        "can be 'frontier' only on a training step",
        id="frontier-highlight-on-a-lab-step",
    ),
    pytest.param(
        _update_step(2, highlight="training-charts"),
        "steps[2].highlight",
        "got 'training-charts'",
        id="training-highlight-on-an-update-step",
    ),
    pytest.param(
        _training_step(2, hide_advantages=True),
        "steps[2].hide_advantages",
        "must be false on a training step",
        id="training-step-hides-the-advantages",
    ),
    pytest.param(
        _training_step(2, view="tokens"), "steps[2].view", "'advantage'", id="training-bad-view"
    ),
    pytest.param(
        _training_step(2, remarks="x"),
        "steps[2]",
        "unknown field(s) ['remarks']",
        id="unknown-field-on-a-training-step",
    ),
]


@pytest.mark.parametrize(("mutate", "field", "detail"), BAD_TRAINING_FIELDS)
def test_a_bad_training_step_names_the_file_and_the_field(
    tmp_path: Path, mutate: Callable[[dict[str, Any]], None], field: str, detail: str
) -> None:
    data = copy.deepcopy(_shipped_data())
    mutate(data)
    with pytest.raises(LessonError) as info:
        load_lesson_file(_write(tmp_path, data))
    message = str(info.value)
    assert message.startswith("group-is-baseline.json: "), message
    assert f"'{field}'" in message, message
    assert detail in message, message


def test_a_training_step_built_in_code_gets_its_defaults_and_checks() -> None:
    step = LessonStep("t", "x", None, None, "frontier", "advantage")
    assert step.workspace == "training" and step.is_training
    assert step.training == TrainingConfig() and step.metric == DEFAULT_METRIC
    assert step.focus == "grpo" and step.convention == "textbook"
    lab = LessonLab("mult-23x47", (True, False))
    with pytest.raises(ValueError, match="only a training step sets"):
        LessonStep("t", "x", lab, None, "cards", "advantage", training_steps=3)
    with pytest.raises(ValueError, match="workspace must be one of"):
        LessonStep("t", "x", lab, None, "cards", "advantage", workspace="training")
    with pytest.raises(ValueError, match="at most 400 steps"):
        LessonStep("t", "x", None, None, "none", "advantage", training=TrainingConfig(steps=401))
    with pytest.raises(ValueError, match="training_steps must be from 0"):
        LessonStep("t", "x", None, None, "none", "advantage", training_steps=201)
    with pytest.raises(ValueError, match="unknown metric"):
        LessonStep("t", "x", None, None, "none", "advantage", metric="loss")
    with pytest.raises(ValueError, match="focus must be one of"):
        LessonStep("t", "x", None, None, "none", "advantage", focus="nope")
    with pytest.raises(ValueError, match="cannot hide the advantages"):
        LessonStep("t", "x", None, None, "none", "advantage", True)


def test_the_answer_budget_counts_dapos_extra_draws() -> None:
    config = TrainingConfig(algorithms=("grpo", "dapo"), seeds=2, group_size=4, batch=3)
    assert training_answers(config, 10) == (3 + 3 * config.dapo_max_draws) * 2 * 4 * 10
    # The default run fits a lesson for most of its length (about a microsecond per answer).
    assert training_answers(TrainingConfig(), 150) <= MAX_TRAINING_ANSWERS


TRAINING_STEP_CASES = [
    pytest.param(lesson, index, id=f"{lesson.id}-step{index}")
    for lesson in LESSONS
    for index, step in enumerate(lesson.steps)
    if step.is_training
]


def _shown_run(step: LessonStep) -> tuple[TrainingRun, TrainingSnapshot]:
    """The run a training step shows, computed as the lesson controller computes it."""
    assert step.training is not None and step.metric is not None
    run = TrainingRun(step.training)
    run.run(step.training_steps)
    return run, build_training_snapshot(run, metric=step.metric, focus=step.focus)


@pytest.mark.parametrize(("lesson", "index"), TRAINING_STEP_CASES)
def test_every_training_step_is_a_small_valid_run(lesson: Lesson, index: int) -> None:
    step = lesson.steps[index]
    assert step.training is not None
    assert check_training_config(step.training) is step.training
    assert step.training.steps <= MAX_TRAINING_STEPS
    assert 0 <= step.training_steps <= step.training.steps
    assert training_answers(step.training, step.training_steps) <= MAX_TRAINING_ANSWERS / 2
    assert step.metric in METRICS and step.focus in step.training.algorithms
    assert step.highlight in TRAINING_HIGHLIGHTS and not step.hide_advantages
    run, snapshot = _shown_run(step)
    assert run.step_count == snapshot.steps_done == step.training_steps
    assert snapshot.metric == step.metric and snapshot.focus == step.focus


# What a training step's screen shows as numbers: the frontier formula is quoted, not computed.
_FRONTIER_FORMULA = "1 − p^G − (1 − p)^G"


def training_numbers_shown(step: LessonStep) -> set[str]:
    """Numbers a training step's screen shows: the run's settings, the step count, the G of each
    frontier curve, and every number in the status line above the charts."""
    assert step.training is not None
    config = step.training
    shown = {str(size) for size in FRONTIER_GROUP_SIZES}
    shown |= {str(value) for value in (config.group_size, config.batch, config.seeds)}
    shown |= {str(config.steps), str(step.training_steps)}
    _, snapshot = _shown_run(step)
    shown |= set(re.findall(r"\d+(?:\.\d+)?", snapshot.status))
    return shown


def training_step_number_problems(step: LessonStep) -> list[str]:
    """Numbers a training step's text quotes that its screen does not show."""
    text = _TAG.sub("", step.text).replace("\u00a0", " ").replace(_FRONTIER_FORMULA, "")
    shown = training_numbers_shown(step)
    return [match.group(0) for match in _NUMBER.finditer(text) if match.group(0) not in shown] + [
        f"{m.group(0)!r} uses a hyphen" for m in _ASCII_NEGATIVE.finditer(text)
    ]


@pytest.mark.parametrize(("lesson", "index"), TRAINING_STEP_CASES)
def test_a_training_step_quotes_only_numbers_its_screen_shows(lesson: Lesson, index: int) -> None:
    step = lesson.steps[index]
    assert training_step_number_problems(step) == [], f"{lesson.id} step {index}"
    assert quoted_numbers(step)[0] == []  # no advantage, mean or std: no group on screen


def test_the_training_number_check_catches_wrong_numbers() -> None:
    config = TrainingConfig(algorithms=("grpo",), steps=60, group_size=16)
    step = LessonStep(
        "t",
        "After 30 steps of G = 16 (not 12), 1 − p^G − (1 − p)^G; 0.78 of groups, -1.",
        None,
        None,
        "frontier",
        "advantage",
        training=config,
        training_steps=30,
    )
    assert training_step_number_problems(step) == ["12", "0.78", "1", "'-1' uses a hyphen"]


# --- the shipped lesson "Why runs stall": its claims are what the run computes -----------------


def _mean(values: np.ndarray) -> np.ndarray:
    """Mean over seeds per step (NaN at step 0, where nothing was sampled)."""
    finite = np.isfinite(values)
    return np.where(finite.any(axis=1), np.where(finite, values, 0).sum(axis=1), np.nan) / (
        np.maximum(finite.sum(axis=1), 1)
    )


def test_the_stall_lesson_ships_in_order() -> None:
    lesson = get_lesson(STALL)
    assert lesson.title == "Why runs stall" and lesson.order == 40
    assert 5 <= len(lesson.steps) <= 7
    assert predict_spoilers(lesson.steps) == []
    kinds = [step.workspace for step in lesson.steps]
    assert kinds[0] == "lab" and set(kinds[1:]) == {"training"}
    highlights = {step.highlight for step in lesson.steps}
    assert {"banner", "frontier", "training-charts"} <= highlights
    for step in lesson.steps:
        assert "<" not in _TAG.sub("", step.text)  # only <b> and <i>


def test_the_stall_lesson_starts_with_a_group_that_teaches_nothing() -> None:
    first = get_lesson(STALL).steps[0]
    assert first.lab is not None and first.highlight == "banner"
    assert get_problem(first.lab.problem_id).difficulty == "easy"
    assert all(first.lab.correct) and len(first.lab.correct) == 8  # "all eight answers"
    stats = core.group_stats(first.lab.rewards, first.lab.convention)
    assert stats.degenerate and not stats.advantages.any()
    assert "eight" in first.text


def test_the_stall_lesson_asks_before_it_reveals() -> None:
    steps = get_lesson(STALL).steps
    ask, reveal = steps[1], steps[2]
    assert ask.training_steps == 0 and ask.highlight == "frontier" and "?" in ask.text
    assert "softmax" in ask.text  # honest about the toy
    assert "1\u00a0−\u00a0p^G\u00a0−\u00a0(1\u00a0−\u00a0p)^G" in ask.text  # never split in two
    assert reveal.training == ask.training and reveal.training_steps > 0
    assert reveal.highlight == "frontier" and "?" not in reveal.text
    assert f"{reveal.training_steps} steps" in _TAG.sub("", reveal.text)
    # The reveal: every dot slid right, down the curve, to a pass rate the policy nearly always
    # gets right.
    _, before = _shown_run(ask)
    _, after = _shown_run(reveal)
    assert [dot.problem_id for dot in before.dots] == [dot.problem_id for dot in after.dots]
    for start, end in zip(before.dots, after.dots):
        assert end.pass_rate > start.pass_rate, end.problem_id
        assert end.informative < start.informative, end.problem_id
        assert end.pass_rate >= 0.9, end.problem_id
    assert max(dot.informative for dot in after.dots) < min(dot.informative for dot in before.dots)


def test_the_stall_lessons_degenerate_share_climbs() -> None:
    step = next(s for s in get_lesson(STALL).steps if s.title == "Most groups teach nothing")
    assert step.metric == "degenerate_fraction" and step.highlight == "training-charts"
    assert step.training is not None and step.training.algorithms == ("grpo",)
    run, _ = _shown_run(step)
    share = _mean(run.history("grpo")["degenerate_fraction"])[1:]
    early, late = share[:25].mean(), share[-25:].mean()
    assert late > 0.5 > early and late > 3 * early  # most groups teach nothing by the end
    assert "climbs" in step.text


def test_the_stall_lessons_dapo_draws_more_until_its_cap() -> None:
    step = next(s for s in get_lesson(STALL).steps if s.title == "DAPO draws more")
    assert step.metric == "groups_sampled" and step.highlight == "training-charts"
    assert step.training is not None and step.training.algorithms == ("grpo", "dapo")
    run, _ = _shown_run(step)
    config = step.training
    grpo = run.history("grpo")["groups_sampled"][1:]
    dapo = _mean(run.history("dapo")["groups_sampled"])[1:]
    assert (grpo == config.batch).all()  # "GRPO's stay flat"
    assert dapo[:10].mean() < config.batch + 2  # near the batch at first
    assert dapo[-20:].min() == config.batch * config.dapo_max_draws  # "flattens at its cap"
    assert (run.history("dapo")["groups_sampled"][1:] > config.batch).any(axis=1).mean() > 0.5
    # "nearly every problem is solved": by the end DAPO's problems sit near a pass rate of 1.
    assert run.pass_rates("dapo")[-1].mean(axis=0).min() > 0.95
    used = _mean(run.history("dapo")["groups_used"])[1:]
    assert used[:50].min() == config.batch and used[-20:].mean() < config.batch / 2
    # GRPO's lines are the previous step's exactly: DAPO beside it changes no draw of GRPO's.
    alone = next(s for s in get_lesson(STALL).steps if s.title == "Most groups teach nothing")
    assert alone.training == dataclasses.replace(config, algorithms=("grpo",))
    before, _ = _shown_run(alone)
    for metric in ("pass_rate", "degenerate_fraction"):
        assert np.array_equal(
            before.history("grpo")[metric], run.history("grpo")[metric], equal_nan=True
        )


def test_the_stall_lessons_bigger_group_widens_the_frontier_and_delays_the_stall() -> None:
    steps = get_lesson(STALL).steps
    small = next(s for s in steps if s.title == "Most groups teach nothing")
    big = next(s for s in steps if s.title == "A bigger group widens the frontier")
    assert small.training is not None and big.training is not None
    assert big.training == dataclasses.replace(small.training, group_size=16)
    assert small.training.group_size == 8 and big.training_steps == small.training_steps
    p = np.linspace(0.01, 0.99, 99)
    assert (informative_probability(p, 16) > informative_probability(p, 8)).all()  # wider

    def share(step: LessonStep) -> np.ndarray:
        run, _ = _shown_run(step)
        return _mean(run.history("grpo")["degenerate_fraction"])[1:]

    def first_above_half(values: np.ndarray) -> int:
        smooth = np.convolve(values, np.ones(10) / 10, mode="valid")
        return int(np.argmax(smooth > 0.5))

    eight, sixteen = share(small), share(big)
    assert sixteen.mean() < eight.mean()
    assert first_above_half(sixteen) > first_above_half(eight) + 10  # "climbs later"
    assert "twice the answers" in big.text  # G = 16 samples twice G = 8's answers per group


def test_every_shipped_step_has_notes_for_the_lecturer():
    for lesson in load_lessons():
        for step in lesson.steps:
            assert step.notes.strip(), (lesson.id, step.title)
            assert "<" not in step.notes  # plain text: the console shows it as written


@pytest.mark.parametrize(
    ("notes", "words"),
    [
        (3, "non-empty string"),
        ("", "non-empty string"),
        ("x" * 801, "at most 800"),
        ("a\u202eb", ""),
    ],
)
def test_bad_notes_name_the_field(notes, words):
    document = _shipped_data()
    document["steps"][0]["notes"] = notes
    with pytest.raises(LessonError) as info:
        parse_lesson(document, "group-is-baseline.json")
    assert "steps[0].notes" in str(info.value) and words in str(info.value)
