"""A group the tiny model samples for the lab: reproducible, graded by the lab's reward functions,
saved in a scenario and read back."""

from __future__ import annotations

import math

import numpy as np
import pytest

from grpo_desktop.core.files.scenario import Scenario, parse_scenario, scenario_to_json
from grpo_desktop.core.lab.lab_memento import LabMemento
from grpo_desktop.core.lab.lab_rewards import RewardWeights
from grpo_desktop.core.lab.recorded_group import SHIPPED_TINYLM_CHECKPOINT
from grpo_desktop.core.lab.reward_fields import recorded_from_dict, recorded_to_dict
from grpo_desktop.core.tinylm import UnknownCharactersError, get_task, load_model
from grpo_desktop.core.tinylm.lab_group import EXAMPLE_PROMPTS, owning_task, sample_lab_group
from grpo_desktop.core.tinylm.model import DEFAULT_CHECKPOINT
from grpo_desktop.core.tinylm.rewards import grade

WEIGHTS = RewardWeights(accuracy=1.0, format=0.5)


@pytest.fixture(scope="module")
def model():
    return load_model()


def test_the_same_seed_gives_the_same_group_and_the_models_own_completions(model):
    group = sample_lab_group(model, "23+45=", 8, seed=5, weights=WEIGHTS)
    assert group == sample_lab_group(model, "23+45=", 8, seed=5, weights=WEIGHTS)
    assert group.texts == tuple(model.sample("23+45=", 8, 5))
    assert group.run_format == "tinylm" and group.group_size == 8
    assert (group.step, group.group_index, group.group_count) == (0, 0, 1)
    assert group.file_name == DEFAULT_CHECKPOINT == SHIPPED_TINYLM_CHECKPOINT
    assert group.logged_advantages is None
    others = [sample_lab_group(model, "23+45=", 8, seed=s).texts for s in range(6, 10)]
    assert any(texts != group.texts for texts in others)


def test_rewards_are_the_reward_functions_weighted_sum_and_the_key_is_the_right_completion(model):
    group = sample_lab_group(model, "23+45=", 16, seed=1, temperature=1.5, weights=WEIGHTS)
    task = get_task("add")
    rewards, components = grade(task, ["23+45="] * 16, list(group.texts), WEIGHTS)
    assert group.rewards == tuple(rewards.tolist())
    assert dict(group.components) == {
        "accuracy": tuple(components["accuracy"].tolist()),
        "format": tuple(components["format"].tolist()),
    }
    assert group.answer_key == "68." == task.target("23+45=")
    accuracy = rewards - 0.5 * components["format"]
    assert all((text == "68.") == (acc == 1.0) for text, acc in zip(group.texts, accuracy))
    assert group.temperature == 1.5 and group.seed == 1


def test_the_origin_names_the_model_its_size_and_the_seed(model):
    group = sample_lab_group(model, "sort 5203=", 4, seed=7)
    assert group.origin == "the tiny language model (107,820 parameters), seed 7"
    assert group.answer_key == "0235." and owning_task("sort 5203=").name == "sort"
    assert "sort 5203=" in group.title and group.problem().answer_key == "0235."
    hot = sample_lab_group(model, "23+45=", 4, seed=7, temperature=2.0, checkpoint="mine.npz")
    assert hot.origin.endswith("seed 7, temperature 2, mine.npz")


def test_a_prompt_no_task_owns_has_no_answer_key_and_no_accuracy(model):
    assert owning_task("hello=") is None
    group = sample_lab_group(model, "hello=", 4, seed=0, weights=WEIGHTS)
    assert group.answer_key is None
    assert [name for name, _ in group.components] == ["format"]
    formats = dict(group.components)["format"]
    assert group.rewards == tuple(0.5 * f for f in formats)
    assert all(math.isfinite(r) for r in group.rewards)


def test_every_example_prompt_has_a_task():
    assert all(owning_task(prompt) is not None for prompt in EXAMPLE_PROMPTS)


@pytest.mark.parametrize("prompt", ["23+45=?", "What is 2+2", "Ünïcode="])
def test_characters_outside_the_vocabulary_are_refused_by_name(model, prompt):
    with pytest.raises(UnknownCharactersError, match="cannot read"):
        sample_lab_group(model, prompt, 8, seed=0)


def test_a_bad_group_size_or_temperature_is_refused(model):
    with pytest.raises(ValueError):
        sample_lab_group(model, "23+45=", 1, seed=0)
    with pytest.raises(ValueError, match="temperature"):
        sample_lab_group(model, "23+45=", 4, seed=0, temperature=0.0)


def test_a_scenario_saves_and_reopens_the_group(model):
    group = sample_lab_group(model, "38+47=", 8, seed=3, temperature=0.8, weights=WEIGHTS)
    assert recorded_from_dict(recorded_to_dict(group)) == group
    memento = LabMemento(group.problem(), (True,) * 8, None, WEIGHTS, recorded=group)
    text = scenario_to_json(Scenario.from_lab(memento, "trl", "advantage"))
    loaded = parse_scenario(text, "lab.grpo.json")
    assert loaded.recorded == group
    assert loaded.problem == group.problem()
    assert loaded.lab_memento() == memento


def test_a_saved_tinylm_group_with_bad_sampling_fields_is_refused(model):
    data = recorded_to_dict(sample_lab_group(model, "23+45=", 4, seed=0))
    with pytest.raises(ValueError, match="temperature"):
        recorded_from_dict({**data, "temperature": -1})
    with pytest.raises(ValueError, match="seed"):
        recorded_from_dict({**data, "seed": "x"})
    verl = {**data, "run_format": "verl"}
    with pytest.raises(ValueError, match="unknown key 'seed'"):
        recorded_from_dict(verl)
    np.testing.assert_equal(recorded_from_dict({**data, "seed": None}).seed, None)
