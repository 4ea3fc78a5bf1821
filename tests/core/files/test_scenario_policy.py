"""A scenario keeps the policy (toy or tiny model) and the tiny model's run settings."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from grpo_desktop.core.files.scenario import (
    Scenario,
    ScenarioError,
    load_scenario,
    parse_scenario,
    save_scenario,
)
from grpo_desktop.core.lab.problems import DEFAULT_PROBLEM_ID, get_problem
from grpo_desktop.core.tinylm.grpo_config import LMTrainingConfig
from grpo_desktop.core.training.policy_choice import PolicyChoice

FILE_NAME = "lesson.grpo.json"


def _scenario(**changes) -> Scenario:
    values = {
        "problem": get_problem(DEFAULT_PROBLEM_ID),
        "custom_problem": False,
        "correct": (True, False, False, True),
        "convention": "textbook",
        "view": "advantage",
        "sample_seed": None,
    }
    values.update(changes)
    return Scenario(**values)


def _document(**fields) -> str:
    document = {
        "format": "grpo-desktop-scenario",
        "schema": 1,
        "problem": {"id": DEFAULT_PROBLEM_ID},
        "group_size": 4,
        "correct": [True, False, False, True],
        "convention": "textbook",
        "view": "advantage",
    }
    document.update(fields)
    return json.dumps(document)


def test_the_tiny_model_and_its_run_settings_round_trip(tmp_path):
    scenario = _scenario(
        policy=PolicyChoice("tinylm", "/home/lecturer/runs/sorted.npz"),
        lm_training=replace(LMTrainingConfig(), algorithm="dapo", steps=60, group_size=16),
    )
    path = tmp_path / FILE_NAME
    save_scenario(scenario, path)
    written = json.loads(path.read_text(encoding="utf-8"))
    assert written["policy"] == {"kind": "tinylm", "checkpoint": "/home/lecturer/runs/sorted.npz"}
    assert written["lm_training"] == {"algorithm": "dapo", "steps": 60, "group_size": 16}
    assert load_scenario(path) == scenario


def test_a_toy_scenario_writes_neither_field(tmp_path):
    path = tmp_path / FILE_NAME
    save_scenario(_scenario(), path)
    written = json.loads(path.read_text(encoding="utf-8"))
    assert "policy" not in written and "lm_training" not in written


def test_the_shipped_checkpoint_is_written_without_a_path():
    scenario = parse_scenario(_document(policy={"kind": "tinylm"}), FILE_NAME)
    assert scenario.policy == PolicyChoice("tinylm")


@pytest.mark.parametrize(
    ("fields", "words"),
    [
        ({"policy": {"kind": "bandit"}}, "field 'policy'"),
        ({"policy": "tinylm"}, "must be an object"),
        ({"policy": {"kind": "toy", "checkpoint": "a.npz"}}, "only the tiny language model"),
        ({"policy": {"kind": "tinylm", "checkpoint": "a\nb.npz"}}, "control characters"),
        ({"policy": {"kind": "tinylm", "extra": 1}}, "unknown field(s): extra"),
        ({"lm_training": {"steps": 0}}, "steps must be a whole number"),
        ({"lm_training": {"algorithm": "ppo_critic"}}, "unknown algorithm"),
        ({"lm_training": {"convention": "verl"}}, "takes the scenario's convention"),
        ({"lm_training": {"lr": 1}}, "unknown setting(s): lr"),
        ({"lm_training": []}, "must be an object"),
    ],
)
def test_a_bad_policy_or_run_setting_is_one_message_naming_the_field(fields, words):
    with pytest.raises(ScenarioError) as info:
        parse_scenario(_document(**fields), FILE_NAME)
    message = str(info.value)
    assert message.startswith(f"{FILE_NAME}: ") and "\n" not in message
    assert words in message
