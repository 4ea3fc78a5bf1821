"""Scenario files keep a lab's rewards: weights, continuous mode's scores, a real run's group."""

from __future__ import annotations

import json
import math

import pytest
from rollout_files import recorded

from grpo_desktop.core.files.scenario import (
    MAX_SCENARIO_BYTES,
    Scenario,
    ScenarioError,
    load_scenario,
    parse_scenario,
    save_scenario,
    scenario_to_json,
)
from grpo_desktop.core.lab.lab_memento import LabMemento
from grpo_desktop.core.lab.lab_rewards import RewardWeights
from grpo_desktop.core.lab.problems import get_problem
from grpo_desktop.core.lab.recorded_group import RecordedGroup

GROUP = RecordedGroup(
    run_format="trl",
    file_name="completions_00012.parquet",
    step=12,
    group_index=3,
    group_count=8,
    prompt="<|im_start|>user\nWhat is <b>2</b> + 2?<|im_end|>",
    answer_key=None,
    texts=("It is 4.", "It is 5.", "Four: \\boxed{4}"),
    rewards=(1.5, 0.5, 1.0),
    components=(("accuracy_reward", (1.0, 0.0, math.nan)), ("format_reward", (0.5, 0.5, 1.0))),
    logged_advantages=(0.87, -1.09, 0.22),
)


def scenario_of(memento: LabMemento) -> Scenario:
    return Scenario.from_lab(memento, "trl", "advantage")


def round_trip(scenario: Scenario) -> Scenario:
    return parse_scenario(scenario_to_json(scenario), "lab.grpo.json")


def test_weights_and_hand_set_scores_come_back_exactly():
    memento = LabMemento(
        get_problem("mult-23x47"),
        (True, False, False, True),
        None,
        RewardWeights(accuracy=1.0, format=0.5, partial=0.25),
        (1.0, 0.33, 0.0, 0.75),
    )
    text = scenario_to_json(scenario_of(memento))
    assert '"reward_weights": {' in text and '"scores": [1.0, 0.33, 0.0, 0.75]' in text
    assert round_trip(scenario_of(memento)).lab_memento() == memento


def test_a_plain_lab_saves_as_it_always_did():
    text = scenario_to_json(scenario_of(LabMemento(get_problem("mult-23x47"), (True, False), None)))
    assert "reward_weights" not in text and "scores" not in text


def test_a_runs_group_comes_back_with_its_texts_rewards_and_missing_components():
    memento = LabMemento(GROUP.problem(), (True, True, True), None, recorded=GROUP)
    loaded = round_trip(scenario_of(memento))
    assert loaded.recorded == GROUP or (
        loaded.recorded.texts == GROUP.texts
        and math.isnan(dict(loaded.recorded.components)["accuracy_reward"][2])
    )
    assert loaded.problem == GROUP.problem()
    data = json.loads(scenario_to_json(scenario_of(memento)))
    assert data["problem"]["recorded"]["components"]["accuracy_reward"] == [1.0, 0.0, None]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.update(reward_weights={"style": 1}), "unknown reward function 'style'"),
        (lambda d: d.update(reward_weights={"format": 99}), "between"),
        (lambda d: d.update(reward_weights={"format": True}), "must be a number"),
        (lambda d: d.update(scores=[0.1, 0.2]), "must have 4 entries"),
        (lambda d: d.update(scores=[0, 1, "x", 0]), "scores"),
        (lambda d: d["problem"]["recorded"].update(texts=["a"]), "number of answers"),
        (
            lambda d: d["problem"]["recorded"].update(rewards=[1, 0, None, 1]),
            r"rewards\[2\] must be a finite number",
        ),
        (
            lambda d: d["problem"]["recorded"].update(rewards=[1, 0, 1e308, 1]),
            r"field 'problem.recorded' has reward #3 = 1e\+308, beyond the ±1e\+100",
        ),
        (
            lambda d: d["problem"]["recorded"].update(rewards=[1e200, -1e200, 1e200, -1e200]),
            r"field 'problem.recorded' has reward #1 = 1e\+200, beyond the ±1e\+100",
        ),
        (lambda d: d["problem"]["recorded"].update(run_format="openrlhf"), "run_format"),
        (lambda d: d["problem"]["recorded"].pop("texts"), "has no 'texts'"),
        (lambda d: d["problem"]["recorded"].update(group_index=9), "below group_count"),
    ],
)
def test_bad_reward_fields_are_one_message_naming_the_field(tmp_path, change, message):
    group = recorded((1.0, 0.0, 1.0, 0.0), group_index=3, group_count=8)
    document = json.loads(
        scenario_to_json(
            scenario_of(LabMemento(group.problem(), (True,) * 4, None, recorded=group))
        )
    )
    change(document)
    path = tmp_path / "lab.grpo.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    with pytest.raises(ScenarioError, match=message) as info:
        load_scenario(path)
    assert str(info.value).startswith("lab.grpo.json: ")


@pytest.mark.slow  # builds a scenario over 8 MB
def test_a_scenario_too_large_to_read_back_is_refused_and_nothing_is_written(tmp_path):
    huge = "\x01" * 30_000  # each control character becomes six characters of JSON
    group = recorded((1.0,) * 64, texts=(huge,) * 64)
    scenario = scenario_of(LabMemento(group.problem(), (True,) * 64, None, recorded=group))
    target = tmp_path / "big.grpo.json"
    with pytest.raises(ScenarioError, match="more than a scenario may be"):
        save_scenario(scenario, target)
    assert not target.exists()
    assert MAX_SCENARIO_BYTES == 8_000_000


def test_a_training_sections_reward_weights_still_read_checked_and_outside_the_config():
    """The run is given the lab's weights, so a file's ``training.reward_weights`` (which older
    saves could hold) is read and checked but is no part of the run's config."""
    from grpo_desktop.core.training.training_config import TrainingConfig

    memento = LabMemento(get_problem("mult-23x47"), (True, False), None)
    scenario = Scenario.from_lab(memento, "trl", "advantage", training=TrainingConfig(steps=50))
    document = json.loads(scenario_to_json(scenario))
    document["training"]["reward_weights"] = {"format": 0.5}
    assert parse_scenario(json.dumps(document), "w.grpo.json").training == TrainingConfig(steps=50)
    document["training"]["reward_weights"] = {"format": 99}
    with pytest.raises(ScenarioError, match="training"):
        parse_scenario(json.dumps(document), "w.grpo.json")
