"""The rollout reader on files made as TRL's and verl's own code makes them (issue 26).

The writers are in ``tests/library_writers.py``; each test names the library code it follows.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from rollout_files import needs_pyarrow, pa

from grpo_desktop.core.runs.rollouts import open_rollouts

pytestmark = needs_pyarrow

if pa is not None:  # without pyarrow every test here is skipped
    import library_writers as lw

G = 4


def rows(per_group: list[str], size: int = G) -> list[str]:
    return [prompt for prompt in per_group for _ in range(size)]


def completions(count: int) -> list[str]:
    return [f"answer {i}" for i in range(count)]


# --- 1. answers no reward function scored --------------------------------------------------------

UNSCORED_ACCURACY = [1.0, 0.0, None, 1.0, 1.0, None, 1.0, 1.0, 0.0, 0.0, 1.0, 0.0]
UNSCORED_FORMAT = [0.5, 0.5, None, 0.0, None, None, None, None, 0.5, 0.5, 0.5, 0.0]


def unscored_table(version):
    return lw.trl_table(
        7,
        rows(["Question A", "Question B", "Question C"]),
        completions(12),
        {"accuracy_reward": UNSCORED_ACCURACY, "format_reward": UNSCORED_FORMAT},
        G,
        version=version,
    )


def test_trl_16_leaves_an_answer_no_function_scored_out_of_its_group(tmp_path):
    """TRL ≥ 1.6 (``grpo_trainer.py`` ``_generate_and_score_completions``, commit 1c7c7f9):
    every function returned None → reward NaN, nanmean/nanstd without it, advantage 0."""
    path = lw.write_trl_completions(tmp_path, unscored_table((1, 6)))
    source = open_rollouts(path)
    (step,) = source.steps
    first, second, _ = step.groups
    assert first.rewards[:2] == (1.5, 0.5) and math.isnan(first.rewards[2])
    assert first.mean == pytest.approx((1.5 + 0.5 + 1.0) / 3)  # three answers, not four
    assert second.rewards[0] == 1.0 and math.isnan(second.rewards[1])
    assert second.degenerate  # 1.0, 1.0, 1.0 and one unscored: no signal
    assert step.degenerate_fraction == pytest.approx(1 / 3)
    assert step.convention_match == "trl" and step.problems == ()
    assert any("left out of their group's mean and std" in note for note in step.notes)
    answers = source.group_answers(7, 0)
    assert math.isnan(answers[2].reward) and answers[2].advantage == 0.0


def test_trl_15_counts_an_answer_no_function_scored_as_zero(tmp_path):
    """TRL ≤ 1.5 (``grpo_trainer.py`` before commit 1c7c7f9): ``nansum`` makes it 0 and it
    counts in its group's mean and std; the logged advantages show which rule the run used."""
    path = lw.write_trl_completions(tmp_path, unscored_table((1, 5)))
    source = open_rollouts(path)
    (step,) = source.steps
    first, second, _ = step.groups
    assert first.rewards == (1.5, 0.5, 0.0, 1.0)
    assert second.rewards == (1.0, 0.0, 1.0, 1.0) and not second.degenerate
    assert step.degenerate_fraction == 0.0
    assert step.convention_match == "trl" and step.problems == ()
    assert any("as TRL ≤ 1.5's nansum made them" in note for note in step.notes)
    assert source.group_answers(7, 0)[2].reward == 0.0


# --- 2. log_extra columns are not rewards --------------------------------------------------------


def test_numeric_log_extra_columns_are_not_summed_into_the_reward(tmp_path):
    """TRL ≥ 1.0 (``GRPOTrainer._log_completion_extra``, ``log``): the table is step, prompt,
    completion, the reward functions' columns, then the ``log_extra`` columns in sorted order,
    then advantage. Extras here: a float32-exact 0/1 flag, whole numbers, and ratios."""
    accuracy = [1.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 1.0, 0.0, 0.0]
    table = lw.trl_table(
        3,
        rows(["Question A", "Question B", "Question C"]),
        completions(12),
        {"accuracy_reward": accuracy, "format_reward": [0.5] * 12},
        G,
        version=(1, 0),
        extra={
            "has_box": [1.0, 0.0] * 6,
            "num_tokens": list(range(30, 42)),
            "length_ratio": [n / 7 for n in range(12)],
        },
    )
    assert table.column_names[3:8] == [
        "accuracy_reward",
        "format_reward",
        "has_box",
        "length_ratio",
        "num_tokens",
    ]
    (step,) = open_rollouts(lw.write_trl_completions(tmp_path, table)).steps
    assert [g.rewards for g in step.groups] == [
        (1.5, 0.5, 0.5, 1.5),
        (1.5, 1.5, 1.5, 1.5),
        (0.5, 1.5, 0.5, 0.5),
    ]
    assert step.degenerate_fraction == pytest.approx(1 / 3)
    assert step.convention_match == "trl" and step.problems == ()
    (note,) = [n for n in step.notes if "extra logged columns" in n]
    assert "'has_box', 'length_ratio' (not float32 values" in note
    assert "'num_tokens' (whole numbers" in note


