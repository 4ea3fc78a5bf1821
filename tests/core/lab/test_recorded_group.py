"""A group read back from a real run's rollout file, as the lab will show it."""

from __future__ import annotations

import json

import pytest
from rollout_files import needs_pyarrow, verl_prompt, write_trl, write_verl

from grpo_desktop.core.lab.recorded_group import (
    MAX_REWARD_MAGNITUDE,
    MAX_TEXT_CHARS,
    recorded_group,
    reward_magnitude_problem,
)
from grpo_desktop.core.runs.rollouts import RolloutError, open_rollouts


def test_a_verl_group_keeps_its_texts_rewards_components_prompt_and_answer_key(tmp_path):
    source = open_rollouts(write_verl(tmp_path))
    group = recorded_group(source, 1, 1)
    assert group.texts == tuple(
        f"step 1 q 1 answer {k}: {2 if s else 0}" for k, s in enumerate([1, 0, 0, 1])
    )
    assert group.rewards == (1.0, 0.0, 0.0, 1.0)
    assert dict(group.components)["format_reward"] == (0.5,) * 4
    assert group.prompt == verl_prompt(1, 1)
    assert group.answer_key == "2"
    assert group.logged_advantages is None
    assert (group.step, group.group_index, group.group_count) == (1, 1, 3)
    assert group.title == "Step 1 · group 2 of 3"


def test_its_problem_shows_each_answer_whatever_the_reward(tmp_path):
    problem = recorded_group(open_rollouts(write_verl(tmp_path)), 2, 1).problem()
    assert problem.group_size == 4
    assert [problem.trace_for(i).text(True) for i in range(4)] == [
        problem.trace_for(i).text(False) for i in range(4)
    ]
    assert problem.answer_key == "3"


def test_a_long_completion_is_cut_with_a_note_of_how_much(tmp_path):
    lines = [
        json.dumps({"input": "p", "output": "x" * (MAX_TEXT_CHARS + 500), "score": 1.0, "step": 1}),
        json.dumps({"input": "p", "output": "short", "score": 0.0, "step": 1}),
    ]
    (tmp_path / "1.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    group = recorded_group(open_rollouts(tmp_path / "1.jsonl"), 1, 0)
    assert group.texts[0].endswith("[cut: 500 more characters]")
    assert group.texts[1] == "short"


def test_a_group_of_one_answer_cannot_be_a_lab_group(tmp_path):
    line = json.dumps({"input": "p", "output": "alone", "score": 1.0, "step": 1})
    (tmp_path / "1.jsonl").write_text(line + "\n", encoding="utf-8")
    with pytest.raises(RolloutError, match="has 1 answers; the lab shows groups of 2 to 64"):
        recorded_group(open_rollouts(tmp_path / "1.jsonl"), 1, 0)


@needs_pyarrow
def test_a_trl_group_carries_each_reward_function_and_the_logged_advantages(tmp_path):
    group = recorded_group(open_rollouts(write_trl(tmp_path)), 10, 0)
    assert group.run_format == "trl"
    assert group.rewards == (1.5, 0.5, 0.0, 1.5)
    assert dict(group.components)["accuracy_reward"] == (1.0, 0.0, 0.0, 1.0)
    assert group.logged_advantages is not None and len(group.logged_advantages) == 4
    assert group.prompt == "<|im_start|>user\nQuestion 0 of step 10<|im_end|>"
    assert group.answer_key is None


def test_the_lab_and_the_rollout_readers_refuse_rewards_beyond_one_bound():
    from grpo_desktop.core.runs import rollouts

    assert MAX_REWARD_MAGNITUDE == rollouts.MAX_REWARD_MAGNITUDE


@pytest.mark.parametrize("rewards", [(1.0, 1e200, 0.0), (1.0, -1e308, 0.0), (0.0, 2e100, 1.0)])
def test_rewards_too_large_for_every_convention_are_named(rewards):
    problem = reward_magnitude_problem(rewards)
    assert problem is not None and problem.startswith("has reward #2 = ")
    assert "beyond the ±1e+100 the lab scores" in problem and "\n" not in problem


def test_rewards_within_the_bound_have_no_problem():
    assert reward_magnitude_problem((1e100, -1e100, 0.0)) is None


def test_what_the_lab_shows_of_a_run_escapes_disguising_characters_but_keeps_the_log():
    from rollout_files import recorded

    group = recorded(
        rewards=(1.0, 0.0),
        texts=("the file is \u202eexe.live\n\tAnswer: 4", "plain\x1b[31m red"),
        prompt="What is 2 + 2?\u200b\nThink.",
        file_name="\u202egpj.exe.jsonl",
        answer_key="4\u2066",
    )
    problem = group.problem()
    assert problem.trace_for(0).text(True) == "the file is \\u202eexe.live\n\tAnswer: 4"
    assert problem.trace_for(1).text(False) == "plain\\x1b[31m red"
    assert problem.prompt == "What is 2 + 2?\\u200b\nThink."
    assert problem.answer_key == "4\\u2066"
    assert group.origin == "verl rollouts, \\u202egpj.exe.jsonl"
    assert group.texts[0] == "the file is \u202eexe.live\n\tAnswer: 4"  # the log, as written


def test_a_long_answer_key_is_cut_so_the_group_can_be_saved(tmp_path):
    from grpo_desktop.core.lab.recorded_group import MAX_ANSWER_KEY_CHARS
    from grpo_desktop.core.lab.reward_fields import recorded_from_dict, recorded_to_dict

    lines = [
        json.dumps({"input": "p", "output": f"a{k}", "gts": "9" * 1000, "score": k, "step": 1})
        for k in (0.0, 1.0)
    ]
    (tmp_path / "1.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    group = recorded_group(open_rollouts(tmp_path / "1.jsonl"), 1, 0)
    assert group.answer_key.startswith("9" * MAX_ANSWER_KEY_CHARS + " … [cut: 800 more")
    assert recorded_from_dict(recorded_to_dict(group)) == group
