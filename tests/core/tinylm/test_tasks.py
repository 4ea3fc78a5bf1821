"""Tasks: right answers, a train / held-out split that never overlaps, and the lab's rewards."""

import numpy as np
import pytest

from grpo_desktop.core.lab.lab_rewards import RewardWeights
from grpo_desktop.core.tinylm.rewards import grade
from grpo_desktop.core.tinylm.tasks import HELD_OUT_SIZE, TASKS, get_task, task_names


def test_answers():
    assert get_task("add").target("23+45=") == "68."
    assert get_task("add").answer("99+99=") == "198"
    assert get_task("add3").answer("999+1=") == "1000"
    assert get_task("sort").target("sort 5203=") == "0235."


@pytest.mark.parametrize("prompt", ["23+45", "123+4=", "07+1=", "sort 12=", "hello"])
def test_foreign_prompts_are_refused(prompt):
    with pytest.raises(ValueError):
        get_task("add").answer(prompt)


def test_every_prompt_fits_the_model():
    for task in TASKS.values():
        rng = np.random.default_rng(0)
        for prompt in task.train_prompts(rng, 200):
            assert len(prompt) <= 16
            assert len(task.target(prompt)) <= task.max_new


@pytest.mark.parametrize("name", task_names())
def test_split_never_overlaps(name):
    task = get_task(name)
    held = task.held_out_prompts()
    assert len(held) == len(set(held)) == HELD_OUT_SIZE
    assert all(task.is_held_out(p) for p in held)
    train = task.train_prompts(np.random.default_rng(1), 3000)
    assert not set(train) & set(held)
    assert not any(task.is_held_out(p) for p in train)
    assert task.held_out_prompts() == held  # fixed


def test_addition_holds_out_both_orders():
    task = get_task("add")
    for prompt in task.held_out_prompts()[:50]:
        a, b = prompt[:-1].split("+")
        assert task.is_held_out(f"{b}+{a}=")


def test_held_out_share_is_about_a_tenth():
    task = get_task("add")
    pairs = [f"{a}+{b}=" for a in range(100) for b in range(100)]
    share = np.mean([task.is_held_out(p) for p in pairs])
    assert 0.07 < share < 0.13


def test_rewards_are_the_labs_weighted_sum():
    task = get_task("add")
    prompts = ["23+45="] * 4
    completions = ["68.", "69.", "68", "6x."]
    plain, parts = grade(task, prompts, completions)
    assert plain.tolist() == [1.0, 0.0, 0.0, 0.0]
    assert parts["format"].tolist() == [1.0, 1.0, 0.0, 0.0]
    assert np.isnan(parts["partial"]).all()
    weighted, _ = grade(task, prompts, completions, RewardWeights(accuracy=1.0, format=0.5))
    assert weighted.tolist() == [1.5, 0.5, 0.0, 0.0]


def test_accuracy_is_exact_not_by_value():
    rewards, _ = grade(get_task("add"), ["2+3="] * 2, ["05.", "5."])
    assert rewards.tolist() == [0.0, 1.0]