# --- 3. verl DAPO with the overlong buffer -------------------------------------------------------


def dapo_group(results, lengths):
    pairs = [lw.dapo_reward(result, length) for result, length in zip(results, lengths)]
    return [reward for reward, _ in pairs], [info for _, info in pairs]


def test_verl_dapo_reward_is_the_score_plus_the_overlong_penalty(tmp_path):
    """verl ``DAPORewardManager.__call__`` with a dict-returning ``compute_score`` (math_dapo's
    ``{"score", "acc", "pred"}``): its keys overwrite the dump's ``score``
    (``RayPPOTrainer._dump_generations``) and ``overlong_reward`` is logged beside it."""
    results = [{"score": 1.0, "acc": True, "pred": "4"}] * 4
    rewards, infos = dapo_group(results, [5, 12, 16, 20])  # the last three run over
    path = lw.write_verl_dump(
        tmp_path, 5, ["What is 2 + 2?"] * 4, ["4"] * 4, ["4"] * 4, rewards, infos, [2, 0, 3, 1]
    )
    assert [json.loads(line)["score"] for line in path.read_text().splitlines()] == [1.0] * 4
    source = open_rollouts(path)
    (step,) = source.steps
    (group,) = step.groups
    assert group.rewards == pytest.approx((0.4, 1.0, 0.0, 0.8))
    assert not group.degenerate and step.degenerate_fraction == 0.0
    assert any("score + overlong_reward" in note for note in step.notes)
    answers = source.group_answers(5, 0)
    assert [a.reward for a in answers] == pytest.approx([0.4, 1.0, 0.0, 0.8])
    assert answers[0].components["score"] == 1.0
    assert answers[0].components["overlong_reward"] == pytest.approx(-0.6)
    # A number-returning compute_score: DAPO logs it as ``acc``, and the dump's ``score``
    # (``token_level_scores.sum(-1)``) already holds score + overlong_reward: not added twice.
    rewards, infos = dapo_group([1.0, 0.0, 1.0, 1.0], [5, 5, 15, 5])
    path = lw.write_verl_dump(tmp_path, 2, ["p"] * 4, ["o"] * 4, ["1"] * 4, rewards, infos)
    (step,) = open_rollouts(path).steps
    assert step.groups[0].rewards == pytest.approx((1.0, 0.0, 0.5, 1.0))
    assert not any("overlong_reward" in note for note in step.notes)


# --- 4. float32 arithmetic on a reward model's scale ---------------------------------------------


def test_rewards_near_100_match_despite_float32_rounding(tmp_path):
    """A reward model's logits (``rewards_per_func[:, i] = reward_func(...).logits[:, 0]``, a
    float32 tensor) near 100 ± 1: TRL's float32 advantages differ from float64 by ~1e-5."""
    rng = np.random.default_rng(4)
    scores = (100 + rng.normal(0, 1, 8 * 8)).astype(np.float32).tolist()
    table = lw.trl_table(
        2,
        rows([f"Question {q}" for q in range(8)], 8),
        completions(64),
        {"OpenAssistant/reward-model-deberta-v3-large-v2": scores},
        8,
    )
    path = lw.write_trl_completions(tmp_path, table)
    (step,) = open_rollouts(path).steps
    assert step.convention_match == "trl", step.problems
    assert 1e-6 < step.max_abs_diff < 1e-3
    doubled = table.set_column(
        table.column_names.index("advantage"),
        "advantage",
        lw.pa.array([2 * a for a in table.column("advantage").to_pylist()]),
    )
    (step,) = open_rollouts(lw.write_trl_completions(tmp_path, doubled)).steps
    assert step.convention_match is None


# --- 5. grouping as the libraries group ----------------------------------------------------------


def test_a_verl_prompt_drawn_twice_makes_the_degenerate_fraction_unknown(tmp_path):
    """verl groups by ``uid`` (``compute_grpo_outcome_advantage``), which ``_dump_generations``
    does not write, and ``_balance_batch`` reorders rows: the same prompt drawn twice in a step
    cannot be split back into its two groups."""
    inputs = ["Twice"] * 4 + ["Once"] * 4 + ["Twice"] * 4
    scores = [1.0, 1.0, 1.0, 1.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]
    infos = [{"acc": s} for s in scores]
    order = [0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11]
    path = lw.write_verl_dump(tmp_path, 3, inputs, ["o"] * 12, ["1"] * 12, scores, infos, order)
    (step,) = open_rollouts(path).steps
    assert [g.size for g in step.groups] == [8, 4]
    assert step.degenerate_fraction is None
    assert any("drawn 2 times" in p and "'uid'" in p for p in step.problems)
    assert any("degenerate fraction is unknown" in p for p in step.problems)


def test_a_verl_prompt_drawn_twice_with_all_equal_rewards_is_still_known(tmp_path):
    inputs = ["Twice"] * 8 + ["Once"] * 4
    scores = [1.0] * 8 + [0.0, 1.0, 0.0, 0.0]
    path = lw.write_verl_dump(
        tmp_path, 3, inputs, ["o"] * 12, ["1"] * 12, scores, [{"acc": s} for s in scores]
    )
    (step,) = open_rollouts(path).steps
    assert step.degenerate_fraction == pytest.approx(2 / 3)  # both draws of "Twice"


def test_trl_groups_by_position_so_a_prompt_drawn_twice_in_a_row_is_two_groups(tmp_path):
    """TRL's ``RepeatSampler`` repeats each index ``num_generations`` times in a row and the
    advantages are ``rewards.view(-1, num_generations)``: groups are consecutive blocks."""
    accuracy = [1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 1.0]
    table = lw.trl_table(
        4, rows(["Same", "Same", "Other"]), completions(12), {"accuracy_reward": accuracy}, G
    )
    (step,) = open_rollouts(lw.write_trl_completions(tmp_path, table)).steps
    assert [g.size for g in step.groups] == [4, 4, 4]
    assert [g.degenerate for g in step.groups] == [True, False, False]
    assert step.degenerate_fraction == pytest.approx(1 / 3)
    assert step.convention_match == "trl" and step.problems == ()


# --- 6. the mismatch hint names the cause the file shows -----------------------------------------

TWO_FUNCTIONS = {
    "accuracy_reward": [1.0, 0.0, 0.0, 1.0, 1.0, 1.0, 0.0, 1.0],
    "format_reward": [0.5, 0.0, 0.5, 0.5, 0.0, 0.5, 0.5, 0.5],
}


@pytest.mark.parametrize(
    ("options", "hint"),
    [
        ({"multi_objective_aggregation": "normalize_then_sum"}, '"normalize_then_sum"'),
        ({"reward_weights": [1.0, 0.25]}, "reward_weights other than 1"),
    ],
)
def test_the_mismatch_hint_names_the_cause(tmp_path, options, hint):
    """``GRPOTrainer._generate_and_score_completions``: ``normalize_then_sum`` normalizes each
    function per group before summing; ``reward_weights`` scale each function's column."""
    table = lw.trl_table(1, rows(["A", "B"]), completions(8), TWO_FUNCTIONS, G, **options)
    (step,) = open_rollouts(lw.write_trl_completions(tmp_path, table)).steps
    assert step.convention_match is None
    (problem,) = step.problems
    assert hint in problem and "no convention reproduces" in problem


def test_a_weighted_dr_grpo_run_is_named_with_its_weight(tmp_path):
    """``scale_rewards="none"`` (Dr. GRPO) with ``reward_weights=[2.0]``: A = 2 (r − mean)."""
    rewards = {"accuracy_reward": TWO_FUNCTIONS["accuracy_reward"]}
    table = lw.trl_table(
        1, rows(["A", "B"]), completions(8), rewards, G, scale_rewards="none", reward_weights=[2.0]
    )
    (step,) = open_rollouts(lw.write_trl_completions(tmp_path, table)).steps
    assert step.convention_match is None
    assert 'scale_rewards="none"' in step.problems[0] and "weighted by 2" in step.problems[0]
    table = lw.trl_table(1, rows(["A", "B"]), completions(8), rewards, G, scale_rewards="none")
    (step,) = open_rollouts(lw.write_trl_completions(tmp_path, table)).steps
    assert step.convention_match == "dr_grpo"  # weight 1: the convention itself


# --- 7. num_iterations > 1 and evaluation --------------------------------------------------------


def test_steps_that_repeat_a_generation_batch_are_explained(tmp_path):
    """``num_iterations=2``: the ``_logs`` deques hold the last generation batch, and ``log``
    writes them at every logging step, so steps 1 and 2 hold the same rows."""
    accuracy = [1.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0]
    for step in (1, 2):
        table = lw.trl_table(step, rows(["A", "B"]), completions(8), {"acc": accuracy}, G)
        lw.write_trl_completions(tmp_path, table)
    first, second = open_rollouts(tmp_path).steps
    assert first.notes == () and first.problems == ()
    assert any("the same rows as step 1" in n and "num_iterations" in n for n in second.notes)
    assert second.problems == ()


def test_a_step_file_overwritten_by_evaluation_is_explained(tmp_path):
    """``log`` in eval mode writes ``completions_{global_step}.parquet`` again from deques of
    ``maxlen=generation_batch_size``: the end of the training batch, then the evaluation's rows
    (``num_generations_eval=2`` here)."""
    train = {"acc": [1.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 1.0, 0.0, 1.0]}
    prompts = rows(["A", "B", "C"])
    table = lw.trl_table(5, prompts, completions(12), train, G)
    evaluation = lw.trl_table(
        5, rows(["E1", "E2", "E3"], 2), completions(6), {"acc": [1.0, 0.0] * 3}, 2
    )
    tail = table.slice(6)  # 12 + 6 rows through a deque of 12: the last 6 train rows remain
    mixed = lw.pa.concat_tables([tail, evaluation])
    lw.write_trl_completions(tmp_path, lw.trl_table(4, prompts, completions(12), train, G))
    lw.write_trl_completions(tmp_path, mixed)
    _, step = open_rollouts(tmp_path).steps
    assert step.degenerate_fraction is None
    (problem,) = step.problems
    assert "holds an evaluation batch" in problem and "groups of 2" in problem
    assert "group sizes differ" not in problem


# --- 8. conversations are shown as chat turns ----------------------------------------------------


def test_chat_prompts_and_completions_read_as_turns_not_json(tmp_path):
    """TRL logs ``prompts`` and ``completions`` themselves (lists of ``{role, content}``)
    since commit de62232 "Show conversations (not decoded text) in the completions table"."""
    system = "You are a careful assistant. Think step by step and box the answer."
    prompts = rows([lw.chat(system, "What is 2 + 2?"), lw.chat(system, "What is 3 + 5?")])
    answers = [[{"role": "assistant", "content": f"The answer is {i}."}] for i in range(8)]
    table = lw.trl_table(9, prompts, answers, {"acc": [1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0]}, G)
    source = open_rollouts(lw.write_trl_completions(tmp_path, table))
    (step,) = source.steps
    assert step.groups[0].prompt == f"system: {system}\nuser: What is 2 + 2?"
    assert step.convention_match == "trl"
    (first, *_) = source.group_answers(9, 1)
    assert first.text == "assistant: The answer is 4."
    assert first.prompt == f"system: {system}\nuser: What is 3 + 5?"
    assert "{" not in first.text and "role" not in first.prompt


def test_the_lab_opens_a_trl_16_group_with_the_answers_it_scored_and_says_how_many_it_left(
    tmp_path,
):
    """The Lab holds the answers the run scored (TRL ≥ 1.6 left the unscored one out of its
    mean and std) and its origin line names the answer it left out; a scenario keeps the count."""
    from grpo_desktop.core.lab.recorded_group import recorded_group
    from grpo_desktop.core.lab.reward_fields import recorded_from_dict, recorded_to_dict

    path = lw.write_trl_completions(tmp_path, unscored_table((1, 6)))
    group = recorded_group(open_rollouts(path), 7, 0)
    assert group.rewards == (1.5, 0.5, 1.0)
    assert group.texts == ("answer 0", "answer 1", "answer 3")
    assert group.unscored == 1
    assert "1 answer no reward function scored left out" in group.origin
    assert group.logged_advantages is not None and len(group.logged_advantages) == 3
    assert recorded_from_dict(recorded_to_dict(group)) == group
